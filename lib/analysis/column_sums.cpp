#include "analysis/column_sums.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>

#include "kernels/kernels.h"

namespace attnviz {

namespace {
constexpr double fixed_one = 1099511627776.0;  // 2^40: a term of 1
}  // namespace

std::vector<float> column_sums(const float* maps, std::size_t count, std::size_t n) {
  return column_sums(maps, count, n, n);
}

std::vector<float> column_sums(const float* maps, std::size_t count, std::size_t rows,
                               std::size_t cols) {
  std::vector<float> out(count * cols);
#pragma omp parallel for schedule(static) if (count * rows * cols > (1u << 20))
  for (std::ptrdiff_t m = 0; m < static_cast<std::ptrdiff_t>(count); ++m) {
    std::vector<double> sum(cols, 0.0);
    const float* a = maps + static_cast<std::size_t>(m) * rows * cols;
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) sum[j] += a[i * cols + j];
    float* o = out.data() + static_cast<std::size_t>(m) * cols;
    for (std::size_t j = 0; j < cols; ++j) o[j] = static_cast<float>(sum[j]);
  }
  return out;
}

fixed_column_sums::fixed_column_sums(std::size_t heads, std::size_t n, bool causal)
    : heads_(heads),
      n_(n),
      threads_(std::max<std::size_t>(1, kernels::threads())),
      causal_(causal),
      sums_(threads_ * heads * n, 0) {}

bool fixed_column_sums::add(std::size_t head, std::size_t i0, std::size_t rows,
                            const float* weights, const double* row_weights) noexcept {
#if defined(_OPENMP)
  const auto t = static_cast<std::size_t>(omp_get_thread_num());
#else
  const std::size_t t = 0;
#endif
  if (t >= threads_) return false;
  std::int64_t* sums = sums_.data() + (t * heads_ + head) * n_;
  const std::size_t width = causal_ ? std::min(n_, i0 + rows) : n_;
  for (std::size_t r = 0; r < rows; ++r) {
    const float* w = weights + r * n_;
    const double scale = row_weights ? row_weights[i0 + r] * fixed_one : fixed_one;
    for (std::size_t j = 0; j < width; ++j)
      sums[j] += static_cast<std::int64_t>(static_cast<double>(w[j]) * scale);
  }
  return true;
}

std::vector<double> fixed_column_sums::take() {
  const std::size_t hn = heads_ * n_;
  std::vector<double> out(hn);
  for (std::size_t k = 0; k < hn; ++k) {
    std::int64_t total = 0;
    for (std::size_t t = 0; t < threads_; ++t) total += sums_[t * hn + k];
    out[k] = static_cast<double>(total) / fixed_one;
  }
  std::fill(sums_.begin(), sums_.end(), 0);
  return out;
}

}  // namespace attnviz
