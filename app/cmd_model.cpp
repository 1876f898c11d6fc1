// attn-viz model: run a Hugging Face checkpoint and keep every layer's every head.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/model_job.h"
#include "options.h"
#include "render/terminal.h"
#include "report.h"

namespace attnviz::cli {

namespace {

struct model_flags {
  model_job_config job;
  std::string ids;
  std::string max_memory = "8G";
  std::string cmap, annotate = "auto", figure = "head", scale = "shared";
  bool term = false, quiet = false;
};

}  // namespace

action setup_model(CLI::App& app) {
  auto f = std::make_shared<model_flags>();
  auto* cmd = app.add_subcommand(
      "model",
      "Run a Hugging Face model folder (GPT-2, BERT, Llama, Mistral, Qwen2) natively and keep "
      "every layer's every head's attention");
  cmd->footer(R"(
DIR is a model folder as Hugging Face stores it: config.json, model.safetensors (or
model.safetensors.index.json and its shards) in F32, F16 or BF16, memory-mapped, and the
tokenizer files (tokenizer.json, vocab.json or vocab.txt) for the tokens' names.
Layers and heads count from 0, as in the arrays: attention.npy[layer, head, query, key].

Outputs:
  --npy DIR   attention.npy  float32 [layers, heads, n, n]   (row i = query i)
              token_ids.npy  int64 [n]
              tokens.json    the token strings, as the tokenizer shows them
              hidden.npy     float32 [n, d]: the last hidden state
              view.npy       float32 [n, n]: with --view mean, max, rollout or flow, that map
  --json      tokens, ids, the model's sizes and every layer's heads' weights
  --png/--svg/--term   one head's map: --layer L --head H

Examples:
  attn-viz model --model gpt2 --ids 464,3797,3332,319,262,2603 --npy maps --top-k 5
  attn-viz model --model bert-base-uncased --ids 101,1996,4937,2938,102 --layer 5 --head 3 \
                 --png l5h3.png)");
  auto& c = f->job;
  cmd->add_option("--model,-m", c.model_dir, "The model folder")
      ->required()
      ->type_name("DIR")
      ->group("Input");
  auto* text = cmd->add_option("--text,-t", c.text,
                               "Text, read by the model's own tokenizer (tokenizer.json, GPT-2's "
                               "vocab.json + merges.txt, or BERT's vocab.txt), its special tokens "
                               "added; - reads standard input")
                    ->group("Input");
  cmd->add_option("--ids", f->ids,
                  "Token ids, comma-separated, run as given (no special tokens added)")
      ->excludes(text)
      ->group("Input");
  cmd->add_option("--max-memory", f->max_memory,
                  "Stop before starting when the maps kept (layers x heads x n x n floats, and "
                  "their JSON) would need more than this (e.g. 512M, 16G)")
      ->capture_default_str()
      ->group("Input");
  cmd->add_option("--view", f->figure,
                  "What --png/--svg/--term draw: head (one head's map, --layer/--head); model "
                  "(every layer x head as thumbnails); mean or max over --layers x --heads; "
                  "rollout or flow through --layers (Abnar & Zuidema 2020; flow up to 64 "
                  "tokens); lines or overlay (the head view of --layer: lines from each query to "
                  "its keys, --heads side by side or in one panel)")
      ->check(CLI::IsMember(names_of(maps_view_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_option("--layers", c.choice.layers,
                  "The layers of --view model, mean, max, rollout or flow, e.g. 0,5-7 "
                  "[default: all]")
      ->group("Figure");
  cmd->add_option("--heads", c.choice.heads,
                  "The heads of --view model, mean, max, lines or overlay, e.g. 0-3 "
                  "[default: all]")
      ->group("Figure");
  cmd->add_option("--scale", f->scale,
                  "The model view's colours: shared (one range, 0 to the largest weight shown) "
                  "or panel (each thumbnail its own, written under it)")
      ->check(CLI::IsMember(names_of(scale_mode_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_flag("--name-heads", c.name_heads,
                "Caption the model view's thumbnails with what the head finder sees (previous, "
                "first, induction, self; see attn-viz heads)")
      ->group("Figure");
  cmd->add_option("--layer", c.choice.layer,
                  "The layer of --view head, lines or overlay (from 0)")
      ->capture_default_str()
      ->group("Figure");
  cmd->add_option("--head", c.choice.head, "The head of --view head (from 0)")->capture_default_str()->group("Figure");
  cmd->add_option("--cmap", f->cmap, "Colormap [default: viridis]")->group("Figure");
  cmd->add_option("--annotate", f->annotate, "Write each weight in its cell: auto, on, off")
      ->check(CLI::IsMember(names_of(annotate_mode_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_option("--cell", c.choice.look.cell,
                  "Pixels per cell (the model view: per thumbnail) [default: by token count]")
      ->check(CLI::Range(1, 256))
      ->group("Figure");
  cmd->add_option("--top-k", c.top_k,
                  "Print the K most likely next tokens after the last one (causal models) or the "
                  "fillers of each [MASK] (BERT), with probabilities")
      ->check(CLI::Range(1, 1000))
      ->group("Output");
  cmd->add_flag("--term", f->term,
                "Draw the map in the terminal (every --view but model, which is a grid)")
      ->group("Output");
  add_output_flags(*cmd, c.out,
                   {{output_kind::json, "Write tokens, ids, the model's sizes and every layer's "
                                        "heads' weights as JSON"},
                    {output_kind::png},
                    {output_kind::svg},
                    {output_kind::npy, "Write attention.npy [layers, heads, n, n], token_ids.npy "
                                       "and tokens.json into this folder (made if missing)"}});
  cmd->add_flag("--quiet,-q", f->quiet, "No progress bar on stderr")->group("Output");

  return [f] {
    model_job_config job = f->job;
    if (job.text.empty() && f->ids.empty())
      throw usage_error("give the text (--text) or the token ids (--ids)");
    if (!f->ids.empty()) job.ids = parse_ids(f->ids);
    if (job.text == "-") {
      job.text = read_stdin();
      if (job.text.empty()) throw usage_error("--text -: standard input is empty");
    }
    job.choice.look.cmap = f->cmap;
    job.choice.look.annotate = parse_annotate_mode(f->annotate);
    job.choice.view = value_of(maps_view_names, f->figure, "--view");
    job.choice.scale = value_of(scale_mode_names, f->scale, "--scale");
    job.max_memory = parse_size(f->max_memory, "--max-memory");
    if (f->quiet) job.progress = progress_style::quiet;
    if (f->term && !draws_heatmap(job.choice.view))
      throw usage_error(fmt::format("--term draws one map; --view {} is not one: write it with "
                                    "--png or --svg, or pick --view head, mean, max, rollout or "
                                    "flow",
                                    f->figure));
    const model_report r = run_model_job(job);
    print_warnings(r.warnings);
    std::FILE* out = summary_stream(r.written);
    fmt::print(out, "{} · {} tokens\n", model_summary(r.config), r.ids.size());
    for (const auto& p : r.predictions) {
      fmt::print(out, "after position {} ({}):\n", p.position, r.tokens[p.position]);
      for (std::size_t i = 0; i < p.top.size(); ++i)
        fmt::print(out, "  {:>2}. {:<20} {:>8}  p = {:.4f}\n", i + 1, p.top_tokens[i],
                   p.top[i].first, p.top[i].second);
    }
    if (f->term) {
      const maps_source source = model_maps_source(r, job);
      const matrix values = view_values(source, job.choice);
      const term_colors mode = detect_term_colors(::isatty(STDOUT_FILENO) != 0,
                                                  std::getenv("NO_COLOR"), std::getenv("COLORTERM"));
      fmt::print("{}", render_terminal(view_heatmap(source, job.choice, values), mode));
    }
    print_written(r.written);
    return 0;
  };
}

}  // namespace attnviz::cli
