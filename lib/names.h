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

// Levenshtein distance (insertions, deletions, substitutions).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The usage_error for an unknown `name` of `what` (e.g. "score function"): lists `known` and
// suggests the nearest of `candidates` (each paired with the canonical name it stands for)
// when it is close enough.
[[noreturn]] void throw_unknown_name(
    std::string_view what, std::string_view name, const std::vector<std::string_view>& known,
    const std::vector<std::pair<std::string_view, std::string_view>>& candidates,
    std::string_view see_also = {});

}  // namespace attnviz
