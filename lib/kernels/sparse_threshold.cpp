// Sparse alignments by threshold search (the references sort each row: sparse_ref.cpp).
//
// Shapes: one row z of n scores (−inf = masked) -> p (n), Σ p = 1, exact zeros off the support.
//   sparsemax  p_j = max(z_j − θ, 0)            with θ such that Σ p = 1
//   entmax15   p_j = max(z_j/2 − θ, 0)²         idem
// Both work on y = z − max z (so huge scores stay exact relative to each other).
//
// sparsemax (Michelot's algorithm): θ_0 = (Σ_all y − 1)/n; then repeatedly S = {j : y_j > θ},
//   θ = (Σ_S y − 1)/|S|. θ only grows and S only shrinks, and it stops when S is unchanged, at
//   the exact θ — a few O(n) passes instead of an O(n log n) sort.
// entmax15: s = y/2 and f(τ) = Σ max(s_j − τ, 0)² − 1 decreases on [−1, 0] from f(−1) >= 0 to
//   f(0) = −1. Bisection narrows [lo, hi] until no s_j lies in (lo, hi]; then the support
//   S = {s_j > hi} is known and θ is exact: with k = |S|, μ = mean s_S, σ² = mean s_S² − μ²,
//   θ = μ − sqrt((1 − k σ²)/k). If rounding ever leaves the bisection undecided after 100
//   halvings, the sort-based row decides.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace attnviz::kernels {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// Handles the rows with no finite maximum; returns true if p is complete. Sets top otherwise.
bool special_row(const double* z, double* p, std::size_t n, double& top) {
  std::size_t n_inf = 0;
  top = -inf;
  for (std::size_t j = 0; j < n; ++j) {
    if (z[j] == inf) ++n_inf;
    if (z[j] != inf) top = std::max(top, z[j]);
  }
  std::fill(p, p + n, 0.0);
  if (n_inf > 0) {
    for (std::size_t j = 0; j < n; ++j) p[j] = z[j] == inf ? 1.0 / static_cast<double>(n_inf) : 0.0;
    return true;
  }
  return top == -inf;  // every key masked: zeros
}

}  // namespace

void sparsemax_threshold(const double* z, double* p, std::size_t n) {
  double top = 0.0;
  if (special_row(z, p, n, top)) return;
  double sum = 0.0;
  std::size_t count = 0;
  for (std::size_t j = 0; j < n; ++j)
    if (z[j] != -inf) {
      sum += z[j] - top;
      ++count;
    }
  double theta = (sum - 1.0) / static_cast<double>(count);
  for (;;) {
    double s_sum = 0.0;
    std::size_t s_count = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (z[j] - top > theta) {  // −inf never is
        s_sum += z[j] - top;
        ++s_count;
      }
    const double next = (s_sum - 1.0) / static_cast<double>(s_count);
    const bool settled = s_count == count;
    count = s_count;
    theta = next;
    if (settled) break;
  }
  double total = 0.0;
  for (std::size_t j = 0; j < n; ++j)
    if (z[j] != -inf) total += p[j] = std::max(z[j] - top - theta, 0.0);
  for (std::size_t j = 0; j < n; ++j) p[j] /= total;
}

void entmax15_threshold(const double* z, double* p, std::size_t n) {
  double top = 0.0;
  if (special_row(z, p, n, top)) return;
  for (std::size_t j = 0; j < n; ++j) p[j] = (z[j] - top) / 2.0;  // s, in p (−inf stays −inf)
  // one pass: f(τ) + 1 and how many s_j exceed τ
  auto measure = [&](double t, std::size_t& count) {
    double f = 0.0;
    std::size_t c = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const double d = std::max(p[j] - t, 0.0);
      f += d * d;
      c += d > 0.0;
    }
    count = c;
    return f;
  };
  double lo = -1.0, hi = 0.0;  // f(lo) >= 0 > f(hi)
  std::size_t count_lo = 0, count_hi = 0;
  measure(lo, count_lo);
  measure(hi, count_hi);
  for (std::size_t iterations = 0; count_lo != count_hi; ++iterations) {
    if (iterations == 100) {
      entmax15_row_ref(z, p, n);
      return;
    }
    const double mid = 0.5 * (lo + hi);
    std::size_t count_mid = 0;
    if (measure(mid, count_mid) >= 1.0) {
      lo = mid;
      count_lo = count_mid;
    } else {
      hi = mid;
      count_hi = count_mid;
    }
  }
  double sum = 0.0, sum_sq = 0.0;
  for (std::size_t j = 0; j < n; ++j)
    if (p[j] > hi) {
      sum += p[j];
      sum_sq += p[j] * p[j];
    }
  const double kk = static_cast<double>(count_hi);
  const double mean = sum / kk, var = sum_sq / kk - mean * mean;
  const double theta = mean - std::sqrt(std::max((1.0 - kk * var) / kk, 0.0));
  double total = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double t = std::max(p[j] - theta, 0.0);
    total += p[j] = t * t;
  }
  for (std::size_t j = 0; j < n; ++j) p[j] /= total;
}

}  // namespace attnviz::kernels
