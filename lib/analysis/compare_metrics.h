// Numbers that compare attention maps row by row (each row a_i· is a distribution over keys).
//
//   entropy        H(a_i) = −Σ_j a_ij log2 a_ij  (bits, 0 log 0 = 0): 0 = all weight on one key,
//                  log2 n_k = uniform
//   max weight     max_j a_ij
//   JS divergence  JS(p, q) = ½ KL(p ‖ m) + ½ KL(q ‖ m), m = ½ (p + q), log base 2: in [0, 1]
//   top-key agreement  [argmax_j p_j = argmax_j q_j] (first index on ties)
//   Spearman ρ     Pearson correlation of the ranks of p and q (tied values share their mean
//                  rank); undefined when either row is constant — such rows are left out
//
// Each is averaged over the rows that are not fully masked (all-zero rows in any of the maps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tensor.h"

namespace attnviz {

double row_entropy_bits(const float* p, std::size_t n);
double js_divergence_bits(const float* p, const float* q, std::size_t n);
std::size_t first_argmax(const float* p, std::size_t n);
// Spearman's ρ; nothing when either row is constant.
std::optional<double> spearman_rho(const float* p, const float* q, std::size_t n);

struct variant_metrics {
  double mean_entropy_bits = 0.0;
  double mean_max_weight = 0.0;
};

struct pair_metrics {
  std::size_t a = 0, b = 0;  // indices into the compared list
  double mean_js_divergence_bits = 0.0;
  double top_key_agreement = 0.0;       // share of rows, in [0, 1]
  std::optional<double> mean_spearman;  // nothing when no row pair was defined
  std::size_t spearman_rows = 0;        // rows that entered the mean
};

struct comparison {
  std::vector<variant_metrics> variants;
  std::vector<pair_metrics> pairs;  // every a < b
};

// All weight matrices must have the same shape. causal (square maps under a causal mask): row i
// is compared over the keys j <= i only (the hidden zeros would tie in every rank and agree in
// every row), and row 0, which has one key and no choice, is left out.
comparison compare_weights(const std::vector<const matrix*>& weights, bool causal = false);

}  // namespace attnviz
