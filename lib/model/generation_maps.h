// A causal generation's maps as its steps come (model/generate.cpp): every layer's every head's
// map, [maps · side, side], rows [0, rows) of each written, zeros right of each row's last key
// (the causal mask). Each step writes its row of every map in place (run_stack's map_place), so
// the maps are neither kept as rows apart nor copied into place at the end: fresh memory is slow
// to write first on some hosts (the Zen 5 guest of bench/RESULTS.md: 0.34-0.6 GB/s), and a GPT-2
// step over 128 + 256 tokens took about 1 ms less this way. The side is the whole generation's
// (prompt + new tokens) from the start when its maps fit in `whole_bytes`; else (a long request
// that an end token may cut short) it starts at twice the prompt + 64 and doubles as needed, the
// rows so far copied.
#pragma once

#include <cstddef>
#include <vector>

#include "model/forward.h"
#include "tensor.h"

namespace attnviz {

class generation_maps {
 public:
  static constexpr std::size_t kWholeBytes = std::size_t{128} << 20;
  generation_maps(std::size_t maps, std::size_t prompt, std::size_t whole,
                  std::size_t whole_bytes = kWholeBytes);
  // The prompt's maps ([maps, np, np], one after another) as rows [0, np) of each map.
  void place_prompt(const std::vector<float>& prompt_maps, std::size_t np);
  // Where a step writes its row i of every map (run_stack over one row at position i).
  map_place row(std::size_t i);
  // Rows [0, n) of every map, [maps · n, n]; the object is empty afterwards.
  matrix take(std::size_t n);
  std::size_t side() const { return side_; }

 private:
  void resize(std::size_t side, std::size_t rows);
  std::size_t count_, whole_, side_ = 0;
  matrix maps_;
};

}  // namespace attnviz
