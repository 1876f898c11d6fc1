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

#include <cstddef>
#include <cstdint>
#include <vector>

#include "attention/pipeline.h"
#include "attention/positional.h"
#include "model/forward.h"
#include "model/hf_model.h"
#include "model/linear.h"
#include "model/map_taps.h"
#include "stage_times.h"
#include "tensor.h"

namespace attnviz {

// Everything one layer needs besides its weights: the stack's shape, the self-attention masks,
// and, in generation, how many rows the caches already hold.
struct layer_context {
  layer_context(const hf_model& model, std::size_t rows, stage_list* stage_times);
  const hf_model& m;
  std::size_t n;                            // the rows of this call (queries)
  std::size_t heads, kv_heads, head_dim;    // the stack's (the decoder's may differ)
  std::size_t past = 0;                     // rows already in the self-attention caches
  std::size_t layer = 0;                    // the layer running (for the taps)
  map_taps* taps = nullptr;                 // self-attention maps: where the taps say, not at
                                            // the block's `maps` (model/map_taps.h)
  attention_spec spec;                      // self-attention masks
  double score_scale = 0.0;                 // the scores' factor, 0: 1/√d_h (T5: 1)
  double soft_cap = 0.0;                    // self-attention scores capped (Gemma 2), 0: none
  std::vector<float> score_bias;            // self-attention: [H, n, past + n] added to the
                                            // scores (T5's relative positions), or empty
  rope_half_table rope;                     // rows for positions [past, past + n)
  std::size_t zeroed_value = no_row;        // self-attention: this key's value vector set to 0
                                            // in every head (value zeroing), no_row: none
  std::size_t map_head_stride = 0;          // self-attention maps: floats from one head's rows
                                            // to the next's at `maps` (0: n · (past + n))
  weight_converter conv;
  linear_layout layout;
  stage_list* times;
  stage_clock clock;
  // Ends the current stage: its time since the last lap goes to `stage`.
  void lap(const char* stage) { add_stage_time(*times, stage, clock.lap()); }
};

// The keys and values of a self-attention sub-layer's rows so far, in generation: each step
// appends its rows (capacity doubling, so appending is amortised O(1) a row; room for `planned`
// rows from the first append, when the caller knows how many it will append). Each key/value
// head's rows are kept together, k and v (heads · capacity) × head_dim with head g's rows
// [0, rows) at rows g · capacity + i, so a one-row step reads every head's keys and values as
// one run each rather than head_dim floats of every row; with the kernel asking for the rows
// ahead (attention.inc, KEYS_AHEAD), one query over 12 layers x 12 heads' caches of 1,024 keys
// took 3.5-3.7 ms in rows, 2.0-2.2 ms this way.
struct kv_cache {
  matrix k, v;
  std::size_t rows = 0, heads = 0, capacity = 0;
  // The rows the caller means to append in all (0: not known). Generation knows: with room for
  // them from the start, a cache is never copied into a bigger one (a GPT-2 step after 128 + 128
  // tokens copied 19 MB into 38 MB of fresh memory, a spike of 60-100 ms on this guest).
  std::size_t planned = 0;
  // n rows of kv_heads × head_dim floats each: row r's head g at k_rows + r ldk + g head_dim.
  void append(const float* k_rows, std::size_t ldk, const float* v_rows, std::size_t ldv,
              std::size_t n, std::size_t kv_heads, std::size_t head_dim);
  // Floats from one head's rows to the next's (kernels::attention_args::k_head_stride).
  std::size_t head_stride() const { return capacity * k.cols(); }
};

// The encoder output's keys and values for a cross-attention sub-layer, computed once: rows
// [0, rows) of k and v, KV·d_h columns each (heads side by side).
struct kv_rows {
  matrix k, v;
  std::size_t rows = 0;
};

// What a decoder layer writes besides its output: its self-attention rows ([H, n, past + n]),
// its cross-attention rows ([H, n, n_source]), its cache (null: none, teacher forcing) and the
// encoder's keys and values for its cross attention.
struct decoder_io {
  float* self_maps = nullptr;
  float* cross_maps = nullptr;
  // A measure of the cross attention (its rows, values and residual, as lc.taps gets the
  // self-attention's; model/seq2seq.h trace_decoder), or null.
  map_taps* cross_taps = nullptr;
  kv_cache* cache = nullptr;
  const kv_rows* memory = nullptr;
};

matrix norm_of(const hf_model& m, const matrix& x, const weight_view* w, const weight_view* b);

// The self-attention sub-layer on its (normalised) input: projections, RoPE, attend_projected
// into this call's maps ([H, n, n], or [H, n, past + n] over a cache the new keys and values are
// appended to), the output projection; q, k, v kept in `probe` when given.
matrix attention_block(layer_context& lc, const attention_weights& w, const matrix& in,
                       float* maps, layer_probe* probe, kv_cache* cache = nullptr);

// Cross attention: queries from `in`, keys and values from `memory` (project_memory of the
// encoder output), maps [H, n, memory.rows] (or, with `taps`, where they say, the rows and the
// values sent to them as a self-attention's go to lc.taps); no mask.
matrix cross_attention_block(layer_context& lc, const attention_weights& w, const matrix& in,
                             const kv_rows& memory, float* maps, map_taps* taps = nullptr);
kv_rows project_memory(layer_context& lc, const attention_weights& w, const matrix& encoder_out);

// The feed-forward sub-layer on its (normalised) input. Rows are independent here, so a long
// input goes through in chunks of mlp_row_chunk rows: its widest products (up and gate, n × d_ff
// each: 1 GiB at 16,384 tokens and d_ff 8192) then take 2 · chunk · d_ff floats.
inline constexpr std::size_t mlp_row_chunk = 4096;
matrix mlp_block(layer_context& lc, const layer_weights& w, const matrix& in);

// A masked-LM head's transform (BERT, RoBERTa, DistilBERT): norm(act(dense(h))).
matrix mlm_transform(const hf_model& m, matrix h);

// The config's activation, in place.
void activate(const hf_model& m, matrix& x);

// Row r of x += row `first + r` of `table` (learned positions), or row `first` for every r when
// same_row (BERT's token type 0). Non-finite weights are refused naming the tensor.
void add_table_rows(matrix& x, const weight_view& table, std::size_t first, bool same_row = false);
// Row r of x += row rows[r] of `table`.
void add_table_rows(matrix& x, const weight_view& table, const std::vector<std::size_t>& rows);

// Rows ids[r] of the token embeddings, as wide as the table (OPT's may be narrower than d;
// first: unused, the families' embed signature).
matrix token_rows(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first = 0);

// The sinusoidal position table of Marian (and the Transformer): for position p, the first
// ⌈d/2⌉ columns j = sin(p / 10000^(2j/d)), the next ⌊d/2⌋ columns ⌈d/2⌉ + j = cos(p /
// 10000^(2j/d)) — halves, not interleaved. rows × d, computed in double.
std::vector<float> sinusoid_table(std::size_t rows, std::size_t d);

// A sliding window of `window` keys (keys i − window < j ≤ i; 0: none) added to the masks of n
// rows at positions [past, past + n): a window rule over the whole sequence (past 0), or for
// one row over the caches (n = 1), the keys the window has left behind as hidden keys.
void add_sliding_window(mask_set& masks, std::size_t window, std::size_t past, std::size_t n);

// Tells the layer's taps (when it has them) how the attention output `out` joins the residual
// stream x (model/map_taps.h: attention_residual), with the norm (nw, nb) the kind names.
void report_residual(const layer_context& lc, const matrix& x, const matrix& out,
                     residual_kind kind, const weight_view* nw = nullptr,
                     const weight_view* nb = nullptr);
// The same to other taps (an encoder–decoder's cross attention: decoder_io::cross_taps).
void report_residual_to(map_taps* taps, const layer_context& lc, const matrix& x, const matrix& out,
                        residual_kind kind, const weight_view* nw = nullptr,
                        const weight_view* nb = nullptr);

// The pre-norm residual block of GPT-2 and the Llama family:
//   x += attention(norm1(x));  x += mlp(norm2(x))
void pre_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe, kv_cache* cache);

// The post-norm block of BERT and OPT-350m (norm2 after attention, norm3 after the MLP):
//   x = norm2(x + attention(x));  x = norm3(x + mlp(x))
void post_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                     layer_probe* probe, kv_cache* cache);

// The parallel block of GPT-NeoX, GPT-J, Phi and Falcon: attention and MLP read the same x,
//   x += attention(norm1(x)) + mlp(norm2(x))     (norm2 = norm1 when the layer has one norm)
void parallel_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe, kv_cache* cache);

}  // namespace attnviz
