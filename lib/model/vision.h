// What the vision transformers share (families/vit.cpp, deit.cpp, dinov2.cpp): a picture's
// patches as tokens, and the classifier on the last hidden state.
//
//   patches     the C × H × W pixels cut into a g_h × g_w grid of P × P patches (g = ⌊H/P⌋, a
//               remainder dropped as the stride-P convolution drops it), patch (r, c) flattened
//               channel, row, column — the stored [d, C, P, P] convolution's order — and
//               projected: e_rc = W · patch + b (the convolution as one product)
//   tokens      x = [CLS, (DIST), e_00, e_01, …] + positions, then DINOv2's registers inserted
//               after the prefix (no position): n = prefix + registers + g_h · g_w, patches in
//               reading order (row by row)
//   positions   the stored rows [prefix + G², d]: the prefix's as they are, the G × G grid's
//               moved to g_h × g_w by bicubic interpolation (vision/resize.h: PyTorch's plain
//               bicubic, or antialiased for DINOv2 with registers) when the grids differ
//   classifier  vision_head (model/hf_config.h) on the final-norm hidden state
#pragma once

#include <string>
#include <vector>

#include "model/hf_model.h"
#include "tensor.h"
#include "vision/preprocess.h"

namespace attnviz {

class config_reader;

struct patch_grid {
  std::size_t rows = 0, cols = 0;
};

// The grid a picture of `pixels`' size gives (input_error naming `source` when it is smaller
// than one patch, or gives more tokens than `max_tokens`).
patch_grid grid_of(const model_config& c, const pixel_tensor& pixels, const std::string& source);

// The keys every vision config has: hidden_size, num_attention_heads, num_hidden_layers,
// image_size (224), patch_size, num_channels (3), layer_norm_eps, hidden_act (gelu), qkv_bias
// (true), id2label; a non-causal LayerNorm encoder with learned positions and no vocabulary.
void read_vision_config(const config_reader& r, model_config& c, std::size_t default_patch,
                        double default_eps);

// One layer of ViT's names under `at` (encoder.layer.{l}.): norm1/norm2 named as the family
// names them, attention.attention.{query, key, value} (biases when qkv_bias),
// attention.output.dense, intermediate.dense (up) and output.dense (down).
layer_weights bind_vision_layer(const binder& b, const model_config& c, const std::string& at,
                                const std::string& norm1, const std::string& norm2);

// ViT's whole stack under `prefix` (ViT, DeiT): bind_vision_embeddings with the final
// `layernorm`, and every layer of bind_vision_layer with layernorm_before / layernorm_after.
void bind_vit_stack(hf_model& m, const std::string& prefix);
// The top-level `classifier` on h_CLS when the checkpoint has one (vision_head::cls).
void bind_cls_classifier(hf_model& m);

// A vision family's `embed`: token ids are refused (the input is a picture: --image).
matrix refuse_token_ids(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first);

// The token rows of a picture (header), n × d. The family's embed_image.
matrix embed_vision(const hf_model& m, const pixel_tensor& pixels);

// Binds what every vision family has under `prefix` + "embeddings.": the patch projection (as a
// matrix view, kept in m), CLS, the positions ([1, prefix + G², d], G² a square), and the final
// layernorm `final_norm` (under the prefix); the classifier(s) at the top level when the
// checkpoint has them (setting config.vision.head).
void bind_vision_embeddings(hf_model& m, const std::string& prefix, const std::string& final_norm);

// The classifier `name` ([labels, width] and its bias, at the top level), or null when the
// checkpoint has none; its rows must match id2label's names (input_error naming config.json
// otherwise; a config without id2label gets "LABEL_i").
const weight_view* bind_classifier(hf_model& m, const std::string& name, std::size_t width,
                                   const weight_view** bias);

// The classifier's logits from the final hidden state (n × d), or empty when the checkpoint has
// no classifier.
std::vector<float> image_logits(const hf_model& m, const matrix& hidden);

// The token names the views show: "CLS", "DIST", "REG1" …, then "r,c" for each patch.
std::vector<std::string> vision_token_names(const model_config& c, const patch_grid& g);

// id2label read into config.vision.labels (its largest index + 1 names; "LABEL_i" where a class
// has no name), refusing a map that is not {"index": "name"}.
void read_vision_labels(const config_reader& r, model_config& c);

}  // namespace attnviz
