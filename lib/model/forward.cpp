#include "model/forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "attention/mask.h"
#include "attention/pipeline.h"
#include "attention/positional.h"
#include "error.h"
#include "model/blocks.h"
#include "model/linear.h"
#include "stage_times.h"

namespace attnviz {

namespace {

// Row r of x = rows ids[r] of the embeddings (+ rows r of `positions`, + row 0 of `types`).
matrix embed(const hf_model& m, const std::vector<std::int64_t>& ids) {
  const std::size_t d = m.config.d_model, n = ids.size();
  matrix x(n, d);
  std::vector<float> row(d);
  for (std::size_t r = 0; r < n; ++r) {
    m.tokens->to_float(static_cast<std::size_t>(ids[r]) * d, d, x.row(r));
    m.tokens->check_finite(x.row(r), static_cast<std::size_t>(ids[r]) * d, d);
    if (m.positions) {
      m.positions->to_float(r * d, d, row.data());
      m.positions->check_finite(row.data(), r * d, d);
      for (std::size_t j = 0; j < d; ++j) x(r, j) += row[j];
    }
    if (m.token_types) {
      m.token_types->to_float(0, d, row.data());
      m.token_types->check_finite(row.data(), 0, d);
      for (std::size_t j = 0; j < d; ++j) x(r, j) += row[j];
    }
  }
  return x;
}

matrix norm_of(const hf_model& m, const matrix& x, const weight_view* w, const weight_view* b) {
  if (m.config.norm == norm_kind::rms_norm) return rms_norm_of(x, vector_of(*w), m.config.norm_eps);
  return layer_norm_of(x, vector_of(*w), b ? vector_of(*b) : std::vector<float>{},
                       m.config.norm_eps);
}

void activate(const hf_model& m, matrix& x) {
  if (m.config.activation == mlp_activation::gelu_erf)
    gelu_erf(x);
  else
    gelu_tanh(x);
}

// Everything one layer needs besides its weights.
struct layer_context {
  const hf_model& m;
  attention_spec spec;  // masks
  rope_half_table rope;
  weight_converter conv;
  linear_layout layout;
  std::size_t n;
  stage_list* times;
  stage_clock clock;
  // Ends the current stage: its time since the last lap goes to `stage`.
  void lap(const char* stage) { add_stage_time(*times, stage, clock.lap()); }
};

// Columns [first, first + count) of the n rows at `at` (row stride ld).
matrix columns_of(const float* at, std::size_t ld, std::size_t n, std::size_t count) {
  matrix out(n, count);
  for (std::size_t r = 0; r < n; ++r) std::copy(at + r * ld, at + r * ld + count, out.row(r));
  return out;
}

// The attention sub-layer on its (normalised) input: projections, RoPE, attend_projected into
// this layer's maps, the output projection; q, k, v kept in `probe` when it is given.
matrix attention_block(layer_context& lc, const layer_weights& w, const matrix& in,
                       float* maps, layer_probe* probe) {
  const model_config& c = lc.m.config;
  const std::size_t H = c.heads, KV = c.kv_heads, dh = c.head_dim, n = lc.n;
  matrix qkv, q, k, v;
  projected_attention a;
  a.heads = H;
  a.kv_heads = KV;
  a.n_q = a.n_k = n;
  a.d = dh;
  if (w.qkv) {  // GPT-2: one product, q | k | v side by side
    qkv = linear(in, *w.qkv, lc.layout, w.qkv_b, lc.conv);
    a.q = qkv.data();
    a.k = qkv.data() + H * dh;
    a.v = qkv.data() + 2 * H * dh;
    a.ldq = a.ldk = a.ldv = qkv.cols();
  } else {
    q = linear(in, *w.q, lc.layout, w.q_b, lc.conv);
    k = linear(in, *w.k, lc.layout, w.k_b, lc.conv);
    v = linear(in, *w.v, lc.layout, w.v_b, lc.conv);
    if (c.family == model_family::llama) {
      for (std::size_t h = 0; h < H; ++h) apply_rope_half(q, h * dh, lc.rope);
      for (std::size_t g = 0; g < KV; ++g) apply_rope_half(k, g * dh, lc.rope);
    }
    a.q = q.data();
    a.k = k.data();
    a.v = v.data();
    a.ldq = q.cols();
    a.ldk = k.cols();
    a.ldv = v.cols();
  }
  if (probe) {
    probe->q = columns_of(a.q, a.ldq, n, H * dh);
    probe->k = columns_of(a.k, a.ldk, n, KV * dh);
    probe->v = columns_of(a.v, a.ldv, n, KV * dh);
  }
  std::vector<float*> weights(H);
  for (std::size_t h = 0; h < H; ++h) weights[h] = maps + h * n * n;
  matrix context = matrix::uninitialized(n, H * dh);
  a.weights = weights.data();
  a.context = context.data();
  a.ldc = H * dh;
  lc.lap("project");
  attend_projected(a, lc.spec, lc.m.weights.source());
  lc.lap("attend");
  matrix out = linear(context, *w.o, lc.layout, w.o_b, lc.conv);
  lc.lap("output");
  return out;
}

matrix mlp_block(layer_context& lc, const layer_weights& w, const matrix& in) {
  matrix up = linear(in, *w.up, lc.layout, w.up_b, lc.conv);
  matrix gate;
  if (w.gate) gate = linear(in, *w.gate, lc.layout, nullptr, lc.conv);
  lc.lap("mlp_up");
  if (w.gate)
    silu_gate(gate, up);
  else
    activate(lc.m, up);
  lc.lap("activation");
  matrix down = linear(w.gate ? gate : up, *w.down, lc.layout, w.down_b, lc.conv);
  lc.lap("mlp_down");
  return down;
}

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
  const std::size_t n = ids.size(), H = c.heads;
  model_forward f;
  f.layers = c.layers;
  f.heads = H;
  f.n = n;
  f.attention = matrix::uninitialized(c.layers * H * n, n);
  layer_context lc{m,  {}, {}, {}, m.conv1d ? linear_layout::in_out : linear_layout::out_in,
                   n,  &f.stage_seconds, {}};
  if (c.causal) lc.spec.masks.rules = parse_masks("causal");
  if (c.sliding_window > 0 && n > c.sliding_window)
    lc.spec.masks.rules.push_back(
        parse_masks(fmt::format("window:{}", c.sliding_window - 1)).front());
  if (c.family == model_family::llama) lc.rope = make_rope_half_table(n, rope_frequencies(c));

