// Resampling: pictures as PIL resizes them, grids as PyTorch's bicubic interpolate (the e2e test
// tests/e2e/test_vision.py compares every filter with PIL itself; these are the cases worked by
// hand from the formulas in vision/resample.h).
#include <doctest/doctest.h>

#include <cmath>

#include "vision/resample.h"

namespace attnviz {
namespace test_resample_parts {

rgb_image picture(std::size_t w, std::size_t h, std::initializer_list<int> values) {
  rgb_image p;
  p.width = w;
  p.height = h;
  for (const int v : values)
    for (int c = 0; c < 3; ++c) p.rgb.push_back(static_cast<std::uint8_t>(v));
  return p;
}

}  // namespace test_resample_parts

TEST_CASE("bilinear halves a row of 0 and 255 to 128, as PIL's fixed point rounds") {
  // weights ½ and ½ = 2^21 each; (2^21 + 255 · 2^21) >> 22 = 128
  const rgb_image out = resize_like_pil(test_resample_parts::picture(2, 1, {0, 255}), 1, 1,
                                        resample_filter::bilinear);
  CHECK(out.width == 1);
  CHECK(out.at(0, 0, 0) == 128);
}

TEST_CASE("the same size is the same picture, and nearest takes the covering pixel") {
  const rgb_image in = test_resample_parts::picture(3, 1, {10, 20, 30});
  for (int f = 0; f <= 5; ++f)
    CHECK(resize_like_pil(in, 3, 1, static_cast<resample_filter>(f)).rgb == in.rgb);
  // nearest to 6 columns: input ⌊(x + ½) · ½⌋ = 0, 0, 1, 1, 2, 2
  const rgb_image up = resize_like_pil(in, 6, 1, resample_filter::nearest);
  CHECK(up.at(0, 1, 0) == 10);
  CHECK(up.at(0, 2, 0) == 20);
  CHECK(up.at(0, 5, 0) == 30);
}

TEST_CASE("a grid moved to its own size is unchanged, by both bicubic kinds") {
  std::vector<double> g;
  for (int i = 0; i < 4 * 5 * 2; ++i) g.push_back(std::sin(i * 0.7));
  for (const grid_bicubic kind : {grid_bicubic::plain, grid_bicubic::antialias}) {
    const std::vector<double> same = resize_grid(g, 4, 5, 2, 4, 5, kind);
    for (std::size_t i = 0; i < g.size(); ++i)
      CHECK(same[i] == doctest::Approx(g[i]).epsilon(1e-12));
  }
}

TEST_CASE("plain bicubic doubling a ramp: Keys' cubic (a = -0.75) worked by hand") {
  // output 3 reads source column (3 + ½)/2 − ½ = 1.25: t = 0.25 past input 1, inputs 0 … 3 of
  // the ramp 0, 1, 2, 3 with weights K(1.25), K(0.25), K(0.75), K(1.75):
  //   K(0.25) = (1.25 · 0.25 − 2.25) · 0.0625 + 1 = 0.87890625
  //   K(0.75) = (1.25 · 0.75 − 2.25) · 0.5625 + 1 = 0.26171875
  //   K(1.75) = ((−0.75 · 1.75 + 3.75) · 1.75 − 6) · 1.75 + 3 = −0.03515625
  // (a = −¾ does not reproduce a line: 1.296875, not 1.25); output 4 mirrors it
  const std::vector<double> ramp{0, 1, 2, 3};
  const std::vector<double> out = resize_grid(ramp, 1, 4, 1, 1, 8, grid_bicubic::plain);
  CHECK(out[3] == doctest::Approx(0.87890625 * 1 + 0.26171875 * 2 - 0.03515625 * 3));
  CHECK(out[4] == doctest::Approx(3.0 - out[3]));
  // output 0 reads −0.25 (t = 0.75 past input −1): inputs −2 … 1 clamped to values 0, 0, 0, 1,
  // the 1 weighed by K(2 − t) = K(1.25) = ((−0.75 · 1.25 + 3.75) · 1.25 − 6) · 1.25 + 3
  CHECK(out[0] == doctest::Approx(-0.10546875));
}

}  // namespace attnviz
