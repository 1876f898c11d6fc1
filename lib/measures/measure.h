// What a self-attention map shows: the weights the kernel computed, or a measure of how much each
// key changes each query's output (Kobayashi et al. 2020, 2021; Ferrando et al. 2022). A measure
// sits between the attention kernel and the taps that keep, stream and sum the maps
// (model/map_taps.h): it collects the layer's weights, receives its values and output projection
// (map_taps::values), and at the layer's end sends its own maps on, each row summing to 1, in the
// taps' protocol — so every view, --json, --html and the head finder read the measure with no
// branch of their own, while attention.npy still receives the weights.
//
// A measure is one file in lib/measures/ holding a measure_taps subclass and its measure_spec,
// listed in measure.cpp's table (read by the command line, the jobs and the tests):
//
//   measure   maps shown (per head)                      --npy adds
//   weights   α^h_ij                                     –
//   norms     α^h_ij ‖f_h(x_j)‖, per row normalised        norms.npy [L, H, n, n],
//             (measures/norms.cpp)                        norms_layer.npy [L, n, n]
//   contrib   ‖T_i(x_j)‖: attention, residual and norm    contrib.npy [L, n, n]
//             (Kobayashi et al. 2021), per layer, per
//             row normalised (measures/contrib.cpp)
//   alti      max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁)          alti.npy [L, n, n],
//             (Ferrando et al. 2022), per layer, per     alti_rollout.npy [n, n]
//             row normalised (measures/alti.cpp)
//   value-    1 − cos(x̃_i, x̃_i with v_j = 0): the        value_zeroing.npy [L, n, n]
//   zeroing   layer run again without key j's value
//             (Mohebbi et al. 2023), per layer, per row
//             normalised (measures/value_zeroing.cpp)
//
// A measure that follows the residual stream receives it through map_taps::residual (the
// families' blocks report it: model/layer_ops.h, report_residual); it reads self-attention only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/npy_stream.h"
#include "model/map_taps.h"
#include "tensor.h"

namespace attnviz {

struct measure_shape {
  std::size_t layers = 0, heads = 0, n = 0, width = 0;  // n: queries; width: the model's d
  std::size_t keys = 0;  // the keys a query sees (cross attention: the source's), 0: n
  bool cross = false;    // the keys are not the queries (a cross attention, even of n keys)
  bool causal = false;   // query i sees no key j > i (work above the diagonal may be skipped)
  // --npy: the folder the measure's arrays go to (empty: none), where their temporaries go (the
  // folder, or the existing one above it), and their names' prefix ("cross_")
  std::string npy_dir, npy_folder, prefix;
  // For the measures that run layers again (value zeroing): the model's layer `layer` on its
  // input x (n × width) with key `zeroed`'s value vector set to 0 in every head (no_row: none),
  // its output (model/forward.h layer_output); and one layer's floating-point operations per
  // row of x (its products and attention, 2 a multiply-add). The job sets both.
  std::function<matrix(std::size_t layer, const matrix& x, std::size_t zeroed)> layer_output;
  double layer_row_flops = 0.0;
  std::size_t key_count() const noexcept { return keys > 0 ? keys : n; }
};

// A measure in the forward. The part every measure shares is here: the kernel writes each head
// into the layer's [H, n, n] weights (map_of), whose rows are passed on at once to `weights` (which
// writes attention.npy, and copied where `weights` keeps a map, if it does: a page showing
// both); at layer_done the subclass turns them (and what values() gave it) into
// the maps shown, which go to `views` head by head.
class measure_taps : public map_taps {
 public:
  measure_taps(const measure_shape& shape, map_taps& views, map_taps& weights);
  float* map_of(std::size_t layer, std::size_t head) override;
  void rows(std::size_t layer, std::size_t head, std::size_t i0, std::size_t rows,
            const float* weights, std::size_t n) noexcept override;
  void layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) override;
  void layer_done(std::size_t layer) override;
  // The arrays --npy adds (with shape.npy_dir), written as the layers finish (io/npy_stream.h):
  // complete after the last layer_done.
  virtual std::vector<const streamed_npy*> arrays() const = 0;
  // A cross-attention measure that counts the residual apart from the keys (alti): each layer's
  // share of every query's result that stays with it, [L, n]; empty for the others.
  virtual std::vector<float> residual_shares() const { return {}; }

 protected:
  // The layer's maps to show ([H, n, keys] at `shown`, each row summing to 1 where the weights'
  // row does, masked entries 0), from weights() and what values() kept.
  virtual void measure_layer(std::size_t layer, float* shown) = 0;
  // Head h's weights of the running layer (n × keys, complete at measure_layer).
  const float* weights(std::size_t head) const {
    return alpha_.data() + head * shape_.n * shape_.key_count();
  }
  const measure_shape& shape() const noexcept { return shape_; }

 private:
  measure_shape shape_;
  map_taps& views_;
  map_taps& weights_;
  std::vector<float> alpha_, shown_;  // [H, n, keys] each
  std::vector<float*> weight_maps_;   // [H]: where `weights` keeps the running layer's maps
  std::vector<bool> written_;         // [H]: map_of gave alpha_, which the caller fills
};

struct measure_spec {
  std::string_view name;
  std::string_view summary;  // for --help: what the maps show, and the paper
  // The measure between the kernel and `views`; `weights` receives the weights themselves.
  // Null for the weights measure: the kernel's rows go to the taps directly.
  std::unique_ptr<measure_taps> (*make)(const measure_shape& shape, map_taps& views,
                                        map_taps& weights) = nullptr;
  // The bytes the measure holds during a forward besides the maps the taps keep, and the bytes
  // its arrays take on disk.
  std::uint64_t (*bytes)(const measure_shape& shape) = nullptr;
  std::uint64_t (*disk_bytes)(const measure_shape& shape) = nullptr;
  // Reads the residual stream around a model's self-attention (so not an encoder–decoder's
  // cross attention, replayed without it); its maps are one per layer (each head shows it) and
  // count the residual: rollout and flow chain them as they are, adding no identity for it
  // (analysis/layer_maps.h).
  bool follows_residual = false;
  // Refuses (usage_error) a run the measure would take too long on, before any work; null:
  // every run is fine.
  void (*check)(const measure_shape& shape) = nullptr;
};

// Taps that put every map into one [layers, heads, n, keys] array (the measure's shown maps
// back where a forward keeps its maps), or that take nothing (the weights, already kept).
class array_taps final : public map_taps {
 public:
  array_taps(float* maps, std::size_t heads, std::size_t n, std::size_t keys)
      : maps_(maps), heads_(heads), size_(n * keys) {}
  float* map_of(std::size_t layer, std::size_t head) override {
    return maps_ ? maps_ + (layer * heads_ + head) * size_ : nullptr;
  }
  void rows(std::size_t, std::size_t, std::size_t, std::size_t, const float*,
            std::size_t) noexcept override {}
  void layer_done(std::size_t) override {}

 private:
  float* maps_;  // null: nothing kept
  std::size_t heads_, size_;
};

// Every measure, weights first (the default).
const std::vector<const measure_spec*>& attention_measures();
std::vector<std::string> measure_names();
// The measure called `name`; a usage_error naming `flag`, the measures and the nearest otherwise.
const measure_spec& measure_named(std::string_view name, std::string_view flag);

// A row of n values (each ≥ 0) scaled to sum to 1; a row summing to 0 becomes `fallback`'s.
void normalise_row(float* row, const float* fallback, std::size_t n);

}  // namespace attnviz
