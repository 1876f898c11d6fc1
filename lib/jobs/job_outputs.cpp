#include "jobs/job_outputs.h"

#include <fmt/format.h>

#include <filesystem>

#include "error.h"
#include "render/canvas.h"

namespace attnviz {

namespace {

// Each (path, flag) with a non-empty path: check_output_path (folder exists and is writable).
void check_outputs(const std::vector<std::pair<std::string, const char*>>& outputs) {
  const char* on_stdout = nullptr;
  for (const auto& [path, flag] : outputs) {
    if (path.empty()) continue;
    check_output_path(path, flag);
    if (path != stdout_name) continue;
    if (on_stdout)
      throw usage_error(
          fmt::format("{} - and {} -: only one output can go to standard output", on_stdout, flag));
    on_stdout = flag;
  }
}

}  // namespace

void job_outputs::check() const {
  check_outputs({{json, "--json"},
                 {png, "--png"},
                 {svg, "--svg"},
                 {params, "--params-out"},
                 {html, "--html"}});
  if (!npy_dir.empty()) check_output_dir(npy_dir, "--npy");
}

void add_figure(output_batch& out, const figure& fig, const std::string& png,
                const std::string& svg) {
  if (!png.empty()) out.add(png, encode_png(rasterize(fig)));
  if (!svg.empty()) out.add(svg, to_svg(fig));
}

std::string params_label(const param_store& params) {
  return params.from_file() ? std::filesystem::path(params.source()).filename().string()
                            : params.source();
}

}  // namespace attnviz
