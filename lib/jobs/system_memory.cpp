#include "jobs/system_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace attnviz {

namespace {

constexpr std::uint64_t address_space_margin = 32ull << 20;

// RLIMIT_AS less what the process has mapped already (its binary, its libraries, the weights
// it mapped) and a margin.
std::uint64_t address_space_left() {
  rlimit r{};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0;
  if (!(statm >> pages)) pages = 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::uint64_t used = pages * static_cast<std::uint64_t>(page > 0 ? page : 4096);
  const std::uint64_t limit = r.rlim_cur;
  return limit > used + address_space_margin ? limit - used - address_space_margin : 0;
}

// memory.max of the process's own cgroup ("0::/path" in /proc/self/cgroup), v2 only.
std::uint64_t cgroup_memory_max() {
  std::ifstream groups("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(groups, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  if (path.empty()) return UINT64_MAX;
  std::ifstream max("/sys/fs/cgroup" + (path == "/" ? std::string() : path) + "/memory.max");
  std::string text;
  if (!(max >> text) || text == "max") return UINT64_MAX;
  try {
    return std::stoull(text);
  } catch (const std::exception&) {
    return UINT64_MAX;
  }
}

}  // namespace

system_memory_limit system_memory_limit_now() {
  system_memory_limit out;
  if (const std::uint64_t as = address_space_left(); as < out.bytes)
    out = {as, "what the address-space limit (ulimit -v) leaves this process"};
  if (const std::uint64_t cg = cgroup_memory_max(); cg < out.bytes)
    out = {cg, "the cgroup's memory.max"};
  return out;
}

}  // namespace attnviz
