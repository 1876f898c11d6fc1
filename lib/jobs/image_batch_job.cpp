#include "jobs/image_batch_job.h"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/batch_journal.h"

namespace attnviz {
namespace image_batch_parts {
namespace {

struct picture_line {
  std::size_t number = 0;
  std::string text, path, stem, error;
  std::vector<std::string> written;
};

std::vector<picture_line> read_list(const image_batch_config& c) {
  const std::filesystem::path base = std::filesystem::path(c.list).parent_path();
  std::vector<picture_line> lines;
  for (numbered_line& l : batch_input_lines(read_whole_file(c.list))) {
    picture_line p;
    p.number = l.number;
    p.text = std::move(l.text);
    const std::filesystem::path given(p.text);
    p.path = (given.is_absolute() ? given : base / given).string();
    lines.push_back(std::move(p));
  }
  if (lines.empty())
    throw input_error(c.list, "names no picture (expected one picture path a line)");
  const std::size_t width = std::max<std::size_t>(4, fmt::format("{}", lines.back().number).size());
  for (picture_line& p : lines)
    p.stem = batch_file_stem(p.number, width, std::filesystem::path(p.text).stem().string());
  return lines;
}

// The job of one picture: the shared settings, its image and its output paths.
model_job_config picture_job(const image_batch_config& c, const picture_line& p) {
  model_job_config j = c.job;
  j.image = p.path;
  j.out = {};
  j.progress = progress_style::quiet;
  const std::filesystem::path dir(c.out_dir);
  for (const batch_format f : c.formats) {
    const std::string file = (dir / (p.stem + "." + std::string(format_extension(f)))).string();
    switch (f) {
      case batch_format::png:
        j.out.png = file;
        break;
      case batch_format::json:
        j.out.json = file;
        break;
      case batch_format::svg:
        j.out.svg = file;
        break;
      case batch_format::html:
        j.out.html = file;
        break;
      case batch_format::npy:
        j.out.npy_dir = (dir / p.stem).string();
        break;
    }
  }
  return j;
}

std::string index_json(const image_batch_config& c, const std::vector<picture_line>& lines) {
  nlohmann::ordered_json j;
  j["attn-viz"] = version;
  j["model"] = folder_name(c.job.model_dir);
  nlohmann::ordered_json pictures = nlohmann::ordered_json::array();
  for (const picture_line& p : lines) {
    nlohmann::ordered_json e{{"line", p.number}, {"picture", p.text}};
    if (p.error.empty())
      e["files"] = p.written;
    else
      e["error"] = plain_params(p.error);
    pictures.push_back(std::move(e));
  }
  j["pictures"] = std::move(pictures);
  return j.dump(1) + "\n";
}

}  // namespace
}  // namespace image_batch_parts

image_batch_report run_image_batch(const image_batch_config& c) {
  using namespace image_batch_parts;
  if (c.formats.empty())
    throw usage_error(param("formats") + ": give at least one of png, json, svg, npy, html");
  check_output_dir(c.out_dir, param("out_dir"));
  std::vector<picture_line> lines = read_list(c);
  const hf_model m = load_model(c.job.model_dir);
  if (!m.config.vision.on)
    throw usage_error(
        fmt::format("{} reads pictures for a vision model (vit, deit, dinov2); {} "
                    "is a {} model",
                    param("images"), c.job.model_dir, m.config.model_type));
  create_output_dir(c.out_dir);
  std::vector<std::string> settings = c.settings;
  for (const batch_format f : c.formats) settings.emplace_back(format_extension(f));
  batch_journal journal(c.out_dir, batch_settings_hash(settings, {c.list}), c.resume);
  if (c.resume) {
    std::vector<std::string> stems;
    for (const picture_line& p : lines) stems.push_back(p.stem);
    sweep_batch_temporaries(c.out_dir, stems);
  }
  image_batch_report report;
  report.pictures = lines.size();
  progress bar("running", "pictures", lines.size(), c.job.progress);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    picture_line& p = lines[i];
    if (const auto* files = journal.done(p.number, p.text, p.stem)) {
      p.written = *files;
      ++report.resumed;
    } else {
      try {
        for (const std::string& path : run_model_job_on(m, picture_job(c, p)).written)
          p.written.push_back(
              std::filesystem::path(path).lexically_relative(c.out_dir).generic_string());
        journal.record(p.number, p.text, p.stem, p.written);
      } catch (const input_error& e) {  // this picture: recorded, the others go on
        p.error = message_at(fmt::format("{}:{}", c.list, p.number), e);
        p.written.clear();
        report.skipped.push_back({p.number, p.error});
      }
    }
    if (p.error.empty()) ++report.succeeded, report.files += p.written.size();
    bar.update(i + 1);
  }
  bar.finish();
  report.index_path = (std::filesystem::path(c.out_dir) / "index.json").string();
  output_batch index;
  index.add(report.index_path, index_json(c, lines));
  index.commit();
  ++report.files;
  return report;
}

}  // namespace attnviz
