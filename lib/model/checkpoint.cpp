#include "model/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "params/safetensors.h"

namespace attnviz {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

std::string_view dtype_name(weight_dtype d) {
  return d == weight_dtype::f32 ? "F32" : d == weight_dtype::f16 ? "F16" : "BF16";
}

std::size_t weight_view::count() const noexcept {
  std::size_t n = 1;
  for (auto s : shape) n *= static_cast<std::size_t>(s);
  return n;
}

void weight_view::to_float(std::size_t first, std::size_t n, float* out) const {
  switch (dtype) {
    case weight_dtype::f32:
      std::memcpy(out, data + first * 4, n * 4);  // little-endian hosts only (x86-64, arm64)
      return;
    case weight_dtype::bf16:
      for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* p = data + (first + i) * 2;
        out[i] = bf16_to_float(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
      }
      return;
    case weight_dtype::f16:
      for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* p = data + (first + i) * 2;
        out[i] = half_to_float(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
      }
      return;
  }
}

std::size_t weight_view::first_non_finite(std::size_t first) const {
  std::vector<float> chunk(std::min<std::size_t>(count(), 1u << 16));
  for (std::size_t at = first; at < count(); at += chunk.size()) {
    const std::size_t n = std::min(chunk.size(), count() - at);
    to_float(at, n, chunk.data());
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(chunk[i])) return at + i;
  }
  return count();
}

void weight_view::refuse_non_finite(std::size_t index, float value) const {
  std::string where;
  for (std::size_t k = shape.size(), rest = index; k-- > 0;) {
    const auto dim = static_cast<std::size_t>(shape[k]);
    where = fmt::format("{}{}", rest % dim, where.empty() ? "" : ", " + where);
    rest /= dim;
  }
  throw input_error(file ? *file : name,
                    fmt::format("tensor '{}' holds {} at [{}] (element {} of {}, {}): the weights "
                                "are damaged, or were saved from a model that had diverged",
                                name, std::isnan(value) ? "NaN" : value > 0 ? "+inf" : "-inf",
                                where, index, count(), dtype_name(dtype)));
}

void weight_view::check_finite(const float* values, std::size_t first, std::size_t n) const {
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(values[i])) refuse_non_finite(first + i, values[i]);
}

checkpoint checkpoint::open(const std::string& dir_name) {
  const fs::path dir(dir_name);
  std::error_code ec;
  const fs::path single = dir / "model.safetensors", index = dir / "model.safetensors.index.json";
  checkpoint c;
  std::vector<std::string> files;
  std::map<std::string, std::string> expected_in;  // tensor -> shard, from the index
  if (fs::exists(single, ec)) {
    files.push_back(single.string());
    c.source_ = single.string();
  } else if (fs::exists(index, ec)) {
    c.source_ = index.string();
    const nlohmann::json j = parse_json_file(index.string(), "{\"weight_map\": {…}}");
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() ||
        j["weight_map"].empty())
      throw input_error(index.string(),
                        "expected an object whose weight_map maps tensor names to shard files");
    std::set<std::string> seen;
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string())
        throw input_error(index.string(),
                          fmt::format("weight_map.{}: expected a file name", name));
      const std::string path = shard_path(dir, file.get<std::string>(), index.string());
      expected_in[name] = path;
      if (seen.insert(path).second) files.push_back(path);
    }
  } else if (fs::exists(dir / "pytorch_model.bin", ec)) {
    throw input_error((dir / "pytorch_model.bin").string(),
                      "is a PyTorch pickle, which attn-viz does not read (unpickling runs code); "
                      "convert it once to model.safetensors, e.g. in Python: "
                      "safetensors.torch.save_file(torch.load(path), 'model.safetensors')");
  } else {
    throw input_error(dir_name, "has no model.safetensors nor model.safetensors.index.json");
  }
  c.files_.reserve(files.size());  // the views point at the paths kept here
  for (const auto& path : files) {
    mapped_file m = mapped_file::open_or_throw(path);
    const safetensors_header h = parse_safetensors_header(m.data(), m.size(), path);
    c.files_.push_back(std::move(m));
    const mapped_file& kept = c.files_.back();
    for (const auto& e : h.entries) {
      weight_view v;
      v.name = e.name;
      v.dtype = dtype_of(e.dtype, e.name, path);
      v.shape = e.shape;
      v.data = kept.data() + h.data_start + e.begin;
      v.file = &kept.path();
      if (!c.tensors_.emplace(e.name, std::move(v)).second)
        throw input_error(path, fmt::format("tensor '{}' is also in another shard", e.name));
    }
  }
  for (const auto& [name, path] : expected_in) {
    const auto it = c.tensors_.find(name);
    if (it == c.tensors_.end())
      throw input_error(path, fmt::format("has no tensor '{}', which {} says it holds", name,
                                          index.filename().string()));
    if (*it->second.file != path)
      throw input_error(*it->second.file,
                        fmt::format("holds '{}', which {} places in {}", name,
                                    index.filename().string(), fs::path(path).filename().string()));
  }
  return c;
}

const weight_view* checkpoint::find(const std::string& name) const {
  const auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

const weight_view& checkpoint::require(std::initializer_list<std::string> names,
                                       const std::vector<std::int64_t>& shape) const {
  for (const auto& name : names)
    if (const weight_view* v = find(name)) {
      if (v->shape != shape)
        throw input_error(*v->file, fmt::format("tensor '{}' has shape {}, expected {}", name,
                                                shape_string(v->shape), shape_string(shape)));
      return *v;
    }
  throw input_error(source_, fmt::format("has no tensor '{}' {} (the model's config.json says "
                                         "it needs one)",
                                         *names.begin(), shape_string(shape)));
}

bool checkpoint::has_prefix(const std::string& prefix) const {
  const auto it = tensors_.lower_bound(prefix);
  return it != tensors_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

std::uint64_t checkpoint::mapped_bytes() const noexcept {
  std::uint64_t n = 0;
  for (const auto& f : files_) n += f.size();
  return n;
}

}  // namespace attnviz
