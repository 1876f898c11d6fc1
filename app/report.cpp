#include "report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "error.h"
#include "io/file_io.h"
#include "render/terminal.h"

namespace attnviz::cli {
bool stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) != 0;
}

std::string flag_of(std::string_view parameter) {
  static constexpr std::pair<std::string_view, std::string_view> spelled_otherwise[] = {
      {"d_k", "--dk"}, {"d_a", "--da"}};
  for (const auto& [name, flag] : spelled_otherwise)
    if (name == parameter) return std::string(flag);
  std::string flag = "--";
  for (char c : parameter) flag += c == '_' ? '-' : c;
  return flag;
}

std::string cli_text(std::string_view marked) {
  return render_params(marked, flag_of);
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) fmt::print(stderr, "attn-viz: warning: {}\n", cli_text(w));
}

std::FILE* summary_stream(const std::vector<std::string>& written) {
  // With an output on standard output ("-"), stdout holds only its bytes: the rest go to stderr.
  return std::find(written.begin(), written.end(), stdout_name) != written.end() ? stderr : stdout;
}

void print_written(const std::vector<std::string>& paths) {
  std::FILE* out = summary_stream(paths);
  for (const auto& p : paths)
    if (p != stdout_name) fmt::print(out, "wrote {}\n", p);
}

void print_terminal_view(const attention_result& result, const view_options& view, bool colour) {
  // several heads: the one asked for with --head-view, or their mean / max
  const matrix shown = shown_matrix_of(result, view);
  heatmap_spec spec = make_heatmap(result, 0, view);
  spec.values = &shown;
  if (result.heads.size() > 1) {
    if (view.heads.what == head_view::kind::one)
      spec = make_heatmap(result, view.heads.head, view);
    else
      spec = make_matrix_heatmap(
          result, shown,
          view.heads.what == head_view::kind::max ? "max over heads" : "mean over heads", view);
  }
  const term_colors mode =
      colour ? detect_term_colors(::isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"),
                                  std::getenv("COLORTERM"))
             : term_colors::none;
  fmt::print("{}", render_terminal(spec, mode));
}

}  // namespace attnviz::cli
