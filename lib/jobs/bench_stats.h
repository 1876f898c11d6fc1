// What the benchmarks report besides time: the median of repeated measurements and the
// process's peak resident memory.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <vector>

#include "stage_times.h"

namespace attnviz {

inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Peak resident set of this process so far, MiB (Linux reports ru_maxrss in KiB).
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

// The median, stage by stage, of per-repetition stage lists (stages in the first one's order).
inline stage_list median_stages(const std::vector<stage_list>& reps) {
  stage_list out;
  if (reps.empty()) return out;
  for (std::size_t s = 0; s < reps.front().size(); ++s) {
    std::vector<double> times;
    for (const auto& rep : reps)
      if (s < rep.size()) times.push_back(rep[s].second);
    out.emplace_back(reps.front()[s].first, median_of(times));
  }
  return out;
}

}  // namespace attnviz
