#include "model/generation_maps.h"

#include <algorithm>
#include <utility>

namespace attnviz {

generation_maps::generation_maps(std::size_t maps, std::size_t prompt, std::size_t whole,
                                 std::size_t whole_bytes)
    : count_(maps), whole_(whole) {
  const bool fits = count_ * whole * whole * sizeof(float) <= whole_bytes;
  side_ = fits ? whole : std::min(whole, 2 * prompt + 64);
  maps_ = matrix(count_ * side_, side_);
}

void generation_maps::place_prompt(const std::vector<float>& prompt_maps, std::size_t np) {
  for (std::size_t map = 0; map < count_; ++map)
    for (std::size_t i = 0; i < np; ++i) {
      const float* row = prompt_maps.data() + (map * np + i) * np;
      std::copy(row, row + np, maps_.row(map * side_ + i));
    }
}

map_place generation_maps::row(std::size_t i) {
  if (i >= side_) resize(std::min(whole_, std::max(i + 1, 2 * side_)), i);
  return {maps_.row(i), side_ * side_};
}

matrix generation_maps::take(std::size_t n) {
  if (n != side_) resize(n, n);
  side_ = 0;
  return std::move(maps_);
}

// Rows [0, rows) of every map into maps of side `side` (their keys past `side` are zeros).
void generation_maps::resize(std::size_t side, std::size_t rows) {
  matrix resized(count_ * side, side);
  const std::size_t keys = std::min(side, side_);
  for (std::size_t map = 0; map < count_; ++map)
    for (std::size_t i = 0; i < rows; ++i) {
      const float* from = maps_.row(map * side_ + i);
      std::copy(from, from + keys, resized.row(map * side + i));
    }
  maps_ = std::move(resized);
  side_ = side;
}

}  // namespace attnviz
