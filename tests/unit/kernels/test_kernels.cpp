// The fast kernels (kernels/kernels.h) against the plain references, on every instruction set
// this build and CPU have (generic always; AVX2 and AVX-512 where available), on random shapes
// that include sizes that are not multiples of any vector width. Tolerances are stated per test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "attention/align.h"
#include "attention/mask.h"
#include "attention/score.h"
#include "error.h"
#include "half_float.h"
#include "helpers.h"
#include "kernels/ggml_layout.h"
#include "kernels/kernels.h"
#include "params/ggml_types.h"
#include "params/safetensors.h"

using namespace attnviz;
using attnviz::testing::for_each_isa;
using attnviz::testing::random_matrix;

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();

const std::size_t sizes[] = {1, 3, 7, 16, 17, 31, 64, 65, 100};

}  // namespace

TEST_CASE("the generic kernels are always there; an unknown set is a usage error") {
  const auto isas = kernels::available_isas();
  CHECK(isas.front() == "generic");
  CHECK_THROWS_AS(kernels::use_isa("sse9"), usage_error);
}

// gemm: |C − C_ref| <= 1e-5 · (1 + Σ_t |a_it b_tj|) for C = alpha A op(B) + beta C0.
// Row counts on both sides of the small-m path (at most 512 rows: B packed panel by panel,
// next panel prefetched) and past it (B packed whole, tiles of rows × columns); n and k cross
// the vector width and the panel width of every instruction set (the packing's register
// transposes and their ragged edges).
TEST_CASE("gemm matches matmul_nt_ref / matmul_nn_ref on odd shapes, with strides, alpha and beta") {
  for_each_isa([] {
    unsigned seed = 1;
    std::vector<std::size_t> rows(std::begin(sizes), std::end(sizes));
    rows.push_back(512);
    rows.push_back(520);
    for (std::size_t m : rows)
      for (std::size_t n :
           {std::size_t{1}, std::size_t{5}, std::size_t{33}, std::size_t{70}, std::size_t{130}})
        for (std::size_t k : {std::size_t{1}, std::size_t{9}, std::size_t{64}, std::size_t{300}})
          for (bool trans : {false, true}) {
            if (m > 100 && k == 1) continue;  // keeps the test short; k = 1 is covered above
            // A and B are left blocks of wider matrices (strides k + 3 and +2)
            const matrix a_wide = random_matrix(m, k + 3, seed++);
            const matrix a = a_wide.columns(0, k);
            const matrix b_wide =
                trans ? random_matrix(n, k + 2, seed++) : random_matrix(k, n + 2, seed++);
            const matrix b = b_wide.columns(0, trans ? k : n);
            const matrix c0 = random_matrix(m, n, seed++);
            const matrix ref = trans ? matmul_nt_ref(a, b) : matmul_nn_ref(a, b);
            matrix c = c0;
            kernels::gemm(m, n, k, 0.5f, a_wide.data(), k + 3, b_wide.data(), b_wide.cols(), trans,
                          2.0f, c.data(), n);
            for (std::size_t i = 0; i < m; ++i)
              for (std::size_t j = 0; j < n; ++j) {
                double mag = 0.0;
                for (std::size_t t = 0; t < k; ++t)
                  mag += std::fabs(a(i, t) * (trans ? b(j, t) : b(t, j)));
                const double want = 0.5 * ref(i, j) + 2.0 * c0(i, j);
                INFO("m " << m << " n " << n << " k " << k << " trans " << trans);
                REQUIRE(std::fabs(c(i, j) - want) <= 1e-5 * (1.0 + mag));
              }
          }
  });
}

// softmax_rows: |a − a_ref| <= 1e-6, rows sum to 1 within 1e-6, masked entries exactly 0.
TEST_CASE("softmax_rows matches align_softmax_ref, masks and special rows included") {
  for_each_isa([] {
    std::mt19937 gen(7);
    std::uniform_real_distribution<float> u(-30.0f, 30.0f);
    for (std::size_t n : sizes)
      for (double tau : {1.0, 0.3, 4.0}) {
        matrix e(6, n);
        for (std::size_t i = 0; i < e.size(); ++i) e.data()[i] = u(gen);
        for (std::size_t j = 0; j < n; j += 3) e(1, j) = neg_inf;  // some masked
        for (std::size_t j = 0; j < n; ++j) e(2, j) = neg_inf;     // all masked
        e(3, n / 2) = std::numeric_limits<float>::infinity();      // +inf wins outright
        for (std::size_t j = 0; j < n; ++j) e(4, j) = 1e30f;       // huge but equal
        const matrix want = align_softmax_ref(e, align_options{tau});
        matrix got = e;
        REQUIRE(kernels::softmax_rows(got.data(), 6, n, n, static_cast<float>(1.0 / tau)));
        for (std::size_t i = 0; i < 6; ++i) {
          double sum = 0.0;
          bool any_visible = false;
          for (std::size_t j = 0; j < n; ++j) {
            any_visible = any_visible || e(i, j) != neg_inf;
            INFO("n " << n << " tau " << tau << " row " << i << " col " << j);
            CHECK(std::fabs(got(i, j) - want(i, j)) <= 1e-6);
            if (e(i, j) == neg_inf) CHECK(got(i, j) == 0.0f);
            CHECK_FALSE(std::isnan(got(i, j)));
            sum += got(i, j);
          }
          CHECK(std::fabs(sum - (any_visible ? 1.0 : 0.0)) <= 1e-6);
        }
      }
    matrix bad(1, 5, 0.0f);
    bad(0, 2) = std::numeric_limits<float>::quiet_NaN();
    CHECK_FALSE(kernels::softmax_rows(bad.data(), 1, 5, 5, 1.0f));
  });
}

// The vector exponential (2^t; the softmax's exp(x) is 2^(x log2 e)) against exp2 in double:
// every 61st float of [-126, 0] (about 18 million, each binade sampled evenly) and a little
// above 0 (a rounding), at most 2 ulp of the float result (measured: 1.55 generic, 1.65 AVX2,
// 1.67 AVX-512); exact at the integers, where it is a power of 2; 0 below -126 and at -inf; NaN
// stays NaN. Ragged lengths reach the partial vector.
TEST_CASE("the vector exponential is within 2 ulp on [-126, 0], exact at integers, 0 below") {
  // every 241st float of [-126, 0) (4.4 million, every binade, mantissas spread by the prime
  // step), small positive inputs and -0, with their exact values, once for every instruction set
  // (a negative float grows as its magnitude's bit pattern shrinks: the step is taken on the bits)
  std::vector<float> t;
  std::uint32_t magnitude = 0;
  const float start = 126.0f;
  std::memcpy(&magnitude, &start, sizeof magnitude);
  for (; magnitude > 0; magnitude = magnitude > 241 ? magnitude - 241 : 0) {
    float u = 0.0f;
    std::memcpy(&u, &magnitude, sizeof u);
    t.push_back(-u);
  }
  for (float u = 0.0f; u <= 0.01f; u += 1e-4f) t.push_back(u);
  t.push_back(-0.0f);
  const std::size_t measured = t.size();
  std::vector<double> want(measured), ulp(measured);
  for (std::size_t i = 0; i < measured; ++i) {
    want[i] = std::exp2(static_cast<double>(t[i]));
    ulp[i] = std::ldexp(1.0, std::ilogb(static_cast<float>(want[i])) - 23);
  }
  for (int m = -126; m <= 0; ++m) t.push_back(static_cast<float>(m));
  const std::size_t integers = t.size();
  for (float u : {-126.01f, -127.0f, -150.0f, -1e30f, neg_inf}) t.push_back(u);
  t.push_back(std::nanf(""));
  for_each_isa([&] {
    std::vector<float> y(t.size());
    kernels::exp2_nonpositive(t.data(), y.data(), t.size());
    double worst = 0.0;
    float worst_at = 0.0f;
    for (std::size_t i = 0; i < measured; ++i) {
      const double err = std::fabs(y[i] - want[i]) / ulp[i];
      if (err > worst) {
        worst = err;
        worst_at = t[i];
      }
    }
    INFO("worst " << worst << " ulp at " << worst_at);
    CHECK(worst <= 2.0);
    for (std::size_t i = measured; i < integers; ++i)
      REQUIRE(y[i] == std::ldexp(1.0f, static_cast<int>(t[i])));
    for (std::size_t i = integers; i + 1 < t.size(); ++i) REQUIRE(y[i] == 0.0f);
    CHECK(std::isnan(y.back()));
    for (std::size_t n : {std::size_t{1}, std::size_t{5}, std::size_t{17}, std::size_t{33}}) {
      std::vector<float> in(n), out(n, 7.0f);
      for (std::size_t j = 0; j < n; ++j) in[j] = -0.37f * static_cast<float>(j);
      kernels::exp2_nonpositive(in.data(), out.data(), n);
      for (std::size_t j = 0; j < n; ++j)
        CHECK(std::fabs(out[j] - std::exp2(in[j])) <= 2.4e-7 * std::exp2(in[j]));
    }
  });
}

