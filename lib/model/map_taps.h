// Where a forward's attention maps go when the run does not keep them all. model_forward's
// `attention` holds every layer's every head ([layers, heads, n, n]: L·H·n² floats, 32 GiB for
// 16 layers × 32 heads at 4,096 tokens); with taps, each head's map is either kept where the
// taps say (map_of) or never stored, and every head's rows go to the taps as the fused kernel
// finishes them (rows), so files, column sums and statistics grow with what a run asks for,
// not with L·H·n².
#pragma once

#include <cstddef>
#include <vector>

#include "model/checkpoint.h"
#include "model/linear.h"

namespace attnviz {

// What a layer's self-attention hands the taps besides its weights, for the measures that weigh
// the values (lib/measures/): the value rows the heads mixed and the output projection they go
// through. v: n_k rows of kv_heads · head_dim (biases included; query head h reads key/value
// head h / (heads / kv_heads)), row stride ldv; o: W_O as stored, [d, heads · head_dim]
// (out_in) or [heads · head_dim, d] (in_out); out_scale: a layer scale λ [d] the projection's
// output is multiplied by before the residual add (DINOv2), or null. Valid only during the call.
struct attention_values {
  std::size_t layer = 0, heads = 0, kv_heads = 0, head_dim = 0, n_k = 0;
  const float* v = nullptr;
  std::size_t ldv = 0;
  const weight_view* o = nullptr;
  linear_layout layout = linear_layout::out_in;
  const weight_view* out_scale = nullptr;
};

// W_O as floats in its stored layout, each output dimension k times out_scale[k] when there is
// one (λ_k · (v W_O)_k = v (W_O λ)_k): what the value-weighing measures multiply the values by.
std::vector<float> output_projection(const attention_values& p);

// How a layer's attention output joins the residual stream, for the measures that follow the
// residual and the norms (lib/measures/contrib.cpp). x: the stream entering the attention
// sublayer (n × d: the layer's input); out: the attention's output o_i = context_i W_O + b_O
// (n × d). The sublayer's result y_i:
//   add            y_i = x_i + o_i        pre-norm blocks (GPT-2, Llama …; the attention read
//                                         N(x_i)) and parallel ones (GPT-J, NeoX, Phi, Falcon:
//                                         their MLP reads x_i alone and is left out)
//   norm_of_sum    y_i = N(x_i + o_i)     post-norm blocks (BERT, RoBERTa, DistilBERT, OPT-350m)
//   add_norm_of    y_i = x_i + N(o_i)     Gemma 2 and 3's norm after the attention
// N(z) = γ ⊙ (z − mean z) / √(var z + ε) + β (a layer norm), or γ ⊙ z / √(mean z² + ε) (an RMS
// norm: `rms`, no β; Gemma's stored w given as its scale 1 + w). Valid only during the call.
enum class residual_kind { add, norm_of_sum, add_norm_of };
struct attention_residual {
  std::size_t layer = 0, n = 0, d = 0;
  const float* x = nullptr;
  const float* out = nullptr;
  residual_kind kind = residual_kind::add;
  std::vector<float> gamma, beta;  // N's (empty for `add`; beta empty for an RMS norm)
  bool rms = false;
  double eps = 0.0;
};

class map_taps {
 public:
  virtual ~map_taps() = default;
  // Where head h of layer l keeps its n × n map (written whole by the kernel, masked entries
  // 0), or null: not kept. Asked once per layer and head, before the layer's attention runs.
  virtual float* map_of(std::size_t layer, std::size_t head) = 0;
  // Rows [i0, i0 + rows) of head h's map of layer `layer` (rows × n, row-major, each row
  // summing to 1, masked entries 0), each row exactly once. Called from the kernel's threads,
  // several at once for different (head, i0); omp_get_thread_num() tells them apart. Must not
  // throw (it runs inside a parallel region): record a failure and report it in layer_done.
  virtual void rows(std::size_t layer, std::size_t head, std::size_t i0, std::size_t rows,
                    const float* weights, std::size_t n) noexcept = 0;
  // The layer's input before its block runs (n × d, row-major), for taps that need it again
  // (rerun_layer). Nothing by default.
  virtual void layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) {
    (void)layer, (void)x, (void)n, (void)d;
  }
  // The layer's values and output projection, after every head has sent its rows and before
  // layer_done (one thread). Nothing by default. May throw.
  virtual void values(const attention_values& parts) { (void)parts; }
  // The attention output and how it joins the residual stream, after values() and before
  // layer_done (one thread). Nothing by default. May throw.
  virtual void residual(const attention_residual& parts) { (void)parts; }
  // After every head of the layer has sent its rows (one thread). May throw.
  virtual void layer_done(std::size_t layer) = 0;
};

}  // namespace attnviz
