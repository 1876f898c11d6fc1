// Stage 3 — context functions: c_i = context(a_i·, V).
//
// Shapes: A n_q×n_k (weights), V n_k×d_v (values) -> C n_q×d_v.
#pragma once

#include <cstdint>
#include <vector>

#include "enum_names.h"
#include "tensor.h"

namespace attnviz {

enum class hard_mode { sample, argmax };
inline constexpr named<hard_mode> hard_mode_names[] = {{"sample", hard_mode::sample},
                                                       {"argmax", hard_mode::argmax}};

struct context_options {
  hard_mode hard = hard_mode::sample;
  std::uint64_t seed = 0;
};

struct context_output {
  matrix context;           // C: n_q × d_v
  std::vector<int> chosen;  // hard: j* per query (-1 for an all-zero row); soft: empty
};

using context_fn = context_output (*)(const matrix& weights, const matrix& values,
                                      const context_options& options);

// soft: c_i = Σ_j a_ij v_j   (C = A V; kernels::matmul_nn, reference: matmul_nn_ref)
context_output context_soft(const matrix& weights, const matrix& values,
                            const context_options& options);

// hard: c_i = v_{j*}; j* drawn from the distribution a_i· (sample, seeded: stream
//       splitmix64(seed XOR fnv1a64("context.hard")), one uniform u per row, j* = the first j
//       whose running sum of a_i· exceeds u · Σ_j a_ij) or j* = first argmax_j a_ij (argmax).
context_output context_hard(const matrix& weights, const matrix& values,
                            const context_options& options);

}  // namespace attnviz
