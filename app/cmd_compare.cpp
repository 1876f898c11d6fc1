// attn-viz compare: several variants of one input, side by side, with the numbers.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/compare_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

action setup_compare(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<compare_config>();
  auto scale = std::make_shared<std::string>("shared");
  auto* cmd = app.add_subcommand(
      "compare", "Run several score / align / context functions on one input, side by side");
  cmd->footer(R"(
Every combination of the --scores, --aligns and --contexts lists is one variant (one panel).
Printed and stored in --json, over the query rows (rows with every key masked left out):
  entropy      H(a_i) = -sum_j a_ij log2 a_ij, in bits (0: one key; log2 n_k: uniform)
  max weight   max_j a_ij
  JS           Jensen-Shannon divergence of two variants' rows, log base 2, in [0, 1]:
               JS(p, q) = KL(p||m)/2 + KL(q||m)/2 with m = (p + q)/2
  top-1 agree  share of queries whose highest-weight key is the same in both
  Spearman     rank correlation of the two rows (tied weights share their mean rank; rows
               where either is constant are left out)
With --heads H, each panel shows the heads' mean (--head-view max or a head number to draw
something else); the metrics use the mean, or that head.

Examples:
  attn-viz compare --text "the cat sat on the floor because it was tired" \
      --scores dot,scaled_dot,general,additive,concat,cosine --png grid.png --json cmp.json
  attn-viz compare --text "..." --scores all --show scores --scale panel --svg grid.svg
  attn-viz compare --text "..." --score additive --aligns softmax,hardmax --png align.png)");
  add_input_flags(*cmd, *flags);
  add_subword_flag(*cmd, *flags);
  add_variant_flags(*cmd, *flags);
  add_view_flags(*cmd, *flags);
  cmd->add_option("--scores", config->scores,
                  "Score functions to compare, comma-separated, or 'all' [default: --score]")
      ->delimiter(',')
      ->group("Compare");
  cmd->add_option("--aligns", config->aligns,
                  "Alignment functions to compare, comma-separated [default: --align]")
      ->delimiter(',')
      ->group("Compare");
  cmd->add_option("--contexts", config->contexts,
                  "Context functions to compare, comma-separated [default: --context]")
      ->delimiter(',')
      ->group("Compare");
  cmd->add_option("--cols", config->cols, "Panels per row [default: about square]")
      ->check(CLI::Range(1, 64))
      ->group("Compare");
  cmd->add_option("--scale", *scale,
                  "Colour scale: shared (one colour bar, same range in every panel) or panel")
      ->check(CLI::IsMember(names_of(scale_mode_names)))
      ->capture_default_str()
      ->group("Compare");
  add_output_flags(*cmd, config->out,
                   {{output_kind::json, "Write every variant's numbers and the metrics as JSON"},
                    {output_kind::png},
                    {output_kind::svg},
                    {output_kind::html,
                     "Write one self-contained page (no network): every variant's map behind a "
                     "selector, hover for the query, key, score and weight and the query's "
                     "explanation"}});

  return [flags, config, scale] {
    compare_config c = *config;
    resolve_job(*flags, c);
    c.scale = value_of(scale_mode_names, *scale, "--scale");
    const compare_report report = run_compare(c);
    print_warnings(report.warnings);
    std::FILE* out = summary_stream(report.written);
    fmt::print(out, "{}", format_comparison(report));
    if (!report.written.empty()) fmt::print(out, "\n");
    print_written(report.written);
    return 0;
  };
}

}  // namespace attnviz::cli
