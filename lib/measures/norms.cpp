// Value-weighted norms (Kobayashi et al. 2020, "Attention is Not Only a Weight: Analyzing
// Transformers with Vector Norms"). Head h's output at query i is Σ_j α^h_ij f_h(x_j) with
//
//   f_h(x_j) = v_h(x_j) W_O^h
//
// v_h(x_j): head h's value row of key j (its bias included; grouped-query heads share their
// key/value head's), W_O^h: the d_h rows of W_O (as x W_O) that head h's context goes through.
// W_O's bias is added once per row, not per key, and is left out. The measure is how long each
// weighted vector is:
//
//   per head   N^h_ij = α^h_ij ‖f_h(x_j)‖                                  norms.npy [L, H, n, n]
//   per layer  N_ij   = ‖Σ_h α^h_ij f_h(x_j)‖                        norms_layer.npy [L, n, n]
//
// The per-layer norm without forming n² vectors of d: with F_j the H × d matrix whose rows are
// the f_h(x_j) and its Gram matrix G_j = F_j F_jᵀ (H × H),
//
//   N_ij² = Σ_{h,h'} α^h_ij α^h'_ij G_j[h, h'],   ‖f_h(x_j)‖ = √G_j[h, h].
//
// Work a layer: the F_j (n·H·d_h·d, the output projection once more), the G_j (n·H²·d), the
// quadratic forms (n²·H², in double: its terms cancel). The views get N^h normalised per row —
// the share of the weighted-value length of query i that key j gives; the arrays keep N^h and N
// as they are.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "kernels/kernels.h"
#include "measures/measure.h"

namespace attnviz {

namespace norms_parts {

constexpr std::size_t key_block = 64;  // keys whose f_h(x_j) are formed at once

class norms_taps final : public measure_taps {
 public:
  norms_taps(const measure_shape& s, map_taps& views, map_taps& weights)
      : measure_taps(s, views, weights),
        length_(s.heads * s.n),
        gram_(s.n * s.heads * s.heads),
        row_norms_(s.n) {
    if (s.keep_arrays) {
      per_head_.assign(s.layers * s.heads * s.n * s.n, 0.0f);
      per_layer_.assign(s.layers * s.n * s.n, 0.0f);
    }
  }

  void values(const attention_values& p) override;
  std::vector<measure_array> take_arrays() override;

 protected:
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  void per_layer_row(std::size_t i, float* out) const;

  std::vector<float> length_;  // [H, n]: ‖f_h(x_j)‖ of the running layer
  std::vector<float> gram_;    // [n, H, H]: G_j
  std::vector<float> row_norms_;
  std::vector<float> per_head_, per_layer_;  // the arrays, when kept
};

// F for keys [j0, j0 + b): f (b × H × d, row j's heads side by side) = V_h W_O^h per head, W_O
// as floats in its stored layout (out_in: [d, H·d_h], read transposed; in_out: [H·d_h, d]).
void form_values(const attention_values& p, const std::vector<float>& w, std::size_t d,
                 std::size_t j0, std::size_t b, float* f) {
  const std::size_t H = p.heads, dh = p.head_dim, HD = H * dh, group = H / p.kv_heads;
  for (std::size_t h = 0; h < H; ++h) {
    const float* vh = p.v + j0 * p.ldv + (h / group) * dh;
    if (p.layout == linear_layout::out_in)
      kernels::gemm(b, d, dh, 1.0f, vh, p.ldv, w.data() + h * dh, HD, true, 0.0f, f + h * d,
                    H * d);
    else
      kernels::gemm(b, d, dh, 1.0f, vh, p.ldv, w.data() + h * dh * d, d, false, 0.0f, f + h * d,
                    H * d);
  }
}

void norms_taps::values(const attention_values& p) {
  const std::size_t H = p.heads, n = p.n_k;
  if (H != shape().heads || n != shape().n || p.kv_heads == 0 || H % p.kv_heads != 0)
    throw std::logic_error("norms: the layer's values do not match the measure's shape");
  std::vector<float> w(p.o->count());
  p.o->to_float(0, w.size(), w.data());
  const std::size_t d = w.size() / (H * p.head_dim);
  std::vector<float> f(key_block * H * d);
  for (std::size_t j0 = 0; j0 < n; j0 += key_block) {
    const std::size_t b = std::min(key_block, n - j0);
    form_values(p, w, d, j0, b, f.data());
    for (std::size_t r = 0; r < b; ++r) {
      const float* fj = f.data() + r * H * d;
      float* g = gram_.data() + (j0 + r) * H * H;
      kernels::gemm(H, H, d, 1.0f, fj, d, fj, d, true, 0.0f, g, H);
      for (std::size_t h = 0; h < H; ++h)
        length_[h * n + j0 + r] = std::sqrt(std::max(0.0f, g[h * H + h]));
    }
  }
}

// N_ij for every key j of query i, into out (n floats).
void norms_taps::per_layer_row(std::size_t i, float* out) const {
  const std::size_t H = shape().heads, n = shape().n;
  std::vector<double> a(H);
  for (std::size_t j = 0; j < n; ++j) {
    bool any = false;
    for (std::size_t h = 0; h < H; ++h) any |= (a[h] = weights(h)[i * n + j]) != 0.0;
    if (!any) {
      out[j] = 0.0f;
      continue;
    }
    const float* g = gram_.data() + j * H * H;
    double s = 0.0;
    for (std::size_t h = 0; h < H; ++h) {
      s += a[h] * a[h] * g[h * H + h];
      for (std::size_t h2 = h + 1; h2 < H; ++h2) s += 2.0 * a[h] * a[h2] * g[h * H + h2];
    }
    out[j] = static_cast<float>(std::sqrt(std::max(0.0, s)));
  }
}

void norms_taps::measure_layer(std::size_t layer, float* shown) {
  const std::size_t H = shape().heads, n = shape().n, nn = n * n;
  const bool keep = !per_head_.empty();
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t h = 0; h < H; ++h) {
      const float* a = weights(h) + i * n;
      float* row = shown + h * nn + i * n;
      for (std::size_t j = 0; j < n; ++j) row[j] = a[j] * length_[h * n + j];
      if (keep) std::copy(row, row + n, per_head_.data() + (layer * H + h) * nn + i * n);
      normalise_row(row, a, n);
    }
    if (keep) per_layer_row(i, per_layer_.data() + layer * nn + i * n);
  }
}

std::vector<measure_array> norms_taps::take_arrays() {
  const measure_shape& s = shape();
  return {{"norms.npy", {s.layers, s.heads, s.n, s.n}, std::move(per_head_)},
          {"norms_layer.npy", {s.layers, s.n, s.n}, std::move(per_layer_)}};
}

std::unique_ptr<measure_taps> make(const measure_shape& s, map_taps& views, map_taps& weights) {
  return std::make_unique<norms_taps>(s, views, weights);
}

std::uint64_t bytes(const measure_shape& s) {
  const std::uint64_t n = s.n, H = s.heads, L = s.layers;
  const std::uint64_t work = 2 * H * n * n + H * n + n * H * H;  // weights, shown, lengths, G
  return 4 * (work + (s.keep_arrays ? L * H * n * n + L * n * n : 0));
}

}  // namespace norms_parts

const measure_spec& norms_measure() {
  static const measure_spec spec{
      "norms",
      "the length of what each key adds to each query's output, a_ij |f(x_j)| with "
      "f(x) = (x W_V + b_V) W_O per head (Kobayashi et al. 2020), each row scaled to sum to 1",
      norms_parts::make, norms_parts::bytes};
  return spec;
}

}  // namespace attnviz
