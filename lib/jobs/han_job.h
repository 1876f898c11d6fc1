// `attn-viz han`: hierarchical attention (attention/han.h) on a document: split into
// sentences, embedded, pooled twice; drawn as a document view and written as JSON.
#pragma once

#include <string>
#include <vector>

#include "attention/han.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "text/lookup.h"

namespace attnviz {

struct han_config {
  // input.text: the document (sentences end at line breaks and . ! ? … 。 ！ ？); embeddings,
  // oov, keep_case and cache_dir as for every job (the other inputs are not used)
  input_config input;
  std::uint64_t seed = 0;
  std::string params_in;
  job_outputs out;  // json, png, svg, params
  std::string cmap;
  int scale = 1;
  std::uint64_t max_memory = default_memory_limit;
};

struct han_report {
  std::vector<std::vector<std::string>> sentences;
  han_result result;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

han_report run_han(const han_config& config);

// The weights as text: one line per sentence, "0.412 | the(0.08) cat(0.31) …".
std::string format_han(const han_report& report);

}  // namespace attnviz
