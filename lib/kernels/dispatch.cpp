// Chooses the instruction set at first use and forwards each kernel to its table.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(ATTNVIZ_HAVE_X86_KERNELS)
#include <cpuid.h>
#endif

#include "error.h"
#include "kernels/isa_table.h"

namespace attnviz::kernels {

// Through the matrix allocator, so large scratch buffers are reused between calls too.
float_buffer::float_buffer(std::size_t count, fill how)
    : data_(static_cast<float*>(matrix_allocate_bytes(count * sizeof(float)))), count_(count) {
  if (how == fill::zeros) std::memset(data_, 0, count * sizeof(float));
}
float_buffer::~float_buffer() {
  matrix_release_bytes(data_, count_ * sizeof(float));
}

namespace {

#if defined(ATTNVIZ_HAVE_X86_KERNELS)
// F16C (half-float conversion, which the AVX2 and AVX-512 files are built with): CPUID leaf 1,
// ECX bit 29 (Clang 14's __builtin_cpu_supports does not know "f16c").
bool has_f16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}
#endif

std::vector<const isa_table*> supported_tables() {
  std::vector<const isa_table*> out{&table_generic()};
#if defined(ATTNVIZ_HAVE_X86_KERNELS)
  __builtin_cpu_init();
  // The AVX-512 file is built for AVX2, FMA and F16C as well (lib/CMakeLists.txt), so it asks
  // for all the AVX2 file's features too.
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
  if (avx2) out.push_back(&table_avx2());
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    out.push_back(&table_avx512());
#endif
  return out;
}

const isa_table* find_table(std::string_view name) {
  for (const isa_table* t : supported_tables())
    if (name == t->name) return t;
  return nullptr;
}

const isa_table* initial_table() {
  if (const char* env = std::getenv("ATTNVIZ_ISA"); env && *env) {
    if (const isa_table* t = find_table(env)) return t;
    // An unusable request falls back to the best set rather than failing every command.
  }
  return supported_tables().back();
}

std::atomic<const isa_table*>& active() {
  static std::atomic<const isa_table*> table{initial_table()};
  return table;
}

const isa_table& table() {
  return *active().load(std::memory_order_relaxed);
}

}  // namespace

std::vector<std::string> available_isas() {
  std::vector<std::string> out;
  for (const isa_table* t : supported_tables()) out.emplace_back(t->name);
  return out;
}

std::string_view active_isa() {
  return table().name;
}

void use_isa(std::string_view name) {
  const isa_table* t = find_table(name);
  if (!t)
    throw usage_error(fmt::format("instruction set '{}' is not available here (available: {})",
                                  name, fmt::join(available_isas(), ", ")));
  active().store(t, std::memory_order_relaxed);
}

blocking_sizes isa_blocking(const blocking_inputs& in) {
  return table().blocking(in);
}

product_plan plan_product(std::size_t m, std::size_t n, std::size_t k, std::size_t threads) {
  return table().plan(m, n, k, std::max<std::size_t>(threads, 1));
}

std::string_view path_name(product_path path) {
  switch (path) {
    case product_path::gemv:
      return "gemv";
    case product_path::panel:
      return "panel";
    case product_path::tiled:
      return "tiled";
    case product_path::none:
      break;
  }
  return "none";
}

void set_threads(std::size_t n) {
#if defined(_OPENMP)
  if (n >= 1) omp_set_num_threads(static_cast<int>(n));
#else
  (void)n;
#endif
}

std::size_t threads() {
#if defined(_OPENMP)
  return static_cast<std::size_t>(omp_get_max_threads());
#else
  return 1;
#endif
}

void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const float* b, std::size_t ldb, bool b_trans, float beta, float* c, std::size_t ldc) {
  table().gemm(m, n, k, alpha, a, lda, b, ldb, b_trans, beta, c, ldc);
}

void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const void* b, element_type type, std::size_t ldb, bool b_trans, float beta, float* c,
          std::size_t ldc) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "16-bit weights are read in the host's byte order: safetensors is little-endian");
  if (type == element_type::f32)
    table().gemm(m, n, k, alpha, a, lda, static_cast<const float*>(b), ldb, b_trans, beta, c, ldc);
  else
    table().gemm_16(m, n, k, alpha, a, lda, static_cast<const std::uint16_t*>(b),
                    type == element_type::f16 ? 1 : 2, ldb, b_trans, beta, c, ldc);
}

void gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
          const row_decoder& b, float beta, float* c, std::size_t ldc) {
  table().gemm_decoded(m, n, k, alpha, a, lda, b, beta, c, ldc);
}

