#include "analysis/neuron_trace.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace attnviz {

neuron_trace trace_neuron(const layer_probe& probe, const neuron_query& at, const float* map_row) {
  const std::size_t n = probe.q.rows(), dh = at.d_head;
  if (at.heads == 0 || at.kv_heads == 0 || at.heads % at.kv_heads != 0 || dh == 0 ||
      probe.q.cols() != at.heads * dh || probe.k.cols() != at.kv_heads * dh ||
      probe.v.cols() != at.kv_heads * dh || probe.k.rows() != n || probe.v.rows() != n ||
      at.head >= at.heads || at.query >= n)
    throw std::logic_error("trace_neuron: the probe does not match the head");
  neuron_trace t;
  t.layer = probe.layer;
  t.head = at.head;
  t.kv_head = at.head / (at.heads / at.kv_heads);
  t.query = at.query;
  t.d_head = dh;
  const std::size_t i = at.query;
  const float* q = probe.q.row(i) + at.head * dh;
  t.q.assign(q, q + dh);
  const double scale = 1.0 / std::sqrt(static_cast<double>(dh));
  double most = -INFINITY;
  for (std::size_t j = 0; j < n; ++j) {
    const bool visible = (!at.causal || j <= i) && (at.window == 0 || j + at.window > i);
    if (!visible) {
      ++t.hidden_keys;
      t.weight_error = std::max(t.weight_error, std::fabs(static_cast<double>(map_row[j])));
      continue;
    }
    neuron_key key;
    key.j = j;
    key.kernel_weight = map_row[j];
    const float* k = probe.k.row(j) + t.kv_head * dh;
    const float* v = probe.v.row(j) + t.kv_head * dh;
    key.k.assign(k, k + dh);
    key.v.assign(v, v + dh);
    key.product.resize(dh);
    double dot = 0.0;
    for (std::size_t c = 0; c < dh; ++c) {
      key.product[c] = t.q[c] * key.k[c];
      dot += key.product[c];
    }
    key.score = dot * scale;
    most = std::max(most, key.score);
    t.keys.push_back(std::move(key));
  }
  double sum = 0.0;
  for (auto& key : t.keys) sum += (key.weight = std::exp(key.score - most));
  t.context.assign(dh, 0.0);
  for (auto& key : t.keys) {
    key.weight /= sum;
    t.weight_error =
        std::max(t.weight_error, std::fabs(key.weight - key.kernel_weight));
    double mixed = 0.0;
    for (std::size_t c = 0; c < dh; ++c) {
      t.context[c] += key.weight * key.v[c];
      mixed += key.weight * key.v[c] * key.weight * key.v[c];
    }
    key.mixed_norm = std::sqrt(mixed);
  }
  t.context_norm = std::sqrt(std::inner_product(t.context.begin(), t.context.end(),
                                                t.context.begin(), 0.0));
  t.by_weight.resize(t.keys.size());
  std::iota(t.by_weight.begin(), t.by_weight.end(), 0);
  std::stable_sort(t.by_weight.begin(), t.by_weight.end(), [&](std::size_t a, std::size_t b) {
    return t.keys[a].weight > t.keys[b].weight;
  });
  return t;
}

void add_output_norms(neuron_trace& t, const std::vector<float>& w_head, std::size_t d) {
  const std::size_t dh = t.d_head;
  if (w_head.size() != dh * d) throw std::logic_error("add_output_norms: W^h is not d_h × d");
  double total = 0.0;
  for (neuron_key& key : t.keys) {
    double len = 0.0;
    for (std::size_t c = 0; c < d; ++c) {
      double f = 0.0;
      for (std::size_t e = 0; e < dh; ++e) f += key.v[e] * w_head[e * d + c];
      len += f * f;
    }
    total += (key.output_norm = key.weight * std::sqrt(len));
  }
  for (neuron_key& key : t.keys)
    key.norm_share = total > 0.0 ? key.output_norm / total : key.weight;
}

reading_gap widest_gap(const neuron_trace& t, double margin) {
  reading_gap best;
  double widest = margin;
  if (t.readings.size() < 2) return best;
  const std::vector<double>& w = t.readings.front().share;
  for (std::size_t r = 1; r < t.readings.size(); ++r)
    for (std::size_t j = 0; j < w.size() && j < t.readings[r].share.size(); ++j)
      if (j != t.query && std::fabs(w[j] - t.readings[r].share[j]) > widest) {
        widest = std::fabs(w[j] - t.readings[r].share[j]);
        best = {r, j};
      }
  return best;
}

std::vector<std::size_t> leading_dimensions(const std::vector<double>& product, std::size_t k) {
  std::vector<std::size_t> order(product.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::fabs(product[a]) > std::fabs(product[b]);
  });
  order.resize(std::min(k, order.size()));
  return order;
}

}  // namespace attnviz
