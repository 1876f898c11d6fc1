#include "attention/context.h"

#include "kernels/kernels.h"
#include "params/rng.h"

namespace attnviz {

context_output context_soft(const matrix& weights, const matrix& values, const context_options&) {
  return {kernels::matmul_nn(weights, values), {}};
}

context_output context_hard(const matrix& weights, const matrix& values,
                            const context_options& options) {
  const std::size_t n_q = weights.rows(), n_k = weights.cols(), d_v = values.cols();
  context_output out{matrix(n_q, d_v), std::vector<int>(n_q, -1)};
  splitmix64 rng(options.seed, "context.hard");
  for (std::size_t i = 0; i < n_q; ++i) {
    const float* a = weights.row(i);
    double total = 0.0;
    std::size_t best = 0;
    for (std::size_t j = 0; j < n_k; ++j) {
      total += a[j];
      if (a[j] > a[best]) best = j;
    }
    const double u = rng.uniform();  // drawn for every row, so row i's draw never depends on others
    if (total <= 0.0) continue;
    std::size_t pick = best;
    if (options.hard == hard_mode::sample) {
      const double target = u * total;
      double run = 0.0;
      pick = n_k;
      for (std::size_t j = 0; j < n_k && pick == n_k; ++j) {
        run += a[j];
        if (a[j] > 0.0f && run > target) pick = j;
      }
      if (pick == n_k)  // rounding: fall back to the last key with weight
        for (std::size_t j = n_k; j-- > 0;)
          if (a[j] > 0.0f) {
            pick = j;
            break;
          }
    }
    out.chosen[i] = static_cast<int>(pick);
    std::copy(values.row(pick), values.row(pick) + d_v, out.context.row(i));
  }
  return out;
}

}  // namespace attnviz
