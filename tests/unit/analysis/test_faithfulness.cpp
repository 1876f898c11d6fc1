// Comprehensiveness, sufficiency and their areas (analysis/faithfulness.h) by hand on a model
// whose probability is a known function of the erased tokens; rankings with ties; random
// orders that are permutations and repeat with their seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "analysis/faithfulness.h"

using namespace attnviz;

namespace faithfulness_cases {

TEST_CASE("faithfulness: the curves and their areas, by hand") {
  // p = 0.9 − 0.3·[0 erased] − 0.2·[2 erased] − 0.1·[3 erased]; tokens 1 and 4 do nothing
  const erased_probability p = [](const std::vector<bool>& e) {
    return 0.9 - 0.3 * e[0] - 0.2 * e[2] - 0.1 * e[3];
  };
  const double full = 0.9;
  const erasure_curves c = erasure_curves_of({2, 0, 4, 3}, 5, 3, full, p);
  // comprehensiveness: erase {2}, {2, 0}, {2, 0, 4}
  REQUIRE(c.comprehensiveness.size() == 3);
  CHECK(c.comprehensiveness[0] == doctest::Approx(0.2));
  CHECK(c.comprehensiveness[1] == doctest::Approx(0.5));
  CHECK(c.comprehensiveness[2] == doctest::Approx(0.5));
  // sufficiency: keep {2} (erase 0, 4, 3), keep {2, 0} (erase 4, 3), keep {2, 0, 4} (erase 3);
  // token 1 is not in the ranking (not erasable): never erased
  CHECK(c.sufficiency[0] == doctest::Approx(0.4));
  CHECK(c.sufficiency[1] == doctest::Approx(0.1));
  CHECK(c.sufficiency[2] == doctest::Approx(0.1));
  CHECK(c.comprehensiveness_aopc() == doctest::Approx(1.2 / 3));
  CHECK(c.sufficiency_aopc() == doctest::Approx(0.6 / 3));
  std::size_t calls = 0;
  const erased_probability counting = [&](const std::vector<bool>& e) { return ++calls, p(e); };
  erasure_curves_of({2, 0, 4, 3}, 5, 3, full, counting);
  CHECK(calls == 6);
  CHECK_THROWS_AS(erasure_curves_of({2, 0}, 5, 3, full, p), std::logic_error);
}

TEST_CASE("faithfulness: a ranking keeps the erasable tokens, the larger first, ties in order") {
  const std::vector<double> importance{0.1, 0.4, 0.4, 0.05, 0.3, 0.7};
  const std::vector<bool> erasable{true, true, true, true, true, false};
  CHECK(ranking_of(importance, erasable) == std::vector<std::size_t>{1, 2, 4, 0, 3});
  CHECK_THROWS_AS(ranking_of({0.1}, erasable), std::logic_error);
}

TEST_CASE("faithfulness: random orders are permutations of the erasable, fixed by seed and draw") {
  std::vector<bool> erasable(40, true);
  erasable[0] = erasable[39] = false;
  const auto a = random_ranking(erasable, 7, 0), b = random_ranking(erasable, 7, 0);
  const auto c = random_ranking(erasable, 7, 1), d = random_ranking(erasable, 8, 0);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != d);
  std::vector<std::size_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::size_t> want;
  for (std::size_t j = 1; j < 39; ++j) want.push_back(j);
  CHECK(sorted == want);
}

TEST_CASE("faithfulness: the mean of curves") {
  const erasure_curves a{{0.2, 0.4}, {0.1, 0.0}}, b{{0.4, 0.6}, {0.3, 0.2}};
  const erasure_curves m = mean_curves({a, b});
  CHECK(m.comprehensiveness[0] == doctest::Approx(0.3));
  CHECK(m.comprehensiveness[1] == doctest::Approx(0.5));
  CHECK(m.sufficiency[0] == doctest::Approx(0.2));
  CHECK(m.sufficiency[1] == doctest::Approx(0.1));
  CHECK_THROWS_AS(mean_curves({a, erasure_curves{{0.1}, {0.1}}}), std::logic_error);
}

}  // namespace faithfulness_cases
