#include "render/heatmap.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "render/cell_numbers.h"
#include "render/font.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr int label_gap = 6;
constexpr int bar_width = 18;
constexpr int label_max_cells = 20;  // narrow characters
constexpr rgb masked_grey{224, 224, 224};

}  // namespace

double nice_at_or_above(double x) {
  if (x <= 0.0) return 1.0;
  const double p = std::pow(10.0, std::floor(std::log10(x)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * p >= x * (1 - 1e-12)) return m * p;
  return 10.0 * p;
}

namespace {

std::string tick_label(double v) {
  if (std::fabs(v) < 1e-12) v = 0.0;
  return fmt::format("{:g}", v);
}

std::u32string label_text(const std::string& s, const bitmap_font& font) {
  std::u32string cps = decode_utf8_lossy(s);
  for (auto& cp : cps)
    if (is_control(cp)) cp = 0xfffd;
  return fit_text(cps, label_max_cells * 8, font);
}

}  // namespace

std::pair<double, double> value_range(const matrix& values, bool centered) {
  double lo = 0.0, hi = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values.data()[i];
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (centered) {
    const double m = nice_at_or_above(std::max(-lo, hi));
    return {-m, m};
  }
  if (lo < 0.0) lo = -nice_at_or_above(-lo);
  hi = hi > 0.0 ? nice_at_or_above(hi) : (lo < 0.0 ? 0.0 : 1.0);
  return {lo, hi};
}

std::vector<double> nice_ticks(double vmin, double vmax) {
  std::vector<double> ticks;
  const double span = vmax - vmin;
  if (!(span > 0.0)) return {vmin};
  double step = 0.0;
  const double p = std::pow(10.0, std::floor(std::log10(span)) - 1);
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0}) {
    step = m * p;
    if (span / step <= 5.0 + 1e-9) break;
  }
  const double first = std::ceil(vmin / step - 1e-9) * step;
  for (double t = first; t <= vmax + step * 1e-9; t += step) ticks.push_back(t);
  return ticks;
}

// 48 px cells for a few tokens, 20 px up to 80 tokens; past that the map keeps a width a page or
// a slide can take (1,600 px: 5.3 inches at 300 dpi), down to 1 px a cell; --cell sets any size.
int default_cell(std::size_t n) {
  const double tokens = static_cast<double>(std::max<std::size_t>(n, 1));
  if (tokens * 20 > 1600) return std::max(1, static_cast<int>(1600 / tokens));
  return std::clamp(static_cast<int>(std::lround(720.0 / tokens)), 20, 48);
}

std::string thinned_labels_note(int every, std::size_t n, int cell_for_all) {
  return fmt::format("labels: every {} of the {} tokens (no room for the rest: --cell {} labels "
                     "each)",
                     every == 2 ? std::string("second") : every == 3 ? std::string("third")
                                                                     : fmt::format("{}th", every),
                     n, cell_for_all);
}

int text_scale(int cell) {
  return std::max(1, cell / 40);
}

namespace {

// `text` split at `sep` (kept at the end of each piece but the last).
std::vector<std::u32string> split_keeping(const std::u32string& text, const std::u32string& sep) {
  std::vector<std::u32string> pieces;
  std::size_t at = 0;
  for (std::size_t next; (next = text.find(sep, at)) != std::u32string::npos; at = next + sep.size())
    pieces.push_back(text.substr(at, next + sep.size() - at));
  pieces.push_back(text.substr(at));
  return pieces;
}

int trimmed_width(std::u32string t, int scale) {
  while (!t.empty() && t.back() == U' ') t.pop_back();
  return bitmap_font::unifont().text_width(t) * scale;
}

}  // namespace

