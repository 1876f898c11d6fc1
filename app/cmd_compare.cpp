// attn-viz compare: several variants of one input, side by side, with the numbers.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/compare_job.h"
#include "jobs/maps_compare.h"
#include "jobs/model_job.h"
#include "options.h"
#include "report.h"
#include "suggest.h"

namespace attnviz::cli {

namespace {

// compare --model / --weights: the heads or layers of one model instead of variants.
struct maps_flags {
  maps_compare_config job;
  std::string ids, target_ids, between = "heads";
  std::vector<CLI::Option*> variant_only;  // flags of the variants' comparison
  std::vector<CLI::Option*> maps_only;     // flags of the heads/layers comparison
  CLI::Option* layer = nullptr;
  bool quiet = false;
};

}  // namespace

action setup_compare(CLI::App& app) {
  auto maps = std::make_shared<maps_flags>();
  auto flags = std::make_shared<common_flags>();
  auto config = std::make_shared<compare_config>();
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
  attn-viz compare --text "..." --score additive --aligns softmax,hardmax --png align.png

With --model DIR (and --text or --ids, as attn-viz model) or --weights FILE (as attn-viz draw),
the same metrics compare a model's heads instead: --between heads (the heads of --layer L) or
--between layers (each layer's mean over its heads). Causal maps are compared over the keys each
query sees (row 0, which has no choice, left out). Prints every map's entropy and max weight,
the JS, top-1 and Spearman matrices and the most alike and most different pairs; --json writes
them, --png/--svg draw the JS matrix.
  attn-viz compare --model gpt2 --text "The cat sat on the mat." --between heads --layer 5 --png h5.png
  attn-viz compare --weights attention.npy --between layers --json layers.json)");
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
  cmd->add_option("--panel-cols", config->cols, "Panels per row [default: about square]")
      ->check(CLI::Range(1, 64))
      ->group("Compare");
  for (CLI::Option* o : cmd->get_options())
    if (o->get_name() != "--text" && o->get_name() != "--target" && o->get_name() != "--help")
      maps->variant_only.push_back(o);
  auto& mj = maps->job;
  maps->maps_only.push_back(cmd->add_option("--model,-m", mj.model_dir,
                                            "Compare the heads or layers of this model (a Hugging "
                                            "Face folder or a GGUF file), run on --text or --ids")
                                ->type_name("PATH")
                                ->group("Model"));
  maps->maps_only.push_back(cmd->add_option("--ids", maps->ids,
                                            "With --model: token ids, comma-separated (instead of "
                                            "--text)")
                                ->group("Model"));
  maps->maps_only.push_back(cmd->add_option("--weights,-w", mj.weights,
                                            "Compare the heads or layers of these maps (.npy, "
                                            ".npz, .safetensors, .json; as attn-viz draw)")
                                ->type_name("FILE")
                                ->group("Model"));
  maps->maps_only.push_back(
      cmd->add_option("--key", mj.key, "With --weights: the array of an .npz or .safetensors")
          ->group("Model"));
  maps->maps_only.push_back(cmd->add_option("--between", maps->between,
                                            "With --model or --weights: heads (of --layer) or "
                                            "layers")
                                ->check(one_of(names_of(compare_between_names)))
                                ->capture_default_str()
                                ->group("Model"));
  maps->maps_only.push_back(
      cmd->add_option("--stack", mj.stack,
                      "With --model, an encoder-decoder: the stack compared, encoder (default), "
                      "decoder, or cross (its heads ranked by alignment error against --gold)")
          ->check(one_of(names_of(seq2seq_stack_names)))
          ->group("Model"));
  maps->maps_only.push_back(
      cmd->add_option("--target-ids", maps->target_ids,
                      "With --model, an encoder-decoder: the target's token ids, comma-separated "
                      "(or its text with --target; default: its greedy translation)")
          ->group("Model"));
  maps->maps_only.push_back(
      cmd->add_option("--gold", mj.gold_path,
                      "With --stack cross: the gold word alignment of the text and target (one "
                      "Pharaoh line: i-j sure, i?j possible); every cross-attention head is "
                      "ranked by its alignment error rate against it")
          ->type_name("FILE")
          ->group("Model"));
  maps->layer = cmd->add_option("--layer", mj.layer, "With --between heads: the layer, from 0")
                    ->capture_default_str()
                    ->group("Model");
  maps->maps_only.push_back(maps->layer);
  maps->maps_only.push_back(
      cmd->add_flag("--quiet,-q", maps->quiet, "With --model: no progress bar on stderr")->group("Model"));
  add_output_flags(*cmd, config->out,
                   {{output_kind::json, "Write every variant's numbers and the metrics as JSON"},
                    {output_kind::png},
                    {output_kind::svg},
                    {output_kind::html,
                     "Write one self-contained page (no network): every variant's map behind a "
                     "selector, hover for the query, key, score and weight and the query's "
                     "explanation"}});

  maps->variant_only.push_back(cmd->get_option("--html"));
  return [flags, config, maps] {
    if (!maps->job.model_dir.empty() || !maps->job.weights.empty()) {
      refuse_given(maps->variant_only,
                   "is for comparing variants on word vectors, not a model's heads (--model, "
                   "--weights)");
      maps_compare_config job = maps->job;
      if (!job.model_dir.empty() && !job.weights.empty())
        throw usage_error("--model and --weights: give one of them");
      job.text = flags->input.text;
      job.target_text = flags->input.target;  // an encoder-decoder's target
      if (!job.weights.empty() && (!job.text.empty() || !maps->ids.empty()))
        throw usage_error("--weights holds the maps: --text and --ids are for --model");
      if (!job.model_dir.empty()) {
        if (!job.text.empty() && !maps->ids.empty())
          throw usage_error("--text and --ids: give one of them");
        resolve_text_or_ids(job.text, maps->ids, job.ids);
        if (!maps->target_ids.empty()) job.target_ids = parse_ids(maps->target_ids, "target-ids");
        if (job.text.empty() && job.ids.empty())
          throw usage_error("--model: give the text to run (--text) or the token ids (--ids)");
      }
      job.between = value_of(compare_between_names, maps->between, "--between");
      if (job.between == compare_between::layers && maps->layer->count() > 0)
        throw usage_error("--layer picks the layer whose heads --between heads compares");
      job.out = config->out;
      if (maps->quiet) job.progress = progress_style::quiet;
      const maps_compare_report r = run_maps_compare_job(job);
      print_warnings(r.warnings);
      fmt::print(summary_stream(r.written), "{}", r.text);
      print_written(r.written);
      return 0;
    }
    refuse_given(maps->maps_only,
                 "is for comparing a model's heads or layers: add --model DIR or --weights FILE");
    compare_config c = *config;
    resolve_job(*flags, c);
    c.scale = c.view.range;
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
