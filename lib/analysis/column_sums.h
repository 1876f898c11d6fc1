// The attention each key receives: the column sums of attention maps, r_j = Σ_i w_i a_ij (each
// row's weight w_i is 1 for the received view, a rollout's running share for the rolled-out
// one: jobs/received_rollout.h).
//
//   column_sums        maps already in memory, [count, n, n] → [count, n] (or rectangular,
//                      [count, rows, cols] → [count, cols]: cross attention), added in double
//   fixed_column_sums  rows arriving block by block from the fused kernel's threads (the taps of
//                      model/map_taps.h): each term w_i · a_ij cut to a whole multiple of 2^-40
//                      and added in 64-bit integers, one row of sums per thread and head, so the
//                      totals do not depend on which thread added which rows: the same bytes on
//                      every run and thread count. Error: below 1e-12 a term (n · 1e-12 a sum);
//                      the terms must stay below 2^22 (w_i ≤ n ≤ 4 M tokens).
// Under a causal mask the keys after a block's last row have weight 0: the sums skip them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnviz {

std::vector<float> column_sums(const float* maps, std::size_t count, std::size_t n);
std::vector<float> column_sums(const float* maps, std::size_t count, std::size_t rows,
                               std::size_t cols);

class fixed_column_sums {
 public:
  // Sums for `heads` maps of n keys, one set per thread of kernels::threads().
  fixed_column_sums(std::size_t heads, std::size_t n, bool causal);
  // Rows [i0, i0 + rows) of head h (rows × n), row r weighted by row_weights[i0 + r] (null: 1),
  // into the calling thread's sums. False (nothing added) for a thread it has no sums for.
  bool add(std::size_t head, std::size_t i0, std::size_t rows, const float* weights,
           const double* row_weights) noexcept;
  // Every head's totals ([heads, n], over the threads), then starts again from 0.
  std::vector<double> take();

 private:
  std::size_t heads_, n_, threads_;
  bool causal_;
  std::vector<std::int64_t> sums_;  // [threads, heads, n]
};

}  // namespace attnviz
