// Mean/max over heads, attention rollout and attention flow, by hand on two tokens.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "analysis/attention_flow.h"
#include "analysis/layer_maps.h"
#include "error.h"
#include "helpers.h"

using namespace attnviz;

namespace {

// Layer l, head h of [layers, heads, 2, 2]: A = [[1, 0], [x, 1 − x]].
std::vector<float> causal_maps(const std::vector<std::vector<float>>& x) {
  std::vector<float> out;
  for (const auto& layer : x)
    for (const float v : layer) out.insert(out.end(), {1.0f, 0.0f, v, 1.0f - v});
  return out;
}

}  // namespace

TEST_CASE("mean and max over the chosen layers and heads") {
  const auto data = causal_maps({{0.5f, 0.1f}, {0.9f, 0.3f}});
  const model_maps m{data.data(), 2, 2, 2, {}};
  const matrix mean = reduce_maps(m, {0, 1}, {0, 1}, map_reduce::mean);
  CHECK(mean(1, 0) == doctest::Approx((0.5 + 0.1 + 0.9 + 0.3) / 4));
  const matrix max = reduce_maps(m, {1}, {0, 1}, map_reduce::max);
  CHECK(max(1, 0) == doctest::Approx(0.9));
  CHECK(max(1, 1) == doctest::Approx(0.7));
  CHECK(max(0, 1) == 0.0f);
}

TEST_CASE("rollout: ½ A + ½ I per layer, multiplied through the layers in order") {
  // one head per layer, A = [[1, 0], [0.5, 0.5]]: Â = [[1, 0], [0.25, 0.75]]
  const auto data = causal_maps({{0.5f}, {0.5f}});
  const model_maps m{data.data(), 2, 1, 2, {}};
  const matrix one = attention_rollout(m, {0});
  CHECK(one(1, 0) == doctest::Approx(0.25));
  CHECK(one(1, 1) == doctest::Approx(0.75));
  const matrix two = attention_rollout(m, {0, 1});  // Â Â
  CHECK(two(0, 0) == doctest::Approx(1.0));
  CHECK(two(1, 0) == doctest::Approx(0.25 + 0.75 * 0.25));
  CHECK(two(1, 1) == doctest::Approx(0.5625));
  CHECK(two(0, 1) == 0.0f);
  // the heads are averaged first: heads x = 0 and x = 1 give Ā = [[1, 0], [0.5, 0.5]]
  const auto pair = causal_maps({{0.0f, 1.0f}});
  const matrix avg = attention_rollout(model_maps{pair.data(), 1, 2, 2, {}}, {0});
  CHECK(avg(1, 0) == doctest::Approx(0.25));
}

TEST_CASE("rollout of maps that count the residual already: the plain product, no identity") {
  const auto data = causal_maps({{0.5f}, {0.25f}});  // layer 0: row 1 = [½, ½]; layer 1: [¼, ¾]
  model_maps m{data.data(), 2, 1, 2, {}};
  m.residual = 0.0;
  const matrix one = attention_rollout(m, {0});
  CHECK(one(1, 0) == doctest::Approx(0.5));
  const matrix two = attention_rollout(m, {0, 1});  // A_1 A_0: row 1 = [¼ + ¾·½, ¾·½]
  CHECK(two(1, 0) == doctest::Approx(0.25 + 0.75 * 0.5));
  CHECK(two(1, 1) == doctest::Approx(0.375));
  const matrix ref = attention_rollout_ref(m, {0, 1});
  CHECK(ref(1, 0) == doctest::Approx(two(1, 0)));
  const std::vector<double> u = rollout_column_sums(m, {0, 1});
  CHECK(u[0] == doctest::Approx(1.0 + two(1, 0)));
  // a row that sums to 0 (nothing reached it) stays the identity's rather than dividing by 0
  std::vector<float> empty(4, 0.0f);
  model_maps none{empty.data(), 1, 1, 2, {}};
  none.residual = 0.0;
  const matrix kept = attention_rollout(none, {0});
  CHECK(kept(0, 0) == 1.0f);
  CHECK(kept(1, 1) == 1.0f);
  CHECK(kept(1, 0) == 0.0f);
}

