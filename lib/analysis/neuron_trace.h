// The neuron view's numbers: how one head of a model weighs its keys for one query, dimension
// by dimension (after bertviz's neuron view, with the arithmetic written out).
//
//   s_ij = (q_i · k_j) / √d_h = Σ_t (q_i ⊙ k_j)_t / √d_h      the terms q_it·k_jt, per dimension
//   a_ij = exp(s_ij − max s_i·) / Σ_visible exp(…)            softmax over the visible keys
//   c_i  = Σ_j a_ij v_j                                       the value mixing (the head's context)
//
// q, k are the layer's queries and keys as the kernel multiplied them (after RoPE), v its values
// (model/forward.h: layer_probe). Visible keys: every key, or j ≤ i for a causal model, and
// i − j < window under a sliding window. Everything is recomputed here in double and compared
// with the kernel's weights (weight_error), so the view proves the map it explains.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/forward.h"

namespace attnviz {

struct neuron_key {
  std::size_t j = 0;               // the key's position
  double score = 0.0;              // s_ij
  double weight = 0.0;             // a_ij (recomputed)
  double kernel_weight = 0.0;      // a_ij as the kernel wrote it in the map
  std::vector<double> k;           // k_j (d_h)
  std::vector<double> product;     // q_i ⊙ k_j (d_h); sums to s_ij·√d_h
  std::vector<double> v;           // v_j (d_h)
  double mixed_norm = 0.0;         // |a_ij v_j|: what this key adds to c_i
  // a_ij |v_j W^h|: the length of what this key adds to the head's output (W^h: the d_h × d
  // block of W_O the head's context goes through; Kobayashi et al. 2020), and its share of the
  // keys' sum (add_output_norms)
  double output_norm = 0.0, norm_share = 0.0;
};

// The layer around the head, at the query's row: what one reading of the whole layer gives each
// key (share[j], position-indexed over the n tokens, summing to 1): the mean of the layer's
// heads' weights, or a measure with one map a layer (contrib, alti: the key's share of what the
// query's result of the layer takes from the keys, residual and norm counted).
struct layer_reading {
  std::string measure;  // "weights" (the heads' mean), "contrib", "alti"
  std::vector<double> share;
};

struct neuron_trace {
  std::size_t layer = 0, head = 0, kv_head = 0, query = 0, d_head = 0;
  std::vector<double> q;            // q_i (d_h)
  std::vector<neuron_key> keys;     // every visible key, in position order
  std::vector<std::size_t> by_weight;  // indices into keys, highest weight first (stable)
  std::vector<double> context;      // c_i (d_h)
  double context_norm = 0.0;
  double weight_error = 0.0;        // max_j |a_ij − the kernel's a_ij| over every key
  std::size_t hidden_keys = 0;      // keys the masks hide (their weight is 0)
  std::vector<layer_reading> readings;  // the layer's readings (explain --model), weights first
};

// The key other than the query where the layer's weights (readings[0]) and another reading part
// most (the query's own share differs by its residual, always): the reading's index into
// t.readings (0: none — fewer than two readings, or every key within `margin`) and the key.
struct reading_gap {
  std::size_t reading = 0, j = 0;
};
reading_gap widest_gap(const neuron_trace& t, double margin);

struct neuron_query {
  std::size_t head = 0, query = 0;
  std::size_t heads = 0, kv_heads = 0, d_head = 0;
  bool causal = false;
  std::size_t window = 0;  // sliding window (0: none)
};

// `map_row` is the kernel's row i of that head's map (n weights); probe holds the layer's
// q, k, v over n tokens. Throws std::logic_error on shapes that do not match.
neuron_trace trace_neuron(const layer_probe& probe, const neuron_query& at, const float* map_row);

// Each key's output_norm and norm_share from W^h (d_h × d, row-major: model/linear.h's
// output_head_block).
void add_output_norms(neuron_trace& t, const std::vector<float>& w_head, std::size_t d);

// The dimensions t of `product` by |product_t|, largest first (ties: lower t), at most k.
std::vector<std::size_t> leading_dimensions(const std::vector<double>& product, std::size_t k);

}  // namespace attnviz
