// attn-viz draw: attention weights from another tool, drawn with the model views.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/draw_job.h"
#include "maps_view_flags.h"
#include "options.h"
#include "report.h"
#include "suggest.h"

namespace attnviz::cli {

namespace {

struct draw_flags {
  draw_job_config job;
  maps_view_flags view;
  std::string causal = "auto";
  std::string max_memory = "8G";
};

}  // namespace

action setup_draw(CLI::App& app) {
  auto f = std::make_shared<draw_flags>();
  auto* cmd = app.add_subcommand(
      "draw", "Draw attention weights another tool computed (.npy, .npz, safetensors, JSON), "
              "with every view of attn-viz model");
  cmd->footer(R"(
FILE holds the weights, row i = query i, of shape
  [n, n]                   one map
  [heads, n, n]            one layer's heads
  [layers, heads, n, n]    a whole model (attention.npy of attn-viz model --npy)
as one of:
  .npy          NumPy, float16/32/64:  numpy.save("a.npy", torch.stack(out.attentions)[:, 0].numpy())
  .npz          numpy.savez / savez_compressed; several arrays of one shape are stacked as layers
                in name order (numpy.savez("a.npz", *[a.numpy() for a in out.attentions]))
  .safetensors  F16/BF16/F32/F64 tensors, stacked the same way
  .json         nested lists, or {"attentions": [...], "tokens": [...]} (output_attentions as
                lists: json.dump({"attentions": [a.tolist() for a in out.attentions]}, f))
--key picks one array of an .npz or .safetensors. A batch of one ([layers, 1, heads, n, n], as
Hugging Face returns output_attentions stacked) is read as [layers, heads, n, n].
--tokens names the n tokens: one per line, or a JSON list (tokens.json); else a JSON file's
"tokens"; else they are numbered. A map that is 0 above its diagonal everywhere is drawn causal
(the upper triangle grey) unless --causal off.
Cross attention (an encoder-decoder's cross_attention.npy, [layers, heads, n_target, n_source]):
--key-tokens names the columns (source_tokens.json), --tokens the rows (target_tokens.json);
--view head, mean, max or alignment (the word alignment, as attn-viz model draws it).

Examples:
  attn-viz draw --weights maps/attention.npy --tokens maps/tokens.json --view model --png m.png
  attn-viz draw --weights layers.npz --tokens words.txt --view lines --layer 3 --heads 0-3 --svg l3.svg
  attn-viz draw --weights attentions.json --html explore.html
  attn-viz draw --weights attention.npy --view rollout --npy out --png rollout.png
  attn-viz draw --weights maps/cross_attention.npy --tokens maps/target_tokens.json \
                --key-tokens maps/source_tokens.json --view alignment --png align.png)");
  auto& c = f->job;
  cmd->add_option("--weights,-w", c.weights, "The weights (.npy, .npz, .safetensors or .json)")
      ->required()
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--key", c.key, "The array of an .npz or .safetensors file to draw (default: "
                                  "the only one, or all of one shape stacked as layers)")
      ->type_name("NAME")
      ->group("Input");
  cmd->add_option("--tokens", c.tokens, "The tokens: one per line, or a JSON list of strings")
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--key-tokens", c.key_tokens,
                  "Cross attention: the keys' (source's) tokens, when they are not the queries'; "
                  "the maps may then be [.., n_q, n_k]")
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--causal", f->causal,
                  "Grey the upper triangle: auto (when every map is 0 there), on, off")
      ->check(one_of(names_of(causal_mode_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_option("--max-memory", f->max_memory,
                  "Stop before reading past the file's headers when its arrays would need more "
                  "than this (a small compressed .npz can declare gigabytes; e.g. 512M, 16G)")
      ->capture_default_str()
      ->group("Input");
  add_maps_view_flags(*cmd, c.choice, f->view);
  add_output_flags(*cmd, c.out,
                   {{output_kind::png},
                    {output_kind::svg},
                    {output_kind::html, "Write one page to explore every layer and head offline: "
                                        "the model view's grid (click a head to open it), layer "
                                        "and head selectors, hover for the weights"},
                    {output_kind::npy, "Write view.npy [n, n], the map of --view mean, max, "
                                       "rollout or flow, into this folder (made if missing)"}});

  return [f] {
    draw_job_config job = f->job;
    resolve_maps_view(f->view, job.choice);
    job.causal = value_of(causal_mode_names, f->causal, "--causal");
    job.max_memory = memory_limit(f->max_memory, "--max-memory");
    if (!job.out.any() && !f->view.term)
      throw usage_error("nothing to write: give --png, --svg, --html, --npy or --term");
    if (!job.key_tokens.empty() && f->view.term)
      throw usage_error("--term draws self-attention maps; cross attention (--key-tokens) is "
                        "drawn with --png or --svg");
    const draw_report r = run_draw_job(job);
    std::FILE* out = summary_stream(r.written);
    if (r.cross) {
      fmt::print(out, "{} layer{} × {} head{} · {} query × {} key tokens · cross\n", r.layers,
                 r.layers == 1 ? "" : "s", r.heads, r.heads == 1 ? "" : "s", r.n, r.n_k);
      print_written(r.written);
      return 0;
    }
    fmt::print(out, "{} layer{} × {} head{} · {} tokens{}\n", r.layers, r.layers == 1 ? "" : "s",
               r.heads, r.heads == 1 ? "" : "s", r.n, r.causal ? " · causal" : "");
    if (f->view.term) print_view_term(draw_maps_source(r, job), job.choice);
    print_written(r.written);
    return 0;
  };
}

}  // namespace attnviz::cli
