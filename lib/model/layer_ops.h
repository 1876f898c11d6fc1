// The shared pieces the families' blocks are built from (model/family.h), on n × d activations
// (one row per token):
//
//   norm(x)          LayerNorm (x − mean)/√(var + ε)·γ + β, or RMSNorm x/√(mean(x²) + ε)·w,
//                    as the config says
//   attention(x)     q, k, v = x W_q (+ b), …  (or GPT-2's fused c_attn); RoPE on q and k when
//                    the config's positions are rotary; per head softmax(q kᵀ/√d_h + mask) v
//                    through the pipeline's attend_projected (grouped-query: query head h reads
//                    key/value head h / (H / KV)); then W_o (+ b)
//   mlp(x)           down(act(up(x))), or down(act(gate(x)) ⊙ up(x)) when gated
//   embedding rows   tokens[ids] (+ learned positions, + token type 0)
#pragma once

#include <cstdint>
#include <vector>

#include "attention/pipeline.h"
#include "attention/positional.h"
#include "model/forward.h"
#include "model/hf_model.h"
#include "model/linear.h"
#include "stage_times.h"
#include "tensor.h"

namespace attnviz {

// Everything one layer needs besides its weights.
struct layer_context {
  const hf_model& m;
  attention_spec spec;  // masks
  rope_half_table rope;
  weight_converter conv;
  linear_layout layout;
  std::size_t n;
  stage_list* times;
  stage_clock clock;
  // Ends the current stage: its time since the last lap goes to `stage`.
  void lap(const char* stage) { add_stage_time(*times, stage, clock.lap()); }
};

matrix norm_of(const hf_model& m, const matrix& x, const weight_view* w, const weight_view* b);

// The attention sub-layer on its (normalised) input: projections, RoPE, attend_projected into
// this layer's maps ([H, n, n]), the output projection; q, k, v kept in `probe` when given.
matrix attention_block(layer_context& lc, const layer_weights& w, const matrix& in, float* maps,
                       layer_probe* probe);

// The feed-forward sub-layer on its (normalised) input.
matrix mlp_block(layer_context& lc, const layer_weights& w, const matrix& in);

// The config's activation, in place.
void activate(const hf_model& m, matrix& x);

// Row r of x += row `first + r` of `table` (learned positions), or row `first` for every r when
// same_row (BERT's token type 0). Non-finite weights are refused naming the tensor.
void add_table_rows(matrix& x, const weight_view& table, std::size_t first, bool same_row = false);

// Rows ids[r] of the token embeddings.
matrix token_rows(const hf_model& m, const std::vector<std::int64_t>& ids);

// The pre-norm residual block of GPT-2 and the Llama family:
//   x += attention(norm1(x));  x += mlp(norm2(x))
void pre_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe);

}  // namespace attnviz
