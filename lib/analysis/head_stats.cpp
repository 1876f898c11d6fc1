#include "analysis/head_stats.h"

#include <algorithm>
#include <cmath>

#include "analysis/compare_metrics.h"

namespace attnviz {

namespace {

// One row's sums in one pass: its total, −Σ a log2 a, Σ a |i − j| and the marked keys' weight.
// Per row in float (n terms of at most 1), added up over rows in double.
struct row_sums {
  float total = 0.0f, entropy = 0.0f, distance = 0.0f, marked = 0.0f;
};

row_sums sum_row(const float* row, std::size_t i, std::size_t n, const std::vector<bool>& marked,
                 bool any_marked) {
  row_sums r;
  for (std::size_t j = 0; j < n; ++j) {
    const float a = row[j];
    if (a <= 0.0f) continue;
    r.total += a;
    r.entropy -= a * std::log2(a);
    r.distance += a * static_cast<float>(i > j ? i - j : j - i);
    if (any_marked && marked[j]) r.marked += a;
  }
  return r;
}

}  // namespace

head_row measure_row(const float* row, std::size_t i, std::size_t width,
                     const std::vector<bool>& marked, bool any_marked) {
  const row_sums r = sum_row(row, i, width, marked, any_marked);
  head_row out{r.total, r.entropy, r.distance, r.marked, row[i], 0.0f, 0.0f};
  if (i >= 1) {
    out.first = row[0];
    out.previous = row[i - 1];
  }
  return out;
}

void head_stats_sum::add_row(std::size_t i, const head_row& r) {
  if (r.total == 0.0f) return;  // every key masked
  ++rows_;
  s_.entropy_bits += std::max(0.0f, r.entropy);
  s_.distance += r.distance;
  marked_sum_ += r.marked;
  s_.self += r.self;
  if (i >= 1) {
    ++rows_from_1_;
    s_.first += r.first;
    s_.previous += r.previous;
  }
}

head_stats head_stats_sum::result() const {
  head_stats s = s_;
  if (rows_ > 0) {
    s.entropy_bits /= static_cast<double>(rows_);
    s.distance /= static_cast<double>(rows_);
    s.self /= static_cast<double>(rows_);
    if (any_marked_) s.marked = marked_sum_ / static_cast<double>(rows_);
  }
  if (rows_from_1_ > 0) {
    s.first /= static_cast<double>(rows_from_1_);
    s.previous /= static_cast<double>(rows_from_1_);
  }
  return s;
}

head_stats measure_head(const float* a, std::size_t n, const std::vector<bool>& marked) {
  bool any_marked = false;
  for (const bool m : marked) any_marked = any_marked || m;
  head_stats_sum sum(any_marked);
  for (std::size_t i = 0; i < n; ++i)
    sum.add_row(i, measure_row(a + i * n, i, n, marked, any_marked));
  return sum.result();
}

std::vector<head_stats> measure_heads(const float* maps, std::size_t count, std::size_t n,
                                      const std::vector<bool>& marked) {
  std::vector<head_stats> out(count);
#pragma omp parallel for schedule(dynamic, 1) if (count * n * n > (1u << 20))
  for (std::ptrdiff_t k = 0; k < static_cast<std::ptrdiff_t>(count); ++k) {
    const auto u = static_cast<std::size_t>(k);
    out[u] = measure_head(maps + u * n * n, n, marked);
  }
  return out;
}

double induction_score(const float* a, std::size_t period) {
  const std::size_t n = 2 * period;
  double sum = 0.0;
  for (std::size_t i = period; i < n; ++i) sum += a[i * n + (i - period + 1)];
  return sum / static_cast<double>(period);
}

}  // namespace attnviz
