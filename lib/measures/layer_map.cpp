#include "measures/layer_map.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace attnviz {

layer_map_taps::layer_map_taps(const measure_shape& s, map_taps& views, map_taps& weights,
                               const std::string& array)
    : measure_taps(s, views, weights), layer_map_(s.n * s.key_count()) {
  if (s.npy_dir.empty()) return;
  file_ = std::make_unique<streamed_npy>(
      (std::filesystem::path(s.npy_dir) / (s.prefix + array + ".npy")).string(), s.npy_folder,
      std::vector<std::size_t>{s.layers, s.n, s.key_count()});
}

void layer_map_taps::show_layer(std::size_t layer, float* shown) {
  const std::size_t H = shape().heads, nn = shape().n * shape().key_count();
#pragma omp parallel for schedule(static)
  for (std::size_t h = 0; h < H; ++h)
    std::copy(layer_map_.begin(), layer_map_.end(), shown + h * nn);
  if (!file_) return;
  file_->write(layer * nn, layer_map_.data(), nn);
  file_->check();
}

}  // namespace attnviz
