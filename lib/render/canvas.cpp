#include "render/canvas.h"

#include <algorithm>
#include <stdexcept>

namespace attnviz {

canvas::canvas(int width, int height, rgb background) : width_(width), height_(height) {
  if (width <= 0 || height <= 0) throw std::logic_error("canvas: empty size");
  pixels_.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < pixels_.size(); i += 3) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
  }
}

rgb canvas::get(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) throw std::out_of_range("canvas::get");
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) +
                         static_cast<std::size_t>(x)) *
                        3;
  return {pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void canvas::set(int x, int y, rgb c) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) +
                         static_cast<std::size_t>(x)) *
                        3;
  pixels_[i] = c.r;
  pixels_[i + 1] = c.g;
  pixels_[i + 2] = c.b;
}

void canvas::fill_rect(int x, int y, int w, int h, rgb c) {
  for (int yy = y; yy < y + h; ++yy)
    for (int xx = x; xx < x + w; ++xx) set(xx, yy, c);
}

void canvas::stroke_rect(int x, int y, int w, int h, int t, rgb c) {
  fill_rect(x, y, w, t, c);
  fill_rect(x, y + h - t, w, t, c);
  fill_rect(x, y, t, h, c);
  fill_rect(x + w - t, y, t, h, c);
}

void canvas::blit(int x, int y, int w, int h, const std::uint8_t* rgb_pixels) {
  const int x0 = std::max(x, 0), x1 = std::min(x + w, width_);
  if (x0 >= x1) return;
  for (int yy = std::max(y, 0); yy < std::min(y + h, height_); ++yy) {
    const std::uint8_t* src = rgb_pixels + (static_cast<std::size_t>(yy - y) * w + (x0 - x)) * 3;
    std::uint8_t* dst =
        pixels_.data() + (static_cast<std::size_t>(yy) * static_cast<std::size_t>(width_) +
                          static_cast<std::size_t>(x0)) *
                             3;
    std::copy(src, src + static_cast<std::size_t>(x1 - x0) * 3, dst);
  }
}

int canvas::draw_text(int x, int y, std::u32string_view text, rgb c, const bitmap_font& font,
                      text_direction dir, int scale) {
  int advance = 0;
  for (char32_t cp : text) {
    const glyph g = font.get(cp);
    for (int gy = 0; gy < bitmap_font::height; ++gy)
      for (int gx = 0; gx < g.width; ++gx) {
        if (!g.pixel(gx, gy)) continue;
        const int u = advance + gx * scale;  // along the text
        const int v = gy * scale;            // across the text, top to bottom
        for (int sy = 0; sy < scale; ++sy)
          for (int sx = 0; sx < scale; ++sx) {
            if (dir == text_direction::horizontal)
              set(x + u + sx, y + v + sy, c);
            else
              set(x + v + sy, y - (u + sx), c);
          }
      }
    advance += g.width * scale;
  }
  return advance;
}

}  // namespace attnviz