  matrix x = embed(m, ids);
  if (m.embed_norm_w) x = norm_of(m, x, m.embed_norm_w, m.embed_norm_b);
  lc.lap("embed");
  progress bar("running", "layers", c.layers, style);
  for (std::size_t l = 0; l < c.layers; ++l) {
    const layer_weights& w = m.layers[l];
    float* maps = f.attention.data() + l * H * n * n;
    layer_probe* kept = probe && probe->layer == l ? probe : nullptr;
    if (c.family == model_family::bert) {  // post-norm
      matrix a = attention_block(lc, w, x, maps, kept);
      add_in_place(a, x);
      x = norm_of(m, a, w.norm2_w, w.norm2_b);
      lc.lap("norm");
      matrix f2 = mlp_block(lc, w, x);
      add_in_place(f2, x);
      x = norm_of(m, f2, w.norm3_w, w.norm3_b);
      lc.lap("norm");
    } else {  // pre-norm
      matrix in = norm_of(m, x, w.norm1_w, w.norm1_b);
      lc.lap("norm");
      add_in_place(x, attention_block(lc, w, in, maps, kept));
      in = norm_of(m, x, w.norm2_w, w.norm2_b);
      lc.lap("norm");
      add_in_place(x, mlp_block(lc, w, in));
      lc.lap("norm");
    }
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
  if (c.family == model_family::bert) {
    if (!m.mlm_dense)
      throw input_error(m.weights.source(),
                        "has no masked-LM head (cls.predictions.*): this BERT checkpoint cannot "
                        "fill in [MASK]");
    h = linear(h, *m.mlm_dense, linear_layout::out_in, m.mlm_dense_b, conv);
    activate(m, h);
    h = norm_of(m, h, m.mlm_norm_w, m.mlm_norm_b);
  }
  matrix logits = linear(h, *m.lm_head, linear_layout::out_in, m.mlm_bias, conv);
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
