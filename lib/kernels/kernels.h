// Fast kernels: blocked, vectorised, OpenMP-parallel versions of the pipeline's hot loops.
//
// Each has a plain serial reference (a _ref name: no OpenMP, no SIMD) that the tests compare it
// with:
//   gemm, matmul_nt/nn  matmul_nt_ref / matmul_nn_ref (tensor.h)      tolerance 1e-5 relative
//   gemm_swiglu         gemm, gemm, silu_mul                         the same bytes
//   softmax_rows        align_softmax_ref (align.h)                   1e-6 absolute
//   exp2_nonpositive    std::exp2 in double                           2 ulp
//   attention_softmax   matmul_nt_ref -> masks -> align_softmax_ref -> matmul_nn_ref  1e-5
//   additive_scores     additive_scores_ref (score.h)                 1e-5 · Σ|v|
//   sparsemax_threshold sparsemax_row_ref (sparse_ref.cpp, sort-based) 1e-12
//   entmax15_threshold  entmax15_row_ref (sparse_ref.cpp, sort-based)  1e-9
//   layer_norm_rows, rms_norm_rows, gelu_tanh, gelu_erf, silu_mul
//                       layer_norm_ref, … (model/blocks.h, in double)    1e-6 relative
//
// The SIMD kernels are compiled once per instruction set (kernels_generic.cpp, and on x86-64
// kernels_avx2.cpp and kernels_avx512.cpp, each with its own -m flags) from the same sources
// (simd.inc, gemm.inc, softmax.inc, attention.inc, additive.inc, elementwise.inc, gated.inc). At
// first use the best set the CPU supports is chosen; ATTNVIZ_ISA=generic|avx2|avx512 or use_isa()
// picks one.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tensor.h"

