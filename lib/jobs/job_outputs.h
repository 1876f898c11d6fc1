// What every job does with its outputs, in one place: check the paths before any work, write
// every requested output through one all-or-nothing batch, and name the parameters' source the
// way figures show it.
//
// A job says what it can make (job_products: one producer per kind of output) and
// write_outputs writes the kinds whose paths are set, in one order (json, png, svg, html,
// params, npy), so a new output format is its writer, a field here and a row in add_outputs.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/file_io.h"
#include "jobs/memory_guard.h"
#include "params/param_store.h"
#include "render/figure.h"
#include "render/views.h"

namespace attnviz {

// The files a job writes, one field per kind (empty: not written). Every job embeds one, so the
// paths are declared, checked and named once:
//   json    --json FILE     the numbers          png   --png FILE    the figure
//   svg     --svg FILE      the figure, as SVG   html  --html FILE   the interactive page
//   params  --params-out    the parameters used  npy_dir  --npy DIR  the maps as .npy files
//   pdf     --pdf FILE      the figure, as PDF
// A job that has no use for a kind leaves it empty (its command has no flag for it).
struct job_outputs {
  std::string json, png, svg, html, params, npy_dir;
  std::string pdf;              // --pdf FILE: the figure as PDF (vector; pdf.h)
  svg_text text = svg_text::glyphs;  // --svg-text: text as text, or as the glyphs' pixels
  int dpi = 0;                  // --dpi: the physical size PNG, SVG and PDF say (0: none; PDF 96)

  bool figure() const noexcept { return !png.empty() || !svg.empty() || !pdf.empty(); }
  bool any() const noexcept { return figure() || !json.empty() || !html.empty() ||
                                     !params.empty() || !npy_dir.empty(); }
  // Before any work: every path set passes check_output_path (npy_dir check_output_dir), and
  // at most one of them is "-" (standard output). Errors name the flag.
  void check() const;
};

// What a job can write, each made only when its path is set (a job leaves empty what its
// command has no flag for; asking for it anyway is a logic_error, a bug in the command).
struct job_products {
  std::function<std::string()> json;    // the numbers, as JSON text
  std::function<figure()> picture;      // drawn as PNG and/or SVG
  std::function<std::string()> html;    // the self-contained page
  std::function<std::string()> params;  // the parameters used (safetensors bytes)
  std::function<void(output_batch&, const std::string& dir)> npy;  // .npy files into dir
};

// The memory check's size of an n_q × n_k run writing `paths` (.npy counted as JSON: both hold
// every map) drawn with `view`; the caller adds d_v, heads and variants.
run_size output_size(const job_outputs& paths, const view_options& view, std::uint64_t n_q,
                     std::uint64_t n_k);

// Before any work: the output paths (job_outputs::check) and the view (check_view).
void check_job(const job_outputs& paths, const view_options& view);

// Adds every requested output to `batch` (which the caller commits).
void add_outputs(output_batch& batch, const job_outputs& paths, const job_products& made);
// add_outputs into a batch of its own, committed: the paths written, in order.
std::vector<std::string> write_outputs(const job_outputs& paths, const job_products& made);

// "weights.safetensors" (file name only) or "--seed N".
std::string params_label(const param_store& params);

}  // namespace attnviz
