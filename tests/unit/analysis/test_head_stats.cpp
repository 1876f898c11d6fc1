// The per-head statistics and the induction score, by hand on small maps.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "analysis/head_stats.h"

using attnviz::head_stats;
using attnviz::induction_score;
using attnviz::measure_head;

TEST_CASE("a previous-token head: each row from 1 all on i − 1, row 0 on itself") {
  const std::size_t n = 4;
  std::vector<float> a(n * n, 0.0f);
  a[0] = 1.0f;
  for (std::size_t i = 1; i < n; ++i) a[i * n + i - 1] = 1.0f;
  const head_stats s = measure_head(a.data(), n);
  CHECK(s.previous == doctest::Approx(1.0));
  CHECK(s.first == doctest::Approx(1.0 / 3.0));  // row 1's previous token is the first
  CHECK(s.self == doctest::Approx(0.25));         // row 0 only
  CHECK(s.entropy_bits == doctest::Approx(0.0));
  CHECK(s.distance == doctest::Approx(0.75));  // 0, 1, 1, 1
  CHECK_FALSE(s.marked.has_value());
}

TEST_CASE("a uniform causal head: entropy log2(i + 1) per row, distance i / 2, first 1 / (i + 1)") {
  const std::size_t n = 4;
  std::vector<float> a(n * n, 0.0f);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) a[i * n + j] = 1.0f / float(i + 1);
  const head_stats s = measure_head(a.data(), n, {false, false, false, true});
  CHECK(s.entropy_bits == doctest::Approx((0.0 + 1.0 + std::log2(3.0) + 2.0) / 4.0));
  CHECK(s.distance == doctest::Approx((0.0 + 0.5 + 1.0 + 1.5) / 4.0));
  CHECK(s.first == doctest::Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3.0));
  CHECK(s.previous == doctest::Approx((1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3.0));
  CHECK(s.self == doctest::Approx((1.0 + 1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 4.0));
  REQUIRE(s.marked.has_value());
  CHECK(*s.marked == doctest::Approx(0.25 / 4.0));  // only row 3 sees key 3
}

TEST_CASE("fully masked rows are left out of every mean") {
  const std::size_t n = 3;
  // row 0 all masked; rows 1 and 2 on their first token
  const std::vector<float> a{0, 0, 0, 1, 0, 0, 1, 0, 0};
  const head_stats s = measure_head(a.data(), n);
  CHECK(s.first == doctest::Approx(1.0));
  CHECK(s.self == doctest::Approx(0.0));
  CHECK(s.distance == doctest::Approx(1.5));
}

TEST_CASE("induction: a query in the second half on the token after its first occurrence") {
  const std::size_t T = 3, n = 2 * T;
  std::vector<float> a(n * n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) a[i * n + (i >= T ? i - T + 1 : 0)] = 1.0f;
  CHECK(induction_score(a.data(), T) == doctest::Approx(1.0));
  // half the weight there, half on the previous token: 0.5
  for (std::size_t i = T; i < n; ++i) {
    a[i * n + (i - T + 1)] = 0.5f;
    a[i * n + i - 1] += 0.5f;
  }
  CHECK(induction_score(a.data(), T) == doctest::Approx(0.5));
  // all on the first occurrence itself (a duplicate-token head): 0
  std::vector<float> dup(n * n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) dup[i * n + (i >= T ? i - T : i)] = 1.0f;
  CHECK(induction_score(dup.data(), T) == doctest::Approx(0.0));
}
