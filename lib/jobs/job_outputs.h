// What every job does with its outputs, in one place: check the paths before any work, add the
// figure as PNG and/or SVG to the all-or-nothing batch, and name the parameters' source the way
// figures show it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "io/file_io.h"
#include "params/param_store.h"
#include "render/figure.h"

namespace attnviz {

// The files a job writes, one field per kind (empty: not written). Every job embeds one, so the
// paths are declared, checked and named once:
//   json    --json FILE     the numbers          png   --png FILE    the figure
//   svg     --svg FILE      the figure, as SVG   html  --html FILE   the interactive page
//   params  --params-out    the parameters used  npy_dir  --npy DIR  the maps as .npy files
// A job that has no use for a kind leaves it empty (its command has no flag for it).
struct job_outputs {
  std::string json, png, svg, html, params, npy_dir;

  bool figure() const noexcept { return !png.empty() || !svg.empty(); }
  bool any() const noexcept { return figure() || !json.empty() || !html.empty() ||
                                     !params.empty() || !npy_dir.empty(); }
  // Before any work: every path set passes check_output_path (npy_dir check_output_dir), and
  // at most one of them is "-" (standard output). Errors name the flag.
  void check() const;
};

// The figure as PNG (png non-empty) and as SVG (svg non-empty).
void add_figure(output_batch& out, const figure& fig, const std::string& png,
                const std::string& svg);

// "weights.safetensors" (file name only) or "--seed N".
std::string params_label(const param_store& params);

}  // namespace attnviz
