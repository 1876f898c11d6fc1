#include "render/terminal.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr int row_label_cols = 14;
constexpr int col_label_rows = 8;

// `s` cut to at most `cols` terminal columns, with '…' when cut.
std::string clip(const std::string& s, int cols) {
  if (display_width(s) <= cols) return s;
  std::string out;
  int w = 0;
  for (char32_t cp : decode_utf8_lossy(s)) {
    const int cw = display_width(cp);
    if (w + cw > cols - 1) break;
    append_utf8(out, cp);
    w += cw;
  }
  return out + "…";
}

std::string pad_left(const std::string& s, int cols) {
  return std::string(static_cast<std::size_t>(std::max(0, cols - display_width(s))), ' ') + s;
}

std::u32string printable(const std::string& s) {
  std::u32string cps = decode_utf8_lossy(s);
  cps.erase(
      std::remove_if(cps.begin(), cps.end(), [](char32_t c) { return display_width(c) == 0; }),
      cps.end());
  return cps;
}

std::string background(rgb c, term_colors mode) {
  if (mode == term_colors::truecolor) return fmt::format("\x1b[48;2;{};{};{}m", c.r, c.g, c.b);
  return fmt::format("\x1b[48;5;{}m", nearest_palette256(c));
}

constexpr const char* reset = "\x1b[0m";

std::string plain_table(const heatmap_spec& spec) {
  const matrix& m = *spec.values;
  std::string out = spec.title + "\n";
  int row_w = 0;
  std::vector<std::string> rows, cols;
  for (const auto& t : spec.row_labels) rows.push_back(clip(t, 12));
  for (const auto& t : spec.col_labels) cols.push_back(clip(t, 7));
  for (const auto& r : rows) row_w = std::max(row_w, display_width(r));
  out += std::string(static_cast<std::size_t>(row_w), ' ');
  for (std::size_t j = 0; j < m.cols(); ++j)
    out += " " + pad_left(j < cols.size() ? cols[j] : "", 7);
  out += "\n";
  for (std::size_t i = 0; i < m.rows(); ++i) {
    out += pad_left(i < rows.size() ? rows[i] : "", row_w);
    for (std::size_t j = 0; j < m.cols(); ++j) out += fmt::format(" {:7.3f}", m(i, j));
    if (i < spec.marked_col_per_row.size()) {
      const int k = spec.marked_col_per_row[i];
      out += "   -> " + (k >= 0 && static_cast<std::size_t>(k) < spec.col_labels.size()
                             ? spec.col_labels[static_cast<std::size_t>(k)]
                             : std::string("(none)"));
    }
    out += "\n";
  }
  return out;
}

}  // namespace

term_colors detect_term_colors(bool is_tty, const char* no_color, const char* colorterm) {
  if (!is_tty || (no_color && *no_color)) return term_colors::none;
  if (colorterm &&
      (std::strcmp(colorterm, "truecolor") == 0 || std::strcmp(colorterm, "24bit") == 0))
    return term_colors::truecolor;
  return term_colors::palette256;
}

int nearest_palette256(rgb c) {
  static constexpr int levels[] = {0, 95, 135, 175, 215, 255};
  auto nearest_level = [](int v) {
    int best = 0;
    for (int k = 1; k < 6; ++k)
      if (std::abs(levels[k] - v) < std::abs(levels[best] - v)) best = k;
    return best;
  };
  const int r = nearest_level(c.r), g = nearest_level(c.g), b = nearest_level(c.b);
  auto dist = [&](int rr, int gg, int bb) {
    return (rr - c.r) * (rr - c.r) + (gg - c.g) * (gg - c.g) + (bb - c.b) * (bb - c.b);
  };
  const int cube = 16 + 36 * r + 6 * g + b;
  const int cube_d = dist(levels[r], levels[g], levels[b]);
  // grey ramp 232..255: 8, 18, ..., 238
  const int mean = (c.r + c.g + c.b) / 3;
  const int k = std::clamp((mean - 8 + 5) / 10, 0, 23);
  const int grey = 8 + 10 * k;
  return dist(grey, grey, grey) < cube_d ? 232 + k : cube;
}

std::string render_terminal(const heatmap_spec& spec, term_colors mode) {
  if (mode == term_colors::none) return plain_table(spec);
  const matrix& m = *spec.values;
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  const auto range =
      spec.vmax > spec.vmin ? std::pair{spec.vmin, spec.vmax} : scale_range(spec.scale, m, spec.centered);
  const double vmin = range.first, vmax = range.second;
  auto colour_of = [&](double v) { return cmap.at(scale_position(spec.scale, v, vmin, vmax)); };

  std::vector<std::string> rows;
  int row_w = 0;
  for (const auto& t : spec.row_labels) {
    rows.push_back(clip(t, row_label_cols));
    row_w = std::max(row_w, display_width(rows.back()));
  }
  std::string out = spec.title + "\n";
  if (!spec.subtitle.empty()) out += spec.subtitle + "\n";
  // column labels, written downwards: line k holds character k of every label
  std::vector<std::u32string> cols;
  std::size_t depth = 0;
  for (const auto& t : spec.col_labels) {
    std::u32string c = printable(t);
    if (c.size() > col_label_rows) {  // in place: GCC 12 warns (wrongly) about substr + U"…"
      c.resize(col_label_rows - 1);
      c += U'…';
    }
    depth = std::max(depth, c.size());
    cols.push_back(std::move(c));
  }
  for (std::size_t k = 0; k < depth; ++k) {
    std::string line(static_cast<std::size_t>(row_w + 1), ' ');
    for (std::size_t j = 0; j < m.cols(); ++j) {
      if (j < cols.size() && k < cols[j].size()) {
        append_utf8(line, cols[j][k]);
        if (display_width(cols[j][k]) < 2) line += ' ';
      } else {
        line += "  ";
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  for (std::size_t i = 0; i < m.rows(); ++i) {
    out += pad_left(i < rows.size() ? rows[i] : "", row_w) + " ";
    for (std::size_t j = 0; j < m.cols(); ++j) {
      const bool marked =
          i < spec.marked_col_per_row.size() && spec.marked_col_per_row[i] == static_cast<int>(j);
      out += background(colour_of(m(i, j)), mode) + (marked ? "<>" : "  ");
    }
    out += std::string(reset) + "\n";
  }
  // colour scale
  out += "\n" + std::string(static_cast<std::size_t>(row_w + 1), ' ') + fmt::format("{:g} ", vmin);
  for (int k = 0; k < 16; ++k) out += background(cmap.at(k / 15.0), mode) + "  ";
  out += std::string(reset) + fmt::format(" {:g}", vmax);
  if (spec.scale.mapping != colour_mapping::linear)
    out += fmt::format(" ({} colour scale)", colour_mapping_name(spec.scale));
  out += "\n";
  return out;
}

}  // namespace attnviz
