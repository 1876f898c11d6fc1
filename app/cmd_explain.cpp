// attn-viz explain: one query through the three stages with the real numbers; with --model, the
// neuron view of one head of a checkpoint.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/explain_job.h"
#include "jobs/neuron_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

namespace {

struct neuron_flags {
  neuron_job_config job;
  std::string ids;
  bool quiet = false;
  std::vector<CLI::Option*> word_only;   // flags of the word-vector walk (not with --model)
  std::vector<CLI::Option*> model_only;  // flags of the neuron view (only with --model)
};


}  // namespace

action setup_explain(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<explain_config>();
  auto neuron = std::make_shared<neuron_flags>();
  auto as_json = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "explain", "Walk one query token through score, align and context with the real numbers "
                 "(with --model: one head of a checkpoint, the neuron view)");
  cmd->footer(R"(
Prints the variant's names and aliases (Bahdanau = additive; Luong = dot / general / concat /
location; multiplicative = general), the three formulas, the parameter shapes the run used, the
score e_ij and weight a_ij of every key for the query, the top keys, the context vector's norm
and its nearest words in the embedding file, and how each stage differs from its neighbours.

With --model DIR (a Hugging Face folder, as for attn-viz model): the neuron view of --layer L,
--head H (both from 0, as attn-viz heads and the model view name them) for the query token: its
query vector q_i and each visible key's k_j (after RoPE for the Llama family), q_i ⊙ k_j per
dimension for the top keys (their sum is q·k), the scores q·k/√d_h, the softmax, and the value
mixing c_i = Σ a_ij v_j; checked against the weights of the model's map. Then what the weights
do not say: each key's share of what the head adds, a_ij |v_j W_O^h| (Kobayashi et al. 2020),
and for the whole layer the heads' mean weight beside each key's share of the query's result
with the residual and the norm counted (contrib and alti, as attn-viz model --measure), with one
sentence on the key where they part most. --png/--svg draw it: q and every key as rows of
coloured cells, q ⊙ k beside them, the score and the weight as a bar, the shares as columns.
The query is a token as the tokenizer spells it ("Ġlight") or without its word mark ("light"),
its first occurrence, or a position; the last token when not given.

Examples:
  attn-viz explain --text "the cat sat on the floor because it was tired" --score additive --query cat
  attn-viz explain --text "..." --score scaled_dot --align sparsemax --query 2 --json
  attn-viz explain --model samples/kjv-gpt --layer 1 --head 2 --text "Let there be light" --png n.png)");
  add_input_flags(*cmd, *flags);
  add_variant_flags(*cmd, *flags);
  for (CLI::Option* o : cmd->get_options())
    if (o->get_name() != "--text" && o->get_name() != "--help") neuron->word_only.push_back(o);
  auto* query = cmd->add_option("--query", config->query,
                                "The query: a token (its first occurrence; bank#2 is the second), "
                                "or its position counting from 0 (with --model: the last token "
                                "when not given)")
                    ->group("Explain");
  auto head = std::make_shared<std::size_t>(0);
  auto* head_flag = cmd->add_option("--head", *head,
                                    "Which head to walk through, counting from 0 as every figure, "
                                    "flag and JSON does (with --heads H: 0 to H-1; with --model: "
                                    "the checkpoint's head)")
                        ->capture_default_str()
                        ->check(CLI::Range(0, 100000))
                        ->group("Explain");
  cmd->add_option("--top", config->top_k, "How many top keys to list")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000))
      ->group("Explain");
  neuron->word_only.push_back(
      cmd->add_option("--vocabulary", config->vocabulary,
                      "Search the context's nearest words among the embedding file's first N rows")
          ->capture_default_str()
          ->group("Explain"));
  cmd->add_flag("--json", *as_json, "Print the same trace as JSON")->group("Explain");
  auto& nj = neuron->job;
  neuron->model_only.push_back(cmd->add_option("--model,-m", nj.model_dir,
                                               "The neuron view of a model (a Hugging Face folder or a "
                                               "GGUF file)")
                                   ->type_name("PATH")
                                   ->group("Model"));
  neuron->model_only.push_back(cmd->add_option("--layer", nj.layer, "With --model: the layer, from 0")
                                   ->capture_default_str()
                                   ->group("Model"));
  neuron->model_only.push_back(
      cmd->add_option("--ids", neuron->ids,
                      "With --model: token ids, comma-separated, as given (instead of --text)")
          ->group("Model"));
  add_output_flags(*cmd, nj.out,
                   {{output_kind::png, "With --model: draw the neuron view as PNG"},
                    {output_kind::svg, "With --model: draw the neuron view as SVG"},
                    {output_kind::html, "With --model: the neuron view as one offline page, "
                                        "every query selectable, hover for each dimension's "
                                        "numbers"}});
  for (const char* name : {"--png", "--svg", "--html"})
    neuron->model_only.push_back(cmd->get_option(name));
  neuron->model_only.push_back(
      cmd->add_flag("--quiet,-q", neuron->quiet, "With --model: no progress bar on stderr")
          ->group("Model"));
  return [flags, config, neuron, as_json, head, query, head_flag] {
    if (!neuron->job.model_dir.empty()) {
      refuse_given(neuron->word_only, "is for word vectors: it does not apply with --model");
      neuron_job_config job = neuron->job;
      job.text = flags->input.text;
      if (!job.text.empty() && !neuron->ids.empty())
        throw usage_error("--text and --ids: give one of them");
      resolve_text_or_ids(job.text, neuron->ids, job.ids);
      if (job.text.empty() && job.ids.empty())
        throw usage_error("--model: give the text to run (--text) or the token ids (--ids)");
      job.head = *head;
      job.query = config->query;
      job.top_k = config->top_k;
      if (neuron->quiet) job.progress = progress_style::quiet;
      const neuron_report r = run_neuron_job(job);
      print_warnings(r.warnings);
      if (*as_json) {
        // the JSON is on stdout; the files written go to stderr
        fmt::print("{}", r.json);
        for (const auto& path : r.written) fmt::print(stderr, "wrote {}\n", path);
      } else {
        fmt::print(summary_stream(r.written), "{}", r.text);
        print_written(r.written);
      }
      return 0;
    }
    refuse_given(neuron->model_only, "is for the neuron view: add --model DIR");
    if (query->count() == 0) throw usage_error("--query is required (the token to walk through)");
    explain_config c = *config;
    c.head = *head;
    resolve_job(*flags, c);
    const explain_report report = run_explain(c);
    print_warnings(report.warnings);
    fmt::print("{}", *as_json ? report.json : report.text);
    return 0;
  };
}

}  // namespace attnviz::cli
