// kernels/elementwise.inc (the norms, GELU, SiLU gate, bias and residual adds) against the plain
// references of model/blocks.h, computed in double, on every instruction set, on row lengths
// that cross every vector width, with values from tiny to ±40 (where GELU and SiLU saturate).
// Tolerance: 1e-6 · max(1, |reference|) (the vector exponential has 1.7 ulp, erfc 1.2e-7).
#include <cmath>
#include <limits>
#include <random>

#include "helpers.h"
#include "kernels/kernels.h"
#include "model/blocks.h"

using namespace attnviz;
using attnviz::testing::for_each_isa;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace elementwise_cases {

namespace {

// rows × cols, entries scale · uniform[-1, 1), with some exact zeros and ±scale extremes.
matrix sample(std::size_t rows, std::size_t cols, float scale, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  matrix m(rows, cols);
  for (std::size_t i = 0; i < m.size(); ++i) m.data()[i] = scale * u(gen);
  if (m.size() > 2) {
    m.data()[0] = 0.0f;
    m.data()[1] = scale;
    m.data()[m.size() - 1] = -scale;
  }
  return m;
}

std::vector<float> vec(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

void check_same(const matrix& got, const matrix& want, double tol = 1e-6) {
  REQUIRE(got.size() == want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want.data()[i], g = got.data()[i];
    if (!(std::fabs(g - w) <= tol * std::max(1.0, std::fabs(w)))) {
      if (++bad <= 3) FAIL_CHECK("entry " << i << ": got " << g << ", want " << w);
    }
  }
  CHECK(bad == 0);
}

const std::size_t lengths[] = {1, 3, 4, 7, 8, 15, 16, 17, 33, 64, 100, 768};

}  // namespace

TEST_CASE("GELU (tanh and erf forms) and the SiLU gate match the references in double") {
  for_each_isa([] {
    unsigned seed = 11;
    for (float scale : {1e-3f, 1.0f, 6.0f, 40.0f})
      for (std::size_t n : lengths) {
        INFO("n " << n << " scale " << scale);
        const matrix x = sample(3, n, scale, ++seed);
        matrix fast = x, ref = x;
        gelu_tanh(fast);
        gelu_tanh_ref(ref);
        check_same(fast, ref);
        fast = ref = x;
        gelu_erf(fast);
        gelu_erf_ref(ref);
        check_same(fast, ref);
        const matrix up = sample(3, n, 2.0f, ++seed);
        fast = ref = x;
        silu_gate(fast, up);
        silu_gate_ref(ref, up);
        check_same(fast, ref);
      }
  });
}

TEST_CASE("GELU and SiLU far out: no NaN, the exact limits") {
  for_each_isa([] {
    matrix x = attnviz::testing::mat(1, 6, {-1000, -90, 90, 1000, -0.0f, 0});
    matrix e = x, g = x;
    gelu_tanh(x);
    gelu_erf(e);
    silu_gate(g, attnviz::testing::mat(1, 6, {1, 1, 1, 1, 1, 1}));
    for (const matrix* m : {&x, &e, &g}) {
      CHECK((*m)(0, 0) == 0.0f);
      CHECK((*m)(0, 1) == 0.0f);
      CHECK((*m)(0, 2) == 90.0f);
      CHECK((*m)(0, 3) == 1000.0f);
      CHECK((*m)(0, 5) == 0.0f);
    }
  });
}

TEST_CASE("LayerNorm and RMSNorm rows match the references, with and without a shift") {
  for_each_isa([] {
    unsigned seed = 100;
    for (std::size_t d : lengths)
      for (float offset : {0.0f, 50.0f}) {  // a large mean: the two-pass variance keeps it exact
        INFO("d " << d << " offset " << offset);
        matrix x = sample(5, d, 3.0f, ++seed);
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] += offset;
        const std::vector<float> gamma = vec(d, 0.5f, 2.0f, ++seed), beta = vec(d, -1, 1, ++seed);
        matrix ref = x;
        layer_norm_ref(ref, gamma, beta, 1e-5);
        check_same(layer_norm_of(x, gamma, beta, 1e-5), ref, 4e-6);
        ref = x;
        layer_norm_ref(ref, gamma, {}, 1e-12);
        check_same(layer_norm_of(x, gamma, {}, 1e-12), ref, 4e-6);
        check_same(rms_norm_of(x, gamma, 1e-6), rms_norm_ref(x, gamma, 1e-6));
      }
  });
}

TEST_CASE("bias rows and the residual add, with a row stride wider than the rows") {
  for_each_isa([] {
    for (std::size_t cols : lengths) {
      INFO("cols " << cols);
      const std::size_t ld = cols + 5, rows = 4;
      std::vector<float> y = vec(rows * ld, -1, 1, 7), want = y;
      const std::vector<float> b = vec(cols, -1, 1, 8);
      kernels::add_bias_rows(y.data(), rows, cols, ld, b.data());
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t j = 0; j < ld; ++j) {
          if (j < cols) want[r * ld + j] += b[j];  // the gap between rows is left alone
          CHECK(y[r * ld + j] == want[r * ld + j]);
        }
      matrix a = sample(3, cols, 1.0f, 9), c = sample(3, cols, 1.0f, 10);
      matrix sum = a;
      add_in_place(sum, c);
      for (std::size_t i = 0; i < a.size(); ++i) CHECK(sum.data()[i] == a.data()[i] + c.data()[i]);
    }
  });
}

