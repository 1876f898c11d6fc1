// libFuzzer target: the GGUF reader on arbitrary bytes: the header (metadata of every type,
// tensor infos), the blocks of every tensor it accepts, the architecture's config, and the
// tokenizer the metadata describes. Allowed outcome: values, or an input_error. Checked: every
// tensor lies inside the file, and its first block decodes without reading outside it.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "error.h"
#include "model/formats/gguf_architectures.h"
#include "model/hf_config.h"
#include "params/ggml_types.h"
#include "params/gguf.h"
#include "tokenizers/model_tokenizer.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const gguf_header h = parse_gguf_header(data, size, "fuzz");
    std::vector<float> out(256);
    for (const auto& t : h.tensors) {
      if (h.data_start + t.offset + t.bytes > size) std::abort();
      const std::size_t n = t.count() < 256 ? t.count() : 256;
      ggml_to_float(t.type, data + h.data_start + t.offset, 0, n, out.data());
    }
    const gguf_keys keys(h, "fuzz");
    if (const auto* a = find_gguf_architecture(keys.text_or("general.architecture", "")))
      model_config_of(a->config(keys, h), "fuzz");
    if (keys.has("tokenizer.ggml.model")) {
      gguf_tokenizer(keys)->encode("Hello world <s> 12345 ☃");
    }
  } catch (const input_error&) {
  }
  return 0;
}
