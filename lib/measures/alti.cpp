// ALTI, Aggregation of Layer-wise Token-to-token Interactions (Ferrando et al. 2022, "Measuring
// the Mixing of Contextual Information in the Transformer"). With T_ij the vector key j brings
// to query i's result y_i through the attention, the residual and the sublayer's norm read as
// linear (measures/residual_terms.h; y_i the sublayer's own result, biases included), how close
// each vector is to the result, by the L1 distance:
//
//   d_ij = ‖y_i − T_ij‖₁
//   C_ij = max(0, ‖y_i‖₁ − d_ij) / Σ_k max(0, ‖y_i‖₁ − d_ik)
//
// (a key whose vector is farther from y_i than nothing at all brings 0; a row whose keys all do
// keeps the weights' row). One map per layer, every head of it showing it; --npy writes
// alti.npy [L, n, n] and alti_rollout.npy [n, n], the layers chained as they are (the residual
// is inside each): R = C_L ⋯ C_1, what --view rollout shows.
//
// Work a layer: the f̃ (n·H·d_h·d), then for every visible pair (i, j) its vector (H·d) and the
// distance (d): about n²·H·d for a bidirectional model, half that causal.
//
// An encoder–decoder's cross attention (keys: the n_s source rows, not the queries; the decoder
// traced by model/seq2seq.h's trace_decoder) has its residual apart from every key: query i's
// result is y_i = Σ_j T_ij + ω_i, and the residual is one more part measured the same way,
//
//   r_i = max(0, ‖y_i‖₁ − ‖y_i − ω_i‖₁) / (Σ_k max(0, ‖y_i‖₁ − d_ik) + that)
//
// the share of the result that stays with the target side (ALTI+, Ferrando et al. 2022b,
// measures/alti_plus.h); the map shown is the keys' part, each row scaled to 1 again, and
// residual_shares() keeps r [L, n].
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "kernels/kernels.h"
#include "measures/residual_terms.h"

namespace attnviz {

namespace alti_parts {

class alti_taps final : public residual_taps {
 public:
  alti_taps(const measure_shape& s, map_taps& views, map_taps& weights);
  std::vector<float> residual_shares() const override { return residual_; }
  std::vector<const streamed_npy*> arrays() const override {
    std::vector<const streamed_npy*> all = residual_taps::arrays();
    if (rollout_file_) all.push_back(rollout_file_.get());
    return all;
  }

 protected:
  void measure_residual() override;
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  void scale_weights();
  void distance_block(std::size_t j0, std::size_t b, const float* f);
  void chain(std::size_t layer);

  bool cross() const { return shape().cross || shape().key_count() != shape().n; }

