#include <doctest/doctest.h>

#include <cmath>

#include "attention/mask.h"
#include "attention/pipeline.h"
#include "attention/registry.h"
#include "error.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;
using attnviz::testing::self_input;
using attnviz::testing::store;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace pipeline_cases {

namespace {

const matrix X = mat(3, 2, {1, 0, 0, 2, 1, 1});

}  // namespace

TEST_CASE("raw self-attention with dot: weights = softmax(X X^T), context = A X") {
  auto p = param_store::seeded(0);
  attention_spec spec;
  spec.score = "dot";
  const auto r = run_attention(self_input(X), spec, p);
  REQUIRE(r.heads.size() == 1);
  const auto& h = r.heads[0];
  // X Xᵀ by hand: [[1,0,1],[0,4,2],[1,2,2]]
  check_close(h.scores, {1, 0, 1, 0, 4, 2, 1, 2, 2});
  const double e = std::exp(1.0);
  const double r0 = e + 1 + e;  // row 0: exp(1), exp(0), exp(1)
  const double r1 = 1 + std::exp(4.0) + std::exp(2.0);
  const double r2 = e + std::exp(2.0) + std::exp(2.0);
  check_close(h.weights, {e / r0, 1 / r0, e / r0, 1 / r1, std::exp(4.0) / r1, std::exp(2.0) / r1,
                          e / r2, std::exp(2.0) / r2, std::exp(2.0) / r2});
  // context row 0 = (e·[1,0] + 1·[0,2] + e·[1,1]) / r0
  check_close(h.context, [&] {
    std::vector<double> want;
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t c = 0; c < 2; ++c) {
        double s = 0;
        for (std::size_t j = 0; j < 3; ++j) s += h.weights(i, j) * X(j, c);
        want.push_back(s);
      }
    return want;
  }());
  CHECK(r.spec.score == "dot");
  CHECK(r.d_model == 2);
  CHECK(r.d_k == 2);
}

TEST_CASE("--project applies W_Q, W_K, W_V (torch.nn.Linear layout) and biases") {
  auto p = store({{"q_proj.weight", {{1, 2}, {2, 0}}},  // q = 2 x_0
                  {"k_proj.weight", {{1, 2}, {0, 1}}},  // k = x_1
                  {"v_proj.weight", {{1, 2}, {1, 1}}},  // v = x_0 + x_1
                  {"v_proj.bias", {{1}, {10}}}});
  attention_spec spec;
  spec.score = "dot";
  spec.project = true;
  spec.d_k = 1;
  const auto r = run_attention(self_input(X), spec, p);
  const auto& h = r.heads[0];
  // q = [2, 0, 2], k = [0, 2, 1]: e_ij = q_i k_j
  check_close(h.scores, {0, 4, 2, 0, 0, 0, 0, 4, 2});
  // v = [1, 2, 2] + 10; row 1 has equal scores: context = mean(v) = 11 + 2/3
  CHECK(h.context(1, 0) == doctest::Approx(11.0 + 2.0 / 3.0));
  CHECK(r.d_k == 1);
  CHECK(r.d_v == 1);
}

TEST_CASE("packed in_proj_weight gives the same result as separate projections") {
  const std::vector<float> wq = {1, 2, 3, 4}, wk = {0, 1, -1, 0}, wv = {2, 0, 0, 2};
  std::vector<float> packed = wq;
  packed.insert(packed.end(), wk.begin(), wk.end());
  packed.insert(packed.end(), wv.begin(), wv.end());
  auto separate = store({{"q_proj.weight", {{2, 2}, wq}},
                         {"k_proj.weight", {{2, 2}, wk}},
                         {"v_proj.weight", {{2, 2}, wv}}});
  auto mha =
      store({{"in_proj_weight", {{6, 2}, packed}}, {"in_proj_bias", {{6}, {0, 0, 0, 0, 1, 1}}}});
  attention_spec spec;
  spec.project = true;
  const auto a = run_attention(self_input(X), spec, separate);
  const auto b = run_attention(self_input(X), spec, mha);
  std::vector<double> want(a.heads[0].weights.values().begin(), a.heads[0].weights.values().end());
  check_close(b.heads[0].weights, want);
  CHECK(b.heads[0].context(0, 0) == doctest::Approx(a.heads[0].context(0, 0) + 1.0));
}

TEST_CASE("a missing or misshapen projection names the tensor and the shape expected") {
  attention_spec spec;
  spec.project = true;
  auto missing = store({{"q_proj.weight", {{2, 2}, {1, 0, 0, 1}}}});
  CHECK_THROWS_WITH_AS(
      run_attention(self_input(X), spec, missing),
      "weights.safetensors: missing tensor 'k_proj.weight' (expected shape [2, 2])", input_error);
  auto wrong = store({{"q_proj.weight", {{2, 3}, {1, 0, 0, 1, 0, 0}}}});
  CHECK_THROWS_WITH(run_attention(self_input(X), spec, wrong),
                    doctest::Contains("tensor 'q_proj.weight' has shape [2, 3], expected [2, 2]"));
}

