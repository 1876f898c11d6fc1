#include "attention/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "attention/registry.h"
#include "error.h"
#include "kernels/kernels.h"
#include "stage_times.h"

namespace attnviz {
namespace {

// One projection y = x Wᵀ + b. The weight is read where the store holds it (its tensors stay
// put for the store's lifetime), so a call copies no parameter before the product packs it.
struct projection {
  const float* weight = nullptr;  // [out, in], row-major
  std::size_t out = 0, in = 0;
  std::optional<std::vector<float>> bias;
};

// Q, K, V projections from the store: separate q_proj/k_proj/v_proj tensors of `out` rows, or
// the packed in_proj_weight of torch.nn.MultiheadAttention when the weights file holds that.
// With `skip_values` (ConvS2S), no value projection is asked for.
std::vector<projection> projections(param_store& params, std::size_t d, std::size_t out,
                                    bool skip_values) {
  std::vector<projection> proj(3);
  if (params.file_has("in_proj_weight")) {
    if (out != d)
      throw usage_error(fmt::format(
          "in_proj_weight packs projections of size d = {}; heads x d_k = {} does not match", d,
          out));
    const float* packed = params.require_matrix_data("in_proj_weight", 3 * d, d);
    const auto bias = params.optional_vector("in_proj_bias", 3 * d);
    for (std::size_t p = 0; p < 3; ++p) {
      proj[p].weight = packed + p * d * d;
      proj[p].out = d;
      proj[p].in = d;
      if (bias)
        proj[p].bias = std::vector<float>(bias->begin() + static_cast<std::ptrdiff_t>(p * d),
                                          bias->begin() + static_cast<std::ptrdiff_t>((p + 1) * d));
    }
    return proj;
  }
  const char* names[3] = {"q_proj", "k_proj", "v_proj"};
  for (std::size_t p = 0; p < (skip_values ? 2u : 3u); ++p) {
    proj[p].weight = params.require_matrix_data(fmt::format("{}.weight", names[p]), out, d);
    proj[p].out = out;
    proj[p].in = d;
    proj[p].bias = params.optional_vector(fmt::format("{}.bias", names[p]), out);
  }
  return proj;
}

matrix apply(const projection& p, const matrix& x) {
  if (x.cols() != p.in) throw std::logic_error("projection: input size differs from the weight's");
  matrix y = matrix::uninitialized(x.rows(), p.out);  // beta = 0: every entry written
  kernels::gemm(x.rows(), p.out, p.in, 1.0f, x.data(), x.cols(), p.weight, p.in, true, 0.0f,
                y.data(), p.out);
  if (p.bias) add_row_bias(y, *p.bias);
  return y;
}

// The overflow's likely cause: a scale the user set (named as its parameter), else the
// parameters' source ("--seed 0" or the weights file).
void throw_overflow(const attention_spec& spec, const param_store& params, const char* what) {
  std::string cause;
  if (spec.sharpen != 1.0)
    cause = fmt::format("{} {:g}", param("sharpen"), spec.sharpen);
  else if (spec.position == position_scheme::alibi && spec.alibi_slope != 0.0)
    cause = fmt::format("{} {:g}", param("alibi_slope"), spec.alibi_slope);
  else if (spec.temperature != 1.0)
    cause = fmt::format("{} {:g}", param("temperature"), spec.temperature);
  if (!cause.empty())
    throw input_error(cause, fmt::format("the {} overflowed the float range: use a value closer "
                                         "to 1",
                                         what));
  throw input_error(params.source(),
                    fmt::format("the {} overflowed the float range: the inputs or parameters "
                                "are too large",
                                what));
}

// Scores come from finite inputs and parameters; an infinite or NaN one means they overflowed
// float (|e| > 3.4e38), which no alignment can turn into meaningful weights.
void check_finite(const matrix& m, const char* what, const attention_spec& spec,
                  const param_store& params) {
  for (std::size_t i = 0; i < m.size(); ++i)
    if (!std::isfinite(m.data()[i])) throw_overflow(spec, params, what);
}

// Which keys the masks hid, per head: masked (row-major, empty without masks) and masked_rows.
void record_masks(head_result& head, const mask_map& map) {
  head.masked = map.hidden;
  head.masked_rows = map.full_rows;
}

void mask_hook(const void* masks, std::size_t i, float* scores, std::size_t n_k) {
  mask_row(*static_cast<const mask_set*>(masks), i, scores, n_k);
}

void span_hook(const void* masks, std::size_t i, std::size_t n_k, std::size_t* first,
               std::size_t* end) {
  const key_span span = visible_span(*static_cast<const mask_set*>(masks), i, n_k);
  *first = span.first;
  *end = span.end;
}

// Streaming: forwards blocks of weights to the sink and notes, per head, the rows whose keys
// were all masked. A row with a visible key sums to 1, so with masks a row of zeros is exactly
// a row with every key hidden.
struct sink_relay {
  weights_sink* sink = nullptr;
  bool masks = false;
  std::vector<std::vector<char>> all_masked;  // [head][row], filled only with masks

