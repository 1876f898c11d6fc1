#include "model/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "error.h"
#include "model/weight_format.h"
#include "params/safetensors.h"

namespace attnviz {

namespace fs = std::filesystem;


std::string_view dtype_name(weight_dtype d) { return ggml_info(d).name; }

std::size_t weight_view::count() const noexcept {
  std::size_t n = 1;
  for (auto s : shape) n *= static_cast<std::size_t>(s);
  return n;
}

void weight_view::to_float(std::size_t first, std::size_t n, float* out) const {
  ggml_to_float(dtype, data, first, n, out);
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
  checkpoint c;
  for (const weight_format* format : weight_formats())
    if (format->claims(dir)) {
      format->open(dir, c);
      return c;
    }
  std::error_code ec;
  if (fs::exists(dir / "pytorch_model.bin", ec))
    throw input_error((dir / "pytorch_model.bin").string(),
                      "is a PyTorch pickle, which attn-viz does not read (unpickling runs code); "
                      "convert it once to model.safetensors, e.g. in Python: "
                      "safetensors.torch.save_file(torch.load(path), 'model.safetensors')");
  throw input_error(dir_name, fmt::format("has no {}", weight_format_files()));
}

void checkpoint::set_embedded_config(nlohmann::json config, storage_notes notes) {
  embedded_config_ = std::make_shared<const nlohmann::json>(std::move(config));
  notes_ = std::move(notes);
}

void checkpoint::set_stored_names(std::function<std::string(const std::string&)> name_in_file) {
  stored_names_ = std::move(name_in_file);
}

std::string checkpoint::stored_name(const std::string& name) const {
  return stored_names_ ? stored_names_(name) : name;
}

const mapped_file& checkpoint::add_file(mapped_file file) {
  files_.push_back(std::move(file));
  return files_.back();
}

void checkpoint::add(weight_view view) {
  const std::string name = view.name;
  add_as(name, std::move(view));
}

void checkpoint::add_as(const std::string& name, weight_view view) {
  const std::string file = view.file ? *view.file : source_;
  if (!tensors_.emplace(name, std::move(view)).second)
    throw input_error(file, fmt::format("tensor '{}' is also in another shard", name));
}

std::uint64_t checkpoint::widen_to_float(std::uint64_t max_bytes) {
  const auto narrow = [](const weight_view& v) {
    return v.dtype == weight_dtype::f16 || v.dtype == weight_dtype::bf16;
  };
  std::uint64_t bytes = 0;
  for (const auto& [name, view] : tensors_)
    if (narrow(view)) bytes += sizeof(float) * static_cast<std::uint64_t>(view.count());
  if (bytes == 0 || bytes > max_bytes) return 0;
  for (auto& [name, view] : tensors_) {
    if (!narrow(view)) continue;
    std::vector<float>& copy = widened_.emplace_back(view.count());
    view.to_float(0, copy.size(), copy.data());
    view.dtype = weight_dtype::f32;
    view.data = reinterpret_cast<const unsigned char*>(copy.data());
  }
  return bytes;
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
        throw input_error(*v->file, fmt::format("tensor '{}' has shape {}, expected {}",
                                                v->name, shape_string(v->shape),
                                                shape_string(shape)));
      return *v;
    }
  throw input_error(source_, fmt::format("has no tensor '{}' {} (the model's {} says it needs "
                                         "one)",
                                         stored_name(*names.begin()), shape_string(shape),
                                         embedded_config_ ? "metadata" : "config.json"));
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