namespace {

void causal(const void*, std::size_t i, float* e, std::size_t n_k) {
  for (std::size_t j = i + 1; j < n_k; ++j) e[j] = neg_inf;
}
void causal_span(const void*, std::size_t i, std::size_t n_k, std::size_t* first,
                 std::size_t* end) {
  *first = 0;
  *end = std::min(i + 1, n_k);
}
// Keys within 3 of the query, and every third of them hidden as well (inside the span).
void window3(const void*, std::size_t i, float* e, std::size_t n_k) {
  for (std::size_t j = 0; j < n_k; ++j)
    if ((i > j ? i - j : j - i) > 3 || j % 3 == 2) e[j] = neg_inf;
}
// Keys within 3 of the query, nothing else hidden: its span is exact.
void window3_only(const void*, std::size_t i, float* e, std::size_t n_k) {
  for (std::size_t j = 0; j < n_k; ++j)
    if ((i > j ? i - j : j - i) > 3) e[j] = neg_inf;
}
void window3_span(const void*, std::size_t i, std::size_t n_k, std::size_t* first,
                  std::size_t* end) {
  *first = std::min(i > 3 ? i - 3 : 0, n_k);
  *end = std::min(i + 4, n_k);
  if (*first > *end) *first = *end;
}

// attention_args over whole matrices split into `heads` equal column blocks: q (n_q × H d_k),
// k (n_k × H d_k), v (n_k × H d_v); head h's weights into weights[h] (n_q × n_k), its context
// into context[h] (n_q × d_v). Scale 1, τ 1, no mask, no scores kept. Everything is read and
// written in place, so it must outlive the arguments.
kernels::attention_args args_over(const matrix& q, const matrix& k, const matrix& v,
                                  std::size_t heads, float* const* weights,
                                  float* const* context) {
  kernels::attention_args args;
  args.heads = heads;
  args.n_q = q.rows();
  args.n_k = k.rows();
  args.d_k = q.cols() / heads;
  args.d_v = v.cols() / heads;
  args.q = q.data();
  args.k = k.data();
  args.v = v.data();
  args.ldq = q.cols();
  args.ldk = k.cols();
  args.ldv = v.cols();
  args.ldc = args.d_v;
  args.weights = weights;
  args.context = context;
  return args;
}

// args_over for one head, weights into w (n_q × n_k) and context into c (n_q × d_v).
struct one_head {
  float* weights[1];
  float* context[1];
  kernels::attention_args args;

  one_head(const matrix& q, const matrix& k, const matrix& v, matrix& w, matrix& c)
      : weights{w.data()}, context{c.data()}, args(args_over(q, k, v, 1, weights, context)) {}
  one_head(const one_head&) = delete;
  one_head& operator=(const one_head&) = delete;
};

}  // namespace

// attention_softmax against the stage-by-stage references, per head: E = scale Q_h K_hᵀ −
// m_h|i − j|, A = align_softmax_ref(masked E / τ), C = matmul_nn_ref(A, V_h); 1e-5 on each.
TEST_CASE("the fused multi-head kernel equals scores, masks, softmax and context done apart") {
  for_each_isa([] {
    struct shape {
      std::size_t heads, n_q, n_k, d_k, d_v;
    };
    // (300 × 5: whole blocks of rows past the last key; d_v = 150: several panels of V_h;
    // n_k = 3000: blocks of a few rows, so a window's span starts inside a panel of keys;
    // n_k = 256 and 1024: rows of whole vectors, which the weights' writer drips out inside the
    // A·V product's register tiles, falling behind on narrow vectors, with 45 and 30 rows
    // leaving a strip too short for a full tile. n_q = 1: one query row, K and V read in
    // place, with d_k and d_v not whole vectors and d_v = 150 past one pass of the context's
    // registers on every instruction set.)
    for (const shape s :
         {shape{1, 1, 1, 1, 1}, shape{3, 37, 29, 5, 7}, shape{2, 70, 130, 16, 17},
          shape{4, 13, 300, 64, 64}, shape{1, 300, 5, 4, 3}, shape{1, 40, 200, 8, 150},
          shape{1, 50, 3000, 4, 3}, shape{2, 45, 256, 16, 20}, shape{1, 30, 1024, 8, 70},
          shape{3, 1, 29, 5, 7}, shape{4, 1, 300, 64, 64}, shape{2, 1, 130, 17, 150},
          shape{1, 1, 3000, 4, 3}})
      for (int mode = 0; mode < 10; ++mode) {
        // 0: plain with ALiBi (the finiteness check inside the softmax pass); 1: causal mask
        // and scores kept (the check apart, before masking); 2: scores kept, no mask; 3: plain
        // without ALiBi (the scores straight from the product); 4: causal mask with its span
        // and ALiBi (only the keys a block may see are computed); 5: a window mask with its
        // span, rows past the last key included (blocks with no key to compute); 6: causal
        // mask applied by its exact span (the bounded shift, cut tiles on the diagonal); 7: a
        // window mask applied by its exact span (tiles cut on both sides, rows that see no key);
        // 8: an additive score bias per head (T5's relative positions) under the causal mask
        // and its exact span (the bias must still be added: the general pass); 9: scores
        // soft-capped (Gemma 2: 0.4 · tanh(s / 0.4)) under the causal mask and its exact span.
        const bool keep_scores = mode == 1 || mode == 2, alibi = mode != 3 && mode < 5;
        const bool biased = mode == 8;
        const float cap = mode == 9 ? 0.4f : 0.0f;
        const kernels::mask_row_fn mask = mode == 1 || mode == 4 || mode == 6 || mode >= 8
                                              ? causal
                                          : mode == 5                         ? window3
                                          : mode == 7                         ? window3_only
                                                                              : nullptr;
        const matrix q = random_matrix(s.n_q, s.heads * s.d_k, 11);
        const matrix k = random_matrix(s.n_k, s.heads * s.d_k, 12);
        const matrix v = random_matrix(s.n_k, s.heads * s.d_v, 13);
        const std::vector<double> slopes{0.5, 0.25, 0.125, 0.0625};
        std::vector<matrix> scores, weights, context;
        std::vector<float*> sp, wp, cp;
        for (std::size_t h = 0; h < s.heads; ++h) {
          scores.emplace_back(s.n_q, s.n_k);
          weights.emplace_back(s.n_q, s.n_k);
          context.emplace_back(s.n_q, s.d_v);
        }
        for (std::size_t h = 0; h < s.heads; ++h) {
          sp.push_back(scores[h].data());
          wp.push_back(weights[h].data());
          cp.push_back(context[h].data());
        }
        kernels::attention_args args = args_over(q, k, v, s.heads, wp.data(), cp.data());
        args.scale = 0.3f;
        args.inv_temperature = 1.0f / 0.7f;
        if (alibi) args.alibi_slopes = slopes.data();
        args.mask_row = mask;
        if (mode == 4 || mode == 6 || mode >= 8) args.mask_span = causal_span;
        args.soft_cap = cap;
        if (mode == 5 || mode == 7) args.mask_span = window3_span;
        args.mask_is_span = mode >= 6;
        std::vector<matrix> bias;
        std::vector<const float*> bp;
        for (std::size_t h = 0; h < s.heads && biased; ++h)
          bias.push_back(random_matrix(s.n_q, s.n_k, 30 + static_cast<unsigned>(h)));
        for (const matrix& b : bias) bp.push_back(b.data());
        if (biased) args.score_bias = bp.data();
        if (keep_scores) args.scores = sp.data();
        REQUIRE(kernels::attention_softmax(args));
        for (std::size_t h = 0; h < s.heads; ++h) {
          INFO("heads " << s.heads << " n_q " << s.n_q << " n_k " << s.n_k << " head " << h
                        << " mode " << mode);
          matrix e = matmul_nt_ref(q.columns(h * s.d_k, s.d_k), k.columns(h * s.d_k, s.d_k));
          for (std::size_t i = 0; i < s.n_q; ++i)
            for (std::size_t j = 0; j < s.n_k; ++j)
            {
              double x = 0.3 * e(i, j) - (alibi ? slopes[h] : 0.0) * std::fabs(double(i) - double(j));
              if (cap > 0.0f) x = cap * std::tanh(x / cap);
              e(i, j) = static_cast<float>(x + (biased ? bias[h](i, j) : 0.0f));
            }
          matrix vis = e;
          if (mask)
            for (std::size_t i = 0; i < s.n_q; ++i) mask(nullptr, i, vis.row(i), s.n_k);
          const matrix a = align_softmax_ref(vis, align_options{0.7});
          const matrix c = matmul_nn_ref(a, v.columns(h * s.d_v, s.d_v));
          for (std::size_t i = 0; i < e.size(); ++i) {
            if (keep_scores)
              REQUIRE(std::fabs(scores[h].data()[i] - e.data()[i]) <=
                      1e-5 * (1.0 + std::fabs(e.data()[i])));
            REQUIRE(std::fabs(weights[h].data()[i] - a.data()[i]) <= 1e-5);
            if (vis.data()[i] == neg_inf) REQUIRE(weights[h].data()[i] == 0.0f);
          }
          for (std::size_t i = 0; i < c.size(); ++i)
            REQUIRE(std::fabs(context[h].data()[i] - c.data()[i]) <= 1e-5);
        }
      }
  });
}

