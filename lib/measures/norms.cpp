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
// Work a layer: the F_j (n·H·d_h·d, the output projection once more), the G_j (n·H²·d / 2),
// the quadratic forms (n²·H², as t = G_j a then a·t, the last sum in double). The views get N^h
// normalised per row — the share of the weighted-value length of query i that key j gives; the
// arrays keep N^h and N as they are, written to their files layer by layer.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "kernels/kernels.h"
#include "measures/measure.h"
#include "measures/value_vectors.h"

namespace attnviz {

namespace norms_parts {

class norms_taps final : public measure_taps {
 public:
  norms_taps(const measure_shape& s, map_taps& views, map_taps& weights);
  void values(const attention_values& p) override;
  std::vector<const streamed_npy*> arrays() const override {
    if (!per_head_file_) return {};
    return {per_head_file_.get(), per_layer_file_.get()};
  }

 protected:
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  void lengths_block(std::size_t j0, std::size_t b);
  void head_lengths(const attention_values& p, const std::vector<float>& w, std::size_t d);
  void per_layer_row(std::size_t i, float* out, float* a, float* t) const;

  std::vector<float> length_;  // [H, n]: ‖f_h(x_j)‖ of the running layer
  std::vector<float> gram_;    // [n, H, H]: G_j (both triangles)
  std::unique_ptr<streamed_npy> per_head_file_, per_layer_file_;  // --npy
  std::vector<float> per_layer_;  // [n, n] of the running layer, for its file
};

norms_taps::norms_taps(const measure_shape& s, map_taps& views, map_taps& weights)
    : measure_taps(s, views, weights),
      length_(s.heads * s.key_count()),
      gram_(s.key_count() * s.heads * s.heads) {
  if (s.npy_dir.empty()) return;
  const std::filesystem::path dir(s.npy_dir);
  const std::size_t nk = s.key_count();
  per_head_file_ =
      std::make_unique<streamed_npy>((dir / (s.prefix + "norms.npy")).string(), s.npy_folder,
                                     std::vector<std::size_t>{s.layers, s.heads, s.n, nk});
  per_layer_file_ =
      std::make_unique<streamed_npy>((dir / (s.prefix + "norms_layer.npy")).string(), s.npy_folder,
                                     std::vector<std::size_t>{s.layers, s.n, nk});
  per_layer_.assign(s.n * nk, 0.0f);
}

// ‖f_h(x_j)‖ for keys [j0, j0 + b), from their Gram matrices' diagonals.
void norms_taps::lengths_block(std::size_t j0, std::size_t b) {
  const std::size_t H = shape().heads, n = shape().key_count();
  for (std::size_t r = 0; r < b; ++r)
    for (std::size_t h = 0; h < H; ++h)
      length_[h * n + j0 + r] = std::sqrt(gram_[(j0 + r) * H * H + h * H + h]);
}

// ‖f_h(x_j)‖ alone, without forming f: with W^h the d_h × d block of W_O head h's context
// goes through and M_h = W^h W^hᵀ (d_h × d_h), ‖f_h(x_j)‖² = v_h(x_j) M_h v_h(x_j)ᵀ.
// Work H·d_h²·d + n·H·d_h², against n·H·d_h·d to form every f.
void norms_taps::head_lengths(const attention_values& p, const std::vector<float>& w,
                              std::size_t d) {
  const std::size_t H = p.heads, dh = p.head_dim, HD = H * dh, n = p.n_k, group = H / p.kv_heads;
  std::vector<float> wh(dh * d), m(dh * dh), u(n * dh);
  for (std::size_t h = 0; h < H; ++h) {
    output_head_block(w.data(), p.layout, HD, d, h, dh, wh.data());
    kernels::gemm(dh, dh, d, 1.0f, wh.data(), d, wh.data(), d, true, 0.0f, m.data(), dh);
    const float* vh = p.v + (h / group) * dh;
    kernels::gemm(n, dh, dh, 1.0f, vh, p.ldv, m.data(), dh, false, 0.0f, u.data(), dh);
    for (std::size_t j = 0; j < n; ++j)
      length_[h * n + j] = std::sqrt(std::max(0.0f, dot8(u.data() + j * dh, vh + j * p.ldv, dh)));
  }
}

void norms_taps::values(const attention_values& p) {
  const std::size_t H = p.heads, n = p.n_k;
  if (H != shape().heads || n != shape().key_count() || p.kv_heads == 0 || H % p.kv_heads != 0)
    throw std::logic_error("norms: the layer's values do not match the measure's shape");
  const std::vector<float> w = output_projection(p);
  const std::size_t d = w.size() / (H * p.head_dim);
  if (!per_head_file_) {  // the views alone read only the lengths
    head_lengths(p, w, d);
    return;
  }
  const value_vector_source source{p.v, p.ldv, H, p.kv_heads, p.head_dim, n, d, w.data(), p.layout};
  const std::size_t block = std::min(value_key_block(H, d), n);
  std::vector<float> f(block * H * d);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t b = std::min(block, n - j0);
    form_values(source, j0, b, f.data());
    gram_block(f.data(), j0, b, H, d, gram_.data());
    lengths_block(j0, b);
  }
}

// N_ij for every key j of query i, into out (one float a key): t = G_j a (a: the heads'
// weights of (i, j)), N² = a·t. a and t: H floats each, the calling thread's.
void norms_taps::per_layer_row(std::size_t i, float* out, float* a, float* t) const {
  const std::size_t H = shape().heads, n = shape().key_count();
  for (std::size_t j = 0; j < n; ++j) {
    bool any = false;
    for (std::size_t h = 0; h < H; ++h) any |= (a[h] = weights(h)[i * n + j]) != 0.0f;
    if (!any) {
      out[j] = 0.0f;
      continue;
    }
    const double s = quadratic_form(gram_.data() + j * H * H, a, H, t);
    out[j] = static_cast<float>(std::sqrt(std::max(0.0, s)));
  }
}

// row_j = α_j ‖f(x_j)‖, scaled to sum to 1 as normalise_row does (its sums in the same order,
// so the same bytes), the products summed as they are formed: one pass less over the row.
void shares_of_lengths(float* row, const float* alpha, const float* length, std::size_t n) {
  double part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (std::size_t t = 0; t < 8; ++t) part[t] += row[j + t] = alpha[j + t] * length[j + t];
  for (std::size_t t = 0; j < n; ++j, ++t) part[t] += row[j] = alpha[j] * length[j];
  const double sum =
      ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
  if (sum <= 0.0) {
    std::copy(alpha, alpha + n, row);
    return;
  }
  const double inv = 1.0 / sum;
  for (std::size_t k = 0; k < n; ++k) row[k] = static_cast<float>(row[k] * inv);
}

void norms_taps::measure_layer(std::size_t layer, float* shown) {
  const std::size_t H = shape().heads, n = shape().n, nk = shape().key_count(), nn = n * nk;
  const bool files = static_cast<bool>(per_head_file_);
  // raw N^h first (with --npy written whole to norms.npy before), then each row scaled
#pragma omp parallel
  {
    std::vector<float> a(files ? H : 0), t(files ? H : 0);  // per_layer_row's, this thread's
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t h = 0; h < H; ++h) {
        const float* alpha = weights(h) + i * nk;
        float* row = shown + h * nn + i * nk;
        if (!files) {
          shares_of_lengths(row, alpha, length_.data() + h * nk, nk);
          continue;
        }
        for (std::size_t j = 0; j < nk; ++j) row[j] = alpha[j] * length_[h * nk + j];
      }
      if (files) per_layer_row(i, per_layer_.data() + i * nk, a.data(), t.data());
    }
  }
  if (!files) return;
  per_head_file_->write(layer * H * nn, shown, H * nn);
  per_layer_file_->write(layer * nn, per_layer_.data(), nn);
  per_head_file_->check();
  per_layer_file_->check();
