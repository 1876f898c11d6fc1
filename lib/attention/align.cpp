#include "attention/align.h"

#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace attnviz {

matrix align_softmax(const matrix& scores, const align_options& options) {
  matrix a = scores;
  const float inv_tau = static_cast<float>(1.0 / options.temperature);
  if (!kernels::softmax_rows(a.data(), a.rows(), a.cols(), a.cols(), inv_tau))
    return align_softmax_ref(scores, options);  // NaN in: the reference decides
  return a;
}

matrix align_softmax_ref(const matrix& scores, const align_options& options) {
  const std::size_t n_q = scores.rows(), n_k = scores.cols();
  const double inv_tau = 1.0 / options.temperature;
  matrix a(n_q, n_k);
  std::vector<double> w(n_k);
  for (std::size_t i = 0; i < n_q; ++i) {
    const float* e = scores.row(i);
    float* out = a.row(i);
    // pass 1: row max
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n_k; ++j) m = std::fmax(m, static_cast<double>(e[j]));
    if (m == -std::numeric_limits<double>::infinity()) continue;  // fully masked: zero row
    // pass 2: exp and sum
    double sum = 0.0;
    for (std::size_t j = 0; j < n_k; ++j) {
      if (m == std::numeric_limits<double>::infinity())
        w[j] = e[j] == std::numeric_limits<float>::infinity() ? 1.0 : 0.0;
      else
        w[j] = std::exp((static_cast<double>(e[j]) - m) * inv_tau);  // exp(-inf) = 0
      sum += w[j];
    }
    // pass 3: normalise (sum >= 1: the max entry contributes exp(0) = 1)
    for (std::size_t j = 0; j < n_k; ++j) out[j] = static_cast<float>(w[j] / sum);
  }
  return a;
}

matrix align_hardmax(const matrix& scores, const align_options&) {
  matrix a(scores.rows(), scores.cols());
  for (std::size_t i = 0; i < scores.rows(); ++i) {
    const float* e = scores.row(i);
    std::size_t best = scores.cols();
    for (std::size_t j = 0; j < scores.cols(); ++j)
      if (e[j] != -std::numeric_limits<float>::infinity() &&
          (best == scores.cols() || e[j] > e[best]))
        best = j;
    if (best < scores.cols()) a(i, best) = 1.0f;
  }
  return a;
}

}  // namespace attnviz