TEST_CASE("flow: the maximum flow through the layered graph of Â") {
  const auto data = causal_maps({{0.5f}, {0.5f}});
  const model_maps m{data.data(), 2, 1, 2, {}};
  const matrix one = attention_flow(m, {0});  // one layer: the capacities themselves
  CHECK(one(1, 0) == doctest::Approx(0.25));
  CHECK(one(1, 1) == doctest::Approx(0.75));
  const matrix two = attention_flow(m, {0, 1});
  // token 0 to position 1: via (1, 0) min(1, 0.25) and via (1, 1) min(0.25, 0.75)
  CHECK(two(1, 0) == doctest::Approx(0.5));
  CHECK(two(1, 1) == doctest::Approx(0.75));
  CHECK(two(0, 0) == doctest::Approx(1.0));
  CHECK(two(0, 1) == 0.0f);
  // no layers: every token reaches only itself
  const matrix none = attention_flow(m, {});
  CHECK(none(0, 0) == 1.0f);
  CHECK(none(1, 0) == 0.0f);
}

TEST_CASE("flow is refused past its work, a causal mask allowing longer texts") {
  // L · n⁴ cells a phase without a mask, a twelfth with one
  CHECK(flow_work(10, 3, false) == doctest::Approx(3e4));
  CHECK(flow_work(10, 3, true) == doctest::Approx(2.5e3));
  std::size_t causal_fit = 1, full_fit = 1;
  while (flow_work(causal_fit + 1, 12, true) <= flow_max_work) ++causal_fit;
  while (flow_work(full_fit + 1, 12, false) <= flow_max_work) ++full_fit;
  CHECK(causal_fit > full_fit);
  CHECK(full_fit >= 64);  // what the explicit-graph flow allowed before
  CHECK_NOTHROW(check_flow_size(causal_fit, 12, true));
  CHECK_THROWS_AS(check_flow_size(causal_fit + 1, 12, true), usage_error);
  CHECK_THROWS_AS(check_flow_size(full_fit + 1, 12, false), usage_error);
}

namespace {

// [layers, heads, n, n] softmax-like rows: random, causal (nothing right of the diagonal), each
// row summing to 1.
std::vector<float> random_causal_maps(std::size_t layers, std::size_t heads, std::size_t n,
                                      unsigned seed) {
  std::mt19937 gen(seed);
  std::exponential_distribution<float> e(1.0f);
  std::vector<float> out(layers * heads * n * n, 0.0f);
  for (std::size_t m = 0; m < layers * heads; ++m)
    for (std::size_t i = 0; i < n; ++i) {
      float* row = out.data() + (m * n + i) * n;
      float sum = 0.0f;
      for (std::size_t j = 0; j <= i; ++j) sum += row[j] = std::pow(e(gen), 3.0f);
      for (std::size_t j = 0; j <= i; ++j) row[j] /= sum;
    }
  return out;
}

// The same without a mask: every row over all n keys.
std::vector<float> random_full_maps(std::size_t layers, std::size_t heads, std::size_t n,
                                    unsigned seed) {
  std::mt19937 gen(seed);
  std::exponential_distribution<float> e(1.0f);
  std::vector<float> out(layers * heads * n * n);
  for (std::size_t r = 0; r < layers * heads * n; ++r) {
    float* row = out.data() + r * n;
    float sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) sum += row[j] = std::pow(e(gen), 3.0f);
    for (std::size_t j = 0; j < n; ++j) row[j] /= sum;
  }
  return out;
}

}  // namespace

