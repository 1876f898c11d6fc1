// A text item as the rectangles of its glyphs' pixels, so vector outputs (PDF, SVG with
// --svg-text paths) show exactly the bundled Unifont glyphs, whatever fonts the viewer has.
//
// Each glyph row's runs of set pixels become one rectangle (scale × scale pixels per font
// pixel), placed as rasterize() places them: horizontal text from (x, y) rightwards, upward
// text with its baseline side at x and its start at y, read bottom to top.
#pragma once

#include <vector>

#include "render/figure.h"
#include "render/font.h"

namespace attnviz {

struct pixel_box {
  int x = 0, y = 0, w = 0, h = 0;
};

// One glyph's runs of set pixels, row by row: pixels [start, end) of row `row` (0 = top).
struct pixel_run {
  int row = 0, start = 0, end = 0;
};
std::vector<pixel_run> glyph_runs(const glyph& g);

// The rectangles of a text item (empty for any other kind).
std::vector<pixel_box> glyph_boxes(const fig_item& text);

}  // namespace attnviz
