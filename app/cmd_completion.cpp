// attn-viz completion bash|zsh|fish: a completion script made from the parser's own commands
// and options (so it never drifts from --help): commands, each command's flags (with the global
// ones), the fixed values of options such as --oov or --score, files after FILE options and
// folders after DIR options; zsh and fish also show each command's and flag's description.
// CMake writes all three at build time; `cmake --install` puts them where each shell looks:
// share/bash-completion/completions/attn-viz, share/zsh/vendor-completions/_attn-viz,
// share/fish/vendor_completions.d/attn-viz.fish.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_model.h"
#include "commands.h"
#include "error.h"

namespace attnviz::cli {
namespace {

std::string bash_completion(const std::vector<command_model>& commands) {
  std::vector<std::string> names, globals;
  for (std::size_t i = 1; i < commands.size(); ++i) names.push_back(commands[i].name);
  for (const auto& o : commands.front().options)
    globals.insert(globals.end(), o.names.begin(), o.names.end());

  std::string values;  // case "$cmd $prev" → what may follow
  std::string flags;   // case "$cmd" → its flags
  // the commands' options first: the global ones (matched after any command) come last
  std::vector<const command_model*> order;
  for (std::size_t i = 1; i < commands.size(); ++i) order.push_back(&commands[i]);
  order.push_back(&commands.front());
  for (const command_model* cp : order) {
    const command_model& c = *cp;
    std::vector<std::string> all = globals;
    for (const auto& o : c.options) {
      if (!c.name.empty()) all.insert(all.end(), o.names.begin(), o.names.end());
      if (o.value.empty()) continue;
      std::string pattern;
      for (const auto& n : o.names)
        pattern += fmt::format("{}{}\"{}{}\"", pattern.empty() ? "" : "|",
                               c.name.empty() ? "*" : "", c.name.empty() ? " " : c.name + " ", n);
      if (!o.choices.empty()) {
        values += fmt::format("    {}) words=\"{}\" ;;\n", pattern, fmt::join(o.choices, " "));
      } else if (o.value == "FILE") {
        values +=
            fmt::format("    {}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", pattern);
      } else if (o.value == "DIR") {
        values +=
            fmt::format("    {}) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", pattern);
      } else {
        values += fmt::format("    {}) return ;;\n", pattern);  // free text: nothing to offer
      }
    }
    if (c.name.empty()) {
      flags += fmt::format("    \"\") words=\"{} {}\" ;;\n", fmt::join(names, " "),
                           fmt::join(globals, " "));
    } else {
      flags += fmt::format("    {}) words=\"{}\" ;;\n", c.name, fmt::join(all, " "));
    }
  }
  return fmt::format(R"(# bash completion for attn-viz (made by `attn-viz completion bash`)
_attn_viz() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="" cmd="" words="" i
  (( COMP_CWORD > 0 )) && prev="${{COMP_WORDS[COMP_CWORD-1]}}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i]}}" in
      {}) cmd="${{COMP_WORDS[i]}}"; break ;;
    esac
  done
  case "$cmd $prev" in
{}  esac
  if [[ -z "$words" ]]; then
    case "$cmd" in
{}    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -F _attn_viz attn-viz
)",
                     fmt::join(names, "|"), values, flags);
}

// The first sentence of a description, at most `most` characters, on one line.
std::string short_text(const std::string& text, std::size_t most = 80) {
  std::string s = text.substr(0, text.find('\n'));
  for (const char* end : {". ", "; "}) {
    const std::size_t at = s.find(end);
    if (at != std::string::npos && at > 10) s = s.substr(0, at);
  }
  if (s.size() > most) {
    std::size_t cut = s.rfind(' ', most - 1);
    if (cut == std::string::npos || cut < 10) cut = most - 1;
    s = s.substr(0, cut) + "…";
  }
  return s;
}

// Inside zsh single quotes: ' becomes '\'' ; in an _arguments description [...] the characters
// ] : and \ are escaped too.
std::string zsh_quoted(const std::string& s, bool in_brackets) {
  std::string out;
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
      continue;
    }
    if (in_brackets && (c == ']' || c == ':' || c == '\\' || c == '[')) out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_spec(const option_model& o) {
  std::string action;
  if (!o.choices.empty()) {
    action = fmt::format(":{}:({})", o.value.empty() ? "value" : o.value, fmt::join(o.choices, " "));
  } else if (o.value == "FILE") {
    action = ":file:_files";
  } else if (o.value == "DIR") {
    action = ":folder:_files -/";
  } else if (!o.value.empty()) {
    action = fmt::format(":{}: ", o.value);
  }
  std::string out;
  for (const auto& n : o.names)
    out += fmt::format(" \\\n      '{}[{}]{}'", n, zsh_quoted(short_text(o.description), true),
                       zsh_quoted(action, false));
  return out;
}

