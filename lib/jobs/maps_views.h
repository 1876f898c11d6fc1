// What --view draws from a stack of attention maps ([layers, heads, n, n], row i = query i),
// wherever they came from (`attn-viz model` runs a checkpoint, `attn-viz draw` reads a file):
//
//   head            one head's map (layer, head)                    a heatmap
//   model           every chosen layer × head as thumbnails          render/model_view.h
//   mean, max       over the chosen layers × heads                   a heatmap   (layer_maps.h)
//   rollout, flow   through the chosen layers                        a heatmap   (layer_maps.h)
//   lines, overlay  the head view of one layer, the chosen heads      render/head_view.h
//   alignment       an encoder–decoder model's cross attention over the chosen layers × heads
//                   as a word alignment (jobs/seq2seq_views.h); refused for other stacks
//   received        for long texts: the attention each token receives, drawn over the text
//                   itself (render/text_page.h): per token j the mean over --layers × --heads of
//                   the weight it gets from the queries that can see it, Σ_i a_ij / (n − j) under
//                   a causal mask, Σ_i a_ij / n without; reads the column sums (`received`), not
//                   the maps, so it is there at any length
//   received-rollout  the same through the attention rollout over --layers: per token j,
//                   Σ_i R[i, j] (R the rollout, every head) over the same count of queries —
//                   which input tokens the model's output, all layers together, traces back to.
//                   From a model run, a second pass from the last layer down
//                   (jobs/received_rollout.h), at any length; from maps, rollout_column_sums
//   generation      after `model --generate`: the generated tokens as rows, the prompt and the
//                   earlier generated tokens as columns, a rule at the prompt's end; one head's
//                   map (--layer, --head) or the mean over --layers × --heads, each row divided
//                   by its largest weight so every step spans the colours
//
// A vision model's maps (maps_source::picture set) draw on the picture the model read
// (render/picture_view.h): overlay one head's CLS query (--layer, --head), model every chosen
// layer × head's CLS query as a grid, mean, max, rollout and flow their map's CLS row, received
// and received-rollout each patch's value; rollout and flow fuse the heads by --head-fusion
// (mean, max, min) after discarding --discard-ratio of each layer's smallest weights
// (analysis/layer_maps.h). head and lines draw the n × n map and the head view as for a text.
//
//   logit-lens      after `model --logit-lens` (implied): each layer's input read through the
//                   output embeddings, the top token per layer and position in its cell,
//                   coloured by its probability (model/logit_lens.h)
//
// `layers` and `heads` are lists as users write them ("0,5-7"; empty: all); which views read
// them is checked once (check_view_choice), before any work.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/attention_flow.h"
#include "analysis/layer_maps.h"
#include "enum_names.h"
#include "io/progress.h"
#include "model/logit_lens.h"
#include "render/figure.h"
#include "render/grid.h"
#include "render/heatmap.h"
#include "render/model_page.h"
#include "render/views.h"
#include "tensor.h"
#include "vision/image_file.h"

