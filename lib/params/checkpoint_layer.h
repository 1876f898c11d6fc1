// One attention layer out of a larger checkpoint (--params FILE --params-prefix PREFIX): the
// tensors under PREFIX, in whichever naming scheme the checkpoint uses, renamed (and, for
// Conv1D, transposed) to the names the pipeline asks for.
//
// Schemes, detected from the names under PREFIX (exact tensor names read):
//   torch     nn.MultiheadAttention   PREFIX in_proj_weight [3d, d], in_proj_bias [3d],
//                                     out_proj.weight [d, H·d_v], out_proj.bias [d]
//   bert      Hugging Face BERT       PREFIX [self.]query.weight / .bias, [self.]key.weight /
//                                     .bias, [self.]value.weight / .bias [H·d_k, d],
//                                     output.dense.weight [d, H·d_v] / .bias
//                                     (PREFIX = bert.encoder.layer.N.attention.)
//   gpt2      Hugging Face GPT-2      PREFIX c_attn.weight [d, 3d] (Conv1D: [in, out]),
//                                     c_attn.bias [3d], c_proj.weight [d, d] ([in, out]),
//                                     c_proj.bias [d]   (PREFIX = h.N.attn. or
//                                     transformer.h.N.attn.); the weights are transposed
//   attn-viz  attn-viz / BART / OPT    PREFIX q_proj.weight, k_proj.weight, v_proj.weight,
//                                     out_proj.weight and their .bias, and any score.* /
//                                     align.* / heads.* tensor, as they are
// Result names: in_proj_weight / in_proj_bias (torch, gpt2), q_proj.* / k_proj.* / v_proj.*
// (bert, attn-viz), out_proj.weight / out_proj.bias. Tensors under PREFIX that the scheme does
// not read (LayerNorm, GPT-2's causal-mask buffer attn.bias …) are left out.
#pragma once

#include <string>

#include "params/safetensors.h"

namespace attnviz {

struct checkpoint_layer {
  safetensors_file tensors;  // renamed as the pipeline asks for them
  std::string scheme;        // "torch", "bert", "gpt2" or "attn-viz"
};

// Throws input_error naming `source` when no tensor starts with PREFIX (listing the prefixes
// the file has) or when the tensors under it fit no scheme (listing them).
checkpoint_layer select_attention_layer(const safetensors_file& file, const std::string& prefix,
                                        const std::string& source);

}  // namespace attnviz
