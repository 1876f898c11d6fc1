// Stage 2 — alignment functions: a_i· = align(e_i·), row by row.
//
// Shapes: E n_q×n_k (scores) -> A n_q×n_k (weights).
// Contract for every align function (tested for each registry entry):
//   - a row whose entries are all -inf (every key masked) gives an all-zero row;
//   - entries equal to -inf get weight exactly 0;
//   - otherwise each row sums to 1 (within float rounding) with weights in [0, 1];
//   - no NaN for any input without NaN, including ±1e30 and +inf.
#pragma once

#include "tensor.h"

namespace attnviz {

struct align_options {
  double temperature = 1.0;  // τ > 0
};

using align_fn = matrix (*)(const matrix& scores, const align_options& options);

// softmax: a_ij = exp((e_ij − m_i)/τ) / Σ_k exp((e_ik − m_i)/τ), m_i = max_k e_ik.
//   pass 1: row max; pass 2: exp and sum (in double); pass 3: normalise.
//   If some e_ij = +inf, the weight is shared equally among those entries.
matrix align_softmax(const matrix& scores, const align_options& options);

// hardmax: a_ij = 1 at the first j with the row's largest score, 0 elsewhere.
matrix align_hardmax(const matrix& scores, const align_options& options);

}  // namespace attnviz
