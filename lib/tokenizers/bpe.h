// Byte-pair encoding (Sennrich et al. 2016, as GPT-2 and Hugging Face's BPE model apply it):
// a pre-token is split into its characters, then the adjacent pair with the lowest merge rank
// (the leftmost of equal ones) is joined, again and again, until no adjacent pair has a rank;
// each symbol left is a vocabulary entry. O(L log L) in the pre-token's length L (a heap of
// candidate pairs over a linked list of symbols), so a 10 MB text without a space is no slower
// than one with them. Every string a merge names or makes is numbered once, when the model is
// built, so merging compares and joins numbers: no string is built or hashed per pair.
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
  struct merge_rule {
    std::uint32_t rank, joined;  // joined: the symbol the pair becomes
  };
  std::unordered_map<std::string, std::int64_t> vocab_;
  std::vector<std::string> symbols_;                          // symbol number -> text
  std::vector<std::int64_t> symbol_token_;                    // symbol number -> id, or -1
  std::unordered_map<std::string, std::uint32_t> symbol_of_;  // text -> symbol number
  std::unordered_map<std::uint64_t, merge_rule> rules_;       // (left << 32 | right) -> rule
  std::vector<std::int64_t> byte_tokens_;                     // byte -> id of <0xNN>, or -1
  bpe_options options_;

  std::uint32_t intern(const std::string& text);
  // The rule joining symbols (left, right), or none.
  const merge_rule* rule(std::uint32_t left, std::uint32_t right) const;
  // The symbols of `word` after every merge: numbers, or unnumbered for a character no merge
  // names (its text then in `unnamed`, at the same place).
  void merge(const std::string& word, std::vector<std::uint32_t>& out,
             std::vector<std::string>& unnamed) const;
  // Appends the id and token of one symbol: itself, its bytes, the unknown token, or an error.
  void emit(const std::string& symbol, std::vector<std::int64_t>& ids,
            std::vector<std::string>& tokens) const;
};

}  // namespace attnviz
