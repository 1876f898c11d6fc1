#include "model/layer_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/mask.h"
#include "kernels/kernels.h"
#include "model/blocks.h"

namespace attnviz {

namespace {

// Every row of x times `scale` ([x.cols()]) element by element: a layer scale.
void scale_columns(matrix& x, const weight_view& scale) {
  const std::vector<float> s = vector_of(scale);
  if (s.size() != x.cols()) throw std::logic_error("scale_columns: the scale is not as wide as x");
  for (std::size_t r = 0; r < x.rows(); ++r) {
    float* row = x.row(r);
    for (std::size_t k = 0; k < s.size(); ++k) row[k] *= s[k];
  }
}

// Columns [first, first + count) of the n rows at `at` (row stride ld).
matrix columns_of(const float* at, std::size_t ld, std::size_t n, std::size_t count) {
  matrix out(n, count);
  for (std::size_t r = 0; r < n; ++r) std::copy(at + r * ld, at + r * ld + count, out.row(r));
  return out;
}

// A fused projection's output split into q, k and v (n × H·d_h, n × KV·d_h twice), from the
// column order the config names: q | k | v, or per key/value group g of H/KV query heads
// [q_{g·H/KV} … | k_g | v_g].
void split_qkv(const matrix& fused, const layer_context& lc, matrix (&held)[3]) {
  const std::size_t n = fused.rows(), H = lc.heads, KV = lc.kv_heads, dh = lc.head_dim;
  const bool grouped = lc.m.config.fused_qkv == qkv_order::grouped;
  const std::size_t widths[3] = {H * dh, KV * dh, KV * dh}, per = H / KV;
  for (std::size_t part = 0; part < 3; ++part) held[part] = matrix::uninitialized(n, widths[part]);
  for (std::size_t r = 0; r < n; ++r) {
    const float* row = fused.row(r);
    if (grouped) {
      for (std::size_t g = 0; g < KV; ++g) {
        const float* group = row + g * (per + 2) * dh;
        std::copy(group, group + per * dh, held[0].row(r) + g * per * dh);
        std::copy(group + per * dh, group + (per + 1) * dh, held[1].row(r) + g * dh);
        std::copy(group + (per + 1) * dh, group + (per + 2) * dh, held[2].row(r) + g * dh);
      }
    } else {
      std::copy(row, row + widths[0], held[0].row(r));
      std::copy(row + widths[0], row + widths[0] + widths[1], held[1].row(r));
      std::copy(row + widths[0] + widths[1], row + widths[0] + 2 * widths[1], held[2].row(r));
    }
  }
}

// An RMS norm's scale: its weights, plus the config's offset (Gemma: 1 + w, in float).
std::vector<float> rms_scale(const hf_model& m, const weight_view& w) {
  std::vector<float> scale = vector_of(w);
  if (m.config.norm_weight_offset != 0.0f)
    for (float& s : scale) s += m.config.norm_weight_offset;
  return scale;
}

// Each of `heads` heads of x (d_h columns each, x exactly heads · d_h wide) through the config's
// RMS norm with weights w, in place: every (row, head) is a row of d_h floats.
void norm_heads(const layer_context& lc, matrix& x, const weight_view& w, std::size_t heads) {
  const std::size_t dh = lc.head_dim;
  if (x.cols() != heads * dh) throw std::logic_error("norm_heads: x is not heads · d_h wide");
  const std::vector<float> scale = rms_scale(lc.m, w);
  kernels::rms_norm_rows(x.data(), dh, x.data(), dh, x.rows() * heads, dh, scale.data(),
                         static_cast<float>(lc.m.config.norm_eps));
}

// RoPE on every query and key head (its first rotary_dims dimensions), in the config's pairing.
void rotate(layer_context& lc, matrix& q, matrix& k) {
  const std::size_t dh = lc.head_dim;
  auto turn = lc.m.config.rope_layout == rope_pairs::interleaved ? apply_rope_interleaved
                                                                  : apply_rope_half;
  for (std::size_t h = 0; h < lc.heads; ++h) turn(q, h * dh, lc.rope);
  for (std::size_t g = 0; g < lc.kv_heads; ++g) turn(k, g * dh, lc.rope);
}

// The projections of `in` through w (q, k, v; or one fused product), RoPE applied when the
// config's positions are rotary (rows at positions past, past + 1, …): the products in held[],
// pointers and strides in a.
// Row lc.zeroed_value of the values (every key/value head's columns) set to 0, when one is.
void zero_value_row(const layer_context& lc, float* v, std::size_t ldv) {
  if (lc.zeroed_value >= lc.n) return;
  std::fill_n(v + lc.zeroed_value * ldv, lc.kv_heads * lc.head_dim, 0.0f);
}

void project(layer_context& lc, const attention_weights& w, const matrix& in,
             projected_attention& a, matrix (&held)[3]) {
  const std::size_t H = lc.heads, dh = lc.head_dim;
  const bool rotary = lc.m.config.positions == position_kind::rotary;
  if (w.qkv && !rotary && lc.m.config.fused_qkv == qkv_order::blocks) {
    // GPT-2: one product, q | k | v side by side, read in place
    held[0] = linear(in, *w.qkv, lc.layout, w.qkv_b, lc.conv);
    a.q = held[0].data();
    a.k = held[0].data() + H * dh;
    a.v = held[0].data() + 2 * H * dh;
    a.ldq = a.ldk = a.ldv = held[0].cols();
    zero_value_row(lc, held[0].data() + 2 * H * dh, a.ldv);
    return;
  }
  if (w.qkv) {
    split_qkv(linear(in, *w.qkv, lc.layout, w.qkv_b, lc.conv), lc, held);
  } else {
    held[0] = linear(in, *w.q, lc.layout, w.q_b, lc.conv);
    held[1] = linear(in, *w.k, lc.layout, w.k_b, lc.conv);
    held[2] = linear(in, *w.v, lc.layout, w.v_b, lc.conv);
  }
  matrix &q = held[0], &k = held[1], &v = held[2];
  if (w.q_norm) {
    norm_heads(lc, q, *w.q_norm, lc.heads);
    norm_heads(lc, k, *w.k_norm, lc.kv_heads);
  }
  if (rotary) rotate(lc, q, k);
  zero_value_row(lc, v.data(), v.cols());
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.ldq = q.cols();
  a.ldk = k.cols();
  a.ldv = v.cols();
}

// The kernel's rows of one layer, on to the taps.
struct tap_relay {
  map_taps* taps;
  std::size_t layer;
  static void relay(void* context, std::size_t head, std::size_t i0, std::size_t rows,
                    const float* weights, std::size_t n_k) {
    const auto* r = static_cast<const tap_relay*>(context);
    r->taps->rows(r->layer, head, i0, rows, weights, n_k);
  }
};

// attend_projected for a's queries (set) over its keys (set), into `maps` (head h's n_q × n_k
// rows at maps + h · head_stride; head_stride 0: n_q · n_k, [H, n_q, n_k]) or, with `taps`, where
// they say (and every row to them, then the values), then the output projection; `biased`: the
// context's score bias added (self-attention).
matrix attend_and_output(layer_context& lc, const attention_weights& w, projected_attention& a,
                         float* maps, std::size_t head_stride, const attention_spec& spec,
                         bool biased, map_taps* taps) {
  const std::size_t H = lc.heads, dh = lc.head_dim;
  const std::size_t stride = head_stride ? head_stride : a.n_q * a.n_k;
  std::vector<float*> weights(H);
  tap_relay relay{taps, lc.layer};
  for (std::size_t h = 0; h < H; ++h)
    weights[h] = taps ? taps->map_of(lc.layer, h) : maps ? maps + h * stride : nullptr;
  if (taps) {
    a.rows_sink = tap_relay::relay;
    a.sink_context = &relay;
  }
  std::vector<const float*> bias;
  if (biased && !lc.score_bias.empty()) {
    if (lc.score_bias.size() != H * a.n_q * a.n_k)
      throw std::logic_error("attention_block: the score bias is not [H, n_q, n_k]");
    for (std::size_t h = 0; h < H; ++h) bias.push_back(lc.score_bias.data() + h * a.n_q * a.n_k);
    a.bias = bias.data();
  }
  a.scale = lc.score_scale;
  if (biased) a.soft_cap = lc.soft_cap;
  matrix context = matrix::uninitialized(a.n_q, H * dh);
  a.weights = weights.data();
  a.context = context.data();
  a.ldc = H * dh;
  lc.lap("project");
  attend_projected(a, spec, lc.m.weights.source());
  lc.lap("attend");
  if (taps)  // a measure's time (lib/measures/) counts as the output's
    taps->values({lc.layer, H, lc.kv_heads, dh, a.n_k, a.v, a.ldv, w.o, lc.layout, w.out_scale});
  matrix out = linear(context, *w.o, lc.layout, w.o_b, lc.conv);
  if (w.out_scale) scale_columns(out, *w.out_scale);
  lc.lap("output");
  return out;
}

projected_attention shape_of(const layer_context& lc, std::size_t n_k) {
  projected_attention a;
  a.heads = lc.heads;
  a.kv_heads = lc.kv_heads;
  a.n_q = lc.n;
  a.n_k = n_k;
  a.d = lc.head_dim;
  return a;
}

}  // namespace

layer_context::layer_context(const hf_model& model, std::size_t rows, stage_list* stage_times)
    : m(model),
      n(rows),
      heads(model.config.heads),
      kv_heads(model.config.kv_heads),
      head_dim(model.config.head_dim),
      layout(model.conv1d ? linear_layout::in_out : linear_layout::out_in),
      times(stage_times) {}

void kv_cache::append(const float* k_rows, std::size_t ldk, const float* v_rows, std::size_t ldv,
                      std::size_t n, std::size_t kv_heads, std::size_t head_dim) {
  if (rows > 0 && (kv_heads != heads || head_dim != k.cols()))
    throw std::logic_error("kv_cache::append: rows of another shape");
  if (rows + n > capacity) {  // each head's rows so far to the start of its new block
    const std::size_t grown = std::max<std::size_t>({rows + n, 2 * capacity, 16, planned});
    matrix k2 = matrix::uninitialized(kv_heads * grown, head_dim);
    matrix v2 = matrix::uninitialized(kv_heads * grown, head_dim);
    for (std::size_t g = 0; g < heads && rows > 0; ++g) {
      std::copy(k.row(g * capacity), k.row(g * capacity) + rows * head_dim, k2.row(g * grown));
      std::copy(v.row(g * capacity), v.row(g * capacity) + rows * head_dim, v2.row(g * grown));
    }
    k = std::move(k2);
    v = std::move(v2);
    capacity = grown;
    heads = kv_heads;
  }
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t g = 0; g < kv_heads; ++g) {
      const float* kr = k_rows + r * ldk + g * head_dim;
      const float* vr = v_rows + r * ldv + g * head_dim;
      std::copy(kr, kr + head_dim, k.row(g * capacity + rows + r));
      std::copy(vr, vr + head_dim, v.row(g * capacity + rows + r));
    }
  rows += n;
}

