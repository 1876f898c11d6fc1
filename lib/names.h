// Looking things up by name the way users type them: case-insensitive, '-' equals '_', and an
// unknown name answered with the nearest known one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// "Scaled-Dot" -> "scaled_dot"
std::string normalise_name(std::string_view name);

// The items of a list as typed ("causal,window:2"): split at every `sep`, empty items kept
// (so "" gives one empty item and "a,,b" three items).
std::vector<std::string_view> split_list(std::string_view list, char sep = ',');

// Edit distance with adjacent transpositions (optimal string alignment): insertions, deletions,
// substitutions and swaps of two neighbours ("modle" -> "model" is 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The one suggester of every "did you mean" (commands, flags, enumerated values, registries):
// the index of the candidate nearest `word`, compared as names are typed (case-insensitive,
// '-' = '_', leading dashes ignored), or npos when none is close enough. Nearest means fewest
// edits, then the longest shared prefix, then the first; close enough means at most
// max(2, ⌊|word| / 2⌋) edits, or at most max(2, ⌊|word| / 3⌋) for a candidate sharing no prefix
// with it (so "--flow-x" suggests nothing rather than "--top-p"), and never one that shares
// not a single kept character.
std::size_t nearest_name(std::string_view word, const std::vector<std::string_view>& candidates);

// The usage_error for an unknown `name` of `what` (e.g. "score function"): lists `known` and
// suggests the nearest of `candidates` (each paired with the canonical name it stands for)
// when it is close enough.
[[noreturn]] void throw_unknown_name(
    std::string_view what, std::string_view name, const std::vector<std::string_view>& known,
    const std::vector<std::pair<std::string_view, std::string_view>>& candidates,
    std::string_view see_also = {});

}  // namespace attnviz
