// `attn-viz run`: one sentence (or sentence pair) through one variant, to JSON / PNG / weights.
//
// Order of work: check the output folders; tokenize; stream the embedding file once for the
// tokens needed; embed (OOV policy); load or seed parameters; run the pipeline; render every
// output in memory; write them all-or-nothing (output_batch).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "text/lookup.h"

namespace attnviz {

struct run_config {
  // inputs: exactly one of text / tokens / (source and target)
  std::string text;
  std::string tokens;
  std::string source;
  std::string target;
  bool keep_case = false;
  std::string embeddings;
  oov_policy oov = oov_policy::hash;
  // variant and parameters
  attention_spec spec;
  std::string params_in;  // empty: seeded from spec.seed
  // outputs (empty: not written)
  std::string json_out;
  std::string png_out;
  std::string params_out;
  int cell = 0;  // heatmap cell size in pixels; 0: auto
};

struct run_report {
  attention_result result;
  std::vector<std::string> written;   // paths, in order
  std::vector<std::string> warnings;  // one line each (OOV tokens, unused tensors)
};

run_report run_job(const run_config& config);

std::string_view oov_policy_name(oov_policy p);

// "self-attention · score: dot · align: softmax · context: soft" — used for titles.
std::string variant_title(const attention_result& r);

}  // namespace attnviz