// The softmax's row maximum must be exact wherever it lies: in any vector of a row, in its
// ragged end, in any row of a block. One key scores 250 against |e| <= 1 for the others, so a
// maximum found short by more than 88 would overflow the exponentials; with the right one each
// weight row is one-hot at that key (e^-249 is 0 in float) and each context row is that key's
// value.
// Grouped-query attention: H query heads over KV key/value heads (head h reads key/value head
// h / (H / KV)) equals the same kernel with each key/value head repeated for its query heads,
// bit for bit, and the stage-by-stage reference to 1e-5.
// Also with each key/value head's rows stored apart (a generation's cache: [KV][capacity][d],
// capacity past n_k): the same bytes as the heads side by side.
TEST_CASE("the fused kernel shares key/value heads between query heads (grouped-query)") {
  for_each_isa([] {
    for (const std::size_t n_q : {std::size_t{23}, std::size_t{1}}) {  // blocks; one query row
      const std::size_t H = 6, KV = 2, n_k = 41, d = 8, capacity = 48;
      const matrix q = random_matrix(n_q, H * d, 21);
      const matrix k = random_matrix(n_k, KV * d, 22);
      const matrix v = random_matrix(n_k, KV * d, 23);
      matrix k_rep(n_k, H * d), v_rep(n_k, H * d);
      for (std::size_t j = 0; j < n_k; ++j)
        for (std::size_t h = 0; h < H; ++h)
          for (std::size_t t = 0; t < d; ++t) {
            k_rep(j, h * d + t) = k(j, (h / (H / KV)) * d + t);
            v_rep(j, h * d + t) = v(j, (h / (H / KV)) * d + t);
          }
      std::vector<float> k_apart(KV * capacity * d, NAN), v_apart(KV * capacity * d, NAN);
      for (std::size_t g = 0; g < KV; ++g)
        for (std::size_t j = 0; j < n_k; ++j)
          for (std::size_t t = 0; t < d; ++t) {
            k_apart[(g * capacity + j) * d + t] = k(j, g * d + t);
            v_apart[(g * capacity + j) * d + t] = v(j, g * d + t);
          }
      for (const bool masked : {false, true}) {
        std::vector<matrix> w1, w2, w3, c1, c2, c3;
        std::vector<float*> w1p, w2p, w3p, c1p, c2p, c3p;
        for (std::size_t h = 0; h < H; ++h) {
          w1.emplace_back(n_q, n_k), w2.emplace_back(n_q, n_k), w3.emplace_back(n_q, n_k);
          c1.emplace_back(n_q, d), c2.emplace_back(n_q, d), c3.emplace_back(n_q, d);
        }
        for (std::size_t h = 0; h < H; ++h) {
          w1p.push_back(w1[h].data()), w2p.push_back(w2[h].data()), w3p.push_back(w3[h].data());
          c1p.push_back(c1[h].data()), c2p.push_back(c2[h].data()), c3p.push_back(c3[h].data());
        }
        kernels::attention_args grouped = args_over(q, k, v, H, w1p.data(), c1p.data());
        grouped.d_k = grouped.d_v = grouped.ldc = d;
        grouped.kv_heads = KV;
        kernels::attention_args apart = grouped;
        apart.weights = w3p.data();
        apart.context = c3p.data();
        apart.k = k_apart.data();
        apart.v = v_apart.data();
        apart.ldk = apart.ldv = d;
        apart.k_head_stride = apart.v_head_stride = capacity * d;
        kernels::attention_args repeated = args_over(q, k_rep, v_rep, H, w2p.data(), c2p.data());
        grouped.scale = repeated.scale = apart.scale = 0.35f;
        if (masked) {
          grouped.mask_row = repeated.mask_row = apart.mask_row = causal;
          grouped.mask_span = repeated.mask_span = apart.mask_span = causal_span;
        }
        REQUIRE(kernels::attention_softmax(grouped));
        REQUIRE(kernels::attention_softmax(repeated));
        REQUIRE(kernels::attention_softmax(apart));
        for (std::size_t h = 0; h < H; ++h) {
          INFO("head " << h << " masked " << masked);
          CHECK(std::equal(w1[h].data(), w1[h].data() + w1[h].size(), w2[h].data()));
          CHECK(std::equal(c1[h].data(), c1[h].data() + c1[h].size(), c2[h].data()));
          CHECK(std::equal(w1[h].data(), w1[h].data() + w1[h].size(), w3[h].data()));
          CHECK(std::equal(c1[h].data(), c1[h].data() + c1[h].size(), c3[h].data()));
          const std::size_t g = h / (H / KV);
          matrix e = matmul_nt_ref(q.columns(h * d, d), k.columns(g * d, d));
          for (std::size_t i = 0; i < e.size(); ++i) e.data()[i] *= 0.35f;
          if (masked)
            for (std::size_t i = 0; i < n_q; ++i) causal(nullptr, i, e.row(i), n_k);
          const matrix a = align_softmax_ref(e, align_options{1.0});
          for (std::size_t i = 0; i < a.size(); ++i)
            REQUIRE(std::fabs(w1[h].data()[i] - a.data()[i]) <= 1e-5);
        }
      }
    }
  });
}

TEST_CASE("the fused kernel finds each row's maximum wherever it lies") {
  for_each_isa([] {
    const std::size_t n_q = 13, n_k = 300;
    for (std::size_t top : {std::size_t{0}, std::size_t{17}, std::size_t{40}, std::size_t{63},
                            std::size_t{64}, std::size_t{150}, std::size_t{299}}) {
      INFO("top key " << top);
      matrix q(n_q, 1, 1.0f), k = random_matrix(n_k, 1, 21), v = random_matrix(n_k, 2, 22);
      k(top, 0) = 250.0f;
      matrix w(n_q, n_k), c(n_q, 2);
      const one_head head(q, k, v, w, c);
      REQUIRE(kernels::attention_softmax(head.args));
      for (std::size_t i = 0; i < n_q; ++i) {
        for (std::size_t j = 0; j < n_k; ++j) REQUIRE(w(i, j) == (j == top ? 1.0f : 0.0f));
        REQUIRE(c(i, 0) == v(top, 0));
        REQUIRE(c(i, 1) == v(top, 1));
      }
    }
  });
}

