// Where a forward's attention maps go when the run does not keep them all. model_forward's
// `attention` holds every layer's every head ([layers, heads, n, n]: L·H·n² floats, 32 GiB for
// 16 layers × 32 heads at 4,096 tokens); with taps, each head's map is either kept where the
// taps say (map_of) or never stored, and every head's rows go to the taps as the fused kernel
// finishes them (rows), so files, column sums and statistics grow with what a run asks for,
// not with L·H·n².
#pragma once

#include <cstddef>

#include "model/checkpoint.h"
#include "model/linear.h"

namespace attnviz {

// What a layer's self-attention hands the taps besides its weights, for the measures that weigh
// the values (lib/measures/): the value rows the heads mixed and the output projection they go
// through. v: n_k rows of kv_heads · head_dim (biases included; query head h reads key/value
// head h / (heads / kv_heads)), row stride ldv; o: W_O as stored, [d, heads · head_dim]
// (out_in) or [heads · head_dim, d] (in_out). Valid only during the call.
struct attention_values {
  std::size_t layer = 0, heads = 0, kv_heads = 0, head_dim = 0, n_k = 0;
  const float* v = nullptr;
  std::size_t ldv = 0;
  const weight_view* o = nullptr;
  linear_layout layout = linear_layout::out_in;
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
  // After every head of the layer has sent its rows (one thread). May throw.
  virtual void layer_done(std::size_t layer) = 0;
};

}  // namespace attnviz
