// kernels::gemm_swiglu, SwiGLU's middle in one pass over A (gated.inc): it promises the bytes of
// the two products and silu_mul it replaces — on every instruction set, thread count and
// blocking, over float, F16, BF16 and decoded weights, on its fused path (a few rows), its
// unfused ones (one row; an A too big to reread) and for mixed kinds (dispatch.cpp) — and the
// values of silu(a·g) · (a·u) summed in double.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.h"
#include "kernels/kernels.h"

using namespace attnviz;
using attnviz::testing::for_each_isa;
using attnviz::testing::random_matrix;

namespace gated_test {

// B (n×k floats) with its elements as BF16 or F16 bit patterns, and as the floats those hold.
struct halves {
  std::vector<std::uint16_t> bits;
  matrix exact;
};

halves bf16_of(const matrix& b) {
  halves h{std::vector<std::uint16_t>(b.size()), b};
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::uint32_t u;
    std::memcpy(&u, b.data() + i, sizeof u);
    h.bits[i] = static_cast<std::uint16_t>(u >> 16);
    u = static_cast<std::uint32_t>(h.bits[i]) << 16;
    std::memcpy(h.exact.data() + i, &u, sizeof u);
  }
  return h;
}

// Small normal numbers only: sign, 5-bit exponent 15 ± 3, 10-bit mantissa of b's float.
halves f16_of(const matrix& b) {
  halves h{std::vector<std::uint16_t>(b.size()), b};
  for (std::size_t i = 0; i < b.size(); ++i) {
    const float x = b.data()[i];
    int e = 0;
    const float frac = std::frexp(std::fabs(x), &e);  // |x| = frac · 2^e, frac in [0.5, 1)
    e = e < -2 ? -2 : (e > 3 ? 3 : e);
    const auto mant = static_cast<std::uint16_t>(std::ldexp(frac, 11) - 1024.0f) & 0x3ff;
    h.bits[i] = static_cast<std::uint16_t>((x < 0 ? 0x8000 : 0) | ((e + 14) << 10) | mant);
    h.exact.data()[i] =
        (x < 0 ? -1.0f : 1.0f) * std::ldexp(1.0f + static_cast<float>(mant) / 1024.0f, e - 1);
  }
  return h;
}

void decode_rows(const void* context, std::size_t row, std::size_t first, std::size_t count,
                 float* out) {
  const auto& b = *static_cast<const matrix*>(context);
  std::memcpy(out, b.data() + row * b.cols() + first, count * sizeof(float));
}

kernels::row_decoder decoder_of(const matrix& b) {
  kernels::row_decoder d;
  d.context = &b;
  d.decode = decode_rows;
  d.bytes = reinterpret_cast<const unsigned char*>(b.data());
  d.row_bytes = b.cols() * sizeof(float);
  d.block = 32;
  d.block_bytes = 32 * sizeof(float);
  return d;
}

// C through the two products and silu_mul, the route gemm_swiglu replaces.
std::vector<float> unfused(std::size_t m, std::size_t n, std::size_t k, const matrix& a,
                           const kernels::b_operand& g, const kernels::b_operand& u,
                           std::size_t ldc) {
  std::vector<float> c(m * ldc, -7.0f), t(m * n);
  const auto product = [&](const kernels::b_operand& b, float* out, std::size_t ld) {
    if (b.rows) return kernels::gemm(m, n, k, 1.0f, a.data(), k, *b.rows, 0.0f, out, ld);
    kernels::gemm(m, n, k, 1.0f, a.data(), k, b.data, b.type, b.ldb, b.trans, 0.0f, out, ld);
  };
  product(g, c.data(), ldc);
  product(u, t.data(), n);
  for (std::size_t i = 0; i < m; ++i) kernels::silu_mul(c.data() + i * ldc, t.data() + i * n, n);
  return c;
}

std::vector<float> fused(std::size_t m, std::size_t n, std::size_t k, const matrix& a,
                         const kernels::b_operand& g, const kernels::b_operand& u,
                         std::size_t ldc) {
  std::vector<float> c(m * ldc, -7.0f);  // the columns past n stay as they were
  kernels::gemm_swiglu(m, n, k, a.data(), k, g, u, c.data(), ldc);
  return c;
}

