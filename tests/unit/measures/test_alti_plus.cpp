// ALTI+'s chaining by hand (measures/alti_plus.h): the encoder rolled out, the decoder's
// self-attention mixing the prefix, the cross attention splitting each row between its residual
// and the source rows.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "measures/alti_plus.h"

namespace alti_plus_cases {

TEST_CASE("one source token, two target rows: M and the source shares by hand") {
  const std::vector<float> enc{1.0f}, dec{1.0f, 0.0f, 0.5f, 0.5f}, cross{1.0f, 1.0f},
      residual{0.25f, 0.5f};
  const attnviz::alti_plus_maps maps{
      1, 1, 1, 2, enc.data(), dec.data(), cross.data(), residual.data()};
  const std::vector<double> m = attnviz::alti_plus(maps);
  // row 0: self [0 | 1 0], then 0.25 of it kept and 0.75 from the source: [0.75 | 0.25 0]
  // row 1: self [0 | 0.5 0.5], then half kept: [0.5 | 0.25 0.25]
  const std::vector<double> want{0.75, 0.25, 0.0, 0.5, 0.25, 0.25};
  REQUIRE(m.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) CHECK(m[k] == doctest::Approx(want[k]));
  const std::vector<double> s = attnviz::source_shares(m, 1, 2);
  CHECK(s[0] == doctest::Approx(0.75));
  CHECK(s[1] == doctest::Approx(0.5));
}

TEST_CASE("two encoder layers rolled out: R = C2 C1, read through the cross attention") {
  const std::vector<float> enc{1.0f, 0.0f, 0.5f, 0.5f,   // C1
                               0.5f, 0.5f, 0.0f, 1.0f};  // C2
  const std::vector<float> dec{1.0f}, cross{0.0f, 1.0f}, residual{0.0f};
  const attnviz::alti_plus_maps maps{
      2, 1, 2, 1, enc.data(), dec.data(), cross.data(), residual.data()};
  const std::vector<double> m = attnviz::alti_plus(maps);
  // R = C2 C1 = [[0.75, 0.25], [0.5, 0.5]]; the row takes R's row 1 whole
  REQUIRE(m.size() == 3);
  CHECK(m[0] == doctest::Approx(0.5));
  CHECK(m[1] == doctest::Approx(0.5));
  CHECK(m[2] == doctest::Approx(0.0));
  CHECK(attnviz::source_shares(m, 2, 1)[0] == doctest::Approx(1.0));
  attnviz::alti_plus_maps missing = maps;
  missing.cross = nullptr;
  CHECK_THROWS_AS(attnviz::alti_plus(missing), std::logic_error);
}

}  // namespace alti_plus_cases
