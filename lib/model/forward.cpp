#include "model/forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "attention/mask.h"
#include "error.h"
#include "model/family.h"
#include "model/layer_ops.h"

namespace attnviz {

namespace {

void check_ids(const hf_model& m, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) throw usage_error(fmt::format("{}: no tokens to run", param("ids")));
  if (ids.size() > m.config.max_positions)
    throw input_error(param("ids"),
                      fmt::format("{} tokens are more than the model's {} positions "
                                  "(max_position_embeddings)",
                                  ids.size(), m.config.max_positions));
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= m.config.vocab)
      throw input_error(param("ids"),
                        fmt::format("token {} (position {}) is outside the vocabulary of {} ids",
                                    ids[i], i, m.config.vocab));
}

// The masks of n rows at positions [past, past + n): causal and the sliding window over the
// whole sequence (past 0), or for one row over the caches, the keys the window has left behind.
void set_masks(const model_config& c, std::size_t past, std::size_t n, mask_set& masks) {
  if (past == 0 && c.causal) masks.rules = parse_masks("causal");
  if (past > 0 && n != 1) throw std::logic_error("run_stack: rows over a cache come one at a time");
  add_sliding_window(masks, c.sliding_window, past, n);
}

// A layer's context for rows at positions [past, past + n): masks and RoPE table.
void prepare_context(layer_context& lc, const model_config& c, std::size_t past, std::size_t n,
                     map_taps* taps) {
  lc.past = past;
  lc.taps = taps;
  set_masks(c, past, n, lc.spec.masks);
  if (c.positions == position_kind::rotary)
    lc.rope = make_rope_half_table(past, n, rope_frequencies(c));
}

}  // namespace

void check_model_ids(const hf_model& m, const std::vector<std::int64_t>& ids) {
  check_ids(m, ids);
}

namespace {

// run_stack's layers and final norm on the embedded rows x (header).
matrix run_layers(const hf_model& m, matrix x, std::size_t past, std::vector<kv_cache>* caches,
                  float* maps, layer_context& lc, progress* bar, layer_probe* probe,
                  map_taps* taps) {
  const model_config& c = m.config;
  const family_spec& family = *c.family;
  const std::size_t n = x.rows(), H = c.heads;
  const std::size_t stride = lc.map_head_stride ? lc.map_head_stride : n * (past + n);
  for (std::size_t l = 0; l < c.layers; ++l) {
    lc.layer = l;
    if (taps) taps->layer_input(l, x.data(), n, x.cols());
    family.block(lc, m.layers[l], x, maps ? maps + l * H * stride : nullptr,
                 probe && probe->layer == l ? probe : nullptr, caches ? &(*caches)[l] : nullptr);
    if (taps) taps->layer_done(l);
    if (bar) bar->update(l + 1);
  }
  matrix h = final_norm_of(m, std::move(x));
  lc.lap("norm");
  return h;
}

// run_model's and run_model_on_image's shared part: the layers over the embedded rows x (the
// whole input at position 0), every map kept in the result unless taps take them.
model_forward forward_rows(const hf_model& m, matrix x, stage_list times, progress_style style,
                           layer_probe* probe, map_taps* taps) {
  const model_config& c = m.config;
  if (probe && probe->layer >= c.layers)
    throw std::logic_error("run_model: the probe's layer is not in the model");
  model_forward f;
  f.stage_seconds = std::move(times);
  f.layers = c.layers;
  f.heads = c.heads;
  f.n = x.rows();
  if (!taps) f.attention = matrix::uninitialized(c.layers * c.heads * f.n, f.n);
  layer_context lc(m, f.n, &f.stage_seconds);
  prepare_context(lc, c, 0, f.n, taps);
  progress bar("running", "layers", c.layers, style);
  f.hidden = run_layers(m, std::move(x), 0, nullptr, taps ? nullptr : f.attention.data(), lc, &bar,
                        probe, taps);
  bar.finish();
  return f;
}

}  // namespace

matrix run_stack(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t past,
                 std::vector<kv_cache>* caches, map_place maps, stage_list& times, progress* bar,
                 layer_probe* probe, map_taps* taps) {
  const model_config& c = m.config;
  const std::size_t n = ids.size();
  if (caches && caches->size() != c.layers) throw std::logic_error("run_stack: a cache a layer");
  layer_context lc(m, n, &times);
  if (taps && (caches || maps.at))
    throw std::logic_error("run_stack: taps replace maps and caches");
  prepare_context(lc, c, past, n, taps);
  lc.map_head_stride = maps.head_stride;
  matrix x = c.family->embed(m, ids, past);
  lc.lap("embed");
  return run_layers(m, std::move(x), past, caches, maps.at, lc, bar, probe, taps);
}

