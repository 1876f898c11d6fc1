// The Unicode facts the model tokenizers need, from utf8proc (Debian's libutf8proc-dev), so they
// follow the Unicode tables rather than hand-written ones: general categories, the White_Space
// property, NFD/NFC, the simple lowercase mapping. (UTF-8 in and out: text/utf8.h.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

bool is_unicode_whitespace(char32_t c);  // the White_Space property
bool is_unicode_control(char32_t c);     // general category C* (Cc, Cf, Cs, Co, Cn)
bool is_unicode_punctuation(char32_t c); // general category P*
bool is_nonspacing_mark(char32_t c);     // Mn
bool is_unicode_numeric(char32_t c);     // general category N* (Nd, Nl, No)
char32_t unicode_lower(char32_t c);      // the simple lowercase mapping

std::string nfd(std::string_view text);
std::string nfc(std::string_view text);

}  // namespace attnviz
