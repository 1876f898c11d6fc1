#include "jobs/maps_views.h"

#include <fmt/format.h>

#include "analysis/layer_maps.h"
#include "error.h"
#include "index_list.h"
#include "io/npy.h"
#include "jobs/map_keeper.h"
#include "render/head_view.h"
#include "render/model_page.h"
#include "render/model_view.h"
#include "render/picture_view.h"
#include "render/text_page.h"
#include "tokenizers/token_display.h"

namespace attnviz {

std::vector<std::size_t> chosen(const std::string& list, std::size_t count, const char* parameter,
                                const char* what) {
  if (!list.empty()) return parse_index_list(list, count, parameter, what);
  std::vector<std::size_t> all(count);
  for (std::size_t i = 0; i < count; ++i) all[i] = i;
  return all;
}

std::string list_label(const char* what, const std::string& list, std::size_t count) {
  return list.empty() ? fmt::format("{}s 0-{}", what, count - 1) : fmt::format("{}s {}", what, list);
}

model_maps maps_of(const maps_source& s) {
  model_maps m{s.maps, s.layers, s.heads, s.n, {}, s.residual};
  if (!s.maps) m.kept = s.kept;
  return m;
}

bool draws_heatmap(maps_view v) {
  return v != maps_view::model && v != maps_view::lines && v != maps_view::overlay &&
         v != maps_view::logit_lens && !received_view(v);
}

bool computes_map(maps_view v) {
  return received_view(v) || v == maps_view::logit_lens ||
         (v != maps_view::head && draws_heatmap(v));
}

bool view_reads_layers(maps_view w) {
  using v = maps_view;
  return w == v::model || w == v::mean || w == v::max || w == v::rollout || w == v::flow ||
         w == v::generation || w == v::received || w == v::received_rollout;
}

bool view_reads_heads(maps_view w) {
  using v = maps_view;
  return w == v::model || w == v::mean || w == v::max || w == v::lines || w == v::overlay ||
         w == v::generation || w == v::received;
}

void check_view_choice(const view_choice& c, std::size_t layers, std::size_t heads, std::size_t n,
                       bool causal, bool lens) {
  using v = maps_view;
  const v w = c.view;
  const bool takes_layers = view_reads_layers(w), takes_heads = view_reads_heads(w);
  const std::string name(name_of(maps_view_names, w));
  if (w == v::logit_lens && !lens)
    throw usage_error(
        fmt::format("{} logit-lens reads a model's layers one by one: attn-viz "
                    "model --model DIR --text TEXT {} logit-lens",
                    param("view"), param("view")));
  if (w == v::alignment)
    throw usage_error(fmt::format("{} alignment draws the cross attention of an encoder–decoder "
                                  "model (bart, mbart, marian, t5) as a word alignment; these "
                                  "maps have no source and target",
                                  param("view")));
  if (!c.layers.empty() && !takes_layers)
    throw usage_error(fmt::format("{} chooses the layers of {} model, mean, max, rollout and flow; "
                                  "{} {} draws the one {} gives",
                                  param("layers"), param("view"), param("view"), name,
                                  param("layer")));
  if (!c.heads.empty() && !takes_heads)
    throw usage_error(fmt::format("{} chooses the heads of {} model, mean, max, lines and overlay; "
                                  "{} {} {}",
                                  param("heads"), param("view"), param("view"), name,
                                  w == v::head ? fmt::format("draws the one {} gives", param("head"))
                                               : std::string("averages every head of a layer "
                                                             "(Abnar & Zuidema 2020)")));
  if (!c.layers.empty()) parse_index_list(c.layers, layers, "layers", "layer");
  if (!c.heads.empty()) parse_index_list(c.heads, heads, "heads", "head");
  if (c.layer >= layers)
    throw usage_error(fmt::format("{} {}: there are {} layers (0 to {})", param("layer"), c.layer,
                                  layers, layers - 1));
  if (c.head >= heads)
    throw usage_error(fmt::format("{} {}: there are {} heads (0 to {})", param("head"), c.head,
                                  heads, heads - 1));
  if ((!c.look.rows.empty() || !c.look.cols.empty()) && !draws_heatmap(w))
    throw usage_error(
        fmt::format("{} and {} choose the rows and columns of one map; {} {} draws "
                    "{}: pick {} head, mean, max, rollout or flow",
                    param("rows"), param("cols"), param("view"), name,
                    w == v::model        ? "every head as a thumbnail"
                    : w == v::logit_lens ? "a token per layer and position"
                                         : "lines between tokens",
                    param("view")));
  if (!c.look.rows.empty()) parse_index_list(c.look.rows, n, "rows", "row");
  if (!c.look.cols.empty()) parse_index_list(c.look.cols, n, "cols", "column");
  if (w == v::flow) check_flow_size(n, chosen(c.layers, layers, "layers", "layer").size(), causal);
}

namespace {

// The generated rows of one head's map, or of the mean over the chosen layers × heads, each
// divided by its largest weight.
matrix generation_values(const maps_source& s, const view_choice& c) {
  if (s.prompt == 0 || s.prompt >= s.n)
    throw usage_error(fmt::format("{} generation draws what {} generated: add {} N",
                                  param("view"), param("model"), param("generate")));
  const model_maps maps = maps_of(s);
  matrix full;
  if (c.layers.empty() && c.heads.empty()) {
    const float* map = maps.map(c.layer, c.head);
    full = matrix(s.n, s.n, std::vector<float>(map, map + s.n * s.n));
  } else {
    full = reduce_maps(maps, chosen(c.layers, s.layers, "layers", "layer"),
                       chosen(c.heads, s.heads, "heads", "head"), map_reduce::mean);
  }
  matrix out(s.n - s.prompt, s.n);
  for (std::size_t r = 0; r < out.rows(); ++r) {
    const float* row = full.row(s.prompt + r);
    float most = 0.0f;
    for (std::size_t j = 0; j < s.n; ++j) most = std::max(most, row[j]);
    for (std::size_t j = 0; j < s.n; ++j) out(r, j) = most > 0.0f ? row[j] / most : 0.0f;
  }
  return out;
}

void generation_heatmap(const maps_source& s, const view_choice& c, heatmap_spec& spec) {
  const std::size_t rows = s.n - s.prompt;
  spec.row_labels.assign(s.tokens.begin() + static_cast<std::ptrdiff_t>(s.prompt), s.tokens.end());
  spec.row_axis = "generated tokens";
  spec.col_axis = "prompt | generated tokens";
  spec.boundary_col = s.prompt;
  spec.hidden.assign(rows * s.n, false);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = s.prompt + r + 1; j < s.n; ++j) spec.hidden[r * s.n + j] = true;
  const std::string what =
      c.layers.empty() && c.heads.empty()
          ? fmt::format("layer {} · head {}", c.layer, c.head)
          : fmt::format("mean over {} × {}", list_label("layer", c.layers, s.layers),
                        list_label("head", c.heads, s.heads));
  spec.title = fmt::format("generation · {} · {}", what, s.name);
  spec.subtitle = fmt::format("{} · {} prompt tokens, {} generated · each row ÷ its largest weight",
                              s.subtitle, s.prompt, rows);
}

// received: per token the mean over the chosen layers × heads of the weight it gets from the
// queries that can see it (column sums over the rows from j, causal; over all n rows, not);
// received-rollout: the rollout's column sums over the same count of queries.
matrix received_values(const maps_source& s, const view_choice& c) {
  const auto layers = chosen(c.layers, s.layers, "layers", "layer");
  std::vector<double> sum(s.n, 0.0);
  double maps_count = 1.0;
  if (c.view == maps_view::received_rollout && s.received_rollout) {
    sum.assign(s.received_rollout, s.received_rollout + s.n);
  } else if (c.view == maps_view::received_rollout) {
    sum = rollout_column_sums(maps_of(s), layers);
  } else {
    const auto heads = chosen(c.heads, s.heads, "heads", "head");
    const model_maps maps = maps_of(s);
    for (const std::size_t l : layers)
      for (const std::size_t h : heads) {
        const std::vector<float> computed =
            s.received ? std::vector<float>() : column_sums(maps.map(l, h), 1, s.n);
        const float* r = s.received ? s.received + (l * s.heads + h) * s.n : computed.data();
        for (std::size_t j = 0; j < s.n; ++j) sum[j] += r[j];
      }
    maps_count = static_cast<double>(layers.size() * heads.size());
  }
  matrix out(1, s.n);
  for (std::size_t j = 0; j < s.n; ++j)
    out(0, j) = static_cast<float>(sum[j] / maps_count /
                                   static_cast<double>(s.causal ? s.n - j : s.n));
  return out;
}

figure received_figure(const maps_source& s, const view_choice& c) {
  const matrix values = received_values(s, c);
  text_page_spec p;
  p.tokens = s.tokens;
  p.values.assign(values.data(), values.data() + s.n);
  p.cmap = &colormap::named_or_default(c.look.cmap);
  p.colours = c.look.colours;
  const std::string layers = list_label("layer", c.layers, s.layers);
  const char* from = s.causal ? "the queries that can see it (itself and those after it)"
                              : "every query";
  if (c.view == maps_view::received_rollout) {
    p.title = fmt::format("attention received · rolled out through {} · {}", layers, s.name);
    p.subtitle = fmt::format("{} · {} tokens · each token: the mean share of {} traced back to it",
                             s.subtitle, s.n, from);
  } else {
    p.title = fmt::format("attention received · mean over {} × {} · {}", layers,
                          list_label("head", c.heads, s.heads), s.name);
    p.subtitle = fmt::format("{} · {} tokens · each token: the mean weight it gets from {}",
                             s.subtitle, s.n, from);
  }
  apply_titles(c.look, p.title, p.subtitle);
  return text_page_figure(p);
}

}  // namespace

