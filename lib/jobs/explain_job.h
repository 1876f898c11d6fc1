// `attn-viz explain`: one query token walked through the three stages with the real numbers —
// the variant's names, aliases, formulas and paper, the parameter shapes the run used, every
// score e_ij and weight a_ij, the top keys and their share, the context vector's norm and its
// nearest words in the embedding file, and how the variant differs from its neighbours.
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"

namespace attnviz {

struct explain_config : attention_job {  // view and max_memory unused
  std::string query;          // a token (first occurrence) or a 0-based index
  std::size_t head = 0;       // which head to walk through (0-based) when there are several
  std::size_t top_k = 3;
  std::size_t neighbours = 5;      // nearest vocabulary words of the context vector
  std::size_t vocabulary = 50000;  // searched among the embedding file's first rows
};

struct explain_report {
  std::string text;  // the plain-text explanation
  std::string json;  // the same trace as data
  std::vector<std::string> warnings;
};

explain_report run_explain(const explain_config& config);

}  // namespace attnviz
