#include "tokenizers/char_split.h"

#include "text/utf8.h"
#include "tokenizers/byte_level.h"
#include "tokenizers/unicode_text.h"

namespace attnviz {
namespace {

// Splits the text's code points into pieces: where kind(c) changes a piece ends; characters
// whose kind is `dropped` are left out; with `alone`, characters of that kind are single pieces.
template <class Kind>
std::vector<std::string> split_by(std::string_view text, Kind kind, int dropped, int alone) {
  std::vector<std::string> out;
  std::string piece;
  int piece_kind = -1;
  for (const char32_t c : decode_utf8_lossy(text)) {
    const int k = kind(c);
    if (k != piece_kind || k == alone) {
      if (!piece.empty()) out.push_back(std::move(piece));
      piece.clear();
      piece_kind = k;
    }
    if (k != dropped) append_utf8(piece, c);
  }
  if (!piece.empty()) out.push_back(std::move(piece));
  return out;
}

bool is_ascii_punctuation(char32_t c) {
  return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
         (c >= 0x7B && c <= 0x7E);
}

}  // namespace

std::vector<std::string> whitespace_pieces(std::string_view text) {
  static const regex_splitter words(
      R"([\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}]+|)"
      R"([^\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}\p{White_Space}]+)");
  return words.matches(text);
}

std::vector<std::string> whitespace_split(std::string_view text) {
  return split_by(text, [](char32_t c) { return is_unicode_whitespace(c) ? 0 : 1; }, 0, -1);
}

std::vector<std::string> punctuation_split(std::string_view text) {
  return split_by(
      text,
      [](char32_t c) { return is_ascii_punctuation(c) || is_unicode_punctuation(c) ? 1 : 0; }, -1,
      1);
}

std::vector<std::string> digits_split(std::string_view text, bool individual) {
  return split_by(text, [](char32_t c) { return is_unicode_numeric(c) ? 1 : 0; }, -1,
                  individual ? 1 : -1);
}

}  // namespace attnviz
