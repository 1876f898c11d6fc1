// A figure as a list of drawing items, so one layout feeds every backend: rasterize() for PNG,
// to_svg() for SVG (text stays text). Coordinates are pixels, origin top-left.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "render/canvas.h"
#include "render/colormap.h"

namespace attnviz {

// One drawing item. rect: filled box; frame: outline `thickness` pixels inside the box;
// text: Unifont text at integer `scale` (see text_direction for what (x, y) means);
// image: a w × h RGB raster (row-major, 3 bytes per pixel) drawn 1:1 (pooled maps: one item
// instead of millions of rectangles; SVG embeds it as a PNG); line: from (x, y) to (x2, y2),
// `width` pixels wide, blended over what is below at `opacity` (anti-aliased in the raster).
struct fig_item {
  enum class kind { rect, frame, text, image, line };
  kind what = kind::rect;
  int x = 0, y = 0, w = 0, h = 0;
  int thickness = 1;
  rgb color;
  std::u32string text;
  int scale = 1;
  text_direction dir = text_direction::horizontal;
  std::shared_ptr<const std::vector<std::uint8_t>> pixels;  // image only
  int x2 = 0, y2 = 0;                                        // line only
  double width = 1.0, opacity = 1.0;                         // line only
};

class figure {
 public:
  figure(int width, int height, rgb background = {255, 255, 255})
      : width_(width), height_(height), background_(background) {}

  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }
  rgb background() const noexcept { return background_; }
  const std::vector<fig_item>& items() const noexcept { return items_; }

  void rect(int x, int y, int w, int h, rgb fill);
  void frame(int x, int y, int w, int h, int thickness, rgb color);
  void text(int x, int y, std::u32string s, rgb color, int scale = 1,
            text_direction dir = text_direction::horizontal);
  void image(int x, int y, int w, int h, std::shared_ptr<const std::vector<std::uint8_t>> rgb);
  void line(int x1, int y1, int x2, int y2, double width, rgb color, double opacity);
  // Every item of `other`, moved by (dx, dy).
  void append(const figure& other, int dx, int dy);

 private:
  int width_, height_;
  rgb background_;
  std::vector<fig_item> items_;
};

canvas rasterize(const figure& fig);

// How an SVG is written: text as <text> (searchable, in the viewer's fonts) or as the bundled
// Unifont glyphs' pixels (paths: the same everywhere, CJK included); a physical size.
enum class svg_text { glyphs, paths };
struct svg_options {
  svg_text text = svg_text::glyphs;
  int dpi = 0;  // > 0: width and height in inches (pixels / dpi); the viewBox stays in pixels
};

// SVG 1.1: rectangles as <rect>, text as <text> in the Unifont metrics (textLength pins each
// label to the width the layout gave it, so nothing overlaps whatever font the viewer uses),
// or with svg_text::paths each text as one <path> of its glyphs' pixels, its words in <title>.
// Same figure => same bytes.
std::string to_svg(const figure& fig, const svg_options& options = {});

}  // namespace attnviz
