// Stage 2 on hand-worked rows, extreme scores, and the contract every align function keeps.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attention/align.h"
#include "attention/registry.h"
#include "helpers.h"
#include "kernels/kernels.h"
#include "params/param_store.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

namespace {
constexpr float inf = std::numeric_limits<float>::infinity();

double row_sum(const matrix& a, std::size_t i) {
  double s = 0;
  for (std::size_t j = 0; j < a.cols(); ++j) s += a(i, j);
  return s;
}
}  // namespace

TEST_CASE("softmax of [0, ln 2, ln 3] is [1/6, 2/6, 3/6]") {
  const matrix e = mat(1, 3, {0.0f, std::log(2.0f), std::log(3.0f)});
  check_close(align_softmax(e, {}), {1.0 / 6, 2.0 / 6, 3.0 / 6});
}

TEST_CASE("softmax temperature: tau = 2 on [0, 2 ln 2] gives [1/3, 2/3]") {
  const matrix e = mat(1, 2, {0.0f, 2 * std::log(2.0f)});
  check_close(align_softmax(e, {2.0}), {1.0 / 3, 2.0 / 3});
  // tau -> small approaches hardmax
  const matrix sharp = align_softmax(mat(1, 3, {1, 2, 3}), {0.01});
  CHECK(sharp(0, 2) > 0.999f);
}

TEST_CASE("softmax is shift-invariant and survives scores of +-1e30") {
  const matrix a = align_softmax(mat(1, 3, {1, 2, 3}), {});
  const matrix b = align_softmax(mat(1, 3, {1001, 1002, 1003}), {});
  check_close(b, {a(0, 0), a(0, 1), a(0, 2)}, 1e-6);
  const matrix big = align_softmax(mat(2, 3, {1e30f, -1e30f, 0, -1e30f, -1e30f, -1e30f}), {});
  check_close(big, {1, 0, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3});
}

TEST_CASE("softmax: -inf is weight 0; a fully masked row is all zeros; +inf shares the weight") {
  const matrix a = align_softmax(mat(3, 3, {0, -inf, 0, -inf, -inf, -inf, inf, 5, inf}), {});
  check_close(a, {0.5, 0, 0.5, 0, 0, 0, 0.5, 0, 0.5});
  CHECK(a(0, 1) == 0.0f);
}