// The lens' top-token probabilities, [layers + 1, n] (row l: layer l's input; the last row the
// model's output).
matrix lens_values(const maps_source& s) {
  if (!s.lens) throw std::logic_error("lens_values: no logit lens in the source");
  const logit_lens& lens = *s.lens;
  matrix p(lens.rows, lens.n);
  for (std::size_t l = 0; l < lens.rows; ++l)
    for (std::size_t i = 0; i < lens.n; ++i) p(l, i) = lens.prob(l, i);
  return p;
}

// --view logit-lens: the output's row on top, layer 0's input at the bottom; each cell the top
// token at that position, coloured by its probability (0 to 1).
figure lens_figure(const maps_source& s, const view_choice& c) {
  const logit_lens& lens = *s.lens;
  auto values = std::make_shared<matrix>(lens.rows, lens.n);
  heatmap_spec spec;
  const bool byte_level = is_byte_level_sequence(lens.tokens);
  for (std::size_t r = 0; r < lens.rows; ++r) {
    const std::size_t l = lens.rows - 1 - r;
    spec.row_labels.push_back(l + 1 == lens.rows ? std::string("output")
                                                 : fmt::format("layer {}", l));
    for (std::size_t i = 0; i < lens.n; ++i) {
      (*values)(r, i) = lens.prob(l, i);
      spec.cell_texts.push_back(display_token(lens.tokens[(l * lens.n + i) * lens.k], byte_level));
    }
  }
  spec.owned = values;
  spec.values = values.get();
  spec.col_labels = s.tokens;
  spec.title = fmt::format("logit lens · {}", s.name);
  spec.subtitle = fmt::format(
      "{} · each layer's input through the output embeddings: the top "
      "token, coloured by its probability",
      s.subtitle);
  spec.row_axis = "read from";
  spec.col_axis = "position";
  spec.vmin = 0.0;
  spec.vmax = 1.0;
  spec.cell = c.look.cell > 0 ? c.look.cell : 60;
  spec.cmap = &colormap::named_or_default(c.look.cmap);
  apply_titles(c.look, spec.title, spec.subtitle);
  return heatmap_figure(spec);
}