namespace attnviz::kernels {

// The instruction sets this build has kernels for and this CPU can run, best last.
std::vector<std::string> available_isas();
std::string_view active_isa();
// Selects one of available_isas(); throws usage_error for another name.
void use_isa(std::string_view name);

// Cache blocking. The kernels' tile sizes come from the data caches found at run time
// (/sys/devices/system/cpu/cpu0/cache, else sysconf), so a CPU with a 512 KiB L2 gets smaller
// tiles than one with 2 MiB; ATTNVIZ_BLOCKING or use_blocking() forces caches or sizes. The
// blocking never changes a result's bytes: the sums are grouped by kc, which is fixed per
// instruction set; the rest only decides what is kept in which cache.
//   kc             depth of one register-tile run (the sums' grouping; fixed per instruction set)
//   panels         panels of B a thread packs and runs together in the panel path, so a read
//                  of A serves panels × NR columns (as many as fill L2/4 one kc block deep)
//   panel_depth    rows of a packed panel of B prepared at a time (a multiple of kc):
//                  panels × panel_depth × NR floats take at most a quarter of L2
//   mc             rows of A per tile when B is packed whole: mc × kc floats, 3/32 of L2
//   panel_a_bytes  the panel path (B packed a panel at a time, A reread per panel) while A is
//                  at most this: a quarter of L3
//   attention_floats  a block of attention rows' exponentials, rows × n_k floats: 3/32 of L2
// (gemm.inc, blocking_of, has the rules and the sizes they give.)
struct blocking {
  std::size_t l1d = 0, l2 = 0, l3 = 0;  // bytes: L1d and L2 per core, L3 shared
  // "/sys", "sysconf" or "assumed" (with ", its L3 of N MiB taken as 32 MiB" when capped), or
  // "ATTNVIZ_BLOCKING"
  std::string caches_from;
  std::string forced;                   // what ATTNVIZ_BLOCKING or use_blocking() set
  std::size_t kc = 0, panels = 0, panel_depth = 0, mc = 0, panel_a_bytes = 0, attention_floats = 0;
};
// The active instruction set's blocking, from the current caches and forced sizes.
blocking active_blocking();
// Forces caches or sizes: "KEY=SIZE,…" with keys l1d, l2, l3 (the caches the sizes are derived
// from) and panels, panel_depth, mc, panel_a, attention (the sizes themselves); SIZE a count or
// bytes with K, M or G (binary). "" returns to the machine's. Throws usage_error naming a bad
// entry. Not while kernels run. ATTNVIZ_BLOCKING is read the same way at first use.
void use_blocking(std::string_view spec);
// One line: "L1d 48 KiB, L2 1 MiB, L3 32 MiB (sysconf); kc 256, panel depth 1024, …".
std::string describe(const blocking& b);
// The panel path's group: how many of `panels` panels of B one thread packs and runs together
// when `threads` threads share the groups in consecutive blocks (OpenMP's schedule(static)).
// At most `most` (blocking.panels), and fewer where there would not be four groups a thread;
// of those sizes, the largest whose busiest thread runs at most 1/16 more panels than an even
// share. 36 panels, most 4, 2 threads: 3 (twelve groups, 18 panels a thread), not 4 (nine
// groups: 20 panels against 16, one thread idle a tenth of the time). A larger group saves
// rereads of A worth a few percent (bench/RESULTS.md); an idle thread costs more.
std::size_t panel_group(std::size_t panels, std::size_t most, std::size_t threads);
// How gemm runs an m × n × k product (B n × k in panels of nr columns) with the active
// instruction set and blocking when `threads` threads share it (gemm.inc has the rules):
//   gemv   one row of A: B read row by row in place, never packed
//   panel  few rows of A (up to 512) or an A of at most panel_a_bytes: each thread packs
//          groups of `group` panels (panel_group) and runs every row of A over each group
//   tiled  B packed whole, then tiles of mc rows of A
//   none   nothing to compute (m or n is 0)
// `bench --product` prints it beside each blocking's speed.
enum class product_path { none, gemv, panel, tiled };
struct product_plan {
  product_path path = product_path::none;
  std::size_t nr = 0, panels = 0, group = 0;  // group: 0 unless the panel path
};
product_plan plan_product(std::size_t m, std::size_t n, std::size_t k, std::size_t threads);
// "none", "gemv", "panel" or "tiled".
std::string_view path_name(product_path path);

// Threads the parallel loops use. set_threads(n >= 1) is what OMP_NUM_THREADS=n does; without
// a call, OMP_NUM_THREADS or else every core. threads() is 1 in a build without OpenMP.
void set_threads(std::size_t n);
std::size_t threads();

// C (m×n, stride ldc) = alpha · A (m×k, stride lda) · op(B) + beta · C, where op(B) is B
// (k×n, stride ldb) or, with b_trans, Bᵀ for B n×k (stride ldb). Parallel inside.
void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const float* b, std::size_t ldb, bool b_trans, float beta, float* c, std::size_t ldc);
// The same with B's elements stored as `type` (a checkpoint's weights as they are mapped: F16
// and BF16 little-endian, at any 2-byte alignment), converted to float panel by panel while B
// is packed, so B is never converted whole. ldb counts elements.
enum class element_type { f32, f16, bf16 };
void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const void* b, element_type type, std::size_t ldb, bool b_trans, float beta, float* c,
          std::size_t ldc);
// C = alpha · A Bᵀ + beta · C with B (n×k) given by rows that a decoder turns into floats on
// demand: quantized weights, dequantized a chunk of a few panels' rows at a time while they are
// packed, so B is never converted whole. decode(context, row, first, count, out) writes B's
// elements [first, first + count) of `row`; first is a multiple of the block whenever count is
// not the rest of the row. bytes, row_bytes, block and block_bytes say where a row's blocks lie
// (for prefetching only).
struct row_decoder {
  const void* context = nullptr;
  void (*decode)(const void* context, std::size_t row, std::size_t first, std::size_t count,
                 float* out) = nullptr;
  const unsigned char* bytes = nullptr;
  std::size_t row_bytes = 0, block = 1, block_bytes = 4;
  // Block formats that one-row products read in place, multiplying as they decode (the floats
  // decode gives, so the same bytes): ggml's q8_0, q4_0, q4_1, q5_0, q5_1 and q2_k-q6_k
  // (kernels/ggml_layout.h says how each is laid out). Rows of any other format (none) are
  // decoded first.
  enum class in_place { none, q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k };
  in_place format = in_place::none;
};
void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const row_decoder& b, float beta, float* c, std::size_t ldc);
// One B operand, for products that take several: its elements as stored (ldb counts them; trans:
// Bᵀ for B n×k, as gemm's b_trans), or Bᵀ given by the rows a row_decoder turns into floats.
struct b_operand {
  const void* data = nullptr;
  element_type type = element_type::f32;
  std::size_t ldb = 0;
  bool trans = true;
  const row_decoder* rows = nullptr;  // when set, data, type and trans are not read
};
// SwiGLU's middle in one pass over A (gated.inc): C (m×n, stride ldc) = silu(A op(G)) ⊙ (A op(U)),
// silu(g) = g σ(g), with G the gate projection and U the up one. The bytes of gemm(A, G) → C,
// gemm(A, U) → T, silu_mul(C, T), neither product written out whole.
void gemm_swiglu(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
                 const b_operand& gate, const b_operand& up, float* c, std::size_t ldc);