std::vector<std::u32string> subtitle_lines(const std::string& subtitle, int wrap, int scale) {
  const std::u32string text = decode_utf8_lossy(subtitle);
  if (text.empty()) return {};
  if (wrap <= 0 || trimmed_width(text, scale) <= wrap) return {text};
  // whole " · " parts where they fit; a part too wide for a line alone broken at its spaces
  std::vector<std::u32string> lines;
  std::u32string line;
  const auto add = [&](const std::u32string& piece) {
    if (!line.empty() && trimmed_width(line + piece, scale) > wrap) {
      lines.push_back(line);
      line.clear();
    }
    line += piece;
  };
  for (const auto& part : split_keeping(text, U" · ")) {
    if (trimmed_width(line + part, scale) <= wrap || trimmed_width(part, scale) <= wrap) {
      add(part);
      continue;
    }
    for (const auto& word : split_keeping(part, U" ")) add(word);
  }
  if (!line.empty()) lines.push_back(line);
  for (auto& l : lines)
    while (!l.empty() && l.back() == U' ') l.pop_back();
  return lines;
}

int title_block_height(const std::string& title, const std::string& subtitle, int scale,
                       int wrap) {
  const int glyph_h = bitmap_font::height * scale;
  const auto lines = static_cast<int>(subtitle_lines(subtitle, wrap, scale).size());
  return (title.empty() ? 0 : glyph_h + 4) + (lines == 0 ? 0 : lines * glyph_h + (lines - 1) * 2);
}

int title_block_width(const std::string& title, const std::string& subtitle, int scale,
                      int wrap) {
  const bitmap_font& font = bitmap_font::unifont();
  int width = font.text_width(decode_utf8_lossy(title)) * scale;
  for (const auto& line : subtitle_lines(subtitle, wrap, scale))
    width = std::max(width, font.text_width(line) * scale);
  return width;
}

void draw_title_block(figure& fig, const std::string& title, const std::string& subtitle,
                      int scale, int wrap) {
  int y = figure_margin;
  if (!title.empty()) {
    fig.text(figure_margin, y, decode_utf8_lossy(title), figure_ink, scale);
    y += bitmap_font::height * scale + 4;
  }
  for (const auto& line : subtitle_lines(subtitle, wrap, scale)) {
    fig.text(figure_margin, y, line, figure_muted, scale);
    y += bitmap_font::height * scale + 2;
  }
}

namespace {

// The colour bar's labelled values: the scale's ticks, and for a scale other than the default
// both ends of the range (ticks closer than a glyph to an end label are left out).
std::vector<double> colorbar_values(double vmin, double vmax, const colour_scale& cs, int h,
                                    int scale) {
  std::vector<double> ticks = scale_ticks(cs, vmin, vmax);
  if (cs.is_default()) return ticks;
  const double room = h > 1 ? static_cast<double>(bitmap_font::height * scale) / (h - 1) : 1.0;
  std::vector<double> out{vmax};
  for (double t : ticks) {
    const double p = scale_position(cs, t, vmin, vmax);
    if (p < 1.0 - room && p > room) out.push_back(t);
  }
  out.push_back(vmin);
  return out;
}

}  // namespace

int colorbar_width(double vmin, double vmax, int scale, const colour_scale& cs) {
  const bitmap_font& font = bitmap_font::unifont();
  int tick_w = 0;
  for (double t : colorbar_values(vmin, vmax, cs, 1000, scale))
    tick_w = std::max(tick_w, font.text_width(decode_utf8_lossy(tick_label(t))) * scale);
  return bar_width * scale + figure_tick_len + 4 + tick_w;
}

void draw_colorbar(figure& fig, int x, int y, int h, const colormap& cmap, double vmin, double vmax,
                   int scale, const colour_scale& cs) {
  const int w = bar_width * scale;
  // top row = vmax, bottom row = vmin; runs of one colour become one rectangle
  int run_start = 0;
  rgb run_colour = cmap.at(1.0);
  for (int row = 0; row <= h; ++row) {
    const rgb c = row < h ? cmap.at(1.0 - static_cast<double>(row) / (h - 1)) : rgb{};
    if (row == h || !(c == run_colour)) {
      fig.rect(x, y + run_start, w, row - run_start, run_colour);
      run_start = row;
      run_colour = c;
    }
  }
  fig.frame(x - 1, y - 1, w + 2, h + 2, 1, figure_muted);
  for (double tv : colorbar_values(vmin, vmax, cs, h, scale)) {
    const double t = scale_position(cs, tv, vmin, vmax);
    const int ty = y + static_cast<int>(std::lround((1.0 - t) * (h - 1)));
    fig.rect(x + w, ty, figure_tick_len, 1, figure_ink);
    fig.text(x + w + figure_tick_len + 4, ty - bitmap_font::height * scale / 2,
             decode_utf8_lossy(tick_label(tv)), figure_ink, scale);
  }
}

