#include "tokenizers/unicode_text.h"

#include <utf8proc.h>

#include <cstdlib>

namespace attnviz {

bool is_unicode_whitespace(char32_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool is_unicode_control(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF ||
         cat == UTF8PROC_CATEGORY_CS || cat == UTF8PROC_CATEGORY_CO ||
         cat == UTF8PROC_CATEGORY_CN;
}

bool is_unicode_punctuation(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat >= UTF8PROC_CATEGORY_PC && cat <= UTF8PROC_CATEGORY_PO;
}

bool is_unicode_numeric(char32_t c) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NL || cat == UTF8PROC_CATEGORY_NO;
}

bool is_nonspacing_mark(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_MN;
}

char32_t unicode_lower(char32_t c) {
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
}

namespace {

std::string normalized(std::string_view text, utf8proc_uint8_t* (*form)(const utf8proc_uint8_t*)) {
  const std::string copy(text);  // NUL-terminated
  utf8proc_uint8_t* out = form(reinterpret_cast<const utf8proc_uint8_t*>(copy.c_str()));
  if (!out) return copy;  // invalid UTF-8: left as it is
  std::string s(reinterpret_cast<const char*>(out));
  std::free(out);
  return s;
}

}  // namespace

std::string nfd(std::string_view text) { return normalized(text, utf8proc_NFD); }
std::string nfc(std::string_view text) { return normalized(text, utf8proc_NFC); }

}  // namespace attnviz
