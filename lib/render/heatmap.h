// A labelled heatmap: rows = queries, columns = keys, every label on both axes (column labels
// rotated), optional value annotations, a colour bar with value ticks, a title, axis names.
//
//   ┌───────────────────────────────────────────────┐
//   │ title                                          │
//   │ subtitle                                       │
//   │ q ┌label┐┌──────── cells ────────┐  ┌bar┐ tick │
//   │ u │ row ││ 0.12  0.40  ...       │  │   │ tick │
//   │   └─────┘└───────────────────────┘  └───┘      │
//   │           rotated column labels                │
//   │                   keys                         │
//   └───────────────────────────────────────────────┘
//
// Every size is measured before anything is placed, so labels, colour bar and title never
// overlap. Text scales with the cell: scale s = max(1, cell / 40) (16·s px glyphs).
// heatmap_figure() lays it out once; rasterize() / to_svg() draw it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "enum_names.h"
#include "render/colormap.h"
#include "render/colour_scale.h"
#include "render/figure.h"
#include "tensor.h"

namespace attnviz {

enum class annotate_mode { automatic, on, off };
inline constexpr named<annotate_mode> annotate_mode_names[] = {
    {"auto", annotate_mode::automatic}, {"on", annotate_mode::on}, {"off", annotate_mode::off}};

struct heatmap_spec {
  const matrix* values = nullptr;       // n_rows × n_cols
  std::vector<std::string> row_labels;  // UTF-8, one per row
  std::vector<std::string> col_labels;  // UTF-8, one per column
  std::string title;
  std::string subtitle;
  std::string row_axis = "queries";
  std::string col_axis = "keys";
  double vmin = 0.0;
  double vmax = 0.0;                    // vmax <= vmin: from `scale` (see scale_range)
  colour_scale scale;                   // mapping and fixed ends (--scale, --vmin, --vmax)
  bool centered = false;                // automatic range symmetric around 0 (diverging colormaps)
  int cell = 0;                         // pixels per cell; 0: automatic (20-48 by token count)
  const colormap* cmap = nullptr;       // nullptr: viridis
  std::vector<int> marked_col_per_row;  // outline cell (i, marked[i]) (hard context's j*)
  std::size_t boundary_col = 0;  // a rule before this column, 0: none (a generation's prompt end)
  std::vector<bool> hidden;  // n_rows·n_cols row-major: masked cells, drawn light grey, no value
  annotate_mode annotate = annotate_mode::automatic;  // see cell_numbers.h
  // n_rows·n_cols row-major UTF-8: a text drawn in each cell instead of its number (the logit
  // lens' tokens), cut with '…' to the cell's width; empty: numbers as `annotate` says
  std::vector<std::string> cell_texts;
  bool colorbar = true;
  std::shared_ptr<const matrix> owned;  // values a crop made (values points at it), else null
};

// spec restricted to `rows` × `cols` (indices into its values; empty: all): the values, labels,
// hidden cells and marked keys of those rows and columns, in the order given. The new values
// live in spec.owned, so copies of the spec stay valid.
void crop_heatmap(heatmap_spec& spec, const std::vector<std::size_t>& rows,
                  const std::vector<std::size_t>& cols);

struct heatmap_layout {
  int width = 0, height = 0;
  int cell = 0;
  int scale = 1;               // text scale
  int label_every = 1;         // draw every k-th row/column label (k > 1 only for tiny cells)
  int grid_x = 0, grid_y = 0;  // top-left of cell (0, 0)
  int bar_x = 0, bar_y = 0, bar_w = 0, bar_h = 0;
  int max_label_px = 0;  // labels longer than this are cut with '…'
  int subtitle_wrap = 0;  // the subtitle's lines fit this many pixels
  double vmin = 0.0, vmax = 1.0;
  std::vector<double> ticks;
  std::vector<std::string> numbers;  // the cells' texts (row-major; "" blank); empty: none
  // Lines under the figure, each said once: what the cell numbers are (cell_numbers.h), and
  // which labels are drawn when the cells are too small for every one.
  std::vector<std::string> notes;
  int note_y = 0;  // the first one's top
};

// The note under a figure whose labels are thinned to every `every`-th of `n` (every > 1),
// with the cell size that shows each one.
std::string thinned_labels_note(int every, std::size_t n, int cell_for_all);

// [vmin, vmax] for the colour scale. Sequential: lower bound min(0, min value), upper bound
// the smallest of 1, 2, 2.5, 5 × 10^k at or above the largest value. Centered: [-m, m] with m
// that round number at or above max |value|.
std::pair<double, double> value_range(const matrix& values, bool centered = false);
// The colour ranges' round numbers: the least of 1, 2, 2.5, 5 × 10^k at or above x (1 for x <= 0).
double nice_at_or_above(double x);
// Tick values: multiples of a 1/2/2.5/5 × 10^k step, at most 6.
std::vector<double> nice_ticks(double vmin, double vmax);
// Automatic cell size for n tokens: 720/n clamped to 20-48 px (5-40 tokens stay legible);
// past 400 tokens, 8000/n (at least 1) so the image stays about 8000 px wide.
int default_cell(std::size_t n);
// Text scale for a cell size.
int text_scale(int cell);

heatmap_layout layout_heatmap(const heatmap_spec& spec);
figure heatmap_figure(const heatmap_spec& spec);
canvas render_heatmap(const heatmap_spec& spec);  // rasterize(heatmap_figure(spec))

// Title (ink) and subtitle (grey) at the top-left margin of a figure; empty lines take no room.
// title_block_height is the height they take, title_block_width the width (without margins).
// A subtitle wider than `wrap` pixels (0: never) is broken at spaces into lines that fit (a
// word wider than that keeps a line of its own), so a long subtitle never widens a figure.
std::vector<std::u32string> subtitle_lines(const std::string& subtitle, int wrap, int scale);
int title_block_height(const std::string& title, const std::string& subtitle, int scale,
                       int wrap = 0);
int title_block_width(const std::string& title, const std::string& subtitle, int scale,
                      int wrap = 0);
void draw_title_block(figure& fig, const std::string& title, const std::string& subtitle,
                      int scale, int wrap = 0);
constexpr int figure_margin = 16;
constexpr int figure_bar_gap = 24;          // between a map and its colour bar
constexpr int figure_tick_len = 4;          // a colour bar's or an axis's tick
constexpr rgb figure_ink{34, 34, 34};       // titles and labels
constexpr rgb figure_muted{102, 102, 102};  // subtitles, ticks' labels and frames

// A colour bar of h pixels at (x, y) with ticks and labels right of it (placed by the colour
// scale `cs`; a scale other than the default also labels both ends of its range);
// colorbar_width is its full width.
int colorbar_width(double vmin, double vmax, int scale, const colour_scale& cs = {});
void draw_colorbar(figure& fig, int x, int y, int h, const colormap& cmap, double vmin, double vmax,
                   int scale, const colour_scale& cs = {});

}  // namespace attnviz
