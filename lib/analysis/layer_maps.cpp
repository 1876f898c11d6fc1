#include "analysis/layer_maps.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "error.h"
#include "kernels/kernels.h"

namespace attnviz {

const float* model_maps::map(std::size_t l, std::size_t h) const {
  if (data) return data + (l * heads + h) * n * n;
  const float* a = l < layers && h < heads ? kept[l * heads + h] : nullptr;
  if (!a) throw std::logic_error("model_maps: a map that was not kept was read");
  return a;
}

namespace {

// Ā_l: the layer's heads fused (max or min; the mean as the heads' sum, residual_map divides),
// then its smallest ⌊n² · discard⌋ entries but (0, 0) set to 0 (layer_maps.h).
std::vector<double> fused_heads(const model_maps& m, std::size_t l) {
  const std::size_t nn = m.n * m.n;
  std::vector<double> a(nn, m.fusion == head_fusion::mean ? 0.0 : std::nan(""));
  for (std::size_t h = 0; h < m.heads; ++h) {
    const float* src = m.map(l, h);
    for (std::size_t k = 0; k < nn; ++k) {
      if (m.fusion == head_fusion::mean)
        a[k] += src[k];
      else if (h == 0)
        a[k] = src[k];
      else
        a[k] = m.fusion == head_fusion::max ? std::max<double>(a[k], src[k])
                                            : std::min<double>(a[k], src[k]);
    }
  }
  const auto k = static_cast<std::size_t>(std::floor(static_cast<double>(nn) * m.discard));
  if (k == 0) return a;
  std::vector<std::size_t> order(nn - 1);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i + 1;  // (0, 0) never discarded
  const std::size_t drop = std::min(k, order.size());
  std::nth_element(
      order.begin(), order.begin() + static_cast<std::ptrdiff_t>(drop - 1), order.end(),
      [&](std::size_t x, std::size_t y) { return a[x] != a[y] ? a[x] < a[y] : x < y; });
  for (std::size_t i = 0; i < drop; ++i) a[order[i]] = 0.0;
  return a;
}

}  // namespace

std::vector<double> residual_map(const model_maps& m, std::size_t l) {
  const std::size_t n = m.n;
  std::vector<double> a = fused_heads(m, l);
  const double r = m.residual;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      double& v = a[i * n + j];
      const double heads = m.fusion == head_fusion::mean ? static_cast<double>(m.heads) : 1.0;
      v = (1.0 - r) * v / heads + (i == j ? r : 0.0);
      sum += v;
    }
    if (sum <= 0.0) a[i * n + i] = sum = 1.0;
    for (std::size_t j = 0; j < n; ++j) a[i * n + j] /= sum;
  }
  return a;
}

matrix reduce_maps_ref(const model_maps& m, const std::vector<std::size_t>& layers,
                       const std::vector<std::size_t>& heads, map_reduce how) {
  const std::size_t n = m.n;
  std::vector<double> acc(n * n, how == map_reduce::max ? -1.0 : 0.0);
  for (const std::size_t l : layers)
    for (const std::size_t h : heads) {
      const float* a = m.map(l, h);
      for (std::size_t k = 0; k < n * n; ++k)
        acc[k] = how == map_reduce::max ? std::max(acc[k], static_cast<double>(a[k])) : acc[k] + a[k];
    }
  const double count = static_cast<double>(layers.size() * heads.size());
  matrix out(n, n);
  for (std::size_t k = 0; k < n * n; ++k)
    out.data()[k] = static_cast<float>(how == map_reduce::max ? acc[k] : acc[k] / count);
  return out;
}

matrix attention_rollout_ref(const model_maps& m, const std::vector<std::size_t>& layers) {
  const std::size_t n = m.n;
  std::vector<double> r(n * n, 0.0), next(n * n);
  for (std::size_t i = 0; i < n; ++i) r[i * n + i] = 1.0;
  for (const std::size_t l : layers) {  // R ← Â_l R
    const std::vector<double> a = residual_map(m, l);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (std::size_t k = 0; k < n; ++k) s += a[i * n + k] * r[k * n + j];
        next[i * n + j] = s;
      }
    r.swap(next);
  }
  matrix out(n, n);
  for (std::size_t k = 0; k < n * n; ++k) out.data()[k] = static_cast<float>(r[k]);
  return out;
}

std::vector<double> rollout_column_sums(const model_maps& m,
                                        const std::vector<std::size_t>& layers) {
  const std::size_t n = m.n;
  std::vector<double> v(n, 1.0), next(n);
  for (std::size_t k = layers.size(); k-- > 0;) {  // v ← v Â_l
    const std::vector<double> a = residual_map(m, layers[k]);
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) next[j] += v[i] * a[i * n + j];
    v.swap(next);
  }
  return v;
}