matrix norm_of(const hf_model& m, const matrix& x, const weight_view* w, const weight_view* b) {
  if (m.config.norm == norm_kind::rms_norm)
    return rms_norm_of(x, rms_scale(m, *w), m.config.norm_eps);
  return layer_norm_of(x, vector_of(*w), b ? vector_of(*b) : std::vector<float>{},
                       m.config.norm_eps);
}

matrix mlm_transform(const hf_model& m, matrix h) {
  weight_converter conv;
  h = linear(h, *m.head_dense, linear_layout::out_in, m.head_dense_b, conv);
  activate(m, h);
  return norm_of(m, h, m.head_norm_w, m.head_norm_b);
}

void activate(const hf_model& m, matrix& x) {
  switch (m.config.activation) {
    case mlp_activation::gelu_erf: gelu_erf(x); return;
    case mlp_activation::gelu_tanh: gelu_tanh(x); return;
    case mlp_activation::silu: silu(x); return;
    case mlp_activation::relu: relu(x); return;
  }
}

matrix attention_block(layer_context& lc, const attention_weights& w, const matrix& in,
                       float* maps, layer_probe* probe, kv_cache* cache) {
  const std::size_t n = lc.n, kv_cols = lc.kv_heads * lc.head_dim;
  projected_attention a = shape_of(lc, n);
  matrix held[3];
  project(lc, w, in, a, held);
  if (probe) {
    probe->q = columns_of(a.q, a.ldq, n, lc.heads * lc.head_dim);
    probe->k = columns_of(a.k, a.ldk, n, kv_cols);
    probe->v = columns_of(a.v, a.ldv, n, kv_cols);
  }
  if (cache) {  // attend over every row so far: the cache with this call's rows appended
    if (lc.taps) throw std::logic_error("attention_block: taps read rows, not a cache's heads");
    cache->append(a.k, a.ldk, a.v, a.ldv, n, lc.kv_heads, lc.head_dim);
    a.k = cache->k.data();
    a.v = cache->v.data();
    a.ldk = a.ldv = lc.head_dim;
    a.k_head_stride = a.v_head_stride = cache->head_stride();
    a.n_k = cache->rows;
  }
  return attend_and_output(lc, w, a, maps, lc.map_head_stride, lc.spec, true, lc.taps);
}

