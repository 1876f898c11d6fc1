// Kernels for AVX2 + FMA (x86-64, compiled with -mavx2 -mfma -mf16c).
// Register tile: 6 rows × 2 vectors of 8 floats.
#define ATTNVIZ_ISA avx2
#define ATTNVIZ_ISA_NAME "avx2"
#define ATTNVIZ_VEC_BYTES 32
#define ATTNVIZ_GEMM_MR 6
#define ATTNVIZ_GEMM_NV 2
#define ATTNVIZ_GEMM_KC 256
#include "kernels/isa_kernels.inc"
