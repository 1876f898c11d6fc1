// "did you mean …?" for a mistyped command, flag or enumerated value, like git: the nearest name
// by lib/names.h's one suggester (nearest_name), when it is close enough to be what was meant.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace attnviz::cli {

// The candidate nearest `word` (nearest_name), or empty when none is close enough.
std::string closest(std::string_view word, const std::vector<std::string>& candidates);

// The check of an option that takes one of `names` (CLI::IsMember's place, with the same
// "{a,b,c}" description that --help, the manual and the completions read): a value outside them
// fails with "'modle' is not one of model, lines, …: did you mean 'model'?".
CLI::Validator one_of(std::vector<std::string> names);

// After a parse error: the message for the first unknown command or flag in argv ("unknown
// command 'rn': did you mean 'run'?", "run: unknown flag --txt: did you mean --text?"), or ""
// when argv has none (the parser's own message is then the one to show).
std::string unknown_word_message(const CLI::App& app, int argc, const char* const* argv);

}  // namespace attnviz::cli
