// compare's numbers on hand-made rows whose answers are known in closed form.
#include <doctest/doctest.h>

#include <cmath>

#include "analysis/compare_metrics.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::mat;

TEST_CASE("entropy in bits: one-hot 0, uniform log2 n, [1/2 1/4 1/4] = 1.5") {
  const float one_hot[] = {0, 1, 0, 0}, uniform[] = {0.25f, 0.25f, 0.25f, 0.25f};
  const float mixed[] = {0.5f, 0.25f, 0.25f};
  CHECK(row_entropy_bits(one_hot, 4) == 0.0);
  CHECK(row_entropy_bits(uniform, 4) == doctest::Approx(2.0));
  CHECK(row_entropy_bits(mixed, 3) == doctest::Approx(1.5));
}

TEST_CASE("JS divergence: 0 for equal rows, 1 bit for disjoint supports, a worked value") {
  const float p[] = {1, 0}, q[] = {0, 1}, r[] = {0.5f, 0.5f};
  CHECK(js_divergence_bits(p, p, 2) == 0.0);
  CHECK(js_divergence_bits(p, q, 2) == doctest::Approx(1.0));
  // p = [1, 0], r = [1/2, 1/2]: m = [3/4, 1/4];
  // KL(p‖m) = log2(4/3); KL(r‖m) = ½ log2(2/3) + ½ log2(2) ; JS = ½ (sum)
  const double want = 0.5 * std::log2(4.0 / 3.0) + 0.5 * (0.5 * std::log2(2.0 / 3.0) + 0.5);
  CHECK(js_divergence_bits(p, r, 2) == doctest::Approx(want));
  CHECK(js_divergence_bits(p, r, 2) == doctest::Approx(js_divergence_bits(r, p, 2)));
}

TEST_CASE(
    "Spearman: +1 for the same order, -1 reversed, ties share ranks, constant rows undefined") {
  const float a[] = {0.1f, 0.2f, 0.3f, 0.4f}, b[] = {0.01f, 0.02f, 0.5f, 0.9f};
  const float rev[] = {0.4f, 0.3f, 0.2f, 0.1f}, flat[] = {0.25f, 0.25f, 0.25f, 0.25f};
  CHECK(*spearman_rho(a, b, 4) == doctest::Approx(1.0));
  CHECK(*spearman_rho(a, rev, 4) == doctest::Approx(-1.0));
  CHECK_FALSE(spearman_rho(a, flat, 4).has_value());
  // x = [1, 2, 3, 4]; y = [1, 2, 2, 3] -> ranks y = [1, 2.5, 2.5, 4]
  // centred: x = [-1.5, -.5, .5, 1.5], y = [-1.5, 0, 0, 1.5]; rho = 4.5 / sqrt(5 * 4.5)
  const float x[] = {1, 2, 3, 4}, y[] = {1, 2, 2, 3};
  CHECK(*spearman_rho(x, y, 4) == doctest::Approx(4.5 / std::sqrt(5.0 * 4.5)));
}

TEST_CASE("compare_weights: per-variant means and every pair") {
  // A: rows one-hot at 0 and uniform; B: one-hot at 0 and one-hot at 1; C = A
  const matrix a = mat(2, 2, {1, 0, 0.5f, 0.5f});
  const matrix b = mat(2, 2, {1, 0, 0, 1});
  const comparison c = compare_weights({&a, &b, &a});
  REQUIRE(c.variants.size() == 3);
  CHECK(c.variants[0].mean_entropy_bits == doctest::Approx(0.5));  // (0 + 1) / 2
  CHECK(c.variants[0].mean_max_weight == doctest::Approx(0.75));
  CHECK(c.variants[1].mean_entropy_bits == 0.0);
  CHECK(c.variants[1].mean_max_weight == 1.0);
  REQUIRE(c.pairs.size() == 3);
  const pair_metrics& ab = c.pairs[0];
  CHECK(ab.a == 0);
  CHECK(ab.b == 1);
  // row 0 equal (JS 0), row 1: JS([½,½], [0,1]) = JS(p=[1,0], r=[½,½]) by symmetry
  const float p[] = {1, 0}, r[] = {0.5f, 0.5f};
  CHECK(ab.mean_js_divergence_bits == doctest::Approx(js_divergence_bits(p, r, 2) / 2));
  // top keys: row 0 both 0; row 1 A ties -> first (0), B -> 1: agreement 1/2
  CHECK(ab.top_key_agreement == doctest::Approx(0.5));
  // row 0: [1,0] vs [1,0] -> +1; row 1: A constant -> undefined
  CHECK(ab.spearman_rows == 1);
  CHECK(*ab.mean_spearman == doctest::Approx(1.0));
  const pair_metrics& ac = c.pairs[1];
  CHECK(ac.mean_js_divergence_bits == 0.0);
  CHECK(ac.top_key_agreement == 1.0);
}

TEST_CASE("fully masked rows (all zero) are left out of every mean") {
  const matrix a = mat(2, 2, {0, 0, 0.5f, 0.5f});
  const matrix b = mat(2, 2, {0, 0, 1, 0});
  const comparison c = compare_weights({&a, &b});
  CHECK(c.variants[0].mean_entropy_bits == doctest::Approx(1.0));
  CHECK(c.pairs[0].top_key_agreement == doctest::Approx(1.0));  // row 1: first argmax 0 and 0
}

TEST_CASE("causal maps: row i over keys j <= i, row 0 left out") {
  // rows 1 and 2 see keys {0, 1} and {0, 1, 2}; the zeros above the diagonal do not count
  const matrix a = mat(3, 3, {1, 0, 0, 0.75f, 0.25f, 0, 0.5f, 0.25f, 0.25f});
  const matrix b = mat(3, 3, {1, 0, 0, 0.25f, 0.75f, 0, 0.25f, 0.5f, 0.25f});
  const comparison c = compare_weights({&a, &b}, true);
  // entropy over rows 1 and 2 only: H(.75, .25) and H(.5, .25, .25) = 1.5
  const double h1 = -(0.75 * std::log2(0.75) + 0.25 * std::log2(0.25));
  CHECK(c.variants[0].mean_entropy_bits == doctest::Approx((h1 + 1.5) / 2));
  CHECK(c.variants[0].mean_max_weight == doctest::Approx((0.75 + 0.5) / 2));
  // top keys differ in both rows (row 0, where they agree, is not counted)
  CHECK(c.pairs[0].top_key_agreement == 0.0);
  // row 1: ranks (1, 0) vs (0, 1): -1; row 2 over three keys: (2, 0.5, 0.5) vs (0.5, 2, 0.5): -0.5
  CHECK(c.pairs[0].spearman_rows == 2);
  CHECK(*c.pairs[0].mean_spearman == doctest::Approx((-1.0 - 0.5) / 2));
  // the same maps compared whole: row 0 agrees and the hidden zeros tie in every rank
  const comparison whole = compare_weights({&a, &b});
  CHECK(whole.pairs[0].top_key_agreement == doctest::Approx(1.0 / 3.0));
}
