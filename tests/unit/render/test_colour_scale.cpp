// render/colour_scale.h: the mappings by hand, the automatic and fixed ranges, the ticks, and
// the refusals of --scale, --vmin and --vmax.
#include <doctest/doctest.h>

#include <cmath>

#include "error.h"
#include "helpers.h"
#include "render/colour_scale.h"

using namespace attnviz;
using attnviz::testing::mat;

namespace {

colour_scale with(colour_mapping m, double gamma = 1.0) {
  colour_scale s;
  s.mapping = m;
  s.gamma = gamma;
  return s;
}

}  // namespace

TEST_CASE("positions by hand") {
  const colour_scale lin;
  CHECK(scale_position(lin, 0.25, 0.0, 0.5) == doctest::Approx(0.5));
  CHECK(scale_position(lin, 0.9, 0.0, 0.5) == 1.0);   // above the range: last colour
  CHECK(scale_position(lin, -1.0, 0.0, 0.5) == 0.0);  // below: first colour
  const colour_scale pw = with(colour_mapping::power, 0.5);
  CHECK(scale_position(pw, 0.25, 0.0, 1.0) == doctest::Approx(0.5));  // √0.25
  CHECK(scale_position(pw, 0.01, 0.0, 1.0) == doctest::Approx(0.1));
  const colour_scale lg = with(colour_mapping::log);
  CHECK(scale_position(lg, 0.01, 0.001, 1.0) == doctest::Approx(1.0 / 3.0));  // one decade of three
  CHECK(scale_position(lg, 0.1, 0.001, 1.0) == doctest::Approx(2.0 / 3.0));
  CHECK(scale_position(lg, 0.0, 0.001, 1.0) == 0.0);  // 0 takes the first colour, no NaN
  CHECK(scale_position(lg, 1e-9, 0.001, 1.0) == 0.0);
  CHECK(scale_position(lin, 0.3, 1.0, 1.0) == 0.0);  // an empty range
  CHECK(scale_position(lin, std::nan(""), 0.0, 1.0) == 0.0);
}

TEST_CASE("automatic and fixed ranges") {
  const matrix m = mat(1, 4, {0.0f, 0.003f, 0.2f, 0.7f});
  CHECK(scale_range(colour_scale{}, m, false) == std::pair<double, double>{0.0, 1.0});
  // log: the decade of the smallest value above 0
  CHECK(scale_range(with(colour_mapping::log), m, false).first == doctest::Approx(0.001));
  CHECK(scale_range(with(colour_mapping::log), m, false).second == 1.0);
  // ... at most four decades under the top's decade (0.5 -> 0.1 -> 1e-5)
  const matrix tiny = mat(1, 3, {1e-30f, 0.5f, 0.2f});
  CHECK(scale_range(with(colour_mapping::log), tiny, false).first == doctest::Approx(1e-5));
  colour_scale fixed;
  fixed.lo = 0.1;
  fixed.hi = 0.4;
  CHECK(scale_range(fixed, m, false) == std::pair<double, double>{0.1, 0.4});
  colour_scale top_only;
  top_only.hi = 0.3;
  CHECK(scale_range(top_only, m, false) == std::pair<double, double>{0.0, 0.3});
  colour_scale low_above;  // --vmin above the automatic top: one round step above it
  low_above.lo = 2.0;
  CHECK(scale_range(low_above, m, false) == std::pair<double, double>{2.0, 4.0});
}

TEST_CASE("ticks") {
  const colour_scale lg = with(colour_mapping::log);
  CHECK(scale_ticks(lg, 1e-4, 1.0) == std::vector<double>{1e-4, 1e-3, 1e-2, 1e-1, 1.0});
  CHECK(scale_ticks(lg, 0.01, 1.0) == std::vector<double>{0.01, 0.1, 1.0});
  const auto few = scale_ticks(lg, 0.01, 0.5);  // under two whole decades: 1, 2 and 5 × 10^k
  REQUIRE(few.size() == 6);
  CHECK(few[1] == doctest::Approx(0.02));
  CHECK(few[5] == doctest::Approx(0.5));
  CHECK(scale_ticks(colour_scale{}, 0.0, 1.0).size() == 6);
}

TEST_CASE("parsing and refusals") {
  double g = 0;
  CHECK(parse_colour_mapping("power=0.5", g, "scale") == colour_mapping::power);
  CHECK(g == 0.5);
  CHECK(parse_colour_mapping("log", g, "scale") == colour_mapping::log);
  for (const char* bad : {"power=0", "power=", "power=-1", "power=x", "logarithmic", "power=11"})
    CHECK_THROWS_AS(parse_colour_mapping(bad, g, "scale"), usage_error);
  colour_scale s;
  s.lo = 0.5;
  s.hi = 0.5;
  CHECK_THROWS_WITH_AS(check_colour_scale(s), "vmin 0.5 must be below vmax 0.5", usage_error);
  s = with(colour_mapping::log);
  s.lo = 0.0;
  CHECK_THROWS_WITH_AS(check_colour_scale(s), "scale log needs vmin above 0, got 0", usage_error);
  CHECK(colour_mapping_name(with(colour_mapping::power, 0.5)) == "power=0.5");
}
