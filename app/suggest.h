// "did you mean …?" for a mistyped command or flag, like git: the closest name by edit distance
// (Levenshtein), when it is close enough to be what was meant.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::cli {

// Insertions, deletions and substitutions turning a into b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` if within max(2, half its length) edits (ties: the first);
// empty when none is.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// After a parse error: the message for the first unknown command or flag in argv ("unknown
// command 'rn': did you mean 'run'?", "run: unknown flag --txt: did you mean --text?"), or ""
// when argv has none (the parser's own message is then the one to show).
std::string unknown_word_message(const CLI::App& app, int argc, const char* const* argv);

}  // namespace attnviz::cli
