// Hugging Face's pre-tokenizers that split by character class, with the Unicode meaning the
// reference (Rust) library gives them:
//   Whitespace       the runs of word characters, and the runs of what is neither a word
//                    character nor White_Space (regex \w+|[^\w\s]+, \w = Alphabetic, marks,
//                    decimal digits, connector punctuation, ZWNJ/ZWJ); the whitespace dropped
//   WhitespaceSplit  the pieces between White_Space runs
//   Punctuation      each punctuation character (ASCII punctuation or category P*) a piece of
//                    its own, between the runs of everything else (behaviour "Isolated")
//   Digits           runs of numeric characters (category N*), or with `individual` each one,
//                    apart from the runs of everything else
// (npm's @huggingface/tokenizers differs on non-ASCII text: its Whitespace regex has ASCII-only
// \w, and its Punctuation keeps runs of punctuation together.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

std::vector<std::string> whitespace_pieces(std::string_view text);
std::vector<std::string> whitespace_split(std::string_view text);
std::vector<std::string> punctuation_split(std::string_view text);
std::vector<std::string> digits_split(std::string_view text, bool individual);

}  // namespace attnviz