kv_rows project_memory(layer_context& lc, const attention_weights& w, const matrix& encoder_out) {
  kv_rows memory;
  memory.k = linear(encoder_out, *w.k, lc.layout, w.k_b, lc.conv);
  memory.v = linear(encoder_out, *w.v, lc.layout, w.v_b, lc.conv);
  memory.rows = encoder_out.rows();
  lc.lap("project");
  return memory;
}

matrix cross_attention_block(layer_context& lc, const attention_weights& w, const matrix& in,
                             const kv_rows& memory, float* maps, map_taps* taps) {
  projected_attention a = shape_of(lc, memory.rows);
  const matrix q = linear(in, *w.q, lc.layout, w.q_b, lc.conv);
  a.q = q.data();
  a.ldq = q.cols();
  a.k = memory.k.data();
  a.v = memory.v.data();
  a.ldk = memory.k.cols();
  a.ldv = memory.v.cols();
  return attend_and_output(lc, w, a, maps, 0, attention_spec{}, false, taps);
}

// Phi-3's fused product [gate | up] split into its two halves.
void split_gate_up(const matrix& fused, matrix& gate, matrix& up) {
  const std::size_t half = fused.cols() / 2;
  gate = matrix::uninitialized(fused.rows(), half);
  up = matrix::uninitialized(fused.rows(), half);
  for (std::size_t r = 0; r < fused.rows(); ++r) {
    std::copy(fused.row(r), fused.row(r) + half, gate.row(r));
    std::copy(fused.row(r) + half, fused.row(r) + 2 * half, up.row(r));
  }
}