TEST_CASE("cross attention: queries from the target, keys and values from the source") {
  attention_input in;
  in.structure = attention_structure::cross;
  in.query_tokens = {"a", "b"};
  in.key_tokens = {"x", "y", "z"};
  in.queries = mat(2, 2, {1, 0, 0, 1});
  in.keys = in.values = X;
  auto p = param_store::seeded(3);
  attention_spec spec;
  spec.score = "additive";
  const auto r = run_attention(in, spec, p);
  CHECK(r.heads[0].scores.rows() == 2);
  CHECK(r.heads[0].scores.cols() == 3);
  CHECK(r.heads[0].context.rows() == 2);
  CHECK(r.heads[0].context.cols() == 2);
  CHECK(r.structure == attention_structure::cross);
}

TEST_CASE("bad specs are usage errors") {
  auto p = param_store::seeded(0);
  attention_spec spec;
  spec.temperature = 0.0;
  CHECK_THROWS_AS(run_attention(self_input(X), spec, p), usage_error);
  spec.temperature = 1.0;
  spec.score = "nope";
  CHECK_THROWS_AS(run_attention(self_input(X), spec, p), usage_error);
}

TEST_CASE("same seed, same result; hard context reports the chosen keys") {
  attention_spec spec;
  spec.score = "general";
  spec.context = "hard";
  auto p1 = param_store::seeded(9), p2 = param_store::seeded(9);
  const auto a = run_attention(self_input(X), spec, p1);
  const auto b = run_attention(self_input(X), spec, p2);
  CHECK(a.heads[0].scores.values() == b.heads[0].scores.values());
  CHECK(a.heads[0].chosen_keys == b.heads[0].chosen_keys);
  REQUIRE(a.heads[0].chosen_keys.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto j = static_cast<std::size_t>(a.heads[0].chosen_keys[i]);
    CHECK(a.heads[0].context(i, 0) == X(j, 0));
    CHECK(a.heads[0].context(i, 1) == X(j, 1));
  }
}

TEST_CASE("parameters so large that scores overflow are an input error, never inf or NaN") {
  auto p = store({{"score.W", {{2, 2}, {1e30f, 0, 0, 1e30f}}}});
  attention_spec spec;
  spec.score = "general";
  const matrix big = mat(3, 2, {1e10f, 0, 0, 1e10f, 1e10f, 1e10f});
  CHECK_THROWS_WITH_AS(run_attention(self_input(big), spec, p),
                       doctest::Contains("weights.safetensors: the scores overflowed"),
                       input_error);
}

TEST_CASE("property: every score x align x context on random inputs of every scale") {
  // For each combination and inputs from 1e-20 to 1e15 in magnitude: either a result whose
  // rows are distributions (sum 1 within 1e-6, entries in [0, 1], no NaN anywhere) or an
  // input_error that says the values overflowed. Never NaN, never a silent wrong row.
  std::uint64_t state = 42;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  };
  std::size_t results = 0, overflows = 0;
  for (double scale : {1e-20, 1e-3, 1.0, 30.0, 1e4, 1e15}) {
    matrix x(5, 6);
    for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(next() * scale);
    for (const auto& s : score_registry())
      for (const auto& a : align_registry())
        for (const auto& c : context_registry())
          for (bool project : {false, true}) {
            attention_spec spec;
            spec.score = std::string(s.info.name);
            spec.align = std::string(a.info.name);
            spec.context = std::string(c.info.name);
            spec.project = project;
            spec.window = 2;
            auto p = param_store::seeded(7);
            INFO(spec.score << "/" << spec.align << "/" << spec.context << " scale " << scale);
            try {
              const auto r = run_attention(self_input(x), spec, p);
              const auto& h = r.heads[0];
              for (std::size_t i = 0; i < 5; ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < 5; ++j) {
                  CHECK(h.weights(i, j) >= 0.0f);
                  CHECK(h.weights(i, j) <= 1.0f);
                  sum += h.weights(i, j);
                }
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
              }
              for (float v : h.context.values()) CHECK(std::isfinite(v));
              for (float v : h.scores.values()) CHECK(std::isfinite(v));
              ++results;
            } catch (const input_error& e) {
              CHECK(std::string(e.what()).find("overflowed") != std::string::npos);
              ++overflows;
            }
          }
  }
  CHECK(results > overflows);
}

TEST_CASE("local-p under a causal mask: a window past the query has no key, listed in masked_rows") {
  // local-p centres its window on a predicted p_i that may lie after i; with window 1 and the
  // causal mask every key of such a window is hidden, so the row is all zero, like a fully
  // masked row, and must be reported as one
  matrix x(8, 4);
  for (std::size_t k = 0; k < x.size(); ++k)
    x.data()[k] = static_cast<float>(std::sin(0.7 * static_cast<double>(k)));
  std::size_t empty_rows = 0;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    auto p = param_store::seeded(seed);
    attention_spec spec;
    spec.align = "local-p";
    spec.window = 1;
    spec.masks.rules = parse_masks("causal");
    const auto r = run_attention(self_input(x), spec, p);
    const auto& h = r.heads[0];
    for (std::size_t i = 0; i < 8; ++i) {
      double sum = 0.0;
      for (std::size_t j = 0; j < 8; ++j) sum += h.weights(i, j);
      const bool empty = sum == 0.0;
      empty_rows += empty;
      REQUIRE(h.masked_rows.size() == 8);
      CHECK(h.masked_rows[i] == empty);
      if (!empty) CHECK(sum == doctest::Approx(1.0));
    }
  }
  CHECK(empty_rows > 0);  // the case happens for these inputs
}

}  // namespace pipeline_cases
