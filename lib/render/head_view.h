// The head view: one layer's heads as lines between the tokens, the picture bertviz made
// familiar. The tokens stand in two columns, queries on the left and keys on the right, in
// order; a line joins query i to key j for every weight a_ij of at least `min_weight`, its
// opacity the weight (full at 1), in the head's colour.
//
//   ┌ title ──────────────────────────────────────────────┐
//   │  ■ H0  ■ H1  …                     (legend)           │
//   │      The ─────────── The      The ───────── The       │
//   │      cat ╲────────── cat      cat ╲──────── cat       │
//   │      sat   ╲──────── sat      …                       │
//   └──────────────────────────────────────────────────────┘
//
// Side by side: one panel per head; overlaid: every head in one panel, each in its colour (the
// colours are Tableau's ten, repeating past ten heads). Rows are 18 px; labels are cut at 16
// characters (with "…").
#pragma once

#include <string>
#include <vector>

#include "render/figure.h"

namespace attnviz {

struct head_view_spec {
  // each head's n × n map of one layer (row i = query i; null: not kept, and not shown)
  std::vector<const float*> maps;
  std::size_t heads = 0, n = 0;
  std::vector<std::size_t> shown;  // the heads drawn, in order (empty: all)
  std::vector<std::string> tokens;
  std::string title, subtitle;
  bool overlay = false;
  double min_weight = 0.01;
};

figure head_view_figure(const head_view_spec& spec);

}  // namespace attnviz
