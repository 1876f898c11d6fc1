#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "attention/align.h"
#include "error.h"
#include "params/param_store.h"

namespace attnviz {
namespace {

// Softmax of row i restricted to |j − centre| ≤ D, times `shape(j)`, renormalised.
// Masked (-inf) keys and keys outside the window get exactly 0; no key in the window: zeros.
template <class Shape>
void windowed_softmax(const matrix& scores, std::size_t i, double centre, std::size_t window,
                      double temperature, Shape shape, matrix& out) {
  const std::size_t n_k = scores.cols();
  auto inside = [&](std::size_t j) {
    return std::fabs(static_cast<double>(j) - centre) <= static_cast<double>(window) + 1e-9 &&
           scores(i, j) != -std::numeric_limits<float>::infinity();
  };
  double m = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < n_k; ++j)
    if (inside(j)) m = std::max(m, static_cast<double>(scores(i, j)));
  if (m == -std::numeric_limits<double>::infinity()) return;
  std::vector<double> w(n_k, 0.0);
  double sum = 0.0;
  for (std::size_t j = 0; j < n_k; ++j)
    if (inside(j)) sum += w[j] = std::exp((scores(i, j) - m) / temperature) * shape(j);
  if (!(sum > 0.0)) return;
  for (std::size_t j = 0; j < n_k; ++j) out(i, j) = static_cast<float>(w[j] / sum);
}

void require_window(const align_options& o, const char* name) {
  if (o.window == 0)
    throw usage_error(fmt::format("align '{}' needs {} D (the half-width, D >= 1), got 0", name,
                                  param("window")));
}

}  // namespace

std::vector<double> local_m_centres(std::size_t n_q, std::size_t n_k) {
  std::vector<double> p(n_q);
  for (std::size_t i = 0; i < n_q; ++i)
    p[i] = n_q == n_k || n_q < 2
               ? static_cast<double>(std::min(i, n_k - 1))
               : std::round(static_cast<double>(i) * static_cast<double>(n_k - 1) /
                            static_cast<double>(n_q - 1));
  return p;
}

std::vector<double> local_p_centres(const matrix& queries, std::size_t n_k, param_store& params) {
  const std::size_t d = queries.cols();
  const matrix w_p = params.require_matrix("align.W_p", d, d);
  const std::vector<float> v_p = params.require_vector("align.v_p", d);
  const matrix h = matmul_nt_ref(queries, w_p);  // W_p q_i
  std::vector<double> p(queries.rows());
  for (std::size_t i = 0; i < queries.rows(); ++i) {
    double s = 0.0;
    for (std::size_t a = 0; a < d; ++a) s += v_p[a] * std::tanh(static_cast<double>(h(i, a)));
    p[i] = static_cast<double>(n_k) / (1.0 + std::exp(-s));
  }
  return p;
}

matrix align_local_m(const matrix& scores, const align_options& o) {
  require_window(o, "local-m");
  matrix a(scores.rows(), scores.cols());
  const auto centres = local_m_centres(scores.rows(), scores.cols());
  for (std::size_t i = 0; i < scores.rows(); ++i)
    windowed_softmax(
        scores, i, centres[i], o.window, o.temperature, [](std::size_t) { return 1.0; }, a);
  return a;
}

matrix align_local_p(const matrix& scores, const align_options& o) {
  require_window(o, "local-p");
  if (!o.queries || !o.params) throw std::logic_error("local-p needs the queries and parameters");
  matrix a(scores.rows(), scores.cols());
  const auto centres = local_p_centres(*o.queries, scores.cols(), *o.params);
  const double sigma = static_cast<double>(o.window) / 2.0;
  for (std::size_t i = 0; i < scores.rows(); ++i) {
    const double p = centres[i];
    windowed_softmax(
        scores, i, p, o.window, o.temperature,
        [&](std::size_t j) {
          const double d = static_cast<double>(j) - p;
          return std::exp(-d * d / (2.0 * sigma * sigma));
        },
        a);
  }
  return a;
}

}  // namespace attnviz
