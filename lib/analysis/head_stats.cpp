#include "analysis/head_stats.h"

#include <cmath>

#include "analysis/compare_metrics.h"

namespace attnviz {

head_stats measure_head(const float* a, std::size_t n, const std::vector<bool>& marked) {
  head_stats s;
  bool any_marked = false;
  for (const bool m : marked) any_marked = any_marked || m;
  double marked_sum = 0.0;
  std::size_t rows = 0, rows_from_1 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = a + i * n;
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) total += row[j];
    if (total == 0.0) continue;  // every key masked
    ++rows;
    s.entropy_bits += row_entropy_bits(row, n);
    for (std::size_t j = 0; j < n; ++j) {
      s.distance += row[j] * static_cast<double>(i > j ? i - j : j - i);
      if (any_marked && marked[j]) marked_sum += row[j];
    }
    s.self += row[i];
    if (i >= 1) {
      ++rows_from_1;
      s.first += row[0];
      s.previous += row[i - 1];
    }
  }
  if (rows > 0) {
    s.entropy_bits /= static_cast<double>(rows);
    s.distance /= static_cast<double>(rows);
    s.self /= static_cast<double>(rows);
    if (any_marked) s.marked = marked_sum / static_cast<double>(rows);
  }
  if (rows_from_1 > 0) {
    s.first /= static_cast<double>(rows_from_1);
    s.previous /= static_cast<double>(rows_from_1);
  }
  return s;
}

double induction_score(const float* a, std::size_t period) {
  const std::size_t n = 2 * period;
  double sum = 0.0;
  for (std::size_t i = period; i < n; ++i) sum += a[i * n + (i - period + 1)];
  return sum / static_cast<double>(period);
}

}  // namespace attnviz