matrix view_values(const maps_source& s, const view_choice& c) {
  if (c.view == maps_view::generation) return generation_values(s, c);
  if (c.view == maps_view::logit_lens) return lens_values(s);
  if (received_view(c.view)) return received_values(s, c);
  model_maps maps = maps_of(s);
  maps.fusion = c.fusion;
  maps.discard = c.discard;
  const auto layers = chosen(c.layers, s.layers, "layers", "layer");
  switch (c.view) {
    case maps_view::mean:
    case maps_view::max:
      return reduce_maps(maps, layers, chosen(c.heads, s.heads, "heads", "head"),
                         c.view == maps_view::mean ? map_reduce::mean : map_reduce::max);
    case maps_view::rollout: return attention_rollout(maps, layers);
    case maps_view::flow: return attention_flow(maps, layers, c.progress);
    case maps_view::head:
    case maps_view::model:
    case maps_view::lines:
    case maps_view::overlay:
    case maps_view::alignment:
    case maps_view::generation:
    case maps_view::received:
    case maps_view::received_rollout:
    case maps_view::logit_lens:
      break;
  }
  const float* map = maps.map(c.layer, c.head);
  return matrix(s.n, s.n, std::vector<float>(map, map + s.n * s.n));
}

std::string view_npy(const maps_source& s, const view_choice& c) {
  const matrix view = view_values(s, c);
  if (received_view(c.view)) return npy_float32({view.cols()}, view.data());
  return npy_float32({view.rows(), view.cols()}, view.data());
}