// The bounded shift (no mask, no scores kept, no ALiBi) subtracts B_i = scale |q_i| max_j |k_j|
// from row i instead of its maximum m_i; it must keep every block it can do exactly and hand back
// the others. d_k = 2, scale 1, τ 1, 11 rows (a tile of 6 and 5 ragged ones), 70 keys (a ragged
// panel on every instruction set): key 3 is (0, 80), so max_j |k_j| = 80; keys 0-2 are (0, 0);
// the others (−12, 0) or (−0.25 (j mod 9), 0).
//   0. kept: even rows (0.03 (i + 1), 0), g = B − m = 80 · 0.03 (i + 1) <= 26.4; odd rows
//      (0, 0.5 (i + 1)), g = 0, m = 40 (i + 1) — a ragged row given another row's shift would
//      overflow. Then a NaN in key 20, which max_j |k_j| skips, must still be reported.
//   1. rows (1, 0): g = 80; the arguments of the top weights are −80 (normal), those of the
//      −12 keys −92 underflow, though their exact weights are about 3e-7 (must not be 0).
//   2. rows (100, 0): g = 8000, every argument underflows, the sum is 0.
// Weights against align_softmax_ref to 1e-7, contexts against matmul_nn_ref to 1e-6. Each case
// also with a causal mask applied by its exact span (cut tiles; rows 0-2 see only zero keys).
TEST_CASE("the fused kernel's bounded shift hands back blocks it would get wrong") {
  for_each_isa([] {
    for (int kind = 0; kind < 6; ++kind) {
      const bool masked = kind >= 3;
      INFO("case " << kind % 3 << " causal " << masked);
      const std::size_t n_q = 11, n_k = 70;
      matrix q(n_q, 2, 0.0f), k(n_k, 2, 0.0f);
      for (std::size_t i = 0; i < n_q; ++i) {
        if (kind % 3 == 0 && i % 2 == 1)
          q(i, 1) = 0.5f * float(i + 1);
        else
          q(i, 0) = kind % 3 == 0 ? 0.03f * float(i + 1) : kind % 3 == 1 ? 1.0f : 100.0f;
      }
      k(3, 1) = 80.0f;
      for (std::size_t j = 4; j < n_k; ++j) k(j, 0) = j % 2 == 0 ? -12.0f : -0.25f * float(j % 9);
      const matrix v = random_matrix(n_k, 3, 31);
      matrix w(n_q, n_k), c(n_q, 3);
      one_head head(q, k, v, w, c);
      if (masked) {
        head.args.mask_row = causal;
        head.args.mask_span = causal_span;
        head.args.mask_is_span = true;
      }
      REQUIRE(kernels::attention_softmax(head.args));
      matrix e = matmul_nt_ref(q, k);
      if (masked)
        for (std::size_t i = 0; i < n_q; ++i) causal(nullptr, i, e.row(i), n_k);
      const matrix want = align_softmax_ref(e, align_options{1.0});
      const matrix want_c = matmul_nn_ref(want, v);
      for (std::size_t i = 0; i < n_q; ++i) {
        INFO("row " << i);
        for (std::size_t j = 0; j < n_k; ++j) REQUIRE(std::fabs(w(i, j) - want(i, j)) <= 1e-7);
        if (kind % 3 == 1 && i >= 4) REQUIRE(w(i, 4) > 1e-7f);  // a −12 key
        for (std::size_t t = 0; t < 3; ++t) REQUIRE(std::fabs(c(i, t) - want_c(i, t)) <= 1e-6);
      }
      if (kind == 0) {  // (unmasked: a causal row of these 11 never sees key 20)
        k(20, 1) = std::numeric_limits<float>::quiet_NaN();
        CHECK_FALSE(kernels::attention_softmax(head.args));
      }
    }
  });
}

TEST_CASE("the fused kernel reports scores that overflow float") {
  for_each_isa([] {
    // One score of +inf (q·k = 4e60) or −inf (that key negated), in row 1 only, with the check
    // in the softmax pass (no mask, no scores kept) and apart (mask hook), each alone in a row
    // block of finite rows, so a lost flag would show. The bad key is the first, the 30th (in a
    // later vector of the row than the first on every instruction set) or the last (with 70
    // keys, past the last whole vector).
    for (std::size_t n_k : {std::size_t{3}, std::size_t{70}})
      for (std::size_t bad : {std::size_t{0}, std::size_t{29}, n_k - 1})
        for (float sign : {1.0f, -1.0f})
          for (bool with_mask : {false, true}) {
            if (bad >= n_k) continue;
            INFO("n_k " << n_k << " bad key " << bad << " sign " << sign << " mask " << with_mask);
            matrix q(40, 4, 1e-30f), k(n_k, 4, 1e-30f), v(n_k, 4, 1.0f), w(40, n_k), c(40, 4);
            for (std::size_t j = 0; j < 4; ++j) {
              q(1, j) = 1e30f;
              k(bad, j) = sign * 1e30f;
            }
            one_head head(q, k, v, w, c);
            if (with_mask)
              head.args.mask_row = [](const void*, std::size_t, float*, std::size_t) {};
            CHECK_FALSE(kernels::attention_softmax(head.args));
            for (std::size_t j = 0; j < 4; ++j) q(1, j) = 1e-30f;  // now every score is finite
            CHECK(kernels::attention_softmax(head.args));
            // one query row (K and V read in place), the same way
            matrix q1(1, 4, 1e30f), w1(1, n_k), c1(1, 4);
            one_head row(q1, k, v, w1, c1);
            row.args.mask_row = head.args.mask_row;
            CHECK_FALSE(kernels::attention_softmax(row.args));
            for (std::size_t j = 0; j < 4; ++j) q1(0, j) = 1e-30f;
            CHECK(kernels::attention_softmax(row.args));
          }
  });
}

namespace {

// Keys [first, end) visible, from the context: a generation step's sliding window.
struct key_range {
  std::size_t first, end;
};
void range_mask(const void* c, std::size_t, float* e, std::size_t n_k) {
  const auto* r = static_cast<const key_range*>(c);
  for (std::size_t j = 0; j < n_k; ++j)
    if (j < r->first || j >= r->end) e[j] = neg_inf;
}
void range_span(const void* c, std::size_t, std::size_t, std::size_t* first, std::size_t* end) {
  const auto* r = static_cast<const key_range*>(c);
  *first = r->first;
  *end = r->end;
}

struct sunk_rows {
  std::vector<std::vector<float>> rows;  // per head, its rows in order
  static void take(void* c, std::size_t h, std::size_t i0, std::size_t count, const float* w,
                   std::size_t n_k) {
    auto& row = static_cast<sunk_rows*>(c)->rows[h];
    REQUIRE(row.size() == i0 * n_k);  // each head's blocks in order: one task a head here
    row.insert(row.end(), w, w + count * n_k);
  }
};

}  // namespace

