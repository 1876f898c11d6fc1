// What the measures that follow the residual stream share (measures/contrib.cpp,
// measures/alti.cpp). A layer's attention sublayer (model/map_taps.h: attention_residual) gives
// query i the result y_i; with its norm N read as linear once the divisor s_i (fixed by the
// whole sum it normalises) is, y_i is a sum of one vector per key j and terms no key owns:
//
//   T_ij = Σ_h α^h_ij f̃_h(x_j) / s_i + δ_ij ω_i
//
//   kind          y_i              f̃_h(x_j)       s_i                   ω_i
//   add           x_i + o_i        f_h(x_j)        1                     x_i
//   norm_of_sum   N(x_i + o_i)     L(f_h(x_j))     over x_i + o_i        L(x_i) / s_i
//   add_norm_of   x_i + N(o_i)     L(f_h(x_j))     over o_i              x_i
//
// f_h(x_j) = v_h(x_j) W_O^h (measures/value_vectors.h); a layer norm's linear part
// L(z) = γ ⊙ (z − mean z) with s = √(var + ε), an RMS norm's L(z) = γ ⊙ z with s = √(mean z² + ε).
// y_i itself is the sublayer's own result, biases (b_O, β) included.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "measures/layer_map.h"
#include "measures/value_vectors.h"

namespace attnviz {

// The measure's per-layer map goes to every head of the views and, with --npy, to
// `<prefix><array>.npy` [L, n, n] (measures/layer_map.h).
class residual_taps : public layer_map_taps {
 public:
  residual_taps(const measure_shape& s, map_taps& views, map_taps& weights,
                const std::string& array);
  void values(const attention_values& p) override;
  void residual(const attention_residual& r) override;

 protected:
  // The measure's work once the layer's values and residual are in (residual() calls it).
  virtual void measure_residual() = 0;
  // f̃ for keys [j0, j0 + b) into f (b × H × d, key j's heads side by side).
  void transformed_values(std::size_t j0, std::size_t b, float* f) const;
  // f̃ of every key, a block of keys at a time (measures/value_vectors.h: value_key_block),
  // each block to use(j0, b, f).
  template <class Use>
  void over_key_blocks(Use use) const {
    const std::size_t H = source_.heads, n = source_.n_k, d = source_.d;
    const std::size_t block = std::min(value_key_block(H, d), n);
    std::vector<float> f(block * H * d);
    for (std::size_t j0 = 0; j0 < n; j0 += block) {
      const std::size_t b = std::min(block, n - j0);
      transformed_values(j0, b, f.data());
      use(j0, b, static_cast<const float*>(f.data()));
    }
  }
  std::size_t width() const noexcept { return source_.d; }
  float divisor(std::size_t i) const { return scale_[i]; }
  const float* own(std::size_t i) const { return own_.data() + i * source_.d; }        // ω_i
  const float* result(std::size_t i) const { return result_.data() + i * source_.d; }  // y_i
  // Throws unless residual() came for the running layer; then forgets it (at measure_layer).
  void take_layer();

 private:
  void linear_part(float* z, std::size_t rows, std::size_t d) const;
  void set_terms(const attention_residual& r);

  std::vector<float> v_, wo_;  // the layer's values (n × kv_heads·d_h) and W_O as floats
  value_vector_source source_;
  bool have_values_ = false, have_residual_ = false;
  residual_kind kind_ = residual_kind::add;
  std::vector<float> gamma_;
  bool rms_ = false;
  std::vector<float> scale_;         // [n]: s_i
  std::vector<float> own_, result_;  // [n, d]: ω_i and y_i
};

}  // namespace attnviz
