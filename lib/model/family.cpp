#include "model/family.h"

#include "model/families/families.h"

namespace attnviz {

const std::vector<const family_spec*>& model_families() {
  static const std::vector<const family_spec*> all{
      &gpt2_family,       &bert_family,     &llama_family, &bart_family,
      &t5_family,         &gpt_neox_family, &opt_family,   &phi_family,
      &phi3_family,       &gemma_family,    &gptj_family,  &falcon_family,
      &distilbert_family, &vit_family,      &deit_family,  &dinov2_family};
  return all;
}

const family_spec* find_family(std::string_view model_type) {
  for (const family_spec* f : model_families())
    for (std::string_view t : f->model_types)
      if (t == model_type) return f;
  return nullptr;
}

std::vector<std::string_view> supported_model_types() {
  std::vector<std::string_view> all;
  for (const family_spec* f : model_families())
    all.insert(all.end(), f->model_types.begin(), f->model_types.end());
  return all;
}

}  // namespace attnviz
