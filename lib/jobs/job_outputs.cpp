#include "jobs/job_outputs.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "error.h"
#include "render/canvas.h"
#include "render/pdf.h"

namespace attnviz {

namespace {

struct output_path {
  const std::string& path;
  std::string flag;
  std::vector<const char*> extensions;  // what a name may end in (any case); none: anything
  const char* format;
};

// A file name whose extension names another format than its flag writes ("--png x.jpg"):
// usage_error; a name without an extension, or standard output, is fine.
void check_extension(const output_path& o) {
  if (o.path == stdout_name) return;
  std::string ext = std::filesystem::path(o.path).extension().string();
  if (ext.empty()) return;
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* e : o.extensions)
    if (ext == e) return;
  throw usage_error(fmt::format("{} {}: {} writes {}; name the file {}{} (or give another flag "
                                "for another format)",
                                o.flag, o.path, o.flag, o.format,
                                std::filesystem::path(o.path).stem().string(), o.extensions[0]));
}

// Each output with a non-empty path: check_output_path (not an input, folder exists and is
// writable), then its extension.
void check_outputs(const std::vector<output_path>& outputs) {
  const std::string* on_stdout = nullptr;
  for (const auto& o : outputs) {
    const std::string& path = o.path;
    const std::string& flag = o.flag;
    if (path.empty()) continue;
    check_output_path(path, flag);
    check_extension(o);
    if (path != stdout_name) continue;
    if (on_stdout)
      throw usage_error(
          fmt::format("{} - and {} -: only one output can go to standard output", *on_stdout,
                      flag));
    on_stdout = &flag;
  }
}

}  // namespace

void job_outputs::check() const {
  check_outputs({{json, param("json"), {".json"}, "JSON"},
                 {png, param("png"), {".png"}, "PNG"},
                 {svg, param("svg"), {".svg"}, "SVG"},
                 {pdf, param("pdf"), {".pdf"}, "PDF"},
                 {params, param("params_out"), {".safetensors", ".st"}, "safetensors"},
                 {html, param("html"), {".html", ".htm"}, "HTML"}});
  if (!npy_dir.empty()) check_output_dir(npy_dir, param("npy"));
}

run_size output_size(const job_outputs& paths, const view_options& view, std::uint64_t n_q,
                     std::uint64_t n_k) {
  run_size size;
  size.n_q = n_q;
  size.n_k = n_k;
  size.json = !paths.json.empty() || !paths.npy_dir.empty();
  size.image = paths.figure();
  size.cell = view.cell;
  return size;
}

void check_job(const job_outputs& paths, const view_options& view) {
  paths.check();
  check_view(view);
}

namespace {

template <class F>
const F& producer(const F& f, const char* kind) {
  if (!f) throw std::logic_error(fmt::format("this job cannot write {}", kind));
  return f;
}

}  // namespace

void add_outputs(output_batch& batch, const job_outputs& paths, const job_products& made) {
  if (!paths.json.empty()) batch.add(paths.json, producer(made.json, "json")());
  if (paths.figure()) {
    const figure fig = producer(made.picture, "a figure")();
    if (!paths.png.empty()) batch.add(paths.png, encode_png(rasterize(fig), paths.dpi));
    if (!paths.svg.empty()) batch.add(paths.svg, to_svg(fig, {paths.text, paths.dpi}));
    if (!paths.pdf.empty())
      batch.add(paths.pdf, to_pdf(fig, paths.dpi > 0 ? paths.dpi : pdf_default_dpi));
  }
  if (!paths.html.empty()) batch.add(paths.html, producer(made.html, "html")());
  if (!paths.params.empty()) batch.add(paths.params, producer(made.params, "parameters")());
  if (!paths.npy_dir.empty()) {
    producer(made.npy, "npy")(batch, paths.npy_dir);
    batch.add_dir(paths.npy_dir);
  }
}

std::vector<std::string> write_outputs(const job_outputs& paths, const job_products& made) {
  output_batch batch;
  add_outputs(batch, paths, made);
  return batch.commit();
}

std::string params_label(const param_store& params) {
  return params.from_file() ? std::filesystem::path(params.source()).filename().string()
                            : params.source();
}

}  // namespace attnviz
