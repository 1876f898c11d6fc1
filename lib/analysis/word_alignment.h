// Word alignments from a translation model's cross attention, and their score against a gold
// standard (Och & Ney 2003):
//
//   words      a target word's row is the mean of its pieces' rows, a source word's column the
//              sum of its pieces' columns (pieces grouped by analysis/subwords.h: ▁, Ġ, ##);
//              special tokens (</s>, <pad>, [CLS], …) are left out on both sides
//   argmax     each target word j aligns to the source word i of its row's largest weight
//   argmax-null  the same, unless the row's weight off the words (1 − its sum: the special
//              tokens', </s>) is larger than that word's: j then stays unaligned (a NULL link,
//              the way a head taught to align says a word has no counterpart)
//   intersect  the pairs that are both: i the argmax of row j, and j the argmax of column i
//   Pharaoh    "i-j" pairs, i the source word, j the target word, counted from 0, space
//              separated (fast_align, awesome-align); in a gold standard "i-j" (or "i-j-S") is
//              sure and "i?j" or "i-j-P" possible; the sure pairs count as possible too
//   scores     with A the predicted pairs, S the sure and P the possible ones (P ⊇ S):
//              precision |A ∩ P| / |A|, recall |A ∩ S| / |S|,
//              AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|); over many sentences the counts are
//              summed first
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor.h"

namespace attnviz {

using word_pair = std::pair<std::size_t, std::size_t>;  // (source word, target word)

struct word_map {
  matrix values;                        // target words × source words
  std::vector<std::string> source_words, target_words;
};

// `map`: nt × ns cross-attention weights (row = target piece), one head's or an average.
word_map cross_words(const float* map, const std::vector<std::string>& target_pieces,
                     const std::vector<std::string>& source_pieces);

enum class align_method { argmax, argmax_null, intersect };
std::vector<word_pair> align_words(const matrix& target_by_source, align_method method);

// Per row (by_rows: each target word's best source word) or per column (each source word's best
// target word), the pair of the line's largest value (the first of equals); with `null`, left out
// where the line's weight off the words, 1 − its sum, is larger. Sorted.
std::vector<word_pair> best_links(const matrix& target_by_source, bool by_rows, bool null);

struct gold_alignment {
  std::set<word_pair> sure, possible;  // possible holds the sure pairs too
};
// One Pharaoh line; usage/input errors name `source` (and the line) and the bad item.
gold_alignment parse_pharaoh(std::string_view line, const std::string& source, std::size_t line_no);
std::string format_pharaoh(const std::vector<word_pair>& pairs);
// A gold file: one Pharaoh line (a final line break allowed); input_error naming the file.
gold_alignment read_gold_file(const std::string& path);
// input_error naming the file when a pair names a word the texts do not have.
void check_gold_words(const gold_alignment& g, const word_map& w, const std::string& path);

struct alignment_counts {
  std::size_t predicted = 0, sure = 0, hit_sure = 0, hit_possible = 0;
  void add(const std::vector<word_pair>& predicted_pairs, const gold_alignment& gold);
  double precision() const;
  double recall() const;
  double aer() const;
};

}  // namespace attnviz