kernels::b_operand stored(const void* data, kernels::element_type type, std::size_t k) {
  kernels::b_operand b;
  b.data = data;
  b.type = type;
  b.ldb = k;
  b.trans = true;
  return b;
}

// |fused − silu(a·g)(a·u) in double| within 1e-5 relative (of the products' magnitudes).
void check_values(std::size_t m, std::size_t n, std::size_t k, const matrix& a, const matrix& g,
                  const matrix& u, const std::vector<float>& c, std::size_t ldc) {
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double x = 0.0, y = 0.0, scale = 0.0;
      for (std::size_t p = 0; p < k; ++p) {
        x += double(a(i, p)) * g(j, p);
        y += double(a(i, p)) * u(j, p);
        scale += std::fabs(double(a(i, p)) * g(j, p)) + std::fabs(double(a(i, p)) * u(j, p));
      }
      const double want = x / (1.0 + std::exp(-x)) * y;
      const double tol = 1e-5 * (1.0 + scale) * (1.0 + std::fabs(x) + std::fabs(y));
      if (!(std::fabs(c[i * ldc + j] - want) <= tol) && ++bad < 3)
        FAIL_CHECK("(" << i << ", " << j << "): " << c[i * ldc + j] << " != " << want);
    }
  CHECK(bad == 0);
}

}  // namespace gated_test

using namespace gated_test;

TEST_CASE("gemm_swiglu gives the bytes of two products and silu_mul, and their values") {
  // n = 530: ragged panels and groups; k = 1100: two panel-depth chunks and a partial kc block;
  // ldc = n + 3: a row stride past the columns. m = 1: the matrix–vector path; 37: fused; 700
  // with panel_a = 1 byte: A too big to reread, the packed path.
  const std::size_t n = 530, k = 1100, ldc = n + 3;
  const matrix g = random_matrix(n, k, 51), u = random_matrix(n, k, 52);
  const halves gb = bf16_of(g), ub = bf16_of(u), gh = f16_of(g), uh = f16_of(u);
  const kernels::row_decoder gd = decoder_of(g), ud = decoder_of(u);
  kernels::b_operand gdo, udo;
  gdo.rows = &gd;
  udo.rows = &ud;
  struct kind {
    const char* name;
    kernels::b_operand gate, up;
    const matrix *g, *u;  // the values the operands hold
  };
  const kind kinds[] = {
      {"f32", stored(g.data(), kernels::element_type::f32, k),
       stored(u.data(), kernels::element_type::f32, k), &g, &u},
      {"bf16", stored(gb.bits.data(), kernels::element_type::bf16, k),
       stored(ub.bits.data(), kernels::element_type::bf16, k), &gb.exact, &ub.exact},
      {"f16", stored(gh.bits.data(), kernels::element_type::f16, k),
       stored(uh.bits.data(), kernels::element_type::f16, k), &gh.exact, &uh.exact},
      {"decoded", gdo, udo, &g, &u},
      {"mixed: f32 gate, bf16 up", stored(g.data(), kernels::element_type::f32, k),
       stored(ub.bits.data(), kernels::element_type::bf16, k), &g, &ub.exact},
  };
  const std::size_t before = kernels::threads();
  for_each_isa([&] {
    for (const kind& kd : kinds)
      for (std::size_t m : {std::size_t{1}, std::size_t{37}, std::size_t{700}}) {
        INFO(kd.name << ", m " << m);
        const matrix a = random_matrix(m, k, 53);
        kernels::use_blocking(m == 700 ? "panel_a=1" : "");
        const std::vector<float> want = unfused(m, n, k, a, kd.gate, kd.up, ldc);
        for (std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
          INFO("threads " << threads);
          kernels::set_threads(threads);
          const std::vector<float> got = fused(m, n, k, a, kd.gate, kd.up, ldc);
          CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
        }
        kernels::set_threads(before);
        if (m == 37) check_values(m, n, k, a, *kd.g, *kd.u, want, ldc);
      }
  });
  kernels::use_blocking("");
}
