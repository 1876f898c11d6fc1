#include "render/text_page.h"

#include <algorithm>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {

namespace {

constexpr int line_height = bitmap_font::height + 6;
constexpr int box_pad = 1;    // pixels either side of a token's text on its background
constexpr int space_gap = 6;  // before a token that starts with a space

// One token as it sits on the page: its text (without the leading space mark), whether a space_gap
// comes before it, whether it ends the line.
struct piece {
  std::u32string text;
  bool space_before = false, breaks = false;
};

piece piece_of(const std::string& token) {
  piece p;
  std::u32string t = decode_utf8_lossy(token);
  while (!t.empty() && t.front() == U'\u00B7') {
    p.space_before = true;
    t.erase(t.begin());
  }
  const auto at = t.find(U'\u23CE');  // ⏎: a line break
  if (at != std::u32string::npos) {
    p.breaks = true;
    t.erase(at, 1);
  }
  p.text = std::move(t);
  return p;
}

// Every token placed on the page: its piece and where it starts (x from the text's left edge,
// the line).
struct page_layout {
  std::vector<piece> pieces;
  std::vector<std::pair<int, int>> at;
  int lines() const { return pieces.empty() ? 1 : at.back().second + 1; }
};

page_layout lay_out(const std::vector<std::string>& tokens, int width, const bitmap_font& font) {
  page_layout out;
  auto& [pieces, at] = out;
  int x = 0, line = 0;
  for (const std::string& token : tokens) {
    piece p = piece_of(token);
    int w = font.text_width(p.text) + 2 * box_pad;
    if (w > width) {
      while (!p.text.empty() && font.text_width(p.text + U"…") + 2 * box_pad > width)
        p.text.pop_back();
      p.text += U"…";
      w = font.text_width(p.text) + 2 * box_pad;
    }
    const int before = p.space_before && x > 0 ? space_gap : 0;
    if (x > 0 && x + before + w > width) {
      x = 0;
      ++line;
    } else {
      x += before;
    }
    at.emplace_back(x, line);
    x += w;
    if (p.breaks) {
      x = 0;
      ++line;
    }
    pieces.push_back(std::move(p));
  }
  return out;
}

}  // namespace

figure text_page_figure(const text_page_spec& spec) {
  if (spec.tokens.size() != spec.values.size() || spec.width < 200)
    throw std::logic_error("text_page_figure: tokens and values do not match");
  const bitmap_font& font = bitmap_font::unifont();
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  matrix values(1, spec.values.size());
  for (std::size_t j = 0; j < spec.values.size(); ++j) values(0, j) = static_cast<float>(spec.values[j]);
  const auto [lo, hi] = scale_range(spec.colours, values, false);
  const page_layout layout = lay_out(spec.tokens, spec.width, font);
  const auto& [pieces, at] = layout;

  const int title_h = title_block_height(spec.title, spec.subtitle, 1);
  const int bar_h = 120;
  const int bar_w = colorbar_width(lo, hi, 1, spec.colours);
  const int top = figure_margin + std::max(title_h, 0) + 8;
  const int lines = layout.lines();
  const int text_w = std::max(spec.width, title_block_width(spec.title, spec.subtitle, 1));
  const int width = figure_margin * 3 + text_w + bar_w;
  const int height = std::max(top + lines * line_height, figure_margin + bar_h) + figure_margin;
  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, 1);
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const rgb bg = cmap.at(scale_position(spec.colours, spec.values[k], lo, hi));
    const rgb ink = luminance(bg) > 0.35 ? rgb{0, 0, 0} : rgb{255, 255, 255};
    const int x0 = figure_margin + at[k].first, y0 = top + at[k].second * line_height;
    fig.rect(x0, y0, font.text_width(pieces[k].text) + 2 * box_pad, line_height - 2, bg);
    fig.text(x0 + box_pad, y0 + 2, pieces[k].text, ink);
  }
  draw_colorbar(fig, figure_margin * 2 + text_w, figure_margin, bar_h, cmap, lo, hi, 1,
                spec.colours);
  return fig;
}

}  // namespace attnviz
