// `attn-viz model --generate N` on a causal model (model/generate.h): the prompt (--text or
// --ids) continued greedily or by sampling (--sample --temperature --top-p --seed) until an end
// token, N tokens or --stop TEXT; the continuation handed to the front end as it grows, then the
// report filled as a run over prompt + generated (ids, tokens, every map, the hidden state), so
// every output and view reads it as it reads `model --text`, and --view generation draws it.
//
//   --npy DIR   also generation.json: {"prompt_tokens", "generated_ids", "generated_text",
//               "ended_at_end_token", "sampling": {"sample", "temperature", "top_p", "seed"}}
//   --json      the same object under "generation"
#pragma once

#include <string>

#include "jobs/model_job.h"
#include "model/hf_model.h"

namespace attnviz {

// The report's ids, tokens, forward, prompt, generated_text and ended; r.ids and r.tokens hold
// the prompt on entry.
void run_generation(const hf_model& m, const model_job_config& c, model_report& r);

// The generation object of --json and generation.json.
std::string generation_json(const model_report& r, const model_job_config& c, int indent);

}  // namespace attnviz
