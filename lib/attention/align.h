// Stage 2 — alignment functions: a_i· = align(e_i·), row by row.
//
// Shapes: E n_q×n_k (scores) -> A n_q×n_k (weights).
// Contract for every align function (tested for each registry entry):
//   - a row whose entries are all -inf (every key masked) gives an all-zero row;
//   - entries equal to -inf get weight exactly 0;
//   - otherwise each row sums to 1 (within float rounding) with weights in [0, 1];
//   - no NaN for any input without NaN, including ±1e30 and +inf.
#pragma once

#include <cstddef>
#include <vector>

#include "tensor.h"

namespace attnviz {

class param_store;

struct align_options {
  double temperature = 1.0;         // τ > 0
  std::size_t window = 0;           // local-m / local-p: half-width D of the window
  const matrix* queries = nullptr;  // local-p: the queries q_i (n_q × d_q) it predicts p_i from
  param_store* params = nullptr;    // local-p: align.W_p, align.v_p
};

using align_fn = matrix (*)(const matrix& scores, const align_options& options);

// softmax: a_ij = exp((e_ij − m_i)/τ) / Σ_k exp((e_ik − m_i)/τ), m_i = max_k e_ik.
//   If some e_ij = +inf, the weight is shared equally among those entries.
//   align_softmax runs kernels::softmax_rows (one fused vectorised pass per row, float);
//   align_softmax_ref is the plain version: pass 1: row max; pass 2: exp and sum (in
//   double); pass 3: normalise.
matrix align_softmax(const matrix& scores, const align_options& options);
matrix align_softmax_ref(const matrix& scores, const align_options& options);

// hardmax: a_ij = 1 at the first j with the row's largest score, 0 elsewhere.
matrix align_hardmax(const matrix& scores, const align_options& options);

// ---- sparse alignments (align_sparse.cpp) -------------------------------------------------
// sparsemax (Martins & Astudillo 2016): the Euclidean projection of z = e_i·/τ onto the simplex,
//   a_ij = max(z_j − θ, 0) with θ chosen so the row sums to 1. Exact zeros outside the support.
//   align_sparsemax finds θ by threshold search (kernels::sparsemax_threshold); the reference
//   row, kernels::sparsemax_row_ref: pass 1: sort z descending; pass 2: support size
//   k = max{k : 1 + k z_(k) > Σ_{j≤k} z_(j)}, θ = (Σ_{j≤k} z_(j) − 1) / k; pass 3: clip.
matrix align_sparsemax(const matrix& scores, const align_options& options);
// entmax15 (Peters, Niculae, Martins 2019), α = 1.5: a_ij = max(z_j/2 − θ, 0)² with θ such that
//   the row sums to 1 (z = e_i·/τ). Exact, sort-based: with s = z/2 sorted descending, for each
//   k: μ_k = mean(s_1..k), σ²_k = mean(s²_1..k) − μ_k², θ_k = μ_k − sqrt((1 − k σ²_k) / k);
//   the support is the largest k with θ_k ≤ s_k, and θ = θ_k there (kernels::entmax15_row_ref, the
//   reference; align_entmax15 uses kernels::entmax15_threshold, a bisection for the support).
matrix align_entmax15(const matrix& scores, const align_options& options);
// The sort-based rows of both are the kernels' references: kernels::sparsemax_row_ref and
// kernels::entmax15_row_ref (kernels.h).

// ---- local alignments (align_local.cpp; Luong, Pham, Manning 2015) ------------------------
// local-m: monotonic centre p_i = i (scaled to n_k − 1 when n_q ≠ n_k: p_i = i (n_k−1)/(n_q−1)),
//   softmax over the keys |j − p_i| ≤ D; the other keys get exactly 0.
matrix align_local_m(const matrix& scores, const align_options& options);
// local-p: predicted centre p_i = n_k · sigmoid(v_pᵀ tanh(W_p q_i)), the softmax over the window
//   |j − p_i| ≤ D times the Gaussian exp(−(j − p_i)² / (2σ²)), σ = D/2, renormalised so the row
//   sums to 1 (the paper leaves it unnormalised; the shape is the same).
//   Parameters: align.W_p [d_q, d_q], align.v_p [d_q].
matrix align_local_p(const matrix& scores, const align_options& options);
// The centres each uses (for explain and the tests).
std::vector<double> local_m_centres(std::size_t n_q, std::size_t n_k);
std::vector<double> local_p_centres(const matrix& queries, std::size_t n_k, param_store& params);

}  // namespace attnviz
