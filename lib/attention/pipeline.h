// The spine: inputs -> (projections) -> stage 1 score -> stage 2 align -> stage 3 context.
//
// Structures:
//   self   Q = K = V = X (one sentence). Without projections the map is raw similarity of
//          the embeddings; with `project`, Q = X W_Qᵀ, K = X W_Kᵀ, V = X W_Vᵀ first.
//   cross  queries from the target sentence, keys and values from the source sentence.
//   Values may come from a third sequence (memory: keys ≠ values) or, ConvS2S-style, be the
//   keys plus the input embeddings (v_j = z_j + e_j).
//
// Positions (positional.h): sinusoidal is added to the inputs, rope rotates each head's q and k,
// alibi adds −m_h|i − j| to each head's scores (before masks).
//
// Speed: scaled_dot / dot with softmax and the soft context (the common case) runs every head
// through one fused kernel (kernels::attention_softmax: scores, masks, softmax and A V per block
// of query rows while it is in cache); every other combination runs stage by stage, each stage
// on its fast kernel. Both give the same numbers as the plain references to within float
// rounding (tests/unit/test_kernels.cpp).
//
// Heads: spec.heads = 0 is one attention without an output projection (the classic seq2seq
// view). spec.heads = H >= 1 is multi-head attention (Vaswani 2017): projections of H·d_k rows,
// head h reads rows [h d_k, (h+1) d_k) of each, its own score / align parameters under
// "heads.h." when H > 1, and the heads' contexts are combined by W^O:
//   concat    output = [C_1 … C_H] W^Oᵀ + b                      (out_proj.weight [d, H d_v])
//   weighted  output = Σ_h κ_h C_h W_hᵀ + b, W_h = columns of W^O for head h,
//             κ = combine.kappa / Σ combine.kappa                  (Ahmed et al. 2017)
// Projection parameters (torch.nn.Linear layout [out, in]): q_proj.weight [H d_k, d],
// k_proj.weight [H d_k, d], v_proj.weight [H d_v, d], optional q_proj.bias … ; or the packed
// torch.nn.MultiheadAttention form in_proj_weight [3d, d] (+ in_proj_bias [3d]) with
// H d_k = H d_v = d; then out_proj.weight [d, d] and out_proj.bias [d] as torch saves them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention/context.h"
#include "attention/mask.h"
#include "attention/positional.h"
#include "enum_names.h"
#include "kernels/kernels.h"
#include "params/param_store.h"
#include "tensor.h"

