// `attn-viz aoa`: attention-over-attention (attention/aoa.h) for a document and a query, drawn
// as five panels (M, α, β, β̄, s) and written as JSON.
#pragma once

#include <string>
#include <vector>

#include "attention/aoa.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "render/views.h"

namespace attnviz {

struct aoa_config {
  input_config input;  // source = the document, target = the query
  job_outputs out;  // json, png, svg
  view_options view;
  std::uint64_t max_memory = default_memory_limit;
};

struct aoa_report {
  std::vector<std::string> document_tokens, query_tokens;
  aoa_result result;
  std::vector<std::pair<std::string, double>> word_scores;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

aoa_report run_aoa(const aoa_config& config);

}  // namespace attnviz