// The matrix forms: A Bᵀ and A B.
matrix matmul_nt(const matrix& a, const matrix& b);
matrix matmul_nn(const matrix& a, const matrix& b);

// Softmax of every row of e (rows × n, stride ld), in place, with temperature 1 / inv_tau.
// −inf entries get 0, an all −inf row gives zeros. Returns false if a NaN was seen.
bool softmax_rows(float* e, std::size_t rows, std::size_t n, std::size_t ld, float inv_tau);
// y_j = 2^(t_j) for t_j <= 0 with the vector exponential every softmax here uses, as
// exp(x) = 2^(x log2 e) (0 below -126, where the float result would be denormal). y may be t.
void exp2_nonpositive(const float* t, float* y, std::size_t n);

// Masks a row of scores in place (sets hidden keys to −inf): row index i, n_k entries.
using mask_row_fn = void (*)(const void* context, std::size_t i, float* scores, std::size_t n_k);
// The keys row i may see lie in [*first, *end) (first <= end <= n_k): the mask hides every key
// outside, so the fused kernel need not compute them.
using mask_span_fn = void (*)(const void* context, std::size_t i, std::size_t n_k,
                              std::size_t* first, std::size_t* end);
// Receives rows [i0, i0 + rows) of head h's weights (rows × n_k, row-major) as soon as they are
// final. Called from several threads at once, each time for a different (head, i0).
using rows_sink_fn = void (*)(void* context, std::size_t head, std::size_t i0, std::size_t rows,
                              const float* weights, std::size_t n_k);

struct attention_args {
  std::size_t heads = 1, n_q = 0, n_k = 0, d_k = 0, d_v = 0;
  // Grouped-query attention: kv_heads key/value heads, query head h reading key/value head
  // h / (heads / kv_heads) (kv_heads divides heads; 0: as many as heads).
  std::size_t kv_heads = 0;
  const float* q = nullptr;  // n_q × (heads·d_k), stride ldq
  std::size_t ldq = 0;
  const float* k = nullptr;  // n_k × (kv_heads·d_k), stride ldk
  std::size_t ldk = 0;
  const float* v = nullptr;  // n_k × (kv_heads·d_v), stride ldv
  std::size_t ldv = 0;
  // Optional: floats from one key (value) head's rows to the next head's, when each head's rows
  // are stored apart ([kv_heads][n_k][d_k] with ldk = d_k: a generation's cache, whose one-row
  // steps then read each head's keys as one run); 0: the heads side by side in every row, head
  // g at column g·d_k (g·d_v).
  std::size_t k_head_stride = 0, v_head_stride = 0;
  float scale = 1.0f;                    // 1/sqrt(d_k) for scaled_dot, 1 for dot
  float inv_temperature = 1.0f;          // 1/τ
  const double* alibi_slopes = nullptr;  // heads entries, or none
  // Optional: an additive bias on the scaled scores, per head an n_q × n_k matrix with row
  // stride n_k (T5's relative position buckets), added before masking.
  const float* const* score_bias = nullptr;
  // Optional (> 0): each scaled score s becomes cap · tanh(s / cap) before the bias and the
  // masks (Gemma 2's attention-logit soft-capping).
  float soft_cap = 0.0f;
  mask_row_fn mask_row = nullptr;
  const void* mask_context = nullptr;
  // Optional, with mask_row: where each row's visible keys lie. Without scores kept, a block of
  // rows then computes only the keys some row of it may see (causal: about half of them).
  mask_span_fn mask_span = nullptr;
  // With mask_span: the mask hides exactly the keys outside each row's span (causal, window),
  // so the kernel may apply it by the span alone, without calling mask_row.
  bool mask_is_span = false;
  float* const* scores = nullptr;   // per head n_q × n_k before masking, or none (not kept)
  // per head n_q × n_k, or none: streaming (see rows_sink); a null entry streams that head only
  float* const* weights = nullptr;
  float* const* context = nullptr;  // per head n_q rows of d_v, stride ldc
  std::size_t ldc = 0;
  // Optional: every block of weights goes here after its softmax. Without `weights` the blocks
  // live only in per-thread scratch, so memory stays O(threads · block · n_k), not O(n_q · n_k).
  rows_sink_fn rows_sink = nullptr;
  void* sink_context = nullptr;
};
// Multi-head softmax attention fused per query block (attention.inc). Returns false if a score
// overflowed to ±inf or NaN before masking.
bool attention_softmax(const attention_args& args);

