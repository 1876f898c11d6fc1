// `attn-viz model`: a Hugging Face checkpoint run natively over a token sequence, every layer's
// every head's attention kept, written as the contract other tools read:
//   --npy DIR   attention.npy  float32 [layers, heads, n, n] (row i = query i)
//               token_ids.npy  int64 [n]
//               tokens.json    the token strings as the tokenizer shows them
//               hidden.npy     float32 [n, d] the last hidden state (GPT-2 and Llama: after the
//                              final norm)
//               view.npy       float32 [n, n] the map --view mean, max, rollout or flow drew
//   --json      tokens, ids, the config summary, per layer the per-head weights (model_json.h)
//   --png/--svg one head's map (layer and head, 0-based), as `run` draws one
//   top_k       the most likely next tokens after the last position (causal models), or the
//               fillers of each [MASK] position (BERT), with probabilities
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "enum_names.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "model/forward.h"
#include "model/hf_config.h"
#include "render/grid.h"
#include "render/heatmap.h"
#include "render/model_json.h"
#include "render/head_view.h"
#include "render/model_view.h"
#include "render/views.h"

namespace attnviz {

// What --png/--svg/--term draw: one head's map; the model view (every layer × head as
// thumbnails); the mean or max over the chosen layers × heads; the rollout or the flow through
// the chosen layers (layer_maps.h); the head view of one layer (lines between the tokens, the
// heads side by side or overlaid).
enum class model_figure { head, model, mean, max, rollout, flow, lines, overlay };
inline constexpr named<model_figure> model_figure_names[] = {
    {"head", model_figure::head},       {"model", model_figure::model},
    {"mean", model_figure::mean},       {"max", model_figure::max},
    {"rollout", model_figure::rollout}, {"flow", model_figure::flow},
    {"lines", model_figure::lines},     {"overlay", model_figure::overlay}};
// The views that draw one n × n heatmap (and write view.npy when not one head's map).
bool draws_heatmap(model_figure f);

struct model_job_config {
  std::string model_dir;
  std::string text;               // run through the folder's own tokenizer (its specials added)
  std::vector<std::int64_t> ids;  // or the token ids as given (nothing added)
  job_outputs out;                // json, png, svg, npy_dir
  view_options view;
  model_figure figure = model_figure::head;
  std::size_t layer = 0, head = 0;  // the head drawn (0-based)
  std::string layers, heads;        // the maps of the views over several ("0,5-7"; empty: all)
  scale_mode scale = scale_mode::shared;  // the model view's colour range
  bool name_heads = false;  // caption the model view's heads with the head finder's names
  std::size_t top_k = 0;            // 0: no predictions
  progress_style progress = progress_style::automatic;
  std::uint64_t max_memory = default_memory_limit;
};

struct model_report {
  model_config config;
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  model_forward forward;
  std::vector<model_prediction> predictions;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

model_report run_model_job(const model_job_config& config);

// The token ids a model run reads and their strings: `text` through the folder's own tokenizer
// (its special tokens added), or `ids` as given, named by the folder's vocabulary (or shown as
// numbers, with a warning, when it has none).
struct model_input {
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  std::vector<std::string> warnings;
};
model_input read_model_input(const std::string& model_dir, const std::string& text,
                             const std::vector<std::int64_t>& ids);

// The n × n matrix --view draws but the model view: head config.head of layer config.layer, or
// the mean, max, rollout or flow over config.layers (and config.heads); and a heatmap over it
// (tokens as labels, the causal triangle hidden) titled with what it is; `values` must outlive
// the spec.
matrix model_head_values(const model_report& report, const model_job_config& config);
heatmap_spec model_head_heatmap(const model_report& report, const model_job_config& config,
                                const matrix& values);
// The model view of the report's maps: config.layers × config.heads (all when empty), with the
// head finder's captions when given (layers × heads, or empty).
model_view_spec model_view_of(const model_report& report, const model_job_config& config,
                              std::vector<std::string> captions);

// "1,2, 3" -> {1, 2, 3}; usage_error naming the parameter "ids" for anything else.
std::vector<std::int64_t> parse_ids(const std::string& text);

}  // namespace attnviz
