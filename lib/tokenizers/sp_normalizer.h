// SentencePiece's normaliser, as its model files describe it (tokenizers/sentencepiece_file.h):
//
//   precompiled charsmap  u32 LE trie size T, a Darts-clone double-array trie of T bytes
//                         (T/4 u32 units), then NUL-terminated replacement strings. The longest
//                         prefix of the input found in the trie is replaced by the string at
//                         the unit's value; no match: one UTF-8 character as it is (a malformed
//                         byte becomes U+FFFD). A unit u: has_leaf (u >> 8) & 1, value
//                         u & 0x7fffffff, label u & 0x800000ff, offset
//                         (u >> 10) << ((u & 0x200) >> 6); from node p, byte c leads to
//                         q = p ^ offset(unit[p]) ^ c when label(unit[q]) == c.
//   remove_extra_whitespaces  leading and trailing spaces dropped, runs of spaces kept as one
//   add_dummy_prefix          one space before the text (after it with
//                             treat_whitespace_as_suffix)
//   escape_whitespaces        every space written as ▁ (U+2581)
//   user-defined pieces       matched first at each position and passed through untouched
//
// The charsmap comes from the file (nmt_nfkc and the other built-in rules are stored there
// precompiled); an empty one is the identity. Every index read from it is checked: a damaged
// charsmap is an input_error naming the file, never a read out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnviz {

struct sp_normalizer_options {
  bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;
  bool treat_whitespace_as_suffix = false;
  std::vector<std::string> user_defined;  // pieces passed through as they are
};

class sp_normalizer {
 public:
  // `charsmap`: the precompiled_charsmap bytes (empty: identity); `source` names the file.
  sp_normalizer(std::string charsmap, sp_normalizer_options options, std::string source);

  std::string normalize(std::string_view text) const;

  // The replacement of the longest charsmap prefix of `input` (non-empty) and the bytes it
  // consumes; public for the tests.
  std::pair<std::string_view, std::size_t> normalize_prefix(std::string_view input) const;

 private:
  std::vector<std::uint32_t> units_;
  std::string strings_;  // the replacement strings, NUL-terminated
  sp_normalizer_options options_;
  std::string source_;

  // The longest prefix of `input` the trie holds: (bytes, value), bytes 0 when none.
  std::pair<std::size_t, std::uint32_t> longest_match(std::string_view input) const;
  std::size_t user_defined_prefix(std::string_view input) const;
};

}  // namespace attnviz
