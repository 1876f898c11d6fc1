#include "render/font.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "assets/embedded.h"

namespace attnviz {
namespace {

// A byte's value as a hex digit, or 16 for any other byte (or-ed over a glyph's digits: one
// check per line instead of a branch per digit; the font is 3.7 MB of them, read every run).
constexpr std::array<std::uint8_t, 256> hex_values = [] {
  std::array<std::uint8_t, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<std::uint8_t>(c >= '0' && c <= '9'   ? c - '0'
                                                               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                               : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                                                      : 16);
  return t;
}();

// The 16 rows of a glyph from its 32 (narrow) or 64 (wide) hex digits.
glyph decode_glyph(std::string_view bits) {
  glyph g;
  g.width = bits.size() == 32 ? 8 : 16;
  const std::size_t digits_per_row = bits.size() / 16;
  unsigned seen = 0;
  for (std::size_t r = 0; r < 16; ++r) {
    unsigned v = 0;
    for (std::size_t k = 0; k < digits_per_row; ++k) {
      const unsigned h = hex_values[static_cast<unsigned char>(bits[r * digits_per_row + k])];
      seen |= h;
      v = (v << 4) | (h & 15u);
    }
    if (g.width == 8) v <<= 8;
    g.rows[r] = static_cast<std::uint16_t>(v);
  }
  if (seen & 16u) throw std::runtime_error("unifont: bad hex digit");
  return g;
}

}  // namespace

bitmap_font::bitmap_font(std::string_view hex) : owned_(hex) {
  index(owned_);
}

bitmap_font::bitmap_font(std::string_view static_hex, borrowed) {
  index(static_hex);
}

// One line per glyph: "XXXX:" then 32 or 64 hex digits; empty lines and a '\r' before the
// newline allowed.
void bitmap_font::index(std::string_view hex) {
  hex_ = hex;
  code_points_.reserve(hex_.size() / 40);  // a narrow glyph's line is 38 bytes
  digits_.reserve(hex_.size() / 40);
  wide_.reserve(hex_.size() / 40);
  if (hex_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::runtime_error("unifont: too large");
  const std::string_view text(hex_);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    const std::size_t line_start = pos;
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const auto colon = line.find(':');
    unsigned cp = 0;
    if (colon == std::string_view::npos ||
        std::from_chars(line.data(), line.data() + colon, cp, 16).ec != std::errc())
      throw std::runtime_error("unifont: malformed line");
    const std::size_t digits = line.size() - colon - 1;
    if (digits != 32 && digits != 64) throw std::runtime_error("unifont: bad glyph size");
    code_points_.push_back(static_cast<char32_t>(cp));
    digits_.push_back(static_cast<std::uint32_t>(line_start + colon + 1));
    wide_.push_back(digits == 64);
  }
  sort_index();
  if (has(0xfffd)) {
    fallback_ = get(0xfffd);
  } else {  // a hollow box
    fallback_.width = 8;
    for (std::size_t r = 2; r < 14; ++r) fallback_.rows[r] = (r == 2 || r == 13) ? 0x7e00 : 0x4200;
  }
}

const bitmap_font& bitmap_font::unifont() {
  static const bitmap_font font(embedded_asset("unifont"), borrowed{});
  return font;
}

// Unifont's file is in code point order already; another is sorted here (a code point named
// twice keeps its last line, as a later line overrides an earlier one).
void bitmap_font::sort_index() {
  if (std::is_sorted(code_points_.begin(), code_points_.end(), std::less_equal<>())) return;
  std::vector<std::size_t> order(code_points_.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return code_points_[a] < code_points_[b]; });
  std::vector<char32_t> cps;
  std::vector<std::uint32_t> digits;
  std::vector<std::uint8_t> wide;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    if (k + 1 < order.size() && code_points_[order[k + 1]] == code_points_[i]) continue;
    cps.push_back(code_points_[i]);
    digits.push_back(digits_[i]);
    wide.push_back(wide_[i]);
  }
  code_points_ = std::move(cps);
  digits_ = std::move(digits);
  wide_ = std::move(wide);
}

std::size_t bitmap_font::find(char32_t cp) const {
  const auto it = std::lower_bound(code_points_.begin(), code_points_.end(), cp);
  if (it == code_points_.end() || *it != cp) return none;
  return static_cast<std::size_t>(it - code_points_.begin());
}

glyph bitmap_font::get(char32_t cp) const {
  const std::size_t i = find(cp);
  if (i == none) return fallback_;
  return decode_glyph(hex_.substr(digits_[i], wide_[i] ? 64 : 32));
}

int bitmap_font::width(char32_t cp) const {
  const std::size_t i = find(cp);
  return i == none ? fallback_.width : wide_[i] ? 16 : 8;
}

int bitmap_font::text_width(std::u32string_view text) const {
  int w = 0;
  for (char32_t cp : text) w += width(cp);
  return w;
}

std::u32string fit_text(std::u32string_view text, int max_width, const bitmap_font& font) {
  if (font.text_width(text) <= max_width) return std::u32string(text);
  const char32_t ellipsis = 0x2026;
  const int budget = max_width - font.width(ellipsis);
  std::u32string out;
  int w = 0;
  for (char32_t cp : text) {
    const int gw = font.width(cp);
    if (w + gw > budget) break;
    out.push_back(cp);
    w += gw;
  }
  out.push_back(ellipsis);
  return out;
}

}  // namespace attnviz
