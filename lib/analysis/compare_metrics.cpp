#include "analysis/compare_metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace attnviz {
namespace {

bool all_zero(const float* p, std::size_t n) {
  return std::all_of(p, p + n, [](float x) { return x == 0.0f; });
}

// Ranks 1..n; ties get the mean of the ranks they span.
std::vector<double> ranks(const float* p, std::size_t n) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> r(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && p[order[j + 1]] == p[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

}  // namespace

double row_entropy_bits(const float* p, std::size_t n) {
  double h = 0.0;
  for (std::size_t j = 0; j < n; ++j)
    if (p[j] > 0.0f) h -= p[j] * std::log2(static_cast<double>(p[j]));
  return std::max(0.0, h);
}

double js_divergence_bits(const float* p, const float* q, std::size_t n) {
  double js = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double m = 0.5 * (static_cast<double>(p[j]) + q[j]);
    if (p[j] > 0.0f) js += 0.5 * p[j] * std::log2(p[j] / m);
    if (q[j] > 0.0f) js += 0.5 * q[j] * std::log2(q[j] / m);
  }
  return std::clamp(js, 0.0, 1.0);
}

std::size_t first_argmax(const float* p, std::size_t n) {
  return static_cast<std::size_t>(std::max_element(p, p + n) - p);
}

std::optional<double> spearman_rho(const float* p, const float* q, std::size_t n) {
  if (n < 2) return std::nullopt;
  const auto rp = ranks(p, n), rq = ranks(q, n);
  const double mean = (static_cast<double>(n) + 1.0) / 2.0;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxy += (rp[i] - mean) * (rq[i] - mean);
    sxx += (rp[i] - mean) * (rp[i] - mean);
    syy += (rq[i] - mean) * (rq[i] - mean);
  }
  if (sxx == 0.0 || syy == 0.0) return std::nullopt;
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

comparison compare_weights(const std::vector<const matrix*>& weights, bool causal) {
  comparison out;
  if (weights.empty()) return out;
  const std::size_t n_q = weights[0]->rows(), n_k = weights[0]->cols();
  for (const auto* w : weights)
    if (w->rows() != n_q || w->cols() != n_k)
      throw std::logic_error("compare_weights: matrices of different shapes");
  if (causal && n_q != n_k) throw std::logic_error("compare_weights: a causal map is square");
  // the keys row i compares: all, or j <= i (row 0, which has no choice, left out)
  auto keys = [&](std::size_t i) { return causal ? i + 1 : n_k; };
  auto counted = [&](const matrix* w, std::size_t i) {
    return !(causal && i == 0) && !all_zero(w->row(i), keys(i));
  };
  auto live = [&](std::size_t i) {
    return std::all_of(weights.begin(), weights.end(),
                       [&](const matrix* w) { return counted(w, i); });
  };
  for (const auto* w : weights) {
    variant_metrics m;
    std::size_t rows = 0;
    for (std::size_t i = 0; i < n_q; ++i) {
      if (!counted(w, i)) continue;
      m.mean_entropy_bits += row_entropy_bits(w->row(i), keys(i));
      m.mean_max_weight += *std::max_element(w->row(i), w->row(i) + keys(i));
      ++rows;
    }
    if (rows)
      m.mean_entropy_bits /= static_cast<double>(rows),
          m.mean_max_weight /= static_cast<double>(rows);
    out.variants.push_back(m);
  }
  for (std::size_t a = 0; a < weights.size(); ++a)
    for (std::size_t b = a + 1; b < weights.size(); ++b) {
      pair_metrics pm;
      pm.a = a;
      pm.b = b;
      std::size_t rows = 0;
      double rho_sum = 0.0;
      for (std::size_t i = 0; i < n_q; ++i) {
        if (!live(i)) continue;
        const float* p = weights[a]->row(i);
        const float* q = weights[b]->row(i);
        const std::size_t k = keys(i);
        pm.mean_js_divergence_bits += js_divergence_bits(p, q, k);
        pm.top_key_agreement += first_argmax(p, k) == first_argmax(q, k) ? 1.0 : 0.0;
        if (const auto rho = spearman_rho(p, q, k)) {
          rho_sum += *rho;
          ++pm.spearman_rows;
        }
        ++rows;
      }
      if (rows) {
        pm.mean_js_divergence_bits /= static_cast<double>(rows);
        pm.top_key_agreement /= static_cast<double>(rows);
      }
      if (pm.spearman_rows) pm.mean_spearman = rho_sum / static_cast<double>(pm.spearman_rows);
      out.pairs.push_back(pm);
    }
  return out;
}

}  // namespace attnviz