void crop_heatmap(heatmap_spec& spec, const std::vector<std::size_t>& rows,
                  const std::vector<std::size_t>& cols) {
  if (rows.empty() && cols.empty()) return;
  const matrix& m = *spec.values;
  std::vector<std::size_t> r = rows, c = cols;
  if (r.empty())
    for (std::size_t i = 0; i < m.rows(); ++i) r.push_back(i);
  if (c.empty())
    for (std::size_t j = 0; j < m.cols(); ++j) c.push_back(j);
  auto values = std::make_shared<matrix>(r.size(), c.size());
  std::vector<bool> hidden;
  if (!spec.hidden.empty()) hidden.assign(r.size() * c.size(), false);
  for (std::size_t a = 0; a < r.size(); ++a)
    for (std::size_t b = 0; b < c.size(); ++b) {
      (*values)(a, b) = m(r[a], c[b]);
      const std::size_t k = r[a] * m.cols() + c[b];
      if (!hidden.empty() && k < spec.hidden.size()) hidden[a * c.size() + b] = spec.hidden[k];
    }
  auto pick = [](const std::vector<std::string>& labels, const std::vector<std::size_t>& at) {
    std::vector<std::string> out;
    for (std::size_t i : at)
      if (i < labels.size()) out.push_back(labels[i]);
    return out;
  };
  if (!spec.cell_texts.empty()) {
    std::vector<std::string> texts;
    for (std::size_t i : r)
      for (std::size_t j : c) texts.push_back(spec.cell_texts[i * m.cols() + j]);
    spec.cell_texts = std::move(texts);
  }
  if (!spec.row_labels.empty()) spec.row_labels = pick(spec.row_labels, r);
  if (!spec.col_labels.empty()) spec.col_labels = pick(spec.col_labels, c);
  std::vector<int> marked;
  if (!spec.marked_col_per_row.empty())
    for (std::size_t i : r) {
      const int j = i < spec.marked_col_per_row.size() ? spec.marked_col_per_row[i] : -1;
      const auto at = std::find(c.begin(), c.end(), static_cast<std::size_t>(std::max(j, 0)));
      marked.push_back(j >= 0 && at != c.end() ? static_cast<int>(at - c.begin()) : -1);
    }
  spec.marked_col_per_row = std::move(marked);
  if (spec.boundary_col > 0) {  // before the first shown column at or past it, if one is shown
    const auto at = std::find_if(c.begin(), c.end(),
                                 [&](std::size_t j) { return j >= spec.boundary_col; });
    spec.boundary_col = at == c.begin() || at == c.end() ? 0 : static_cast<std::size_t>(at - c.begin());
  }
  spec.hidden = std::move(hidden);
  spec.owned = values;
  spec.values = values.get();
}

