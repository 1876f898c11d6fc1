// attention/mask.h: each mask family (causal, window:R, dilated:K, padding) hides exactly the
// keys it names, through the pipeline and through the kernels' hooks.
#include <doctest/doctest.h>

#include <cmath>

#include "attention/mask.h"
#include "attention/pipeline.h"
#include "error.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;
using attnviz::testing::self_input;
using attnviz::testing::store;

TEST_CASE("masks: masked weights are exactly 0, scores stay unmasked, full rows are flagged") {
  auto p = param_store::seeded(0);
  attention_spec spec;
  spec.score = "dot";
  spec.masks.rules = parse_masks("causal");
  const matrix x = mat(3, 2, {1, 0, 0, 1, 1, 1});
  auto r = run_attention(self_input(x), spec, p);
  const auto& h = r.heads[0];
  CHECK(h.weights(0, 1) == 0.0f);
  CHECK(h.weights(0, 2) == 0.0f);
  CHECK(h.weights(1, 2) == 0.0f);
  CHECK(h.weights(0, 0) == 1.0f);
  CHECK(h.scores(0, 2) == 1.0f);  // scores are kept before masking
  CHECK(h.masked == std::vector<bool>{false, true, true, false, false, true, false, false, false});
  // every key of row 0 hidden: zero weights, zero context, flagged
  spec.masks.pad_keys = {0};
  auto p2 = param_store::seeded(0);
  r = run_attention(self_input(x), spec, p2);
  CHECK(r.heads[0].masked_rows == std::vector<bool>{true, false, false});
  CHECK(r.heads[0].context(0, 0) == 0.0f);
  CHECK(r.heads[0].context(0, 1) == 0.0f);
  for (float v : r.heads[0].weights.values()) CHECK_FALSE(std::isnan(v));
}

// mask_row fills the ranges each rule hides; visible() decides entry by entry. Every pair of
// rules (window and dilation sizes from 0 / 1 to past the row), with and without pad keys, on
// every row of short and long rows, and map_masks from the same rows; visible_span holds every
// visible key, and with causal and window rules alone its ends are visible.
TEST_CASE("mask_row, map_masks and visible_span agree with visible()") {
  const std::vector<std::string> kinds = {"causal",    "window:0",  "window:1",  "window:3",
                                          "window:40", "dilated:1", "dilated:2", "dilated:5",
                                          "dilated:40"};
  std::size_t rows_checked = 0, hidden_seen = 0;
  for (std::size_t a = 0; a < kinds.size(); ++a)
    for (std::size_t b = a; b <= kinds.size(); ++b)
      for (int pads = 0; pads < 2; ++pads) {
        mask_set m;
        m.rules = parse_masks(kinds[a] + (b < kinds.size() ? "," + kinds[b] : std::string()));
        if (pads) m.pad_keys = {0, 6, 30};  // 30: past the short rows
        bool tight = !pads;
        for (const auto& rule : m.rules) tight = tight && rule.what != mask_rule::kind::dilated;
        for (std::size_t n_k : {std::size_t{1}, std::size_t{7}, std::size_t{33}}) {
          const std::size_t n_q = n_k + 3;  // rows past the last key too
          INFO(m.describe().front() << " n_k " << n_k);
          const mask_map map = map_masks(m, n_q, n_k);
          REQUIRE(map.hidden.size() == n_q * n_k);
          for (std::size_t i = 0; i < n_q; ++i) {
            std::vector<float> row(n_k, 1.5f);
            mask_row(m, i, row.data(), n_k);
            const key_span span = visible_span(m, i, n_k);
            REQUIRE(span.first <= span.end);
            REQUIRE(span.end <= n_k);
            if (tight && span.first < span.end) {  // causal and window spans are exact
              REQUIRE(m.visible(i, span.first));
              REQUIRE(m.visible(i, span.end - 1));
            }
            bool all = true;
            for (std::size_t j = 0; j < n_k; ++j) {
              const bool hidden = !m.visible(i, j);
              if (j < span.first || j >= span.end) REQUIRE(hidden);
              REQUIRE(row[j] == (hidden ? -std::numeric_limits<float>::infinity() : 1.5f));
              REQUIRE(map.hidden[i * n_k + j] == hidden);
              all = all && hidden;
              hidden_seen += hidden;
            }
            REQUIRE(map.full_rows[i] == all);
            ++rows_checked;
          }
        }
      }
  CHECK(rows_checked == 108 * (4 + 10 + 36));  // 54 rule lists, with and without pads
  CHECK(hidden_seen > rows_checked);  // the rules did hide keys
  const mask_map none = map_masks(mask_set{}, 3, 4);
  CHECK(none.hidden.empty());
  CHECK(none.full_rows == std::vector<bool>(3, false));
}

TEST_CASE("mask rules: window, dilated, combinations, errors") {
  mask_set m;
  m.rules = parse_masks("window:1,dilated:2");
  CHECK(m.visible(3, 3));
  CHECK_FALSE(m.visible(3, 4));  // |i-j| = 1: in the window, but 1 mod 2 != 0
  CHECK_FALSE(m.visible(3, 5));  // |i-j| = 2: outside the window
  m.rules = parse_masks("dilated:3");
  CHECK(m.visible(0, 6));
  CHECK_FALSE(m.visible(0, 4));
  CHECK(m.describe() == std::vector<std::string>{"dilated:3"});
  CHECK_THROWS_WITH(parse_masks("casual"), doctest::Contains("Did you mean 'causal'?"));
  CHECK_THROWS_AS(parse_masks("window:x"), usage_error);
  CHECK_THROWS_AS(parse_masks("dilated:0"), usage_error);
  mask_set pad;
  pad.pad_keys = {5};
  CHECK_THROWS_WITH(apply_masks(matrix(2, 3), pad), doctest::Contains("only 3 keys"));
}