void gemm_swiglu(std::size_t m, std::size_t n, std::size_t k, const float* a, std::size_t lda,
                 const b_operand& gate, const b_operand& up, float* c, std::size_t ldc) {
  const bool same_kind = gate.rows ? up.rows != nullptr : !up.rows && up.type == gate.type;
  if (same_kind) return table().gemm_swiglu(m, n, k, a, lda, gate, up, c, ldc);
  std::vector<float> u(m * n);
  const auto product = [&](const b_operand& b, float* out, std::size_t ld) {
    if (b.rows) return gemm(m, n, k, 1.0f, a, lda, *b.rows, 0.0f, out, ld);
    gemm(m, n, k, 1.0f, a, lda, b.data, b.type, b.ldb, b.trans, 0.0f, out, ld);
  };
  product(gate, c, ldc);
  product(up, u.data(), n);
  for (std::size_t i = 0; i < m; ++i) silu_mul(c + i * ldc, u.data() + i * n, n);
}

namespace {

// C = A Bᵀ (b_trans) or A B through gemm.
matrix product(const matrix& a, const matrix& b, bool b_trans) {
  const std::size_t inner = b_trans ? b.cols() : b.rows();
  if (a.cols() != inner)
    throw std::logic_error(
        fmt::format("kernels::matmul_{}: inner sizes differ", b_trans ? "nt" : "nn"));
  matrix c(a.rows(), b_trans ? b.rows() : b.cols());
  gemm(c.rows(), c.cols(), a.cols(), 1.0f, a.data(), a.cols(), b.data(), b.cols(), b_trans, 0.0f,
       c.data(), c.cols());
  return c;
}

}  // namespace

matrix matmul_nt(const matrix& a, const matrix& b) {
  return product(a, b, true);
}

matrix matmul_nn(const matrix& a, const matrix& b) {
  return product(a, b, false);
}

bool softmax_rows(float* e, std::size_t rows, std::size_t n, std::size_t ld, float inv_tau) {
  return table().softmax_rows(e, rows, n, ld, inv_tau);
}

void exp2_nonpositive(const float* t, float* y, std::size_t n) {
  table().exp2_nonpositive(t, y, n);
}

bool attention_softmax(const attention_args& args) {
  return table().attention_softmax(args);
}

void additive_scores(const float* p, const float* r, const float* v, const float* b,
                     std::size_t n_q, std::size_t n_k, std::size_t d_a, float* e) {
  table().additive_scores(p, r, v, b, n_q, n_k, d_a, e);
}

void layer_norm_rows(const float* x, std::size_t ldx, float* y, std::size_t ldy, std::size_t rows,
                     std::size_t d, const float* gamma, const float* beta, float eps) {
  table().layer_norm_rows(x, ldx, y, ldy, rows, d, gamma, beta, eps);
}

void rms_norm_rows(const float* x, std::size_t ldx, float* y, std::size_t ldy, std::size_t rows,
                   std::size_t d, const float* w, float eps) {
  table().rms_norm_rows(x, ldx, y, ldy, rows, d, w, eps);
}

void gelu_tanh(float* x, std::size_t n) {
  table().gelu_tanh(x, n);
}

void gelu_erf(float* x, std::size_t n) {
  table().gelu_erf(x, n);
}

void silu_mul(float* g, const float* u, std::size_t n) {
  table().silu_mul(g, u, n);
}

void add_bias_rows(float* y, std::size_t rows, std::size_t cols, std::size_t ldy, const float* b) {
  table().add_bias_rows(y, rows, cols, ldy, b);
}

void add_to(float* x, const float* y, std::size_t n) {
  table().add_to(x, y, n);
}

bool all_finite(const float* x, std::size_t n) {
  return table().all_finite(x, n);
}

void mixed_l1_distances(const l1_query* q, std::size_t count, const float* f, std::size_t heads,
                        std::size_t d, float* out) {
  table().mixed_l1_distances(q, count, f, heads, d, out);
}

double mixed_l1_distance_ref(const float* y, const float* w, const float* f, const float* a,
                             std::size_t heads, std::size_t d) {
  double sum = 0.0;
  for (std::size_t k = 0; k < d; ++k) {
    double t = w ? w[k] : 0.0;
    for (std::size_t h = 0; h < heads; ++h) t += static_cast<double>(a[h]) * f[h * d + k];
    sum += std::fabs(y[k] - t);
  }
  return sum;
}

}  // namespace attnviz::kernels
