#include "jobs/seq2seq_views.h"

#include <fmt/format.h>

#include <algorithm>

#include "analysis/layer_maps.h"
#include "error.h"
#include "index_list.h"
#include "render/heatmap.h"
#include "render/views.h"
#include "tokenizers/token_display.h"

namespace attnviz {

namespace {

void check_cross_view(const view_choice& c, const model_config& m) {
  using v = maps_view;
  const v w = c.view;
  if (w != v::head && w != v::mean && w != v::max && w != v::alignment)
    throw usage_error(fmt::format("{} cross draws {} head, mean, max or alignment (the source "
                                  "and target differ, so {} {} does not apply); {} encoder or "
                                  "decoder draws every view",
                                  param("stack"), param("view"), param("view"),
                                  name_of(maps_view_names, w), param("stack")));
  if (w == v::head && (!c.layers.empty() || !c.heads.empty()))
    throw usage_error(fmt::format("{} head draws the one map {} and {} give; {} and {} choose "
                                  "those of mean, max and alignment",
                                  param("view"), param("layer"), param("head"), param("layers"),
                                  param("heads")));
  if (!c.layers.empty()) parse_index_list(c.layers, m.decoder_layers, "layers", "layer");
  if (!c.heads.empty()) parse_index_list(c.heads, m.decoder_heads, "heads", "head");
  if (c.layer >= m.decoder_layers)
    throw usage_error(fmt::format("{} {}: the decoder has {} layers (0 to {})", param("layer"),
                                  c.layer, m.decoder_layers, m.decoder_layers - 1));
  if (c.head >= m.decoder_heads)
    throw usage_error(fmt::format("{} {}: the decoder has {} heads (0 to {})", param("head"),
                                  c.head, m.decoder_heads, m.decoder_heads - 1));
}

heatmap_spec cross_heatmap(const seq2seq_maps& s, const view_choice& c, const matrix& values) {
  const seq2seq_forward& f = *s.f;
  heatmap_spec spec;
  spec.values = &values;
  spec.row_labels = display_tokens(s.target_tokens);
  spec.col_labels = display_tokens(s.source_tokens);
  spec.row_axis = "target";
  spec.col_axis = "source";
  spec.title = c.view == maps_view::head
                   ? fmt::format("cross attention · layer {} · head {} · {}", c.layer, c.head,
                                 s.name)
                   : fmt::format("cross attention {} over {} × {} · {}",
                                 name_of(maps_view_names, c.view),
                                 list_label("layer", c.layers, f.decoder_layers),
                                 list_label("head", c.heads, f.decoder_heads), s.name);
  spec.subtitle = s.subtitle;
  spec.cell = c.look.cell;
  spec.annotate = c.look.annotate;
  spec.scale = c.look.colours;
  spec.cmap = &colormap::named_or_default(c.look.cmap);
  return spec;
}

}  // namespace

void check_seq2seq_view(const view_choice& c, seq2seq_stack stack, const model_config& m,
                        std::size_t n_source, std::size_t n_target, bool html, bool twice) {
  if (html) {  // the three stacks' sizes, as the page will hold them (twice: and the weights')
    std::vector<page_stack> sizes(3);
    const std::size_t l[] = {m.layers, m.decoder_layers, m.decoder_layers};
    const std::size_t h[] = {m.heads, m.decoder_heads, m.decoder_heads};
    const std::size_t rows[] = {n_source, n_target, n_target};
    const std::size_t keys[] = {n_source, n_target, n_source};
    for (std::size_t k = 0; k < 3; ++k) {
      sizes[k].name = seq2seq_stack_names[k].name;
      sizes[k].layers = l[k];
      sizes[k].heads = h[k];
      sizes[k].n = rows[k];
      sizes[k].n_keys = keys[k];
    }
    if (twice) sizes.insert(sizes.end(), sizes.begin(), sizes.end());
    check_model_page_size(sizes);
  }
  if (stack == seq2seq_stack::cross) return check_cross_view(c, m);
  const bool encoder = stack == seq2seq_stack::encoder;
  check_view_choice(c, encoder ? m.layers : m.decoder_layers, encoder ? m.heads : m.decoder_heads,
                    encoder ? n_source : n_target, !encoder,
                    !encoder);  // the decoder's logit lens (seq2seq_job.cpp)
}

maps_source stack_source(const seq2seq_maps& s, seq2seq_stack stack) {
  const seq2seq_forward& f = *s.f;
  const bool encoder = stack == seq2seq_stack::encoder;
  maps_source out;
  out.maps = encoder ? f.encoder_attention.data() : f.decoder_attention.data();
  out.layers = encoder ? f.encoder_layers : f.decoder_layers;
  out.heads = encoder ? f.encoder_heads : f.decoder_heads;
  out.n = encoder ? f.ns : f.nt;
  out.tokens = display_tokens(encoder ? s.source_tokens : s.target_tokens);
  out.causal = !encoder;
  out.name = fmt::format("{} · {}", s.name, encoder ? "encoder" : "decoder");
  if (!encoder) out.lens = s.lens;
  out.subtitle = s.subtitle;
  return out;
}

matrix cross_reduce(const seq2seq_forward& f, const std::string& layers, const std::string& heads,
                    bool max) {
  const auto ls = chosen(layers, f.decoder_layers, "layers", "layer");
  const auto hs = chosen(heads, f.decoder_heads, "heads", "head");
  matrix out(f.nt, f.ns);
  std::vector<double> acc(f.nt * f.ns, 0.0);
  for (const std::size_t l : ls)
    for (const std::size_t h : hs) {
      const float* m = f.cross_map(l, h);
      for (std::size_t i = 0; i < acc.size(); ++i) acc[i] = max ? std::max<double>(acc[i], m[i])
                                                                : acc[i] + m[i];
    }
  const double count = max ? 1.0 : static_cast<double>(ls.size() * hs.size());
  for (std::size_t i = 0; i < acc.size(); ++i) out.data()[i] = static_cast<float>(acc[i] / count);
  return out;
}

word_map alignment_words(const seq2seq_maps& s, const view_choice& c) {
  const matrix mean = cross_reduce(*s.f, c.layers, c.heads, false);
  return cross_words(mean.data(), s.target_tokens, s.source_tokens);
}

namespace {

// The page's three stacks of s, their names followed by `suffix`.
std::vector<page_stack> page_stacks(const seq2seq_maps& s, const std::string& suffix) {
  const seq2seq_forward& f = *s.f;
  std::vector<page_stack> out;
  for (const seq2seq_stack self : {seq2seq_stack::encoder, seq2seq_stack::decoder}) {
    out.push_back(self_stack(stack_source(s, self)));
    out.back().name = (self == seq2seq_stack::encoder ? "encoder self-attention"
                                                      : "decoder self-attention (causal)") +
                      suffix;
  }
  page_stack cross;
  cross.name = "cross attention (target → source)" + suffix;
  cross.maps = f.cross_attention.data();
  cross.layers = f.decoder_layers;
  cross.heads = f.decoder_heads;
  cross.n = f.nt;
  cross.n_keys = f.ns;
  cross.tokens = display_tokens(s.target_tokens);
  cross.key_tokens = display_tokens(s.source_tokens);
  cross.aggregates.emplace_back("mean of every layer and head",
                                cross_reduce(f, "", "", false).to_vector());
  cross.aggregates.emplace_back("max of every layer and head",
                                cross_reduce(f, "", "", true).to_vector());
  out.push_back(std::move(cross));
  return out;
}

}  // namespace

std::string seq2seq_page(const seq2seq_maps& s, seq2seq_stack open, const view_choice& c,
                         const seq2seq_maps* weights, const std::string& measure) {
  const seq2seq_forward& f = *s.f;
  model_page_spec p;
  if (weights) p.stacks = page_stacks(*weights, " · weights");
  for (page_stack& st : page_stacks(s, weights ? " · " + measure : std::string()))
    p.stacks.push_back(std::move(st));
  p.stack = (weights ? 3 : 0) + static_cast<std::size_t>(open);
  p.title = fmt::format("{} · {} source and {} target tokens", s.name, f.ns, f.nt);
  p.subtitle = s.subtitle;
  start_page_at(p, c);
  return model_page(p);
}

figure draw_seq2seq_view(const seq2seq_maps& s, seq2seq_stack stack, const view_choice& c,
                         align_method method, const std::string& gold_note) {
  if (stack != seq2seq_stack::cross) return draw_view(stack_source(s, stack), c);
  const seq2seq_forward& f = *s.f;
  matrix values;
  heatmap_spec spec;
  if (c.view == maps_view::alignment) {
    word_map w = alignment_words(s, c);
    values = std::move(w.values);
    spec = cross_heatmap(s, c, values);
    spec.row_labels = w.target_words;
    spec.col_labels = w.source_words;
    spec.row_axis = "target words";
    spec.col_axis = "source words";
    spec.marked_col_per_row.assign(values.rows(), -1);
    for (const auto& [i, j] : align_words(values, method))
      spec.marked_col_per_row[j] = static_cast<int>(i);
    spec.title = fmt::format("alignment · cross attention over {} × {} · {}",
                             list_label("layer", c.layers, f.decoder_layers),
                             list_label("head", c.heads, f.decoder_heads), s.name);
    const char* outlined =
        method == align_method::argmax        ? "each target word's most attended source word"
        : method == align_method::argmax_null ? "each target word's most attended source word, "
                                                "unless </s> holds more"
                                              : "pairs each side's argmax agrees on";
    spec.subtitle = fmt::format("{} · outlined: {}{}", s.subtitle, outlined,
                                gold_note.empty() ? "" : " · " + gold_note);
  } else {
    values = c.view == maps_view::head
                 ? matrix(f.nt, f.ns, std::vector<float>(f.cross_map(c.layer, c.head),
                                                         f.cross_map(c.layer, c.head) + f.nt * f.ns))
                 : cross_reduce(f, c.layers, c.heads, c.view == maps_view::max);
    spec = cross_heatmap(s, c, values);
  }
  apply_crop(spec, c.look);
  apply_titles(c.look, spec.title, spec.subtitle);
  return heatmap_figure(spec);
}

}  // namespace attnviz
