#include "render/glyph_runs.h"

#include "render/font.h"

namespace attnviz {

std::vector<pixel_run> glyph_runs(const glyph& g) {
  std::vector<pixel_run> out;
  for (int gy = 0; gy < bitmap_font::height; ++gy)
    for (int gx = 0; gx < g.width;) {
      if (!g.pixel(gx, gy)) {
        ++gx;
        continue;
      }
      const int start = gx;
      while (gx < g.width && g.pixel(gx, gy)) ++gx;
      out.push_back({gy, start, gx});
    }
  return out;
}

std::vector<pixel_box> glyph_boxes(const fig_item& it) {
  std::vector<pixel_box> out;
  if (it.what != fig_item::kind::text) return out;
  const bitmap_font& font = bitmap_font::unifont();
  const int s = it.scale;
  int advance = 0;
  for (char32_t cp : it.text) {
    const glyph g = font.get(cp);
    for (const pixel_run& r : glyph_runs(g)) {
      const int u = advance + r.start * s, len = (r.end - r.start) * s, v = r.row * s;  // along, across
      if (it.dir == text_direction::horizontal)
        out.push_back({it.x + u, it.y + v, len, s});
      else  // canvas::draw_text: pixel (u, v) lands at (x + v, y - u)
        out.push_back({it.x + v, it.y - u - len + 1, s, len});
    }
    advance += g.width * s;
  }
  return out;
}

}  // namespace attnviz
