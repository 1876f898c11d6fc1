// attention/aoa.h: attention-over-attention on hand-worked inputs.
#include <doctest/doctest.h>

#include <cmath>

#include "helpers.h"
#include "attention/aoa.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

TEST_CASE("AoA by hand: two document words, one query word") {
  // M = D Q^T = [1, 0]^T; alpha = column softmax = [e, 1]/(e + 1); beta = row softmax over one
  // query word = [1, 1]; beta_bar = [1]; s = alpha.
  const auto r = attention_over_attention(mat(2, 2, {1, 0, 0, 1}), mat(1, 2, {1, 0}));
  check_close(r.m, {1, 0});
  const double e = std::exp(1.0);
  check_close(r.alpha, {e / (e + 1), 1 / (e + 1)});
  check_close(r.beta, {1, 1});
  REQUIRE(r.beta_bar.size() == 1);
  CHECK(r.beta_bar[0] == doctest::Approx(1.0));
  CHECK(r.s[0] == doctest::Approx(e / (e + 1)));
}

TEST_CASE("AoA by hand: beta_bar weighs the query words' columns") {
  // D = I (2x2), Q = [[2, 0], [0, 0]]: M = [[2, 0], [0, 0]]
  const auto r = attention_over_attention(mat(2, 2, {1, 0, 0, 1}), mat(2, 2, {2, 0, 0, 0}));
  const double e2 = std::exp(2.0);
  check_close(r.alpha, {e2 / (e2 + 1), 0.5, 1 / (e2 + 1), 0.5});
  check_close(r.beta, {e2 / (e2 + 1), 1 / (e2 + 1), 0.5, 0.5});
  const double b0 = (e2 / (e2 + 1) + 0.5) / 2, b1 = (1 / (e2 + 1) + 0.5) / 2;
  CHECK(r.beta_bar[0] == doctest::Approx(b0));
  CHECK(r.beta_bar[1] == doctest::Approx(b1));
  CHECK(r.s[0] == doctest::Approx(e2 / (e2 + 1) * b0 + 0.5 * b1));
  CHECK(r.s[0] + r.s[1] == doctest::Approx(1.0));
}

TEST_CASE("AoA word scores sum s over a word's positions, highest first") {
  const auto w = aoa_word_scores({"the", "cat", "the", "mat"}, {0.1, 0.5, 0.3, 0.1});
  REQUIRE(w.size() == 3);
  CHECK(w[0].first == "cat");
  CHECK(w[1].first == "the");
  CHECK(w[1].second == doctest::Approx(0.4));
  CHECK(w[2].first == "mat");
}
