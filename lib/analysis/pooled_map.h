// Pooling a large n_q × n_k attention map down to an image: rows and columns are grouped into
// at most `pixels` bins each, and each pixel is the mean (or max) of the weights in its block.
//
// Bins: n items in b = min(n, pixels) bins; bin c holds items [start(c), start(c + 1)) with
// start(c) = ceil(c·n / b), so bins differ in size by at most one item and none is empty.
//   mean  P_rc = Σ_{i in bin r} Σ_{j in bin c} a_ij / (|bin r| · |bin c|)
//   max   P_rc = max over the same block
// Sums run in double, j then i in increasing order, so the result does not depend on the
// order in which blocks of rows arrive (or on the thread count).
//
// pooled_weights is the streaming pipeline's sink (pipeline.h): it keeps O(H · pixels²) floats
// plus the rows of the pixel rows still incomplete, never the n_q × n_k map. pool_map is the
// plain version on a whole matrix (the reference the tests compare the sink with).
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string_view>
#include <vector>

#include "attention/pipeline.h"
#include "enum_names.h"
#include "tensor.h"

namespace attnviz {

enum class pool_mode { mean, max };
inline constexpr named<pool_mode> pool_mode_names[] = {{"mean", pool_mode::mean},
                                                       {"max", pool_mode::max}};
pool_mode parse_pool_mode(std::string_view s);  // "mean" / "max"; usage_error otherwise
std::string_view pool_mode_name(pool_mode p);

struct pool_bins {
  std::size_t n = 0;     // items
  std::size_t bins = 0;  // min(n, pixels)
  std::size_t start(std::size_t c) const noexcept { return (c * n + bins - 1) / bins; }
  std::size_t of(std::size_t i) const noexcept { return i * bins / n; }
  std::size_t size(std::size_t c) const noexcept { return start(c + 1) - start(c); }
};
pool_bins make_bins(std::size_t n, std::size_t pixels);

// The whole map pooled (rows.n × cols.n in, rows.bins × cols.bins out).
matrix pool_map(const matrix& m, const pool_bins& rows, const pool_bins& cols, pool_mode how);

// Element-wise mean or max of same-sized maps (the heads' pooled maps). The mean of mean-pooled
// maps is the mean-pooled mean of the heads; likewise for max.
matrix aggregate_maps(const std::vector<matrix>& maps, head_aggregate how);

class pooled_weights final : public weights_sink {
 public:
  // on_rows(done, total) after each block, for progress (total = heads · n_q rows); the calls
  // come one at a time, from whichever thread consumed the block, with `done` increasing.
  using rows_callback = std::function<void(std::size_t done, std::size_t total)>;
  pooled_weights(std::size_t heads, std::size_t n_q, std::size_t n_k, std::size_t pixels,
                 pool_mode how, rows_callback on_rows = {});

  void consume(std::size_t head, std::size_t i0, std::size_t rows, const float* weights,
               std::size_t n_k) override;

  const pool_bins& row_bins() const noexcept { return rows_; }
  const pool_bins& col_bins() const noexcept { return cols_; }
  pool_mode mode() const noexcept { return how_; }
  // Per head, rows.bins × cols.bins; complete once every row has been consumed.
  const std::vector<matrix>& maps() const noexcept { return maps_; }

 private:
  pool_bins rows_, cols_;
  pool_mode how_;
  rows_callback on_rows_;
  std::vector<matrix> maps_;
  std::mutex lock_;
  // Per (head, row bin): its rows' pooled partials until the last one arrives, then freed.
  std::vector<std::vector<double>> pending_;
  std::vector<std::size_t> arrived_;
  std::size_t done_ = 0;
};

}  // namespace attnviz
