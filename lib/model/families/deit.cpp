// DeiT (model_type deit): DeiTModel, DeiTForImageClassification and
// DeiTForImageClassificationWithTeacher — ViT's network with a distillation token beside CLS.
//
// config.json   as ViT's (families/vit.cpp)
// tensors       as ViT's under the prefix deit., plus embeddings.distillation_token [1, 1, d],
//               position_embeddings [1, 2 + G², d]; heads: cls_classifier and
//               distillation_classifier [labels, d] (with teacher), or classifier
// block         x = [CLS, DIST, patches] + positions; ViT's layers and final norm
//               logits = (cls_classifier(h_CLS) + distillation_classifier(h_DIST)) / 2, or
//               classifier(h_CLS)
#include <fmt/format.h>

#include "error.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"
#include "model/vision.h"

namespace attnviz {

namespace deit_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  read_vision_config(r, c, 16, 1e-12);
  c.intermediate = r.size("intermediate_size");
  c.vision.prefix = 2;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const std::string prefix = m.weights.has_prefix("deit.embeddings.") ? "deit." : "";
  bind_vit_stack(m, prefix);
  m.distill_token =
      binder(m.weights, prefix).need("embeddings.distillation_token", {1, 1, dim(c.d_model)});
  m.classifier_w = bind_classifier(m, "cls_classifier", c.d_model, &m.classifier_b);
  if (m.classifier_w) {
    m.classifier2_w = bind_classifier(m, "distillation_classifier", c.d_model, &m.classifier2_b);
    if (!m.classifier2_w)
      throw input_error(m.weights.source(),
                        "has cls_classifier but no distillation_classifier "
                        "(DeiTForImageClassificationWithTeacher has both)");
    m.config.vision.head = vision_head::cls_distilled;
    return;
  }
  bind_cls_classifier(m);
}

}  // namespace
}  // namespace deit_parts

const family_spec deit_family{"deit",           {"deit"},         deit_parts::read_config,
                              deit_parts::bind, refuse_token_ids, pre_norm_block,
                              nullptr,          nullptr,          nullptr,
                              embed_vision};

}  // namespace attnviz
