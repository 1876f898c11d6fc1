#include "render/model_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr rgb hidden_grey{232, 232, 232};
constexpr int thumb_gap = 6;  // between thumbnails

std::vector<std::size_t> all_up_to(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// The t × t RGB thumbnail of an n × n map over [0, vmax] (see model_view.h).
std::shared_ptr<std::vector<std::uint8_t>> thumbnail(const float* a, std::size_t n, int t,
                                                     bool causal, const colour_scale& cs,
                                                     double lo, double hi, const colormap& cmap) {
  auto px = std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(t) * t * 3);
  const auto T = static_cast<std::size_t>(t);
  const std::vector<double> means = thumbnail_means(a, n, n, causal, T);
  for (std::size_t k = 0; k < T * T; ++k) {
    const rgb c = std::isnan(means[k]) ? hidden_grey : cmap.at(scale_position(cs, means[k], lo, hi));
    std::uint8_t* p = px->data() + k * 3;
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  return px;
}

}  // namespace

std::vector<double> thumbnail_means(const float* a, std::size_t n, std::size_t nk, bool causal,
                                    std::size_t t) {
  std::vector<double> out(t * t, std::nan(""));
  for (std::size_t y = 0; y < t; ++y) {
    // the cells [i0, i1) this pixel row covers (one cell when t >= n)
    const std::size_t i0 = y * n / t, i1 = std::max(i0 + 1, (y + 1) * n / t);
    for (std::size_t x = 0; x < t; ++x) {
      const std::size_t j0 = x * nk / t, j1 = std::max(j0 + 1, (x + 1) * nk / t);
      double sum = 0.0;
      std::size_t seen = 0;
      for (std::size_t i = i0; i < i1; ++i)
        for (std::size_t j = j0; j < j1 && !(causal && j > i); ++j) {
          sum += a[i * nk + j];
          ++seen;
        }
      if (seen) out[y * t + x] = sum / static_cast<double>(seen);
    }
  }
  return out;
}

double map_colour_max(const float* a, std::size_t n, bool causal, std::size_t cols) {
  if (cols == 0) cols = n;
  double hi = 0.0;
  for (std::size_t i = causal && n > 1 ? cols : 0; i < n * cols; ++i)
    if (std::isfinite(a[i])) hi = std::max(hi, static_cast<double>(a[i]));
  return hi;
}

double map_min_positive(const float* a, std::size_t n, bool causal, std::size_t cols) {
  if (cols == 0) cols = n;
  double lo = 0.0;
  for (std::size_t i = causal && n > 1 ? 1 : 0; i < n; ++i)
    for (std::size_t j = 0; j < (causal ? i + 1 : cols); ++j) {
      const double v = a[i * cols + j];
      if (std::isfinite(v) && v > 0.0 && (lo == 0.0 || v < lo)) lo = v;
    }
  return lo;
}

namespace {

double smaller_positive(double a, double b) {
  if (a <= 0.0) return b;
  if (b <= 0.0) return a;
  return std::min(a, b);
}

}  // namespace

int default_thumb(std::size_t rows, std::size_t cols) {
  const auto most = static_cast<int>(std::max<std::size_t>(1, std::max(rows, cols)));
  return std::clamp(1600 / most, 24, 160);
}