// A head whose weights are not kept (streaming) and the rows' sink see the same weights as a
// head that keeps them, and the context is the same; with one query row under a window inside
// the keys (the span's first key past 0, as in a generation step past the window) and with a
// block of rows, against the stage-by-stage reference to 1e-5.
TEST_CASE("the fused kernel's streamed heads and rows' sink see the kept weights") {
  for_each_isa([] {
    for (const std::size_t n_q : {std::size_t{1}, std::size_t{9}}) {
      INFO("n_q " << n_q);
      const std::size_t H = 2, n_k = 150, d = 24;
      const matrix q = random_matrix(n_q, H * d, 41), k = random_matrix(n_k, H * d, 42),
                   v = random_matrix(n_k, H * d, 43);
      const key_range window{37, 101};
      matrix kept(n_q, n_k), c0(n_q, d), c1(n_q, d);
      float* weights[2] = {nullptr, kept.data()};  // head 0 streams, head 1 keeps
      float* context[2] = {c0.data(), c1.data()};
      kernels::attention_args args = args_over(q, k, v, H, weights, context);
      args.mask_row = range_mask;
      args.mask_span = range_span;
      args.mask_is_span = true;
      args.mask_context = &window;
      sunk_rows sunk;
      sunk.rows.resize(H);
      args.rows_sink = sunk_rows::take;
      args.sink_context = &sunk;
      REQUIRE(kernels::attention_softmax(args));
      for (std::size_t h = 0; h < H; ++h) {
        INFO("head " << h);
        REQUIRE(sunk.rows[h].size() == n_q * n_k);
        matrix e = matmul_nt_ref(q.columns(h * d, d), k.columns(h * d, d));
        for (std::size_t i = 0; i < n_q; ++i) range_mask(&window, i, e.row(i), n_k);
        const matrix a = align_softmax_ref(e, align_options{1.0});
        const matrix c = matmul_nn_ref(a, v.columns(h * d, d));
        for (std::size_t i = 0; i < a.size(); ++i) {
          REQUIRE(std::fabs(sunk.rows[h][i] - a.data()[i]) <= 1e-5);
          if (e.data()[i] == neg_inf) REQUIRE(sunk.rows[h][i] == 0.0f);
          if (h == 1) REQUIRE(kept.data()[i] == sunk.rows[h][i]);
        }
        const matrix& got = h == 0 ? c0 : c1;
        for (std::size_t i = 0; i < c.size(); ++i)
          REQUIRE(std::fabs(got.data()[i] - c.data()[i]) <= 1e-5);
      }
    }
  });
}

// additive: |e − e_ref| <= 1e-5 · (1 + Σ|v|) (tanh's absolute error is below 2e-7).
TEST_CASE("additive_scores matches the plain additive reference for any d_a") {
  for_each_isa([] {
    unsigned seed = 100;
    for (std::size_t d_a :
         {std::size_t{1}, std::size_t{5}, std::size_t{16}, std::size_t{37}, std::size_t{128}}) {
      const matrix q = random_matrix(9, 6, seed++), k = random_matrix(11, 4, seed++);
      matrix w_q = random_matrix(d_a, 6, seed++), w_k = random_matrix(d_a, 4, seed++);
      for (std::size_t i = 0; i < w_q.size(); ++i) w_q.data()[i] *= 3.0f;  // reach tanh's tails
      const std::vector<float> v = random_matrix(1, d_a, seed++).to_vector();
      const std::vector<float> b = random_matrix(1, d_a, seed++).to_vector();
      const matrix want = additive_scores_ref(q, k, w_q, w_k, v, b);
      const matrix p = matmul_nt_ref(q, w_q), r = matmul_nt_ref(k, w_k);
      matrix got(9, 11);
      kernels::additive_scores(p.data(), r.data(), v.data(), b.data(), 9, 11, d_a, got.data());
      double vsum = 0.0;
      for (float x : v) vsum += std::fabs(x);
      for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("d_a " << d_a << " entry " << i);
        CHECK(std::fabs(got.data()[i] - want.data()[i]) <= 1e-5 * (1.0 + vsum));
      }
    }
  });
}

// sparsemax / entmax15 threshold search against the sort-based rows: 1e-12 / 1e-9.
TEST_CASE("threshold sparsemax and entmax15 equal the sort-based rows") {
  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t n : sizes)
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> z(n);
      for (auto& x : z) x = u(gen);
      if (trial % 4 == 1)
        for (std::size_t j = 0; j < n; j += 2) z[j] = -inf;
      if (trial % 4 == 2)
        for (auto& x : z) x = std::round(x);  // ties
      if (trial == 3) z[n / 2] = inf;
      if (trial == 7) std::fill(z.begin(), z.end(), -inf);
      if (trial == 11)
        for (auto& x : z) x *= 1e6;  // one key takes all
      std::vector<double> want(n), got(n);
      kernels::sparsemax_row_ref(z.data(), want.data(), n);
      kernels::sparsemax_threshold(z.data(), got.data(), n);
      for (std::size_t j = 0; j < n; ++j) {
        INFO("sparsemax n " << n << " trial " << trial << " j " << j);
        CHECK(std::fabs(got[j] - want[j]) <= 1e-12);
        CHECK((got[j] == 0.0) == (want[j] == 0.0));
      }
      kernels::entmax15_row_ref(z.data(), want.data(), n);
      kernels::entmax15_threshold(z.data(), got.data(), n);
      for (std::size_t j = 0; j < n; ++j) {
        INFO("entmax15 n " << n << " trial " << trial << " j " << j);
        CHECK(std::fabs(got[j] - want[j]) <= 1e-9);
        CHECK((got[j] == 0.0) == (want[j] == 0.0));
      }
    }
}

// The tiled path (B packed whole first) is taken past 512 rows once A exceeds 8 MiB; below that
// even long products go panel by panel. Both, with the row tiles' ragged ends.
TEST_CASE("gemm past the panel path: a large A, tiles of rows and columns") {
  for_each_isa([] {
    for (std::size_t m : {std::size_t{520}, std::size_t{1100}})
      for (bool trans : {false, true}) {
        const std::size_t n = 150, k = 2000;  // 1100 x 2000 floats: 8.4 MiB
        const matrix a = random_matrix(m, k, 21), b = trans ? random_matrix(n, k, 22)
                                                            : random_matrix(k, n, 22);
        const matrix ref = trans ? matmul_nt_ref(a, b) : matmul_nn_ref(a, b);
        std::vector<float> c(m * n);
        kernels::gemm(m, n, k, 1.0f, a.data(), k, b.data(), b.cols(), trans, 0.0f, c.data(), n);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < c.size(); ++i)
          if (!(std::fabs(c[i] - ref.data()[i]) <= 1e-5 * (1.0 + std::sqrt(double(k)))) && ++bad < 3)
            FAIL_CHECK("m " << m << " trans " << trans << " entry " << i);
        CHECK(bad == 0);
      }
  });
}

// gemm over 16-bit B (a checkpoint's F16 / BF16 weights, converted while packed): with A the
// identity, C = op(B) converted, which must equal the scalar conversions of params/safetensors
// for every finite bit pattern (subnormal halves included), in both layouts; inf and NaN
// patterns through a 1 × 1 product (in a sum, 0 · inf would turn a column into NaN).
TEST_CASE("gemm converts F16 and BF16 weights exactly, every bit pattern, both layouts") {
  for_each_isa([] {
    for (auto type : {kernels::element_type::f16, kernels::element_type::bf16}) {
      const bool half = type == kernels::element_type::f16;
      INFO((half ? "f16" : "bf16"));
      auto convert = [half](std::uint16_t b) { return half ? half_to_float(b) : bf16_to_float(b); };
      auto finite = [half](std::uint16_t b) {
        return half ? (b & 0x7c00u) != 0x7c00u : (b & 0x7f80u) != 0x7f80u;
      };
      std::vector<std::uint16_t> patterns, special;
      for (std::uint32_t b = 0; b < 65536; ++b)
        (finite(static_cast<std::uint16_t>(b)) ? patterns : special)
            .push_back(static_cast<std::uint16_t>(b));
      const std::size_t k = 256, n = 250;  // n: not a multiple of any panel width
      matrix eye(k, k);
      for (std::size_t i = 0; i < k; ++i) eye(i, i) = 1.0f;
      for (bool trans : {false, true}) {
        INFO("b_trans " << trans);
        std::size_t bad = 0;
        for (std::size_t start = 0; start < patterns.size(); start += k * n) {
          // op(B) is k × n; stored k × n (ldb n) or n × k (ldb k), one element a pattern.
          std::vector<std::uint16_t> b(k * n, 0);
          for (std::size_t i = 0; i < k * n && start + i < patterns.size(); ++i) b[i] = patterns[start + i];
          std::vector<float> c(k * n);
          kernels::gemm(k, n, k, 1.0f, eye.data(), k, b.data(), type, trans ? k : n, trans, 0.0f,
                        c.data(), n);
          for (std::size_t p = 0; p < k; ++p)
            for (std::size_t j = 0; j < n; ++j) {
              const float want = convert(trans ? b[j * k + p] : b[p * n + j]);
              if (c[p * n + j] != want && ++bad <= 3)
                FAIL_CHECK("pattern " << (trans ? b[j * k + p] : b[p * n + j]) << ": " << c[p * n + j]
                                      << " != " << want);
            }
        }
        CHECK(bad == 0);
      }
      std::vector<float> c(special.size());
      const float one = 1.0f;
      kernels::gemm(1, special.size(), 1, 1.0f, &one, 1, special.data(), type, special.size(),
                    false, 0.0f, c.data(), special.size());
      for (std::size_t j = 0; j < special.size(); ++j) {
        const float want = convert(special[j]);
        INFO("pattern " << special[j]);
        if (std::isnan(want))
          CHECK(std::isnan(c[j]));
        else
          CHECK(c[j] == want);
      }
    }
  });
}

