// GNU Unifont as a bitmap font: every glyph is 16 px tall and 8 (narrow) or 16 (wide: CJK,
// fullwidth) px wide, read from the embedded .hex file ("XXXX:<32 or 64 hex digits>"). Loading
// indexes the lines by code point (a binary search finds one); a glyph's digits are decoded when
// it is drawn, as a figure needs a few dozen of the 57,000 (decoding them all was a third of a
// small run's time).
// A code point the font lacks is drawn as U+FFFD, so no label can break the image.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

  // Indexes Unifont .hex text (kept, a copy); throws std::runtime_error on a malformed line, and
  // get() on a glyph with a character that is not a hex digit.
  explicit bitmap_font(std::string_view hex);
  bitmap_font(const bitmap_font&) = delete;  // hex_ may point into owned_
  bitmap_font& operator=(const bitmap_font&) = delete;

  glyph get(char32_t cp) const;
  bool has(char32_t cp) const { return find(cp) != none; }
  int width(char32_t cp) const;
  int text_width(std::u32string_view text) const;  // pixels at scale 1
  std::size_t size() const noexcept { return code_points_.size(); }

 private:
  static constexpr std::size_t none = static_cast<std::size_t>(-1);
  struct borrowed {};
  // The same over text that lives as long as the program (the embedded asset: not copied).
  bitmap_font(std::string_view static_hex, borrowed);
  void index(std::string_view hex);

  std::string owned_;                  // a copy of the text, unless it was borrowed
  std::string_view hex_;               // the text read
  std::vector<char32_t> code_points_;  // ascending
  std::vector<std::uint32_t> digits_;  // at the same index: where its digits start in hex_
  std::vector<std::uint8_t> wide_;     // and whether it is 16 px wide (64 digits)
  glyph fallback_;
  std::size_t find(char32_t cp) const;  // the index of cp, or none
  void sort_index();
};

// `text` cut to at most max_width pixels, ending in '…' when cut.
std::u32string fit_text(std::u32string_view text, int max_width, const bitmap_font& font);

}  // namespace attnviz
