#include "attention/pipeline.h"

#include <fmt/format.h>

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

// Q, K, V projections from the store: separate q_proj/k_proj/v_proj tensors, or the packed
// in_proj_weight of torch.nn.MultiheadAttention when the weights file holds that.
std::vector<projection> projections(param_store& params, std::size_t d, std::size_t d_k) {
  std::vector<projection> out(3);
  if (params.file_has("in_proj_weight")) {
    if (d_k != d)
      throw usage_error(
          fmt::format("in_proj_weight packs projections of size d = {}; --dk {} "
                      "does not match",
                      d, d_k));
    const matrix packed = params.require_matrix("in_proj_weight", 3 * d, d);
    const auto bias = params.optional_vector("in_proj_bias", 3 * d);
    for (std::size_t p = 0; p < 3; ++p) {
      std::vector<float> rows(packed.data() + p * d * d, packed.data() + (p + 1) * d * d);
      out[p].weight = matrix(d, d, std::move(rows));
      if (bias)
        out[p].bias = std::vector<float>(bias->begin() + static_cast<std::ptrdiff_t>(p * d),
                                         bias->begin() + static_cast<std::ptrdiff_t>((p + 1) * d));
    }
    return out;
  }
  const char* names[3] = {"q_proj", "k_proj", "v_proj"};
  for (std::size_t p = 0; p < 3; ++p) {
    out[p].weight = params.require_matrix(fmt::format("{}.weight", names[p]), d_k, d);
    out[p].bias = params.optional_vector(fmt::format("{}.bias", names[p]), d_k);
  }
  return out;
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

}  // namespace

std::string_view structure_name(attention_structure s) {
  return s == attention_structure::self ? "self" : "cross";
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
  if (input.query_tokens.empty() || input.key_tokens.empty())
    throw usage_error("nothing to attend: the sentence has no tokens");

  attention_result result;
  result.structure = input.structure;
  result.query_tokens = input.query_tokens;
  result.key_tokens = input.key_tokens;
  result.spec = spec;
  result.spec.score = std::string(score.info.name);
  result.spec.align = std::string(align.info.name);
  result.spec.context = std::string(context.info.name);
  result.d_model = input.queries.cols();

  matrix q = input.queries, k = input.keys, v = input.values;
  if (spec.project) {
    const std::size_t d_k = spec.d_k ? spec.d_k : result.d_model;
    const auto proj = projections(params, result.d_model, d_k);
    q = apply(proj[0], input.queries);
    k = apply(proj[1], input.keys);
    v = apply(proj[2], input.values);
  }
  result.d_k = k.cols();
  result.d_v = v.cols();

  head_result head;
  head.scores = score.fn(score_inputs{q, k, params, spec.d_a, spec.sharpen});
  check_finite(head.scores, "scores", params);
  const matrix visible = apply_masks(head.scores, spec.masks);
  head.weights = align.fn(visible, align_options{spec.temperature, spec.window, &q, &params});
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
  auto ctx = context.fn(head.weights, v, context_options{spec.hard, spec.seed});
  head.context = std::move(ctx.context);
  check_finite(head.context, "context", params);
  head.chosen_keys = std::move(ctx.chosen);
  result.heads.push_back(std::move(head));
  return result;
}

}  // namespace attnviz
