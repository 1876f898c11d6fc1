#include "model/layer_ops.h"

#include <algorithm>

#include "model/blocks.h"

namespace attnviz {

namespace {

// Columns [first, first + count) of the n rows at `at` (row stride ld).
matrix columns_of(const float* at, std::size_t ld, std::size_t n, std::size_t count) {
  matrix out(n, count);
  for (std::size_t r = 0; r < n; ++r) std::copy(at + r * ld, at + r * ld + count, out.row(r));
  return out;
}

// The projections into `a` (q, k, v and their strides); the products are kept in `held`.
void project(layer_context& lc, const layer_weights& w, const matrix& in, projected_attention& a,
             matrix (&held)[3]) {
  const model_config& c = lc.m.config;
  const std::size_t H = c.heads, dh = c.head_dim;
  if (w.qkv) {  // GPT-2: one product, q | k | v side by side
    held[0] = linear(in, *w.qkv, lc.layout, w.qkv_b, lc.conv);
    a.q = held[0].data();
    a.k = held[0].data() + H * dh;
    a.v = held[0].data() + 2 * H * dh;
    a.ldq = a.ldk = a.ldv = held[0].cols();
    return;
  }
  matrix& q = held[0] = linear(in, *w.q, lc.layout, w.q_b, lc.conv);
  matrix& k = held[1] = linear(in, *w.k, lc.layout, w.k_b, lc.conv);
  matrix& v = held[2] = linear(in, *w.v, lc.layout, w.v_b, lc.conv);
  if (c.positions == position_kind::rotary) {
    for (std::size_t h = 0; h < H; ++h) apply_rope_half(q, h * dh, lc.rope);
    for (std::size_t g = 0; g < c.kv_heads; ++g) apply_rope_half(k, g * dh, lc.rope);
  }
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.ldq = q.cols();
  a.ldk = k.cols();
  a.ldv = v.cols();
}

}  // namespace

matrix norm_of(const hf_model& m, const matrix& x, const weight_view* w, const weight_view* b) {
  if (m.config.norm == norm_kind::rms_norm) return rms_norm_of(x, vector_of(*w), m.config.norm_eps);
  return layer_norm_of(x, vector_of(*w), b ? vector_of(*b) : std::vector<float>{},
                       m.config.norm_eps);
}

void activate(const hf_model& m, matrix& x) {
  switch (m.config.activation) {
    case mlp_activation::gelu_erf: gelu_erf(x); return;
    case mlp_activation::gelu_tanh: gelu_tanh(x); return;
    case mlp_activation::silu: silu(x); return;
  }
}

matrix attention_block(layer_context& lc, const layer_weights& w, const matrix& in, float* maps,
                       layer_probe* probe) {
  const model_config& c = lc.m.config;
  const std::size_t H = c.heads, dh = c.head_dim, n = lc.n;
  projected_attention a;
  a.heads = H;
  a.kv_heads = c.kv_heads;
  a.n_q = a.n_k = n;
  a.d = dh;
  matrix held[3];
  project(lc, w, in, a, held);
  if (probe) {
    probe->q = columns_of(a.q, a.ldq, n, H * dh);
    probe->k = columns_of(a.k, a.ldk, n, c.kv_heads * dh);
    probe->v = columns_of(a.v, a.ldv, n, c.kv_heads * dh);
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
  if (w.gate && lc.m.config.activation == mlp_activation::silu) {
    silu_gate(gate, up);
  } else if (w.gate) {
    activate(lc.m, gate);
    multiply_in_place(gate, up);
  } else {
    activate(lc.m, up);
  }
  lc.lap("activation");
  matrix down = linear(w.gate ? gate : up, *w.down, lc.layout, w.down_b, lc.conv);
  lc.lap("mlp_down");
  return down;
}

void add_table_rows(matrix& x, const weight_view& table, std::size_t first, bool same_row) {
  const std::size_t d = x.cols();
  std::vector<float> row(d);
  for (std::size_t r = 0; r < x.rows(); ++r) {
    const std::size_t at = (same_row ? first : first + r) * d;
    table.to_float(at, d, row.data());
    table.check_finite(row.data(), at, d);
    for (std::size_t j = 0; j < d; ++j) x(r, j) += row[j];
  }
}

matrix token_rows(const hf_model& m, const std::vector<std::int64_t>& ids) {
  const std::size_t d = m.config.d_model;
  matrix x(ids.size(), d);
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const std::size_t at = static_cast<std::size_t>(ids[r]) * d;
    m.tokens->to_float(at, d, x.row(r));
    m.tokens->check_finite(x.row(r), at, d);
  }
  return x;
}

void pre_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe) {
  matrix in = norm_of(lc.m, x, w.norm1_w, w.norm1_b);
  lc.lap("norm");
  add_in_place(x, attention_block(lc, w, in, maps, probe));
  in = norm_of(lc.m, x, w.norm2_w, w.norm2_b);
  lc.lap("norm");
  add_in_place(x, mlp_block(lc, w, in));
  lc.lap("norm");
}

}  // namespace attnviz
