// GNU Unifont as a bitmap font: every glyph is 16 px tall and 8 (narrow) or 16 (wide: CJK,
// fullwidth) px wide. Parsed once from the embedded .hex file ("XXXX:<32 or 64 hex digits>").
// A code point the font lacks is drawn as U+FFFD, so no label can break the image.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace attnviz {

struct glyph {
  int width = 8;                         // 8 or 16 pixels
  std::array<std::uint16_t, 16> rows{};  // bit 15 = leftmost pixel
  bool pixel(int x, int y) const noexcept {
    return (rows[static_cast<std::size_t>(y)] >> (15 - x)) & 1u;
  }
};

class bitmap_font {
 public:
  static constexpr int height = 16;
  static const bitmap_font& unifont();

  // Parses Unifont .hex text; throws std::runtime_error on malformed lines.
  explicit bitmap_font(std::string_view hex);

  const glyph& get(char32_t cp) const;
  bool has(char32_t cp) const { return glyphs_.count(cp) != 0; }
  int text_width(std::u32string_view text) const;  // pixels at scale 1
  std::size_t size() const noexcept { return glyphs_.size(); }

 private:
  std::unordered_map<char32_t, glyph> glyphs_;
  glyph fallback_;
};

// `text` cut to at most max_width pixels, ending in '…' when cut.
std::u32string fit_text(std::u32string_view text, int max_width, const bitmap_font& font);

}  // namespace attnviz
