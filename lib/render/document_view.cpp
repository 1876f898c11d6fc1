#include "render/document_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "tensor.h"
#include "text/utf8.h"

namespace attnviz {
namespace {
constexpr int box_pad = 4;   // inside a word box
constexpr int word_gap = 4;  // between word boxes and lines
constexpr int box_gap = 12;  // between the sentence box and its words
constexpr rgb frame_grey{160, 160, 160};
}  // namespace

figure document_figure(const document_view_spec& spec) {
  if (spec.sentences.size() != spec.word_weights.size() ||
      spec.sentences.size() != spec.sentence_weights.size())
    throw std::logic_error("document_figure: sentences and weights differ in number");
  const bitmap_font& font = bitmap_font::unifont();
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  const int s = std::max(1, spec.scale), glyph_h = bitmap_font::height * s;
  const int box_h = glyph_h + 2 * box_pad * s;

  // one colour scale for words and sentences
  std::vector<float> all;
  for (const auto& w : spec.word_weights) all.insert(all.end(), w.begin(), w.end());
  all.insert(all.end(), spec.sentence_weights.begin(), spec.sentence_weights.end());
  const auto [vmin, vmax] = value_range(matrix(1, all.size(), all));
  auto colour_of = [&, lo = vmin, hi = vmax](double v) {
    return cmap.at(hi > lo ? (v - lo) / (hi - lo) : 0.0);
  };
  auto on = [](rgb c) { return luminance(c) > 0.4 ? rgb{0, 0, 0} : rgb{255, 255, 255}; };

  const int top = figure_margin + title_block_height(spec.title, spec.subtitle, s) + 8;
  const int sentence_box_w = font.text_width(U"0.000") * s + 2 * box_pad * s;
  const int words_x = figure_margin + sentence_box_w + box_gap;
  const int wrap = words_x + spec.max_width * s;

  // lay the words out first to know the size
  struct placed {
    int x, y, w;
    std::u32string text;
    double weight;
  };
  std::vector<placed> words;
  std::vector<std::pair<int, int>> sentence_rows;  // y and height of each sentence's block
  int y = top, right = words_x;
  for (std::size_t i = 0; i < spec.sentences.size(); ++i) {
    const int y0 = y;
    int x = words_x;
    for (std::size_t t = 0; t < spec.sentences[i].size(); ++t) {
      std::u32string text = decode_utf8_lossy(spec.sentences[i][t]);
      const int w = font.text_width(text) * s + 2 * box_pad * s;
      if (x > words_x && x + w > wrap) x = words_x, y += box_h + word_gap;
      words.push_back({x, y, w, std::move(text), spec.word_weights[i].at(t)});
      x += w + word_gap;
      right = std::max(right, x);
    }
    sentence_rows.emplace_back(y0, y + box_h - y0);
    y += box_h + 3 * word_gap;
  }
  const int bar_x = right + 24, bar_y = top, bar_h = std::max(y - top - 3 * word_gap, 120);
  const int width = std::max(bar_x + colorbar_width(vmin, vmax, s) + figure_margin,
                             2 * figure_margin + title_block_width(spec.title, spec.subtitle, s));
  const int height = std::max(y, bar_y + bar_h + glyph_h) + figure_margin;

  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, s);
  for (std::size_t i = 0; i < spec.sentences.size(); ++i) {
    const auto [sy, sh] = sentence_rows[i];
    const double a = spec.sentence_weights[i];
    const rgb c = colour_of(a);
    fig.rect(figure_margin, sy, sentence_box_w, sh, c);
    const std::u32string label = decode_utf8_lossy(fmt::format("{:.3f}", a));
    fig.text(figure_margin + (sentence_box_w - font.text_width(label) * s) / 2,
             sy + (sh - glyph_h) / 2, label, on(c), s);
  }
  for (const auto& w : words) {
    const rgb c = colour_of(w.weight);
    fig.rect(w.x, w.y, w.w, box_h, c);
    fig.frame(w.x, w.y, w.w, box_h, 1, frame_grey);
    fig.text(w.x + box_pad * s, w.y + box_pad * s, w.text, on(c), s);
  }
  draw_colorbar(fig, bar_x, bar_y, bar_h, cmap, vmin, vmax, s);
  return fig;
}

}  // namespace attnviz
