// Residual- and norm-aware contributions (Kobayashi et al. 2021, "Incorporating Residual and
// Normalization Layers into Analysis of Masked Language Models"). The attention sublayer's
// result at query i (model/map_taps.h: attention_residual) is a sum of one vector per key j
// and terms no key owns (b_O, the norm's β):
//
//   z_ij = Σ_h α^h_ij f_h(x_j) + δ_ij x_i          f_h(x_j) = v_h(x_j) W_O^h (norms.cpp)
//   add           T_ij = z_ij                               y_i = x_i + o_i
//   norm_of_sum   T_ij = L(z_ij) / s_i                      y_i = N(x_i + o_i), s_i from x_i + o_i
//   add_norm_of   T_ij = L(Σ_h α^h_ij f_h(x_j)) / s_i + δ_ij x_i    y_i = x_i + N(o_i), s_i from
//   o_i
//
// with the norm read as linear once its scale s_i (fixed by the whole sum) is: a layer norm's
// L(z) = γ ⊙ (z − mean z), s_i = √(var + ε); an RMS norm's L(z) = γ ⊙ z, s_i = √(mean z² + ε).
// The measure is C_ij = ‖T_ij‖, each row scaled to sum to 1: the share of query i's result that
// key j brings, its own residual included. It is one map per layer (the residual belongs to no
// head): every head of the layer shows it; --npy writes contrib.npy [L, n, n].
//
// Off the diagonal (j ≠ i) T_ij = Σ_h α^h_ij f̃_h(x_j) / s_i with f̃ = L(f) (f itself for add),
// so with G_j the Gram matrix of key j's f̃_h (measures/value_vectors.h),
//   ‖T_ij‖² = aᵀ G_j a / s_i²          (a: the heads' α^h_ij)
// and on the diagonal the vector is formed, u_i = Σ_h α^h_ii f̃_h(x_i):
//   add: u_i + x_i;   norm_of_sum: (u_i + L(x_i)) / s_i;   add_norm_of: u_i / s_i + x_i.
// Work a layer: the f (n·H·d_h·d), the G_j (n·H²·d / 2), the quadratic forms (n²·H²).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "measures/measure.h"
#include "measures/value_vectors.h"

namespace attnviz {

namespace contrib_parts {

class contrib_taps final : public measure_taps {
 public:
  contrib_taps(const measure_shape& s, map_taps& views, map_taps& weights);
  void values(const attention_values& p) override;
  void residual(const attention_residual& r) override;
  std::vector<const streamed_npy*> arrays() const override {
    if (!file_) return {};
    return {file_.get()};
  }

 protected:
  void measure_layer(std::size_t layer, float* shown) override;

 private:
  void set_scales(const attention_residual& r);
  void linear_part(float* z, std::size_t rows, std::size_t d) const;
  void diagonal_block(const attention_residual& r, std::size_t j0, std::size_t b, const float* f);
  void contribution_row(std::size_t i, float* out, float* a, float* t) const;