TEST_CASE(
    "all_finite finds one infinity or NaN anywhere: a vector's lanes, the tail, a far chunk") {
  const float inf = std::numeric_limits<float>::infinity();
  const float odd[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -std::nanf("")};
  for_each_isa([&] {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{37}, std::size_t{70001}}) {
      matrix x = sample(1, n, 40.0f, 7);
      x.data()[0] = std::numeric_limits<float>::max();
      x.data()[n / 2] = std::numeric_limits<float>::denorm_min();
      INFO("n " << n);
      CHECK(kernels::all_finite(x.data(), n));
      for (std::size_t at : {std::size_t{0}, n / 3, n - 1})
        for (float v : odd) {
          const float kept = x.data()[at];
          x.data()[at] = v;
          CHECK_FALSE(kernels::all_finite(x.data(), n));
          x.data()[at] = kept;
        }
    }
    CHECK(kernels::all_finite(nullptr, 0));
  });
}

TEST_CASE("large arrays go through the threaded path and still match") {
  const matrix x = sample(64, 3072, 5.0f, 3);  // 196608 floats: above the one-thread limit
  matrix fast = x, ref = x;
  gelu_tanh(fast);
  gelu_tanh_ref(ref);
  check_same(fast, ref);
  const std::vector<float> gamma = vec(3072, 0.5f, 2.0f, 4);
  ref = x;
  layer_norm_ref(ref, gamma, {}, 1e-5);
  check_same(layer_norm_of(x, gamma, {}, 1e-5), ref, 4e-6);
}

TEST_CASE("mixed_l1_distances equal the plain sums in double, 1 to 9 queries, own terms or not") {
  for_each_isa([] {
    for (const std::size_t d :
         {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{37}, std::size_t{768}})
      for (const std::size_t heads :  // 300: past the grouped kernels' 256, one query at a time
           {std::size_t{1}, std::size_t{3}, std::size_t{12}, std::size_t{300}}) {
        const std::vector<float> f = vec(heads * d, -1.0f, 1.0f, 13);
        std::vector<std::vector<float>> y, w, a;
        std::vector<kernels::l1_query> q;
        for (unsigned c = 0; c < 9; ++c) {
          y.push_back(vec(d, -2.0f, 2.0f, 11 + 7 * c));
          w.push_back(vec(d, -1.0f, 1.0f, 12 + 7 * c));
          a.push_back(vec(heads, 0.0f, 1.0f, 14 + 7 * c));
        }
        for (std::size_t c = 0; c < 9; ++c)  // every third query with its own term
          q.push_back({y[c].data(), c % 3 == 1 ? w[c].data() : nullptr, a[c].data()});
        for (std::size_t count = 1; count <= 9; ++count) {
          std::vector<float> out(count, -1.0f);
          kernels::mixed_l1_distances(q.data(), count, f.data(), heads, d, out.data());
          for (std::size_t c = 0; c < count; ++c) {
            const double want =
                kernels::mixed_l1_distance_ref(q[c].y, q[c].w, f.data(), q[c].a, heads, d);
            INFO("d " << d << ", heads " << heads << ", count " << count << ", query " << c);
            CHECK(std::fabs(out[c] - want) <= 1e-5 * (1.0 + want) * (heads > 12 ? 10.0 : 1.0));
          }
        }
      }
    // by hand: y = (1, -1), t = (0.5, 0.5) + 2 · (0.25, -1) = (1, -1.5): |0| + |0.5|; without
    // the own term t = (0.5, -2): 0.5 + 1
    const float y[2] = {1.0f, -1.0f}, w[2] = {0.5f, 0.5f}, f[2] = {0.25f, -1.0f}, a[1] = {2.0f};
    const kernels::l1_query both[2] = {{y, w, a}, {y, nullptr, a}};
    float out[2] = {};
    kernels::mixed_l1_distances(both, 2, f, 1, 2, out);
    CHECK(out[0] == 0.5f);
    CHECK(out[1] == 1.5f);
  });
}

}  // namespace elementwise_cases
