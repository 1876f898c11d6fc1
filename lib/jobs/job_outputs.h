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

// Each (path, flag) with a non-empty path: check_output_path (folder exists and is writable).
void check_outputs(const std::vector<std::pair<std::string, const char*>>& outputs);

// The figure as PNG (png non-empty) and as SVG (svg non-empty).
void add_figure(output_batch& out, const figure& fig, const std::string& png,
                const std::string& svg);

// "weights.safetensors" (file name only) or "--seed N".
std::string params_label(const param_store& params);

}  // namespace attnviz