heatmap_spec view_heatmap(const maps_source& s, const view_choice& c, const matrix& values) {
  const std::size_t n = s.n;
  heatmap_spec spec;
  spec.values = &values;
  spec.row_labels = s.tokens;
  spec.col_labels = s.tokens;
  const std::string layers = list_label("layer", c.layers, s.layers);
  switch (c.view) {
    case maps_view::mean:
    case maps_view::max:
      spec.title = fmt::format("{} over {} × {} · {}", name_of(maps_view_names, c.view), layers,
                               list_label("head", c.heads, s.heads), s.name);
      break;
    case maps_view::rollout:
    case maps_view::flow:
      spec.title = fmt::format("attention {} through {} · {}", name_of(maps_view_names, c.view),
                               layers, s.name);
      break;
    default: spec.title = fmt::format("layer {} · head {} · {}", c.layer, c.head, s.name);
  }
  spec.subtitle = s.subtitle;
  spec.cell = c.look.cell;
  spec.annotate = c.look.annotate;
  spec.scale = c.look.colours;
  spec.cmap = &colormap::named_or_default(c.look.cmap);
  if (c.view == maps_view::generation) {
    generation_heatmap(s, c, spec);
  } else if (s.causal) {
    spec.hidden.assign(n * n, false);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) spec.hidden[i * n + j] = true;
  }
  apply_crop(spec, c.look);
  apply_titles(c.look, spec.title, spec.subtitle);
  return spec;
}

