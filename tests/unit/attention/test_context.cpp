#include <doctest/doctest.h>

#include "attention/context.h"
#include "attention/registry.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;

namespace {
// V: 3 keys with values of size 2.
const matrix V = mat(3, 2, {1, 0, 0, 1, 2, 2});
}  // namespace

TEST_CASE("soft context: c_i = sum_j a_ij v_j") {
  const matrix a = mat(2, 3, {0.5f, 0.5f, 0.0f, 0.25f, 0.25f, 0.5f});
  const auto out = context_soft(a, V, {});
  check_close(out.context, {0.5, 0.5, 1.25, 1.25});
  CHECK(out.chosen.empty());
}

TEST_CASE("hard context with argmax picks the row of V with the largest weight") {
  const matrix a = mat(3, 3, {0.1f, 0.7f, 0.2f, 0.4f, 0.2f, 0.4f, 0, 0, 0});
  const auto out = context_hard(a, V, {hard_mode::argmax, 0});
  CHECK(out.chosen == std::vector<int>{1, 0, -1});  // first on ties; -1 for an all-zero row
  check_close(out.context, {0, 1, 1, 0, 0, 0});
}

TEST_CASE("hard context samples rows of V in proportion to the weights, reproducibly") {
  const std::size_t n = 20000;
  matrix a(n, 3);
  for (std::size_t i = 0; i < n; ++i) {
    a(i, 0) = 0.2f;
    a(i, 1) = 0.0f;
    a(i, 2) = 0.8f;
  }
  const auto out = context_hard(a, V, {hard_mode::sample, 123});
  std::size_t counts[3] = {0, 0, 0};
  for (std::size_t i = 0; i < n; ++i) {
    REQUIRE(out.chosen[i] >= 0);
    const auto j = static_cast<std::size_t>(out.chosen[i]);
    ++counts[j];
    // the context row is exactly the chosen value row
    CHECK(out.context(i, 0) == V(j, 0));
    CHECK(out.context(i, 1) == V(j, 1));
  }
  CHECK(counts[1] == 0);  // zero weight is never drawn
  // 20000 draws with p = 0.2: standard deviation 57; 5 sigma = 285
  CHECK(counts[0] > 4000 - 285);
  CHECK(counts[0] < 4000 + 285);
  const auto again = context_hard(a, V, {hard_mode::sample, 123});
  CHECK(again.chosen == out.chosen);
  const auto other = context_hard(a, V, {hard_mode::sample, 124});
  CHECK(other.chosen != out.chosen);
}

TEST_CASE("every registered context function returns n_q x d_v") {
  const matrix a = mat(2, 3, {0.2f, 0.3f, 0.5f, 1, 0, 0});
  for (const auto& entry : context_registry()) {
    const auto out = entry.fn(a, V, {});
    CHECK(out.context.rows() == 2);
    CHECK(out.context.cols() == 2);
  }
}
