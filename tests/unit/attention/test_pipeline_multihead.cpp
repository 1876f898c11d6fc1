// Multi-head attention, head combination, positions in the pipeline, memory and ConvS2S values:
// each checked against a second computation (single-head runs on sliced weights, hand algebra).
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "attention/pipeline.h"
#include "attention/registry.h"
#include "error.h"
#include "helpers.h"

using namespace attnviz;
using attnviz::testing::check_close;
using attnviz::testing::mat;
using attnviz::testing::random_matrix;
using attnviz::testing::self_input;
using attnviz::testing::store;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace pipeline_multihead_cases {

namespace {

tensor_data tensor(const matrix& m) {
  return {{static_cast<std::int64_t>(m.rows()), static_cast<std::int64_t>(m.cols())}, m.to_vector()};
}

// Rows [first, first + count) of m.
matrix row_block(const matrix& m, std::size_t first, std::size_t count) {
  std::vector<float> v(m.row(first), m.row(first) + count * m.cols());
  return matrix(count, m.cols(), std::move(v));
}

void check_same(const matrix& a, const matrix& b, double tol = 1e-6) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  std::vector<double> want(b.values().begin(), b.values().end());
  check_close(a, want, tol);
}

const std::size_t n = 5, d = 6, H = 3, dk = 2;
const matrix X = random_matrix(n, d, 1);
const matrix WQ = random_matrix(H * dk, d, 2), WK = random_matrix(H * dk, d, 3),
             WV = random_matrix(H * dk, d, 4), WO = random_matrix(d, H*dk, 5);

param_store mha_store() {
  return store({{"q_proj.weight", tensor(WQ)},
                {"k_proj.weight", tensor(WK)},
                {"v_proj.weight", tensor(WV)},
                {"out_proj.weight", tensor(WO)}});
}

}  // namespace

TEST_CASE("each head equals a single-head run on its block of projection rows") {
  auto p = mha_store();
  attention_spec spec;
  spec.heads = H;
  const auto r = run_attention(self_input(X), spec, p);
  REQUIRE(r.heads.size() == H);
  CHECK(r.d_k == dk);
  for (std::size_t h = 0; h < H; ++h) {
    auto single = store({{"q_proj.weight", tensor(row_block(WQ, h * dk, dk))},
                         {"k_proj.weight", tensor(row_block(WK, h * dk, dk))},
                         {"v_proj.weight", tensor(row_block(WV, h * dk, dk))}});
    attention_spec one;
    one.project = true;
    one.d_k = dk;
    const auto s = run_attention(self_input(X), one, single);
    INFO("head " << h);
    check_same(r.heads[h].scores, s.heads[0].scores);
    check_same(r.heads[h].weights, s.heads[0].weights);
    check_same(r.heads[h].context, s.heads[0].context);
  }
}

TEST_CASE("concat output = [C_1 C_2 C_3] W^O^T + b; weighted with equal kappa = concat / H") {
  auto p = mha_store();
  attention_spec spec;
  spec.heads = H;
  const auto r = run_attention(self_input(X), spec, p);
  matrix cat(n, H * dk);
  for (std::size_t h = 0; h < H; ++h)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < dk; ++c) cat(i, h * dk + c) = r.heads[h].context(i, c);
  check_same(r.output, matmul_nt_ref(cat, WO), 1e-5);

  auto pb = store({{"q_proj.weight", tensor(WQ)},
                   {"k_proj.weight", tensor(WK)},
                   {"v_proj.weight", tensor(WV)},
                   {"out_proj.weight", tensor(WO)},
                   {"out_proj.bias", {{6}, {1, 2, 3, 4, 5, 6}}}});
  const auto rb = run_attention(self_input(X), spec, pb);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c)
      CHECK(rb.output(i, c) == doctest::Approx(r.output(i, c) + static_cast<float>(c + 1)));

  spec.combine = head_combine::weighted;
  auto pw = mha_store();  // seeded kappa would be all ones; from a file it must be given
  CHECK_THROWS_AS(run_attention(self_input(X), spec, pw), input_error);
  auto pe = store({{"q_proj.weight", tensor(WQ)},
                   {"k_proj.weight", tensor(WK)},
                   {"v_proj.weight", tensor(WV)},
                   {"out_proj.weight", tensor(WO)},
                   {"combine.kappa", {{3}, {2, 2, 2}}}});
  const auto rw = run_attention(self_input(X), spec, pe);
  REQUIRE(rw.head_share.size() == H);
  for (double s : rw.head_share) CHECK(s == doctest::Approx(1.0 / 3));
  for (std::size_t i = 0; i < rw.output.size(); ++i)
    CHECK(rw.output.data()[i] == doctest::Approx(r.output.data()[i] / 3.0).epsilon(1e-5));
}

