// Streaming: pooling (analysis/pooled_map.h) by hand and against the whole map, the pipeline
// with a sink against the pipeline without, the progress text, and the pooled picture.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <string>

#include "analysis/pooled_map.h"
#include "attention/pipeline.h"
#include "error.h"
#include "helpers.h"
#include "io/progress.h"
#include "render/canvas.h"
#include "render/pooled_view.h"

using namespace attnviz;
using attnviz::testing::mat;
using attnviz::testing::random_matrix;
using attnviz::testing::self_input;

TEST_CASE("bins: sizes differ by at most one, none empty, every item in its bin") {
  const pool_bins b = make_bins(10, 4);  // starts ceil(c·10/4): 0 3 5 8 10
  CHECK(b.bins == 4);
  CHECK(b.start(0) == 0);
  CHECK(b.start(1) == 3);
  CHECK(b.start(2) == 5);
  CHECK(b.start(3) == 8);
  CHECK(b.start(4) == 10);
  CHECK(make_bins(3, 2048).bins == 3);  // fewer items than pixels: one item per bin
  for (std::size_t n : {1u, 2u, 7u, 100u, 4097u, 65536u})
    for (std::size_t px : {1u, 3u, 64u, 2048u}) {
      const pool_bins bins = make_bins(n, px);
      std::size_t lo = n, hi = 0;
      for (std::size_t c = 0; c < bins.bins; ++c) {
        lo = std::min(lo, bins.size(c));
        hi = std::max(hi, bins.size(c));
      }
      CHECK(lo >= 1);
      CHECK(hi - lo <= 1);
      CHECK(bins.start(bins.bins) == n);
      for (std::size_t i = 0; i < n; i += 1 + n / 97) {
        const std::size_t c = bins.of(i);
        CHECK(bins.start(c) <= i);
        CHECK(i < bins.start(c + 1));
      }
    }
  CHECK_THROWS_AS(make_bins(0, 4), usage_error);
  CHECK(parse_pool_mode("max") == pool_mode::max);
  CHECK_THROWS_AS(parse_pool_mode("median"), usage_error);
}

TEST_CASE("pool_map by hand: a 4 x 5 map into 2 x 2") {
  // rows {0,1} {2,3}; columns {0,1,2} {3,4} (starts ceil(c·5/2): 0 3 5)
  const matrix m = mat(4, 5, {1, 2, 3, 4, 5,   //
                              6, 7, 8, 9, 10,  //
                              0, 0, 0, 1, 0,   //
                              0, 0, 6, 0, 0});
  const pool_bins rows = make_bins(4, 2), cols = make_bins(5, 2);
  const matrix mean = pool_map(m, rows, cols, pool_mode::mean);
  CHECK(mean(0, 0) == doctest::Approx((1 + 2 + 3 + 6 + 7 + 8) / 6.0));
  CHECK(mean(0, 1) == doctest::Approx((4 + 5 + 9 + 10) / 4.0));
  CHECK(mean(1, 0) == doctest::Approx(1.0));
  CHECK(mean(1, 1) == doctest::Approx(0.25));
  const matrix max = pool_map(m, rows, cols, pool_mode::max);
  CHECK(max(0, 0) == 8);
  CHECK(max(0, 1) == 10);
  CHECK(max(1, 0) == 6);
  CHECK(max(1, 1) == 1);
}

TEST_CASE("pooled_weights: rows in any order, from several threads, give pool_map's bytes") {
  const std::size_t H = 2, n_q = 203, n_k = 157;
  std::vector<matrix> maps = {random_matrix(n_q, n_k, 1), random_matrix(n_q, n_k, 2)};
  for (auto how : {pool_mode::mean, pool_mode::max}) {
    std::size_t calls = 0, last = 0;
    pooled_weights sink(H, n_q, n_k, 16, how, [&](std::size_t done, std::size_t total) {
      ++calls;
      last = done;
      CHECK(total == H * n_q);
    });
    // blocks of 5 rows, shuffled, handed over in parallel
    std::vector<std::pair<std::size_t, std::size_t>> blocks;
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t i0 = 0; i0 < n_q; i0 += 5) blocks.emplace_back(h, i0);
    std::shuffle(blocks.begin(), blocks.end(), std::mt19937(7));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t b = 0; b < static_cast<std::ptrdiff_t>(blocks.size()); ++b) {
      const auto [h, i0] = blocks[static_cast<std::size_t>(b)];
      sink.consume(h, i0, std::min<std::size_t>(5, n_q - i0), maps[h].row(i0), n_k);
    }
    CHECK(calls == blocks.size());
    CHECK(last == H * n_q);
    for (std::size_t h = 0; h < H; ++h) {
      const matrix want = pool_map(maps[h], sink.row_bins(), sink.col_bins(), how);
      REQUIRE(sink.maps()[h].size() == want.size());
      CHECK(std::equal(want.data(), want.data() + want.size(), sink.maps()[h].data()));
    }
  }
}

