#include <doctest/doctest.h>

#include <cmath>

#include "attention/positional.h"
#include "error.h"
#include "helpers.h"
#include "params/rng.h"

using namespace attnviz;
using attnviz::testing::check_close;

TEST_CASE("sinusoid by hand: PE(0) = (0, 1, 0, 1), PE(1) = (sin 1, cos 1, sin .01, cos .01)") {
  const auto p0 = sinusoid(0.0, 4);
  CHECK(p0 == std::vector<float>{0.0f, 1.0f, 0.0f, 1.0f});
  const auto p1 = sinusoid(1.0, 4);  // 10000^(2/4) = 100
  CHECK(p1[0] == doctest::Approx(std::sin(1.0)));
  CHECK(p1[1] == doctest::Approx(std::cos(1.0)));
  CHECK(p1[2] == doctest::Approx(std::sin(0.01)));
  CHECK(p1[3] == doctest::Approx(std::cos(0.01)));
  const auto m3 = sinusoid(-3.0, 2);  // negative offsets (relative score)
  CHECK(m3[0] == doctest::Approx(-std::sin(3.0)));
  CHECK(m3[1] == doctest::Approx(std::cos(3.0)));
}

TEST_CASE("add_sinusoidal adds the table row by row") {
  matrix x(3, 4, 1.0f);
  add_sinusoidal(x);
  const matrix pe = sinusoidal_table(3, 4);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(x.data()[i] == pe.data()[i] + 1.0f);
}

TEST_CASE("rope keeps q_m . k_n a function of m - n, keeps norms, leaves position 0 alone") {
  splitmix64 rng(7, "rope");
  const std::size_t d = 8, n = 9;
  std::vector<float> a(d), b(d);
  for (auto& v : a) v = static_cast<float>(rng.uniform(1.0));
  for (auto& v : b) v = static_cast<float>(rng.uniform(1.0));
  matrix q(n, d), k(n, d);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t c = 0; c < d; ++c) q(p, c) = a[c], k(p, c) = b[c];
  apply_rope(q);
  apply_rope(k);
  for (std::size_t c = 0; c < d; ++c) CHECK(q(0, c) == a[c]);
  for (std::size_t p = 0; p < n; ++p)
    CHECK(l2_norm(q.row(p), d) == doctest::Approx(l2_norm(a.data(), d)).epsilon(1e-6));
  // the same token everywhere: the score depends on the offset m - n only
  for (std::size_t m = 0; m + 1 < n; ++m)
    for (std::size_t j = 0; j + 1 < n; ++j)
      CHECK(dot(q.row(m + 1), k.row(j + 1), d) ==
            doctest::Approx(dot(q.row(m), k.row(j), d)).epsilon(1e-5));
  // and it does depend on it (the encoding is not trivial)
  CHECK(std::fabs(dot(q.row(0), k.row(0), d) - dot(q.row(3), k.row(0), d)) > 1e-3);
}

TEST_CASE("rope by hand: d = 2 rotates by p radians") {
  matrix x(3, 2, 0.0f);
  for (std::size_t p = 0; p < 3; ++p) x(p, 0) = 1.0f;
  apply_rope(x);
  check_close(x, {1, 0, std::cos(1.0), std::sin(1.0), std::cos(2.0), std::sin(2.0)}, 1e-6);
}

TEST_CASE("ALiBi slopes are Press et al.'s geometric sequence; the bias is -m|i-j|") {
  const auto s8 = alibi_slopes(8, 0.0);
  REQUIRE(s8.size() == 8);
  for (std::size_t h = 0; h < 8; ++h) CHECK(s8[h] == doctest::Approx(std::pow(0.5, h + 1)));
  CHECK(alibi_slopes(1, 0.0)[0] == doctest::Approx(1.0 / 256));
  CHECK(alibi_slopes(2, 0.5)[1] == doctest::Approx(0.25));
  matrix e(3, 4, 0.0f);
  add_alibi(e, 0.5);
  check_close(e, {0, -0.5, -1, -1.5, -0.5, 0, -0.5, -1, -1, -0.5, 0, -0.5});
}

TEST_CASE("position names") {
  CHECK(parse_position("RoPE") == position_scheme::rope);
  CHECK(parse_position("rotary") == position_scheme::rope);
  CHECK(parse_position("absolute") == position_scheme::sinusoidal);
  CHECK(position_name(position_scheme::alibi) == "alibi");
  CHECK_THROWS_AS(parse_position("learned"), usage_error);
}

