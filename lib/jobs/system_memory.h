// What the operating system lets this process allocate beyond what it holds now, so a run is
// refused before any work instead of failing partway with "out of memory":
//   address space   RLIMIT_AS (ulimit -v) − the process's current size (/proc/self/statm) − a
//                   margin of 32 MiB (the estimates are generous: a 4,000-token --json run
//                   estimated at 630 MiB ran within an address space of 650 MiB)
//   cgroup          the process's cgroup (v2) memory.max (the whole of it: its page cache can
//                   be reclaimed, so what it already uses is not subtracted)
// Unlimited (UINT64_MAX) where neither is set or readable.
#pragma once

#include <cstdint>
#include <string>

namespace attnviz {

struct system_memory_limit {
  std::uint64_t bytes = UINT64_MAX;
  std::string what;  // "what the address-space limit (ulimit -v) leaves", …; empty: none
};

system_memory_limit system_memory_limit_now();

}  // namespace attnviz
