#include <vector>

#include "attention/align.h"
#include "kernels/kernels.h"

namespace attnviz {
namespace {

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

}  // namespace

matrix align_sparsemax(const matrix& scores, const align_options& o) {
  return by_rows(scores, o.temperature, kernels::sparsemax_threshold);
}

matrix align_entmax15(const matrix& scores, const align_options& o) {
  return by_rows(scores, o.temperature, kernels::entmax15_threshold);
}

}  // namespace attnviz
