// Kernels for AVX-512F (x86-64, compiled with -mavx512f -mavx512vl -mavx512dq -mfma -mf16c).
// Register tile: 6 rows × 4 vectors of 16 floats. KC = 512: a 6 × 64 tile's panel of B is
// 64 KiB at KC = 256, more than any AVX-512 core's L1d (32-48 KiB), so it streams from L2 at
// either depth; the deeper one halves the read-modify-writes of C (12 % of the micro-kernel's
// samples at KC = 256 on a 2-vCPU Xeon guest). Measured there (2 threads, 3 alternations, the L3
// taken as 32 MiB in both): GPT-2's forward at n = 1,024 1.42-1.50 s -> 1.19-1.31 s, Llama-1B
// BF16's at n = 512 6.70-6.98 -> 6.12-6.52 s (KC = 384 and 768 in between; 128 slower on one
// product). AVX2 keeps 256: its 16 KiB panel stays in L1d.
#define ATTNVIZ_ISA avx512
#define ATTNVIZ_ISA_NAME "avx512"
#define ATTNVIZ_VEC_BYTES 64
#define ATTNVIZ_GEMM_MR 6
#define ATTNVIZ_GEMM_NV 4
#define ATTNVIZ_GEMM_KC 512
#include "kernels/isa_kernels.inc"
