#include "attention/pipeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "attention/registry.h"
#include "error.h"

namespace attnviz {
namespace {

struct projection {
  matrix weight;  // [out, in]
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
    const matrix packed = params.require_matrix("in_proj_weight", 3 * d, d);
    const auto bias = params.optional_vector("in_proj_bias", 3 * d);
    for (std::size_t p = 0; p < 3; ++p) {
      std::vector<float> rows(packed.data() + p * d * d, packed.data() + (p + 1) * d * d);
      proj[p].weight = matrix(d, d, std::move(rows));
      if (bias)
        proj[p].bias = std::vector<float>(bias->begin() + static_cast<std::ptrdiff_t>(p * d),
                                          bias->begin() + static_cast<std::ptrdiff_t>((p + 1) * d));
    }
    return proj;
  }
  const char* names[3] = {"q_proj", "k_proj", "v_proj"};
  for (std::size_t p = 0; p < (skip_values ? 2u : 3u); ++p) {
    proj[p].weight = params.require_matrix(fmt::format("{}.weight", names[p]), out, d);
    proj[p].bias = params.optional_vector(fmt::format("{}.bias", names[p]), out);
  }
  return proj;
}

matrix apply(const projection& p, const matrix& x) {
  matrix y = matmul_nt(x, p.weight);
  if (p.bias) add_row_bias(y, *p.bias);
  return y;
}

// Scores come from finite inputs and parameters; an infinite or NaN one means they overflowed
// float (|e| > 3.4e38), which no alignment can turn into meaningful weights.
void check_finite(const matrix& m, const char* what, const param_store& params) {
  for (std::size_t i = 0; i < m.size(); ++i)
    if (!std::isfinite(m.data()[i]))
      throw input_error(params.source(),
                        fmt::format("the {} overflowed the float range: the inputs or parameters "
                                    "are too large",
                                    what));
}

struct head_inputs {
  matrix q, k, v;
  double alibi_slope = 0.0;
  std::uint64_t seed = 0;
};

// Stages 1-3 for one head.
head_result run_head(const head_inputs& in, const attention_spec& spec, param_store& params) {
  const score_entry& score = find_score(spec.score);
  const align_entry& align = find_align(spec.align);
  const context_entry& context = find_context(spec.context);
  head_result head;
  head.scores = score.fn(score_inputs{in.q, in.k, params, spec.d_a, spec.sharpen});
  if (spec.position == position_scheme::alibi) {
    add_alibi(head.scores, in.alibi_slope);
    head.alibi_slope = in.alibi_slope;
  }
  check_finite(head.scores, "scores", params);
  const matrix visible = apply_masks(head.scores, spec.masks);
  head.weights = align.fn(visible, align_options{spec.temperature, spec.window, &in.q, &params});
  head.masked_rows.assign(visible.rows(), false);
  if (!spec.masks.empty()) head.masked.assign(visible.size(), false);
  for (std::size_t i = 0; i < visible.rows(); ++i) {
    bool all_masked = true;
    for (std::size_t j = 0; j < visible.cols(); ++j) {
      const bool m = visible(i, j) == -std::numeric_limits<float>::infinity();
      if (m) head.masked[i * visible.cols() + j] = true;
      all_masked = all_masked && m;
    }
    head.masked_rows[i] = all_masked;
  }
  auto ctx = context.fn(head.weights, in.v, context_options{spec.hard, in.seed});
  head.context = std::move(ctx.context);
  check_finite(head.context, "context", params);
  head.chosen_keys = std::move(ctx.chosen);
  return head;
}

// output = Σ_h κ_h C_h W_hᵀ + b (concat: κ_h = 1), W_h = columns [h d_v, (h+1) d_v) of W^O.
matrix combine_heads(attention_result& r, param_store& params) {
  const std::size_t H = r.heads.size(), d_v = r.d_v, d = r.d_model;
  const matrix w_o = params.require_matrix("out_proj.weight", d, H * d_v);
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
  matrix out(r.query_tokens.size(), d);
  for (std::size_t h = 0; h < H; ++h) {
    const matrix part = matmul_nt(r.heads[h].context, w_o.columns(h * d_v, d_v));
    for (std::size_t i = 0; i < out.size(); ++i)
      out.data()[i] = static_cast<float>(out.data()[i] + share[h] * part.data()[i]);
  }
  if (bias) add_row_bias(out, *bias);
  check_finite(out, "output", params);
  return out;
}

}  // namespace

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

