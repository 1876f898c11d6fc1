#include "measures/alti_plus.h"

#include <stdexcept>

namespace attnviz {

namespace alti_plus_parts {

// out = a · b for a: rows × k (float, row-major), b: k × cols (double).
std::vector<double> product(const float* a, const std::vector<double>& b, std::size_t rows,
                            std::size_t k, std::size_t cols) {
  std::vector<double> out(rows * cols, 0.0);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t t = 0; t < k; ++t) {
      const double w = a[i * k + t];
      if (w == 0.0) continue;
      for (std::size_t c = 0; c < cols; ++c) out[i * cols + c] += w * b[t * cols + c];
    }
  return out;
}

// R = C_Le ⋯ C_1 over the encoder's layers.
std::vector<double> encoder_rollout(const alti_plus_maps& p) {
  const std::size_t ns = p.ns;
  std::vector<double> r(ns * ns, 0.0);
  for (std::size_t j = 0; j < ns; ++j) r[j * ns + j] = 1.0;
  for (std::size_t l = 0; l < p.encoder_layers; ++l)
    r = product(p.encoder + l * ns * ns, r, ns, ns, ns);
  return r;
}

}  // namespace alti_plus_parts

std::vector<double> alti_plus(const alti_plus_maps& p) {
  using namespace alti_plus_parts;
  if (!p.encoder || !p.decoder || !p.cross || !p.residual || p.ns == 0 || p.nt == 0)
    throw std::logic_error("alti_plus: maps missing");
  const std::size_t ns = p.ns, nt = p.nt, w = ns + nt;
  const std::vector<double> r = encoder_rollout(p);
  std::vector<double> m(nt * w, 0.0);
  for (std::size_t i = 0; i < nt; ++i) m[i * w + ns + i] = 1.0;
  for (std::size_t l = 0; l < p.decoder_layers; ++l) {
    m = product(p.decoder + l * nt * nt, m, nt, nt, w);
    const float* cross = p.cross + l * nt * ns;
    for (std::size_t i = 0; i < nt; ++i) {
      const double kept = p.residual[l * nt + i];
      for (std::size_t c = 0; c < w; ++c) m[i * w + c] *= kept;
      for (std::size_t j = 0; j < ns; ++j) {
        const double share = (1.0 - kept) * cross[i * ns + j];
        if (share == 0.0) continue;
        for (std::size_t c = 0; c < ns; ++c) m[i * w + c] += share * r[j * ns + c];
      }
    }
  }
  return m;
}

std::vector<double> source_shares(const std::vector<double>& m, std::size_t ns, std::size_t nt) {
  std::vector<double> s(nt, 0.0);
  for (std::size_t i = 0; i < nt; ++i)
    for (std::size_t c = 0; c < ns; ++c) s[i] += m[i * (ns + nt) + c];
  return s;
}

}  // namespace attnviz