TEST_CASE("rotate-half RoPE pairs dimension i with i + d/2, angles p·base^(−2i/d)") {
  // d = 4, base 100: pair (0, 2) turns by p, pair (1, 3) by p / 10
  const rope_half_table t = make_rope_half_table(3, 4, 100.0);
  matrix x(3, 4);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t j = 0; j < 4; ++j) x(p, j) = static_cast<float>(j + 1);
  apply_rope_half(x, 0, t);
  for (std::size_t p = 0; p < 3; ++p) {
    const double a0 = static_cast<double>(p), a1 = static_cast<double>(p) / 10.0;
    CHECK(x(p, 0) == doctest::Approx(1 * std::cos(a0) - 3 * std::sin(a0)));
    CHECK(x(p, 2) == doctest::Approx(3 * std::cos(a0) + 1 * std::sin(a0)));
    CHECK(x(p, 1) == doctest::Approx(2 * std::cos(a1) - 4 * std::sin(a1)));
    CHECK(x(p, 3) == doctest::Approx(4 * std::cos(a1) + 2 * std::sin(a1)));
  }
}

// The interleaved layout (GPT-J) equals the plain pairwise RoPE (apply_rope_columns, base
// 10000, written separately in double), and a table started at position `first` turns row p
// as row first + p of a table from 0 (a generation step over cached rows).
TEST_CASE("interleaved RoPE equals the plain pairwise rotation, from any first position") {
  const std::size_t n = 7, d = 8;
  matrix x(n, d), plain(n, d);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t j = 0; j < d; ++j)
      x(p, j) = plain(p, j) = static_cast<float>(0.3 * double(j) - 0.1 * double(p) + 0.5);
  apply_rope_interleaved(x, 0, make_rope_half_table(n, d, 10000.0));
  apply_rope_columns(plain, 0, d);
  for (std::size_t i = 0; i < x.size(); ++i)
    CHECK(x.data()[i] == doctest::Approx(plain.data()[i]).epsilon(1e-6));
  std::vector<double> theta(d / 2);
  for (std::size_t i = 0; i < theta.size(); ++i)
    theta[i] = std::pow(10000.0, -2.0 * double(i) / double(d));
  const rope_half_table whole = make_rope_half_table(0, n, theta);
  const rope_half_table tail = make_rope_half_table(4, 3, theta);
  for (std::size_t p = 0; p < 3; ++p)
    for (std::size_t i = 0; i < d / 2; ++i) {
      CHECK(tail.cos[p * 4 + i] == whole.cos[(4 + p) * 4 + i]);
      CHECK(tail.sin[p * 4 + i] == whole.sin[(4 + p) * 4 + i]);
    }
}

TEST_CASE("rotate-half RoPE keeps q·k a function of the offset, on a column block") {
  const std::size_t n = 9, d = 8;
  const rope_half_table t = make_rope_half_table(n, d, 10000.0);
  matrix q(n, 2 * d), k(n, 2 * d);
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t j = 0; j < d; ++j) {
      q(p, d + j) = static_cast<float>(std::sin(0.7 * static_cast<double>(j) + 1.0));
      k(p, d + j) = static_cast<float>(std::cos(0.3 * static_cast<double>(j)));
    }
  apply_rope_half(q, d, t);
  apply_rope_half(k, d, t);
  auto dot_at = [&](std::size_t i, std::size_t j) {
    double s = 0.0;
    for (std::size_t c = 0; c < d; ++c) s += static_cast<double>(q(i, d + c)) * k(j, d + c);
    return s;
  };
  CHECK(dot_at(5, 2) == doctest::Approx(dot_at(7, 4)).epsilon(1e-5));
  CHECK(dot_at(3, 3) == doctest::Approx(dot_at(0, 0)).epsilon(1e-5));
  CHECK(q(4, 0) == 0.0f);  // the columns before the block are left alone
}

TEST_CASE("single-head ALiBi with the paper's slope is named, with the bias it reaches") {
  const std::string note = alibi_single_head_note(1, 0.0, 11);
  CHECK(note.find("2^-8 = 0.0039") != std::string::npos);
  CHECK(note.find("at most 0.039") != std::string::npos);  // 2^-8 × 10
  CHECK(note.find("alibi_slope") != std::string::npos);
  CHECK(alibi_single_head_note(8, 0.0, 11).empty());   // several heads: the paper's spread
  CHECK(alibi_single_head_note(1, 0.5, 11).empty());   // a slope given
  CHECK(alibi_single_head_note(0, 0.0, 11) == note);   // heads 0 means one
}
