// `attn-viz transformer`: the three attentions of the Transformer (Vaswani 2017) for one
// sentence pair, in one figure and one JSON:
//   encoder self-attention           source over source       encoder.self_attn.*
//   masked decoder self-attention    target over target, causal  decoder.self_attn.*
//   encoder-decoder attention        target over source       decoder.cross_attn.*
// Each is multi-head attention (spec.heads, at least 1) with its own parameters under its
// prefix (q_proj.weight, …, out_proj.weight, or a torch in_proj_weight), and the positional
// scheme of the spec (sinusoidal by default on the command line). Every attention reads the
// word embeddings: this is one layer's three attentions, without the residual, layer-norm and
// feed-forward sublayers between them.
//
// A weights file (--params) holds the three under attn-viz's prefixes above, or is a PyTorch
// nn.Transformer state_dict: layer `layer` (0 by default) of its stacks, read as
//   encoder.layers.K.self_attn.*   decoder.layers.K.self_attn.*   decoder.layers.K.multihead_attn.*
// (in_proj_weight/bias, out_proj.weight/bias); its feed-forward (linear1/2) and norms (norm1/2/3)
// are not drawn. --params-prefix P reads either layout under P (a model that wraps its
// nn.Transformer as "transformer." says so).
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "render/views.h"

namespace attnviz {

struct transformer_config : attention_job {  // input: source and target
  job_outputs out;        // json, png, svg, params
  std::size_t layer = 0;  // the layer of an nn.Transformer state_dict
};

struct transformer_attention {
  std::string key;     // "encoder_self", "decoder_self", "encoder_decoder"
  std::string title;   // for the figure
  std::string prefix;  // parameter names' prefix
  attention_result result;
};

struct transformer_report {
  std::vector<transformer_attention> attentions;  // in the order above
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

transformer_report run_transformer(const transformer_config& config);

}  // namespace attnviz
