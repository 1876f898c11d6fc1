// attn-viz explain: one query through the three stages, with the real numbers.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/explain_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

action setup_explain(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<explain_config>();
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "explain", "Walk one query token through score, align and context with the real numbers");
  cmd->footer(R"(
Prints the variant's names and aliases (Bahdanau = additive; Luong = dot / general / concat /
location; multiplicative = general), the three formulas, the parameter shapes the run used, the
score e_ij and weight a_ij of every key for the query, the top keys, the context vector's norm
and its nearest words in the embedding file, and how each stage differs from its neighbours.

Examples:
  attn-viz explain --text "the cat sat on the floor because it was tired" --score additive --query cat
  attn-viz explain --text "..." --score scaled_dot --align sparsemax --query 2 --json)");
  add_input_flags(*cmd, *flags);
  add_variant_flags(*cmd, *flags);
  cmd->add_option("--query,-q", config->query,
                  "The query: a token (its first occurrence) or a 0-based index")
      ->required()
      ->group("Explain");
  auto head = std::make_shared<std::size_t>(1);
  cmd->add_option("--head", *head, "With --heads H: which head to walk through (1 to H)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024))
      ->group("Explain");
  cmd->add_option("--top", config->top_k, "How many top keys to list")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->group("Explain");
  cmd->add_option("--vocabulary", config->vocabulary,
                  "Search the context's nearest words among the embedding file's first N rows")
      ->capture_default_str()
      ->group("Explain");
  cmd->add_flag("--json", *as_json, "Print the same trace as JSON")->group("Explain");
  return [flags, config, as_json, head] {
    explain_config c = *config;
    c.head = *head - 1;
    resolve_job(*flags, c);
    const explain_report report = run_explain(c);
    print_warnings(report.warnings);
    fmt::print("{}", *as_json ? report.json : report.text);
    return 0;
  };
}

}  // namespace attnviz::cli