  void forward(std::size_t h, std::size_t i0, std::size_t rows, const float* w, std::size_t n_k) {
    if (masks)
      for (std::size_t r = 0; r < rows; ++r) {
        const float* row = w + r * n_k;
        all_masked[h][i0 + r] = std::all_of(row, row + n_k, [](float x) { return x == 0.0f; });
      }
    sink->consume(h, i0, rows, w, n_k);
  }
  static void relay(void* self, std::size_t h, std::size_t i0, std::size_t rows, const float* w,
                    std::size_t n_k) {
    static_cast<sink_relay*>(self)->forward(h, i0, rows, w, n_k);
  }
  void record(head_result& head, std::size_t h, std::size_t n_q) const {
    head.masked_rows.assign(n_q, false);
    if (masks)
      for (std::size_t i = 0; i < n_q; ++i) head.masked_rows[i] = all_masked[h][i] != 0;
  }
};

sink_relay make_relay(weights_sink* sink, const mask_set& masks, std::size_t H, std::size_t n_q) {
  sink_relay relay;
  relay.sink = sink;
  relay.masks = !masks.empty();
  if (relay.masks) relay.all_masked.assign(H, std::vector<char>(n_q, 0));
  return relay;
}

// Stages 1-3 for all heads at once with the fused kernel: scaled_dot or dot (scale 1/√d_k or
// 1), softmax, soft.
// Head h reads columns [h d_k, (h+1) d_k) of q and k and [h d_v, (h+1) d_v) of v in place.
// With a sink the weights go there block by block and are not kept.
std::vector<head_result> run_heads_fused(const matrix& q, const matrix& k, const matrix& v,
                                         std::size_t H, std::size_t d_k, std::size_t d_v,
                                         float scale, const std::vector<double>& slopes,
                                         const attention_spec& spec, param_store& params,
                                         weights_sink* sink) {
  const std::size_t n_q = q.rows(), n_k = k.rows();
  check_pad_keys(spec.masks, n_k);
  std::vector<head_result> heads(H);
  std::vector<float*> scores(H, nullptr), weights(H, nullptr), contexts(H);
  for (std::size_t h = 0; h < H; ++h) {
    if (spec.keep_scores && !sink)
      scores[h] = (heads[h].scores = matrix::uninitialized(n_q, n_k)).data();
    if (!sink) weights[h] = (heads[h].weights = matrix::uninitialized(n_q, n_k)).data();
    contexts[h] = (heads[h].context = matrix::uninitialized(n_q, d_v)).data();
  }
  sink_relay relay = make_relay(sink, spec.masks, H, n_q);
  kernels::attention_args args;
  args.heads = H;
  args.n_q = n_q;
  args.n_k = n_k;
  args.d_k = d_k;
  args.d_v = d_v;
  args.q = q.data();
  args.ldq = q.cols();
  args.k = k.data();
  args.ldk = k.cols();
  args.v = v.data();
  args.ldv = v.cols();
  args.scale = scale;
  args.inv_temperature = static_cast<float>(1.0 / spec.temperature);
  if (spec.position == position_scheme::alibi) args.alibi_slopes = slopes.data();
  if (!spec.masks.empty()) {
    args.mask_row = mask_hook;
    args.mask_span = span_hook;
    args.mask_is_span = spans_are_exact(spec.masks);
    args.mask_context = &spec.masks;
  }
  args.scores = scores.data();
  args.weights = sink ? nullptr : weights.data();
  args.context = contexts.data();
  args.ldc = d_v;
  if (sink) {
    args.rows_sink = sink_relay::relay;
    args.sink_context = &relay;
  }
  if (!kernels::attention_softmax(args)) throw_overflow(spec, params, "scores");
  const mask_map map = sink ? mask_map{} : map_masks(spec.masks, n_q, n_k);
  for (std::size_t h = 0; h < H; ++h) {
    check_finite(heads[h].context, "context", spec, params);
    if (sink)
      relay.record(heads[h], h, n_q);
    else
      record_masks(heads[h], map);
    if (spec.position == position_scheme::alibi) heads[h].alibi_slope = slopes[h];
  }
  return heads;
}

struct head_inputs {
  matrix q, k, v;
  double alibi_slope = 0.0;
  std::uint64_t seed = 0;
};

// Stages 1-3 for one head.
head_result run_head(const head_inputs& in, const attention_spec& spec, param_store& params,
                     attention_result& timing) {
  stage_clock clock;
  const score_entry& score = find_score(spec.score);
  const align_entry& align = find_align(spec.align);
  const context_entry& context = find_context(spec.context);
  head_result head;
  matrix scores = score.fn(score_inputs{in.q, in.k, params, spec.d_a, spec.sharpen});
  if (spec.position == position_scheme::alibi) {
    add_alibi(scores, in.alibi_slope);
    head.alibi_slope = in.alibi_slope;
  }
  check_finite(scores, "scores", spec, params);
  add_stage_time(timing.stage_seconds, "score", clock.lap());
  const matrix visible = apply_masks(scores, spec.masks);
  head.weights = align.fn(visible, align_options{spec.temperature, spec.window, &in.q, &params});
  record_masks(head, map_masks(spec.masks, visible.rows(), visible.cols()));
  // a row the alignment left all zero (a local window whose keys the masks all hid) has no key
  // either: listed like a fully masked row
  for (std::size_t i = 0; i < head.weights.rows(); ++i) {
    const float* row = head.weights.row(i);
    if (!std::all_of(row, row + head.weights.cols(), [](float x) { return x == 0.0f; })) continue;
    if (head.masked_rows.empty()) head.masked_rows.assign(head.weights.rows(), false);
    head.masked_rows[i] = true;
  }
  if (spec.keep_scores) head.scores = std::move(scores);
  add_stage_time(timing.stage_seconds, "align", clock.lap());
  auto ctx = context.fn(head.weights, in.v, context_options{spec.hard, in.seed});
  head.context = std::move(ctx.context);
  check_finite(head.context, "context", spec, params);
  head.chosen_keys = std::move(ctx.chosen);
  add_stage_time(timing.stage_seconds, "context", clock.lap());
  return head;
}

// Stages 1-3 for one head in blocks of query rows, each block handed to the sink and dropped:
// at most about 4 M scores (16 MiB) per block, so memory stays O(n_k) per row of the block.
// The stage functions see a block of queries and every key; ALiBi and masks use the queries'
// real indices (row_local variants only, checked by the caller).
head_result run_head_streamed(const head_inputs& in, std::size_t h, const attention_spec& spec,
                              param_store& params, sink_relay& relay, attention_result& timing) {
  const score_entry& score = find_score(spec.score);
  const align_entry& align = find_align(spec.align);
  const context_entry& context = find_context(spec.context);
  const std::size_t n_q = in.q.rows(), n_k = in.k.rows();
  check_pad_keys(spec.masks, n_k);
  const std::size_t block = std::clamp<std::size_t>((std::size_t{4} << 20) / n_k, 1, n_q);
  head_result head;
  head.context = matrix::uninitialized(n_q, in.v.cols());
  if (spec.position == position_scheme::alibi) head.alibi_slope = in.alibi_slope;
  for (std::size_t i0 = 0; i0 < n_q; i0 += block) {
    stage_clock clock;
    const std::size_t rows = std::min(block, n_q - i0);
    matrix q_block = matrix::uninitialized(rows, in.q.cols());
    std::copy(in.q.row(i0), in.q.row(i0) + rows * in.q.cols(), q_block.data());
    matrix scores = score.fn(score_inputs{q_block, in.k, params, spec.d_a, spec.sharpen});
    if (spec.position == position_scheme::alibi) add_alibi(scores, in.alibi_slope, i0);
    check_finite(scores, "scores", spec, params);
    for (std::size_t r = 0; r < rows; ++r) mask_row(spec.masks, i0 + r, scores.row(r), n_k);
    add_stage_time(timing.stage_seconds, "score", clock.lap());
    const matrix weights =
        align.fn(scores, align_options{spec.temperature, spec.window, &q_block, &params});
    relay.forward(h, i0, rows, weights.data(), n_k);
    add_stage_time(timing.stage_seconds, "align", clock.lap());
    const auto ctx = context.fn(weights, in.v, context_options{spec.hard, in.seed});
    std::copy(ctx.context.data(), ctx.context.data() + ctx.context.size(), head.context.row(i0));
    add_stage_time(timing.stage_seconds, "context", clock.lap());
  }
  check_finite(head.context, "context", spec, params);
  relay.record(head, h, n_q);
  return head;
}

// The usage_error for a variant that cannot stream (its rows depend on the query's index).
void check_streamable(const score_entry& score, const align_entry& align,
                      const context_entry& context) {
  const variant_info* fixed = !score.row_local     ? &score.info
                              : !align.row_local   ? &align.info
                              : !context.row_local ? &context.info
                                                   : nullptr;
  if (fixed)
    throw usage_error(fmt::format(
        "'{}' cannot stream: its rows depend on the query's position, so they cannot be "
        "computed block by block; run without {} (and a larger {} if needed)",
        fixed->name, param("stream"), param("max_memory")));
}

// output = Σ_h κ_h C_h W_hᵀ + b (concat: κ_h = 1), W_h = columns [h d_v, (h+1) d_v) of W^O,
// computed as [κ_1 C_1 … κ_H C_H] W^Oᵀ + b.
matrix combine_heads(attention_result& r, param_store& params) {
  const std::size_t H = r.heads.size(), d_v = r.d_v, d = r.d_model;
  const float* w_o = params.require_matrix_data("out_proj.weight", d, H * d_v);  // d × H d_v
  const auto bias = params.optional_vector("out_proj.bias", d);
  std::vector<double> share(H, 1.0);
  if (r.spec.combine == head_combine::weighted) {
    const auto kappa = params.require_vector("combine.kappa", H, param_init::ones);
    double sum = 0.0;
    for (float k : kappa) {
      if (!(k >= 0.0f) || !std::isfinite(k))
        throw input_error(params.source(),
                          "tensor 'combine.kappa' must hold non-negative head weights");
      sum += k;
    }
    if (!(sum > 0.0))
      throw input_error(params.source(), "tensor 'combine.kappa' sums to 0: no head has weight");
    for (std::size_t h = 0; h < H; ++h) share[h] = kappa[h] / sum;
    r.head_share = share;
  }
  // [κ_1 C_1 … κ_H C_H] (n_q × H d_v), then one product with W^O: one pass over the output
  // instead of one per head
  const std::size_t n_q = r.query_tokens.size();
  matrix joined = matrix::uninitialized(n_q, H * d_v);
  for (std::size_t h = 0; h < H; ++h) {
    const auto kappa = static_cast<float>(share[h]);
    for (std::size_t i = 0; i < n_q; ++i) {
      const float* c = r.heads[h].context.row(i);
      float* dst = joined.row(i) + h * d_v;
      for (std::size_t j = 0; j < d_v; ++j) dst[j] = kappa * c[j];
    }
  }
  matrix out = matrix::uninitialized(n_q, d);  // beta = 0: every entry written
  kernels::gemm(n_q, d, H * d_v, 1.0f, joined.data(), H * d_v, w_o, H * d_v, true, 0.0f, out.data(),
                d);
  if (bias) add_row_bias(out, *bias);
  check_finite(out, "output", r.spec, params);
  return out;
}

}  // namespace

void attend_projected(const projected_attention& a, const attention_spec& spec,
                      const std::string& source) {
  check_pad_keys(spec.masks, a.n_k);
  std::vector<float*> contexts(a.heads);
  for (std::size_t h = 0; h < a.heads; ++h) contexts[h] = a.context + h * a.d;
  kernels::attention_args args;
  args.heads = a.heads;
  args.kv_heads = a.kv_heads;
  args.n_q = a.n_q;
  args.n_k = a.n_k;
  args.d_k = args.d_v = a.d;
  args.q = a.q;
  args.ldq = a.ldq;
  args.k = a.k;
  args.ldk = a.ldk;
  args.v = a.v;
  args.ldv = a.ldv;
  args.k_head_stride = a.k_head_stride;
  args.v_head_stride = a.v_head_stride;
  args.scale = static_cast<float>(a.scale > 0.0 ? a.scale
                                                : 1.0 / std::sqrt(static_cast<double>(a.d)));
  args.score_bias = a.bias;
  args.soft_cap = static_cast<float>(a.soft_cap);
  args.inv_temperature = static_cast<float>(1.0 / spec.temperature);
  if (!spec.masks.empty()) {
    args.mask_row = mask_hook;
    args.mask_span = span_hook;
    args.mask_is_span = spans_are_exact(spec.masks);
    args.mask_context = &spec.masks;
  }
  args.weights = a.weights;
  args.context = contexts.data();
  args.ldc = a.ldc;
  args.rows_sink = a.rows_sink;
  args.sink_context = a.sink_context;
  if (!kernels::attention_softmax(args))
    throw input_error(source, "the attention scores overflowed the float range: the weights "
                              "or the inputs are too large");
}

std::string_view structure_name(attention_structure s) {
  return s == attention_structure::self ? "self" : "cross";
}

matrix aggregate_heads(const attention_result& r, head_aggregate how, bool scores) {
  matrix out;
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    const matrix& m = scores ? r.heads[h].scores : r.heads[h].weights;
    if (h == 0) {
      out = m;
      continue;
    }
    for (std::size_t i = 0; i < m.size(); ++i)
      out.data()[i] = how == head_aggregate::max ? std::max(out.data()[i], m.data()[i])
                                                 : out.data()[i] + m.data()[i];
  }
  if (how == head_aggregate::mean && r.heads.size() > 1)
    for (std::size_t i = 0; i < out.size(); ++i)
      out.data()[i] = static_cast<float>(out.data()[i] / static_cast<double>(r.heads.size()));
  return out;
}

