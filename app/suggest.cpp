#include "suggest.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "names.h"

namespace attnviz::cli {

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::vector<std::string_view> views(candidates.begin(), candidates.end());
  const std::size_t i = nearest_name(word, views);
  return i == std::string_view::npos ? std::string() : candidates[i];
}

CLI::Validator one_of(std::vector<std::string> names) {
  const std::string description = fmt::format("{{{}}}", fmt::join(names, ","));
  return CLI::Validator(
      [names = std::move(names)](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        const std::string guess = closest(value, names);
        return fmt::format("'{}' is not one of {}{}", value, fmt::join(names, ", "),
                           guess.empty() ? "" : fmt::format(": did you mean '{}'?", guess));
      },
      description);
}

namespace {

// The long names ("--text") of the options of `app`, and whether `flag` is one of them (or a
// short one).
std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

bool known(const CLI::App& app, const std::string& flag) {
  for (const CLI::Option* o : app.get_options()) {
    for (const auto& n : o->get_lnames())
      if (flag == "--" + n) return true;
    for (const auto& n : o->get_snames())
      if (flag == "-" + n) return true;
  }
  return false;
}

// Global options that take a value (their value is not a command).
bool takes_value(const CLI::App& app, const std::string& flag) {
  const CLI::Option* o = app.get_option_no_throw(flag);
  return o && o->get_expected_min() > 0;
}

}  // namespace

std::string unknown_word_message(const CLI::App& app, int argc, const char* const* argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  const CLI::App* sub = nullptr;
  int at = 1;
  for (; at < argc; ++at) {
    const std::string word = argv[at];
    if (word.rfind("-", 0) == 0) {
      const std::string name = word.substr(0, word.find('='));
      if (name == word && takes_value(app, name)) ++at;  // skip its value
      continue;
    }
    if (std::find(commands.begin(), commands.end(), word) != commands.end()) {
      sub = app.get_subcommand(word);
      break;
    }
    const std::string guess = closest(word, commands);
    return guess.empty() ? fmt::format("unknown command '{}' (see 'attn-viz --help' for the list)",
                                       word)
                         : fmt::format("unknown command '{}': did you mean '{}'?", word, guess);
  }
  if (!sub) return {};
  std::vector<std::string> names = long_names(*sub);
  for (const auto& n : long_names(app)) names.push_back(n);
  for (++at; at < argc; ++at) {
    const std::string word = argv[at];
    if (word == "--") break;
    if (word.rfind("--", 0) != 0) continue;
    const std::string flag = word.substr(0, word.find('='));
    if (known(*sub, flag) || known(app, flag)) continue;
    const std::string guess = closest(flag, names);
    return guess.empty()
               ? fmt::format("{}: unknown flag {} (see 'attn-viz {} --help')", sub->get_name(),
                             flag, sub->get_name())
               : fmt::format("{}: unknown flag {}: did you mean {}?", sub->get_name(), flag, guess);
  }
  return {};
}

}  // namespace attnviz::cli