namespace {

// The patches' values of one token's row (n values) of a vision model's map.
std::vector<double> patch_values(const maps_source& s, const float* row) {
  return std::vector<double>(row + s.first_patch, row + s.first_patch + s.grid_rows * s.grid_cols);
}

// The model view over the picture: every chosen layer × head's CLS row.
void picture_model_panels(const maps_source& s, const view_choice& c, picture_view_spec& v) {
  const model_maps maps = maps_of(s);
  const auto layers = chosen(c.layers, s.layers, "layers", "layer");
  const auto heads = chosen(c.heads, s.heads, "heads", "head");
  v.panel_rows = layers.size();
  v.panel_cols = heads.size();
  for (const std::size_t l : layers) v.row_labels.push_back(fmt::format("L{}", l));
  for (const std::size_t h : heads) v.col_labels.push_back(fmt::format("H{}", h));
  for (const std::size_t l : layers)
    for (const std::size_t h : heads) v.panels.push_back(patch_values(s, maps.map(l, h)));
  v.scale = c.scale;
  v.title = fmt::format("CLS attention over the picture · {} · {} tokens", s.name, s.n);
}

std::string fusion_label(const view_choice& c) {
  std::string s = fmt::format("heads fused by their {}", name_of(head_fusion_names, c.fusion));
  if (c.discard > 0.0)
    s += fmt::format(", the smallest {:g} % of weights discarded", c.discard * 100);
  return s;
}

figure picture_figure(const maps_source& s, const view_choice& c) {
  picture_view_spec v;
  v.picture = s.picture;
  v.grid_rows = s.grid_rows;
  v.grid_cols = s.grid_cols;
  v.cmap = &colormap::named_or_default(c.look.cmap);
  v.colours = c.look.colours;
  v.alpha = c.alpha;
  v.subtitle = s.subtitle;
  const std::string layers = list_label("layer", c.layers, s.layers);
  if (c.view == maps_view::model) {
    picture_model_panels(s, c, v);
  } else if (c.view == maps_view::overlay) {
    v.panels.push_back(patch_values(s, maps_of(s).map(c.layer, c.head)));
    v.title = fmt::format("CLS attention · layer {} · head {} · {}", c.layer, c.head, s.name);
  } else if (received_view(c.view)) {
    const matrix values = received_values(s, c);
    v.panels.push_back(patch_values(s, values.data()));
    v.title =
        fmt::format("attention each patch receives{} · {} · {}",
                    c.view == maps_view::received_rollout ? ", rolled out" : "", layers, s.name);
  } else {
    const matrix values = view_values(s, c);
    v.panels.push_back(patch_values(s, values.row(0)));
    const bool chained = c.view == maps_view::rollout || c.view == maps_view::flow;
    v.title = fmt::format("CLS {} · {}{} · {}", name_of(maps_view_names, c.view), layers,
                          chained ? "" : " × " + list_label("head", c.heads, s.heads), s.name);
    if (chained) v.subtitle += " · " + fusion_label(c);
  }
  v.subtitle += fmt::format(" · overlay α {:g}", c.alpha);
  apply_titles(c.look, v.title, v.subtitle);
  return picture_view_figure(v);
}

}  // namespace

bool draws_on_picture(const maps_source& s, maps_view v) {
  return s.picture && v != maps_view::head && v != maps_view::lines && v != maps_view::generation &&
         v != maps_view::logit_lens && v != maps_view::alignment;
}