namespace attnviz {

enum class attention_structure { self, cross };
enum class head_combine { concat, weighted };
inline constexpr named<head_combine> head_combine_names[] = {{"concat", head_combine::concat},
                                                             {"weighted", head_combine::weighted}};
enum class value_source { keys, separate, convs2s };  // v_j = k_j's input, another input, z_j + e_j

struct attention_spec {
  std::string score = "scaled_dot";
  std::string align = "softmax";
  std::string context = "soft";
  double temperature = 1.0;
  hard_mode hard = hard_mode::sample;
  bool project = false;
  std::size_t heads = 0;  // 0: single attention, no W^O; H >= 1: multi-head (see above)
  head_combine combine = head_combine::concat;
  position_scheme position = position_scheme::none;
  double alibi_slope = 0.0;  // m of the first head (0: 2^(−8/H))
  bool convs2s = false;      // values v_j = z_j + e_j
  std::size_t d_k = 0;       // per-head projection size (0: d / H); also d_v
  std::size_t d_a = 0;       // additive / concat hidden size (0: d_k)
  double sharpen = 1.0;      // cosine β
  std::size_t window = 0;    // local-m / local-p half-width D
  mask_set masks;            // applied to the scores before alignment
  std::uint64_t seed = 0;    // hard-context sampling (parameters come from the param_store)
  bool keep_scores = true;   // false: head_result.scores stays empty (saves an n_q × n_k map)
};

struct attention_input {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> query_tokens;
  std::vector<std::string> key_tokens;
  matrix queries;  // n_q × d, raw embeddings of the query tokens
  matrix keys;     // n_k × d, raw embeddings of the key tokens
  matrix values;   // n_k × d (the same rows as keys unless a structure says otherwise)
  std::vector<std::string> value_tokens;  // memory view: the tokens of `values` (empty: keys)
};

struct head_result {
  matrix scores;                  // E: n_q × n_k, before masking (empty unless keep_scores)
  matrix weights;                 // A: n_q × n_k
  matrix context;                 // C: n_q × d_v
  std::vector<int> chosen_keys;   // hard context only: j* per query (-1: none)
  std::vector<bool> masked_rows;  // rows with every key masked (zero weights and context)
  std::vector<bool> masked;       // n_q·n_k row-major: true where a mask hid the key (empty: none)
  double alibi_slope = 0.0;       // alibi: the m_h this head used
};

struct attention_result {
  attention_structure structure = attention_structure::self;
  std::vector<std::string> query_tokens;
  std::vector<std::string> key_tokens;
  attention_spec spec;                    // with canonical stage names
  std::vector<std::string> value_tokens;  // memory view only
  value_source values = value_source::keys;
  std::size_t d_model = 0, d_k = 0, d_v = 0;  // d_k, d_v per head
  std::vector<head_result> heads;
  matrix output;                   // multi-head: n_q × d_model (empty otherwise)
  std::vector<double> head_share;  // weighted combination: κ_h (empty otherwise)
  // Wall-clock seconds per stage, in order: "project", then "attend" (the fused kernel) or
  // "score", "align", "context" (summed over heads), then "combine" with heads (for bench).
  std::vector<std::pair<std::string, double>> stage_seconds;
  bool multihead() const noexcept { return spec.heads > 0; }
};

// Streaming: run_attention with a sink hands each head's weights over in blocks of query rows
// as soon as they are final, instead of keeping the n_q × n_k maps. Memory then stays
// O((n_q + n_k)·d) plus the sink's own; every row still sees every key, so each softmax row is
// exact. The results keep contexts and output; weights and scores stay empty, and masked_rows
// is set (masked is not). Only variants whose rows do not depend on the query's index stream
// (registry: row_local); others are a usage_error.
class weights_sink {
 public:
  virtual ~weights_sink() = default;
  // Rows [i0, i0 + rows) of head h's weights (rows × n_k, row-major). Called from several
  // threads at once, each time for a different (head, i0); every row arrives exactly once.
  virtual void consume(std::size_t head, std::size_t i0, std::size_t rows, const float* weights,
                       std::size_t n_k) = 0;
};

enum class head_aggregate { mean, max };
// Element-wise mean or max of the heads' weights (or scores) — the "all heads" map.
matrix aggregate_heads(const attention_result& r, head_aggregate how, bool scores = false);

// Throws usage_error for a bad spec (unknown names, τ <= 0, …) and input_error for
// parameters that are missing or misshapen in a weights file.
attention_result run_attention(const attention_input& input, const attention_spec& spec,
                               param_store& params, weights_sink* sink = nullptr);

// A model's attention layer between its projections (the model command): stages 1-3 — scaled
// dot 1/√d, the spec's masks (causal, window, padding), softmax, soft context — for H query heads
// over KV key/value heads, through the fused kernel. Grouped-query attention: query head h uses
// key/value head h / (H / KV).
//   q        n_q rows, head h in columns [h d, (h+1) d), stride ldq
//   k, v     n_k rows, key/value head g in columns [g d, (g+1) d), strides ldk, ldv
//   weights  weights[h]: head h's n_q × n_k map
//   context  n_q rows (stride ldc), head h's context in columns [h d, (h+1) d)
//   scale    the scores' factor (0: 1/√d; T5 multiplies by 1)
//   bias     per head an n_q × n_k matrix added to the scaled scores (T5's relative positions),
//            or none
struct projected_attention {
  std::size_t heads = 1, kv_heads = 1, n_q = 0, n_k = 0, d = 0;
  double scale = 0.0;
  const float* const* bias = nullptr;
  double soft_cap = 0.0;  // > 0: scores capped as cap · tanh(s / cap) (Gemma 2)
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  std::size_t ldq = 0, ldk = 0, ldv = 0;
  std::size_t k_head_stride = 0, v_head_stride = 0;  // kernels::attention_args's
  float* const* weights = nullptr;  // a null entry: that head's map is not stored
  float* context = nullptr;
  std::size_t ldc = 0;
  // Optional: every head's rows, as the kernel finishes them (kernels::attention_args)
  kernels::rows_sink_fn rows_sink = nullptr;
  void* sink_context = nullptr;
};
// Throws input_error naming `source` (the weights) when a score overflows the float range.
void attend_projected(const projected_attention& a, const attention_spec& spec,
                      const std::string& source);

std::string_view structure_name(attention_structure s);

// The size of each head's queries and keys: spec.d_k when set, else d_model / heads when the
// inputs are projected (--project or several heads), else d_model itself.
std::size_t key_size(const attention_spec& spec, std::size_t d_model);
// The size of each head's context vectors: d_k when it is set and the inputs are projected
// (--project or several heads), else the values' own width.
std::size_t value_size(const attention_spec& spec, std::size_t value_cols);

}  // namespace attnviz
