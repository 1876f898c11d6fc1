#include "model/hf_model.h"

#include <filesystem>

#include "error.h"
#include "model/family.h"

namespace attnviz {

const weight_view* binder::need(const std::string& name, const shape& s) const {
  return &c_.require({prefix_ + name}, s);
}

const weight_view* binder::need_ln(const std::string& base, const char* which,
                                   const shape& s) const {
  const bool weight = std::string(which) == "weight";
  return &c_.require({prefix_ + base + "." + which, prefix_ + base + (weight ? ".gamma" : ".beta")},
                     s);
}

const weight_view* binder::maybe(const std::string& name, const shape& s) const {
  return c_.find(prefix_ + name) ? need(name, s) : nullptr;
}

const weight_view* binder::maybe_top(const std::string& name, const shape& s) const {
  return c_.find(name) ? &c_.require({name}, s) : nullptr;
}

hf_model load_model(const std::string& dir) {
  hf_model m;
  m.dir = dir;
  const std::string config = (std::filesystem::path(dir) / "config.json").string();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw input_error(dir, "is not a folder (expected a Hugging Face model folder with "
                           "config.json and model.safetensors)");
  if (!std::filesystem::exists(config, ec))
    throw input_error(dir, "has no config.json (expected a Hugging Face model folder)");
  m.config = read_model_config(config);
  m.weights = checkpoint::open(dir);
  m.config.family->bind(m);
  return m;
}

const weight_view* output_embeddings(const hf_model& m, const std::string& name,
                                     const binder::shape& s) {
  if (m.config.tie_embeddings && !m.weights.find(name)) return m.tokens;
  return &m.weights.require({name}, s);
}

}  // namespace attnviz
