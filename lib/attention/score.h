// Stage 1 — score functions: e_ij = score(q_i, k_j).
//
// Shapes: Q n_q×d_q (queries, one per row), K n_k×d_k (keys), E n_q×n_k.
// Each score_<name>(const score_inputs&) fetches its parameters from the store (file or seed)
// and computes with the fast kernels (kernels/kernels.h): dot, scaled_dot and general as
// blocked matrix products, additive and concat with the vectorised tanh reduction. The plain
// kernels below take every parameter explicitly and are the references the tests compare
// them with (cosine, location and relative use their plain kernel directly).
// Parameter names and layouts are the weights-file contract (ARCHITECTURE.md).
#pragma once

#include <cstddef>
#include <vector>

#include "params/param_store.h"
#include "tensor.h"

namespace attnviz {

struct score_inputs {
  const matrix& queries;  // Q: n_q × d_q
  const matrix& keys;     // K: n_k × d_k
  param_store& params;
  std::size_t d_a = 0;   // hidden size of additive / concat; 0 means d_k
  double sharpen = 1.0;  // cosine's β
};

using score_fn = matrix (*)(const score_inputs&);

// dot:         e_ij = q_i · k_j                              (needs d_q = d_k)
matrix score_dot(const score_inputs& in);
// scaled_dot:  e_ij = q_i · k_j / sqrt(d_k)
matrix score_scaled_dot(const score_inputs& in);
// general:     e_ij = q_iᵀ W k_j,            score.W: [d_q, d_k]
matrix score_general(const score_inputs& in);
// additive:    e_ij = vᵀ tanh(W_q q_i + W_k k_j + b),
//              score.W_q: [d_a, d_q], score.W_k: [d_a, d_k], score.v: [d_a], score.b: [d_a]
matrix score_additive(const score_inputs& in);
// concat:      e_ij = vᵀ tanh(W [q_i ; k_j]),  score.W: [d_a, d_q + d_k], score.v: [d_a]
matrix score_concat(const score_inputs& in);
// cosine:      e_ij = β · q_i·k_j / (|q_i| |k_j|)  (0 when either vector is zero)
matrix score_cosine(const score_inputs& in);
// location:    e_ij = (W q_i)_j — one score per key position, blind to key content,
//              score.W: [n_max, d_q] with n_max >= n_k (seeded: n_max = n_k)
matrix score_location(const score_inputs& in);
// relative:    Transformer-XL, e_ij = q_i·k_j + q_i·(W_R r_{i−j}) + u·k_j + w·(W_R r_{i−j})
//              (content, content-position, global content bias, global position bias),
//              r_{i−j} = sinusoid(i − j) of size d_k (positional.h), needs d_q = d_k;
//              score.W_R [d_k, d_k], score.u [d_k], score.w [d_k]
matrix score_relative(const score_inputs& in);

// Explicit parameters. The _ref ones are the plain references (serial, double accumulation) of
// what score_general / score_additive / score_concat compute with the fast kernels; cosine,
// location and relative have no fast version and are what their score functions run.
matrix general_scores_ref(const matrix& q, const matrix& k, const matrix& w);
matrix additive_scores_ref(const matrix& q, const matrix& k, const matrix& w_q,
                           const matrix& w_k, const std::vector<float>& v,
                           const std::vector<float>& b);
matrix concat_scores_ref(const matrix& q, const matrix& k, const matrix& w,
                         const std::vector<float>& v);
matrix cosine_scores(const matrix& q, const matrix& k, double sharpen);
matrix location_scores(const matrix& q, std::size_t n_k, const matrix& w);
matrix relative_scores(const matrix& q, const matrix& k, const matrix& w_r,
                       const std::vector<float>& u, const std::vector<float>& w);

}  // namespace attnviz
