// Byte-pair encoding (Sennrich et al. 2016, as GPT-2 and Hugging Face's BPE model apply it):
// a pre-token is split into its characters, then the adjacent pair with the lowest merge rank
// (the leftmost of equal ones) is joined, again and again, until no adjacent pair has a rank;
// each symbol left is a vocabulary entry. O(L log L) in the pre-token's length L (a heap of
// candidate pairs over a linked list of symbols), so a 10 MB text without a space is no slower
// than one with them.
//   byte_fallback  a symbol not in the vocabulary becomes its UTF-8 bytes as <0xNN> tokens
//                  (SentencePiece-style models: Llama 2, Mistral)
//   ignore_merges  a pre-token found whole in the vocabulary is taken as it is (Llama 3)
//   unk            otherwise an unknown symbol is this token (none: an input_error)
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attnviz {

struct bpe_options {
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string unk;  // empty: none
  std::string continuing_subword_prefix, end_of_word_suffix;
};

class bpe_model {
 public:
  bpe_model(std::unordered_map<std::string, std::int64_t> vocab,
            const std::vector<std::pair<std::string, std::string>>& merges, bpe_options options);

  // Appends the ids and tokens of one pre-token (UTF-8, already in the model's alphabet).
  void encode(const std::string& word, std::vector<std::int64_t>& ids,
              std::vector<std::string>& tokens) const;

  const std::unordered_map<std::string, std::int64_t>& vocab() const noexcept { return vocab_; }

 private:
  std::unordered_map<std::string, std::int64_t> vocab_;
  std::unordered_map<std::string, std::size_t> ranks_;  // "left\x01right" -> rank
  bpe_options options_;

  // The rank of the merge (left, right), or none.
  std::size_t rank(const std::string& left, const std::string& right) const;
  // The symbols of `word` after every merge.
  std::vector<std::string> merge(const std::string& word) const;
};

}  // namespace attnviz
