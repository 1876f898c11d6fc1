// What a model run keeps of its attention maps, and what it works out from them on the way, so
// that its memory grows with what the outputs read and not with layers · heads · n² (the taps
// of model/map_taps.h):
//
//   kept      the maps the in-memory outputs read (a view, --json, --html), each n × n (all of
//             them: one [layers, heads, n, n] block, as model_forward holds them)
//   file      attention.npy: the maps of `file_layers` × `file_heads`, [fl, fh, n, n], written
//             block of rows by block of rows, as the kernel finishes them, into a temporary
//             file (io/file_io.h streamed_file) at its place in the array: never held in memory
//   received  per layer and head, the attention each token receives — r[l, h, j] = Σ_i a_ij,
//             the map's column sums — added in fixed point (analysis/column_sums.h): the same
//             bytes on every run and thread count
//   inputs    the inputs of `input_layers` (n × input_width each), to a scratch file, for a
//             second pass from the last layer down (jobs/received_rollout.h)
//   stats     with `measure`: each head's statistics (analysis/head_stats.h), each row's terms
//             as it comes, added up in row order after the layer: the numbers measure_head
//             gives on the kept map, to the bit
//
// Under a causal mask the keys after a block's last row have weight 0: their sums skip them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/column_sums.h"
#include "analysis/head_stats.h"
#include "io/file_io.h"
#include "jobs/layer_inputs.h"
#include "model/map_taps.h"
#include "tensor.h"

namespace attnviz {

struct keep_request {
  std::size_t layers = 0, heads = 0, n = 0;
  bool causal = false;
  std::vector<bool> keep;  // layers · heads (index l · heads + h): kept in memory
  // attention.npy's maps (both empty: no file) and where it goes: `file_path`, its temporary in
  // `file_folder` (the destination's folder or the existing one above it)
  std::vector<std::size_t> file_layers, file_heads;
  std::string file_path, file_folder;
  bool measure = false;      // the heads' statistics (stats())
  std::vector<bool> marked;  // their marked keys (n flags, or empty: none)
  std::vector<std::size_t> input_layers;  // the layers whose inputs are saved (inputs())
  std::size_t input_width = 0;            // their width (d_model)
  bool first_rows = false;  // every map's row 0 (a vision model's CLS query: first_rows())
  bool column_sums = true;  // received(); false: nothing reads them, none are added
};

class map_keeper final : public map_taps {
 public:
  explicit map_keeper(keep_request request);
  float* map_of(std::size_t layer, std::size_t head) override;
  void rows(std::size_t layer, std::size_t head, std::size_t i0, std::size_t rows,
            const float* weights, std::size_t n) noexcept override;
  // Adds up the threads' column sums; throws input_error naming attention.npy when a block
  // could not be written.
  void layer_done(std::size_t layer) override;
  void layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) override;

  // Each map, index l · heads + h: its n × n weights, or null when not kept.
  std::vector<const float*> kept() const;
  // When every map is kept they lie in one [layers, heads, n, n] block (model_forward's
  // `attention`): moved out to the caller (kept() is then all null).
  bool keeps_all() const noexcept { return all_.size() > 0; }
  matrix take_all() { return std::move(all_); }
  // With first_rows: [layers, heads, n] every map's first row (empty otherwise).
  const std::vector<float>& first_rows() const noexcept { return first_rows_; }
  // [layers, heads, n] column sums, complete after the last layer_done (empty without
  // column_sums).
  const std::vector<float>& received() const noexcept { return received_; }
  // [layers · heads] statistics, with `measure`, complete after the last layer_done.
  const std::vector<head_stats>& stats() const noexcept { return stats_; }
  // attention.npy, complete after the last layer_done (null: no file asked for).
  std::shared_ptr<streamed_file> file() const noexcept { return file_; }
  // The saved layer inputs (null: no input_layers), complete after the forward.
  const layer_inputs* inputs() const noexcept { return inputs_.get(); }

 private:
  keep_request req_;
  std::vector<matrix> maps_;               // per map, empty unless kept
  matrix all_;                             // or every map, [layers · heads · n, n]
  std::vector<float> first_rows_;          // [layers, heads, n] with req_.first_rows
  std::vector<std::size_t> file_slot_;     // per map: its index in the file, or none
  std::uint64_t data_at_ = 0;              // the file's header bytes
  std::shared_ptr<streamed_file> file_;
  fixed_column_sums sums_;                 // the running layer's
  std::unique_ptr<layer_inputs> inputs_;
  std::vector<float> received_;
  std::vector<head_row> row_terms_;        // [heads, n] of the running layer (measure)
  std::vector<head_stats> stats_;
  bool any_marked_ = false;
  std::atomic<bool> failed_{false};        // a block not written to the file (rows, any thread)
  std::atomic<bool> stray_thread_{false};  // rows from a thread the sums do not know (a bug)
};

// The bytes the kept maps take and attention.npy's size (for the memory and disk checks).
std::uint64_t kept_bytes(const keep_request& r);
std::uint64_t file_bytes(const keep_request& r);
std::uint64_t input_bytes(const keep_request& r);  // the saved inputs' scratch file

}  // namespace attnviz