attention_result run_attention(const attention_input& input, const attention_spec& spec,
                               param_store& params) {
  const score_entry& score = find_score(spec.score);
  const align_entry& align = find_align(spec.align);
  const context_entry& context = find_context(spec.context);
  if (!(spec.temperature > 0.0) || !std::isfinite(spec.temperature))
    throw usage_error(
        fmt::format("--temperature must be a positive number, got {}", spec.temperature));
  if (!std::isfinite(spec.sharpen)) throw usage_error("--sharpen must be a finite number");
  if (!(spec.alibi_slope >= 0.0) || !std::isfinite(spec.alibi_slope))
    throw usage_error("--alibi-slope must be a positive number");
  if (input.query_tokens.empty() || input.key_tokens.empty())
    throw usage_error("nothing to attend: the sentence has no tokens");
  if (input.values.rows() != input.keys.rows())
    throw usage_error(fmt::format("the values have {} rows; there must be one per key ({})",
                                  input.values.rows(), input.keys.rows()));

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
  const std::size_t d = input.queries.cols();
  result.d_model = d;

  const std::size_t H = std::max<std::size_t>(spec.heads, 1);
  const bool project = spec.project || spec.heads > 0;
  result.spec.project = project;
  std::size_t d_k = spec.d_k;
  if (d_k == 0) {
    if (spec.heads > 1 && d % H != 0)
      throw usage_error(fmt::format(
          "--heads {} must divide d_model = {} (d_k = d_model / heads); pick another head "
          "count or give --dk",
          H, d));
    d_k = project ? d / H : d;
  }

  // Inputs, with absolute positions when asked.
  matrix xq = input.queries, xk = input.keys, xv = input.values;
  if (spec.position == position_scheme::sinusoidal) {
    add_sinusoidal(xq);
    add_sinusoidal(xk);
    add_sinusoidal(xv);
  }
  matrix q = xq, k = xk, v = xv;
  if (project) {
    const auto proj = projections(params, d, H * d_k, spec.convs2s);
    q = apply(proj[0], xq);
    k = apply(proj[1], xk);
    if (!spec.convs2s) v = apply(proj[2], xv);
  }
  if (spec.convs2s) {  // v_j = z_j + e_j: the keys (encoder outputs) plus the input embeddings
    if (k.cols() != xv.cols())
      throw usage_error(fmt::format(
          "ConvS2S values add keys (size {}) to embeddings (size {}): they must match (with "
          "--heads, heads x d_k = d_model)",
          k.cols(), xv.cols()));
    v = k;
    for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] += xv.data()[i];
  }
  const std::size_t d_head = project ? d_k : q.cols();
  const std::size_t d_v_head = project ? v.cols() / H : v.cols();
  result.d_k = d_head;
  result.d_v = d_v_head;

  const auto slopes = alibi_slopes(H, spec.alibi_slope);
  for (std::size_t h = 0; h < H; ++h) {
    head_inputs hin;
    // one head takes the matrices as they are; several take their columns
    hin.q = H > 1 ? q.columns(h * d_head, d_head) : std::move(q);
    hin.k = H > 1 ? k.columns(h * d_head, d_head) : std::move(k);
    hin.v = H > 1 ? v.columns(h * d_v_head, d_v_head) : std::move(v);
    if (spec.position == position_scheme::rope) {
      apply_rope(hin.q);
      apply_rope(hin.k);
    }
    hin.alibi_slope = slopes[h];
    hin.seed = spec.seed + h;
    std::optional<param_scope> scope;
    if (H > 1) scope.emplace(params, fmt::format("heads.{}.", h));
    result.heads.push_back(run_head(hin, result.spec, params));
  }
  if (spec.heads > 0) result.output = combine_heads(result, params);
  return result;
}

}  // namespace attnviz
