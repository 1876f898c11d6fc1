// The value-norms measure (measures/norms.cpp) on hand-made layers: against plain loops that
// form every f_h(x_j) = v_h(x_j) W_O^h as a vector and sum the weighted vectors (no Gram
// matrices), in both weight layouts and under grouped-query heads; the maps the views get are
// those norms with each row scaled to sum to 1, masked keys exactly 0, and the weights taps get
// the kernel's rows untouched.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <vector>

#include "helpers.h"
#include "io/file_io.h"
#include "io/npy_read.h"
#include "measures/measure.h"

using namespace attnviz;
using attnviz::testing::random_matrix;
using attnviz::testing::temp_dir;

namespace norms_cases {

namespace {

// Taps that keep what they are sent: every head's map, whole.
struct recording_taps final : map_taps {
  std::size_t heads, n, nk;
  std::vector<float> maps;  // [heads, n, nk] of the last layer
  std::size_t done = 0;
  recording_taps(std::size_t h, std::size_t rows, std::size_t keys)
      : heads(h), n(rows), nk(keys), maps(h * rows * keys) {}
  float* map_of(std::size_t, std::size_t) override { return nullptr; }
  void rows(std::size_t, std::size_t head, std::size_t i0, std::size_t count, const float* w,
            std::size_t keys) noexcept override {
    CHECK(keys == nk);
    std::copy(w, w + count * nk, maps.data() + (head * n + i0) * nk);
  }
  void layer_done(std::size_t) override { ++done; }
};

// A layer's weights over nk keys: row i a softmax of random scores over keys 0..i (causal) or
// all of them.
std::vector<float> layer_weights(std::size_t H, std::size_t n, std::size_t nk, bool causal,
                                 unsigned seed) {
  const matrix s = random_matrix(H * n, nk, seed);
  std::vector<float> a(H * n * nk, 0.0f);
  for (std::size_t r = 0; r < H * n; ++r) {
    const std::size_t seen = causal ? r % n + 1 : nk;
    double z = 0.0;
    for (std::size_t j = 0; j < seen; ++j) z += std::exp(2.0 * s(r, j));
    for (std::size_t j = 0; j < seen; ++j)
      a[r * nk + j] = static_cast<float>(std::exp(2.0 * s(r, j)) / z);
  }
  return a;
}

struct layer_case {
  std::size_t H, KV, dh, d, n;
  linear_layout layout;
  std::size_t nk = 0;  // cross attention: keys of their own (no mask); 0: n, causal
};

// Runs one layer through the measure; returns the views' maps, checks the rest against loops.
void check_layer(const layer_case& t) {
  const std::size_t H = t.H, n = t.n, HD = H * t.dh, nk = t.nk > 0 ? t.nk : n;
  const bool causal = t.nk == 0;
  const std::vector<float> alpha = layer_weights(H, n, nk, causal, 11);
  const matrix v = random_matrix(nk, t.KV * t.dh, 12);
  const matrix w =
      t.layout == linear_layout::out_in ? random_matrix(t.d, HD, 13) : random_matrix(HD, t.d, 13);
  weight_view o;
  o.name = "o_proj.weight";
  o.shape =
      t.layout == linear_layout::out_in
          ? std::vector<std::int64_t>{static_cast<std::int64_t>(t.d), static_cast<std::int64_t>(HD)}
          : std::vector<std::int64_t>{static_cast<std::int64_t>(HD),
                                      static_cast<std::int64_t>(t.d)};
  o.data = reinterpret_cast<const unsigned char*>(w.data());

  recording_taps views(H, n, nk), weights(H, n, nk);
  const measure_spec& spec = measure_named("norms", "--measure");
  const temp_dir dir;
  const std::string out = dir.dir().string();
  measure_shape shape;
  shape.layers = 1;
  shape.heads = H;
  shape.n = n;
  shape.width = t.d;
  shape.keys = t.nk;
  shape.npy_dir = shape.npy_folder = out;
  auto taps = spec.make(shape, views, weights);
  // The kernel writes each head's map where map_of says (the measure's own [H, n, keys]), then
  // sends its rows; without map_of (lengths_only below) the rows are copied there.
  for (std::size_t h = 0; h < H; ++h) {
    float* map = taps->map_of(0, h);
    REQUIRE(map != nullptr);
    std::copy(alpha.data() + h * n * nk, alpha.data() + (h + 1) * n * nk, map);
  }
  for (std::size_t h = 0; h < H; ++h)  // rows in two blocks, as the kernel sends them
    for (std::size_t i0 : {std::size_t{0}, n / 2})
      taps->rows(0, h, i0, i0 == 0 ? n / 2 : n - n / 2, alpha.data() + (h * n + i0) * nk, nk);
  taps->values({0, H, t.KV, t.dh, nk, v.data(), v.cols(), &o, t.layout});
  taps->layer_done(0);
  CHECK(views.done == 1);
  CHECK(weights.done == 1);
  CHECK(weights.maps == alpha);
  // without --npy the lengths come from W^h W^hᵀ, not from the vectors: the same maps
  recording_taps views_only(H, n, nk), ignored(H, n, nk);
  measure_shape bare = shape;
  bare.npy_dir.clear();
  bare.npy_folder.clear();
  auto lengths_only = spec.make(bare, views_only, ignored);
  for (std::size_t h = 0; h < H; ++h) lengths_only->rows(0, h, 0, n, alpha.data() + h * n * nk, nk);
  lengths_only->values({0, H, t.KV, t.dh, nk, v.data(), v.cols(), &o, t.layout});
  lengths_only->layer_done(0);
  CHECK(lengths_only->arrays().empty());
  for (std::size_t k = 0; k < views.maps.size(); ++k)
    CHECK(views_only.maps[k] == doctest::Approx(views.maps[k]).epsilon(1e-5));

  // f_h(x_j) by loops, in double
  auto f = [&](std::size_t h, std::size_t j, std::size_t c) {
    const std::size_t kv = h / (H / t.KV);
    double s = 0.0;
    for (std::size_t e = 0; e < t.dh; ++e) {
      const double we = t.layout == linear_layout::out_in ? w(c, h * t.dh + e) : w(h * t.dh + e, c);
      s += static_cast<double>(v(j, kv * t.dh + e)) * we;
    }
    return s;
  };
  output_batch batch;
  for (const streamed_npy* a : taps->arrays()) batch.add_streamed(a->path(), a->file());
  batch.commit();
  auto read = [&](const std::string& name) {
    std::ifstream in(dir.path(name), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parse_npy(bytes, name);
  };
  const npy_array head_file = read("norms.npy"), layer_file = read("norms_layer.npy");
  CHECK(head_file.shape == std::vector<std::size_t>{1, H, n, nk});
  CHECK(layer_file.shape == std::vector<std::size_t>{1, n, nk});
  const std::vector<float>&per_head = head_file.values, &per_layer = layer_file.values;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> want_row(H * nk, 0.0);
    for (std::size_t j = 0; j < nk; ++j) {
      std::vector<double> sum(t.d, 0.0);
      for (std::size_t h = 0; h < H; ++h) {
        const double a = alpha[(h * n + i) * nk + j];
        double len = 0.0;
        for (std::size_t c = 0; c < t.d; ++c) {
          const double fc = f(h, j, c);
          len += fc * fc;
          sum[c] += a * fc;
        }
        want_row[h * nk + j] = a * std::sqrt(len);
        CHECK(per_head[(h * n + i) * nk + j] == doctest::Approx(a * std::sqrt(len)).epsilon(1e-5));
      }
      double layer = 0.0;
      for (double s : sum) layer += s * s;
      CHECK(per_layer[i * nk + j] == doctest::Approx(std::sqrt(layer)).epsilon(1e-4));
    }
    for (std::size_t h = 0; h < H; ++h) {
      double total = 0.0;
      for (std::size_t j = 0; j < nk; ++j) total += want_row[h * nk + j];
      double shown_sum = 0.0;
      for (std::size_t j = 0; j < nk; ++j) {
        const float shown = views.maps[(h * n + i) * nk + j];
        shown_sum += shown;
        if (causal && j > i) CHECK(shown == 0.0f);  // masked: exactly 0
        CHECK(shown == doctest::Approx(want_row[h * nk + j] / total).epsilon(1e-5));
      }
      CHECK(shown_sum == doctest::Approx(1.0).epsilon(1e-6));
    }
  }
}

}  // namespace

TEST_CASE("norms: per head, per layer and the views' maps against loops over the vectors") {
  SUBCASE("out_in weights (torch.nn.Linear), one value head per query head") {
    check_layer({3, 3, 4, 10, 9, linear_layout::out_in});
  }
  SUBCASE("in_out weights (GPT-2's Conv1D)") {
    check_layer({2, 2, 5, 7, 8, linear_layout::in_out});
  }
  SUBCASE("grouped-query heads: four query heads read two value heads") {
    check_layer({4, 2, 3, 6, 70, linear_layout::out_in});
  }
  SUBCASE("cross attention: 5 queries over 11 keys of their own, no mask") {
    check_layer({2, 2, 4, 8, 5, linear_layout::out_in, 11});
  }
}

TEST_CASE("norms: a row whose weighted vectors are all zero shows the weights") {
  // value rows of zeros: every |f(x_j)| is 0, so nothing can be scaled; the row falls back
  std::vector<float> row{0.0f, 0.0f, 0.0f}, fallback{0.25f, 0.75f, 0.0f};
  normalise_row(row.data(), fallback.data(), 3);
  CHECK(row == fallback);
  std::vector<float> some{1.0f, 3.0f, 0.0f};
  normalise_row(some.data(), fallback.data(), 3);
  CHECK(some[0] == doctest::Approx(0.25));
  CHECK(some[1] == doctest::Approx(0.75));
  CHECK(some[2] == 0.0f);
}

TEST_CASE("measures: the table names weights first; an unknown name is refused with the nearest") {
  CHECK(measure_names().front() == "weights");
  CHECK_FALSE(static_cast<bool>(measure_named("weights", "--measure").make));
  CHECK(static_cast<bool>(measure_named("norms", "--measure").make));
  CHECK_THROWS_WITH_AS(measure_named("norm", "--measure"),
                       doctest::Contains("Did you mean 'norms'?"), usage_error);
}

}  // namespace norms_cases