TEST_CASE("weighted with kappa = (0, 1, 0) is head 2 through its own columns of W^O") {
  auto p = store({{"q_proj.weight", tensor(WQ)},
                  {"k_proj.weight", tensor(WK)},
                  {"v_proj.weight", tensor(WV)},
                  {"out_proj.weight", tensor(WO)},
                  {"combine.kappa", {{3}, {0, 5, 0}}}});
  attention_spec spec;
  spec.heads = H;
  spec.combine = head_combine::weighted;
  const auto r = run_attention(self_input(X), spec, p);
  check_same(r.output, matmul_nt_ref(r.heads[1].context, WO.columns(dk, dk)), 1e-6);

  auto bad = store({{"q_proj.weight", tensor(WQ)},
                    {"k_proj.weight", tensor(WK)},
                    {"v_proj.weight", tensor(WV)},
                    {"out_proj.weight", tensor(WO)},
                    {"combine.kappa", {{3}, {1, -1, 0}}}});
  CHECK_THROWS_AS(run_attention(self_input(X), spec, bad), input_error);
}

TEST_CASE("torch packed in_proj_weight splits into Q, K, V rows and matches the separate form") {
  matrix packed(3 * d, d);
  std::copy(WQ.values().begin(), WQ.values().end(), packed.data());
  std::copy(WK.values().begin(), WK.values().end(), packed.data() + d * d);
  std::copy(WV.values().begin(), WV.values().end(), packed.data() + 2 * d * d);
  auto p = store({{"in_proj_weight", tensor(packed)},
                  {"in_proj_bias", {{18}, std::vector<float>(18, 0.0f)}},
                  {"out_proj.weight", tensor(WO)},
                  {"out_proj.bias", {{6}, std::vector<float>(6, 0.0f)}}});
  attention_spec spec;
  spec.heads = H;
  const auto a = run_attention(self_input(X), spec, p);
  auto q = mha_store();
  const auto b = run_attention(self_input(X), spec, q);
  for (std::size_t h = 0; h < H; ++h) check_same(a.heads[h].weights, b.heads[h].weights);
  check_same(a.output, b.output);
  CHECK(p.unused_file_tensors().empty());
}

TEST_CASE("heads must divide d_model unless --dk is given; names of per-head parameters") {
  auto p = param_store::seeded(1);
  attention_spec spec;
  spec.heads = 4;  // d = 6
  CHECK_THROWS_AS(run_attention(self_input(X), spec, p), usage_error);
  spec.d_k = 3;
  spec.score = "general";
  auto q = param_store::seeded(1);
  const auto r = run_attention(self_input(X), spec, q);
  CHECK(r.heads.size() == 4);
  CHECK(r.output.cols() == d);
  std::vector<std::string> names;
  for (const auto& [name, t] : q.used()) names.push_back(name);
  CHECK(names == std::vector<std::string>{"q_proj.weight", "k_proj.weight", "v_proj.weight",
                                          "heads.0.score.W", "heads.1.score.W", "heads.2.score.W",
                                          "heads.3.score.W", "out_proj.weight"});
  CHECK(q.used()[0].second.shape == std::vector<std::int64_t>{12, 6});
  CHECK(q.used()[7].second.shape == std::vector<std::int64_t>{6, 12});
}

TEST_CASE("--heads 1 is multi-head with one head: W^O applied, names as single-head") {
  auto p = param_store::seeded(2);
  attention_spec spec;
  spec.heads = 1;
  spec.score = "additive";
  const auto r = run_attention(self_input(X), spec, p);
  CHECK(r.heads.size() == 1);
  CHECK(r.multihead());
  const matrix wo = p.require_matrix("out_proj.weight", d, d);
  check_same(r.output, matmul_nt_ref(r.heads[0].context, wo), 1e-6);
  CHECK(p.used()[3].first == "score.W_q");
}

TEST_CASE("mean and max over heads") {
  attention_result r;
  r.heads.resize(2);
  r.heads[0].weights = mat(1, 2, {0.2f, 0.8f});
  r.heads[1].weights = mat(1, 2, {0.6f, 0.4f});
  check_close(aggregate_heads(r, head_aggregate::mean), {0.4, 0.6});
  check_close(aggregate_heads(r, head_aggregate::max), {0.6, 0.8});
}

