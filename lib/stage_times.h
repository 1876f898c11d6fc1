// Wall-clock seconds per named stage, summed over every time a stage runs (a model's layers, a
// pipeline's heads), in the order the stages first ran.
//
//   stage_times t;
//   stage_clock clock;
//   project();  t.add("project", clock.lap());
//   attend();   t.add("attend", clock.lap());
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace attnviz {

using stage_list = std::vector<std::pair<std::string, double>>;

inline void add_stage_time(stage_list& stages, const char* stage, double seconds) {
  for (auto& [name, total] : stages)
    if (name == stage) {
      total += seconds;
      return;
    }
  stages.emplace_back(stage, seconds);
}

class stage_clock {
 public:
  // Seconds since the clock was made or last lapped; starts the next lap.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace attnviz