namespace {

// SwiGLU's middle in one pass over `in` (linear.h) where the sub-layer has one: SiLU, [out, in]
// weights, no biases.
std::optional<matrix> fused_swiglu(const layer_context& lc, const layer_weights& w,
                                   const matrix& in) {
  if (lc.m.config.activation != mlp_activation::silu || lc.layout != linear_layout::out_in)
    return std::nullopt;
  if (w.gate && w.up && !w.up_b)
    return swiglu_linear(in, *w.gate, 0, *w.up, 0, static_cast<std::size_t>(w.gate->shape[0]));
  if (w.gate_up && !w.gate_up_b) {
    const auto half = static_cast<std::size_t>(w.gate_up->shape[0]) / 2;
    return swiglu_linear(in, *w.gate_up, 0, *w.gate_up, half, half);
  }
  return std::nullopt;
}

// The feed-forward sub-layer on every row of `in` at once.
matrix mlp_rows(layer_context& lc, const layer_weights& w, const matrix& in) {
  if (std::optional<matrix> middle = fused_swiglu(lc, w, in)) {
    lc.lap("mlp_up");  // the activation with it
    matrix down = linear(*middle, *w.down, lc.layout, w.down_b, lc.conv);
    if (w.scale2) scale_columns(down, *w.scale2);
    lc.lap("mlp_down");
    return down;
  }
  matrix up, gate;
  if (w.gate_up) {
    split_gate_up(linear(in, *w.gate_up, lc.layout, w.gate_up_b, lc.conv), gate, up);
  } else {
    up = linear(in, *w.up, lc.layout, w.up_b, lc.conv);
    if (w.gate) gate = linear(in, *w.gate, lc.layout, nullptr, lc.conv);
  }
  const bool gated = w.gate || w.gate_up;
  lc.lap("mlp_up");
  if (gated && lc.m.config.activation == mlp_activation::silu) {
    silu_gate(gate, up);
  } else if (gated) {
    activate(lc.m, gate);
    multiply_in_place(gate, up);
  } else {
    activate(lc.m, up);
  }
  lc.lap("activation");
  matrix down = linear(gated ? gate : up, *w.down, lc.layout, w.down_b, lc.conv);
  if (w.scale2) scale_columns(down, *w.scale2);
  lc.lap("mlp_down");
  return down;
}

}  // namespace