  std::vector<float> v_, wo_;  // the layer's values (n × kv_heads·d_h) and W_O as floats
  value_vector_source source_;
  bool have_values_ = false, have_residual_ = false;
  residual_kind kind_ = residual_kind::add;
  std::vector<float> gamma_;
  bool rms_ = false;
  std::vector<float> scale_;  // [n]: s_i (1 for add)
  std::vector<float> gram_;   // [n, H, H]: G_j of the f̃
  std::vector<float> diag_;   // [n]: ‖T_ii‖
  std::unique_ptr<streamed_npy> file_;
  std::vector<float> layer_map_;  // [n, n] of the running layer, for the file
};

contrib_taps::contrib_taps(const measure_shape& s, map_taps& views, map_taps& weights)
    : measure_taps(s, views, weights),
      scale_(s.n, 1.0f),
      gram_(s.n * s.heads * s.heads),
      diag_(s.n),
      layer_map_(s.n * s.n) {
  if (s.key_count() != s.n)
    throw std::logic_error("contrib: a self-attention measure (as many keys as queries)");
  if (s.npy_dir.empty()) return;
  file_ = std::make_unique<streamed_npy>(
      (std::filesystem::path(s.npy_dir) / (s.prefix + "contrib.npy")).string(), s.npy_folder,
      std::vector<std::size_t>{s.layers, s.n, s.n});
}

void contrib_taps::values(const attention_values& p) {
  const std::size_t H = p.heads, n = p.n_k, kvd = p.kv_heads * p.head_dim;
  if (H != shape().heads || n != shape().n || p.kv_heads == 0 || H % p.kv_heads != 0)
    throw std::logic_error("contrib: the layer's values do not match the measure's shape");
  v_.resize(n * kvd);
  for (std::size_t j = 0; j < n; ++j)
    std::copy(p.v + j * p.ldv, p.v + j * p.ldv + kvd, v_.data() + j * kvd);
  wo_.resize(p.o->count());
  p.o->to_float(0, wo_.size(), wo_.data());
  const std::size_t d = wo_.size() / (H * p.head_dim);
  source_ =
      value_vector_source{v_.data(), kvd, H, p.kv_heads, p.head_dim, n, d, wo_.data(), p.layout};
  have_values_ = true;
}

// s_i: the norm's scale over the sum it normalises (x_i + o_i, or o_i); 1 without a norm.
void contrib_taps::set_scales(const attention_residual& r) {
  const std::size_t d = r.d;
  for (std::size_t i = 0; i < r.n; ++i) {
    if (kind_ == residual_kind::add) {
      scale_[i] = 1.0f;
      continue;
    }
    double sum = 0.0, squares = 0.0;
    for (std::size_t k = 0; k < d; ++k) {
      const double z =
          r.out[i * d + k] + (kind_ == residual_kind::norm_of_sum ? r.x[i * d + k] : 0.0f);
      sum += z;
      squares += z * z;
    }
    const double mean = sum / static_cast<double>(d),
                 mean_square = squares / static_cast<double>(d);
    const double spread = rms_ ? mean_square : std::max(0.0, mean_square - mean * mean);
    scale_[i] = static_cast<float>(std::sqrt(spread + r.eps));
  }
}

// L(z) in place for `rows` rows of d: γ ⊙ (z − mean z) (layer norm) or γ ⊙ z (RMS norm).
void contrib_taps::linear_part(float* z, std::size_t rows, std::size_t d) const {
  for (std::size_t r = 0; r < rows; ++r) {
    float* row = z + r * d;
    double mean = 0.0;
    if (!rms_) {
      for (std::size_t k = 0; k < d; ++k) mean += row[k];
      mean /= static_cast<double>(d);
    }
    for (std::size_t k = 0; k < d; ++k) row[k] = gamma_[k] * static_cast<float>(row[k] - mean);
  }
}

// ‖T_ii‖ for the queries i in [j0, j0 + b) (keys and queries are the same rows), from their
// f̃ (b × H × d).
void contrib_taps::diagonal_block(const attention_residual& r, std::size_t j0, std::size_t b,
                                  const float* f) {
  const std::size_t H = shape().heads, n = shape().n, d = r.d;
#pragma omp parallel
  {
    std::vector<float> u(d), own(d);
#pragma omp for schedule(static)
    for (std::size_t q = 0; q < b; ++q) {
      const std::size_t i = j0 + q;
      std::fill(u.begin(), u.end(), 0.0f);
      for (std::size_t h = 0; h < H; ++h) {
        const float a = weights(h)[i * n + i];
        const float* fh = f + (q * H + h) * d;
        for (std::size_t k = 0; k < d; ++k) u[k] += a * fh[k];
      }
      std::copy(r.x + i * d, r.x + (i + 1) * d, own.begin());
      const float s = scale_[i];
      if (kind_ == residual_kind::norm_of_sum) linear_part(own.data(), 1, d);
      double sum = 0.0;
      for (std::size_t k = 0; k < d; ++k) {
        const double t = kind_ == residual_kind::add           ? u[k] + own[k]
                         : kind_ == residual_kind::norm_of_sum ? (u[k] + own[k]) / s
                                                               : u[k] / s + own[k];
        sum += t * t;
      }
      diag_[i] = static_cast<float>(std::sqrt(sum));
    }
  }
}

void contrib_taps::residual(const attention_residual& r) {
  if (!have_values_ || r.n != shape().n || r.d != source_.d)
    throw std::logic_error("contrib: the residual does not match the layer's values");
  kind_ = r.kind;
  rms_ = r.rms;
  gamma_ = r.gamma;
  if (kind_ != residual_kind::add && gamma_.size() != r.d)
    throw std::logic_error("contrib: the norm's scale is not d wide");
  set_scales(r);
  const std::size_t H = shape().heads, n = shape().n, d = r.d;
  const std::size_t block = std::min(value_key_block(H, d), n);
  std::vector<float> f(block * H * d);
  for (std::size_t j0 = 0; j0 < n; j0 += block) {
    const std::size_t b = std::min(block, n - j0);
    form_values(source_, j0, b, f.data());
    if (kind_ != residual_kind::add) linear_part(f.data(), b * H, d);
    gram_block(f.data(), j0, b, H, d, gram_.data());
    diagonal_block(r, j0, b, f.data());
  }
  have_residual_ = true;
}

// C_ij for every key j of query i, scaled to sum to 1, into out; a and t: H floats each.
void contrib_taps::contribution_row(std::size_t i, float* out, float* a, float* t) const {
  const std::size_t H = shape().heads, n = shape().n;
  for (std::size_t j = 0; j < n; ++j) {
    if (j == i) {
      out[j] = diag_[i];
      continue;
    }
    bool any = false;
    for (std::size_t h = 0; h < H; ++h) any |= (a[h] = weights(h)[i * n + j]) != 0.0f;
    const double s = any ? quadratic_form(gram_.data() + j * H * H, a, H, t) : 0.0;
    out[j] = static_cast<float>(std::sqrt(std::max(0.0, s)) / scale_[i]);
  }
  normalise_row(out, weights(0) + i * n, n);
}

void contrib_taps::measure_layer(std::size_t layer, float* shown) {
  if (!have_residual_)
    throw std::logic_error(
        "contrib: the layer's block did not say how its attention joins the "
        "residual stream (report_residual)");
  const std::size_t H = shape().heads, n = shape().n, nn = n * n;
#pragma omp parallel
  {
    std::vector<float> a(H), t(H);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < n; ++i) {
      float* row = layer_map_.data() + i * n;
      contribution_row(i, row, a.data(), t.data());
      for (std::size_t h = 0; h < H; ++h) std::copy(row, row + n, shown + h * nn + i * n);
    }
  }
  have_values_ = have_residual_ = false;
  if (!file_) return;
  file_->write(layer * nn, layer_map_.data(), nn);
  file_->check();
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
  return streamed_npy::bytes({s.layers, s.n, s.n});
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
