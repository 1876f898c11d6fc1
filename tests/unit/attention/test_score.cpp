// Every score function on a hand-worked 2×3 case, plus the identities of VARIANTS.md.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "attention/registry.h"
#include "attention/score.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;
using attnviz::testing::random_matrix;
using attnviz::testing::store;

namespace {

// Q: 2 queries of size 2, K: 3 keys of size 2.
const matrix Q = mat(2, 2, {1, 2, 0, 1});
const matrix K = mat(3, 2, {1, 0, 0, 1, 1, 1});

tensor_data t(std::vector<std::int64_t> shape, std::vector<float> v) {
  return {shape, v};
}

matrix run(const char* name, param_store& p, std::size_t d_a = 0, double sharpen = 1.0) {
  return find_score(name).fn(score_inputs{Q, K, p, d_a, sharpen});
}

}  // namespace

TEST_CASE("dot: e_ij = q_i . k_j") {
  auto p = param_store::seeded(0);
  check_close(run("dot", p), {1, 2, 3, 0, 1, 1});
}

TEST_CASE("scaled_dot: dot / sqrt(d_k)") {
  auto p = param_store::seeded(0);
  const double s = 1 / std::sqrt(2.0);
  check_close(run("scaled_dot", p), {1 * s, 2 * s, 3 * s, 0, 1 * s, 1 * s});
}

TEST_CASE("general: q^T W k with W = diag(1, 2)") {
  auto p = store({{"score.W", t({2, 2}, {1, 0, 0, 2})}});
  // q0 W = [1, 4], q1 W = [0, 2]
  check_close(run("general", p), {1, 4, 5, 0, 2, 2});
}

TEST_CASE("additive: v^T tanh(W_q q + W_k k + b)") {
  auto p = store({{"score.W_q", t({2, 2}, {1, 0, 0, 1})},
                  {"score.W_k", t({2, 2}, {1, 0, 0, -1})},
                  {"score.v", t({2}, {1, -1})},
                  {"score.b", t({2}, {0, 0.5f})}});
  using std::tanh;
  // W_q q0 = [1,2], W_q q1 = [0,1]; W_k k = [1,0], [0,-1], [1,-1]
  check_close(run("additive", p),
              {tanh(2) - tanh(2.5), tanh(1) - tanh(1.5), tanh(2) - tanh(1.5),  //
               tanh(1) - tanh(1.5), tanh(0) - tanh(0.5), tanh(1) - tanh(0.5)});
}

TEST_CASE("concat: v^T tanh(W [q; k])") {
  auto p = store({{"score.W", t({2, 4}, {1, 0, 1, 0, 0, 1, 0, -1})}, {"score.v", t({2}, {1, -1})}});
  // W [q0; k] = [2,2], [1,1], [2,1];  W [q1; k] = [1,1], [0,0], [1,0]
  check_close(run("concat", p), {0, 0, std::tanh(2) - std::tanh(1), 0, 0, std::tanh(1)});
}

TEST_CASE("cosine: cos(q, k) times beta") {
  auto p = param_store::seeded(0);
  const double r5 = std::sqrt(5.0), r2 = std::sqrt(2.0);
  check_close(run("cosine", p), {1 / r5, 2 / r5, 3 / (r5 * r2), 0, 1, 1 / r2});
  check_close(run("cosine", p, 0, 10.0), {10 / r5, 20 / r5, 30 / (r5 * r2), 0, 10, 10 / r2});
}

TEST_CASE("location: e_i = W q_i, blind to key content") {
  auto p = store({{"score.W", t({4, 2}, {1, 0, 0, 1, 1, -1, 9, 9})}});  // n_max = 4 >= n_k = 3
  check_close(run("location", p), {1, 2, -1, 0, 1, -1});
  // Changing the keys' content changes nothing.
  const matrix other_keys = mat(3, 2, {5, 5, -3, 2, 0, 0});
  auto p2 = store({{"score.W", t({4, 2}, {1, 0, 0, 1, 1, -1, 9, 9})}});
  check_close(find_score("location").fn(score_inputs{Q, other_keys, p2, 0, 1.0}),
              {1, 2, -1, 0, 1, -1});
}

TEST_CASE("location: W with fewer rows than keys is an error naming the tensor") {
  auto p = store({{"score.W", t({2, 2}, {1, 0, 0, 1})}});
  CHECK_THROWS_WITH(run("location", p), doctest::Contains("score.W"));
}

TEST_CASE("identity: additive with stacked weights and b = 0 equals concat") {
  const std::size_t d_q = 5, d_k = 5, d_a = 7;
  const matrix q = random_matrix(4, d_q, 1), k = random_matrix(6, d_k, 2);
  const matrix w_q = random_matrix(d_a, d_q, 3), w_k = random_matrix(d_a, d_k, 4);
  const matrix v = random_matrix(1, d_a, 5);
  matrix w(d_a, d_q + d_k);
  for (std::size_t a = 0; a < d_a; ++a) {
    for (std::size_t c = 0; c < d_q; ++c) w(a, c) = w_q(a, c);
    for (std::size_t c = 0; c < d_k; ++c) w(a, d_q + c) = w_k(a, c);
  }
  const std::vector<float> vv(v.data(), v.data() + d_a), zeros(d_a, 0.0f);
  const matrix additive = additive_scores_ref(q, k, w_q, w_k, vv, zeros);
  const matrix concat = concat_scores_ref(q, k, w, vv);
  std::vector<double> want(concat.values().begin(), concat.values().end());
  check_close(additive, want, 1e-5);
}

