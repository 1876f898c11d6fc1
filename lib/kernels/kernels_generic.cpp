// Kernels for the baseline instruction set (SSE2 on x86-64; any CPU).
// Register tile: 6 rows × 2 vectors of 4 floats.
#define ATTNVIZ_ISA generic
#define ATTNVIZ_ISA_NAME "generic"
#define ATTNVIZ_VEC_BYTES 16
#define ATTNVIZ_GEMM_MR 6
#define ATTNVIZ_GEMM_NV 2
#define ATTNVIZ_GEMM_KC 256
#include "kernels/isa_kernels.inc"
