// Kernels for AVX-512F (x86-64, compiled with -mavx512f -mavx512vl -mavx512dq -mfma -mf16c).
// Register tile: 6 rows × 4 vectors of 16 floats.
#define ATTNVIZ_ISA avx512
#define ATTNVIZ_ISA_NAME "avx512"
#define ATTNVIZ_VEC_BYTES 64
#define ATTNVIZ_GEMM_MR 6
#define ATTNVIZ_GEMM_NV 4
#define ATTNVIZ_GEMM_KC 256
#include "kernels/isa_kernels.inc"
