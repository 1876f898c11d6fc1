// Hugging Face's safetensors checkpoints: model.safetensors, or model.safetensors.index.json
// whose weight_map names each tensor's shard (plain file names in the folder). Each file: an
// 8-byte little-endian header length, a JSON header {name: {dtype, shape, data_offsets}}, the
// data (params/safetensors.h parses and checks the header). Tensors must be F32, F16 or BF16,
// each in exactly the shard the index names.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "error.h"
#include "io/json_file.h"
#include "io/mapped_file.h"
#include "model/checkpoint.h"
#include "model/formats/formats.h"
#include "params/safetensors.h"

namespace attnviz {

// This format's own parts, named apart from the other formats' (the library
// compiles as a unity build).
namespace safetensors_file_parts {
namespace {

namespace fs = std::filesystem;

weight_dtype dtype_of(const std::string& name, const std::string& tensor, const std::string& file) {
  if (name == "F32") return weight_dtype::f32;
  if (name == "F16") return weight_dtype::f16;
  if (name == "BF16") return weight_dtype::bf16;
  throw input_error(file, fmt::format("tensor '{}': dtype {} is not supported for model weights "
                                      "(expected F32, F16 or BF16)",
                                      tensor, name));
}

// A shard's name from the index: a plain file name in the folder (no folders, no "..").
std::string shard_path(const fs::path& dir, const std::string& name, const std::string& index) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    throw input_error(index, fmt::format("weight_map names the file '{}': expected a file name "
                                         "in the model folder",
                                         name));
  return (dir / name).string();
}

bool claims(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "model.safetensors", ec) ||
         fs::exists(dir / "model.safetensors.index.json", ec);
}

// The index's weight_map: tensor → shard path; `files` gets each shard once, in order.
std::map<std::string, std::string> read_index(const fs::path& dir, const fs::path& index,
                                              std::vector<std::string>& files) {
  const nlohmann::json j = parse_json_file(index.string(), "{\"weight_map\": {…}}");
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() ||
      j["weight_map"].empty())
    throw input_error(index.string(),
                      "expected an object whose weight_map maps tensor names to shard files");
  std::map<std::string, std::string> expected_in;
  std::set<std::string> seen;
  for (const auto& [name, file] : j["weight_map"].items()) {
    if (!file.is_string())
      throw input_error(index.string(), fmt::format("weight_map.{}: expected a file name", name));
    const std::string path = shard_path(dir, file.get<std::string>(), index.string());
    expected_in[name] = path;
    if (seen.insert(path).second) files.push_back(path);
  }
  return expected_in;
}

void add_file(const std::string& path, checkpoint& c) {
  const mapped_file& kept = c.add_file(mapped_file::open_or_throw(path));
  const safetensors_header h = parse_safetensors_header(kept.data(), kept.size(), path);
  for (const auto& e : h.entries) {
    weight_view v;
    v.name = e.name;
    v.dtype = dtype_of(e.dtype, e.name, path);
    v.shape = e.shape;
    v.data = kept.data() + h.data_start + e.begin;
    v.file = &kept.path();
    c.add(std::move(v));
  }
  kept.prefault(h.data_start, kept.size() - h.data_start);  // the forward reads every weight
}

void open(const fs::path& dir, checkpoint& c) {
  std::error_code ec;
  const fs::path single = dir / "model.safetensors", index = dir / "model.safetensors.index.json";
  if (fs::exists(single, ec)) {
    c.set_source(single.string());
    add_file(single.string(), c);
    return;
  }
  c.set_source(index.string());
  std::vector<std::string> files;
  const auto expected_in = read_index(dir, index, files);
  for (const auto& path : files) add_file(path, c);
  for (const auto& [name, path] : expected_in) {
    const weight_view* v = c.find(name);
    if (!v)
      throw input_error(path, fmt::format("has no tensor '{}', which {} says it holds", name,
                                          index.filename().string()));
    if (*v->file != path)
      throw input_error(*v->file,
                        fmt::format("holds '{}', which {} places in {}", name,
                                    index.filename().string(), fs::path(path).filename().string()));
  }
}

}  // namespace
}  // namespace safetensors_file_parts

const weight_format safetensors_format{"safetensors",
                                       "model.safetensors nor model.safetensors.index.json",
                                       safetensors_file_parts::claims,
                                       safetensors_file_parts::open};

}  // namespace attnviz
