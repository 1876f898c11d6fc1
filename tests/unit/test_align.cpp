// Stage 2 on hand-worked rows, extreme scores, and the contract every align function keeps.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "attention/align.h"
#include "attention/registry.h"
#include "helpers.h"

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
        const matrix a = entry.fn(e, {tau});
        REQUIRE(a.rows() == e.rows());
        REQUIRE(a.cols() == e.cols());
        for (std::size_t i = 0; i < a.rows(); ++i) {
          bool masked = true;
          for (std::size_t j = 0; j < e.cols(); ++j) masked = masked && e(i, j) == -inf;
          INFO(entry.info.name << " tau " << tau << " row " << i);
          CHECK(row_sum(a, i) == doctest::Approx(masked ? 0.0 : 1.0).epsilon(1e-6));
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
