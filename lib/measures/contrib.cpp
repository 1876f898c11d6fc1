// Residual- and norm-aware contributions (Kobayashi et al. 2021, "Incorporating Residual and
// Normalization Layers into Analysis of Masked Language Models"). With T_ij the vector key j
// brings to query i's result through the attention, the residual and the sublayer's norm read
// as linear (measures/residual_terms.h), the measure is
//
//   C_ij = ‖T_ij‖, each row scaled to sum to 1
//
// the share of query i's result that key j brings, its own residual included. It is one map per
// layer (the residual belongs to no head): every head of the layer shows it; --npy writes
// contrib.npy [L, n, n].
//
// Off the diagonal (j ≠ i) T_ij = Σ_h α^h_ij f̃_h(x_j) / s_i, so with G_j the Gram matrix of
// key j's f̃_h (measures/value_vectors.h)
//   ‖T_ij‖² = aᵀ G_j a / s_i²          (a: the heads' α^h_ij)
// and on the diagonal the vector is formed: T_ii = Σ_h α^h_ii f̃_h(x_i) / s_i + ω_i.
// Work a layer: the f̃ (n·H·d_h·d), the G_j (n·H²·d / 2), the quadratic forms (n²·H²).
//
// An encoder–decoder's cross attention (measure_shape::cross: the keys are the source's rows)
// has its residual apart from every key: C_ij = ‖T_ij‖ over the keys and ‖ω_i‖ for the
// residual, r_i = ‖ω_i‖ / (Σ_j ‖T_ij‖ + ‖ω_i‖) kept per layer (residual_shares()), the map
// shown the keys' part, each row scaled to 1.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "measures/residual_terms.h"

namespace attnviz {

namespace contrib_parts {

class contrib_taps final : public residual_taps {
 public:
  contrib_taps(const measure_shape& s, map_taps& views, map_taps& weights);
  std::vector<float> residual_shares() const override { return residual_; }

 protected:
  void measure_residual() override;
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  void diagonal_block(std::size_t j0, std::size_t b, const float* f);
  void contribution_row(std::size_t i, float* out, float* a, float* t) const;
  bool cross() const { return shape().cross || shape().key_count() != shape().n; }

  std::vector<float> gram_;      // [keys, H, H]: G_j of the f̃
  std::vector<float> diag_;      // [n]: ‖T_ii‖ (a cross attention: ‖ω_i‖)
  std::vector<float> residual_;  // a cross attention: [L, n], r_i of every layer
};

contrib_taps::contrib_taps(const measure_shape& s, map_taps& views, map_taps& weights)
    : residual_taps(s, views, weights, "contrib"),
      gram_(s.key_count() * s.heads * s.heads),
      diag_(s.n) {
  if (cross()) residual_.assign(s.layers * s.n, 0.0f);
}

// ‖T_ii‖ for the queries i in [j0, j0 + b) (keys and queries are the same rows), from their
// f̃ (b × H × d).
void contrib_taps::diagonal_block(std::size_t j0, std::size_t b, const float* f) {
  const std::size_t H = shape().heads, n = shape().n, d = width();
#pragma omp parallel
  {
    std::vector<float> u(d);
#pragma omp for schedule(static)
    for (std::size_t q = 0; q < b; ++q) {
      const std::size_t i = j0 + q;
      std::fill(u.begin(), u.end(), 0.0f);
      for (std::size_t h = 0; h < H; ++h) {
        const float a = weights(h)[i * n + i];
        const float* fh = f + (q * H + h) * d;
        for (std::size_t k = 0; k < d; ++k) u[k] += a * fh[k];
      }
      const float s = divisor(i);
      const float* w = own(i);
      double sum = 0.0;
      for (std::size_t k = 0; k < d; ++k) {
        const double t = u[k] / s + w[k];
        sum += t * t;
      }
      diag_[i] = static_cast<float>(std::sqrt(sum));
    }
  }
}

void contrib_taps::measure_residual() {
  const std::size_t H = shape().heads, d = width();
  over_key_blocks([&](std::size_t j0, std::size_t b, const float* f) {
    gram_block(f, j0, b, H, d, gram_.data());
    if (!cross()) diagonal_block(j0, b, f);
  });
  if (!cross()) return;
  for (std::size_t i = 0; i < shape().n; ++i) {  // the residual apart: ‖ω_i‖
    double sum = 0.0;
    for (std::size_t k = 0; k < d; ++k) sum += static_cast<double>(own(i)[k]) * own(i)[k];
    diag_[i] = static_cast<float>(std::sqrt(sum));
  }
}

// C_ij for every key j of query i, scaled to sum to 1, into out; a and t: H floats each.
// A cross attention's row is left unscaled (its residual's share is taken first).
void contrib_taps::contribution_row(std::size_t i, float* out, float* a, float* t) const {
  const std::size_t H = shape().heads, nk = shape().key_count();
  for (std::size_t j = 0; j < nk; ++j) {
    if (j == i && !cross()) {
      out[j] = diag_[i];
      continue;
    }
    bool any = false;
    for (std::size_t h = 0; h < H; ++h) any |= (a[h] = weights(h)[i * nk + j]) != 0.0f;
    const double s = any ? quadratic_form(gram_.data() + j * H * H, a, H, t) : 0.0;
    out[j] = static_cast<float>(std::sqrt(std::max(0.0, s)) / divisor(i));
  }
  if (!cross()) normalise_row(out, weights(0) + i * nk, nk);
}

void contrib_taps::measure_layer(std::size_t layer, float* shown) {
  take_layer();
  const std::size_t H = shape().heads, n = shape().n;
#pragma omp parallel
  {
    std::vector<float> a(H), t(H);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < n; ++i) {
      float* row = map_row(i);
      contribution_row(i, row, a.data(), t.data());
      if (!cross()) continue;
      const std::size_t nk = shape().key_count();
      double keys = 0.0;
      for (std::size_t j = 0; j < nk; ++j) keys += row[j];
      residual_[layer * n + i] =
          keys + diag_[i] > 0.0 ? static_cast<float>(diag_[i] / (keys + diag_[i])) : 0.0f;
      normalise_row(row, weights(0) + i * nk, nk);
    }
  }
  show_layer(layer, shown);
}

std::unique_ptr<measure_taps> make(const measure_shape& s, map_taps& views, map_taps& weights) {
  return std::make_unique<contrib_taps>(s, views, weights);
}

std::uint64_t bytes(const measure_shape& s) {
  const std::uint64_t n = s.n, H = s.heads, d = s.width;
  // the layer's weights and shown maps, the values (counted as 2 d a row), W_O as floats
  // (counted as 2 d²), G, the scales and diagonal, a block of f, the layer's map
  const std::uint64_t block = std::min<std::uint64_t>(value_key_block(s.heads, s.width), n);
  return 4 * (2 * H * n * n + 2 * n * d + 2 * d * d + n * H * H + 2 * n + block * H * d + n * n);
}

std::uint64_t disk_bytes(const measure_shape& s) {
  if (s.npy_dir.empty()) return 0;
  return streamed_npy::bytes({s.layers, s.n, s.key_count()});
}

}  // namespace contrib_parts

const measure_spec& contrib_measure() {
  static const measure_spec spec{
      "contrib",
      "how long the vector each key brings to query i's result is once the residual and the "
      "layer's norm are counted, |T_i(x_j)| (Kobayashi et al. 2021), one map per layer (every "
      "head shows it), each row scaled to sum to 1",
      contrib_parts::make,
      contrib_parts::bytes,
      contrib_parts::disk_bytes,
      /*follows_residual=*/true};
  return spec;
}

}  // namespace attnviz
