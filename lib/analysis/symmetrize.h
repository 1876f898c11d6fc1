// Joining two directions' word alignments into one (Och & Ney 2003; Koehn et al. 2003, the
// heuristic of Moses' grow-diag-final-and). Both alignments are sets of (source word, target
// word) pairs, the reverse direction's already turned round.
//
//   intersect             F ∩ R: high precision
//   union                 F ∪ R: high recall
//   grow-diag-final-and   start from F ∩ R; grow: pass over every (s, t) in order, again while
//                         a pass added a pair: if (s, t) is aligned (as the alignment stands,
//                         pairs added earlier in the pass included), each of its 8 neighbours
//                         in order that is in F ∪ R and whose source word or target word is
//                         not aligned yet is added; final-and: then each pair of F, then of R,
//                         in order, whose source word and target word are both unaligned
//
// "In order": by source word, then target word; neighbours (−1, 0), (0, −1), (1, 0), (0, 1),
// (−1, −1), (−1, 1), (1, −1), (1, 1) as (source, target) steps.
#pragma once

#include <string_view>
#include <vector>

#include "analysis/word_alignment.h"

namespace attnviz {

enum class symmetrize_method { intersect, union_, grow_diag_final_and };

// The method called `name` ("intersect", "union", "grow-diag-final-and"); a usage_error
// naming `flag` and the methods otherwise.
symmetrize_method symmetrize_named(std::string_view name, std::string_view flag);

// The pairs, sorted (source word, then target word), without repeats.
std::vector<word_pair> symmetrize(const std::vector<word_pair>& forward,
                                  const std::vector<word_pair>& reverse, symmetrize_method how);

}  // namespace attnviz
