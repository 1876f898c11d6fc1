// attention/han.h: attention pooling and hierarchical attention on hand-worked inputs, and
// the documents they read split into sentences.
#include <doctest/doctest.h>

#include <cmath>

#include "helpers.h"
#include "attention/han.h"
#include "text/tokenizer.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

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
