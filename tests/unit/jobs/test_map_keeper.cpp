// map_keeper as the fused kernel's taps: the maps it keeps are the kernel's own, attention.npy
// holds the chosen maps at their places, the column sums and the head statistics equal sums
// over the whole maps made another way, and neither depends on the number of threads.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/head_stats.h"
#include "attention/mask.h"
#include "helpers.h"
#include "io/npy.h"
#include "jobs/map_keeper.h"

using namespace attnviz;
using attnviz::testing::random_matrix;
using attnviz::testing::temp_dir;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace map_keeper_cases {

namespace {

constexpr std::size_t H = 3, n = 150, d = 16;

// One layer of causal attention over random q, k, v (rows scaled so the maps are peaked), its
// maps to `weights` (per head, or null) and its rows to `keeper` as a model layer sends them.
struct layer_run {
  matrix q = random_matrix(n, H * d, 1), k = random_matrix(n, H * d, 2), v = random_matrix(n, H * d, 3);
  matrix context = matrix(n, H * d);
  mask_set masks;
  layer_run() {
    masks.rules = parse_masks("causal");
    for (std::size_t i = 0; i < q.size(); ++i) q.data()[i] *= 3.0f;
  }
  void run(map_keeper& keeper, std::size_t layer, std::vector<float*> weights) {
    struct relay {
      map_keeper* k;
      std::size_t layer;
      static void to(void* c, std::size_t h, std::size_t i0, std::size_t rows, const float* w,
                     std::size_t nk) {
        auto* r = static_cast<relay*>(c);
        r->k->rows(r->layer, h, i0, rows, w, nk);
      }
    } r{&keeper, layer};
    projected_attention a;
    a.heads = a.kv_heads = H;
    a.n_q = a.n_k = n;
    a.d = d;
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.ldq = a.ldk = a.ldv = H * d;
    a.weights = weights.data();
    a.context = context.data();
    a.ldc = H * d;
    a.rows_sink = relay::to;
    a.sink_context = &r;
    attention_spec spec;
    spec.masks = masks;
    attend_projected(a, spec, "test");
    keeper.layer_done(layer);
  }
};

keep_request request(std::size_t layers) {
  keep_request r;
  r.layers = layers;
  r.heads = H;
  r.n = n;
  r.causal = true;
  r.keep.assign(layers * H, false);
  return r;
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the kept maps are the kernel's, and the column sums and statistics match them") {
  layer_run run;
  keep_request all = request(1);
  all.keep.assign(H, true);
  all.measure = true;
  all.marked.assign(n, false);
  all.marked[0] = all.marked[7] = true;
  map_keeper keeper(all);
  std::vector<float*> w;
  for (std::size_t h = 0; h < H; ++h) w.push_back(keeper.map_of(0, h));
  run.run(keeper, 0, w);
  REQUIRE(keeper.keeps_all());
  const matrix maps = keeper.take_all();
  const std::vector<float> sums = column_sums(maps.data(), H, n);
  for (std::size_t k = 0; k < H * n; ++k)
    CHECK(std::fabs(keeper.received()[k] - sums[k]) <= 1e-6);
  for (std::size_t h = 0; h < H; ++h) {
    const head_stats want = measure_head(maps.data() + h * n * n, n, all.marked);
    const head_stats& got = keeper.stats()[h];
    CHECK(got.entropy_bits == want.entropy_bits);  // the same sums, in the same order
    CHECK(got.distance == want.distance);
    CHECK(got.first == want.first);
    CHECK(got.previous == want.previous);
    CHECK(got.self == want.self);
    CHECK(*got.marked == *want.marked);
  }
  // a map not kept streams: the other heads' maps are unchanged by it
  keep_request one = request(1);
  one.keep[1] = true;
  map_keeper partial(one);
  std::vector<float*> w1{partial.map_of(0, 0), partial.map_of(0, 1), partial.map_of(0, 2)};
  CHECK(w1[0] == nullptr);
  run.run(partial, 0, w1);
  CHECK(std::memcmp(partial.kept()[1], maps.data() + n * n, n * n * sizeof(float)) == 0);
  CHECK(partial.kept()[0] == nullptr);
  CHECK(partial.received() == keeper.received());
}

TEST_CASE("without column_sums nothing is added; the kept maps and statistics are the same") {
  layer_run run;
  keep_request with = request(1), without = request(1);
  with.keep[2] = without.keep[2] = true;
  with.measure = without.measure = true;
  without.column_sums = false;
  map_keeper a(with), b(without);
  run.run(a, 0, {a.map_of(0, 0), a.map_of(0, 1), a.map_of(0, 2)});
  run.run(b, 0, {b.map_of(0, 0), b.map_of(0, 1), b.map_of(0, 2)});
  CHECK(a.received().size() == H * n);
  CHECK(b.received().empty());
  CHECK(std::memcmp(a.kept()[2], b.kept()[2], n * n * sizeof(float)) == 0);
  for (std::size_t h = 0; h < H; ++h) {
    const head_stats &x = a.stats()[h], &y = b.stats()[h];
    CHECK(x.entropy_bits == y.entropy_bits);
    CHECK(x.distance == y.distance);
    CHECK(x.first == y.first);
    CHECK(x.previous == y.previous);
    CHECK(x.self == y.self);
    CHECK(x.marked == y.marked);
  }
}

TEST_CASE("the column sums are the same bytes on one thread and on two") {
  layer_run run;
  std::vector<std::vector<float>> got;
  const std::size_t before = kernels::threads();
  for (const std::size_t threads : {1, 2}) {
    kernels::set_threads(threads);
    map_keeper keeper(request(1));
    run.run(keeper, 0, {nullptr, nullptr, nullptr});
    got.push_back(keeper.received());
  }
  kernels::set_threads(before);
  CHECK(got[0] == got[1]);
}

TEST_CASE("weighted column sums: Σ_i w_i a_ij, the same bytes on one thread and on two") {
  layer_run run;
  std::vector<float> maps(H * n * n);
  std::vector<float*> w;
  for (std::size_t h = 0; h < H; ++h) w.push_back(maps.data() + h * n * n);
  map_keeper keeper(request(1));
  run.run(keeper, 0, w);
  std::vector<double> weight(n);
  for (std::size_t i = 0; i < n; ++i) weight[i] = 0.25 + 3.0 * static_cast<double>(i % 7);
  std::vector<std::vector<double>> got;
  const std::size_t before = kernels::threads();
  for (const std::size_t threads : {1, 2}) {
    kernels::set_threads(threads);
    fixed_column_sums sums(H, n, true);
    // the kernel's rows again, in blocks from the threads as it sends them
#pragma omp parallel for schedule(dynamic)
    for (std::ptrdiff_t b = 0; b < static_cast<std::ptrdiff_t>(H * 10); ++b) {
      const std::size_t h = static_cast<std::size_t>(b) / 10, i0 = static_cast<std::size_t>(b) % 10 * 15;
      CHECK(sums.add(h, i0, 15, maps.data() + (h * n + i0) * n, weight.data()));
    }
    got.push_back(sums.take());
  }
  kernels::set_threads(before);
  CHECK(got[0] == got[1]);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0.0;
      for (std::size_t i = 0; i < n; ++i) want += weight[i] * maps[(h * n + i) * n + j];
      CHECK(std::fabs(got[0][h * n + j] - want) <= 1e-9);
    }
}

TEST_CASE("the chosen layers' inputs go to a scratch file and come back whole") {
  keep_request r = request(3);
  r.input_layers = {2, 0};
  r.input_width = 5;
  map_keeper keeper(r);
  REQUIRE(keeper.inputs() != nullptr);
  std::vector<std::vector<float>> x;
  for (std::size_t l = 0; l < 3; ++l) {
    x.push_back(random_matrix(n, 5, static_cast<unsigned>(10 + l)).to_vector());
    keeper.layer_input(l, x.back().data(), n, 5);
  }
  for (const std::size_t l : {0, 2}) {
    const matrix back = keeper.inputs()->load(l);
    CHECK(std::memcmp(back.data(), x[l].data(), n * 5 * sizeof(float)) == 0);
  }
  CHECK_THROWS_AS(keeper.inputs()->load(1), std::logic_error);  // not chosen: never saved
  CHECK(input_bytes(r) == 2 * n * 5 * sizeof(float));
  CHECK(map_keeper(request(1)).inputs() == nullptr);
}

TEST_CASE("attention.npy holds the chosen maps at their places") {
  temp_dir dir;
  layer_run run;
  keep_request all = request(2);
  all.keep.assign(2 * H, true);
  map_keeper reference(all);
  for (std::size_t l = 0; l < 2; ++l) {
    std::vector<float*> w;
    for (std::size_t h = 0; h < H; ++h) w.push_back(reference.map_of(l, h));
    run.run(reference, l, w);
  }
  const matrix maps = reference.take_all();
  keep_request file = request(2);
  file.file_layers = {1};
  file.file_heads = {2, 0};
  file.file_path = dir.path("attention.npy");
  file.file_folder = dir.dir().string();
  map_keeper keeper(file);
  for (std::size_t l = 0; l < 2; ++l) run.run(keeper, l, {nullptr, nullptr, nullptr});
  output_batch batch;
  batch.add_streamed(file.file_path, keeper.file());
  batch.commit();
  std::vector<float> want;
  for (const std::size_t h : {2, 0})
    want.insert(want.end(), maps.data() + (1 * H + h) * n * n, maps.data() + (1 * H + h + 1) * n * n);
  CHECK(slurp(file.file_path) == npy_float32({1, 2, n, n}, want.data()));
  CHECK(file_bytes(file) == slurp(file.file_path).size());
}

TEST_CASE("a streamed file dropped without being placed leaves nothing") {
  temp_dir dir;
  std::string name;
  {
    streamed_file f(dir.path("big.npy"), dir.dir().string(), 1000);
    name = f.temporary_name();
    CHECK(std::filesystem::file_size(name) == 1000);
    CHECK(f.write_at(10, "abc", 3));
  }
  CHECK(!std::filesystem::exists(name));
  CHECK(!std::filesystem::exists(dir.path("big.npy")));
}

}  // namespace map_keeper_cases
