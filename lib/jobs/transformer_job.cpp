#include "jobs/transformer_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/job_outputs.h"
#include "params/param_store.h"
#include "render/canvas.h"
#include "render/grid.h"
#include "render/json_result.h"

namespace attnviz {
namespace {

attention_input self_of(const std::vector<std::string>& tokens, const matrix& x) {
  attention_input in;
  in.structure = attention_structure::self;
  in.query_tokens = in.key_tokens = tokens;
  in.queries = in.keys = in.values = x;
  return in;
}

// The three attentions side by side (several heads: the view's mean, max or one head).
figure transformer_figure(const transformer_report& report, const view_options& view,
                          std::string subtitle) {
  grid_spec grid;
  std::vector<matrix> shown;
  shown.reserve(report.attentions.size());
  for (const auto& a : report.attentions) {
    shown.push_back(shown_matrix_of(a.result, view));
    heatmap_spec panel = a.result.heads.size() == 1
                             ? make_heatmap(a.result, 0, view)
                             : make_matrix_heatmap(a.result, shown.back(), "", view);
    panel.title = a.title;
    panel.subtitle.clear();
    grid.panels.push_back(std::move(panel));
  }
  const attention_result& first = report.attentions.front().result;
  const std::size_t H = first.heads.size();
  std::string heads = fmt::format("{} head{}", H, H == 1 ? "" : "s");
  if (H > 1) heads += fmt::format(" ({})", head_view_label(view.heads));
  grid.title = fmt::format("Transformer attentions · {} · {}", heads, variant_short_title(first));
  grid.subtitle = std::move(subtitle);
  grid.cols = 3;
  return grid_figure(grid);
}

}  // namespace

transformer_report run_transformer(const transformer_config& c) {
  check_job(c.out, c.view);
  if (c.input.source.empty() || c.input.target.empty())
    throw usage_error(fmt::format("transformer needs {} (encoder input) and {} (decoder input)",
                                  param("source"), param("target")));

  const prepared_input in = prepare_input(c.input);
  const std::size_t n_src = in.input.key_tokens.size(), n_tgt = in.input.query_tokens.size();
  run_size size = output_size(c.out, c.view, std::max(n_src, n_tgt), std::max(n_src, n_tgt));
  size.d_v = in.input.values.cols();
  size.heads = 3 * std::max<std::size_t>(c.spec.heads, 1);
  check_memory(size, c.max_memory);

  param_store params = param_store::open(c.params_in, c.spec.seed);
  attention_spec spec = c.spec;
  spec.heads = std::max<std::size_t>(spec.heads, 1);
  attention_spec causal = spec;
  causal.masks.rules.insert(causal.masks.rules.begin(), parse_masks("causal").front());

  transformer_report report;
  auto add = [&](std::string key, std::string title, std::string prefix,
                 const attention_input& input, const attention_spec& s) {
    param_scope scope(params, prefix);
    report.attentions.push_back(
        {std::move(key), std::move(title), std::move(prefix), run_attention(input, s, params)});
  };
  add("encoder_self", "encoder self-attention (source)", "encoder.self_attn.",
      self_of(in.input.key_tokens, in.input.keys), spec);
  add("decoder_self", "masked decoder self-attention (target)", "decoder.self_attn.",
      self_of(in.input.query_tokens, in.input.queries), causal);
  add("encoder_decoder", "encoder-decoder attention (target over source)", "decoder.cross_attn.",
      in.input, spec);

  if (auto w = oov_warning(in, c.input); !w.empty()) report.warnings.push_back(std::move(w));
  if (const auto unused = params.unused_file_tensors(); !unused.empty())
    report.warnings.push_back(
        fmt::format("{}: tensors not used: {}", c.params_in, fmt::join(unused, ", ")));

  job_products made;
  made.json = [&] {
    const result_metadata meta{fmt::format("attn-viz {}", version), in.embeddings_name,
                               params.source(), in.oov_tokens,
                               std::string(oov_policy_name(c.input.oov))};
    std::vector<named_result> parts;
    for (const auto& a : report.attentions) parts.push_back({a.key, a.prefix, &a.result});
    return structure_to_json("transformer", parts, meta);
  };
  made.picture = [&] {
    return transformer_figure(
        report, c.view,
        fmt::format("{} · source {} tokens, target {} tokens · {} · parameters {}",
                    shown_matrix_name(c.view.show), n_src, n_tgt, in.embeddings_name,
                    params_label(params)));
  };
  made.params = [&] { return params.serialize_used(); };
  report.written = write_outputs(c.out, made);
  return report;
}

}  // namespace attnviz
