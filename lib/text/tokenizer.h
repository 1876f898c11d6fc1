// Sentences to tokens.
//
// tokenize() rules, in order (documented in README):
//   - whitespace and control characters separate tokens and are dropped;
//   - CJK ideographs and kana: when the text spaces them (whitespace with CJK on both sides,
//     我 爱 机器 学习), each run between spaces and punctuation is a word, as written; otherwise
//     every character is a token of its own (机器学习 -> 机 器 学 习);
//   - punctuation is a token of its own; a run of the same ASCII mark stays one token ("...");
//   - '.' or ',' between two digits stays inside the number (3.14, 1,000);
//   - an apostrophe (' or ’) between letters starts a clitic token, as GloVe's tokenizer does:
//     it's -> it 's, don't -> do n't (’ is written as ');
//   - everything else (letters, digits, marks of any script) forms words;
//   - words are lower-cased unless keep_case (GloVe's vocabulary is uncased).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

struct tokenizer_options {
  bool keep_case = false;
};

// `source` names the input in errors (e.g. param("text")); invalid UTF-8 is an input_error.
std::vector<std::string> tokenize(std::string_view text, const tokenizer_options& options,
                                  const std::string& source);

// A document as sentences: each line is tokenized, and a sentence also ends after a token
// . ! ? … 。 ！ ？ (kept as the sentence's last token). Empty sentences are dropped.
std::vector<std::vector<std::string>> split_sentences(std::string_view text,
                                                      const tokenizer_options& options,
                                                      const std::string& source);

// True when tokenize() splits a run of CJK characters into single characters because the text
// does not space its CJK words (机器学习 -> 机 器 学 习): worth telling the user, whose words
// those were not. False for spaced text (我 爱 机器 学习), whose words are kept.
bool splits_cjk_runs(std::string_view text);

// --tokens: a pre-tokenised, whitespace-separated list taken as is (validated as UTF-8).
std::vector<std::string> split_pretokenized(std::string_view text, const std::string& source);

// Lower-cases a token with the tokenizer's rules (used for embedding look-up fallbacks).
std::string lower_case(std::string_view token);

}  // namespace attnviz
