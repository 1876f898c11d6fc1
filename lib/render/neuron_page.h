// explain --model … --html: the neuron view as one offline page (render/html_parts.h) for one
// head of one layer, every query of the text selectable.
//
//   Query [▾ 0 And | 1 ĠGod | …]
//   q_i                [d_h cells]
//   ────────────────────────────────────────────────────────────────────
//   key j  token  [k_j: d_h cells]  [q_i ⊙ k_j: d_h cells]  score  ████ a_ij
//
// The page recomputes, in the browser, what analysis/neuron_trace.h computes: s_ij = q_i·k_j/√d_h
// over the visible keys, the softmax, and compares it with the model's map (shown as "checked").
// Hovering a cell names the dimension and its numbers (q_it, k_jt, q_it·k_jt); hovering a row
// its score, weight and |a·v|. Cells are RdBu centred on 0, one range for q and k and one for
// q ⊙ k (per query), as the PNG draws them.
//
// Data in <script type="application/json" id="attnviz-data">: {"title", "subtitle", "tokens",
// "layer", "head", "kv_head", "d_head", "rope", "causal", "window", "query",
// "colormap": [256], "q", "k", "v": [n rows of d_h], "map": [n rows of n] (the kernel's weights)}.
// window.attnviz: {data, state(), select(i), cellCenter(row, t, part), trace()} where trace()
// returns the page's own numbers for the current query (for tests).
#pragma once

#include <string>
#include <vector>

#include "model/forward.h"

namespace attnviz {

struct neuron_page_spec {
  std::string title, subtitle;
  std::vector<std::string> tokens;
  std::size_t layer = 0, head = 0, kv_head = 0, d_head = 0, query = 0;
  bool rope = false, causal = false;
  std::size_t window = 0;
  const layer_probe* probe = nullptr;  // the layer's q, k, v
  const float* maps = nullptr;         // the head's n × n map
};

std::string neuron_page(const neuron_page_spec& spec);

}  // namespace attnviz
