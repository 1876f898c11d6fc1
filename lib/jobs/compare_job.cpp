#include "jobs/compare_job.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <nlohmann/json.hpp>

#include "analysis/subwords.h"
#include "attention/registry.h"
#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/job_outputs.h"
#include "params/param_store.h"
#include "render/html_page.h"
#include "render/json_result.h"

namespace attnviz {
namespace {

// Canonical names, in the order given, without repeats; "all" is every registered one.
template <class Entries, class Find>
std::vector<std::string> expand(const std::vector<std::string>& given, const std::string& fallback,
                                const Entries& registry, Find find) {
  std::vector<std::string> out;
  auto add = [&](std::string_view name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  };
  if (given.empty()) add(find(fallback).info.name);
  for (const auto& g : given) {
    if (g == "all")
      for (const auto& e : registry) add(e.info.name);
    else
      add(find(g).info.name);
  }
  return out;
}

// Every variant's map in one grid, named by what differs between them.
figure compare_figure(const compare_config& c, const compare_report& report,
                      const std::vector<std::string>& scores,
                      const std::vector<std::string>& aligns,
                      const std::vector<std::string>& contexts, const std::string& embeddings_name) {
  const std::size_t n = report.variants.size();
  grid_spec grid;
  std::deque<matrix>
      drawn;  // multi-head panels other than the metrics' matrix (stable addresses)
  for (const auto& v : report.variants) {
    heatmap_spec panel = make_heatmap(v.result, 0, c.view);
    if (v.result.heads.size() > 1) {
      const bool same =
          c.view.show == shown_matrix::weights && c.view.heads.what != head_view::kind::max;
      const matrix& m = same ? v.shown : drawn.emplace_back(shown_matrix_of(v.result, c.view));
      panel = make_matrix_heatmap(v.result, m, "", c.view);
    }
    panel.title = v.label;
    panel.subtitle.clear();
    apply_crop(panel, c.view, false);
    grid.panels.push_back(std::move(panel));
  }
  const attention_result& first = report.variants.front().result;
  grid.title = fmt::format("{}-attention{} · {} variants · {}", structure_name(first.structure),
                           first.multihead()
                               ? fmt::format(" · {} heads ({})", first.heads.size(),
                                             head_view_label(c.view.heads))
                           : first.spec.project ? " (projected)"
                                                : "",
                           n, shown_matrix_name(c.view.show));
  grid.subtitle =
      fmt::format("score: {} · align: {} · context: {} · {}", fmt::join(scores, ", "),
                  fmt::join(aligns, ", "), fmt::join(contexts, ", "), embeddings_name);
  grid.subtitle += crop_label(c.view);
  apply_titles(c.view, grid.title, grid.subtitle);
  grid.cols = c.cols;
  grid.scale = c.scale;
  return grid_figure(grid);
}

}  // namespace

compare_report run_compare(const compare_config& c) {
  check_job(c.out, c.view);
  if (c.cols < 0)
    throw usage_error(fmt::format("{} must be at least 1, got {}", param("cols"), c.cols));

  const auto scores = expand(c.scores, c.spec.score, score_registry(), find_score);
  const auto aligns = expand(c.aligns, c.spec.align, align_registry(), find_align);
  const auto contexts = expand(c.contexts, c.spec.context, context_registry(), find_context);
  const std::size_t n = scores.size() * aligns.size() * contexts.size();
  if (n < 2)
    throw usage_error(
        fmt::format("compare needs at least two variants: give several names to {}, "
                    "{} or {} (or {} all)",
                    param("scores"), param("aligns"), param("contexts"), param("scores")));
  if (n > 64) throw usage_error(fmt::format("{} variants is more than compare draws (64)", n));

  const prepared_input in = prepare_input(c.input);
  run_size size =
      output_size(c.out, c.view, in.input.query_tokens.size(), in.input.key_tokens.size());
  size.d_v = value_size(c.spec, in.input.values.cols());
  size.heads = std::max<std::size_t>(c.spec.heads, 1);
  size.variants = n;
  // the variants run one after the other over one set of parameters: count the largest score's
  attention_spec largest = c.spec;
  for (const auto& s : scores)
    if (find_score(s).has_parameters) largest.score = s;
  check_memory(with_parameters(size, largest, in.input.queries.cols(), !c.out.params.empty()),
               c.max_memory);
  compare_report report;
  for (auto& w : input_warnings(in, c.input)) report.warnings.push_back(std::move(w));
  for (const auto& s : scores)
    for (const auto& a : aligns)
      for (const auto& x : contexts) {
        attention_spec spec = c.spec;
        spec.score = s, spec.align = a, spec.context = x;
        // each variant gets its own store: general and location both name a score.W
        param_store params = param_store::open(c.params_in, spec.seed, c.params_prefix);
        std::vector<std::string> parts;
        if (scores.size() > 1) parts.push_back(s);
        if (aligns.size() > 1) parts.push_back(a);
        if (contexts.size() > 1) parts.push_back(x);
        attention_result r = run_attention(in.input, spec, params);
        if (c.input.merge_subwords) r = merge_subwords(r);
        compared_variant v{fmt::format("{}", fmt::join(parts, " · ")), std::move(r), {}};
        // metrics need distributions: the heads' mean (also for --head-view max) or one head
        view_options weights_view = c.view;
        weights_view.show = shown_matrix::weights;
        if (weights_view.heads.what == head_view::kind::max)
          weights_view.heads.what = head_view::kind::mean;
        v.shown = shown_matrix_of(v.result, weights_view);
        report.variants.push_back(std::move(v));
      }
  std::vector<const matrix*> weights;
  for (const auto& v : report.variants) weights.push_back(&v.shown);
  report.metrics = compare_weights(weights);

  job_products made;
  made.json = [&] {
    std::vector<std::pair<std::string, const attention_result*>> results;
    for (const auto& v : report.variants) results.emplace_back(v.label, &v.result);
    const result_metadata meta{
        fmt::format("attn-viz {}", version), in.embeddings_name,
        c.params_in.empty() ? fmt::format("--seed {}", c.spec.seed) : c.params_in, in.oov_tokens,
        std::string(oov_policy_name(c.input.oov))};
    return comparison_to_json(results, report.metrics, meta);
  };
  made.picture = [&] {
    return compare_figure(c, report, scores, aligns, contexts, in.embeddings_name);
  };
  made.html = [&] {
    std::vector<html_panel> panels;
    for (const auto& v : report.variants) panels.push_back({v.label, &v.result});
    const attention_result& first = report.variants.front().result;
    return html_page(panels, c.view,
                     fmt::format("{}-attention · {} variants", structure_name(first.structure), n),
                     fmt::format("{} queries × {} keys · {}", first.query_tokens.size(),
                                 first.key_tokens.size(), in.embeddings_name),
                     format_comparison(report));
  };
  report.written = write_outputs(c.out, made);
  return report;
}

std::string format_comparison(const compare_report& r) {
  std::size_t w = 7;
  for (const auto& v : r.variants) w = std::max(w, v.label.size());
  std::string s =
      fmt::format("{:<{}}  {:>14}  {:>15}\n", "variant", w, "entropy (bits)", "max weight");
  for (std::size_t k = 0; k < r.variants.size(); ++k)
    s +=
        fmt::format("{:<{}}  {:>14.4f}  {:>15.4f}\n", r.variants[k].label, w,
                    r.metrics.variants[k].mean_entropy_bits, r.metrics.variants[k].mean_max_weight);
  s += fmt::format("\n{:<{}}  {:<{}}  {:>12}  {:>12}  {:>10}\n", "variant a", w, "variant b", w,
                   "JS (bits)", "top-1 agree", "Spearman");
  for (const auto& p : r.metrics.pairs)
    s += fmt::format("{:<{}}  {:<{}}  {:>12.4f}  {:>12.3f}  {:>10}\n", r.variants[p.a].label, w,
                     r.variants[p.b].label, w, p.mean_js_divergence_bits, p.top_key_agreement,
                     p.mean_spearman ? fmt::format("{:.4f}", *p.mean_spearman) : "n/a");
  s += "\nmeans over query rows; entropy and JS in bits (log2); top-1 agree: share of queries "
       "whose highest-weight key is the same; Spearman: rank correlation of the two rows "
       "(rows with all-equal weights left out)\n";
  return s;
}

}  // namespace attnviz