namespace {

// The pipeline with a sink against the pipeline without, pooled.
void check_streamed_matches(const attention_spec& spec, const matrix& x, std::size_t pixels) {
  const attention_input in = self_input(x);
  auto p1 = param_store::seeded(3), p2 = param_store::seeded(3);
  const attention_result full = run_attention(in, spec, p1);
  const std::size_t H = full.heads.size();
  pooled_weights sink(H, x.rows(), x.rows(), pixels, pool_mode::mean);
  const attention_result streamed = run_attention(in, spec, p2, &sink);
  REQUIRE(streamed.heads.size() == H);
  for (std::size_t h = 0; h < H; ++h) {
    CHECK(streamed.heads[h].weights.empty());
    CHECK(streamed.heads[h].scores.empty());
    CHECK(streamed.heads[h].masked_rows == full.heads[h].masked_rows);
    const matrix want =
        pool_map(full.heads[h].weights, sink.row_bins(), sink.col_bins(), pool_mode::mean);
    for (std::size_t i = 0; i < want.size(); ++i)
      CHECK(sink.maps()[h].data()[i] == doctest::Approx(want.data()[i]).epsilon(1e-6));
    const matrix& c1 = full.heads[h].context;
    const matrix& c2 = streamed.heads[h].context;
    for (std::size_t i = 0; i < c1.size(); ++i)
      CHECK(c2.data()[i] == doctest::Approx(c1.data()[i]).epsilon(1e-5));
  }
  for (std::size_t i = 0; i < full.output.size(); ++i)
    CHECK(streamed.output.data()[i] == doctest::Approx(full.output.data()[i]).epsilon(1e-5));
}

}  // namespace

TEST_CASE("streamed pipeline = pooled full pipeline: fused and stage-by-stage, masks, heads") {
  const matrix x = random_matrix(301, 24, 11);
  attention_spec fused;
  check_streamed_matches(fused, x, 50);
  attention_spec heads;
  heads.heads = 3;
  heads.masks.rules = parse_masks("causal,window:40");
  heads.position = position_scheme::alibi;
  check_streamed_matches(heads, x, 64);
  attention_spec additive;
  additive.score = "additive";
  additive.masks.rules = parse_masks("causal");
  check_streamed_matches(additive, x, 17);
  attention_spec sparse;
  sparse.score = "general";
  sparse.align = "sparsemax";
  sparse.heads = 2;
  check_streamed_matches(sparse, x, 301);  // one bin per token: the weights themselves
}

TEST_CASE("variants whose rows depend on the query's index refuse to stream") {
  const matrix x = random_matrix(10, 4, 1);
  pooled_weights sink(1, 10, 10, 4, pool_mode::mean);
  for (const char* score : {"relative"}) {
    attention_spec s;
    s.score = score;
    auto p = param_store::seeded(0);
    CHECK_THROWS_AS(run_attention(self_input(x), s, p, &sink), usage_error);
  }
  attention_spec local;
  local.align = "local-m";
  local.window = 2;
  auto p = param_store::seeded(0);
  CHECK_THROWS_AS(run_attention(self_input(x), local, p, &sink), usage_error);
  attention_spec hard;
  hard.context = "hard";
  CHECK_THROWS_AS(run_attention(self_input(x), hard, p, &sink), usage_error);
}

TEST_CASE("progress line: bar, percent, counts, rate and ETA") {
  const std::string s = progress::line("attending", "rows", 50, 200, 2.0, true);
  CHECK(s == "attending [######..................]  25%  50/200 rows  25.0/s  ETA 6 s");
  const std::string done = progress::line("", "rows", 65536, 65536, 8.0, false);
  CHECK(done == "100%  65,536/65,536 rows  8,192/s  in 8 s");
}

TEST_CASE("pooled picture: the map drawn 1:1 in its colours; SVG embeds it as a PNG") {
  const matrix m = mat(2, 3, {0, 1, 2, 3, 4, 5});
  pooled_view_spec spec;
  spec.values = &m;
  spec.rows = make_bins(2, 2);
  spec.cols = make_bins(3, 3);
  spec.title = "t";
  const figure fig = pooled_heatmap_figure(spec);
  const int z = pooled_zoom(spec.rows, spec.cols);
  CHECK(z == 400 / 3);
  const auto it = std::find_if(fig.items().begin(), fig.items().end(),
                               [](const fig_item& i) { return i.what == fig_item::kind::image; });
  REQUIRE(it != fig.items().end());
  CHECK(it->w == 3 * z);
  CHECK(it->h == 2 * z);
  const canvas img = rasterize(fig);
  const colormap& v = colormap::viridis();
  CHECK(img.get(it->x, it->y) == v.at(0.0));                          // the minimum
  CHECK(img.get(it->x + 3 * z - 1, it->y + 2 * z - 1) == v.at(1.0));  // the maximum
  CHECK(img.get(it->x + z, it->y) == v.at(0.2));
  const std::string svg = to_svg(fig);
  CHECK(svg.find("data:image/png;base64,iVBORw0KGgo") != std::string::npos);
}

TEST_CASE("PNG level: 0 stores, 9 compresses; outside 0-9 is a usage error") {
  canvas img(300, 200, rgb{255, 255, 255});
  img.fill_rect(10, 10, 100, 50, rgb{10, 20, 30});
  set_png_level(0);
  const std::string stored = encode_png(img);
  set_png_level(9);
  const std::string small = encode_png(img);
  set_png_level(default_png_level);
  CHECK(stored.size() > 300 * 200 * 3);
  CHECK(small.size() < stored.size() / 20);
  CHECK(stored.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CHECK_THROWS_AS(set_png_level(10), usage_error);
  CHECK_THROWS_AS(set_png_level(-1), usage_error);
}
