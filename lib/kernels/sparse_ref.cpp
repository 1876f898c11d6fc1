// The sort-based references of the sparse alignments (kernels.h: sparsemax_row_ref,
// entmax15_row_ref): plain, serial, exact; sparse_threshold.cpp's threshold searches are checked
// against them, and entmax15_threshold falls back to its row when bisection cannot decide.
//
// sparsemax: pass 1: sort z descending; pass 2: support size k = max{k : 1 + k z_(k) > Σ_{j≤k}
//   z_(j)}, θ = (Σ_{j≤k} z_(j) − 1) / k; pass 3: p_j = max(z_j − θ, 0).
// entmax15: with s = z/2 sorted descending, for each k: μ_k = mean(s_1..k), σ²_k = mean(s²_1..k)
//   − μ_k², θ_k = μ_k − sqrt((1 − k σ²_k) / k); the support is the largest k with θ_k ≤ s_k,
//   θ = θ_k there, p_j = max(z_j/2 − θ, 0)².
// Both shift by max z first, so huge scores stay exact relative to each other; +inf entries
// share the row equally; a row with every entry −inf (masked) is all zeros.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "kernels/kernels.h"

namespace attnviz::kernels {
namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

// The finite entries of z, sorted descending; +inf entries are counted separately.
std::vector<double> sorted_support(const double* z, std::size_t n, std::size_t& n_pos_inf) {
  std::vector<double> s;
  n_pos_inf = 0;
  for (std::size_t j = 0; j < n; ++j) {
    if (z[j] == std::numeric_limits<double>::infinity())
      ++n_pos_inf;
    else if (z[j] != neg_inf)
      s.push_back(z[j]);
  }
  std::sort(s.begin(), s.end(), std::greater<double>());
  return s;
}

// Shares the row equally among +inf entries (the limit of both maps); true if it did.
bool infinite_row(const double* z, double* p, std::size_t n, std::size_t n_pos_inf) {
  if (n_pos_inf == 0) return false;
  for (std::size_t j = 0; j < n; ++j)
    p[j] = z[j] == std::numeric_limits<double>::infinity() ? 1.0 / static_cast<double>(n_pos_inf)
                                                           : 0.0;
  return true;
}

}  // namespace

void sparsemax_row_ref(const double* z, double* p, std::size_t n) {
  std::size_t n_inf = 0;
  const std::vector<double> s = sorted_support(z, n, n_inf);
  std::fill(p, p + n, 0.0);
  if (infinite_row(z, p, n, n_inf) || s.empty()) return;  // empty: every key masked
  // shift by the max so huge scores stay exact relative to each other
  const double top = s[0];
  double cumulative = 0.0, theta = 0.0;
  for (std::size_t k = 1; k <= s.size(); ++k) {
    cumulative += s[k - 1] - top;
    if (1.0 + static_cast<double>(k) * (s[k - 1] - top) > cumulative)
      theta = (cumulative - 1.0) / static_cast<double>(k);
    else
      break;
  }
  double sum = 0.0;
  for (std::size_t j = 0; j < n; ++j)
    if (z[j] != neg_inf) sum += p[j] = std::max(z[j] - top - theta, 0.0);
  for (std::size_t j = 0; j < n; ++j) p[j] /= sum;  // exact already; removes rounding drift
}

void entmax15_row_ref(const double* z, double* p, std::size_t n) {
  std::size_t n_inf = 0;
  std::vector<double> s = sorted_support(z, n, n_inf);
  std::fill(p, p + n, 0.0);
  if (infinite_row(z, p, n, n_inf) || s.empty()) return;
  const double top = s[0];
  for (auto& v : s) v = (v - top) / 2.0;  // s = (z − max z)/2: same weights, no overflow
  double sum = 0.0, sum_sq = 0.0, theta = 0.0;
  for (std::size_t k = 1; k <= s.size(); ++k) {
    sum += s[k - 1];
    sum_sq += s[k - 1] * s[k - 1];
    const double kk = static_cast<double>(k);
    const double mean = sum / kk;
    const double var = sum_sq / kk - mean * mean;
    const double theta_k = mean - std::sqrt(std::max((1.0 - kk * var) / kk, 0.0));
    if (theta_k <= s[k - 1])
      theta = theta_k;
    else
      break;
  }
  double total = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    if (z[j] == neg_inf) continue;
    const double t = std::max((z[j] - top) / 2.0 - theta, 0.0);
    total += p[j] = t * t;
  }
  for (std::size_t j = 0; j < n; ++j) p[j] /= total;
}

}  // namespace attnviz::kernels