// e (n_q × n_k) = Σ_a v_a tanh(P_ia + b_a + R_ja); P n_q × d_a, R n_k × d_a, b may be null.
void additive_scores(const float* p, const float* r, const float* v, const float* b,
                     std::size_t n_q, std::size_t n_k, std::size_t d_a, float* e);

// Sparse alignments by threshold search instead of a full sort (sparse_threshold.cpp), with the
// row contract of the references below: z has n values, −inf = masked.
void sparsemax_threshold(const double* z, double* p, std::size_t n);
void entmax15_threshold(const double* z, double* p, std::size_t n);
// The plain references (sparse_ref.cpp): sort each row, exact; serial, no SIMD.
void sparsemax_row_ref(const double* z, double* p, std::size_t n);
void entmax15_row_ref(const double* z, double* p, std::size_t n);

// The element-wise work around a Transformer block's products (elementwise.inc), each split over
// threads. x, y: rows × d with row strides ldx, ldy (y may be x); beta and b may be null.
//   y_r = (x_r − mean) / √(var + eps) ⊙ gamma + beta   (per row, two passes)
void layer_norm_rows(const float* x, std::size_t ldx, float* y, std::size_t ldy, std::size_t rows,
                     std::size_t d, const float* gamma, const float* beta, float eps);
//   y_r = x_r / √(mean(x_r²) + eps) ⊙ w
void rms_norm_rows(const float* x, std::size_t ldx, float* y, std::size_t ldy, std::size_t rows,
                   std::size_t d, const float* w, float eps);
// In place on n floats: ½x(1 + tanh(√(2/π)(x + 0.044715x³))) and ½x(1 + erf(x/√2)).
void gelu_tanh(float* x, std::size_t n);
void gelu_erf(float* x, std::size_t n);
// g = g · σ(g) · u on n floats (SiLU of the gate times the up projection).
void silu_mul(float* g, const float* u, std::size_t n);
// y_r += b for each of `rows` rows of `cols` floats (stride ldy).
void add_bias_rows(float* y, std::size_t rows, std::size_t cols, std::size_t ldy, const float* b);
// x += y on n floats.
void add_to(float* x, const float* y, std::size_t n);
// Whether none of n floats is ±inf or NaN.
bool all_finite(const float* x, std::size_t n);
// One query of mixed_l1_distances: its result y (d floats), its own term w (d floats, or null)
// and its weights a (one a head).
struct l1_query {
  const float* y = nullptr;
  const float* w = nullptr;
  const float* a = nullptr;
};
// out[c] = Σ_k |y_k − t_k| with t = w + Σ_h a_h f_h, for each of `count` queries q[c] against
// the vector one key brings them (ALTI, measures/alti.cpp); f: heads rows of d (row-major),
// read once for every four queries. Serial (one call is one key's group). The reference, one
// query in double: mixed_l1_distance_ref.
void mixed_l1_distances(const l1_query* q, std::size_t count, const float* f, std::size_t heads,
                        std::size_t d, float* out);
double mixed_l1_distance_ref(const float* y, const float* w, const float* f, const float* a,
                             std::size_t heads, std::size_t d);

}  // namespace attnviz::kernels