heatmap_layout layout_heatmap(const heatmap_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const matrix& m = *spec.values;
  heatmap_layout L;
  L.cell = spec.cell > 0 ? spec.cell : default_cell(std::max(m.rows(), m.cols()));
  L.scale = text_scale(L.cell);
  const int s = L.scale, glyph_h = bitmap_font::height * s;
  L.label_every = std::max(1, (glyph_h + L.cell - 1) / L.cell);
  L.max_label_px = label_max_cells * 8 * s;
  if (spec.vmax > spec.vmin) {
    L.vmin = spec.vmin;
    L.vmax = spec.vmax;
  } else {
    std::tie(L.vmin, L.vmax) = scale_range(spec.scale, m, spec.centered);
  }
  L.ticks = scale_ticks(spec.scale, L.vmin, L.vmax);
  if (!spec.cell_texts.empty()) {
    for (const std::string& t : spec.cell_texts)
      L.numbers.push_back(encode_utf8(fit_text(decode_utf8_lossy(t), (L.cell - 4) / s, font)));
  } else {
    cell_numbers numbers = plan_cell_numbers(spec, L.cell, s);
    if (numbers.any) L.numbers = std::move(numbers.texts);
    if (!numbers.note.empty()) L.notes.push_back(std::move(numbers.note));
  }
  const std::size_t labelled = std::max(spec.row_labels.size(), spec.col_labels.size());
  if (L.label_every > 1 && labelled > 0)
    L.notes.push_back(thinned_labels_note(L.label_every, labelled, glyph_h));

  int row_label_w = 0, col_label_w = 0;
  for (const auto& t : spec.row_labels)
    row_label_w = std::max(row_label_w, font.text_width(label_text(t, font)) * s);
  for (const auto& t : spec.col_labels)
    col_label_w = std::max(col_label_w, font.text_width(label_text(t, font)) * s);

  const int grid_w = L.cell * static_cast<int>(m.cols());
  const int grid_h = L.cell * static_cast<int>(m.rows());
  L.grid_x = figure_margin + glyph_h + 8 + row_label_w + label_gap;
  int right = L.grid_x + grid_w + figure_margin;
  if (spec.colorbar) {
    L.bar_x = L.grid_x + grid_w + figure_bar_gap;
    L.bar_w = bar_width * s;
    L.bar_h = std::max(grid_h, 120);
    right = L.bar_x + colorbar_width(L.vmin, L.vmax, s, spec.scale) + figure_margin;
  }
  // the subtitle wraps to the map's width (at least the title's, and 320 px a text scale)
  const int wrap =
      std::max({right - 2 * figure_margin, 320 * s, title_block_width(spec.title, "", s)});
  L.subtitle_wrap = wrap;
  L.grid_y = figure_margin + title_block_height(spec.title, spec.subtitle, s, wrap) + 12;
  L.bar_y = L.grid_y;
  L.width = std::max(
      right, figure_margin + title_block_width(spec.title, spec.subtitle, s, wrap) + figure_margin);
  const int below_grid = L.grid_y + grid_h + label_gap + col_label_w + 8 + glyph_h;
  L.height = std::max(below_grid, L.bar_y + L.bar_h + glyph_h / 2) + figure_margin;
  if (!L.notes.empty()) L.note_y = L.height - figure_margin + 8;
  for (const auto& note : L.notes) {
    L.height += glyph_h + (&note == &L.notes.front() ? 8 : 2);
    L.width = std::max(L.width, 2 * figure_margin + font.text_width(decode_utf8_lossy(note)) * s);
  }
  return L;
}

