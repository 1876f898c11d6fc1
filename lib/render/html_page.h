// --html FILE: one self-contained page, for a browser with no network.
//
// Everything is inline (styles, script, data, and the bundled font's glyphs for every character
// past ASCII, so labels in any script look the same in every browser; no images or CDN), and a
// Content Security Policy (default-src 'none'; fonts only from data: URLs) forbids the page any
// request. It shows:
//   - the heatmap on a canvas, coloured with the same 256-entry tables and value ranges as the
//     PNG (viridis weights, diverging rdbu scores centred on 0, or --cmap);
//   - on hover: the query and key tokens with their indices, the score e_ij and the weight a_ij
//     (element #hover), and the explanation of that query's row (#explain, query_story.h);
//   - selectors for the variant (compare), the head (each head, and their mean, when there are
//     several) and the matrix (weights, or scores when kept); the variant's stages with their
//     formulas and papers.
// The data sit in <script type="application/json" id="attnviz-data"> as
//   {"title", "subtitle", "colormaps": {"weights": ["#rrggbb" × 256], "scores": [...]},
//    "panels": [{"label", "stages": [{"stage", "name", "summary", "formula", "paper"}],
//                "query_tokens", "key_tokens",
//                "views": [{"label", "weights": [[...]], "weights_range": [lo, hi],
//                           "scores": [[...]] | null, "scores_range": [lo, hi],
//                           "masked": [[i, j], ...], "explain": ["...", one per query]}]}]}
// and window.attnviz.cellCenter(i, j) gives a cell's centre in page coordinates, labelStep() the
// k of "every k-th label" (cells under 13 px thin the labels so they never overlap; the map
// scrolls past the window), reveal(i, j) scrolls a cell into view (for tests and for anyone
// scripting the page).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "render/views.h"

namespace attnviz {

struct html_panel {
  std::string label;  // "dot · softmax" (compare); empty for a single run
  const attention_result* result = nullptr;
};

// The most numbers a page holds (weights over every view and panel), so it stays loadable;
// past it, --html is a usage_error suggesting --png or --npy.
inline constexpr std::size_t html_max_cells = 4'000'000;

// `notes`: plain text shown under the map (compare's metrics table), or nothing.
// The title and subtitle follow view's --title / --no-title.
std::string html_page(const std::vector<html_panel>& panels, const view_options& view,
                      std::string title, std::string subtitle, const std::string& notes = "");

// Throws usage_error when the page would pass html_max_cells.
void check_html_size(const std::vector<html_panel>& panels);

}  // namespace attnviz
