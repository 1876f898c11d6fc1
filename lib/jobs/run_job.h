// `attn-viz run`: one sentence (or sentence pair) through one variant, to JSON / PNG / SVG /
// weights file / terminal.
//
// Order of work: check the output folders; prepare the input (tokenize, stream the embedding
// file once, embed); load or seed parameters; run the pipeline; render every output in memory;
// write them all-or-nothing (output_batch).
// Long inputs stream instead (stream_job.h): with --stream, or automatically past
// auto_stream_cells query × key cells or when the full maps would pass --max-memory.
#pragma once

#include <string>
#include <vector>

#include "analysis/pooled_map.h"
#include "attention/pipeline.h"
#include "io/file_io.h"
#include "io/progress.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "params/param_store.h"
#include "render/json_result.h"
#include "render/views.h"

namespace attnviz {

struct run_config : attention_job {
  job_outputs out;  // every kind; npy_dir: weights, scores, context (and output) as .npy
  // streaming
  enum class streaming { automatic, on, off };
  streaming stream = streaming::automatic;
  std::size_t pixels = 2048;  // image side: at most this many bins of queries and of keys
  pool_mode pool = pool_mode::mean;
  progress_style progress = progress_style::automatic;
};

struct run_report {
  attention_result result;
  std::vector<std::string> written;   // paths, in order
  std::vector<std::string> warnings;  // one line each (OOV tokens, unused tensors)
  bool streamed = false;  // result holds no weights or scores; the outputs show pooled maps
};

run_report run_job(const run_config& config);

// The materialised run of an input already prepared, with `params` (a copy: the run records what
// it uses): the result and warnings, and every output `config` names added to `out`, not yet
// committed (written is left empty). run_job and the batch (batch_job.h) share it.
run_report run_prepared(const run_config& config, const prepared_input& input, param_store params,
                        output_batch& out);

// Shared by the full and the streaming path: the run's warnings (OOV tokens, tensors of the
// weights file the variant did not use; a file of which it used nothing is refused, naming the
// flag that would read it) and the JSON's metadata.
std::vector<std::string> run_warnings(const run_config& config, const prepared_input& input,
                                      const param_store& params);
// What the materialised run of `input` with config's outputs takes (for check_memory).
run_size size_of_run(const run_config& config, const prepared_input& input);
result_metadata run_metadata(const run_config& config, const prepared_input& input,
                             const param_store& params);

}  // namespace attnviz
