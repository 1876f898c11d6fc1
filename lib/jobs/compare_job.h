// `attn-viz compare`: one input through several variants — every combination of the given
// score, align and context functions — drawn side by side in one grid, with the numbers that
// compare their weights (analysis/compare_metrics.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/compare_metrics.h"
#include "attention/pipeline.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "render/grid.h"
#include "render/views.h"

namespace attnviz {

struct compare_config : attention_job {  // spec: the base of every variant (temperature, ...)
  std::vector<std::string> scores;    // "all" expands to every registered one; empty: base.score
  std::vector<std::string> aligns;    // empty: base.align
  std::vector<std::string> contexts;  // empty: base.context
  job_outputs out;  // json, png, svg, html (one page, a variant selector over every variant)
  int cols = 0;
  scale_mode scale = scale_mode::shared;
};

struct compared_variant {
  std::string label;  // what varies, e.g. "additive" or "additive · hardmax"
  attention_result result;
  matrix shown;  // the weights the metrics use: the only head's, the heads' mean, or --head-view N
};

struct compare_report {
  std::vector<compared_variant> variants;
  comparison metrics;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

compare_report run_compare(const compare_config& config);

// The metrics as a text table (what `compare` prints).
std::string format_comparison(const compare_report& report);

}  // namespace attnviz
