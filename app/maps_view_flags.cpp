#include "maps_view_flags.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "error.h"
#include "options.h"
#include "render/terminal.h"
#include "suggest.h"

namespace attnviz::cli {

void add_maps_view_flags(CLI::App& cmd, view_choice& c, maps_view_flags& f) {
  cmd.add_option("--view", f.view,
                 "What --png/--svg/--term draw: head (one head's map, --layer/--head); model "
                 "(every layer x head as thumbnails); mean or max over --layers x --heads; "
                 "rollout or flow through --layers (Abnar & Zuidema 2020; flow is a maximum "
                 "flow per pair of tokens, for short texts: up to 316 tokens through 12 causal "
                 "layers, 170 without a mask); lines or overlay (the head view of --layer: lines "
                 "from each query to its keys, --heads side by side or in one panel); alignment "
                 "(encoder-decoder models: the cross attention over --layers x --heads as a word "
                 "alignment); received (long texts: the attention each token receives over "
                 "--layers x --heads, drawn over the text like a page); received-rollout (the "
                 "same through the rollout over --layers: which input tokens the output traces "
                 "back to); logit-lens (attn-viz model: each layer's input read through the "
                 "output embeddings, the top token per layer and position coloured by its "
                 "probability). Vision models (--image) draw overlay, model, mean, max, rollout, "
                 "flow and received over the picture: the CLS query's weights on each patch")
      ->check(one_of(names_of(maps_view_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--layers", c.layers,
                 "The layers of --view model, mean, max, rollout, flow, alignment, received or "
                 "received-rollout, e.g. 0,5-7 [default: all]")
      ->group("Figure");
  cmd.add_option("--heads", c.heads,
                 "The heads of --view model, mean, max, lines, overlay, alignment or received, "
                 "e.g. 0-3 [default: all]")
      ->group("Figure");
  add_colour_flags(cmd, f.scale, f.vmin, f.vmax, true);
  cmd.add_option("--layer", c.layer, "The layer of --view head, lines or overlay (from 0)")
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--head", c.head, "The head of --view head (from 0)")
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--cmap", f.cmap, "Colormap [default: viridis]")->group("Figure");
  cmd.add_option("--annotate", f.annotate, "Write each weight in its cell: auto, on, off")
      ->check(one_of(names_of(annotate_mode_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--cell", c.look.cell,
                 "Pixels per cell (the model view: per thumbnail) [default: by token count]")
      ->check(CLI::Range(1, 256))
      ->group("Figure");
  cmd.add_option("--head-fusion", f.fusion,
                 "How --view rollout and flow join a layer's heads: mean (Abnar & Zuidema), or "
                 "their element-wise max or min (vit-explain's options)")
      ->check(one_of(names_of(head_fusion_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--discard-ratio", c.discard,
                 "--view rollout and flow: the share of each layer's smallest (fused) weights "
                 "set to 0 before chaining, from 0 to below 1 (vit-explain's; 0.9 keeps a tenth)")
      ->check(CLI::Range(0.0, 0.999999))
      ->capture_default_str()
      ->group("Figure");
  add_crop_flags(cmd, c.look.rows, c.look.cols);
  add_title_flags(cmd, f.title, f.no_title);
  cmd.add_flag("--term", f.term,
               "Draw the map in the terminal (every --view but model, lines and overlay)")
      ->group("Output");
}

void resolve_maps_view(const maps_view_flags& f, view_choice& c) {
  c.look.cmap = f.cmap;
  c.look.annotate = parse_annotate_mode(f.annotate);
  c.view = value_of(maps_view_names, f.view, "--view");
  c.fusion = value_of(head_fusion_names, f.fusion, "--head-fusion");
  if ((c.fusion != head_fusion::mean || c.discard > 0.0) && c.view != maps_view::rollout &&
      c.view != maps_view::flow)
    throw usage_error(
        fmt::format("--head-fusion and --discard-ratio shape --view rollout and "
                    "flow; --view {} does not chain the layers",
                    f.view));
  c.look.colours = resolve_colour_flags(f.scale, f.vmin, f.vmax, &c.scale);
  resolve_title_flags(f.title, f.no_title, c.look);
  if (f.term && !draws_heatmap(c.view))
    throw usage_error(fmt::format("--term draws one map; --view {} is not one: write it with "
                                  "--png or --svg, or pick --view head, mean, max, rollout or "
                                  "flow",
                                  f.view));
}

void print_view_term(const maps_source& source, const view_choice& choice) {
  const matrix values = view_values(source, choice);
  const term_colors mode = detect_term_colors(::isatty(STDOUT_FILENO) != 0,
                                              std::getenv("NO_COLOR"), std::getenv("COLORTERM"));
  fmt::print("{}", render_terminal(view_heatmap(source, choice, values), mode));
}

}  // namespace attnviz::cli
