// BERT's tokenization: its normalizer, its pre-tokenizer and the WordPiece model.
//
//   bert_normalize      clean text (drop NUL, U+FFFD and control characters; other whitespace
//                       becomes ' '), space out CJK ideographs, strip accents (NFD, then drop
//                       non-spacing marks; by default when lowercasing), lowercase
//   bert_pre_tokenize   split at whitespace (dropped) and around each punctuation character
//                       (ASCII punctuation and Unicode P*), which stands alone
//   wordpiece_model     greedy longest match first: the longest vocabulary entry that starts
//                       the word, then "##"-prefixed entries for the rest; a word with no such
//                       split, or longer than max_chars characters, is the unknown token
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenizers/model_tokenizer.h"

namespace attnviz {

struct bert_normalizer_options {
  bool clean_text = true, handle_chinese_chars = true, lowercase = true;
  std::optional<bool> strip_accents;  // unset: as lowercase
};
std::string bert_normalize(const std::string& text, const bert_normalizer_options& o);

std::vector<std::string> bert_pre_tokenize(const std::string& text);

class wordpiece_model {
 public:
  wordpiece_model(std::unordered_map<std::string, std::int64_t> vocab, std::string unk,
                  std::string prefix = "##", std::size_t max_chars = 100);
  void encode(const std::string& word, encoding& out) const;

 private:
  std::unordered_map<std::string, std::int64_t> vocab_;
  std::string unk_, prefix_;
  std::size_t max_chars_;
};

}  // namespace attnviz