matrix mlp_block(layer_context& lc, const layer_weights& w, const matrix& in) {
  const std::size_t n = in.rows(), d = in.cols();
  if (n <= mlp_row_chunk) return mlp_rows(lc, w, in);
  matrix out;
  for (std::size_t r0 = 0; r0 < n; r0 += mlp_row_chunk) {
    const std::size_t rows = std::min(mlp_row_chunk, n - r0);
    matrix part = matrix::uninitialized(rows, d);
    std::copy(in.row(r0), in.row(r0) + rows * d, part.data());
    const matrix y = mlp_rows(lc, w, part);
    if (r0 == 0) out = matrix::uninitialized(n, y.cols());
    std::copy(y.data(), y.data() + y.size(), out.row(r0));
  }
  return out;
}

void add_table_rows(matrix& x, const weight_view& table, std::size_t first, bool same_row) {
  std::vector<std::size_t> rows(x.rows());
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = same_row ? first : first + r;
  add_table_rows(x, table, rows);
}

void add_table_rows(matrix& x, const weight_view& table, const std::vector<std::size_t>& rows) {
  const std::size_t d = x.cols();
  std::vector<float> row(d);
  for (std::size_t r = 0; r < x.rows(); ++r) {
    const std::size_t at = rows[r] * d;
    table.to_float(at, d, row.data());
    table.check_finite(row.data(), at, d);
    for (std::size_t j = 0; j < d; ++j) x(r, j) += row[j];
  }
}

std::vector<float> sinusoid_table(std::size_t rows, std::size_t d) {
  std::vector<float> t(rows * d, 0.0f);
  const std::size_t sines = (d + 1) / 2;  // an odd d has one sine column more
  for (std::size_t p = 0; p < rows; ++p)
    for (std::size_t j = 0; j < sines; ++j) {
      const double angle = static_cast<double>(p) /
                           std::pow(10000.0, 2.0 * static_cast<double>(j) / static_cast<double>(d));
      t[p * d + j] = static_cast<float>(std::sin(angle));
      if (sines + j < d) t[p * d + sines + j] = static_cast<float>(std::cos(angle));
    }
  return t;
}