  std::vector<float> scaled_;    // [n, keys, H]: α^h_ij / s_i
  std::vector<float> distance_;  // [n, keys]: d_ij (−1: key j unseen by query i)
  std::vector<float> residual_;  // cross attention: [L, n], r_i of every layer
  std::unique_ptr<streamed_npy> rollout_file_;
  std::vector<float> rollout_, next_;  // with --npy: R so far, and the next product
};

alti_taps::alti_taps(const measure_shape& s, map_taps& views, map_taps& weights)
    : residual_taps(s, views, weights, "alti"), distance_(s.n * s.key_count()) {
  if (cross()) residual_.assign(s.layers * s.n, 0.0f);
  if (s.npy_dir.empty() || cross()) return;
  rollout_file_ = std::make_unique<streamed_npy>(
      (std::filesystem::path(s.npy_dir) / (s.prefix + "alti_rollout.npy")).string(), s.npy_folder,
      std::vector<std::size_t>{s.n, s.n});
  rollout_.assign(s.n * s.n, 0.0f);
  next_.assign(s.n * s.n, 0.0f);
}

// d_ij for every query i and the keys j in [j0, j0 + b), from their f̃ (b × H × d), in tiles of
// 16 queries × 8 keys (the tile's f̃, 8 × H × d, stays in the core's cache): for each key, the
// tile's queries that see it (some head's α^h_ij ≠ 0, or j = i) measured four at a time by the
// kernels' mixed_l1_distances, with the own term ω_i where j = i — one read of the key's f̃ for
// four queries.
void alti_taps::distance_block(std::size_t j0, std::size_t b, const float* f) {
  constexpr std::size_t tile_rows = 16, tile_keys = 8;
  const std::size_t H = shape().heads, n = shape().n, nk = shape().key_count(), d = width();
  const bool square = !cross();  // the own term joins key i (self-attention)
  const std::size_t row_tiles = (n + tile_rows - 1) / tile_rows;
  const std::size_t key_tiles = (b + tile_keys - 1) / tile_keys;
#pragma omp parallel
  {
    std::vector<kernels::l1_query> group(tile_rows);
    std::vector<std::size_t> rows(tile_rows);
    std::vector<float> out(tile_rows);
#pragma omp for schedule(dynamic, 4)
    for (std::size_t task = 0; task < row_tiles * key_tiles; ++task) {
      const std::size_t i0 = (task / key_tiles) * tile_rows, q0 = (task % key_tiles) * tile_keys;
      const std::size_t i1 = std::min(n, i0 + tile_rows), q1 = std::min(b, q0 + tile_keys);
      if (shape().causal && j0 + q0 >= i1) {  // above the diagonal: no query sees these keys
        for (std::size_t i = i0; i < i1; ++i)
          std::fill_n(distance_.data() + i * nk + j0 + q0, q1 - q0, -1.0f);
        continue;
      }
      for (std::size_t q = q0; q < q1; ++q) {
        const std::size_t j = j0 + q;
        std::size_t seen = 0;
        for (std::size_t i = i0; i < i1; ++i) {
          const float* aq = scaled_.data() + (i * nk + j) * H;
          const bool mine = square && j == i;
          bool any = mine;
          for (std::size_t h = 0; h < H; ++h) any |= aq[h] != 0.0f;
          distance_[i * nk + j] = -1.0f;
          if (!any) continue;
          group[seen] = {result(i), mine ? own(i) : nullptr, aq};
          rows[seen++] = i;
        }
        kernels::mixed_l1_distances(group.data(), seen, f + q * H * d, H, d, out.data());
        for (std::size_t c = 0; c < seen; ++c) distance_[rows[c] * nk + j] = out[c];
      }
    }
  }
}

// The layer's weights as the distances read them: α^h_ij / s_i with the heads of each pair side
// by side ([n, keys, H]), one pass over the maps (the tiles then read H consecutive floats a
// pair, not a line of every head's map for each).
void alti_taps::scale_weights() {
  const std::size_t H = shape().heads, n = shape().n, nk = shape().key_count();
  scaled_.resize(n * nk * H);  // zeros at first: under a causal mask, never written above i
  // written in order, the H rows read side by side (H strided passes of writes cost more)
#pragma omp parallel
  {
    std::vector<const float*> rows(H);
#pragma omp for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const float inv = 1.0f / divisor(i);
      float* out = scaled_.data() + i * nk * H;
      for (std::size_t h = 0; h < H; ++h) rows[h] = weights(h) + i * nk;
      const std::size_t seen = shape().causal ? std::min(nk, i + 1) : nk;  // α_ij = 0 past i
      for (std::size_t j = 0; j < seen; ++j)
        for (std::size_t h = 0; h < H; ++h) out[j * H + h] = rows[h][j] * inv;
    }
  }
}

void alti_taps::measure_residual() {
  scale_weights();
  over_key_blocks([&](std::size_t j0, std::size_t b, const float* f) { distance_block(j0, b, f); });
}

// R ← C R (the first layer: R = C), and alti_rollout.npy after the last.
void alti_taps::chain(std::size_t layer) {
  const std::size_t n = shape().n;
  if (layer == 0) {
    std::copy(layer_map(), layer_map() + n * n, rollout_.begin());
  } else {
    kernels::gemm(n, n, n, 1.0f, layer_map(), n, rollout_.data(), n, false, 0.0f, next_.data(), n);
    rollout_.swap(next_);
  }
  if (layer + 1 < shape().layers) return;
  rollout_file_->write(0, rollout_.data(), n * n);
  rollout_file_->check();
}

void alti_taps::measure_layer(std::size_t layer, float* shown) {
  take_layer();
  const std::size_t n = shape().n, nk = shape().key_count();
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < n; ++i) {
    float* row = map_row(i);
    const float* y = result(i);
    double size = 0.0, keys = 0.0;
    for (std::size_t k = 0; k < width(); ++k) size += std::fabs(y[k]);
    for (std::size_t j = 0; j < nk; ++j) {
      const float dist = distance_[i * nk + j];
      row[j] = dist < 0.0f ? 0.0f : static_cast<float>(std::max(0.0, size - dist));
      keys += row[j];
    }
    if (cross()) {  // the residual's part, ‖y_i − ω_i‖₁ against the result's size
      double apart = 0.0;
      for (std::size_t k = 0; k < width(); ++k) apart += std::fabs(y[k] - own(i)[k]);
      const double kept = std::max(0.0, size - apart);
      residual_[layer * n + i] =
          keys + kept > 0.0 ? static_cast<float>(kept / (keys + kept)) : 0.0f;
    }
    normalise_row(row, weights(0) + i * nk, nk);
  }
  show_layer(layer, shown);
  if (rollout_file_) chain(layer);
}

std::unique_ptr<measure_taps> make(const measure_shape& s, map_taps& views, map_taps& weights) {
  return std::make_unique<alti_taps>(s, views, weights);
}

std::uint64_t bytes(const measure_shape& s) {
  const std::uint64_t n = s.n, H = s.heads, d = s.width;
  // the layer's weights, their scaled copy and the shown maps, the values (counted as 2 d a
  // row), W_O as floats (2 d²), s_i, ω and y, a block of f̃, the distances and the layer's map,
  // with --npy the rollout and its next product
  const std::uint64_t nk = s.key_count();
  const std::uint64_t block = std::min<std::uint64_t>(value_key_block(s.heads, s.width), nk);
  return 4 * (3 * H * n * nk + 2 * nk * d + 2 * d * d + n + 2 * n * d + block * H * d + 2 * n * nk +
              (s.npy_dir.empty() ? 0 : 2 * n * n));
}

std::uint64_t disk_bytes(const measure_shape& s) {
  if (s.npy_dir.empty()) return 0;
  return streamed_npy::bytes({s.layers, s.n, s.n}) + streamed_npy::bytes({s.n, s.n});
}

}  // namespace alti_parts

const measure_spec& alti_measure() {
  static const measure_spec spec{
      "alti",
      "ALTI (Ferrando et al. 2022): how close the vector each key brings to query i's result "
      "(through the residual and the layer's norm) is to that result, max(0, |y_i|1 - "
      "|y_i - T_i(x_j)|1), one map per layer (every head shows it), each row scaled to sum to 1",
      alti_parts::make,
      alti_parts::bytes,
      alti_parts::disk_bytes,
      /*follows_residual=*/true};
  return spec;
}

}  // namespace attnviz
