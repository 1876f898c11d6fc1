// The neuron view's writers: one head's walk for one query (analysis/neuron_trace.h) as text,
// as JSON and as a figure.
//
// Figure (PNG/SVG): a row for q_i, then one row per shown key in position order —
//
//   query 9 light   [q_i: d_h cells]
//   0  In           [k_0: d_h cells]   [q ⊙ k_0: d_h cells]   -1.204   ▌ 0.8 %
//   8  light        [k_8 …]            [q ⊙ k_8 …]            +2.182   ██████ 71.2 %
//
// cells coloured on RdBu centred on 0 (one range for q and k, one for q ⊙ k, both in the legend),
// then the score q·k/√d_h and the softmax weight as a bar. At most 48 keys (past that, the 48
// of highest weight, still in position order, and the figure says so).
//
// JSON: {"attn-viz", "model": {folder, summary}, "layer", "head", "kv_head", "d_head",
//  "scale": 1/√d_h, "rope": bool, "query": {"position", "token"}, "q": [...],
//  "keys": [{"position", "token", "k", "q_times_k", "dot", "score", "weight", "kernel_weight",
//            "v", "mixed_norm", "output_norm", "norm_share"}] (every visible key, position order),
//            "hidden_keys",
//  "context": [...], "context_norm", "weight_error"}
#pragma once

#include <string>
#include <vector>

#include "analysis/neuron_trace.h"
#include "render/figure.h"

namespace attnviz {

struct neuron_view_spec {
  const neuron_trace* trace = nullptr;
  const std::vector<std::string>* tokens = nullptr;  // as the tokenizer spells them (the JSON)
  const std::vector<std::string>* shown = nullptr;   // as the text and figure show them
                                                     // (null: the tokens as spelled)
  std::string folder, summary;                     // the model's folder name and model_summary
  bool rope = false;                               // q, k are after RoPE
  std::size_t top_k = 3;                           // text: keys listed with their vectors
};

inline constexpr std::size_t neuron_view_max_keys = 48;

std::string neuron_text(const neuron_view_spec& spec);
std::string neuron_json(const neuron_view_spec& spec, const std::string& generator);
figure neuron_view_figure(const neuron_view_spec& spec);

}  // namespace attnviz
