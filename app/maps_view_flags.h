// The flags of the views over a stack of maps (--view, --layer, --head, --layers, --heads,
// --scale, --vmin, --vmax, --cmap, --annotate, --cell, --term), shared by `model` and `draw` so both read them
// the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "jobs/maps_views.h"

namespace attnviz::cli {

struct maps_view_flags {
  std::string view = "head", scale = "linear", vmin, vmax, cmap, annotate = "auto";
  std::string fusion = "mean";
  std::string title;
  bool no_title = false;
  bool term = false;
};

void add_maps_view_flags(CLI::App& cmd, view_choice& choice, maps_view_flags& flags);
// The names into `choice`; usage_error when --term asks for a view that is not one map.
void resolve_maps_view(const maps_view_flags& flags, view_choice& choice);
// The chosen heatmap view in the terminal (--term).
void print_view_term(const maps_source& source, const view_choice& choice);

}  // namespace attnviz::cli
