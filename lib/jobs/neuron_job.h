// `attn-viz explain --model DIR`: the neuron view. One head of one layer of a Hugging Face
// checkpoint, for one query token: its query vector and each visible key's (after RoPE where
// the model uses it), q ⊙ k per dimension, the scores q·k/√d_h, the softmax and the value
// mixing, with the real numbers (analysis/neuron_trace.h), as text, JSON and a figure
// (render/neuron_view.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/neuron_trace.h"
#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "model/hf_config.h"

namespace attnviz {

struct neuron_job_config {
  std::string model_dir;
  std::string text;               // through the folder's tokenizer, or
  std::vector<std::int64_t> ids;  // the token ids as given
  std::size_t layer = 0, head = 0;  // 0-based, as the head finder and the model view name them
  // The query: a token as the tokenizer spells it ("Ġlight") or without its word mark
  // ("light"), its first occurrence; or a 0-based position; empty: the last token.
  std::string query;
  std::size_t top_k = 3;  // keys listed with their vectors (text)
  job_outputs out;        // png, svg, html (render/neuron_page.h)
  progress_style progress = progress_style::automatic;
};

struct neuron_report {
  model_config config;
  std::string folder;               // the model folder's name
  std::vector<std::string> tokens;
  neuron_trace trace;
  std::string text;                 // the walk through, printed
  std::string json;                 // the same as data (render/neuron_view.h)
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

neuron_report run_neuron_job(const neuron_job_config& config);

}  // namespace attnviz
