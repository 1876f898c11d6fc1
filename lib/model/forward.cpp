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

}  // namespace

model_forward run_model(const hf_model& m, const std::vector<std::int64_t>& ids,
                        progress_style style, layer_probe* probe) {
  check_ids(m, ids);
  if (probe && probe->layer >= m.config.layers)
    throw std::logic_error("run_model: the probe's layer is not in the model");
  const model_config& c = m.config;
  const family_spec& family = *c.family;
  const std::size_t n = ids.size(), H = c.heads;
  model_forward f;
  f.layers = c.layers;
  f.heads = H;
  f.n = n;
  f.attention = matrix::uninitialized(c.layers * H * n, n);
  layer_context lc(m, n, &f.stage_seconds);
  if (c.causal) lc.spec.masks.rules = parse_masks("causal");
  if (c.sliding_window > 0 && n > c.sliding_window)
    lc.spec.masks.rules.push_back(
        parse_masks(fmt::format("window:{}", c.sliding_window - 1)).front());
  if (c.positions == position_kind::rotary)
    lc.rope = make_rope_half_table(n, rope_frequencies(c));

  matrix x = family.embed(m, ids);
  lc.lap("embed");
  progress bar("running", "layers", c.layers, style);
  for (std::size_t l = 0; l < c.layers; ++l) {
    float* maps = f.attention.data() + l * H * n * n;
    family.block(lc, m.layers[l], x, maps, probe && probe->layer == l ? probe : nullptr);
    bar.update(l + 1);
  }
  bar.finish();
  f.hidden = m.final_norm_w ? norm_of(m, x, m.final_norm_w, m.final_norm_b) : std::move(x);
  lc.lap("norm");
  return f;
}

std::vector<std::pair<std::int64_t, double>> top_predictions(const hf_model& m,
                                                             const model_forward& f,
                                                             std::size_t row, std::size_t k) {
  const model_config& c = m.config;
  matrix h(1, c.d_model);
  std::copy(f.hidden.row(row), f.hidden.row(row) + c.d_model, h.row(0));
  weight_converter conv;
  if (c.family->prediction_input) h = c.family->prediction_input(m, std::move(h));
  matrix logits = linear(h, *m.lm_head, linear_layout::out_in, m.logits_bias, conv);
  const float* z = logits.row(0);
  const std::size_t V = logits.cols();
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
