// render/colormap.h: the palettes, from their published tables.
#include <doctest/doctest.h>

#include "render/colormap.h"

using namespace attnviz;

TEST_CASE("viridis: 256 entries from the published table, ends as in matplotlib") {
  const colormap& v = colormap::viridis();
  CHECK(v.size() == 256);
  CHECK(v.entry(0) == rgb{68, 1, 84});       // (0.267004, 0.004874, 0.329415) × 255
  CHECK(v.entry(255) == rgb{253, 231, 37});  // (0.993248, 0.906157, 0.143936) × 255
  CHECK(v.at(0.0) == v.entry(0));
  CHECK(v.at(1.0) == v.entry(255));
  CHECK(v.at(0.5) == v.entry(128));
  CHECK(luminance(v.entry(255)) > luminance(v.entry(0)));  // perceptually ordered dark to light
}