// The product itself on 16-bit B with odd shapes and both row paths, against the float reference
// on the converted matrix.
TEST_CASE("gemm over BF16 weights matches the float product of the converted weights") {
  for_each_isa([] {
    for (std::size_t m : {std::size_t{3}, std::size_t{600}})
      for (bool trans : {false, true}) {
        const std::size_t n = 70, k = 45;
        const matrix a = random_matrix(m, k, 5);
        const matrix bf = random_matrix(trans ? n : k, trans ? k : n, 6);
        std::vector<std::uint16_t> b16(bf.size());
        matrix rounded(bf.rows(), bf.cols());
        for (std::size_t i = 0; i < bf.size(); ++i) {
          std::uint32_t bits;
          std::memcpy(&bits, &bf.data()[i], 4);
          b16[i] = static_cast<std::uint16_t>(bits >> 16);
          rounded.data()[i] = bf16_to_float(b16[i]);
        }
        std::vector<float> c(m * n);
        kernels::gemm(m, n, k, 1.0f, a.data(), k, b16.data(), kernels::element_type::bf16,
                      trans ? k : n, trans, 0.0f, c.data(), n);
        const matrix want = trans ? matmul_nt_ref(a, rounded) : matmul_nn_ref(a, rounded);
        for (std::size_t i = 0; i < c.size(); ++i)
          CHECK(std::fabs(c[i] - want.data()[i]) <= 1e-5 * (1 + std::fabs(want.data()[i])));
      }
  });
}

// One row of A (a generation step) takes the matrix–vector path, which reads B in place: against
// the float64 sum on the converted weights, for F32, F16 and BF16 in both layouts, with alpha and
// beta, on shapes big enough to run on every thread (n·k > 2^18) and with ragged ends (n not a
// multiple of the row groups, k not a multiple of any vector width); the bytes must not depend on
// the number of threads.
// (B stored k × n: n = 1003, rows short enough to be summed in blocks of whole rows, the last
// block ragged; n = 1100, each thread a range of columns.)
// Shapes: B's rows shorter and longer than the sums kept in L1 (gemm.inc's GEMV_COLS, 8,192),
// k below, at and past a multiple of the fixed row blocks (GEMV_BLOCKS, 8).
TEST_CASE("gemm with one row of A equals the plain sum, whatever the threads") {
  for_each_isa([] {
    for (const auto& [n, k] :
         {std::pair<std::size_t, std::size_t>{1003, 777}, {1100, 130}, {8300, 41}, {530, 5}}) {
      const matrix a = random_matrix(1, k, 31), bf = random_matrix(n, k, 32);
      const matrix c0 = random_matrix(1, n, 33);
      for (int type = 0; type < 3; ++type)
        for (bool trans : {false, true}) {
          INFO("n " << n << " type " << type << " trans " << trans);
          // B stored n × k (trans) or k × n, each element rounded to the type.
          std::vector<std::uint16_t> b16(n * k);
          std::vector<float> b32(n * k), value(n * k);
          for (std::size_t j = 0; j < n; ++j)
            for (std::size_t p = 0; p < k; ++p) {
              const std::size_t at = trans ? j * k + p : p * n + j;
              float x = bf(j, p);
              std::uint32_t bits;
              std::memcpy(&bits, &x, 4);
              // F16: x's sign and top mantissa bits with an exponent for [0.25, 2)
              const auto half = static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) |
                                                           ((13u + (j + p) % 3u) << 10) |
                                                           ((bits >> 13) & 0x3ffu));
              b16[at] = type == 1 ? half : static_cast<std::uint16_t>(bits >> 16);
              b32[at] = x;
              value[at] = type == 0   ? x
                          : type == 1 ? half_to_float(b16[at])
                                      : bf16_to_float(b16[at]);
            }
          auto run = [&](std::size_t threads) {
            kernels::set_threads(threads);
            std::vector<float> c(c0.data(), c0.data() + n);
            if (type == 0)
              kernels::gemm(1, n, k, 0.5f, a.data(), k, b32.data(), trans ? k : n, trans, 2.0f,
                            c.data(), n);
            else
              kernels::gemm(1, n, k, 0.5f, a.data(), k, b16.data(),
                            type == 1 ? kernels::element_type::f16 : kernels::element_type::bf16,
                            trans ? k : n, trans, 2.0f, c.data(), n);
            return c;
          };
          const std::size_t before = kernels::threads();
          const std::vector<float> one = run(1), two = run(2), three = run(3);
          kernels::set_threads(before);
          CHECK(std::memcmp(one.data(), two.data(), n * sizeof(float)) == 0);
          CHECK(std::memcmp(one.data(), three.data(), n * sizeof(float)) == 0);
          std::size_t bad = 0;
          for (std::size_t j = 0; j < n; ++j) {
            double sum = 0.0, mag = 0.0;
            for (std::size_t p = 0; p < k; ++p) {
              const double t = double(a(0, p)) * value[trans ? j * k + p : p * n + j];
              sum += t;
              mag += std::fabs(t);
            }
            const double want = 0.5 * sum + 2.0 * c0(0, j);
            if (!(std::fabs(two[j] - want) <= 1e-6 * (1.0 + mag)) && ++bad <= 3)
              FAIL_CHECK("column " << j << ": " << two[j] << " != " << want);
          }
          CHECK(bad == 0);
        }
    }
  });
}

// gemm over rows a decoder gives (GGUF's quantized weights): the decoder here hands out rows of
// a float matrix, counting the elements it was asked for. On every path — one row of A (the
// matrix–vector path, 1 and 2 threads the same bytes), a few rows (panels decoded chunk by
// chunk), a large A (B decoded and packed whole) — C equals the float product, and each
// element of B is decoded once per panel path product (no whole-matrix copy, no repeats).
namespace {
struct counted_rows {
  const matrix* b;
  mutable std::size_t asked = 0;
};
void decode_counted(const void* context, std::size_t row, std::size_t first, std::size_t count,
                    float* out) {
  const auto& c = *static_cast<const counted_rows*>(context);
#pragma omp atomic
  c.asked += count;
  std::memcpy(out, c.b->data() + row * c.b->cols() + first, count * sizeof(float));
}
}  // namespace

