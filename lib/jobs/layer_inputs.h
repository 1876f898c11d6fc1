// Some layers' inputs (n × d floats each: the residual stream before the block), kept from the
// forward for a second pass over those layers (model/forward.h rerun_layer) in a scratch file
// (io/scratch_file.h), not in memory: L · n · d · 4 bytes, 2 GiB for the 16 layers of the
// Llama-1B shape at 16,384 tokens.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "io/scratch_file.h"
#include "tensor.h"

namespace attnviz {

class layer_inputs {
 public:
  // Room for the inputs of `layers` (indices into the model's layers), n × d each.
  layer_inputs(const std::vector<std::size_t>& layers, std::size_t model_layers, std::size_t n,
               std::size_t d);
  // Layer `layer`'s input; layers not chosen are ignored. Throws input_error when the scratch
  // file cannot take it.
  void save(std::size_t layer, const float* x, std::size_t n, std::size_t d);
  // A saved input (logic_error for one never saved).
  matrix load(std::size_t layer) const;
  std::size_t rows() const noexcept { return n_; }
  // The scratch bytes `count` layers take.
  static std::uint64_t bytes(std::size_t count, std::size_t n, std::size_t d);

 private:
  std::size_t n_, d_;
  std::vector<std::int64_t> slot_;  // per model layer: its place in the file, or −1
  std::vector<bool> saved_;
  scratch_file file_;
};

}  // namespace attnviz
