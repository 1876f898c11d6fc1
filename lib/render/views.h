// What the user asked to see, turned into heatmap specs: which matrix (weights or scores),
// which colormap, annotations, cell size. Shared by run, compare and demo.
#pragma once

#include <optional>
#include <string>

#include "attention/pipeline.h"
#include "enum_names.h"
#include "render/figure.h"
#include "render/grid.h"
#include "render/heatmap.h"

namespace attnviz {

enum class shown_matrix { weights, scores };
inline constexpr named<shown_matrix> shown_matrix_names[] = {{"weights", shown_matrix::weights},
                                                             {"scores", shown_matrix::scores}};

// Which picture of a multi-head result: every head plus their mean (grid), only the mean or
// the element-wise max over heads, or one head (1-based on the command line).
struct head_view {
  enum class kind { grid, mean, max, one };
  kind what = kind::grid;
  std::size_t head = 0;  // 0-based, for kind::one
};

struct view_options {
  shown_matrix show = shown_matrix::weights;
  std::string cmap;  // empty: viridis for weights, rdbu (diverging, centred on 0) for scores
  annotate_mode annotate = annotate_mode::automatic;
  int cell = 0;  // 0: automatic
  head_view heads;
  colour_scale colours;                    // --scale linear|log|power=G, --vmin, --vmax
  scale_mode range = scale_mode::shared;   // grids: one range for all panels, or each its own
  // --title / --no-title: the figure's title instead of the automatic one (the subtitle
  // stays), or neither title nor subtitle
  std::optional<std::string> title;
  bool no_title = false;
  // --rows / --cols: the query rows and key columns drawn, as index lists ("3-10", "0,4-7");
  // empty: all. JSON and .npy keep every row and column.
  std::string rows, cols;
};

// title and subtitle as --title / --no-title ask.
void apply_titles(const view_options& o, std::string& title, std::string& subtitle);
// " · rows 3-10 · cols 0-20" for the crop asked (empty when none): what a figure's subtitle adds.
std::string crop_label(const view_options& o);
// spec cropped to --rows / --cols (usage_error naming them for an index past the map), with
// the subtitle saying which (when `say` and a crop was asked).
void apply_crop(heatmap_spec& spec, const view_options& o, bool say = true);

// --scale: comma-separated words, a colour mapping (linear, log, power=G) and, where `range` is
// given (figures of several panels), shared or panel; e.g. "log", "panel", "power=0.5,panel".
// usage_error naming --scale for anything else.
void parse_scale_words(std::string_view words, colour_scale& colours, scale_mode* range);
// --vmin / --vmax: empty is automatic; else a finite number (usage_error naming the flag).
std::optional<double> parse_range_end(std::string_view text, std::string_view name);

// Parses "weights" / "scores" and "auto" / "on" / "off" (usage_error otherwise).
// Before any work: the cell size is 0 (automatic) to 256 pixels and the colormap name is known
// (usage_error naming the parameter otherwise).
void check_view(const view_options& o);

// The most heads a grid figure (every head and the mean) draws: past it the panels cannot be
// read. check_head_grid refuses a grid of more, naming the limit and the other views.
inline constexpr std::size_t grid_max_heads = 64;
void check_head_grid(std::size_t heads, const view_options& o);

shown_matrix parse_shown_matrix(std::string_view s);
annotate_mode parse_annotate_mode(std::string_view s);
std::string_view shown_matrix_name(shown_matrix m);
// "grid" / "mean" / "max" / "N" (1-based head number).
head_view parse_head_view(std::string_view s);
// How a figure names the heads it shows: "max", "head N" (1-based), else "mean".
std::string head_view_label(const head_view& v);

// "self-attention · score: dot · align: softmax · context: soft"
std::string variant_title(const attention_result& r);
// "score: dot · align: softmax · context: soft" without the structure (grid panels)
std::string variant_short_title(const attention_result& r);

// The heatmap of head `head` of r as the options ask; the matrix pointer refers into r.
heatmap_spec make_heatmap(const attention_result& r, std::size_t head, const view_options& o);
// The same for a matrix derived from r (e.g. the mean over heads), titled `what`.
heatmap_spec make_matrix_heatmap(const attention_result& r, const matrix& values,
                                 const std::string& what, const view_options& o);

// The whole figure for one result: one heatmap, or for several heads what o.heads asks
// (grid: each head and the mean on one colour scale).
figure result_figure(const attention_result& r, const view_options& o,
                     const std::string& subtitle_suffix);

// The matrix compare and the terminal show for r: head 0's, or the heads' mean / max.
matrix shown_matrix_of(const attention_result& r, const view_options& o);

}  // namespace attnviz