TEST_CASE("gemm over decoded rows equals the float product on every path") {
  for_each_isa([] {
    const std::size_t n = 150, k = 1056;  // k: two 512-deep chunks and a ragged one
    const matrix b = random_matrix(n, k, 41);
    for (std::size_t m : {std::size_t{1}, std::size_t{37}, std::size_t{2100}}) {
      INFO("m " << m);
      const matrix a = random_matrix(m, k, 42);
      const matrix ref = matmul_nt_ref(a, b);
      counted_rows rows{&b};
      kernels::row_decoder d;
      d.context = &rows;
      d.decode = decode_counted;
      d.bytes = reinterpret_cast<const unsigned char*>(b.data());
      d.row_bytes = k * sizeof(float);
      d.block = 32;
      d.block_bytes = 32 * sizeof(float);
      std::vector<float> c(m * n);
      kernels::gemm(m, n, k, 1.0f, a.data(), k, d, 0.0f, c.data(), n);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < c.size(); ++i)
        if (!(std::fabs(c[i] - ref.data()[i]) <= 1e-5 * (1.0 + std::sqrt(double(k)))) && ++bad < 3)
          FAIL_CHECK("entry " << i << ": " << c[i] << " != " << ref.data()[i]);
      CHECK(bad == 0);
      CHECK(rows.asked == n * k);  // every element decoded exactly once
      if (m == 1) {
        const std::size_t before = kernels::threads();
        std::vector<float> one(n), two(n);
        kernels::set_threads(1);
        kernels::gemm(1, n, k, 1.0f, a.data(), k, d, 0.0f, one.data(), n);
        kernels::set_threads(2);
        kernels::gemm(1, n, k, 1.0f, a.data(), k, d, 0.0f, two.data(), n);
        kernels::set_threads(before);
        CHECK(std::memcmp(one.data(), two.data(), n * sizeof(float)) == 0);
      }
    }
  });
}

