#include "jobs/logit_lens_outputs.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "io/npy.h"

namespace attnviz {

void add_logit_lens_npy(output_batch& batch, const std::string& dir, const logit_lens& lens,
                        const std::string& prefix) {
  namespace fs = std::filesystem;
  const std::size_t cells = lens.rows * lens.n;
  std::vector<std::int64_t> ids(cells);
  std::vector<float> probs(cells);
  for (std::size_t c = 0; c < cells; ++c) {
    ids[c] = lens.top_ids[c * lens.k];
    probs[c] = lens.top_probs[c * lens.k];
  }
  batch.add((fs::path(dir) / (prefix + "logit_lens.npy")).string(),
            npy_int64({lens.rows, lens.n}, ids.data()));
  batch.add((fs::path(dir) / (prefix + "logit_lens_prob.npy")).string(),
            npy_float32({lens.rows, lens.n}, probs.data()));
  batch.add((fs::path(dir) / (prefix + "logit_lens_rank.npy")).string(),
            npy_int64({lens.rows, lens.n}, lens.final_rank.data()));
}

std::string logit_lens_json(const logit_lens& lens) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < lens.rows; ++l) {
    nlohmann::ordered_json positions = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < lens.n; ++i) {
      nlohmann::ordered_json top = nlohmann::ordered_json::array();
      for (std::size_t t = 0; t < lens.k; ++t) {
        top.push_back({{"id", lens.id(l, i, t)},
                       {"token", lens.tokens[(l * lens.n + i) * lens.k + t]},
                       {"probability", std::round(lens.prob(l, i, t) * 1e6) / 1e6}});
      }
      positions.push_back({{"top", top}, {"final_rank", lens.final_rank[l * lens.n + i]}});
    }
    rows.push_back({{"layer", l}, {"positions", positions}});
  }
  return nlohmann::ordered_json{{"rows", rows}}.dump(-1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace);
}

}  // namespace attnviz
