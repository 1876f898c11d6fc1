// model/layer_ops.h: the generation cache's layout, row by row against the rows appended.
#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>
#include <vector>

#include "model/layer_ops.h"

using namespace attnviz;

namespace {
// Row r of a call's keys (values: + 0.5), head g, element t: a number that names all three.
float key_of(std::size_t r, std::size_t g, std::size_t t) {
  return static_cast<float>(1000 * r + 10 * g + t);
}

constexpr std::size_t heads = 3, d = 4, ld = heads * d + 2;  // rows with 2 floats past the heads

// Rows [total, total + n) appended (keys and values as key_of names them), then every row so far
// checked in its head's run.
void append_and_check(kv_cache& cache, std::size_t total, std::size_t n) {
  std::vector<float> k(n * ld, -1.0f), v(n * ld, -1.0f);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t g = 0; g < heads; ++g)
      for (std::size_t t = 0; t < d; ++t) {
        k[r * ld + g * d + t] = key_of(total + r, g, t);
        v[r * ld + g * d + t] = key_of(total + r, g, t) + 0.5f;
      }
  cache.append(k.data(), ld, v.data(), ld, n, heads, d);
  total += n;
  REQUIRE(cache.rows == total);
  REQUIRE(cache.capacity >= total);
  CHECK(cache.head_stride() == cache.capacity * d);
  for (std::size_t g = 0; g < heads; ++g)
    for (std::size_t i = 0; i < total; ++i)
      for (std::size_t t = 0; t < d; ++t) {
        const float* key = cache.k.data() + g * cache.head_stride() + i * d;
        const float* value = cache.v.data() + g * cache.head_stride() + i * d;
        REQUIRE(key[t] == key_of(i, g, t));
        REQUIRE(value[t] == key_of(i, g, t) + 0.5f);
      }
}
}  // namespace

TEST_CASE("kv_cache keeps each head's rows together, in order, across its growth") {
  kv_cache cache;
  std::size_t total = 0;
  // a prompt of 10 rows (capacity 16), then one row a step past 16 and 32: two growths
  for (const std::size_t n : {std::size_t{10}, std::size_t{1}, std::size_t{7}, std::size_t{20}}) {
    append_and_check(cache, total, n);
    total += n;
  }
  CHECK(total == 38);
  CHECK(cache.capacity == 64);
  // rows of another shape are a programming error
  std::vector<float> k(2 * d, 0.0f);
  CHECK_THROWS_AS(cache.append(k.data(), 2 * d, k.data(), 2 * d, 1, 2, d), std::logic_error);
}

TEST_CASE("kv_cache with the rows planned makes room for them all at the first append") {
  kv_cache cache;
  cache.planned = 38;
  std::size_t total = 0;
  for (const std::size_t n : {std::size_t{10}, std::size_t{1}, std::size_t{7}, std::size_t{20}}) {
    append_and_check(cache, total, n);
    total += n;
    CHECK(cache.capacity == 38);
  }
  // past the plan it grows as before
  append_and_check(cache, total, 1);
  CHECK(cache.capacity == 76);
}
