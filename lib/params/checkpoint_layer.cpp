#include "params/checkpoint_layer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <vector>

#include "error.h"

namespace attnviz {
namespace {

// Up to `count` names of the map's keys, for messages.
template <class Map>
std::string some_names(const Map& names, std::size_t count = 8) {
  std::vector<std::string> shown;
  for (const auto& entry : names) {
    if (shown.size() == count) {
      shown.emplace_back("…");
      break;
    }
    shown.push_back(entry.first);
  }
  return fmt::format("{}", fmt::join(shown, ", "));
}

// A Conv1D weight [in, out] as a Linear one [out, in].
tensor_data transposed(const tensor_data& t, const std::string& name, const std::string& source) {
  if (t.shape.size() != 2)
    throw input_error(source, fmt::format("{} has shape {}; a Conv1D weight is [in, out]", name,
                                          shape_string(t.shape)));
  const auto rows = static_cast<std::size_t>(t.shape[0]);
  const auto cols = static_cast<std::size_t>(t.shape[1]);
  tensor_data out;
  out.shape = {t.shape[1], t.shape[0]};
  out.values.resize(t.values.size());
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) out.values[j * rows + i] = t.values[i * cols + j];
  return out;
}

// attn-viz's own names (taken as they are under an attn-viz prefix).
bool native_name(const std::string& name) {
  for (const char* start :
       {"q_proj.", "k_proj.", "v_proj.", "out_proj.", "score.", "align.", "heads.", "combine."})
    if (name.rfind(start, 0) == 0) return true;
  return false;
}

}  // namespace

checkpoint_layer select_attention_layer(const safetensors_file& file, const std::string& prefix,
                                        const std::string& source) {
  std::map<std::string, const tensor_data*> under;  // names without the prefix
  for (const auto& [name, t] : file.tensors)
    if (name.compare(0, prefix.size(), prefix) == 0) under[name.substr(prefix.size())] = &t;
  if (under.empty())
    throw input_error(source, fmt::format("no tensor name starts with '{}' ({}); "
                                          "the file's {} tensors include {}",
                                          prefix, param("params_prefix"), file.tensors.size(),
                                          some_names(file.tensors)));
  checkpoint_layer out;
  out.tensors.metadata = file.metadata;
  auto& to = out.tensors.tensors;
  const auto take = [&](const std::string& from, const std::string& name) {
    if (const auto it = under.find(from); it != under.end()) to[name] = *it->second;
  };
  const auto take_conv1d = [&](const std::string& from, const std::string& name) {
    if (const auto it = under.find(from); it != under.end())
      to[name] = transposed(*it->second, prefix + from, source);
  };
  if (under.count("in_proj_weight")) {
    out.scheme = "torch";
    take("in_proj_weight", "in_proj_weight");
    take("in_proj_bias", "in_proj_bias");
    take("out_proj.weight", "out_proj.weight");
    take("out_proj.bias", "out_proj.bias");
  } else if (under.count("c_attn.weight")) {
    out.scheme = "gpt2";
    take_conv1d("c_attn.weight", "in_proj_weight");
    take("c_attn.bias", "in_proj_bias");
    take_conv1d("c_proj.weight", "out_proj.weight");
    take("c_proj.bias", "out_proj.bias");
  } else if (under.count("query.weight") || under.count("self.query.weight")) {
    out.scheme = "bert";
    const std::string self = under.count("self.query.weight") ? "self." : "";
    for (const auto& [from, name] : {std::pair<const char*, const char*>{"query", "q_proj"},
                                     {"key", "k_proj"},
                                     {"value", "v_proj"}}) {
      take(self + from + ".weight", std::string(name) + ".weight");
      take(self + from + ".bias", std::string(name) + ".bias");
    }
    take("output.dense.weight", "out_proj.weight");
    take("output.dense.bias", "out_proj.bias");
  } else {
    out.scheme = "attn-viz";  // as they are; anything else under the prefix is left out
    for (const auto& [name, t] : under)
      if (native_name(name)) to[name] = *t;
    if (to.empty())
      throw input_error(
          source, fmt::format("the tensors under '{}' are no attention layer attn-viz knows: "
                              "expected in_proj_weight (torch), query.weight or "
                              "self.query.weight (BERT), c_attn.weight (GPT-2) or q_proj.weight "
                              "(attn-viz); found {}",
                              prefix, some_names(under)));
  }
  return out;
}

}  // namespace attnviz