TEST_CASE("the pruned, parallel flow equals the plain reference, on any thread count") {
  // causal maps: pair (i, j) works on tokens j … i only; full maps: on every token
  const std::size_t before = kernels::threads();
  for (const bool causal : {true, false})
    for (std::size_t n : {std::size_t{1}, std::size_t{9}, std::size_t{21}}) {
      const auto data = causal ? random_causal_maps(3, 2, n, static_cast<unsigned>(n))
                               : random_full_maps(3, 2, n, static_cast<unsigned>(n));
      const model_maps m{data.data(), 3, 2, n, {}};
      for (const auto& layers : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{2, 0},
                                 std::vector<std::size_t>{1}, std::vector<std::size_t>{}}) {
        const matrix want = attention_flow_ref(m, layers);
        std::vector<matrix> got;
        for (const std::size_t threads : {1, 2}) {
          kernels::set_threads(threads);
          got.push_back(attention_flow(m, layers));
        }
        INFO("causal " << causal << " n " << n << " layers " << layers.size());
        CHECK(got[0].to_vector() == got[1].to_vector());
        double worst = 0.0;
        for (std::size_t k = 0; k < n * n; ++k)
          worst = std::max(worst, std::fabs(double(got[0].data()[k]) - want.data()[k]));
        CHECK(worst <= 1e-6);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < n; ++j) {
            CHECK(got[0](i, j) <= 1.0f + 1e-6f);
            if (causal && j > i) CHECK(got[0](i, j) == 0.0f);
          }
      }
    }
  kernels::set_threads(before);
}

TEST_CASE("the fast mean, max and rollout equal their double references") {
  attnviz::testing::for_each_isa([] {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{65}, std::size_t{130}}) {
      const auto data = random_causal_maps(3, 4, n, static_cast<unsigned>(n));
      const model_maps m{data.data(), 3, 4, n, {}};
      for (const auto& layers : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{2, 0},
                                 std::vector<std::size_t>{}}) {
        for (const auto how : {map_reduce::mean, map_reduce::max}) {
          if (layers.empty()) continue;
          const matrix got = reduce_maps(m, layers, {1, 3}, how);
          const matrix want = reduce_maps_ref(m, layers, {1, 3}, how);
          for (std::size_t k = 0; k < n * n; ++k)
            CHECK(std::fabs(got.data()[k] - want.data()[k]) <= 1e-6);
        }
        const matrix got = attention_rollout(m, layers);
        const matrix want = attention_rollout_ref(m, layers);
        double worst = 0.0;
        for (std::size_t k = 0; k < n * n; ++k)
          worst = std::max(worst, std::fabs(double(got.data()[k]) - want.data()[k]));
        INFO("n " << n << " layers " << layers.size());
        CHECK(worst <= 1e-5);
        for (std::size_t i = 0; i < n; ++i) {
          double sum = 0.0;
          for (std::size_t j = 0; j < n; ++j) sum += got(i, j);
          CHECK(std::fabs(sum - 1.0) <= 1e-5);
          for (std::size_t j = i + 1; j < n; ++j) CHECK(got(i, j) == 0.0f);  // stays causal
        }
      }
    }
  });
}

TEST_CASE("the rollout's column sums pushed from the last layer down are the rollout's") {
  // 1ᵀ (Â_last ⋯ Â_first) computed as a vector times each Â from the top, against the column
  // sums of the rollout matrix itself (double reference); layers in any order, or none (R = I)
  const std::size_t n = 23;
  const auto data = random_causal_maps(3, 4, n, 5);
  const model_maps m{data.data(), 3, 4, n, {}};
  for (const auto& layers : {std::vector<std::size_t>{0, 1, 2}, std::vector<std::size_t>{2, 0},
                             std::vector<std::size_t>{1}, std::vector<std::size_t>{}}) {
    const std::vector<double> got = rollout_column_sums(m, layers);
    const matrix r = attention_rollout_ref(m, layers);
    double total = 0.0;
    for (std::size_t j = 0; j < n; ++j) {
      double want = 0.0;
      for (std::size_t i = 0; i < n; ++i) want += r(i, j);
      INFO("layers " << layers.size() << " key " << j);
      CHECK(std::fabs(got[j] - want) <= 1e-6);  // r is float: 1e-7 an entry
      total += got[j];
    }
    CHECK(std::fabs(total - static_cast<double>(n)) <= 1e-9);  // each row of R sums to 1
  }
  // by hand, one layer of one head, A = [[1, 0], [0.5, 0.5]]: Â = [[1, 0], [0.25, 0.75]]
  const auto two = causal_maps({{0.5f}});
  const std::vector<double> u = rollout_column_sums(model_maps{two.data(), 1, 1, 2, {}}, {0});
  CHECK(u[0] == doctest::Approx(1.25));
  CHECK(u[1] == doctest::Approx(0.75));
}