namespace attnviz {

enum class maps_view {
  head,
  model,
  mean,
  max,
  rollout,
  flow,
  lines,
  overlay,
  alignment,
  generation,
  received,
  received_rollout,
  logit_lens
};
inline constexpr named<maps_view> maps_view_names[] = {
    {"head", maps_view::head},
    {"model", maps_view::model},
    {"mean", maps_view::mean},
    {"max", maps_view::max},
    {"rollout", maps_view::rollout},
    {"flow", maps_view::flow},
    {"lines", maps_view::lines},
    {"overlay", maps_view::overlay},
    {"alignment", maps_view::alignment},
    {"generation", maps_view::generation},
    {"received", maps_view::received},
    {"received-rollout", maps_view::received_rollout},
    {"logit-lens", maps_view::logit_lens}};
// The views that draw one n × n heatmap (--term can show them).
bool draws_heatmap(maps_view v);
// The views that compute a map of their own (view.npy): mean, max, rollout, flow, generation,
// logit-lens ([layers + 1, n]: the top token's probability); received's and
// received-rollout's values are a row of n (view.npy [n]).
bool computes_map(maps_view v);
// received and received-rollout: a value per token drawn over the text (render/text_page.h).
inline bool received_view(maps_view v) {
  return v == maps_view::received || v == maps_view::received_rollout;
}

struct view_choice {
  maps_view view = maps_view::head;
  std::size_t layer = 0, head = 0;
  std::string layers, heads;
  scale_mode scale = scale_mode::shared;  // the model view's colour range
  view_options look;                      // cmap, annotate, cell
  progress_style progress = progress_style::automatic;  // long views' bar (flow)
  head_fusion fusion = head_fusion::mean;  // rollout and flow: how a layer's heads join
  double discard = 0.0;                    // rollout and flow: the share of weights dropped
  double alpha = 0.6;                      // a picture's overlay: the colours' opacity
};
inline constexpr named<head_fusion> head_fusion_names[] = {
    {"mean", head_fusion::mean}, {"max", head_fusion::max}, {"min", head_fusion::min}};

struct maps_source {
  const float* maps = nullptr;  // [layers, heads, n, n], or null with `kept`:
  std::vector<const float*> kept;  // the maps a run kept (l·heads + h; null: not kept)
  std::size_t layers = 0, heads = 0, n = 0;
  std::vector<std::string> tokens;  // n
  bool causal = false;              // hide j > i in the figures
  std::string name;                 // the model folder's or the file's name, for titles
  std::string subtitle;
  std::size_t prompt = 0;           // a generation's prompt rows (0: not a generation)
  // [layers, heads, n]: the column sums of every map (jobs/map_keeper.h), or null: summed from
  // the maps when a view needs them
  const float* received = nullptr;
  // [n]: the rollout's column sums through the view's --layers (jobs/received_rollout.h), or
  // null: from the maps
  const float* received_rollout = nullptr;
  // the logit lens (model/logit_lens.h) for --view logit-lens, or null: none was run
  const logit_lens* lens = nullptr;
  double residual = 0.5;  // model_maps::residual: 0 when the maps count the residual already
  // A vision model's picture as it read it, and its patch grid: token first_patch + r · cols + c
  // is patch (r, c) (null: a text)
  const rgb_image* picture = nullptr;
  std::size_t grid_rows = 0, grid_cols = 0, first_patch = 0;
};

// Whether a view reads --layers (a list of layers) and --heads.
bool view_reads_layers(maps_view v);
bool view_reads_heads(maps_view v);

// The source's maps as the analyses read them.
model_maps maps_of(const maps_source& s);

// usage_errors naming the parameter: a list given to a view that does not read it, an index
// out of range, flow past its size (analysis/attention_flow.h: its work grows as L · n⁴, a
// twelfth of that under a causal mask).
void check_view_choice(const view_choice& c, std::size_t layers, std::size_t heads, std::size_t n,
                       bool causal, bool lens = false);

// The indices a list names ("0,5-7", checked against count, usage_error naming `parameter`),
// or all of 0 … count − 1 when it is empty.
std::vector<std::size_t> chosen(const std::string& list, std::size_t count, const char* parameter,
                                const char* what);
// "layers 0-11", "layers 0,5-7", "heads 2" for titles.
std::string list_label(const char* what, const std::string& list, std::size_t count);

// The map a heatmap view draws (one head's, or the computed one): n × n, or for generation the
// generated rows (n − prompt) × n; for received and received-rollout 1 × n.
matrix view_values(const maps_source& s, const view_choice& c);
// view.npy's bytes: view_values as float32 [rows, n], or [n] for the received views.
std::string view_npy(const maps_source& s, const view_choice& c);
// The heatmap over `values` (from view_values), titled with what it is; values must outlive it.
heatmap_spec view_heatmap(const maps_source& s, const view_choice& c, const matrix& values);
// Whether view v of these maps draws on their picture (a vision model's: see above).
bool draws_on_picture(const maps_source& s, maps_view v);
// Any view's figure; captions (layers × heads, row-major, or empty) label the model view.
figure draw_view(const maps_source& s, const view_choice& c,
                 std::vector<std::string> captions = {});

// The --html page of every layer and head (render/model_page.h), opening on the chosen layer
// and head, with the choice's colormap and colour range, and as aggregates the mean and the max
// of every map, the rollout through every layer and, while its work stays under
// page_flow_max_work (about a second: 12 causal layers up to 118 tokens, 63 without a mask),
// the flow.
inline constexpr double page_flow_max_work = 2e8;
std::string maps_page(const maps_source& s, const view_choice& c,
                      std::vector<std::string> captions = {});
// The page with a Measure selector: one stack per measure's maps of the same run (the weights
// first), opening on the last.
std::string measures_page(const std::vector<std::pair<std::string, maps_source>>& measures,
                          const view_choice& c, const std::vector<std::string>& captions = {});
// That page's pieces, for pages of several stacks: a source's maps with those aggregates, and
// the choice's first map, colormap, colour range and titles.
page_stack self_stack(const maps_source& s, std::vector<std::string> captions = {});
void start_page_at(model_page_spec& p, const view_choice& c);

}  // namespace attnviz
