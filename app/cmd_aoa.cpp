// attn-viz aoa: attention-over-attention for a document and a query.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/aoa_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

action setup_aoa(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<aoa_config>();
  auto top = std::make_shared<std::size_t>(5);
  auto* cmd = app.add_subcommand(
      "aoa", "Attention-over-attention (Cui et al. 2017) for a document and a query");
  cmd->footer(R"(
With D the document's word vectors (n_d x d) and Q the query's (n_q x d):
  M        = D Q^T                        matching score of every (document, query) pair
  alpha    = softmax of each column of M  each query word's attention over the document
  beta     = softmax of each row of M     each document word's attention over the query
  beta_bar = mean of beta's rows          how much each query word matters
  s        = alpha beta_bar^T             the document attention that the query words vote for
A candidate answer w scores the sum of s over its positions (printed, and in the JSON).
The paper encodes D and Q with a bidirectional GRU first; here they are the word vectors.

Example:
  attn-viz aoa --document "the cat sat on the floor because the dog was in the garden" \
               --query "where was the dog ?" --png aoa.png --json aoa.json)");
  cmd->add_option("--document,-d", flags->input.source,
                  "The document (one or more sentences); - reads standard input")
      ->required()
      ->group("Input");
  cmd->add_option("--query", flags->input.target, "The query (a question or a few words)")
      ->required()
      ->group("Input");
  add_embedding_flags(*cmd, *flags);
  add_look_flags(*cmd, *flags);
  cmd->add_option("--top", *top, "How many candidate words to print")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->group("Output");
  add_output_flags(
      *cmd, config->out,
      {{output_kind::json, "Write M, alpha, beta, beta_bar, s and the word scores as JSON"},
       {output_kind::png},
       {output_kind::svg}});
  return [flags, config, top] {
    aoa_config c = *config;
    c.input = resolve_input(*flags);
    c.view = resolve_view(*flags);
    c.max_memory = resolve_max_memory(*flags);
    const aoa_report report = run_aoa(c);
    print_warnings(report.warnings);
    std::FILE* out = summary_stream(report.written);
    fmt::print(out, "query weights beta_bar:");
    for (std::size_t j = 0; j < report.query_tokens.size(); ++j)
      fmt::print(out, "  {} {:.3f}", report.query_tokens[j], report.result.beta_bar[j]);
    fmt::print(out, "\ncandidate words (sum of s over their positions):\n");
    for (std::size_t k = 0; k < report.word_scores.size() && k < *top; ++k)
      fmt::print(out, "  {:>2}. {:<16} {:.4f}\n", k + 1, report.word_scores[k].first,
                 report.word_scores[k].second);
    print_written(report.written);
    return 0;
  };
}

}  // namespace attnviz::cli
