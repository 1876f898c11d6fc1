// An RGB raster with the few drawing operations the figures need.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "render/colormap.h"
#include "render/font.h"

namespace attnviz {

enum class text_direction {
  horizontal,  // left to right; (x, y) is the top-left corner of the text
  upward,      // rotated 90° counter-clockwise, read bottom to top; (x, y) is the bottom-left
               // corner of the rotated text (where the first glyph starts)
};

class canvas {
 public:
  canvas(int width, int height, rgb background);

  int width() const noexcept { return width_; }
  int height() const noexcept { return height_; }
  rgb get(int x, int y) const;
  void set(int x, int y, rgb c);  // clipped
  void fill_rect(int x, int y, int w, int h, rgb c);
  void stroke_rect(int x, int y, int w, int h, int thickness, rgb c);
  // Copies a w × h RGB raster (row-major, 3 bytes per pixel) with its top-left at (x, y), clipped.
  void blit(int x, int y, int w, int h, const std::uint8_t* rgb_pixels);
  // Draws text with `font` at integer `scale`; returns its advance in pixels.
  int draw_text(int x, int y, std::u32string_view text, rgb c, const bitmap_font& font,
                text_direction dir = text_direction::horizontal, int scale = 1);
  const std::vector<std::uint8_t>& pixels() const noexcept { return pixels_; }

 private:
  int width_, height_;
  std::vector<std::uint8_t> pixels_;  // row-major RGB
};

// PNG bytes of the canvas: stb_image_write's encoder with zlib's deflate at the process's
// compression level (same pixels and level, same bytes).
// dpi > 0 adds a pHYs chunk (pixels per metre = dpi / 0.0254), which editors and word
// processors read as the image's physical size.
std::string encode_png(const canvas& image, int dpi = 0);
// zlib levels 0 (store, fastest, largest) to 9 (smallest, slowest); default 6 (--png-level).
inline constexpr int default_png_level = 6;
void set_png_level(int level);  // usage_error outside 0-9
int png_level() noexcept;

}  // namespace attnviz
