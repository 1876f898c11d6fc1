// `attn-viz run`: one sentence (or sentence pair) through one variant, to JSON / PNG / SVG /
// weights file / terminal.
//
// Order of work: check the output folders; prepare the input (tokenize, stream the embedding
// file once, embed); load or seed parameters; run the pipeline; render every output in memory;
// write them all-or-nothing (output_batch).
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "jobs/inputs.h"
#include "jobs/memory_guard.h"
#include "render/views.h"

namespace attnviz {

struct run_config {
  input_config input;
  attention_spec spec;
  std::string params_in;  // empty: seeded from spec.seed
  // outputs (empty: not written)
  std::string json_out;
  std::string png_out;
  std::string svg_out;
  std::string params_out;
  view_options view;
  std::uint64_t max_memory = default_memory_limit;
};

struct run_report {
  attention_result result;
  std::vector<std::string> written;   // paths, in order
  std::vector<std::string> warnings;  // one line each (OOV tokens, unused tensors)
};

run_report run_job(const run_config& config);

}  // namespace attnviz