model_forward run_model_on_image(const hf_model& m, const pixel_tensor& pixels,
                                 progress_style style, layer_probe* probe, map_taps* taps) {
  const model_config& c = m.config;
  if (!c.family->embed_image)
    throw usage_error(fmt::format("{} is a text model ({}): give it {} or {}, not {}", m.dir,
                                  c.model_type, param("text"), param("ids"), param("image")));
  stage_list times;
  stage_clock clock;
  matrix x = c.family->embed_image(m, pixels);
  add_stage_time(times, "embed", clock.lap());
  return forward_rows(m, std::move(x), std::move(times), style, probe, taps);
}

void rerun_layer(const hf_model& m, std::size_t layer, matrix x, map_taps& taps,
                 stage_list& times) {
  if (layer >= m.config.layers) throw std::logic_error("rerun_layer: no such layer");
  layer_context lc(m, x.rows(), &times);
  prepare_context(lc, m.config, 0, x.rows(), &taps);
  lc.layer = layer;
  m.config.family->block(lc, m.layers[layer], x, nullptr, nullptr, nullptr);
  taps.layer_done(layer);
}

matrix layer_output(const hf_model& m, std::size_t layer, matrix x, std::size_t zeroed_value,
                    stage_list& times) {
  if (layer >= m.config.layers) throw std::logic_error("layer_output: no such layer");
  layer_context lc(m, x.rows(), &times);
  prepare_context(lc, m.config, 0, x.rows(), nullptr);
  lc.layer = layer;
  lc.zeroed_value = zeroed_value;
  m.config.family->block(lc, m.layers[layer], x, nullptr, nullptr, nullptr);
  return x;
}

model_forward run_model(const hf_model& m, const std::vector<std::int64_t>& ids,
                        progress_style style, layer_probe* probe, map_taps* taps) {
  check_ids(m, ids);
  stage_list times;
  stage_clock clock;
  matrix x = m.config.family->embed(m, ids, 0);
  add_stage_time(times, "embed", clock.lap());
  return forward_rows(m, std::move(x), std::move(times), style, probe, taps);
}

matrix output_logits_rows(const hf_model& m, matrix h) {
  const model_config& c = m.config;
  if (c.head_input_scale != 1.0) {
    const auto scale = static_cast<float>(c.head_input_scale);
    for (std::size_t i = 0; i < h.size(); ++i) h.data()[i] *= scale;
  }
  weight_converter conv;
  if (c.family->prediction_input) h = c.family->prediction_input(m, std::move(h));
  matrix z = linear(h, *m.lm_head, linear_layout::out_in, m.logits_bias, conv);
  if (c.final_soft_cap > 0.0)  // Gemma 2: cap · tanh(z / cap)
    for (std::size_t i = 0; i < z.size(); ++i)
      z.data()[i] =
          static_cast<float>(c.final_soft_cap * std::tanh(z.data()[i] / c.final_soft_cap));
  return z;
}

std::vector<float> output_logits(const hf_model& m, const float* hidden_row) {
  matrix h(1, m.config.d_model);
  std::copy(hidden_row, hidden_row + m.config.d_model, h.row(0));
  const matrix z = output_logits_rows(m, std::move(h));
  return std::vector<float>(z.row(0), z.row(0) + z.cols());
}

matrix final_norm_of(const hf_model& m, matrix x) {
  return m.final_norm_w ? norm_of(m, x, m.final_norm_w, m.final_norm_b) : x;
}

std::vector<std::pair<std::int64_t, double>> top_predictions(const hf_model& m,
                                                             const model_forward& f,
                                                             std::size_t row, std::size_t k) {
  const std::vector<float> logits = output_logits(m, f.hidden.row(row));
  const float* z = logits.data();
  const std::size_t V = logits.size();
  double most = -INFINITY;
  for (std::size_t j = 0; j < V; ++j) most = std::max<double>(most, z[j]);
  double sum = 0.0;
  for (std::size_t j = 0; j < V; ++j) sum += std::exp(z[j] - most);
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  const std::size_t top = std::min(k, V);
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::size_t a, std::size_t b) { return z[a] != z[b] ? z[a] > z[b] : a < b; });
  std::vector<std::pair<std::int64_t, double>> out;
  for (std::size_t i = 0; i < top; ++i)
    out.emplace_back(static_cast<std::int64_t>(order[i]), std::exp(z[order[i]] - most) / sum);
  return out;
}

}  // namespace attnviz