figure draw_view(const maps_source& s, const view_choice& c, std::vector<std::string> captions) {
  if (draws_on_picture(s, c.view)) return picture_figure(s, c);
  if (received_view(c.view)) return received_figure(s, c);
  if (c.view == maps_view::logit_lens) return lens_figure(s, c);
  if (c.view == maps_view::model) {
    model_view_spec v;
    const model_maps maps = maps_of(s);
    v.layers = s.layers;
    v.heads = s.heads;
    v.n = s.n;
    if (!c.layers.empty()) v.rows = parse_index_list(c.layers, v.layers, "layers", "layer");
    if (!c.heads.empty()) v.cols = parse_index_list(c.heads, v.heads, "heads", "head");
    for (std::size_t l = 0; l < s.layers; ++l)
      for (std::size_t h = 0; h < s.heads; ++h)
        v.maps.push_back(maps.has(l, h) ? maps.map(l, h) : nullptr);
    v.causal = s.causal;
    v.title = fmt::format("{} · {} tokens", s.name, s.n);
    v.subtitle = s.subtitle;
    v.cmap = &colormap::named_or_default(c.look.cmap);
    v.scale = c.scale;
    v.colours = c.look.colours;
    v.captions = std::move(captions);
    v.thumb = c.look.cell;
    apply_titles(c.look, v.title, v.subtitle);
    return model_view_figure(v);
  }
  if (c.view == maps_view::lines || c.view == maps_view::overlay) {
    head_view_spec v;
    const model_maps maps = maps_of(s);
    for (std::size_t h = 0; h < s.heads; ++h)
      v.maps.push_back(maps.has(c.layer, h) ? maps.map(c.layer, h) : nullptr);
    v.heads = s.heads;
    v.n = s.n;
    if (!c.heads.empty()) v.shown = parse_index_list(c.heads, v.heads, "heads", "head");
    v.tokens = s.tokens;
    v.title = fmt::format("layer {} · {} · {}", c.layer, list_label("head", c.heads, s.heads),
                          s.name);
    v.subtitle = s.subtitle;
    v.overlay = c.view == maps_view::overlay;
    apply_titles(c.look, v.title, v.subtitle);
    return head_view_figure(v);
  }
  const matrix values = view_values(s, c);
  return heatmap_figure(view_heatmap(s, c, values));
}

page_stack self_stack(const maps_source& s, std::vector<std::string> captions) {
  page_stack p;
  p.maps = s.maps;
  p.layers = s.layers;
  p.heads = s.heads;
  p.n = s.n;
  p.tokens = s.tokens;
  p.causal = s.causal;
  p.prompt = s.prompt;
  p.captions = std::move(captions);
  const model_maps m = maps_of(s);
  std::vector<std::size_t> layers(s.layers), heads(s.heads);
  for (std::size_t l = 0; l < s.layers; ++l) layers[l] = l;
  for (std::size_t h = 0; h < s.heads; ++h) heads[h] = h;
  p.aggregates.emplace_back("mean of every layer and head",
                            reduce_maps(m, layers, heads, map_reduce::mean).to_vector());
  p.aggregates.emplace_back("max of every layer and head",
                            reduce_maps(m, layers, heads, map_reduce::max).to_vector());
  p.aggregates.emplace_back("rollout through every layer", attention_rollout(m, layers).to_vector());
  if (flow_work(s.n, s.layers, s.causal) <= page_flow_max_work)  // a max-flow per pair
    p.aggregates.emplace_back("flow through every layer", attention_flow(m, layers).to_vector());
  return p;
}

void start_page_at(model_page_spec& p, const view_choice& c) {
  p.cmap = &colormap::named_or_default(c.look.cmap);
  p.layer = c.layer;
  p.head = c.head;
  p.panel_scale = c.scale == scale_mode::panel;
  p.colours = c.look.colours;
  apply_titles(c.look, p.title, p.subtitle);
}

std::string maps_page(const maps_source& s, const view_choice& c,
                      std::vector<std::string> captions) {
  model_page_spec p;
  p.stacks.push_back(self_stack(s, std::move(captions)));
  p.title = fmt::format("{} · {} tokens", s.name, s.n);
  p.subtitle = s.subtitle;
  start_page_at(p, c);
  return model_page(p);
}

std::string measures_page(const std::vector<std::pair<std::string, maps_source>>& measures,
                          const view_choice& c, const std::vector<std::string>& captions) {
  model_page_spec p;
  for (const auto& [name, source] : measures) {
    p.stacks.push_back(self_stack(source, captions));
    p.stacks.back().name = name;
  }
  const maps_source& last = measures.back().second;
  p.stack = measures.size() - 1;
  p.stack_label = "Measure";
  p.title = fmt::format("{} · {} tokens", last.name, last.n);
  p.subtitle = measures.front().second.subtitle;
  start_page_at(p, c);
  return model_page(p);
}

}  // namespace attnviz
