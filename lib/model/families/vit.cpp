// ViT (model_type vit): ViTModel and ViTForImageClassification.
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, intermediate_size,
//               image_size (224), patch_size (16), num_channels (3), layer_norm_eps (1e-12),
//               hidden_act (gelu), qkv_bias (true), id2label
// tensors       embeddings.{cls_token [1, 1, d], position_embeddings [1, 1 + G², d],
//               patch_embeddings.projection [d, C, P, P] + bias}, encoder.layer.{l}.{
//               layernorm_before, attention.attention.{query, key, value},
//               attention.output.dense, layernorm_after, intermediate.dense, output.dense},
//               layernorm; the prefix vit. (ViTForImageClassification) and its classifier
//               [labels, d]; a ViTModel's pooler is not read
// block         x = [CLS, patches] + positions (model/vision.h)
//               per layer: x += attn(LN_before(x));  x += output(gelu(intermediate(LN_after(x))))
//               h = LN(x); logits = classifier(h_CLS)                  no mask, scale 1/√d_h
#include <fmt/format.h>

#include "error.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"
#include "model/vision.h"

namespace attnviz {

namespace vit_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  read_vision_config(r, c, 16, 1e-12);
  c.intermediate = r.size("intermediate_size");
}

void bind(hf_model& m) {
  bind_vit_stack(m, m.weights.has_prefix("vit.embeddings.") ? "vit." : "");
  bind_cls_classifier(m);
}

}  // namespace
}  // namespace vit_parts

const family_spec vit_family{"vit",           {"vit"},          vit_parts::read_config,
                             vit_parts::bind, refuse_token_ids, pre_norm_block,
                             nullptr,         nullptr,          nullptr,
                             embed_vision};

}  // namespace attnviz
