// The settings every attention job shares (run, compare, explain, transformer): what to read,
// which variant, where its parameters come from, how to draw it and how much memory it may
// take. Each job's config derives from it and adds only what is special about that job, and the
// app fills it from one set of flags (options.h: resolve_job), so a new job does not declare
// these fields again. The files a job writes are its job_outputs (job_outputs.h).
#pragma once

#include <cstdint>
#include <string>

#include "attention/pipeline.h"
#include "jobs/inputs.h"
#include "jobs/memory_guard.h"
#include "render/views.h"

namespace attnviz {

struct attention_job {
  input_config input;
  attention_spec spec;        // compare: the base every listed variant starts from
  std::string params_in;      // empty: seeded from spec.seed
  std::string params_prefix;  // --params-prefix: one attention layer of a checkpoint
  view_options view;
  std::uint64_t max_memory = default_memory_limit;
};

}  // namespace attnviz