matrix token_rows(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t) {
  const auto d = static_cast<std::size_t>(m.tokens->shape[1]);
  const auto V = static_cast<std::uint64_t>(m.tokens->shape[0]);
  matrix x(ids.size(), d);
  for (std::size_t r = 0; r < ids.size(); ++r) {
    // Every id was checked where it entered (the text's, config.json's): one outside the table
    // here is a defect, never a read past it.
    if (ids[r] < 0 || static_cast<std::uint64_t>(ids[r]) >= V)
      throw std::logic_error(fmt::format("token_rows: id {} outside the embedding table's {} rows",
                                         ids[r], V));
    const std::size_t at = static_cast<std::size_t>(ids[r]) * d;
    m.tokens->to_float(at, d, x.row(r));
    m.tokens->check_finite(x.row(r), at, d);
  }
  return x;
}

void add_sliding_window(mask_set& masks, std::size_t window, std::size_t past, std::size_t n) {
  if (window == 0) return;
  if (past == 0) {
    if (n > window) masks.rules.push_back(parse_masks(fmt::format("window:{}", window - 1)).front());
    return;
  }
  for (std::size_t j = 0; j + window < past + 1; ++j) masks.pad_keys.push_back(j);
}

void report_residual(const layer_context& lc, const matrix& x, const matrix& out,
                     residual_kind kind, const weight_view* nw, const weight_view* nb) {
  report_residual_to(lc.taps, lc, x, out, kind, nw, nb);
}

void report_residual_to(map_taps* taps, const layer_context& lc, const matrix& x, const matrix& out,
                        residual_kind kind, const weight_view* nw, const weight_view* nb) {
  if (!taps) return;
  attention_residual r;
  r.layer = lc.layer;
  r.n = x.rows();
  r.d = x.cols();
  r.x = x.data();
  r.out = out.data();
  r.kind = kind;
  if (kind != residual_kind::add) {
    if (!nw) throw std::logic_error("report_residual: a norm without its weight");
    r.rms = lc.m.config.norm == norm_kind::rms_norm;
    r.gamma = r.rms ? rms_scale(lc.m, *nw) : vector_of(*nw);
    if (!r.rms && nb) r.beta = vector_of(*nb);
    r.eps = lc.m.config.norm_eps;
  }
  taps->residual(r);
}

void post_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                     layer_probe* probe, kv_cache* cache) {
  matrix a = attention_block(lc, w.self, x, maps, probe, cache);
  report_residual(lc, x, a, residual_kind::norm_of_sum, w.norm2_w, w.norm2_b);
  add_in_place(a, x);
  x = norm_of(lc.m, a, w.norm2_w, w.norm2_b);
  lc.lap("norm");
  matrix f = mlp_block(lc, w, x);
  add_in_place(f, x);
  x = norm_of(lc.m, f, w.norm3_w, w.norm3_b);
  lc.lap("norm");
}

void parallel_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe, kv_cache* cache) {
  const matrix in = norm_of(lc.m, x, w.norm1_w, w.norm1_b);
  lc.lap("norm");
  matrix attention = attention_block(lc, w.self, in, maps, probe, cache);
  report_residual(lc, x, attention, residual_kind::add);
  matrix mlp = mlp_block(lc, w, w.norm2_w ? norm_of(lc.m, x, w.norm2_w, w.norm2_b) : in);
  add_in_place(attention, mlp);
  add_in_place(x, attention);
  lc.lap("norm");
}

void pre_norm_block(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                    layer_probe* probe, kv_cache* cache) {
  matrix in = norm_of(lc.m, x, w.norm1_w, w.norm1_b);
  lc.lap("norm");
  const matrix attention = attention_block(lc, w.self, in, maps, probe, cache);
  report_residual(lc, x, attention, residual_kind::add);
  add_in_place(x, attention);
  in = norm_of(lc.m, x, w.norm2_w, w.norm2_b);
  lc.lap("norm");
  add_in_place(x, mlp_block(lc, w, in));
  lc.lap("norm");
}

}  // namespace attnviz