figure model_view_figure(const model_view_spec& spec) {
  if (spec.maps.size() != spec.layers * spec.heads || spec.n == 0)
    throw std::logic_error("model_view_figure: no maps");
  const std::vector<std::size_t> rows = spec.rows.empty() ? all_up_to(spec.layers) : spec.rows;
  const std::vector<std::size_t> cols = spec.cols.empty() ? all_up_to(spec.heads) : spec.cols;
  const colormap& cmap = spec.cmap ? *spec.cmap : colormap::viridis();
  const std::size_t n = spec.n;
  auto map = [&](std::size_t l, std::size_t h) {
    const float* a = spec.maps[l * spec.heads + h];
    if (!a) throw std::logic_error("model_view_figure: a map shown was not kept");
    return a;
  };

  const int t = spec.thumb > 0 ? spec.thumb : default_thumb(rows.size(), cols.size());
  const bitmap_font& font = bitmap_font::unifont();
  const int glyph_h = bitmap_font::height;
  // the shared range: [0, the largest weight shown], rounded up as the heatmaps round it
  const colour_scale& cs = spec.colours;
  const bool log = cs.mapping == colour_mapping::log;
  double shared_max = 0.0, shared_min_positive = 0.0;
  for (const std::size_t l : rows)
    for (const std::size_t h : cols) {
      shared_max = std::max(shared_max, map_colour_max(map(l, h), n, spec.causal));
      if (log)
        shared_min_positive =
            smaller_positive(shared_min_positive, map_min_positive(map(l, h), n, spec.causal));
    }
  const auto [vmin, vmax] =
      resolve_range(cs, {0.0, nice_at_or_above(shared_max)}, shared_min_positive);

  int label_w = 0;
  for (const std::size_t l : rows)
    label_w = std::max(label_w, font.text_width(decode_utf8_lossy(fmt::format("L{}", l))));
  const bool captions = !spec.captions.empty();
  int caption_h = 0;
  if (captions) {  // a caption has one line per pattern ('\n' between them)
    for (const std::size_t l : rows)
      for (const std::size_t h : cols) {
        const std::string& cap = spec.captions[l * spec.heads + h];
        if (cap.empty()) continue;
        const auto lines = 1 + std::count(cap.begin(), cap.end(), '\n');
        caption_h = std::max(caption_h, static_cast<int>(lines) * (glyph_h + 2));
      }
  }
  const bool per_panel = spec.scale == scale_mode::panel;
  // per-panel scale: each thumbnail's own maximum, written under it
  const int under = caption_h + (per_panel ? glyph_h + 2 : 0);
  const int title_h = title_block_height(spec.title, spec.subtitle, 1);
  const int grid_x = figure_margin + label_w + 8;
  const int grid_y = figure_margin + title_h + glyph_h + 6;
  const int cell_w = t + thumb_gap, cell_h = t + under + thumb_gap;
  const int grid_w = static_cast<int>(cols.size()) * cell_w - thumb_gap;
  const int grid_h = static_cast<int>(rows.size()) * cell_h - thumb_gap;
  const int bar_x = grid_x + grid_w + 24;
  const int bar_h = std::min(grid_h, std::max(160, t * 2));
  const int bar_w = per_panel ? 0 : colorbar_width(vmin, vmax, 1, cs) + 24;
  const int width = std::max(bar_x + bar_w - (per_panel ? 24 : 0) + figure_margin,
                             figure_margin * 2 + title_block_width(spec.title, spec.subtitle, 1));
  const int height = grid_y + grid_h + figure_margin;
  figure fig(width, height);
  draw_title_block(fig, spec.title, spec.subtitle, 1);

  for (std::size_t c = 0; c < cols.size(); ++c) {
    const std::u32string label = decode_utf8_lossy(fmt::format("H{}", cols[c]));
    const int x = grid_x + static_cast<int>(c) * cell_w + (t - font.text_width(label)) / 2;
    fig.text(x, grid_y - glyph_h - 4, label, figure_muted);
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const int y = grid_y + static_cast<int>(r) * cell_h;
    const std::u32string label = decode_utf8_lossy(fmt::format("L{}", rows[r]));
    fig.text(grid_x - 8 - font.text_width(label), y + (t - glyph_h) / 2, label, figure_muted);
    for (std::size_t c = 0; c < cols.size(); ++c) {
      const int x = grid_x + static_cast<int>(c) * cell_w;
      const float* a = map(rows[r], cols[c]);
      double bottom = vmin, top = vmax;
      if (per_panel)
        std::tie(bottom, top) =
            resolve_range(cs, {0.0, nice_at_or_above(map_colour_max(a, n, spec.causal))},
                          log ? map_min_positive(a, n, spec.causal) : 0.0);
      fig.image(x, y, t, t, thumbnail(a, n, t, spec.causal, cs, bottom, top, cmap));
      fig.frame(x - 1, y - 1, t + 2, t + 2, 1, figure_muted);
      int below = y + t + 2;
      if (per_panel) {
        const std::u32string s =
            fit_text(decode_utf8_lossy(fmt::format("{:g}-{:g}", bottom, top)), t, font);
        fig.text(x, below, s, figure_muted);
        below += glyph_h + 2;
      }
      if (captions) {
        const std::string& caption = spec.captions[rows[r] * spec.heads + cols[c]];
        std::size_t at = 0;
        while (!caption.empty() && at <= caption.size()) {
          const std::size_t end = std::min(caption.find('\n', at), caption.size());
          fig.text(x, below, fit_text(decode_utf8_lossy(caption.substr(at, end - at)), t, font),
                   figure_ink);
          below += glyph_h + 2;
          at = end + 1;
        }
      }
    }
  }
  if (!per_panel) draw_colorbar(fig, bar_x, grid_y, bar_h, cmap, vmin, vmax, 1, cs);
  return fig;
}

}  // namespace attnviz
