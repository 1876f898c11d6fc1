// The measures whose map is one per layer, not one per head (measures/residual_terms.h's, and
// value zeroing's): each head of the views shows the layer's map, and with --npy it goes to
// `<prefix><array>.npy` [L, n, keys] as the layers finish (keys = n but for ALTI's cross
// attention).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "measures/measure.h"

namespace attnviz {

class layer_map_taps : public measure_taps {
 public:
  layer_map_taps(const measure_shape& s, map_taps& views, map_taps& weights,
                 const std::string& array);
  std::vector<const streamed_npy*> arrays() const override {
    if (!file_) return {};
    return {file_.get()};
  }

 protected:
  // Row i of the running layer's map (a float a key), to be filled before show_layer.
  float* map_row(std::size_t i) { return layer_map_.data() + i * shape().key_count(); }
  const float* layer_map() const { return layer_map_.data(); }
  // The layer's map into every head's place in `shown`, and into the array's file.
  void show_layer(std::size_t layer, float* shown);

 private:
  std::vector<float> layer_map_;  // [n, keys]
  std::unique_ptr<streamed_npy> file_;
};

}  // namespace attnviz