figure heatmap_figure(const heatmap_spec& spec) {
  const bitmap_font& font = bitmap_font::unifont();
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  const matrix& m = *spec.values;
  const heatmap_layout L = layout_heatmap(spec);
  const int s = L.scale, glyph_h = bitmap_font::height * s;
  figure fig(L.width, L.height);
  const int n_rows = static_cast<int>(m.rows()), n_cols = static_cast<int>(m.cols());
  auto colour_of = [&](double v) { return cmap.at(scale_position(spec.scale, v, L.vmin, L.vmax)); };

  draw_title_block(fig, spec.title, spec.subtitle, s, L.subtitle_wrap);

  // cells, then annotations in a colour that contrasts with each cell
  auto hidden = [&](int i, int j) {
    const auto k = static_cast<std::size_t>(i) * m.cols() + static_cast<std::size_t>(j);
    return k < spec.hidden.size() && spec.hidden[k];
  };
  for (int i = 0; i < n_rows; ++i)
    for (int j = 0; j < n_cols; ++j) {
      const double v = m(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
      fig.rect(L.grid_x + j * L.cell, L.grid_y + i * L.cell, L.cell, L.cell,
               hidden(i, j) ? masked_grey : colour_of(v));
    }
  if (!L.numbers.empty())
    for (int i = 0; i < n_rows; ++i)
      for (int j = 0; j < n_cols; ++j) {
        const std::string& text = L.numbers[static_cast<std::size_t>(i) * m.cols() +
                                            static_cast<std::size_t>(j)];
        if (hidden(i, j) || text.empty()) continue;
        const double v = m(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
        const std::u32string t = decode_utf8_lossy(text);
        const rgb on = luminance(colour_of(v)) > 0.4 ? rgb{0, 0, 0} : rgb{255, 255, 255};
        fig.text(L.grid_x + j * L.cell + (L.cell - font.text_width(t) * s) / 2,
                 L.grid_y + i * L.cell + (L.cell - glyph_h) / 2, t, on, s);
      }
  for (std::size_t i = 0; i < spec.marked_col_per_row.size() && i < m.rows(); ++i) {
    const int j = spec.marked_col_per_row[i];
    if (j < 0 || j >= n_cols) continue;
    const rgb c = colour_of(m(i, static_cast<std::size_t>(j)));
    const rgb outline = luminance(c) > 0.4 ? rgb{0, 0, 0} : rgb{255, 255, 255};
    fig.frame(L.grid_x + j * L.cell + 1, L.grid_y + static_cast<int>(i) * L.cell + 1, L.cell - 2,
              L.cell - 2, 2, outline);
  }
  if (spec.boundary_col > 0 && spec.boundary_col < static_cast<std::size_t>(n_cols))
    fig.rect(L.grid_x + static_cast<int>(spec.boundary_col) * L.cell - 1, L.grid_y - 4, 2,
             n_rows * L.cell + 8, rgb{214, 39, 40});
  fig.frame(L.grid_x - 1, L.grid_y - 1, n_cols * L.cell + 2, n_rows * L.cell + 2, 1, figure_muted);

  // row labels: right-aligned, vertically centred
  const int text_off = (L.cell - glyph_h) / 2;
  for (int i = 0; i < n_rows && i < static_cast<int>(spec.row_labels.size()); i += L.label_every) {
    const auto t = label_text(spec.row_labels[static_cast<std::size_t>(i)], font);
    fig.text(L.grid_x - label_gap - font.text_width(t) * s, L.grid_y + i * L.cell + text_off, t,
             figure_ink, s);
  }
  // column labels: rotated, read bottom to top, ending just below the grid
  const int grid_bottom = L.grid_y + n_rows * L.cell;
  int col_label_w = 0;
  for (int j = 0; j < n_cols && j < static_cast<int>(spec.col_labels.size()); j += L.label_every) {
    const auto t = label_text(spec.col_labels[static_cast<std::size_t>(j)], font);
    const int w = font.text_width(t) * s;
    col_label_w = std::max(col_label_w, w);
    fig.text(L.grid_x + j * L.cell + text_off, grid_bottom + label_gap + w - 1, t, figure_ink, s,
             text_direction::upward);
  }
  // axis names
  const auto col_axis = decode_utf8_lossy(spec.col_axis);
  fig.text(L.grid_x + (n_cols * L.cell - font.text_width(col_axis) * s) / 2,
           grid_bottom + label_gap + col_label_w + 8, col_axis, figure_muted, s);
  const auto row_axis = decode_utf8_lossy(spec.row_axis);
  fig.text(figure_margin, L.grid_y + (n_rows * L.cell + font.text_width(row_axis) * s) / 2,
           row_axis, figure_muted, s, text_direction::upward);

  if (spec.colorbar)
    draw_colorbar(fig, L.bar_x, L.bar_y, L.bar_h, cmap, L.vmin, L.vmax, s, spec.scale);
  for (std::size_t k = 0; k < L.notes.size(); ++k)
    fig.text(figure_margin, L.note_y + static_cast<int>(k) * (glyph_h + 2),
             decode_utf8_lossy(L.notes[k]), figure_muted, s);
  return fig;
}

canvas render_heatmap(const heatmap_spec& spec) {
  return rasterize(heatmap_figure(spec));
}

}  // namespace attnviz
