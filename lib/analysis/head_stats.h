// What one attention head does, in numbers (the head finder ranks heads by them). A is one head's
// n × n map (row i = query i, rows summing to 1, or all 0 when every key is masked); the means
// run over the rows that have weight ("rows"), and "rows from 1" leaves out row 0, which can only
// see itself under a causal mask:
//
//   entropy     mean_i −Σ_j a_ij log2 a_ij (bits; 0 log 0 = 0)
//   distance    mean_i Σ_j a_ij |i − j|         mean attended distance, in tokens
//   first       mean over rows from 1 of a_i0   the first token (attention sinks)
//   previous    mean over rows from 1 of a_i,i−1
//   self        mean_i a_ii
//   marked      mean_i Σ_{j marked} a_ij        keys marked by the caller ([CLS], [SEP], …);
//               nothing when no key is marked
//
// Induction (Olsson et al. 2022), on a sequence of T random tokens said twice (n = 2T): a query i
// in the second half finds its token's first occurrence at i − T and attends to the token after
// it:   induction = mean over i in [T, 2T) of a_i,i−T+1.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace attnviz {

struct head_stats {
  double entropy_bits = 0.0;
  double distance = 0.0;
  double first = 0.0;
  double previous = 0.0;
  double self = 0.0;
  std::optional<double> marked;
};

// a: n × n, row-major; marked: n flags (or empty: none).
head_stats measure_head(const float* a, std::size_t n, const std::vector<bool>& marked = {});

// The same, one row at a time, for maps that are never kept whole (jobs/map_keeper.h): each
// row's terms (measure_row, any order, any thread), then added up in row order (add_row), the
// very sums measure_head makes, so the numbers are the same to the bit.
struct head_row {
  float total = 0.0f, entropy = 0.0f, distance = 0.0f, marked = 0.0f;
  float self = 0.0f, first = 0.0f, previous = 0.0f;
};
// `width`: the keys to read (the rest of the row is 0: the keys a causal row cannot see);
// any_marked: some flag in `marked` is set.
head_row measure_row(const float* row, std::size_t i, std::size_t width,
                     const std::vector<bool>& marked, bool any_marked);
class head_stats_sum {
 public:
  explicit head_stats_sum(bool any_marked) : any_marked_(any_marked) {}
  void add_row(std::size_t i, const head_row& r);
  head_stats result() const;

 private:
  head_stats s_;
  bool any_marked_;
  double marked_sum_ = 0.0;
  std::size_t rows_ = 0, rows_from_1_ = 0;
};

// Every head of maps [layers · heads, n, n] (one after another), measured in parallel (each head
// by one thread, so the numbers do not depend on the threads).
std::vector<head_stats> measure_heads(const float* maps, std::size_t count, std::size_t n,
                                      const std::vector<bool>& marked = {});

// a: 2·period × 2·period, the map over a sequence said twice (period >= 1).
double induction_score(const float* a, std::size_t period);

}  // namespace attnviz
