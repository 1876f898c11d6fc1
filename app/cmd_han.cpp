// attn-viz han: hierarchical attention over a document.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/han_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

action setup_han(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<han_config>();
  auto* cmd = app.add_subcommand(
      "han",
      "Hierarchical attention (Yang et al. 2016): word weights in each sentence, "
      "sentence weights in the document");
  cmd->footer(R"(
Sentences end at line breaks and after . ! ? ... and CJK full stops. With h_it the word vectors:
  word level      u_it = tanh(W_w h_it + b_w),  a_it = softmax_t(u_it . u_w),  s_i = sum_t a_it h_it
  sentence level  u_i = tanh(W_s s_i + b_s),    alpha_i = softmax_i(u_i . u_s), v = sum_i alpha_i s_i
Parameters han.W_w, han.b_w, han.u_w, han.W_s, han.b_s, han.u_s ([d, d] and [d]) come from
--seed or --params. The paper runs a bidirectional GRU first; here h_it are the word vectors.
The figure is a document view: each sentence's weight on the left, its words shaded by theirs.

--file FILE reads many documents: one sentence per line (a line is never split further), a
blank line between documents; each gets its own hierarchical attention with the same
parameters, the figure stacks their document views and --json lists them under "documents".

Examples:
  attn-viz han --document "The food was cold. The waiter was rude! We will not come back." \
               --png han.png --json han.json
  attn-viz han --file reviews.txt --png reviews.png --json reviews.json)");
  auto* document =
      cmd->add_option("--document,-d", flags->input.text, "The document; - reads standard input")
          ->group("Input");
  cmd->add_option("--file,-f", config->file,
                  "Read documents from FILE: one sentence per line, a blank line between "
                  "documents")
      ->type_name("FILE")
      ->excludes(document)
      ->group("Input");
  add_embedding_flags(*cmd, *flags);
  cmd->add_option("--seed", config->seed, "Seed for the parameters (Xavier-uniform, biases 0)")
      ->capture_default_str()
      ->group("Parameters");
  cmd->add_option("--params", config->params_in, "Load han.* parameters from a safetensors file")
      ->type_name("FILE")
      ->group("Parameters");
  cmd->add_option("--cmap", config->cmap, "Colormap for the weights [default: viridis]")
      ->group("Figure");
  cmd->add_option("--text-scale", config->scale, "Text size multiplier for the figure")
      ->capture_default_str()
      ->check(CLI::Range(1, 4))
      ->group("Figure");
  add_output_flags(
      *cmd, config->out,
      {{output_kind::json, "Write word weights, sentence weights and vectors as JSON"},
       {output_kind::png},
       {output_kind::svg},
       {output_kind::params, "Write the han.* parameters used"}});
  return [flags, config] {
    han_config c = *config;
    c.input = resolve_input(*flags);
    if (c.input.text.empty() && c.file.empty())
      throw usage_error("han needs a document: --document TEXT or --file FILE");
    c.max_memory = resolve_max_memory(*flags);
    const han_report report = run_han(c);
    print_warnings(report.warnings);
    fmt::print(summary_stream(report.written), "{}", format_han(report));
    print_written(report.written);
    return 0;
  };
}

}  // namespace attnviz::cli
