#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "attention/align.h"
#include "kernels/kernels.h"

namespace attnviz {
namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

// Applies a row function to z = e_i·/τ for every row (masked entries stay -inf).
matrix by_rows(const matrix& scores, double temperature,
               void (*row_fn)(const double*, double*, std::size_t)) {
  const std::size_t n_k = scores.cols();
  matrix a(scores.rows(), n_k);
  std::vector<double> z(n_k), p(n_k);
  for (std::size_t i = 0; i < scores.rows(); ++i) {
    for (std::size_t j = 0; j < n_k; ++j) z[j] = static_cast<double>(scores(i, j)) / temperature;
    row_fn(z.data(), p.data(), n_k);
    for (std::size_t j = 0; j < n_k; ++j) a(i, j) = static_cast<float>(p[j]);
  }
  return a;
}

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

void sparsemax_row(const double* z, double* p, std::size_t n) {
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

void entmax15_row(const double* z, double* p, std::size_t n) {
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

matrix align_sparsemax(const matrix& scores, const align_options& o) {
  return by_rows(scores, o.temperature, kernels::sparsemax_threshold);
}

matrix align_entmax15(const matrix& scores, const align_options& o) {
  return by_rows(scores, o.temperature, kernels::entmax15_threshold);
}

}  // namespace attnviz
