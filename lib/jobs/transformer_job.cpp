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
  apply_titles(view, grid.title, grid.subtitle);
  grid.cols = 3;
  return grid_figure(grid);
}

}  // namespace

namespace {

// The three attentions' parameter prefixes: attn-viz's names, or an nn.Transformer state_dict's
// layer c.layer, under --params-prefix.
std::vector<std::string> attention_prefixes(const param_store& params, const transformer_config& c) {
  const std::string& p = c.params_prefix;
  const std::vector<std::string> ours = {p + "encoder.self_attn.", p + "decoder.self_attn.",
                                         p + "decoder.cross_attn."};
  if (!params.from_file()) return ours;
  const std::string layer = fmt::format("layers.{}.", c.layer);
  const std::vector<std::string> torch = {p + "encoder." + layer + "self_attn.",
                                          p + "decoder." + layer + "self_attn.",
                                          p + "decoder." + layer + "multihead_attn."};
  auto holds = [&](const std::string& prefix) {
    return params.file_has(prefix + "in_proj_weight") || params.file_has(prefix + "q_proj.weight");
  };
  if (holds(torch[0])) return torch;
  if (c.layer > 0 || !holds(ours[0])) {
    if (params.file_has(p + "encoder.layers.0.self_attn.in_proj_weight"))
      throw input_error(c.params_in, fmt::format("has no layer {} of an nn.Transformer (no "
                                                 "{}in_proj_weight)",
                                                 c.layer, torch[0]));
    if (c.layer > 0)
      throw usage_error(fmt::format("{} {} picks a layer of an nn.Transformer state_dict; {} is "
                                    "not one",
                                    param("layer"), c.layer, c.params_in));
    throw input_error(c.params_in,
                      fmt::format("holds neither {}* (attn-viz's names) nor {}* (a PyTorch "
                                  "nn.Transformer state_dict){}",
                                  ours[0], torch[0],
                                  p.empty() ? "" : fmt::format(" under {} '{}'",
                                                               param("params_prefix"), p)));
  }
  return ours;
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
  attention_spec three = c.spec;  // the three attentions' parameters, as heads of one
  three.heads = size.heads;
  check_memory(with_parameters(size, three, in.input.queries.cols(), !c.out.params.empty()),
               c.max_memory);

  if (!c.params_prefix.empty() && c.params_in.empty())
    throw usage_error(fmt::format("{} needs {} FILE", param("params_prefix"), param("params")));
  param_store params = param_store::open(c.params_in, c.spec.seed);
  const std::vector<std::string> prefixes = attention_prefixes(params, c);
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
  add("encoder_self", "encoder self-attention (source)", prefixes[0],
      self_of(in.input.key_tokens, in.input.keys), spec);
  add("decoder_self", "masked decoder self-attention (target)", prefixes[1],
      self_of(in.input.query_tokens, in.input.queries), causal);
  add("encoder_decoder", "encoder-decoder attention (target over source)", prefixes[2],
      in.input, spec);

  for (auto& w : input_warnings(in, c.input)) report.warnings.push_back(std::move(w));
  // tensors under the three prefixes that were not read are a mistake worth naming; the rest of
  // a bigger checkpoint (feed-forward, norms, other layers) is expected
  std::vector<std::string> unused_here;
  std::size_t unused_elsewhere = 0;
  for (const auto& name : params.unused_file_tensors()) {
    bool here = false;
    for (const auto& p : prefixes) here = here || name.rfind(p, 0) == 0;
    if (here)
      unused_here.push_back(name);
    else
      ++unused_elsewhere;
  }
  if (!unused_here.empty())
    report.warnings.push_back(
        fmt::format("{}: tensors not used: {}", c.params_in, fmt::join(unused_here, ", ")));
  if (unused_elsewhere > 0 && prefixes[0] == c.params_prefix + "encoder.self_attn.")
    report.warnings.push_back(fmt::format("{}: {} tensors outside the three attentions not used",
                                          c.params_in, unused_elsewhere));
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
