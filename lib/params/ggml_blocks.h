// ggml's block decoders (ggml_blocks.inc) compiled for AVX2: ggml_types_avx2.cpp, built on
// x86-64 beside the kernels. ggml_to_float calls it while the kernels run on AVX2 or AVX-512
// (compiled for AVX-512F as well, GCC 12 kept to 256-bit vectors: no byte instructions without
// AVX-512BW, which the kernels do not require). The values are the same floats either way: each
// product rounded as written.
#pragma once

#include <cstddef>

#include "params/ggml_types.h"

namespace attnviz::ggml_blocks_avx2 {
void to_float(ggml_type t, const unsigned char* data, std::size_t first, std::size_t count,
              float* out);
}  // namespace attnviz::ggml_blocks_avx2
