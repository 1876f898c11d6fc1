#include "jobs/map_keeper.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "error.h"
#include "io/npy.h"

namespace attnviz {

namespace {

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

std::size_t count_kept(const keep_request& r) {
  return static_cast<std::size_t>(std::count(r.keep.begin(), r.keep.end(), true));
}

}  // namespace

std::uint64_t kept_bytes(const keep_request& r) {
  return static_cast<std::uint64_t>(count_kept(r)) * r.n * r.n * sizeof(float);
}

std::uint64_t file_bytes(const keep_request& r) {
  if (r.file_layers.empty()) return 0;
  const std::vector<std::size_t> shape{r.file_layers.size(), r.file_heads.size(), r.n, r.n};
  return npy_float32_header(shape).size() +
         static_cast<std::uint64_t>(shape[0]) * shape[1] * r.n * r.n * sizeof(float);
}

std::uint64_t input_bytes(const keep_request& r) {
  return layer_inputs::bytes(r.input_layers.size(), r.n, r.input_width);
}

map_keeper::map_keeper(keep_request request)
    : req_(std::move(request)),
      maps_(req_.layers * req_.heads),
      file_slot_(req_.layers * req_.heads, none),
      sums_(req_.column_sums ? req_.heads : 0, req_.n, req_.causal),
      received_(req_.column_sums ? req_.layers * req_.heads * req_.n : 0, 0.0f) {
  if (req_.keep.size() != maps_.size()) throw std::logic_error("map_keeper: keep is not L·H");
  any_marked_ = std::find(req_.marked.begin(), req_.marked.end(), true) != req_.marked.end();
  if (req_.first_rows) first_rows_.assign(req_.layers * req_.heads * req_.n, 0.0f);
  if (req_.measure) {
    row_terms_.resize(req_.heads * req_.n);
    stats_.resize(req_.layers * req_.heads);
  }
  if (!req_.keep.empty() && std::all_of(req_.keep.begin(), req_.keep.end(), [](bool k) { return k; }))
    all_ = matrix::uninitialized(req_.layers * req_.heads * req_.n, req_.n);
  if (!req_.input_layers.empty())
    inputs_ = std::make_unique<layer_inputs>(req_.input_layers, req_.layers, req_.n,
                                             req_.input_width);
  if (req_.file_layers.empty()) return;
  const std::size_t fh = req_.file_heads.size();
  for (std::size_t a = 0; a < req_.file_layers.size(); ++a)
    for (std::size_t b = 0; b < fh; ++b)
      file_slot_[req_.file_layers[a] * req_.heads + req_.file_heads[b]] = a * fh + b;
  const std::string header =
      npy_float32_header({req_.file_layers.size(), fh, req_.n, req_.n});
  data_at_ = header.size();
  file_ = std::make_shared<streamed_file>(req_.file_path, req_.file_folder, file_bytes(req_));
  if (!file_->write_at(0, header.data(), header.size()))
    throw input_error(req_.file_path, file_->error());
}

void map_keeper::layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) {
  if (inputs_) inputs_->save(layer, x, n, d);
}

float* map_keeper::map_of(std::size_t layer, std::size_t head) {
  const std::size_t m = layer * req_.heads + head;
  if (!req_.keep[m]) return nullptr;
  if (all_.size()) return all_.data() + m * req_.n * req_.n;
  maps_[m] = matrix::uninitialized(req_.n, req_.n);
  return maps_[m].data();
}

// Rows [i0, i0 + rows) of one head: into the file at their place, and into this thread's
// column sums (fixed point), the keys past the block's last row skipped under a causal mask.
void map_keeper::rows(std::size_t layer, std::size_t head, std::size_t i0, std::size_t rows,
                      const float* weights, std::size_t n) noexcept {
  const std::size_t slot = file_slot_[layer * req_.heads + head];
  if (slot != none) {
    const std::uint64_t at = data_at_ + (static_cast<std::uint64_t>(slot) * n + i0) * n * 4;
    if (!file_->write_at(at, weights, rows * n * sizeof(float))) failed_ = true;
  }
  if (i0 == 0 && !first_rows_.empty())  // each (layer, head)'s block from row 0 comes once
    std::copy(weights, weights + n, first_rows_.begin() + (layer * req_.heads + head) * n);
  // a thread the sums have no row for: never with the kernel's one region
  if (req_.column_sums && !sums_.add(head, i0, rows, weights, nullptr)) stray_thread_ = true;
  if (!req_.measure) return;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t i = i0 + r;
    row_terms_[head * n + i] = measure_row(weights + r * n, i, req_.causal ? i + 1 : n,
                                           req_.marked, any_marked_);
  }
}

void map_keeper::layer_done(std::size_t layer) {
  if (stray_thread_) throw std::logic_error("map_keeper: rows from a thread it has no sums for");
  if (failed_) throw input_error(req_.file_path, file_->error());
  if (req_.column_sums) {
    const std::vector<double> sums = sums_.take();
    std::transform(sums.begin(), sums.end(), received_.begin() + layer * sums.size(),
                   [](double v) { return static_cast<float>(v); });
  }
  if (!req_.measure) return;
  for (std::size_t h = 0; h < req_.heads; ++h) {
    head_stats_sum sum(any_marked_);
    for (std::size_t i = 0; i < req_.n; ++i) sum.add_row(i, row_terms_[h * req_.n + i]);
    stats_[layer * req_.heads + h] = sum.result();
  }
}

std::vector<const float*> map_keeper::kept() const {
  std::vector<const float*> out;
  for (const matrix& m : maps_) out.push_back(m.size() ? m.data() : nullptr);
  return out;
}

}  // namespace attnviz
