#include "suggest.h"

#include <fmt/format.h>

#include <algorithm>

namespace attnviz::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string closest(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 2);
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
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
