#include "render/font.h"

#include <charconv>
#include <stdexcept>

#include "assets/embedded.h"

namespace attnviz {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

bitmap_font::bitmap_font(std::string_view hex) {
  std::size_t pos = 0;
  while (pos < hex.size()) {
    std::size_t end = hex.find('\n', pos);
    if (end == std::string_view::npos) end = hex.size();
    std::string_view line = hex.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto colon = line.find(':');
    unsigned cp = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(line.data(), line.data() + colon, cp, 16).ec != std::errc())
      throw std::runtime_error("unifont: malformed line");
    const std::string_view bits = line.substr(colon + 1);
    if (bits.size() != 32 && bits.size() != 64) throw std::runtime_error("unifont: bad glyph size");
    glyph g;
    g.width = bits.size() == 32 ? 8 : 16;
    const std::size_t digits_per_row = bits.size() / 16;
    for (std::size_t r = 0; r < 16; ++r) {
      unsigned v = 0;
      for (std::size_t k = 0; k < digits_per_row; ++k) {
        const int h = hex_value(bits[r * digits_per_row + k]);
        if (h < 0) throw std::runtime_error("unifont: bad hex digit");
        v = (v << 4) | static_cast<unsigned>(h);
      }
      if (g.width == 8) v <<= 8;
      g.rows[r] = static_cast<std::uint16_t>(v);
    }
    glyphs_[static_cast<char32_t>(cp)] = g;
  }
  auto it = glyphs_.find(0xfffd);
  if (it != glyphs_.end()) {
    fallback_ = it->second;
  } else {  // a hollow box
    fallback_.width = 8;
    for (std::size_t r = 2; r < 14; ++r) fallback_.rows[r] = (r == 2 || r == 13) ? 0x7e00 : 0x4200;
  }
}

const bitmap_font& bitmap_font::unifont() {
  static const bitmap_font font(embedded_asset("unifont"));
  return font;
}

const glyph& bitmap_font::get(char32_t cp) const {
  auto it = glyphs_.find(cp);
  return it == glyphs_.end() ? fallback_ : it->second;
}

int bitmap_font::text_width(std::u32string_view text) const {
  int w = 0;
  for (char32_t cp : text) w += get(cp).width;
  return w;
}

std::u32string fit_text(std::u32string_view text, int max_width, const bitmap_font& font) {
  if (font.text_width(text) <= max_width) return std::u32string(text);
  const char32_t ellipsis = 0x2026;
  const int budget = max_width - font.get(ellipsis).width;
  std::u32string out;
  int w = 0;
  for (char32_t cp : text) {
    const int gw = font.get(cp).width;
    if (w + gw > budget) break;
    out.push_back(cp);
    w += gw;
  }
  out.push_back(ellipsis);
  return out;
}

}  // namespace attnviz