TEST_CASE("alibi in the pipeline: scores differ from plain ones by exactly -m_h |i - j|") {
  auto p1 = param_store::seeded(4), p2 = param_store::seeded(4);
  attention_spec plain;
  plain.heads = 2;
  attention_spec alibi = plain;
  alibi.position = position_scheme::alibi;
  alibi.alibi_slope = 0.5;
  const auto a = run_attention(self_input(X), plain, p1);
  const auto b = run_attention(self_input(X), alibi, p2);
  for (std::size_t h = 0; h < 2; ++h) {
    const double m = h == 0 ? 0.5 : 0.25;
    CHECK(b.heads[h].alibi_slope == m);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        CHECK(b.heads[h].scores(i, j) - a.heads[h].scores(i, j) ==
              doctest::Approx(-m * std::fabs(double(i) - double(j))).epsilon(1e-5));
  }
}

TEST_CASE("without positions a repeated token attends uniformly; sinusoidal and rope break it") {
  const matrix same(6, 4, 0.7f);
  attention_spec spec;  // raw scaled_dot
  auto p = param_store::seeded(0);
  const auto none = run_attention(self_input(same), spec, p);
  for (float w : none.heads[0].weights.values()) CHECK(w == doctest::Approx(1.0 / 6));
  spec.position = position_scheme::sinusoidal;
  const auto sin = run_attention(self_input(same), spec, p);
  // e_ij = (x + PE_i) . (x + PE_j) / sqrt(4), PE from the closed form
  for (std::size_t i = 0; i < 6; ++i)
    for (std::size_t j = 0; j < 6; ++j) {
      double e = 0.0;
      for (std::size_t c = 0; c < 4; ++c) {
        const double w = c < 2 ? 1.0 : 0.01;  // 1 / 10000^(2i/d) for 2i = 0, 2
        const double pi = c % 2 ? std::cos(w * double(i)) : std::sin(w * double(i));
        const double pj = c % 2 ? std::cos(w * double(j)) : std::sin(w * double(j));
        e += (0.7 + pi) * (0.7 + pj);
      }
      CHECK(sin.heads[0].scores(i, j) == doctest::Approx(e / 2.0).epsilon(1e-5));
    }
  CHECK(sin.heads[0].weights(0, 0) != doctest::Approx(sin.heads[0].weights(0, 3)));
  spec.position = position_scheme::rope;
  const auto rope = run_attention(self_input(same), spec, p);
  for (std::size_t i = 0; i + 1 < 6; ++i)  // a function of i - j only
    for (std::size_t j = 0; j + 1 < 6; ++j)
      CHECK(rope.heads[0].scores(i + 1, j + 1) ==
            doctest::Approx(rope.heads[0].scores(i, j)).epsilon(1e-5));
  CHECK(rope.heads[0].weights(0, 0) > rope.heads[0].weights(0, 5));
}

TEST_CASE("memory view: weights from the keys, context read from the separate values") {
  attention_input in = self_input(X);
  const matrix values = random_matrix(n, 3, 9);
  in.values = values;
  in.value_tokens = {"a", "b", "c", "d", "e"};
  auto p = param_store::seeded(0);
  attention_spec spec;
  const auto r = run_attention(in, spec, p);
  CHECK(r.values == value_source::separate);
  check_same(r.heads[0].context, matmul_nn_ref(r.heads[0].weights, values), 1e-6);
  in.values = random_matrix(n - 1, 3, 9);
  CHECK_THROWS_AS(run_attention(in, spec, p), usage_error);
}

TEST_CASE("ConvS2S values: v_j = z_j + e_j, the projected keys plus the embeddings") {
  auto p = param_store::seeded(6);
  attention_spec spec;
  spec.project = true;
  spec.convs2s = true;
  const auto r = run_attention(self_input(X), spec, p);
  const matrix wk = p.require_matrix("k_proj.weight", d, d);
  matrix v = matmul_nt_ref(X, wk);
  for (std::size_t i = 0; i < v.size(); ++i) v.data()[i] += X.data()[i];
  check_same(r.heads[0].context, matmul_nn_ref(r.heads[0].weights, v), 1e-5);
  for (const auto& [name, t] : p.used()) CHECK(name != "v_proj.weight");
  spec.d_k = 3;  // keys of size 3 cannot be added to embeddings of size 6
  auto q = param_store::seeded(6);
  CHECK_THROWS_AS(run_attention(self_input(X), spec, q), usage_error);
}

}  // namespace pipeline_multihead_cases
