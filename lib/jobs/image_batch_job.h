// `attn-viz model --model DIR --images LIST --out-dir OUT`: a vision model over many pictures,
// loaded once. LIST holds one picture path a line (relative paths from LIST's folder; blank
// lines and '#' comments skipped); each picture runs as `model --image` would, with the same
// view, measure and --top-k, its files written all-or-nothing as
//   OUT/NNNN-stem.png, .svg, .json, .html and OUT/NNNN-stem/ (the --npy files)
// for the chosen --formats, NNNN its line number and stem the picture's file name
// (batch_file_stem). A picture that cannot be read is recorded and skipped; then
// OUT/index.json: {"attn-viz", "model", "pictures": [{"line", "picture", "files"} or
// {"line", "picture", "error"}]}. Each picture's record goes to the journal
// (jobs/batch_journal.h) once its files are in place, so `resume` skips the pictures done.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "jobs/batch_job.h"
#include "jobs/model_job.h"

namespace attnviz {

struct image_batch_config {
  model_job_config job;  // the model, view, measure, top_k; its image and outputs unused
  std::string list, out_dir;
  std::vector<batch_format> formats = {batch_format::png};
  bool resume = false;
  std::vector<std::string> settings;  // what else shapes the files (the app's flags), hashed
};

struct image_batch_report {
  std::size_t pictures = 0, succeeded = 0, resumed = 0, files = 0;
  std::vector<batch_line_error> skipped;
  std::string index_path;
};

image_batch_report run_image_batch(const image_batch_config& config);

}  // namespace attnviz
