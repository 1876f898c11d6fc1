#include "measures/value_vectors.h"

#include <algorithm>

#include "kernels/kernels.h"

namespace attnviz {

std::size_t value_key_block(std::size_t heads, std::size_t d) {
  return std::max<std::size_t>(16, (std::size_t{1} << 20) / std::max<std::size_t>(1, heads * d));
}

float dot8(const float* a, const float* b, std::size_t d) {
  float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 8 <= d; k += 8)
    for (std::size_t t = 0; t < 8; ++t) part[t] += a[k + t] * b[k + t];
  float s = 0.0f;
  for (; k < d; ++k) s += a[k] * b[k];
  for (float p : part) s += p;
  return s;
}

// Per head h: f[:, h] = V_h W_O^h, W_O read in its stored layout (out_in: [d, H·d_h], read
// transposed; in_out: [H·d_h, d]).
void form_values(const value_vector_source& s, std::size_t j0, std::size_t b, float* f) {
  const std::size_t H = s.heads, dh = s.head_dim, HD = H * dh, d = s.d, group = H / s.kv_heads;
  for (std::size_t h = 0; h < H; ++h) {
    const float* vh = s.v + j0 * s.ldv + (h / group) * dh;
    if (s.layout == linear_layout::out_in)
      kernels::gemm(b, d, dh, 1.0f, vh, s.ldv, s.wo + h * dh, HD, true, 0.0f, f + h * d, H * d);
    else
      kernels::gemm(b, d, dh, 1.0f, vh, s.ldv, s.wo + h * dh * d, d, false, 0.0f, f + h * d, H * d);
  }
}

void gram_block(const float* f, std::size_t j0, std::size_t b, std::size_t heads, std::size_t d,
                float* gram) {
  const std::size_t H = heads;
#pragma omp parallel for schedule(static)
  for (std::size_t r = 0; r < b; ++r) {
    const float* fj = f + r * H * d;
    float* g = gram + (j0 + r) * H * H;
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t h2 = h; h2 < H; ++h2)
        g[h * H + h2] = g[h2 * H + h] = dot8(fj + h * d, fj + h2 * d, d);
  }
}

// t = G a, then a·t.
double quadratic_form(const float* gram, const float* a, std::size_t heads, float* t) {
  const std::size_t H = heads;
  std::fill(t, t + H, 0.0f);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t h2 = 0; h2 < H; ++h2) t[h2] += gram[h * H + h2] * a[h];
  double s = 0.0;
  for (std::size_t h = 0; h < H; ++h) s += static_cast<double>(a[h]) * t[h];
  return s;
}

}  // namespace attnviz