namespace {

// The settings a run cannot start with (usage_error naming the parameter).
void check_run(const attention_input& input, const attention_spec& spec) {
  if (!(spec.temperature > 0.0) || !std::isfinite(spec.temperature))
    throw usage_error(fmt::format("{} must be a positive number, got {}", param("temperature"),
                                  spec.temperature));
  if (!std::isfinite(spec.sharpen))
    throw usage_error(
        fmt::format("{} must be a finite number, got {}", param("sharpen"), spec.sharpen));
  if (!(spec.alibi_slope >= 0.0) || !std::isfinite(spec.alibi_slope))
    throw usage_error(fmt::format("{} must be a positive number, got {}", param("alibi_slope"),
                                  spec.alibi_slope));
  if (input.query_tokens.empty() || input.key_tokens.empty())
    throw usage_error("nothing to attend: the sentence has no tokens");
  if (input.values.rows() != input.keys.rows())
    throw usage_error(fmt::format("the values have {} rows; there must be one per key ({})",
                                  input.values.rows(), input.keys.rows()));
}

// The result's description before any number: tokens, where the values come from, the spec
// with the variants' canonical names, d_model.
attention_result describe_run(const attention_input& input, const attention_spec& spec,
                              const score_entry& score, const align_entry& align,
                              const context_entry& context, bool streamed) {
  attention_result result;
  result.structure = input.structure;
  result.query_tokens = input.query_tokens;
  result.key_tokens = input.key_tokens;
  result.value_tokens = input.value_tokens;
  result.values = spec.convs2s                 ? value_source::convs2s
                  : input.value_tokens.empty() ? value_source::keys
                                               : value_source::separate;
  result.spec = spec;
  result.spec.score = std::string(score.info.name);
  result.spec.align = std::string(align.info.name);
  result.spec.context = std::string(context.info.name);
  result.spec.project = spec.project || spec.heads > 0;
  if (streamed) result.spec.keep_scores = false;
  result.d_model = input.queries.cols();
  return result;
}

// Q, K, V of every head side by side (head h: columns [h d_k, (h+1) d_k)), and their widths.
struct projected {
  matrix q, k, v;
  std::size_t d_head = 0, d_v_head = 0;
};

// Stage 0: absolute positions (sinusoidal) added to copies of the inputs, then the learned
// projections X W_Qᵀ, X W_Kᵀ, X W_Vᵀ when projecting (ConvS2S: v_j = z_j + e_j, the projected
// keys plus the input embeddings). d_k = d_model / H unless spec.d_k says otherwise.
projected project_inputs(const attention_input& input, const attention_spec& spec,
                         param_store& params, std::size_t H) {
  const std::size_t d = input.queries.cols();
  const bool project = spec.project || spec.heads > 0;
  if (spec.d_k == 0 && spec.heads > 1 && d % H != 0)
    throw usage_error(fmt::format(
        "{} {} must divide d_model = {} (d_k = d_model / heads); pick another head count or "
        "give {}",
        param("heads"), H, d, param("d_k")));
  const std::size_t d_k = key_size(spec, d);
  std::optional<matrix> moved_q, moved_k, moved_v;  // copied only when positions are added
  if (spec.position == position_scheme::sinusoidal) {
    add_sinusoidal(moved_q.emplace(input.queries));
    add_sinusoidal(moved_k.emplace(input.keys));
    add_sinusoidal(moved_v.emplace(input.values));
  }
  const matrix& xq = moved_q ? *moved_q : input.queries;
  const matrix& xk = moved_k ? *moved_k : input.keys;
  const matrix& xv = moved_v ? *moved_v : input.values;
  projected p;
  if (project) {
    const auto proj = projections(params, d, H * d_k, spec.convs2s);
    p.q = apply(proj[0], xq);
    p.k = apply(proj[1], xk);
    if (!spec.convs2s) p.v = apply(proj[2], xv);
  } else {
    p.q = xq;
    p.k = xk;
    if (!spec.convs2s) p.v = xv;
  }
  if (spec.convs2s) {  // v_j = z_j + e_j: the keys (encoder outputs) plus the input embeddings
    if (p.k.cols() != xv.cols())
      throw usage_error(fmt::format(
          "ConvS2S values add keys (size {}) to embeddings (size {}): they must match (with "
          "{}, heads x d_k = d_model)",
          p.k.cols(), xv.cols(), param("heads")));
    p.v = p.k;
    for (std::size_t i = 0; i < p.v.size(); ++i) p.v.data()[i] += xv.data()[i];
  }
  p.d_head = project ? d_k : p.q.cols();
  p.d_v_head = project ? p.v.cols() / H : p.v.cols();
  return p;
}

// Stages 1-3 head by head through the registry's functions (the general path): each head takes
// its columns of Q, K, V (one head: the matrices themselves), RoPE when asked, its ALiBi slope
// and seed, and its own parameter scope heads.h. when there are several.
std::vector<head_result> attend_heads(projected& p, std::size_t H, const attention_spec& spec,
                                      const std::vector<double>& slopes, param_store& params,
                                      weights_sink* sink, attention_result& result) {
  std::vector<head_result> heads;
  sink_relay relay = make_relay(sink, spec.masks, H, p.q.rows());
  for (std::size_t h = 0; h < H; ++h) {
    head_inputs hin;
    hin.q = H > 1 ? p.q.columns(h * p.d_head, p.d_head) : std::move(p.q);
    hin.k = H > 1 ? p.k.columns(h * p.d_head, p.d_head) : std::move(p.k);
    hin.v = H > 1 ? p.v.columns(h * p.d_v_head, p.d_v_head) : std::move(p.v);
    if (spec.position == position_scheme::rope) {
      apply_rope(hin.q);
      apply_rope(hin.k);
    }
    hin.alibi_slope = slopes[h];
    hin.seed = spec.seed + h;
    std::optional<param_scope> scope;
    if (H > 1) scope.emplace(params, fmt::format("heads.{}.", h));
    heads.push_back(sink ? run_head_streamed(hin, h, result.spec, params, relay, result)
                         : run_head(hin, result.spec, params, result));
  }
  return heads;
}

}  // namespace

