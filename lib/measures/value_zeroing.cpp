// Value zeroing (Mohebbi et al. 2023): how much query i's representation after the layer
// changes when key j's value vector is set to 0 in every head, all else as it was:
//
//   C_ij = 1 − cos(x̃_i, x̃_i^¬j),   each row scaled to sum to 1
//
// x̃_i is row i of the layer's output — the whole block: attention, residual, norms and MLP —
// and x̃_i^¬j the same with v_j = 0 (the value vector the heads mix, its bias included; keys,
// queries and the residual untouched). A key no head of query i sees changes nothing: 0.
//
// 1 − cos(a, b) is formed as ‖â − b̂‖² / 2 with â = a / ‖a‖, in double: the same number without
// the cancellation of 1 − a·b / (‖a‖‖b‖) where the two nearly agree.
//
// Work: the layer runs n + 1 times on its n rows (model/forward.h layer_output), one key after
// another, each run on every thread; so a run past value_zeroing_max_work operations is refused
// before any work, naming the longest text that fits. An encoder–decoder's cross attention
// (jobs/seq2seq_measures.h) zeroes one source row's value at a time: keys × the decoder layer.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "error.h"
#include "measures/layer_map.h"
#include "model/forward.h"

namespace attnviz {

namespace value_zeroing_parts {

// About two minutes on two cores at the 50 GFLOP/s a layer's products reach on short texts.
constexpr double max_work = 6e12;

double work(const measure_shape& s, std::size_t n) {
  const double rows = static_cast<double>(n);
  const double keys = s.keys > 0 ? static_cast<double>(s.keys) : rows;
  return static_cast<double>(s.layers) * (keys + 1.0) * rows * s.layer_row_flops;
}

void check(const measure_shape& s) {
  if (s.layer_row_flops <= 0.0)
    throw std::logic_error("value zeroing: the job did not say what a layer costs");
  if (work(s, s.n) <= max_work) return;
  std::size_t fits = 1;
  while (work(s, fits + 1) <= max_work) ++fits;
  throw usage_error(fmt::format(
      "{} value-zeroing runs each layer again once per token (L · n² rows, {:.1f} TFLOP here): "
      "at most {} tokens on this model; this run has {} (try {} alti, which reads one forward)",
      param("measure"), work(s, s.n) / 1e12, fits, s.n, param("measure")));
}

// The rows of a scaled to unit length, in double (a zero row stays 0).
std::vector<double> unit_rows(const matrix& a) {
  const std::size_t n = a.rows(), d = a.cols();
  std::vector<double> u(n * d);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    double squares = 0.0;
    for (std::size_t k = 0; k < d; ++k) squares += static_cast<double>(a(i, k)) * a(i, k);
    const double inv = squares > 0.0 ? 1.0 / std::sqrt(squares) : 0.0;
    for (std::size_t k = 0; k < d; ++k) u[i * d + k] = a(i, k) * inv;
  }
  return u;
}

// 1 − cos between the unit row `unit` (d doubles) and b (d floats): ‖unit − b̂‖² / 2.
double cosine_distance(const double* unit, const float* b, std::size_t d) {
  double squares = 0.0;
  for (std::size_t k = 0; k < d; ++k) squares += static_cast<double>(b[k]) * b[k];
  if (squares <= 0.0) return 1.0;
  const double inv = 1.0 / std::sqrt(squares);
  double gap = 0.0;
  for (std::size_t k = 0; k < d; ++k) {
    const double t = unit[k] - b[k] * inv;
    gap += t * t;
  }
  return gap / 2.0;
}

class value_zeroing_taps final : public layer_map_taps {
 public:
  value_zeroing_taps(const measure_shape& s, map_taps& views, map_taps& weights)
      : layer_map_taps(s, views, weights, "value_zeroing") {
    if (!s.layer_output) throw std::logic_error("value zeroing: no way to run a layer again");
  }
  void layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) override;

 protected:
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  bool seen(std::size_t i, std::size_t j) const;

  matrix input_;  // the running layer's input, n × d
  std::size_t input_layer_ = no_row;
};

void value_zeroing_taps::layer_input(std::size_t layer, const float* x, std::size_t n,
                                     std::size_t d) {
  layer_map_taps::layer_input(layer, x, n, d);
  if (n != shape().n) throw std::logic_error("value zeroing: the layer's rows are not n");
  input_ = matrix::uninitialized(n, d);
  std::copy(x, x + n * d, input_.data());
  input_layer_ = layer;
}

// Whether some head of query i sees key j (a masked key's value cannot reach row i).
bool value_zeroing_taps::seen(std::size_t i, std::size_t j) const {
  const std::size_t nk = shape().key_count();
  for (std::size_t h = 0; h < shape().heads; ++h)
    if (weights(h)[i * nk + j] != 0.0f) return true;
  return false;
}

void value_zeroing_taps::measure_layer(std::size_t layer, float* shown) {
  if (input_layer_ != layer) throw std::logic_error("value zeroing: no input for this layer");
  const std::size_t n = shape().n, nk = shape().key_count(), d = input_.cols();
  const std::vector<double> plain = unit_rows(shape().layer_output(layer, input_, no_row));
  for (std::size_t j = 0; j < nk; ++j) {
    const matrix zeroed = shape().layer_output(layer, input_, j);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i)
      map_row(i)[j] =
          seen(i, j) ? static_cast<float>(cosine_distance(plain.data() + i * d, zeroed.row(i), d))
                     : 0.0f;
  }
  for (std::size_t i = 0; i < n; ++i) normalise_row(map_row(i), weights(0) + i * nk, nk);
  input_layer_ = no_row;
  show_layer(layer, shown);
}

std::unique_ptr<measure_taps> make(const measure_shape& s, map_taps& views, map_taps& weights) {
  return std::make_unique<value_zeroing_taps>(s, views, weights);
}

std::uint64_t bytes(const measure_shape& s) {
  const std::uint64_t n = s.n, H = s.heads, d = s.width;
  // the layer's weights and shown maps, its map, its input, the plain output's unit rows
  // (doubles) and a run's output (the layer's own working memory is the forward's, counted
  // there: one layer runs at a time)
  return 4 * (2 * H * n * n + n * n + 2 * n * d) + 8 * n * d;
}

std::uint64_t disk_bytes(const measure_shape& s) {
  if (s.npy_dir.empty()) return 0;
  return streamed_npy::bytes({s.layers, s.n, s.n});
}

}  // namespace value_zeroing_parts

const measure_spec& value_zeroing_measure() {
  static const measure_spec spec{
      "value-zeroing",
      "how far query i's output of the layer turns (cosine distance) when key j's value vector "
      "is set to 0 in every head and the layer runs again (Mohebbi et al. 2023), one map per "
      "layer (every head shows it), each row scaled to sum to 1; L · n extra layer runs, so "
      "for short texts",
      value_zeroing_parts::make,
      value_zeroing_parts::bytes,
      value_zeroing_parts::disk_bytes,
      /*follows_residual=*/true,
      value_zeroing_parts::check};
  return spec;
}

}  // namespace attnviz