namespace {

// Rows [i0, i1) of every chosen map combined into out (rows × n, float): the mean or the max.
void reduce_rows(const model_maps& m, const std::vector<const float*>& maps, map_reduce how,
                 std::size_t i0, std::size_t i1, float* out) {
  const std::size_t n = m.n, count = (i1 - i0) * n;
  const std::size_t start = i0 * n;
  if (maps.empty()) {
    std::fill(out + start, out + start + count, 0.0f);
    return;
  }
  std::copy(maps[0] + start, maps[0] + start + count, out + start);
  for (std::size_t k = 1; k < maps.size(); ++k) {
    const float* a = maps[k] + start;
    float* o = out + start;
    if (how == map_reduce::max)
      for (std::size_t e = 0; e < count; ++e) o[e] = std::max(o[e], a[e]);
    else
      for (std::size_t e = 0; e < count; ++e) o[e] += a[e];
  }
  if (how == map_reduce::mean) {
    const float scale = 1.0f / static_cast<float>(maps.size());
    for (std::size_t e = 0; e < count; ++e) out[start + e] *= scale;
  }
}

// Â_l in float: (1 − r) mean_h A_l,h + r I, rows renormalised (as residual_map).
void residual_map_rows(const model_maps& m, std::size_t l, std::size_t i0, std::size_t i1,
                       float* a) {
  std::vector<const float*> maps;
  for (std::size_t h = 0; h < m.heads; ++h) maps.push_back(m.map(l, h));
  reduce_rows(m, maps, map_reduce::mean, i0, i1, a);
  const std::size_t n = m.n;
  const auto r = static_cast<float>(m.residual);
  for (std::size_t i = i0; i < i1; ++i) {
    float* row = a + i * n;
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) {
      row[j] = (1.0f - r) * row[j] + (i == j ? r : 0.0f);
      sum += row[j];
    }
    if (sum <= 0.0f) row[i] = sum = 1.0f;
    const float inv = 1.0f / sum;
    for (std::size_t j = 0; j < n; ++j) row[j] *= inv;
  }
}

// Row blocks for the threads: 64 rows of maps at a time.
constexpr std::size_t kRowBlock = 64;

}  // namespace

matrix reduce_maps(const model_maps& m, const std::vector<std::size_t>& layers,
                   const std::vector<std::size_t>& heads, map_reduce how) {
  std::vector<const float*> maps;
  for (const std::size_t l : layers)
    for (const std::size_t h : heads) maps.push_back(m.map(l, h));
  matrix out = matrix::uninitialized(m.n, m.n);
  const auto blocks = static_cast<std::ptrdiff_t>((m.n + kRowBlock - 1) / kRowBlock);
#pragma omp parallel for schedule(static) if (m.n * m.n * maps.size() > (1u << 20))
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    const std::size_t i0 = static_cast<std::size_t>(b) * kRowBlock;
    reduce_rows(m, maps, how, i0, std::min(m.n, i0 + kRowBlock), out.data());
  }
  return out;
}

matrix attention_rollout(const model_maps& m, const std::vector<std::size_t>& layers) {
  const std::size_t n = m.n;
  matrix r(n, n), a = matrix::uninitialized(n, n), next = matrix::uninitialized(n, n);
  for (std::size_t i = 0; i < n; ++i) r(i, i) = 1.0f;
  const auto blocks = static_cast<std::ptrdiff_t>((n + kRowBlock - 1) / kRowBlock);
  const bool plain = m.fusion == head_fusion::mean && m.discard == 0.0;
  for (const std::size_t l : layers) {  // R ← Â_l R
    if (!plain) {  // fused otherwise, or discarded over the whole map: in double, serial
      const std::vector<double> exact = residual_map(m, l);
      for (std::size_t k = 0; k < n * n; ++k) a.data()[k] = static_cast<float>(exact[k]);
    }
#pragma omp parallel for schedule(static) if (plain && n * n * m.heads > (1u << 20))
    for (std::ptrdiff_t b = 0; b < (plain ? blocks : 0); ++b) {
      const std::size_t i0 = static_cast<std::size_t>(b) * kRowBlock;
      residual_map_rows(m, l, i0, std::min(n, i0 + kRowBlock), a.data());
    }
    kernels::gemm(n, n, n, 1.0f, a.data(), n, r.data(), n, false, 0.0f, next.data(), n);
    std::swap(r, next);
  }
  return r;
}

}  // namespace attnviz