TEST_CASE("identity: scaled_dot = dot / sqrt(d_k) on random inputs") {
  const matrix q = random_matrix(5, 8, 6), k = random_matrix(7, 8, 7);
  auto p = param_store::seeded(0);
  const matrix d = find_score("dot").fn(score_inputs{q, k, p, 0, 1.0});
  const matrix s = find_score("scaled_dot").fn(score_inputs{q, k, p, 0, 1.0});
  std::vector<double> want;
  for (float x : d.values()) want.push_back(x / std::sqrt(8.0));
  check_close(s, want, 1e-6);
}

TEST_CASE("cosine stays in [-1, 1]; a zero vector scores 0, not NaN") {
  matrix q = random_matrix(6, 4, 8), k = random_matrix(5, 4, 9);
  for (std::size_t c = 0; c < 4; ++c) q(0, c) = 0.0f;            // zero query
  for (std::size_t c = 0; c < 4; ++c) k(1, c) = 3.0f * q(2, c);  // parallel to query 2
  const matrix e = cosine_scores(q, k, 1.0);
  for (float x : e.values()) {
    CHECK(x >= -1.0f);
    CHECK(x <= 1.0f);
    CHECK_FALSE(std::isnan(x));
  }
  for (std::size_t j = 0; j < 5; ++j) CHECK(e(0, j) == 0.0f);
  CHECK(e(2, 1) == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("dot-family scores refuse queries and keys of different sizes") {
  const matrix q = random_matrix(2, 3, 1), k = random_matrix(2, 4, 2);
  auto p = param_store::seeded(0);
  for (const char* name : {"dot", "scaled_dot", "cosine"})
    CHECK_THROWS_WITH(find_score(name).fn(score_inputs{q, k, p, 0, 1.0}),
                      doctest::Contains("d_q = 3"));
  // general handles d_q != d_k with W [d_q, d_k]
  CHECK(find_score("general").fn(score_inputs{q, k, p, 0, 1.0}).cols() == 2);
}

TEST_CASE("seeded parameters have the documented shapes and names") {
  auto p = param_store::seeded(42);
  const matrix q = random_matrix(2, 3, 1), k = random_matrix(4, 3, 2);
  find_score("additive").fn(score_inputs{q, k, p, 5, 1.0});
  REQUIRE(p.used().size() == 4);
  CHECK(p.used()[0].first == "score.W_q");
  CHECK(p.used()[0].second.shape == std::vector<std::int64_t>{5, 3});
  CHECK(p.used()[1].first == "score.W_k");
  CHECK(p.used()[2].first == "score.v");
  CHECK(p.used()[2].second.shape == std::vector<std::int64_t>{5});
  CHECK(p.used()[3].first == "score.b");
  for (float b : p.used()[3].second.values) CHECK(b == 0.0f);
}

TEST_CASE("relative by hand: each of Transformer-XL's four terms on its own") {
  // Q = K = 2 rows of size 2; d = 2 so r_δ = (sin δ, cos δ).
  const matrix q = mat(2, 2, {1, 0, 0, 1});
  const matrix k = mat(2, 2, {2, 0, 1, 1});
  const matrix zero2(2, 2, 0.0f), id = mat(2, 2, {1, 0, 0, 1});
  const std::vector<float> z{0, 0};
  SUBCASE("content only: q_i . k_j") {
    check_close(relative_scores(q, k, zero2, z, z), {2, 1, 0, 1});
  }
  SUBCASE("global content bias u . k_j is the same for every query") {
    check_close(relative_scores(q, k, zero2, {1, 1}, z), {2 + 2, 1 + 2, 0 + 2, 1 + 2});
  }
  SUBCASE("global position bias w . W_R r_{i-j} with W_R = I, w = e_1: sin(i - j)") {
    const matrix zq(2, 2, 0.0f);
    check_close(relative_scores(zq, k, id, z, {1, 0}), {0, std::sin(-1.0), std::sin(1.0), 0}, 1e-6);
  }
  SUBCASE("content-position q_i . W_R r_{i-j}") {
    const matrix zk(2, 2, 0.0f);
    // q0 = e1 reads sin(i - j), q1 = e2 reads cos(i - j)
    check_close(relative_scores(q, zk, id, z, z), {0, std::sin(-1.0), std::cos(1.0), 1}, 1e-6);
  }
}

TEST_CASE("relative: a shifted sentence of one repeated token gives a Toeplitz map") {
  const matrix x(6, 4, 0.5f);
  auto p = param_store::seeded(3);
  const matrix e = find_score("relative").fn(score_inputs{x, x, p, 0, 1.0});
  for (std::size_t i = 0; i + 1 < 6; ++i)
    for (std::size_t j = 0; j + 1 < 6; ++j)
      CHECK(e(i + 1, j + 1) == doctest::Approx(e(i, j)).epsilon(1e-5));
  REQUIRE(p.used().size() == 3);
  // the registered score is the four terms scaled by 1/√d_k, as Transformer-XL scales them
  const matrix raw = relative_scores(x, x, p.require_matrix("score.W_R", 4, 4),
                                     p.require_vector("score.u", 4), p.require_vector("score.w", 4));
  for (std::size_t k = 0; k < e.size(); ++k)
    CHECK(e.data()[k] == doctest::Approx(raw.data()[k] / 2.0).epsilon(1e-6));
  CHECK(p.used()[0].first == "score.W_R");
  CHECK(p.used()[1].first == "score.u");
  CHECK(p.used()[2].first == "score.w");
}
