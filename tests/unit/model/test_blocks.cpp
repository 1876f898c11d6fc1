// model/blocks.h: the pieces around attention, by hand on tiny rows; the references and the
// fast versions alike (test_elementwise compares the two on many more values).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "helpers.h"
#include "model/blocks.h"

using namespace attnviz;
using attnviz::testing::mat;

TEST_CASE("layer_norm: mean 0 and variance 1 per row, then scaled and shifted") {
  // row (1, 2, 3): mean 2, var 2/3 -> (-1, 0, 1) / sqrt(2/3 + eps)
  matrix x = mat(2, 3, {1, 2, 3, 5, 5, 5});
  const matrix fast = layer_norm_of(x, {1, 2, 1}, {0, 0, 10}, 0.0);
  layer_norm_ref(x, {1, 2, 1}, {0, 0, 10}, 0.0);
  for (std::size_t i = 0; i < 3; ++i) CHECK(fast.data()[i] == doctest::Approx(x.data()[i]));
  const double s = 1.0 / std::sqrt(2.0 / 3.0);
  CHECK(x(0, 0) == doctest::Approx(-s));
  CHECK(x(0, 1) == doctest::Approx(0.0));
  CHECK(x(0, 2) == doctest::Approx(s + 10));
  // a constant row with eps: all zeros, then the shift
  matrix y = mat(1, 3, {5, 5, 5});
  const matrix yf = layer_norm_of(y, {1, 1, 1}, {0, 0, 10}, 1e-5);
  layer_norm_ref(y, {1, 1, 1}, {0, 0, 10}, 1e-5);
  CHECK(y(0, 0) == 0.0f);
  CHECK(y(0, 2) == 10.0f);
  CHECK(yf(0, 0) == 0.0f);
  CHECK(yf(0, 2) == 10.0f);
}

TEST_CASE("rms_norm: x / sqrt(mean(x^2) + eps) * w") {
  for (const matrix& y : {rms_norm_ref(mat(1, 2, {3, 4}), {1, 2}, 0.0),  // rms = sqrt(12.5)
                         rms_norm_of(mat(1, 2, {3, 4}), {1, 2}, 0.0)}) {
    CHECK(y(0, 0) == doctest::Approx(3 / std::sqrt(12.5)));
    CHECK(y(0, 1) == doctest::Approx(8 / std::sqrt(12.5)));
  }
}

TEST_CASE("GELU in its two forms, and SwiGLU's silu gate, at known points") {
  for (bool fast : {false, true}) {
  INFO((fast ? "fast" : "reference"));
  matrix t = mat(1, 4, {0, 1, -1, 3});
  matrix e = t;
  fast ? gelu_tanh(t) : gelu_tanh_ref(t);
  fast ? gelu_erf(e) : gelu_erf_ref(e);
  CHECK(t(0, 0) == 0.0f);
  CHECK(e(0, 1) == doctest::Approx(0.8413447460685429));   // Φ(1)
  CHECK(e(0, 2) == doctest::Approx(-0.15865525393145707));  // −Φ(−1)
  CHECK(t(0, 1) == doctest::Approx(0.8411919906082768));   // the tanh form's value at 1
  CHECK(std::fabs(t(0, 3) - e(0, 3)) < 2e-3);                // the forms agree closely
  matrix g = mat(1, 2, {0, 2});
  fast ? silu_gate(g, mat(1, 2, {5, 3})) : silu_gate_ref(g, mat(1, 2, {5, 3}));
  CHECK(g(0, 0) == 0.0f);
  CHECK(g(0, 1) == doctest::Approx(2.0 / (1.0 + std::exp(-2.0)) * 3.0));
  }
}

TEST_CASE("SiLU alone and the gated product, at known points, fast and reference") {
  // silu(x) = x / (1 + e^-x): silu(0) = 0, silu(1) = 0.7310585786300049, silu(-2) = -0.2384058440442351
  for (bool fast : {false, true}) {
    INFO((fast ? "fast" : "reference"));
    matrix s = mat(1, 3, {0, 1, -2});
    fast ? silu(s) : silu_ref(s);
    CHECK(s(0, 0) == 0.0f);
    CHECK(s(0, 1) == doctest::Approx(0.7310585786300049));
    CHECK(s(0, 2) == doctest::Approx(-0.2384058440442351));
  }
  // a long row takes the threaded path and still agrees element by element
  matrix big(1, 100000), ref(1, 100000);
  for (std::size_t j = 0; j < big.cols(); ++j)
    big(0, j) = ref(0, j) = static_cast<float>(j % 97) * 0.25f - 12.0f;
  silu(big);
  silu_ref(ref);
  double worst = 0.0;
  for (std::size_t j = 0; j < big.cols(); ++j)
    worst = std::max(worst, std::fabs(static_cast<double>(big(0, j)) - ref(0, j)));
  CHECK(worst < 1e-5);
  matrix g = mat(2, 2, {1, -2, 0.5f, 4});
  multiply_in_place(g, mat(2, 2, {3, 3, -2, 0.25f}));
  CHECK((g(0, 0) == 3.0f && g(0, 1) == -6.0f && g(1, 0) == -1.0f && g(1, 1) == 1.0f));
  CHECK_THROWS_AS(multiply_in_place(g, mat(1, 2, {1, 1})), std::logic_error);
}

TEST_CASE("ReLU: max(x, 0), fast and reference, short and threaded rows") {
  for (bool fast : {false, true}) {
    INFO((fast ? "fast" : "reference"));
    matrix r = mat(1, 4, {-2, 0, 0.5f, 3});
    fast ? relu(r) : relu_ref(r);
    CHECK((r(0, 0) == 0.0f && r(0, 1) == 0.0f && r(0, 2) == 0.5f && r(0, 3) == 3.0f));
  }
  matrix big(1, 100000), ref(1, 100000);
  for (std::size_t j = 0; j < big.cols(); ++j)
    big(0, j) = ref(0, j) = static_cast<float>(j % 13) - 6.0f;
  relu(big);
  relu_ref(ref);
  for (std::size_t j = 0; j < big.cols(); ++j) REQUIRE(big(0, j) == ref(0, j));
}
