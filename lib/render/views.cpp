#include "render/views.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "error.h"

namespace attnviz {

shown_matrix parse_shown_matrix(std::string_view s) {
  if (s == "weights") return shown_matrix::weights;
  if (s == "scores") return shown_matrix::scores;
  throw usage_error(fmt::format("--show must be weights or scores, got '{}'", s));
}

annotate_mode parse_annotate_mode(std::string_view s) {
  if (s == "auto") return annotate_mode::automatic;
  if (s == "on") return annotate_mode::on;
  if (s == "off") return annotate_mode::off;
  throw usage_error(fmt::format("--annotate must be auto, on or off, got '{}'", s));
}

std::string_view shown_matrix_name(shown_matrix m) {
  return m == shown_matrix::weights ? "weights" : "scores";
}

std::string variant_short_title(const attention_result& r) {
  std::string t = fmt::format("score: {} · align: {} · context: {}", r.spec.score, r.spec.align,
                              r.spec.context);
  if (const auto masks = r.spec.masks.describe(); !masks.empty())
    t += fmt::format(" · mask: {}", fmt::join(masks, ", "));
  return t;
}

std::string variant_title(const attention_result& r) {
  return fmt::format("{}-attention{} · {}", structure_name(r.structure),
                     r.spec.project ? " (projected)" : "", variant_short_title(r));
}

heatmap_spec make_heatmap(const attention_result& r, std::size_t head, const view_options& o) {
  const head_result& h = r.heads.at(head);
  heatmap_spec spec;
  const bool scores = o.show == shown_matrix::scores;
  spec.values = scores ? &h.scores : &h.weights;
  spec.row_labels = r.query_tokens;
  spec.col_labels = r.key_tokens;
  spec.title = variant_title(r);
  spec.subtitle = fmt::format("{} · {} queries × {} keys", scores ? "scores e_ij" : "weights a_ij",
                              h.weights.rows(), h.weights.cols());
  const bool cross = r.structure == attention_structure::cross;
  spec.row_axis = cross ? "queries (target)" : "queries";
  spec.col_axis = cross ? "keys (source)" : "keys";
  spec.cell = o.cell;
  spec.annotate = o.annotate;
  spec.cmap = &colormap::by_name(o.cmap.empty() ? (scores ? "rdbu" : "viridis") : o.cmap);
  // a diverging colormap puts 0 in its middle
  for (const auto& info : colormap_registry())
    if (info.name == spec.cmap->name()) spec.centered = info.kind == colormap_kind::diverging;
  if (!scores) spec.marked_col_per_row = h.chosen_keys;
  spec.hidden = h.masked;
  return spec;
}

}  // namespace attnviz
