#include "render/views.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>

#include "error.h"
#include "index_list.h"
#include "render/grid.h"

namespace attnviz {

void check_view(const view_options& o) {
  if (o.cell < 0 || o.cell > 256)
    throw usage_error(fmt::format("{} must be between 1 and 256 pixels, got {}", param("cell"),
                                  o.cell));
  colormap::named_or_default(o.cmap);
  check_colour_scale(o.colours);
}

void check_head_grid(std::size_t heads, const view_options& o) {
  if (heads > grid_max_heads && o.heads.what == head_view::kind::grid)
    throw usage_error(fmt::format(
        "{} {}: a figure of every head would have {} panels, and past {} they cannot be read; "
        "draw one head, the mean or the max ({} N, mean, max), or leave out the figure ({} and "
        "{} hold every head)",
        param("heads"), heads, heads + 1, grid_max_heads, param("head_view"), param("json"),
        param("npy")));
}

shown_matrix parse_shown_matrix(std::string_view s) {
  return value_of(shown_matrix_names, s, param("show"));
}

void parse_scale_words(std::string_view words, colour_scale& colours, scale_mode* range) {
  bool mapping_seen = false, range_seen = false;
  std::size_t start = 0;
  while (start <= words.size()) {
    const std::size_t comma = std::min(words.find(',', start), words.size());
    const std::string_view w = words.substr(start, comma - start);
    start = comma + 1;
    if (range != nullptr && (w == "shared" || w == "panel")) {
      if (range_seen) throw usage_error(fmt::format("{} names shared or panel twice", param("scale")));
      range_seen = true;
      *range = value_of(scale_mode_names, w, param("scale"));
      continue;
    }
    if (mapping_seen)
      throw usage_error(fmt::format("{} '{}': one colour mapping (linear, log or power=G){}",
                                    param("scale"), words,
                                    range ? ", and shared or panel" : ""));
    mapping_seen = true;
    try {
      colours.mapping = parse_colour_mapping(w, colours.gamma, "scale");
    } catch (const usage_error&) {
      throw usage_error(fmt::format(
          "{} '{}': expected linear, log or power=G with 0 < G <= 10{}", param("scale"), w,
          range ? ", or shared or panel (one colour range for every panel, or each its own), "
                  "comma-separated: e.g. log,panel"
                : ""));
    }
  }
}

std::optional<double> parse_range_end(std::string_view text, std::string_view name) {
  if (text.empty()) return std::nullopt;
  double v = 0.0;
  const char* first = text.data() + (text.front() == '+' ? 1 : 0);
  const auto [end, ec] = std::from_chars(first, text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw usage_error(fmt::format("{} must be a number, got '{}'", param(name), text));
  return v;
}

void apply_titles(const view_options& o, std::string& title, std::string& subtitle) {
  if (o.no_title) {
    title.clear();
    subtitle.clear();
  } else if (o.title) {
    title = *o.title;
  }
}

std::string crop_label(const view_options& o) {
  std::string s;
  if (!o.rows.empty()) s += fmt::format(" · rows {}", o.rows);
  if (!o.cols.empty()) s += fmt::format(" · cols {}", o.cols);
  return s;
}

void apply_crop(heatmap_spec& spec, const view_options& o, bool say) {
  if (o.rows.empty() && o.cols.empty()) return;
  const matrix& m = *spec.values;
  const auto rows = o.rows.empty() ? std::vector<std::size_t>{}
                                   : parse_index_list(o.rows, m.rows(), "rows", "row");
  const auto cols = o.cols.empty() ? std::vector<std::size_t>{}
                                   : parse_index_list(o.cols, m.cols(), "cols", "column");
  crop_heatmap(spec, rows, cols);
  if (say) spec.subtitle += crop_label(o);
}

annotate_mode parse_annotate_mode(std::string_view s) {
  return value_of(annotate_mode_names, s, param("annotate"));
}

std::string head_view_label(const head_view& v) {
  if (v.what == head_view::kind::max) return "max";
  if (v.what == head_view::kind::one) return fmt::format("head {}", v.head);
  return "mean";
}

std::string_view shown_matrix_name(shown_matrix m) {
  return name_of(shown_matrix_names, m);
}

head_view parse_head_view(std::string_view s) {
  head_view v;
  if (s == "grid") return v;
  if (s == "mean") return v.what = head_view::kind::mean, v;
  if (s == "max") return v.what = head_view::kind::max, v;
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size())
    throw usage_error(
        fmt::format("{} must be grid, mean, max or a head number (heads count from 0), got '{}'",
                    param("head_view"), s));
  v.what = head_view::kind::one;
  v.head = n;
  return v;
}

std::string variant_short_title(const attention_result& r) {
  std::string t = fmt::format("score: {} · align: {} · context: {}", r.spec.score, r.spec.align,
                              r.spec.context);
  if (r.spec.position != position_scheme::none)
    t += fmt::format(" · position: {}", position_name(r.spec.position));
  if (const auto masks = r.spec.masks.describe(); !masks.empty())
    t += fmt::format(" · mask: {}", fmt::join(masks, ", "));
  return t;
}

std::string variant_title(const attention_result& r) {
  std::string kind = fmt::format("{}-attention", structure_name(r.structure));
  if (r.multihead())
    kind += fmt::format(" · {} head{}{}", r.heads.size(), r.heads.size() == 1 ? "" : "s",
                        r.spec.combine == head_combine::weighted ? " (weighted)" : "");
  else if (r.spec.project)
    kind += " (projected)";
  if (r.values == value_source::separate) kind += " · memory (values ≠ keys)";
  if (r.values == value_source::convs2s) kind += " · ConvS2S values";
  return fmt::format("{} · {}", kind, variant_short_title(r));
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
  spec.scale = o.colours;
  spec.cmap = &colormap::named_or_default(o.cmap, scores);
  // a diverging colormap puts 0 in its middle
  for (const auto& info : colormap_registry())
    if (info.name == spec.cmap->name()) spec.centered = info.kind == colormap_kind::diverging;
  if (!scores) spec.marked_col_per_row = h.chosen_keys;
  spec.hidden = h.masked;
  if (r.heads.size() > 1) spec.subtitle = fmt::format("head {} · {}", head, spec.subtitle);
  return spec;
}

heatmap_spec make_matrix_heatmap(const attention_result& r, const matrix& values,
                                 const std::string& what, const view_options& o) {
  heatmap_spec spec = make_heatmap(r, 0, o);
  spec.values = &values;
  spec.marked_col_per_row.clear();
  spec.subtitle = fmt::format("{} · {} · {} queries × {} keys", what,
                              o.show == shown_matrix::scores ? "scores e_ij" : "weights a_ij",
                              values.rows(), values.cols());
  return spec;
}

matrix shown_matrix_of(const attention_result& r, const view_options& o) {
  const bool scores = o.show == shown_matrix::scores;
  if (r.heads.size() == 1) return scores ? r.heads[0].scores : r.heads[0].weights;
  switch (o.heads.what) {
    case head_view::kind::one:
      if (o.heads.head >= r.heads.size())
        throw usage_error(fmt::format("{} {}: there are only {} heads (0 to {})",
                                      param("head_view"), o.heads.head, r.heads.size(),
                                      r.heads.size() - 1));
      return scores ? r.heads[o.heads.head].scores : r.heads[o.heads.head].weights;
    case head_view::kind::max:
      return aggregate_heads(r, head_aggregate::max, scores);
    default:
      return aggregate_heads(r, head_aggregate::mean, scores);
  }
}

figure result_figure(const attention_result& r, const view_options& o,
                     const std::string& subtitle_suffix) {
  if (r.heads.size() == 1 || o.heads.what != head_view::kind::grid) {
    const matrix m = shown_matrix_of(r, o);
    heatmap_spec spec;
    if (r.heads.size() == 1) {
      spec = make_heatmap(r, 0, o);
    } else if (o.heads.what == head_view::kind::one) {
      spec = make_heatmap(r, o.heads.head, o);
    } else {
      const bool mean = o.heads.what == head_view::kind::mean;
      spec = make_matrix_heatmap(
          r, m, fmt::format("{} of {} heads", mean ? "mean" : "max", r.heads.size()), o);
    }
    spec.values = &m;
    spec.subtitle += subtitle_suffix;
    apply_crop(spec, o);
    apply_titles(o, spec.title, spec.subtitle);
    return heatmap_figure(spec);
  }
  // grid: every head, then the mean, on one scale
  const matrix mean = aggregate_heads(r, head_aggregate::mean, o.show == shown_matrix::scores);
  grid_spec grid;
  for (std::size_t h = 0; h < r.heads.size(); ++h) {
    heatmap_spec panel = make_heatmap(r, h, o);
    panel.title = r.spec.position == position_scheme::alibi
                      ? fmt::format("head {} (ALiBi m = {:.4g})", h, r.heads[h].alibi_slope)
                      : fmt::format("head {}", h);
    panel.subtitle.clear();
    apply_crop(panel, o, false);
    grid.panels.push_back(std::move(panel));
  }
  heatmap_spec panel = make_matrix_heatmap(r, mean, "mean", o);
  panel.title = fmt::format("mean of {} heads", r.heads.size());
  panel.subtitle.clear();
  apply_crop(panel, o, false);
  grid.panels.push_back(std::move(panel));
  grid.scale = o.range;
  grid.title = variant_title(r);
  grid.subtitle = fmt::format("{} · d_model {} · d_k {} per head{}", shown_matrix_name(o.show),
                              r.d_model, r.d_k, subtitle_suffix);
  grid.subtitle += crop_label(o);
  apply_titles(o, grid.title, grid.subtitle);
  return grid_figure(grid);
}

}  // namespace attnviz