// ggml's Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 and Q2_K-Q6_K rows, with row_decoder::format saying so, are
// read in place by the one-row product, multiplying as it decodes: the same bytes as the rows
// decoded into floats first, on every instruction set and thread count, and never a decode call.
// Rows: 150 (runs of four and leftover rows on two threads); k = 2,304 (9 blocks of 256, 72 of 32).
// The decoders here are written from the formats' formulas (element e of a block):
//   Q8_0 (34 bytes: f16 d, 32 int8 q)  x = float(q_e) · d
//   Q4_0 (18: f16 d, 16 bytes of nibbles), Q4_1 (20: d, m, nibbles), Q5_0 (22: d, u32 qh,
//        nibbles), Q5_1 (24: d, m, qh, nibbles): v_e = the low nibble of byte e (e < 16) or the
//        high nibble of byte e − 16, Q5 with bit e of qh as bit 4; Q4_0 x = (v − 8) · d, Q5_0
//        x = (v − 16) · d, Q4_1 and Q5_1 x = v · d + m
//   Q2_K (84: 16 bytes of 4-bit scale | 4-bit min, 64 of 2-bit values, f16 d, dmin) and Q3_K
//        (110: hmask 32, 64 bytes of 2-bit values, 12 bytes of 6-bit scales, f16 d): halves of
//        128; in a half, l + 32 j takes bits 2j, 2j + 1 of byte l of the half's 32; group e / 16;
//        Q2_K x = (d · scale) · v − dmin · min; Q3_K q = v − 4 unless bit 4 half + j of
//        hmask[l] is set, its scale (6 bits, − 32) with the low 4 bits in nibble g / 8 of byte
//        g mod 8 and the high 2 at bit 2 (g / 4) of byte 8 + g mod 4; x = (d · scale) · q
//   Q4_K (144: f16 d, dmin, 12 bytes of 6-bit scales and mins, 128 of nibbles) and Q5_K (176:
//        the same with 32 bytes qh before the nibbles): group g = e / 32 takes the low (g even)
//        or high nibbles of bytes [32 (g/2), 32 (g/2) + 32), Q5_K adds bit g of qh[e mod 32] as
//        bit 4; x = (d · scale_g) · v − dmin · min_g
//   Q6_K (210: ql 128, qh 64, 16 int8 scales, f16 d): halves of 128; in a half, l + 32 j takes
//        the low (j < 2) or high nibble of ql[l + 32 (j mod 2)] and bits 2j, 2j + 1 of qh[l] as
//        bits 4, 5, minus 32, scale 2j + l/16; x = (d · scale) · q
// Scales include a subnormal half, a negative one and zero; the other bytes are random. These
// decoders give the library's floats (ggml_to_float), byte for byte.
namespace {
enum class block_kind { q8_0, q4_0, q4_1, q5_0, q5_1, q2_k, q3_k, q4_k, q5_k, q6_k };
struct block_rows {
  const unsigned char* bytes;
  std::size_t row_bytes;
  block_kind kind;
  mutable std::size_t asked = 0;
};
float half_at(const unsigned char* p) {
  return half_to_float(static_cast<std::uint16_t>(p[0] | p[1] << 8));
}
float q45_k_element(const unsigned char* block, std::size_t e, bool five) {
  const std::size_t g = e / 32, l = e % 32;
  const unsigned char* s = block + 4;
  const int sc = g < 4 ? s[g] & 63 : (s[g + 4] & 15) | (s[g - 4] >> 6) << 4;
  const int mn = g < 4 ? s[g + 4] & 63 : (s[g + 4] >> 4) | (s[g] >> 6) << 4;
  int v = (block[(five ? 48 : 16) + g / 2 * 32 + l] >> (g % 2 * 4)) & 15;
  if (five) v |= ((block[16 + l] >> g) & 1) << 4;
  const float dl = half_at(block) * static_cast<float>(sc);
  const float ml = half_at(block + 2) * static_cast<float>(mn);
  volatile float t = dl * static_cast<float>(v);  // rounded before the difference
  return t - ml;
}
// Q4_0 / Q4_1 / Q5_0 / Q5_1's element e < 32 of a block.
float legacy_element(const unsigned char* block, std::size_t e, bool five, bool with_min) {
  const std::size_t qs = 2 + (with_min ? 2 : 0) + (five ? 4 : 0);
  int v = e < 16 ? block[qs + e] & 15 : block[qs + e - 16] >> 4;
  if (five) {
    const unsigned char* qh = block + (with_min ? 4 : 2);
    v |= ((qh[e / 8] >> (e % 8)) & 1) << 4;
  }
  const float d = half_at(block);
  if (!with_min) return static_cast<float>(v - (five ? 16 : 8)) * d;
  volatile float t = static_cast<float>(v) * d;  // rounded before the sum
  return t + half_at(block + 2);
}
float q23_k_element(const unsigned char* block, std::size_t e, bool three) {
  const std::size_t half = e / 128, j = e % 128 / 32, l = e % 32, g = e / 16;
  const int v = (block[(three ? 32 : 16) + 32 * half + l] >> (2 * j)) & 3;
  if (!three) {
    const float dl = half_at(block + 80) * static_cast<float>(block[g] & 15);
    const float ml = half_at(block + 82) * static_cast<float>(block[g] >> 4);
    volatile float t = dl * static_cast<float>(v);  // rounded before the difference
    return t - ml;
  }
  const unsigned char* s = block + 96;
  const int scale =
      (((s[g % 8] >> (4 * (g / 8))) & 15) | ((s[8 + g % 4] >> (2 * (g / 4))) & 3) << 4) - 32;
  const int q = v - ((block[l] >> (4 * half + j)) & 1 ? 0 : 4);
  return half_at(block + 108) * static_cast<float>(scale) * static_cast<float>(q);
}
float q6_k_element(const unsigned char* block, std::size_t e) {
  const std::size_t half = e / 128, j = e % 128 / 32, l = e % 32;
  const int low = (block[64 * half + l + 32 * (j % 2)] >> (4 * (j / 2))) & 15;
  const int q = (low | ((block[128 + 32 * half + l] >> (2 * j)) & 3) << 4) - 32;
  const auto scale = static_cast<std::int8_t>(block[192 + 8 * half + 2 * j + l / 16]);
  return half_at(block + 208) * static_cast<float>(scale) * static_cast<float>(q);
}
float block_element(const unsigned char* row, block_kind kind, std::size_t e) {
  switch (kind) {
    case block_kind::q8_0:
      return static_cast<float>(static_cast<std::int8_t>(row[e / 32 * 34 + 2 + e % 32])) *
             half_at(row + e / 32 * 34);
    case block_kind::q4_0:
      return legacy_element(row + e / 32 * 18, e % 32, false, false);
    case block_kind::q4_1:
      return legacy_element(row + e / 32 * 20, e % 32, false, true);
    case block_kind::q5_0:
      return legacy_element(row + e / 32 * 22, e % 32, true, false);
    case block_kind::q5_1:
      return legacy_element(row + e / 32 * 24, e % 32, true, true);
    case block_kind::q2_k:
      return q23_k_element(row + e / 256 * 84, e % 256, false);
    case block_kind::q3_k:
      return q23_k_element(row + e / 256 * 110, e % 256, true);
    case block_kind::q4_k:
      return q45_k_element(row + e / 256 * 144, e % 256, false);
    case block_kind::q5_k:
      return q45_k_element(row + e / 256 * 176, e % 256, true);
    case block_kind::q6_k:
      return q6_k_element(row + e / 256 * 210, e % 256);
  }
  return 0.0f;
}
void decode_blocks(const void* context, std::size_t row, std::size_t first, std::size_t count,
                   float* out) {
  const auto& c = *static_cast<const block_rows*>(context);
#pragma omp atomic
  c.asked += count;
  for (std::size_t e = first; e < first + count; ++e)
    out[e - first] = block_element(c.bytes + row * c.row_bytes, c.kind, e);
}

struct format_case {
  kernels::row_decoder::in_place format;
  block_kind kind;
  ggml_type type;
  std::size_t block, block_bytes, scale_at, scales;  // where the f16 scales are, how many
  const char* name;
};

// n rows of k elements of random blocks, their f16 scales drawn from a subnormal half, a negative
// one, zero and three normal ones.
std::vector<unsigned char> random_blocks(const format_case& f, std::size_t n, std::size_t k) {
  std::vector<unsigned char> bytes(n * (k / f.block) * f.block_bytes);
  std::mt19937 gen(47);
  std::uniform_int_distribution<int> byte(0, 255);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(byte(gen));
  const std::uint16_t scales[] = {0x2e66, 0xae66, 0x0003, 0x0000, 0x3c00, 0x1800};
  for (std::size_t at = 0, i = 0; at < bytes.size(); at += f.block_bytes, ++i)
    for (std::size_t h = 0; h < f.scales; ++h) {  // d (and dmin)
      const std::uint16_t d = scales[(i + h) % 6];
      bytes[at + f.scale_at + 2 * h] = static_cast<unsigned char>(d & 0xff);
      bytes[at + f.scale_at + 2 * h + 1] = static_cast<unsigned char>(d >> 8);
    }
  return bytes;
}

// y_j = 0.5 Σ_p a_p x_jp + 0.25 (C was all ones) within 1e-6 (1 + Σ|a x|), summed in double.
void check_against_double_sums(const block_rows& rows, std::size_t n, std::size_t k,
                               const matrix& a, const std::vector<float>& y) {
  std::size_t bad = 0;
  std::vector<float> x(k);
  for (std::size_t j = 0; j < n; ++j) {
    decode_blocks(&rows, j, 0, k, x.data());
    double sum = 0.0, mag = 0.0;
    for (std::size_t p = 0; p < k; ++p) {
      sum += double(a.data()[p]) * x[p];
      mag += std::fabs(double(a.data()[p]) * x[p]);
    }
    const double want = 0.5 * sum + 0.25;
    if (!(std::fabs(y[j] - want) <= 1e-6 * (1.0 + mag)) && ++bad <= 3)
      FAIL_CHECK("row " << j << ": " << y[j] << " != " << want);
  }
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("Q2_K's, Q3_K's and Q6_K's sixteen scales converted in vectors are their plain forms'") {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> byte(0, 255);
  std::size_t bad = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    unsigned char s[16];  // Q3_K reads the first 12
    for (unsigned char& b : s) b = static_cast<unsigned char>(byte(gen));
    const float d = trial % 2 ? 0.37f : -1.5e-5f;
    const float dmin = trial % 3 ? 2.5f : -0.011f;
    float dl3[16], dl2[16], ml2[16], dl6[16];
    ggml_layout::q3_k_group_scales(s, d, dl3);
    ggml_layout::q2_k_group_scales(s, d, dmin, dl2, ml2);
    ggml_layout::q6_k_group_scales(s, d, dl6);
    for (int g = 0; g < 16; ++g)
      if ((dl3[g] != d * static_cast<float>(ggml_layout::q3_k_scale(s, g)) ||
           dl2[g] != d * static_cast<float>(s[g] & 15) ||
           ml2[g] != dmin * static_cast<float>(s[g] >> 4) ||
           dl6[g] != d * static_cast<float>(static_cast<signed char>(s[g]))) &&
          ++bad <= 3)
        FAIL_CHECK("trial " << trial << ", group " << g << ": " << dl3[g] << ", " << dl2[g] << ", "
                            << ml2[g] << ", " << dl6[g]);
  }
  CHECK(bad == 0);
}

TEST_CASE("every ggml block type read in place gives the bytes of the rows decoded first") {
  using in_place = kernels::row_decoder::in_place;
  const std::size_t n = 150, k = 2304;
  const matrix a = random_matrix(1, k, 48);
  for (const format_case& f :
       {format_case{in_place::q8_0, block_kind::q8_0, ggml_type::q8_0, 32, 34, 0, 1, "Q8_0"},
        format_case{in_place::q4_0, block_kind::q4_0, ggml_type::q4_0, 32, 18, 0, 1, "Q4_0"},
        format_case{in_place::q4_1, block_kind::q4_1, ggml_type::q4_1, 32, 20, 0, 2, "Q4_1"},
        format_case{in_place::q5_0, block_kind::q5_0, ggml_type::q5_0, 32, 22, 0, 1, "Q5_0"},
        format_case{in_place::q5_1, block_kind::q5_1, ggml_type::q5_1, 32, 24, 0, 2, "Q5_1"},
        format_case{in_place::q2_k, block_kind::q2_k, ggml_type::q2_k, 256, 84, 80, 2, "Q2_K"},
        format_case{in_place::q3_k, block_kind::q3_k, ggml_type::q3_k, 256, 110, 108, 1, "Q3_K"},
        format_case{in_place::q4_k, block_kind::q4_k, ggml_type::q4_k, 256, 144, 0, 2, "Q4_K"},
        format_case{in_place::q5_k, block_kind::q5_k, ggml_type::q5_k, 256, 176, 0, 2, "Q5_K"},
        format_case{in_place::q6_k, block_kind::q6_k, ggml_type::q6_k, 256, 210, 208, 1, "Q6_K"}}) {
    INFO("format " << std::string(f.name));
    const std::vector<unsigned char> bytes = random_blocks(f, n, k);
    const std::size_t row_bytes = k / f.block * f.block_bytes;
    block_rows rows{bytes.data(), row_bytes, f.kind};
    {  // the decoder here agrees with the library's (params/ggml_types, checked against NumPy)
      std::vector<float> mine(n * k), library(n * k);
      for (std::size_t j = 0; j < n; ++j) decode_blocks(&rows, j, 0, k, mine.data() + j * k);
      ggml_to_float(f.type, bytes.data(), 0, n * k, library.data());
      CHECK(std::memcmp(mine.data(), library.data(), n * k * sizeof(float)) == 0);
    }
    kernels::row_decoder d;
    d.context = &rows;
    d.decode = decode_blocks;
    d.bytes = bytes.data();
    d.row_bytes = row_bytes;
    d.block = f.block;
    d.block_bytes = f.block_bytes;
    for_each_isa([&] {
      const std::size_t before = kernels::threads();
      for (std::size_t threads : {std::size_t{1}, std::size_t{2}}) {
        INFO("threads " << threads);
        kernels::set_threads(threads);
        std::vector<float> decoded(n, 1.0f), read_in_place(n, 1.0f);
        rows.asked = 0;
        d.format = in_place::none;
        kernels::gemm(1, n, k, 0.5f, a.data(), k, d, 0.25f, decoded.data(), n);
        CHECK(rows.asked == n * k);
        d.format = f.format;
        kernels::gemm(1, n, k, 0.5f, a.data(), k, d, 0.25f, read_in_place.data(), n);
        CHECK(rows.asked == n * k);  // nothing more decoded
        CHECK(std::memcmp(decoded.data(), read_in_place.data(), n * sizeof(float)) == 0);
        check_against_double_sums(rows, n, k, a, read_in_place);
      }
      kernels::set_threads(before);
    });
  }
}