std::string zsh_completion(const std::vector<command_model>& commands) {
  std::string globals, described, cases;
  for (const auto& o : commands.front().options) globals += zsh_spec(o);
  for (std::size_t i = 1; i < commands.size(); ++i) {
    const command_model& c = commands[i];
    described += fmt::format("    '{}:{}'\n", c.name,
                             zsh_quoted(short_text(c.description), false));
    std::string specs;
    for (const auto& o : c.options) specs += zsh_spec(o);
    cases += fmt::format("        {}) _arguments -s{}{} ;;\n", c.name, specs, globals);
  }
  return fmt::format(R"(#compdef attn-viz
# zsh completion for attn-viz (made by `attn-viz completion zsh`). Installed as _attn-viz in a
# folder of $fpath, or loaded with: source <(attn-viz completion zsh)  (after compinit).
_attn_viz() {{
  local curcontext="$curcontext" state line
  local -a commands
  commands=(
{}  )
  _arguments -C{} \
      '1:command:->command' \
      '*::argument:->argument'
  case $state in
    command) _describe -t commands 'attn-viz command' commands ;;
    argument)
      case $line[1] in
{}      esac ;;
  esac
}}
if [[ "${{funcstack[1]}}" == _attn-viz ]]; then
  _attn_viz "$@"
else
  compdef _attn_viz attn-viz
fi
)",
                     described, globals, cases);
}

// Inside fish single quotes: \ and ' are escaped.
std::string fish_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

std::string fish_completion(const std::vector<command_model>& commands) {
  std::vector<std::string> names;
  for (std::size_t i = 1; i < commands.size(); ++i) names.push_back(commands[i].name);
  std::string out =
      "# fish completion for attn-viz (made by `attn-viz completion fish`). Installed in\n"
      "# vendor_completions.d, or loaded with: attn-viz completion fish | source\n"
      "complete -c attn-viz -e\n"
      "complete -c attn-viz -f\n";
  for (std::size_t i = 1; i < commands.size(); ++i)
    out += fmt::format("complete -c attn-viz -n {} -a {} -d {}\n",
                       fish_quoted(fmt::format("not __fish_seen_subcommand_from {}",
                                               fmt::join(names, " "))),
                       commands[i].name, fish_quoted(short_text(commands[i].description)));
  for (const auto& c : commands) {
    const std::string when =
        c.name.empty() ? "" : fmt::format(" -n {}", fish_quoted("__fish_seen_subcommand_from " + c.name));
    for (const auto& o : c.options) {
      std::string line = "complete -c attn-viz" + when;
      for (const auto& n : o.names)
        line += n.rfind("--", 0) == 0 ? fmt::format(" -l {}", n.substr(2))
                                      : fmt::format(" -s {}", n.substr(1));
      if (!o.choices.empty())
        line += fmt::format(" -x -a {}", fish_quoted(fmt::format("{}", fmt::join(o.choices, " "))));
      else if (o.value == "FILE")
        line += " -r -F";
      else if (o.value == "DIR")
        line += " -x -a '(__fish_complete_directories)'";
      else if (!o.value.empty())
        line += " -x";
      out += line + fmt::format(" -d {}\n", fish_quoted(short_text(o.description)));
    }
  }
  return out;
}

}  // namespace

action setup_completion(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "completion",
      "Print a completion script for bash, zsh or fish: source <(attn-viz completion bash), "
      "source <(attn-viz completion zsh), attn-viz completion fish | source  (cmake --install "
      "puts each where its shell finds it)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "The shell: bash, zsh or fish")->required();
  return [&app, shell] {
    if (*shell == "bash")
      fmt::print("{}", bash_completion(describe(app)));
    else if (*shell == "zsh")
      fmt::print("{}", zsh_completion(describe(app)));
    else if (*shell == "fish")
      fmt::print("{}", fish_completion(describe(app)));
    else
      throw usage_error(
          fmt::format("completion: bash, zsh or fish, not '{}'", *shell));
    return 0;
  };
}

}  // namespace attnviz::cli