#pragma omp parallel for schedule(static)
  for (std::size_t r = 0; r < H * n; ++r) {
    const std::size_t h = r / n, i = r % n;
    normalise_row(shown + h * nn + i * nk, weights(h) + i * nk, nk);
  }
}

std::unique_ptr<measure_taps> make(const measure_shape& s, map_taps& views, map_taps& weights) {
  return std::make_unique<norms_taps>(s, views, weights);
}

std::uint64_t bytes(const measure_shape& s) {
  const std::uint64_t n = s.n, nk = s.key_count(), H = s.heads, d = s.width;
  // the layer's weights and shown maps, lengths, G, W_O as floats (d × H·d_h, counted as 2 d²:
  // H·d_h is at most 2 d in the families), a block of f, the per-layer map
  const std::uint64_t block = std::min<std::uint64_t>(value_key_block(s.heads, s.width), nk);
  return 4 * (2 * H * n * nk + H * nk + nk * H * H + 2 * d * d + block * H * d +
              (s.npy_dir.empty() ? 0 : n * nk));
}

std::uint64_t disk_bytes(const measure_shape& s) {
  if (s.npy_dir.empty()) return 0;
  return streamed_npy::bytes({s.layers, s.heads, s.n, s.key_count()}) +
         streamed_npy::bytes({s.layers, s.n, s.key_count()});
}

}  // namespace norms_parts

const measure_spec& norms_measure() {
  static const measure_spec spec{
      "norms",
      "the length of what each key adds to each query's output, a_ij |f(x_j)| with "
      "f(x) = (x W_V + b_V) W_O per head (Kobayashi et al. 2020), each row scaled to sum to 1",
      norms_parts::make, norms_parts::bytes, norms_parts::disk_bytes};
  return spec;
}

}  // namespace attnviz
