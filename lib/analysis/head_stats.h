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

// Every head of maps [layers · heads, n, n] (one after another), measured in parallel (each head
// by one thread, so the numbers do not depend on the threads).
std::vector<head_stats> measure_heads(const float* maps, std::size_t count, std::size_t n,
                                      const std::vector<bool>& marked = {});

// a: 2·period × 2·period, the map over a sequence said twice (period >= 1).
double induction_score(const float* a, std::size_t period);

}  // namespace attnviz
