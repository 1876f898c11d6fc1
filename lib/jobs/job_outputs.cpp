#include "jobs/job_outputs.h"

#include <fmt/format.h>

#include <filesystem>

#include "error.h"
#include "render/canvas.h"

namespace attnviz {

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
