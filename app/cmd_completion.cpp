// attn-viz completion bash: a bash completion script made from the parser's own commands and
// options (so it never drifts from --help): commands, each command's flags (with the global
// ones), the fixed values of options such as --oov or --score, files after FILE options and
// folders after DIR options. CMake writes it at build time; `cmake --install` puts it in
// share/bash-completion/completions/attn-viz.
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

}  // namespace

action setup_completion(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "completion",
      "Print a bash completion script: source <(attn-viz completion bash)  (cmake --install "
      "puts it where bash-completion finds it)");
  auto shell = std::make_shared<std::string>();
  cmd->add_option("shell", *shell, "The shell: bash")->required();
  return [&app, shell] {
    if (*shell != "bash")
      throw usage_error(fmt::format("completion: only bash is supported, not '{}'", *shell));
    fmt::print("{}", bash_completion(describe(app)));
    return 0;
  };
}

}  // namespace attnviz::cli
