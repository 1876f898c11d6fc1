#include "model/weight_format.h"

#include "model/formats/formats.h"

namespace attnviz {

const std::vector<const weight_format*>& weight_formats() {
  static const std::vector<const weight_format*> all{&safetensors_format, &gguf_format};
  return all;
}

std::string weight_format_files() {
  std::string all;
  for (const weight_format* f : weight_formats()) {
    if (!all.empty()) all += " nor ";
    all += f->files;
  }
  return all;
}

}  // namespace attnviz
