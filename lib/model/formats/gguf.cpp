// GGUF files (llama.cpp, Ollama): one file holding the hyper-parameters, the tokenizer and the
// weights (params/gguf.h reads the header). The model is the file itself, a folder holding one
// *.gguf and no config.json, or an Ollama blob (recognised by its magic, not its name). Each
// tensor is added under its family's name (gguf_architectures.h) and viewed in place, quantized
// or not; rope_freqs becomes the notes' rotary divisors; the metadata becomes the embedded
// config.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "error.h"
#include "io/mapped_file.h"
#include "model/checkpoint.h"
#include "model/formats/formats.h"
#include "model/formats/gguf_architectures.h"
#include "params/gguf.h"

namespace attnviz {

// This format's own parts, named apart from the other formats' (the library
// compiles as a unity build).
namespace gguf_file_parts {
namespace {

namespace fs = std::filesystem;

bool claims(const fs::path& path) { return !find_gguf(path.string()).empty(); }

const gguf_architecture& architecture_of(const gguf_keys& keys) {
  const std::string arch = keys.text_or("general.architecture", "");
  if (arch.empty())
    keys.fail("general.architecture", fmt::format("one of {}", gguf_architecture_names()));
  const gguf_architecture* a = find_gguf_architecture(arch);
  if (!a)
    throw input_error(keys.source(),
                      fmt::format("holds a model of architecture '{}', which attn-viz does not "
                                  "run from GGUF (it runs {})",
                                  arch, gguf_architecture_names()));
  return *a;
}

weight_view view_of(const gguf_tensor_info& t, const gguf_header& h, const mapped_file& f) {
  weight_view v;
  v.name = t.name;
  v.dtype = t.type;
  for (auto it = t.dims.rbegin(); it != t.dims.rend(); ++it)
    v.shape.push_back(static_cast<std::int64_t>(*it));
  v.data = f.data() + h.data_start + t.offset;
  v.file = &f.path();
  return v;
}

std::vector<double> divisors_of(const weight_view& v) {
  std::vector<float> f(v.count());
  v.to_float(0, f.size(), f.data());
  std::vector<double> d(f.begin(), f.end());
  for (std::size_t i = 0; i < d.size(); ++i)
    if (!(d[i] > 0.0) || !std::isfinite(d[i]))
      throw input_error(*v.file, fmt::format("tensor '{}' holds {} at [{}]: expected positive "
                                             "divisors of the rotary frequencies",
                                             v.name, d[i], i));
  return d;
}

void open(const fs::path& path, checkpoint& c) {
  const std::string file = find_gguf(path.string());
  c.set_source(file);
  const mapped_file& f = c.add_file(mapped_file::open_or_throw(file));
  const gguf_header h = parse_gguf_header(f.data(), f.size(), file);
  const gguf_keys keys(h, file);
  if (keys.size_or("split.count", 1) > 1)
    throw input_error(file, fmt::format("is part {} of a GGUF model split in {} files; merge them "
                                        "first (llama.cpp: llama-gguf-split --merge FIRST OUT)",
                                        keys.index("split.no").value_or(0) + 1,
                                        keys.size("split.count")));
  const gguf_architecture& a = architecture_of(keys);
  storage_notes notes = a.notes;
  for (const auto& t : h.tensors) {
    weight_view v = view_of(t, h, f);
    if (t.name == "rope_freqs.weight") {
      notes.rope_divisors = divisors_of(v);
      continue;
    }
    const std::string name = family_tensor_name(a, h, t.name);
    if (name.empty())
      throw input_error(file, fmt::format("holds tensor '{}', which attn-viz does not run for "
                                          "architecture '{}' (a part it would leave out, such as "
                                          "LongRoPE's factors, would change the attention)",
                                          t.name, a.arch));
    c.add_as(name, std::move(v));
  }
  c.set_embedded_config(a.config(keys, h), std::move(notes));
  c.set_stored_names([&a](const std::string& name) { return gguf_tensor_name(a, name); });
}

}  // namespace
}  // namespace gguf_file_parts

const weight_format gguf_format{"gguf", "a .gguf file", gguf_file_parts::claims,
                                gguf_file_parts::open};

}  // namespace attnviz
