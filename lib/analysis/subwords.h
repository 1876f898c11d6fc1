// Sub-word pieces back into words (--merge-subwords), for maps that read like the sentence.
//
// Which pieces make a word:
//   WordPiece (BERT)         "play" "##ing"      a piece starting with ## continues the word
//   SentencePiece (T5, XLNet) "▁play" "ing"      a piece starting with ▁ (U+2581), or ▁ alone
//                                                ("▁" "¶"), starts a word;
//   byte-level BPE (GPT-2)   "Ġplay" "ing"       likewise Ġ (U+0120); in these two styles (taken
//                                                when any piece has the mark) an unmarked piece
//                                                continues the word before it
//   always on their own: special tokens written [..] or <..> ([CLS], [SEP], <s>, </s>, <pad>),
//   and a continuing piece with no word before it.
// The word is the pieces joined without their marks: "play" + "##ing" -> "playing".
//
// Merging a map (n_q × n_k, pieces) into words (W_q × W_k), for word rows I and columns J:
//   weights  A'[I][J] = (1/|I|) Σ_{i∈I} Σ_{j∈J} a_ij   (sum over the key pieces: the attention a
//                                                    word receives; mean over the query pieces:
//                                                    each word row still sums to 1)
//   scores   E'[I][J] = mean of e_ij over the block  (scores do not add up)
//   context  c'_I     = (1/|I|) Σ_{i∈I} c_i          (the mean of the pieces' contexts)
//   output   mean over the query pieces (multi-head)
//   masked   a word cell is masked when all its piece cells are; a word row when all its rows are
//   hard     a word's chosen key is the word holding its first piece's chosen key
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attention/pipeline.h"

namespace attnviz {

struct word_spans {
  std::vector<std::string> words;
  std::vector<std::size_t> starts;  // word w is pieces [starts[w], starts[w + 1]); one extra: n
  std::size_t size() const noexcept { return words.size(); }
};

word_spans group_subwords(const std::vector<std::string>& pieces);
// The pieces of each word, as given: [["play", "##ing"], ["[SEP]"]].
std::vector<std::vector<std::string>> pieces_of_words(const std::vector<std::string>& pieces);

// The piece without its sub-word mark ("##ing" -> "ing", "▁the" -> "the"; others unchanged):
// what the embedding file is asked for when merging.
std::string_view strip_subword_mark(std::string_view piece);

// The result over words instead of pieces (tokens, every head's matrices, the output).
attention_result merge_subwords(const attention_result& pieces);

}  // namespace attnviz
