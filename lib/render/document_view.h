// The document view of hierarchical attention: one line per sentence, its weight in a shaded
// box on the left, then its words, each on a background shaded by its weight (long sentences
// wrap). Word and sentence weights share one colour scale, shown by the colour bar.
//
//   ┌ title / subtitle ─────────────────────────────┐
//   │ [0.61] ▒the▒ ▓cat▓ ░sat░ ▒on▒ …          ┌bar┐ │
//   │ [0.39] ░it░ ▓was▓ ▒tired▒                 │   │ │
//   └───────────────────────────────────────────└───┘─┘
#pragma once

#include <string>
#include <vector>

#include "render/colormap.h"
#include "render/figure.h"

namespace attnviz {

struct document_view_spec {
  std::vector<std::vector<std::string>> sentences;  // tokens
  std::vector<std::vector<double>> word_weights;    // same shape as sentences
  std::vector<double> sentence_weights;             // one per sentence
  std::string title, subtitle;
  const colormap* cmap = nullptr;  // nullptr: viridis
  int scale = 1;                   // text scale
  int max_width = 1100;            // words wrap past this (pixels, at scale 1)
};

figure document_figure(const document_view_spec& spec);

}  // namespace attnviz