attention_result run_attention(const attention_input& input, const attention_spec& spec,
                               param_store& params, weights_sink* sink) {
  const score_entry& score = find_score(spec.score);
  const align_entry& align = find_align(spec.align);
  const context_entry& context = find_context(spec.context);
  if (sink) check_streamable(score, align, context);
  check_run(input, spec);
  attention_result result = describe_run(input, spec, score, align, context, sink != nullptr);
  const std::size_t H = std::max<std::size_t>(spec.heads, 1);

  stage_clock clock;
  projected p = project_inputs(input, spec, params, H);
  result.d_k = p.d_head;
  result.d_v = p.d_v_head;
  add_stage_time(result.stage_seconds, "project", clock.lap());

  const auto slopes = alibi_slopes(H, spec.alibi_slope);
  const bool fused = score.fused != fused_score::none && align.fused && context.fused &&
                     p.q.cols() == p.k.cols();
  if (fused) {
    if (spec.position == position_scheme::rope)
      for (std::size_t h = 0; h < H; ++h) {
        apply_rope_columns(p.q, h * p.d_head, p.d_head);
        apply_rope_columns(p.k, h * p.d_head, p.d_head);
      }
    const float scale = score.fused == fused_score::scaled_dot
                            ? static_cast<float>(1.0 / std::sqrt(static_cast<double>(p.d_head)))
                            : 1.0f;
    result.heads = run_heads_fused(p.q, p.k, p.v, H, p.d_head, p.d_v_head, scale, slopes,
                                   result.spec, params, sink);
    add_stage_time(result.stage_seconds, "attend", clock.lap());
  } else {
    result.heads = attend_heads(p, H, spec, slopes, params, sink, result);
    clock = stage_clock();
  }
  if (spec.heads > 0) {
    result.output = combine_heads(result, params);
    add_stage_time(result.stage_seconds, "combine", clock.lap());
  }
  return result;
}

std::size_t key_size(const attention_spec& spec, std::size_t d_model) {
  if (spec.d_k) return spec.d_k;
  const bool project = spec.project || spec.heads > 0;
  return project ? d_model / std::max<std::size_t>(spec.heads, 1) : d_model;
}

std::size_t value_size(const attention_spec& spec, std::size_t value_cols) {
  return spec.d_k && (spec.project || spec.heads) ? spec.d_k : value_cols;
}

}  // namespace attnviz
