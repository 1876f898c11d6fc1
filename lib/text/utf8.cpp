#include "text/utf8.h"

#include <fmt/format.h>

#include "error.h"

namespace attnviz {
namespace {

// Decodes one code point at s[i]; returns its length, or 0 when the bytes are not valid UTF-8.
std::size_t decode_one(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t len;
  char32_t min;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2, cp = b0 & 0x1f, min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3, cp = b0 & 0x0f, min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

}  // namespace

std::u32string decode_utf8(std::string_view text, const std::string& source) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    const std::size_t len = decode_one(text, i, cp);
    if (len == 0)
      throw input_error::at_offset(source, i,
                                   fmt::format("invalid UTF-8 (byte 0x{:02x}); expected UTF-8 text",
                                               static_cast<unsigned char>(text[i])));
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::u32string decode_utf8_lossy(std::string_view text) {
  std::u32string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    const std::size_t len = decode_one(text, i, cp);
    out.push_back(len ? cp : U'\uFFFD');
    i += len ? len : 1;
  }
  return out;
}

bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    const std::size_t len = decode_one(text, i, cp);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::size_t utf8_sequence_length(std::string_view text) noexcept {
  if (text.empty()) return 0;
  const auto lead = static_cast<unsigned char>(text[0]);
  const std::size_t n = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3
                                         : (lead >> 3) == 30 ? 4 : 0;
  return n != 0 && n <= text.size() && is_valid_utf8(text.substr(0, n)) ? n : 0;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

std::string encode_utf8(std::u32string_view cps) {
  std::string out;
  for (char32_t cp : cps) append_utf8(out, cp);
  return out;
}

bool is_space(char32_t cp) noexcept {
  return cp == U' ' || (cp >= 0x09 && cp <= 0x0d) || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f ||
         cp == 0x205f || cp == 0x3000;
}

bool is_control(char32_t cp) noexcept {
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || (cp >= 0x200b && cp <= 0x200f) || cp == 0xfeff ||
         (cp >= 0x2060 && cp <= 0x2064);
}

bool is_punctuation(char32_t cp) noexcept {
  if (cp < 0x80)
    return (cp >= 0x21 && cp <= 0x2f) || (cp >= 0x3a && cp <= 0x40) || (cp >= 0x5b && cp <= 0x60) ||
           (cp >= 0x7b && cp <= 0x7e);
  if (cp >= 0xa1 && cp <= 0xbf)  // Latin-1 symbols, minus ª ² ³ µ ¹ º ¼ ½ ¾
    return !(cp == 0xaa || cp == 0xb2 || cp == 0xb3 || cp == 0xb5 || cp == 0xb9 || cp == 0xba ||
             (cp >= 0xbc && cp <= 0xbe));
  if (cp == 0xd7 || cp == 0xf7) return true;
  if (cp >= 0x2010 && cp <= 0x205e) return true;  // General Punctuation (dashes, quotes, …)
  if (cp >= 0x20a0 && cp <= 0x20cf) return true;  // currency symbols
  if (cp >= 0x2e00 && cp <= 0x2e7f) return true;  // Supplemental Punctuation
  if (cp >= 0x3001 && cp <= 0x303f)               // CJK punctuation, minus 々 〆 〇
    return !(cp >= 0x3005 && cp <= 0x3007);
  if (cp >= 0xff01 && cp <= 0xff65)  // fullwidth and halfwidth forms: punctuation only
    return !((cp >= 0xff10 && cp <= 0xff19) || (cp >= 0xff21 && cp <= 0xff3a) ||
             (cp >= 0xff41 && cp <= 0xff5a));
  return false;
}

bool is_cjk(char32_t cp) noexcept {
  return (cp >= 0x3005 && cp <= 0x3007) || (cp >= 0x3040 && cp <= 0x30ff) ||  // kana
         (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) ||  // ideographs
         (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x3134f);
}

bool is_digit(char32_t cp) noexcept {
  return cp >= U'0' && cp <= U'9';
}

bool is_letter_like(char32_t cp) noexcept {
  return !is_space(cp) && !is_control(cp) && !is_punctuation(cp) && !is_cjk(cp);
}

int display_width(char32_t cp) noexcept {
  if (is_control(cp)) return 0;
  if (cp >= 0x0300 && cp <= 0x036f) return 0;  // combining diacritical marks
  if (is_cjk(cp) || (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0x303e) ||
      (cp >= 0x3041 && cp <= 0x33ff) || (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6))
    return 2;
  return 1;
}

int display_width(std::string_view utf8) {
  int w = 0;
  for (char32_t cp : decode_utf8_lossy(utf8)) w += display_width(cp);
  return w;
}

char32_t to_lower(char32_t cp) noexcept {
  if (cp >= U'A' && cp <= U'Z') return cp + 32;
  if (cp < 0xc0) return cp;
  if (cp <= 0xde) return cp == 0xd7 ? cp : cp + 32;
  if (cp >= 0x100 && cp <= 0x17f) {
    if (cp == 0x130) return U'i';
    if (cp == 0x178) return 0xff;
    if ((cp >= 0x139 && cp <= 0x148) || (cp >= 0x179 && cp <= 0x17e))
      return (cp % 2 == 1) ? cp + 1 : cp;
    if (cp == 0x138 || cp == 0x149 || cp == 0x17f) return cp;
    return (cp % 2 == 0) ? cp + 1 : cp;
  }
  if (cp >= 0x391 && cp <= 0x3ab && cp != 0x3a2) return cp + 32;  // Greek capitals
  if (cp == 0x386) return 0x3ac;
  if (cp >= 0x388 && cp <= 0x38a) return cp + 37;
  if (cp == 0x38c) return 0x3cc;
  if (cp == 0x38e || cp == 0x38f) return cp + 63;
  if (cp >= 0x410 && cp <= 0x42f) return cp + 32;  // Cyrillic
  if (cp >= 0x400 && cp <= 0x40f) return cp + 80;
  return cp;
}

std::string shorten_for_message(std::string_view text, std::size_t max_chars) {
  if (text.size() <= max_chars) return std::string(text);  // bytes >= characters
  const std::u32string cps = decode_utf8_lossy(text);
  if (cps.size() <= max_chars) return std::string(text);
  return fmt::format("{}… ({} bytes)", encode_utf8(std::u32string_view(cps).substr(0, max_chars)),
                     text.size());
}

}  // namespace attnviz
