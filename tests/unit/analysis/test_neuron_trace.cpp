// The neuron view's walk by hand: a 3-token probe with d_h = 2, two query heads sharing one
// key/value head.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "analysis/neuron_trace.h"

using attnviz::layer_probe;
using attnviz::leading_dimensions;
using attnviz::matrix;
using attnviz::neuron_query;
using attnviz::neuron_trace;
using attnviz::trace_neuron;

namespace {

// q: 3 × (2 heads · 2); k, v: 3 × (1 head · 2)
layer_probe probe() {
  layer_probe p;
  p.layer = 1;
  p.q = matrix(3, 4, {0, 0, 0, 0,  0, 0, 0, 0,  2, 0, 1, 1});
  p.k = matrix(3, 2, {1, 0,  0, 1,  1, 1});
  p.v = matrix(3, 2, {1, 0,  0, 2,  3, 4});
  return p;
}

neuron_query at(std::size_t head, bool causal, std::size_t window = 0) {
  neuron_query q;
  q.head = head;
  q.query = 2;
  q.heads = 2;
  q.kv_heads = 1;
  q.d_head = 2;
  q.causal = causal;
  q.window = window;
  return q;
}

}  // namespace

TEST_CASE("head 0 of query 2: q = (2, 0); scores 2/√2, 0, 2/√2; softmax; c = Σ a v") {
  const double r = std::sqrt(2.0), e = std::exp(r);
  const double a0 = e / (2 * e + 1), a1 = 1 / (2 * e + 1);
  const std::vector<float> row = {float(a0), float(a1), float(a0)};
  const neuron_trace t = trace_neuron(probe(), at(0, true), row.data());
  CHECK(t.layer == 1);
  CHECK(t.kv_head == 0);
  REQUIRE(t.keys.size() == 3);
  CHECK(t.keys[0].product == std::vector<double>{2, 0});
  CHECK(t.keys[2].product == std::vector<double>{2, 0});
  CHECK(t.keys[0].score == doctest::Approx(r));
  CHECK(t.keys[1].score == doctest::Approx(0.0));
  CHECK(t.keys[0].weight == doctest::Approx(a0));
  CHECK(t.keys[1].weight == doctest::Approx(a1));
  CHECK(t.by_weight == std::vector<std::size_t>{0, 2, 1});  // a tie keeps position order
  CHECK(t.context[0] == doctest::Approx(a0 * 1 + a0 * 3));
  CHECK(t.context[1] == doctest::Approx(a1 * 2 + a0 * 4));
  CHECK(t.keys[2].mixed_norm == doctest::Approx(a0 * 5));
  CHECK(t.weight_error < 1e-7);
  CHECK(t.hidden_keys == 0);
}

TEST_CASE("head 1 reads the same key/value head; a window hides the keys too far back") {
  // q = (1, 1): products (1, 0), (0, 1), (1, 1); with window 2 key 0 is hidden
  const double r = 1 / std::sqrt(2.0), s = 2 / std::sqrt(2.0);
  const double a1 = std::exp(r) / (std::exp(r) + std::exp(s)), a2 = 1 - a1;
  const std::vector<float> row = {0.0f, float(a1), float(a2)};
  const neuron_trace t = trace_neuron(probe(), at(1, true, 2), row.data());
  CHECK(t.kv_head == 0);
  REQUIRE(t.keys.size() == 2);
  CHECK(t.keys[0].j == 1);
  CHECK(t.hidden_keys == 1);
  CHECK(t.keys[1].product == std::vector<double>{1, 1});
  CHECK(t.keys[0].weight == doctest::Approx(a1));
  CHECK(t.weight_error < 1e-7);
  // a map that does not match shows in weight_error (a hidden key with weight, or a wrong one)
  const std::vector<float> wrong = {0.25f, float(a1), float(a2)};
  CHECK(trace_neuron(probe(), at(1, true, 2), wrong.data()).weight_error == doctest::Approx(0.25));
}

TEST_CASE("leading dimensions by |term|, ties to the lower index; shapes that do not fit") {
  CHECK(leading_dimensions({0.5, -3, 3, 1}, 3) == std::vector<std::size_t>{1, 2, 3});
  CHECK(leading_dimensions({1}, 4) == std::vector<std::size_t>{0});
  neuron_query bad = at(0, true);
  bad.d_head = 3;
  const std::vector<float> row(3, 0.0f);
  CHECK_THROWS_AS(trace_neuron(probe(), bad, row.data()), std::logic_error);
  bad = at(2, true);
  CHECK_THROWS_AS(trace_neuron(probe(), bad, row.data()), std::logic_error);
}

TEST_CASE("the widest gap between the layer's weights and a contribution skips the query") {
  neuron_trace t;
  t.query = 2;
  CHECK(attnviz::widest_gap(t, 0.05).reading == 0);  // no readings
  t.readings = {
      {"weights", {0.6, 0.1, 0.3}}, {"contrib", {0.1, 0.15, 0.75}}, {"alti", {0.02, 0.08, 0.9}}};
  // key 2 (the query) parts most (0.6), but its residual always does: key 0, by alti (0.58)
  const attnviz::reading_gap g = attnviz::widest_gap(t, 0.05);
  CHECK(g.reading == 2);
  CHECK(g.j == 0);
  CHECK(attnviz::widest_gap(t, 0.6).reading == 0);  // every other key within the margin
  t.readings.resize(1);
  CHECK(attnviz::widest_gap(t, 0.0).reading == 0);
}
