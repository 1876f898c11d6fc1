// Attention-over-attention and hierarchical attention on hand-worked inputs.
#include <doctest/doctest.h>

#include <cmath>

#include "attention/aoa.h"
#include "attention/han.h"
#include "helpers.h"
#include "text/tokenizer.h"

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

TEST_CASE("attention pooling by hand: u_t = tanh(W h_t + b), a = softmax(u_t . u)") {
  // W = I, b = 0, u = e_1: scores tanh(1), tanh(0) = 0, tanh(-1)
  const auto p =
      attention_pool(mat(3, 2, {1, 0, 0, 1, -1, 0}), mat(2, 2, {1, 0, 0, 1}), {0, 0}, {1, 0});
  const double t = std::tanh(1.0);
  const double z = std::exp(t) + 1 + std::exp(-t);
  CHECK(p.weights[0] == doctest::Approx(std::exp(t) / z));
  CHECK(p.weights[1] == doctest::Approx(1 / z));
  CHECK(p.weights[2] == doctest::Approx(std::exp(-t) / z));
  CHECK(p.vector[0] == doctest::Approx((std::exp(t) - std::exp(-t)) / z));
  CHECK(p.vector[1] == doctest::Approx(1 / z));
}

TEST_CASE("HAN: the document vector is the sentence-weighted mix of word-weighted mixes") {
  auto params = param_store::seeded(5);
  const std::vector<matrix> sentences = {mat(2, 2, {1, 0, 0, 1}), mat(3, 2, {1, 1, 0, 2, -1, 0}),
                                         mat(1, 2, {0.5f, 0.5f})};
  const auto r = hierarchical_attention(sentences, params);
  REQUIRE(r.word_weights.size() == 3);
  CHECK(r.word_weights[2] == std::vector<double>{1.0});  // one word takes all
  double total = 0;
  for (double a : r.sentence_weights) total += a;
  CHECK(total == doctest::Approx(1.0));
  for (std::size_t c = 0; c < 2; ++c) {
    double v = 0;
    for (std::size_t i = 0; i < 3; ++i) v += r.sentence_weights[i] * r.sentence_vectors(i, c);
    CHECK(r.document[c] == doctest::Approx(v));
  }
  std::vector<std::string> names;
  for (const auto& [n, t] : params.used()) names.push_back(n);
  CHECK(names ==
        std::vector<std::string>{"han.W_w", "han.b_w", "han.u_w", "han.W_s", "han.b_s", "han.u_s"});
}

TEST_CASE("documents split into sentences at line breaks and sentence-final punctuation") {
  const auto s =
      split_sentences("The cat sat. It was tired!\n\nWhy?  no end\n猫很累。它睡了", {}, "doc");
  REQUIRE(s.size() == 6);
  CHECK(s[0] == std::vector<std::string>{"the", "cat", "sat", "."});
  CHECK(s[1] == std::vector<std::string>{"it", "was", "tired", "!"});
  CHECK(s[2] == std::vector<std::string>{"why", "?"});
  CHECK(s[3] == std::vector<std::string>{"no", "end"});
  CHECK(s[4].back() == "。");
  CHECK(s[5].size() == 3);
}
