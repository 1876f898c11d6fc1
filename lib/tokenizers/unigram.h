// The Unigram language model of SentencePiece (Kudo 2018), as its encoder segments a normalised
// text (tokenizers/sp_normalizer.h): of all the ways to cut the text into vocabulary pieces, the
// one whose piece scores (log-probabilities) sum highest, by dynamic programming over byte
// positions (Viterbi): best[e] = max over pieces p = text[s, e) of best[s] + score(p), pieces
// found by walking a byte trie from each character start s, so O(n · L) for the longest piece
// L. As SentencePiece scores them:
//   user-defined pieces   length-in-bytes × the highest normal score − 0.1 (always preferred)
//   unused pieces         never chosen
//   a character no piece  the unknown piece, scored the lowest normal score − 10; a run of
//   starts with           them is one unknown token (its surface the whole run), or, with
//                         byte_fallback, each UTF-8 byte as its <0xNN> piece
// Ties keep the earliest start (scores summed in float, compared as SentencePiece does).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizers/sentencepiece_file.h"

namespace attnviz {

class unigram_model {
 public:
  // `pieces` in id order; the unknown piece is the one of type unknown (there must be exactly
  // one); with byte_fallback, the 256 <0xNN> pieces of type byte must all be there. A repeated or
  // empty piece is an input_error naming `source`.
  unigram_model(const std::vector<sp_piece>& pieces, bool byte_fallback, const std::string& source);

  // Appends the ids and tokens of a normalised text (▁ for spaces).
  void encode(std::string_view text, std::vector<std::int64_t>& ids,
              std::vector<std::string>& tokens) const;

  std::size_t size() const noexcept { return pieces_.size(); }
  std::int64_t unk_id() const noexcept { return unk_id_; }
  const std::string& piece(std::int64_t id) const { return pieces_[static_cast<std::size_t>(id)].piece; }
  const std::vector<std::string>& user_defined() const noexcept { return user_defined_; }

 private:
  struct node_id {
    std::int32_t node;
    std::int64_t id;
  };
  std::vector<sp_piece> pieces_;
  std::vector<std::string> user_defined_;
  std::vector<std::int64_t> terminal_;  // per trie node: the piece ending there, or −1
  std::unordered_map<std::uint64_t, std::int32_t> edges_;  // node << 8 | byte → child
  std::array<std::int64_t, 256> bytes_{};
  std::int64_t unk_id_ = -1;
  bool byte_fallback_ = false;
  float min_score_ = 0.0f, max_score_ = 0.0f;

  void insert(const std::string& piece, std::int64_t id);
  std::int32_t child(std::int32_t node, unsigned char byte) const;
  // One piece of the best path: its bytes [start, end) and id.
  struct cut {
    std::size_t start, end;
    std::int64_t id;
  };
  std::vector<cut> viterbi(std::string_view text) const;
};

}  // namespace attnviz
