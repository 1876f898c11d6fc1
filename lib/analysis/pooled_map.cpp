#include "analysis/pooled_map.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "error.h"

namespace attnviz {

pool_mode parse_pool_mode(std::string_view s) {
  return value_of(pool_mode_names, s, param("pool"));
}

std::string_view pool_mode_name(pool_mode p) {
  return name_of(pool_mode_names, p);
}

pool_bins make_bins(std::size_t n, std::size_t pixels) {
  if (n == 0 || pixels == 0) throw usage_error("pooling needs at least one item and one pixel");
  return pool_bins{n, std::min(n, pixels)};
}

namespace {

// Row partials: per column bin, the sum (mean) or max of the row's entries, j increasing.
void pool_cols(const float* w, const pool_bins& cols, pool_mode how, double* out) {
  for (std::size_t c = 0; c < cols.bins; ++c) {
    const std::size_t j0 = cols.start(c), j1 = cols.start(c + 1);
    double acc = how == pool_mode::mean ? 0.0 : static_cast<double>(w[j0]);
    for (std::size_t j = j0; j < j1; ++j)
      acc = how == pool_mode::mean ? acc + w[j] : std::max(acc, static_cast<double>(w[j]));
    out[c] = acc;
  }
}

// Row bin from its rows' partials (row-major, |bin| × cols.bins), i increasing.
void reduce_bin(const double* partials, std::size_t bin_rows, const pool_bins& cols, pool_mode how,
                float* out) {
  for (std::size_t c = 0; c < cols.bins; ++c) {
    double acc = partials[c];
    for (std::size_t r = 1; r < bin_rows; ++r) {
      const double x = partials[r * cols.bins + c];
      acc = how == pool_mode::mean ? acc + x : std::max(acc, x);
    }
    if (how == pool_mode::mean) acc /= static_cast<double>(bin_rows * cols.size(c));
    out[c] = static_cast<float>(acc);
  }
}

}  // namespace

matrix pool_map(const matrix& m, const pool_bins& rows, const pool_bins& cols, pool_mode how) {
  if (m.rows() != rows.n || m.cols() != cols.n)
    throw std::logic_error("pool_map: bins do not match the matrix");
  matrix out(rows.bins, cols.bins);
  for (std::size_t r = 0; r < rows.bins; ++r) {
    const std::size_t i0 = rows.start(r), count = rows.size(r);
    std::vector<double> partials(count * cols.bins);
    for (std::size_t i = 0; i < count; ++i)
      pool_cols(m.row(i0 + i), cols, how, partials.data() + i * cols.bins);
    reduce_bin(partials.data(), count, cols, how, out.row(r));
  }
  return out;
}

matrix aggregate_maps(const std::vector<matrix>& maps, head_aggregate how) {
  matrix out = maps.at(0);
  for (std::size_t h = 1; h < maps.size(); ++h)
    for (std::size_t i = 0; i < out.size(); ++i)
      out.data()[i] = how == head_aggregate::max ? std::max(out.data()[i], maps[h].data()[i])
                                                 : out.data()[i] + maps[h].data()[i];
  if (how == head_aggregate::mean && maps.size() > 1)
    for (std::size_t i = 0; i < out.size(); ++i)
      out.data()[i] = static_cast<float>(out.data()[i] / static_cast<double>(maps.size()));
  return out;
}

pooled_weights::pooled_weights(std::size_t heads, std::size_t n_q, std::size_t n_k,
                               std::size_t pixels, pool_mode how, rows_callback on_rows)
    : rows_(make_bins(n_q, pixels)),
      cols_(make_bins(n_k, pixels)),
      how_(how),
      on_rows_(std::move(on_rows)),
      maps_(heads, matrix(rows_.bins, cols_.bins)),
      pending_(heads * rows_.bins),
      arrived_(heads * rows_.bins, 0) {}

void pooled_weights::consume(std::size_t head, std::size_t i0, std::size_t rows,
                             const float* weights, std::size_t n_k) {
  if (n_k != cols_.n || head >= maps_.size() || i0 + rows > rows_.n)
    throw std::logic_error("pooled_weights: block outside the map");
  std::vector<double> partial(cols_.bins);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t i = i0 + r, bin = rows_.of(i), slot = head * rows_.bins + bin;
    pool_cols(weights + r * n_k, cols_, how_, partial.data());
    std::vector<double> complete;
    {
      const std::lock_guard<std::mutex> guard(lock_);
      auto& p = pending_[slot];
      if (p.empty()) p.assign(rows_.size(bin) * cols_.bins, 0.0);
      std::copy(partial.begin(), partial.end(),
                p.begin() + static_cast<std::ptrdiff_t>((i - rows_.start(bin)) * cols_.bins));
      if (++arrived_[slot] == rows_.size(bin)) complete.swap(p);
    }
    if (!complete.empty())  // this thread alone owns the bin now: its rows are all here
      reduce_bin(complete.data(), rows_.size(bin), cols_, how_, maps_[head].row(bin));
  }
  if (on_rows_) {  // under the lock: one call at a time, `done` in increasing order
    const std::lock_guard<std::mutex> guard(lock_);
    done_ += rows;
    on_rows_(done_, maps_.size() * rows_.n);
  }
}

}  // namespace attnviz
