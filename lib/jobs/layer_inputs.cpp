#include "jobs/layer_inputs.h"

#include <stdexcept>

namespace attnviz {

layer_inputs::layer_inputs(const std::vector<std::size_t>& layers, std::size_t model_layers,
                           std::size_t n, std::size_t d)
    : n_(n),
      d_(d),
      slot_(model_layers, -1),
      saved_(model_layers, false),
      file_("the rolled-out view") {
  std::int64_t next = 0;
  for (const std::size_t l : layers) {
    if (l >= model_layers) throw std::logic_error("layer_inputs: no such layer");
    if (slot_[l] < 0) slot_[l] = next++;
  }
}

std::uint64_t layer_inputs::bytes(std::size_t count, std::size_t n, std::size_t d) {
  return static_cast<std::uint64_t>(count) * n * d * sizeof(float);
}

void layer_inputs::save(std::size_t layer, const float* x, std::size_t n, std::size_t d) {
  if (layer >= slot_.size() || slot_[layer] < 0) return;
  if (n != n_ || d != d_) throw std::logic_error("layer_inputs: an input of another shape");
  file_.write_at(static_cast<std::uint64_t>(slot_[layer]) * bytes(1, n_, d_), x,
                 n * d * sizeof(float));
  saved_[layer] = true;
}

matrix layer_inputs::load(std::size_t layer) const {
  if (layer >= slot_.size() || !saved_[layer]) throw std::logic_error("layer_inputs: not saved");
  matrix x = matrix::uninitialized(n_, d_);
  file_.read_at(static_cast<std::uint64_t>(slot_[layer]) * bytes(1, n_, d_), x.data(),
                n_ * d_ * sizeof(float));
  return x;
}

}  // namespace attnviz
