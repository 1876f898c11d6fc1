// GPT-2's byte-level alphabet and pre-tokenizer.
//
// Alphabet: every byte b becomes one printable code point, so any text is a string over 256
// symbols: the bytes '!'..'~', '¡'..'¬' and '®'..'ÿ' stand for themselves; the other 68 bytes,
// in order, for U+0100, U+0101, … (a space, 0x20, is 'Ġ' U+0120; a newline 'Ċ' U+010A).
//
// Pre-tokenizer: the pieces the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// matches, in order (Unicode letters, numbers and spaces through PCRE2), and any text between
// two matches as a piece of its own (Hugging Face's "Isolated" split).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// The UTF-8 text's bytes in the byte-level alphabet (itself UTF-8).
std::string to_byte_level(std::string_view bytes);
// The byte a code point of the alphabet stands for ('Ġ' -> 0x20); none for a code point that is
// not in it.
std::optional<unsigned char> byte_level_byte(char32_t cp);

// A compiled PCRE2 pattern (UTF, Unicode properties) that splits text into the pieces it
// matches and the gaps between them. usage_error naming the pattern when it does not compile.
class regex_splitter {
 public:
  explicit regex_splitter(const std::string& pattern);
  ~regex_splitter();
  regex_splitter(const regex_splitter&) = delete;
  regex_splitter& operator=(const regex_splitter&) = delete;
  regex_splitter(regex_splitter&& o) noexcept;

  // Every match and every non-empty gap between matches, in order (the "Isolated" behaviour).
  std::vector<std::string> split(std::string_view text) const;
  // Only the matches (the gaps dropped: the "Removed" behaviour of an inverted split).
  std::vector<std::string> matches(std::string_view text) const;
  // Every match replaced by `content` (the Replace normalizer with a Regex pattern).
  std::string replace_all(std::string_view text, std::string_view content) const;

 private:
  void* code_ = nullptr;  // pcre2_code_8*
};

// GPT-2's pre-tokenizer regex (the one above).
const std::string& gpt2_pattern();

}  // namespace attnviz
