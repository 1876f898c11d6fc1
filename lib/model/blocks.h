// The pieces of a Transformer block around attention, on an n × d activation. Each has a plain
// serial reference in double (the _ref functions) and a fast version through the vectorised,
// threaded kernels (kernels::layer_norm_rows, …; tests/unit/kernels/test_elementwise compares
// them):
//
//   layer_norm   y = (x − mean(x)) / √(var(x) + ε) · γ + β          per row, in double
//   rms_norm     y = x / √(mean(x²) + ε) · w                        per row, in double
//   gelu_tanh    y = ½ x (1 + tanh(√(2/π) (x + 0.044715 x³)))       GPT-2's gelu_new
//   gelu_erf     y = ½ x (1 + erf(x / √2))                          BERT's gelu
//   silu_gate    g = g / (1 + e^−g) · u                             SwiGLU's middle (Llama)
//   silu         y = x / (1 + e^−x)                                 SiLU / swish
//   relu         y = max(x, 0)
//   multiply     g = g ⊙ u                                          a gated MLP's product
#pragma once

#include <cstddef>
#include <vector>

#include "tensor.h"

namespace attnviz {

// The references. In place on every row of x; gamma and beta have x.cols() entries (beta may be
// empty: 0).
void layer_norm_ref(matrix& x, const std::vector<float>& gamma, const std::vector<float>& beta,
                    double eps);
matrix rms_norm_ref(const matrix& x, const std::vector<float>& weight, double eps);
void gelu_tanh_ref(matrix& x);
void gelu_erf_ref(matrix& x);
// gate = silu(gate) ⊙ up, element by element (same shape).
void silu_gate_ref(matrix& gate, const matrix& up);
void silu_ref(matrix& x);
void relu_ref(matrix& x);

// The fast versions. The norms return a new matrix, x unchanged.
matrix layer_norm_of(const matrix& x, const std::vector<float>& gamma,
                     const std::vector<float>& beta, double eps);
matrix rms_norm_of(const matrix& x, const std::vector<float>& weight, double eps);
void gelu_tanh(matrix& x);
void gelu_erf(matrix& x);
void silu_gate(matrix& gate, const matrix& up);
void silu(matrix& x);
void relu(matrix& x);
// gate ⊙= up, element by element (same shape).
void multiply_in_place(matrix& gate, const matrix& up);

// x += y, element by element (same shape): the residual connections.
void add_in_place(matrix& x, const matrix& y);

}  // namespace attnviz
