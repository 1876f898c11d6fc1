// Dense layers over a checkpoint's weights as they are stored:
//   out_in  (torch.nn.Linear: BERT, Llama)  W [out, in]:  y = x Wᵀ + b
//   in_out  (GPT-2's Conv1D)                W [in, out]:  y = x W + b
// through the fast matrix product (kernels::gemm), reading the mapping in place: F16 and BF16
// weights are converted panel by panel while the product packs them (never a whole matrix, never
// the model); quantized weights (GGUF's blocks, [out, in] only) are dequantized a chunk of rows
// at a time the same way (kernels::row_decoder); only F32 weights at an address that is not a
// multiple of 4 are copied first, into a buffer that is reused.
#pragma once

#include <optional>
#include <vector>

#include "model/checkpoint.h"
#include "tensor.h"

namespace attnviz {

enum class linear_layout { out_in, in_out };

class weight_converter {
 public:
  // F32 weights as floats: in place when aligned, else copied into the buffer (valid until the
  // next call).
  const float* floats(const weight_view& w);

 private:
  std::vector<float> buffer_;
};

matrix linear(const matrix& x, const weight_view& w, linear_layout layout, const weight_view* bias,
              weight_converter& conv);

// silu(x Gᵀ) ⊙ (x Uᵀ), a gated MLP's middle (SwiGLU), in one pass over x (kernels::gemm_swiglu):
// G and U [out, in], no biases, rows [gate_row, gate_row + out) and [up_row, up_row + out) of
// their matrices (0 and 0 for Llama's gate_proj and up_proj; 0 and out of Phi-3's fused
// gate_up_proj). nullopt where the weights cannot be read in place that way (F32 at an address
// not a multiple of 4, a quantized half of a fused matrix): two linear() calls and silu_mul then.
std::optional<matrix> swiglu_linear(const matrix& x, const weight_view& gate, std::size_t gate_row,
                                    const weight_view& up, std::size_t up_row, std::size_t out);

// The d_h × d block of W_O that head h's context goes through (x W_O's rows [h·d_h, (h+1)·d_h)),
// into out, from W_O as floats in its stored layout (out_in: [d, heads_width]; in_out:
// [heads_width, d]; heads_width = H·d_h).
void output_head_block(const float* w, linear_layout layout, std::size_t heads_width, std::size_t d,
                       std::size_t head, std::size_t dh, float* out);

// A 1-D tensor (norm weights, biases) as floats.
std::vector<float> vector_of(const weight_view& w);

}  // namespace attnviz
