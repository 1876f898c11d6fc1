// model/generation_maps.h: a generation's maps written row by row in place, against the maps
// built whole from the same numbers, whether the side is the whole generation's from the start
// or doubles, and whether the generation runs to its end or stops early.
#include <doctest/doctest.h>

#include <cstddef>
#include <vector>

#include "model/generation_maps.h"

using namespace attnviz;

namespace {

// The weight that map `map`'s row i gives key j: a number that names all three.
float weight_of(std::size_t map, std::size_t i, std::size_t j) {
  return static_cast<float>(1 + 100000 * map + 1000 * i + j);
}

// Keys a row has: the prompt's rows all np of them (as the prompt's maps are handed over), a
// step's row i its keys [0, i].
std::size_t keys_of(std::size_t i, std::size_t np) {
  return i < np ? np : i + 1;
}

// The prompt's maps, then one step's row of every map at a time until row n - 1, as
// generate_causal writes them; the maps taken at n.
matrix generate_rows(generation_maps& maps, std::size_t count, std::size_t np, std::size_t n) {
  std::vector<float> prompt(count * np * np);
  for (std::size_t map = 0; map < count; ++map)
    for (std::size_t i = 0; i < np; ++i)
      for (std::size_t j = 0; j < np; ++j) prompt[(map * np + i) * np + j] = weight_of(map, i, j);
  maps.place_prompt(prompt, np);
  for (std::size_t i = np; i < n; ++i) {
    const map_place at = maps.row(i);
    for (std::size_t map = 0; map < count; ++map)
      for (std::size_t j = 0; j <= i; ++j) at.at[map * at.head_stride + j] = weight_of(map, i, j);
  }
  return maps.take(n);
}

void check_maps(const matrix& got, std::size_t count, std::size_t np, std::size_t n) {
  REQUIRE(got.rows() == count * n);
  REQUIRE(got.cols() == n);
  std::size_t wrong = 0;
  for (std::size_t map = 0; map < count; ++map)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        const float want = j < keys_of(i, np) ? weight_of(map, i, j) : 0.0f;
        wrong += got.row(map * n + i)[j] != want;
      }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("generation_maps: each step's row in its place, grown or whole, ended early or not") {
  const std::size_t count = 3, np = 5, whole = 150;
  const std::size_t whole_bytes = count * whole * whole * sizeof(float);
  // the side: the whole generation's when it fits the budget, else 2 np + 64 = 74, then 148,
  // then 150 (the whole)
  for (const std::size_t budget : {whole_bytes, whole_bytes - 1, std::size_t{0}})
    for (const std::size_t n : {std::size_t{5}, std::size_t{40}, std::size_t{74}, std::size_t{75},
                                std::size_t{149}, std::size_t{150}}) {
      CAPTURE(budget);
      CAPTURE(n);
      generation_maps maps(count, np, whole, budget);
      CHECK(maps.side() == (budget >= whole_bytes ? whole : 74));
      check_maps(generate_rows(maps, count, np, n), count, np, n);
    }
}
