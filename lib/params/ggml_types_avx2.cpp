// ggml's blocks dequantized with AVX2 instructions: ggml_blocks.inc compiled with -mavx2 and
// -ffp-contract=off (lib/CMakeLists.txt), so the same floats as ggml_types.cpp's, in vectors
// twice as wide (generation decodes every quantized weight once a token).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/ggml_layout.h"
#include "params/ggml_blocks.h"
#include "params/ggml_types.h"

namespace attnviz::ggml_blocks_avx2 {
#include "params/ggml_blocks.inc"
}  // namespace attnviz::ggml_blocks_avx2