TEST_CASE("hardmax is one-hot at the first maximum") {
  const matrix a = align_hardmax(
      mat(3, 4, {1, 3, 3, 2, -1e30f, -1e30f, -1e30f, -1e30f, -inf, -inf, -inf, -inf}), {});
  check_close(a, {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("every registered align function keeps the contract on random and extreme rows") {
  std::mt19937 gen(7);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<matrix> cases;
  for (std::size_t cols : {1u, 2u, 7u, 33u, 200u}) {
    matrix m(16, cols);
    for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = n(gen) * (i % 3 == 0 ? 1e3f : 3.0f);
    cases.push_back(m);
  }
  cases.push_back(mat(2, 4, {1e30f, -1e30f, 1e30f, 0, 5, 5, 5, 5}));  // extremes, ties
  cases.push_back(mat(1, 3, {-inf, -inf, -inf}));                     // fully masked
  cases.push_back(mat(1, 3, {-inf, 2, -inf}));                        // partly masked
  for (const auto& entry : align_registry()) {
    for (double tau : {0.05, 1.0, 20.0}) {
      for (const auto& e : cases) {
        // local-p predicts its centres from queries with parameters: give it some
        matrix queries(e.rows(), 3);
        for (std::size_t i = 0; i < queries.size(); ++i) queries.data()[i] = n(gen);
        auto params = param_store::seeded(3);
        const matrix a = entry.fn(e, {tau, 2, &queries, &params});
        REQUIRE(a.rows() == e.rows());
        REQUIRE(a.cols() == e.cols());
        for (std::size_t i = 0; i < a.rows(); ++i) {
          bool masked = true;
          for (std::size_t j = 0; j < e.cols(); ++j) masked = masked && e(i, j) == -inf;
          INFO(entry.info.name << " tau " << tau << " row " << i);
          CHECK(row_sum(a, i) == doctest::Approx(masked ? 0.0 : 1.0).epsilon(1e-6));
          (void)0;
          for (std::size_t j = 0; j < a.cols(); ++j) {
            CHECK_FALSE(std::isnan(a(i, j)));
            CHECK(a(i, j) >= 0.0f);
            CHECK(a(i, j) <= 1.0f);
            if (e(i, j) == -inf) CHECK(a(i, j) == 0.0f);
          }
        }
      }
    }
  }
}

TEST_CASE("sparsemax by hand: [1, 0.5, -1] -> [0.75, 0.25, 0] (theta = 0.25)") {
  const double z[] = {1.0, 0.5, -1.0};
  double p[3];
  kernels::sparsemax_row_ref(z, p, 3);
  CHECK(p[0] == doctest::Approx(0.75));
  CHECK(p[1] == doctest::Approx(0.25));
  CHECK(p[2] == 0.0);  // exactly zero
  const double tie[] = {2.0, 2.0}, far[] = {3.0, 0.0};
  kernels::sparsemax_row_ref(tie, p, 2);
  CHECK(p[0] == doctest::Approx(0.5));
  kernels::sparsemax_row_ref(far, p, 2);
  CHECK(p[0] == 1.0);
  CHECK(p[1] == 0.0);
  // temperature divides the scores first: [1, 0.5, -1] at tau = 0.5 is [2, 1, -2] -> [1, 0, 0]
  const matrix a = align_sparsemax(mat(1, 3, {1.0f, 0.5f, -1.0f}), {0.5});
  check_close(a, {1.0, 0.0, 0.0});
}

TEST_CASE("entmax15 by hand: [1, 0] -> theta = 1/4 - sqrt(7/16), p = (z/2 - theta)^2") {
  const double z[] = {1.0, 0.0};
  double p[2];
  kernels::entmax15_row_ref(z, p, 2);
  const double theta = 0.25 - std::sqrt(0.4375);
  CHECK(p[0] == doctest::Approx((0.5 - theta) * (0.5 - theta)));
  CHECK(p[1] == doctest::Approx(theta * theta));
  CHECK(p[0] + p[1] == doctest::Approx(1.0));
  const double far[] = {2.0, 0.0};  // s = [1, 0]: theta = 0, p = [1, 0] with an exact zero
  kernels::entmax15_row_ref(far, p, 2);
  CHECK(p[0] == doctest::Approx(1.0));
  CHECK(p[1] == 0.0);
  // entmax15 is between softmax and sparsemax: more zeros than softmax, fewer than sparsemax
  const matrix e = mat(1, 6, {3.0f, 2.5f, 1.0f, 0.2f, -1.0f, -2.0f});
  auto zeros = [](const matrix& m) {
    int n = 0;
    for (float x : m.values()) n += x == 0.0f;
    return n;
  };
  CHECK(zeros(align_softmax(e, {})) == 0);
  CHECK(zeros(align_entmax15(e, {})) > 0);
  // [1, 0.8, 0.5, 0]: sparsemax theta = 0.433 drops the last key; entmax15 keeps all four
  const matrix f = mat(1, 4, {1.0f, 0.8f, 0.5f, 0.0f});
  CHECK(zeros(align_sparsemax(f, {})) == 1);
  CHECK(zeros(align_entmax15(f, {})) == 0);
}

TEST_CASE("local-m: softmax inside |j - i| <= D, exact zeros outside") {
  const matrix e = mat(3, 5, {1, 2, 3, 4, 5, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0});
  const matrix a = align_local_m(e, {1.0, 1});
  // row 0: window {0, 1}: softmax([1, 2])
  const double s = std::exp(1.0) + std::exp(2.0);
  // 3 queries over 5 keys: centres scaled to 0, 2, 4
  CHECK(local_m_centres(3, 5) == std::vector<double>{0, 2, 4});
  check_close(a, {std::exp(1.0) / s, std::exp(2.0) / s, 0, 0, 0,  //
                  0, 1.0 / 3, 1.0 / 3, 1.0 / 3, 0,                //
                  0, 0, 0, 0.5, 0.5});
  CHECK_THROWS_WITH(align_local_m(e, {1.0, 0}), doctest::Contains("needs window D"));
}

TEST_CASE("local-p: centre n_k sigmoid(v_p . tanh(W_p q)), Gaussian sigma = D/2") {
  safetensors_file f;
  f.tensors["align.W_p"] = {{1, 1}, {1.0f}};
  f.tensors["align.v_p"] = {{1}, {100.0f}};  // sigmoid saturates: p = n_k for q > 0, 0 for q < 0
  auto params = param_store::from_tensors(f, "w");
  const matrix q = mat(2, 1, {1.0f, -1.0f});
  const auto centres = local_p_centres(q, 4, params);
  CHECK(centres[0] == doctest::Approx(4.0));
  CHECK(centres[1] == doctest::Approx(0.0).epsilon(1e-12));
  const matrix e(2, 4, 0.0f);  // equal scores: the Gaussian alone shapes the window
  const matrix a = align_local_p(e, {1.0, 2, &q, &params});
  // row 0: p = 4, window j in {2, 3}, sigma = 1: weights ~ exp(-2), exp(-1/2)
  const double w2 = std::exp(-2.0), w3 = std::exp(-0.5);
  check_close(a,
              {0, 0, w2 / (w2 + w3), w3 / (w2 + w3),  //
               1 / (1 + std::exp(-0.5) + std::exp(-2.0)),
               std::exp(-0.5) / (1 + std::exp(-0.5) + std::exp(-2.0)),
               std::exp(-2.0) / (1 + std::exp(-0.5) + std::exp(-2.0)), 0},
              1e-5);
}
