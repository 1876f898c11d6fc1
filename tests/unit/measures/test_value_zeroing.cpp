// The value-zeroing measure (measures/value_zeroing.cpp) on a hand-made layer whose output with a
// zeroed value is known: the map is the cosine distance 1 − a·b / (‖a‖‖b‖) of the outputs,
// computed here the plain way, each row scaled to sum to 1; keys no head sees are exactly 0 even
// where the layer's output would move; a layer's map goes to every head; the refusal by work
// names the longest text that fits.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "error.h"
#include "helpers.h"
#include "measures/measure.h"
#include "model/forward.h"

using namespace attnviz;
using attnviz::testing::random_matrix;

namespace value_zeroing_cases {

namespace {

struct recording_taps final : map_taps {
  std::size_t heads, n;
  std::vector<float> maps;  // [heads, n, n] of the last layer
  recording_taps(std::size_t h, std::size_t rows) : heads(h), n(rows), maps(h * rows * rows) {}
  float* map_of(std::size_t, std::size_t) override { return nullptr; }
  void rows(std::size_t, std::size_t head, std::size_t i0, std::size_t count, const float* w,
            std::size_t) noexcept override {
    std::copy(w, w + count * n, maps.data() + (head * n + i0) * n);
  }
  void layer_done(std::size_t) override {}
};

// The layer: out = 2x; with key j's value zeroed, rows i ≥ j - 1 move by (j + 1)·u_i (u a
// fixed random matrix): row j - 1 moves although causal weights never let it see key j, which
// the measure must not show.
matrix fake_layer(const matrix& x, std::size_t zeroed, const matrix& u) {
  matrix out(x.rows(), x.cols());
  for (std::size_t i = 0; i < x.rows(); ++i)
    for (std::size_t k = 0; k < x.cols(); ++k) {
      const bool moved = zeroed != no_row && i + 1 >= zeroed;
      out(i, k) = 2.0f * x(i, k) + (moved ? static_cast<float>(zeroed + 1) * u(i, k) : 0.0f);
    }
  return out;
}

double cosine_distance(const float* a, const float* b, std::size_t d) {
  double ab = 0.0, aa = 0.0, bb = 0.0;
  for (std::size_t k = 0; k < d; ++k)
    ab += double(a[k]) * b[k], aa += double(a[k]) * a[k], bb += double(b[k]) * b[k];
  return 1.0 - ab / std::sqrt(aa * bb);
}

}  // namespace

TEST_CASE("value zeroing: cosine distances of the layer's outputs, rows scaled, masked keys 0") {
  const std::size_t H = 3, n = 6, d = 5;
  const matrix x = random_matrix(n, d, 31), u = random_matrix(n, d, 32);
  std::vector<float> alpha(H * n * n, 0.0f);  // causal: row i spreads over keys 0..i
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j) alpha[(h * n + i) * n + j] = 1.0f / float(i + 1);
  measure_shape shape;
  shape.layers = 1;
  shape.heads = H;
  shape.n = n;
  shape.width = d;
  std::size_t runs = 0;
  shape.layer_output = [&](std::size_t layer, const matrix& in, std::size_t zeroed) {
    CHECK(layer == 0);
    ++runs;
    return fake_layer(in, zeroed, u);
  };
  recording_taps views(H, n), weights(H, n);
  auto taps = measure_named("value-zeroing", "--measure").make(shape, views, weights);
  taps->layer_input(0, x.data(), n, d);
  for (std::size_t h = 0; h < H; ++h) taps->rows(0, h, 0, n, alpha.data() + h * n * n, n);
  taps->layer_done(0);
  CHECK(runs == n + 1);
  CHECK(weights.maps == alpha);
  const matrix plain = fake_layer(x, no_row, u);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> want(n, 0.0);
    double sum = 0.0;
    for (std::size_t j = 0; j <= i; ++j) {
      const matrix zeroed = fake_layer(x, j, u);
      sum += want[j] = cosine_distance(plain.row(i), zeroed.row(i), d);
    }
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t j = 0; j < n; ++j) {
        const float got = views.maps[(h * n + i) * n + j];
        if (j > i) {
          CHECK(got == 0.0f);  // masked: nothing, though the fake layer's row moved
          continue;
        }
        CHECK(got == doctest::Approx(want[j] / sum).epsilon(1e-5));
      }
  }
}

TEST_CASE("value zeroing: a run past the work limit is refused naming the longest text that fits") {
  const measure_spec& spec = measure_named("value-zeroing", "--measure");
  REQUIRE(static_cast<bool>(spec.check));
  CHECK(spec.follows_residual);
  measure_shape shape;
  shape.layers = 12;
  shape.heads = 12;
  shape.width = 768;
  shape.layer_row_flops = 1.5e7;  // about GPT-2-small's per row
  shape.n = 100;
  CHECK_NOTHROW(spec.check(shape));
  shape.n = 1000;
  // 12 · (n + 1) · n · 1.5e7 ≤ 6e12: n ≤ 182
  CHECK_THROWS_WITH_AS(spec.check(shape), doctest::Contains("at most 182 tokens"), usage_error);
  shape.n = 182;
  CHECK_NOTHROW(spec.check(shape));
  shape.n = 183;
  CHECK_THROWS_AS(spec.check(shape), usage_error);
}

}  // namespace value_zeroing_cases
