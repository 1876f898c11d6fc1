// The weight-format table's entries, one per file of this folder (model/weight_format.h).
#pragma once

#include "model/weight_format.h"

namespace attnviz {

extern const weight_format safetensors_format;  // formats/safetensors.cpp
extern const weight_format gguf_format;         // formats/gguf.cpp

}  // namespace attnviz
