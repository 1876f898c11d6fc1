#include "measures/measure.h"

#include <algorithm>
#include <stdexcept>

#include "names.h"

namespace attnviz {

const measure_spec& norms_measure();
const measure_spec& contrib_measure();
const measure_spec& alti_measure();
const measure_spec& value_zeroing_measure();

namespace {

constexpr std::size_t row_block = 64;  // the rows sent to the views' taps at once

const measure_spec weights_spec{
    "weights", "the attention weights a_ij themselves: how much query i looks at key j", nullptr,
    nullptr};

}  // namespace

measure_taps::measure_taps(const measure_shape& shape, map_taps& views, map_taps& weights)
    : shape_(shape),
      views_(views),
      weights_(weights),
      alpha_(shape.heads * shape.n * shape.key_count(), 0.0f),
      shown_(shape.heads * shape.n * shape.key_count(), 0.0f),
      weight_maps_(shape.heads, nullptr),
      written_(shape.heads, false) {}

// The kernel writes the head's weights straight into the layer's [H, n, keys] (non-temporal
// stores: one write, no read), so rows() only passes them on; copying each block there from
// rows() wrote and read the layer's H·n² floats once more.
float* measure_taps::map_of(std::size_t layer, std::size_t head) {
  weight_maps_[head] = weights_.map_of(layer, head);  // filled from rows(), when kept
  written_[head] = true;
  return alpha_.data() + head * shape_.n * shape_.key_count();
}

void measure_taps::rows(std::size_t layer, std::size_t head, std::size_t i0, std::size_t rows,
                        const float* weights, std::size_t n) noexcept {
  if (!written_[head])  // a caller that sends rows without asking map_of first
    std::copy(weights, weights + rows * n, alpha_.data() + (head * shape_.n + i0) * n);
  if (float* kept = weight_maps_[head]) std::copy(weights, weights + rows * n, kept + i0 * n);
  weights_.rows(layer, head, i0, rows, weights, n);
}

void measure_taps::layer_input(std::size_t layer, const float* x, std::size_t n, std::size_t d) {
  weights_.layer_input(layer, x, n, d);
  views_.layer_input(layer, x, n, d);
}

void measure_taps::layer_done(std::size_t layer) {
  std::fill(written_.begin(), written_.end(), false);
  weights_.layer_done(layer);
  measure_layer(layer, shown_.data());
  const std::size_t nk = shape_.key_count(), size = shape_.n * nk;
  std::vector<float*> kept(shape_.heads);
  for (std::size_t h = 0; h < shape_.heads; ++h) kept[h] = views_.map_of(layer, h);
  // the rows in blocks from several threads at once, as the kernel sends them (the taps' sums
  // are the same for any split: map_keeper adds them in fixed point), each block copied where
  // the views keep the head's map (if they do) as it is sent: one pass over the maps
  const std::size_t blocks = (shape_.n + row_block - 1) / row_block;
#pragma omp parallel for schedule(dynamic)
  for (std::size_t t = 0; t < shape_.heads * blocks; ++t) {
    const std::size_t h = t / blocks, i0 = (t % blocks) * row_block;
    const std::size_t rows = std::min(row_block, shape_.n - i0);
    const float* block = shown_.data() + h * size + i0 * nk;
    if (kept[h]) std::copy(block, block + rows * nk, kept[h] + i0 * nk);
    views_.rows(layer, h, i0, rows, block, nk);
  }
  views_.layer_done(layer);
}

const std::vector<const measure_spec*>& attention_measures() {
  static const std::vector<const measure_spec*> all{&weights_spec, &norms_measure(),
                                                    &contrib_measure(), &alti_measure(),
                                                    &value_zeroing_measure()};
  return all;
}

std::vector<std::string> measure_names() {
  std::vector<std::string> names;
  for (const measure_spec* m : attention_measures()) names.emplace_back(m->name);
  return names;
}

const measure_spec& measure_named(std::string_view name, std::string_view flag) {
  std::vector<std::string_view> known;
  std::vector<std::pair<std::string_view, std::string_view>> candidates;
  for (const measure_spec* m : attention_measures()) {
    if (m->name == name) return *m;
    known.push_back(m->name);
    candidates.emplace_back(m->name, m->name);
  }
  throw_unknown_name(flag.empty() ? "measure" : flag, name, known, candidates);
}

// The sum in double over eight running sums (a single chain of dependent additions made this
// the largest of a measure's own costs: every row of every head and layer), joined pairwise.
void normalise_row(float* row, const float* fallback, std::size_t n) {
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (std::size_t t = 0; t < 8; ++t) part[t] += row[j + t];
  for (std::size_t t = 0; j < n; ++j, ++t) part[t] += row[j];
  const double sum = ((part[0] + part[1]) + (part[2] + part[3])) +
                     ((part[4] + part[5]) + (part[6] + part[7]));
  if (sum <= 0.0) {
    std::copy(fallback, fallback + n, row);
    return;
  }
  const double inv = 1.0 / sum;
  for (std::size_t k = 0; k < n; ++k) row[k] = static_cast<float>(row[k] * inv);
}

}  // namespace attnviz
