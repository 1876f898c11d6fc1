// The caches the kernels' blocking is derived from: found at run time, or forced.
//
// Found: /sys/devices/system/cpu/cpu0/cache/index*/ (level, type, size: what the kernel read
// from cpuid, as lscpu shows it); where that is missing, sysconf's _SC_LEVEL{1D,2,3}_CACHE_SIZE
// (glibc's own cpuid reading); where both fail, 32 KiB / 512 KiB / 8 MiB, the smallest of the
// CPUs this is tuned for (said as "assumed"). A found L3 above 32 MiB is taken as 32 MiB
// (l3_for_blocking says why). Forced: ATTNVIZ_BLOCKING or use_blocking(), "l2=512K,mc=48", read
// once, taken as given.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "error.h"
#include "kernels/isa_table.h"

namespace attnviz::kernels {

namespace blocking_parts {

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;

struct found_caches {
  blocking_inputs in{};
  std::string from;
};

// "512K" → 524288; a plain count stays as it is. npos when it is not SIZE.
std::size_t parse_size(std::string_view text) {
  std::size_t value = 0, i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (value > (std::size_t{1} << 50)) return std::string::npos;
    value = value * 10 + static_cast<std::size_t>(text[i] - '0');
  }
  if (i == 0) return std::string::npos;
  std::size_t unit = 1;
  if (i < text.size()) {
    const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i++])));
    unit = c == 'K' ? KiB : c == 'M' ? MiB : c == 'G' ? 1024 * MiB : 0;
    if (i < text.size() && (text[i] == 'B' || text[i] == 'b')) ++i;  // "512KB"
  }
  if (unit == 0 || i != text.size() || value == 0) return std::string::npos;
  return value * unit;
}

// The data or unified cache of `level` under cpu0 in /sys, 0 if none is described.
std::size_t sys_cache(int level) {
  for (int index = 0; index < 16; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
    std::ifstream lv(dir + "level"), ty(dir + "type"), sz(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(lv >> l)) break;
    if (l != level || !(ty >> type) || type == "Instruction" || !(sz >> size)) continue;
    const std::size_t bytes = parse_size(size);  // "48K", "1024K", "32768K"
    return bytes == std::string::npos ? 0 : bytes;
  }
  return 0;
}

std::size_t sysconf_size(int name) {
  const long v = ::sysconf(name);
  return v > 0 ? static_cast<std::size_t>(v) : 0;
}

found_caches machine() {
  found_caches f;
  f.in.l1d = sys_cache(1);
  f.in.l2 = sys_cache(2);
  f.in.l3 = sys_cache(3);
  f.from = "/sys";
  if (f.in.l1d == 0 || f.in.l2 == 0) {
    f.in.l1d = sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
    f.in.l2 = sysconf_size(_SC_LEVEL2_CACHE_SIZE);
    f.in.l3 = sysconf_size(_SC_LEVEL3_CACHE_SIZE);
    f.from = "sysconf";
  }
  if (f.in.l1d == 0 || f.in.l2 == 0) {
    f.in = blocking_inputs{32 * KiB, 512 * KiB, 8 * MiB, 0, 0, 0, 0, 0};
    f.from = "assumed";
  }
  const std::size_t l3 = f.in.l3;
  f.in.l3 = l3_for_blocking(l3);
  if (l3 > f.in.l3)
    f.from += fmt::format(", its L3 of {} MiB taken as {} MiB", l3 >> 20, f.in.l3 >> 20);
  if (f.in.l3 == 0) f.in.l3 = 4 * f.in.l2;  // no L3: the panel path's A as if it had one
  return f;
}

// Applies one "key=size" to `in`; false if the key is unknown or the size unreadable.
bool apply_entry(std::string_view entry, blocking_inputs& in) {
  const auto eq = entry.find('=');
  if (eq == std::string_view::npos) return false;
  const std::string_view key = entry.substr(0, eq);
  const std::size_t size = parse_size(entry.substr(eq + 1));
  if (size == std::string::npos) return false;
  std::size_t* field = key == "l1d"           ? &in.l1d
                       : key == "l2"          ? &in.l2
                       : key == "l3"          ? &in.l3
                       : key == "panels"      ? &in.panels
                       : key == "panel_depth" ? &in.panel_depth
                       : key == "mc"          ? &in.mc
                       : key == "panel_a"     ? &in.panel_a_bytes
                       : key == "attention"   ? &in.attention_floats
                                              : nullptr;
  if (!field) return false;
  *field = size;
  return true;
}

struct request {
  blocking_inputs in{};
  std::string caches_from, forced;
};

request make_request(std::string_view spec, const char* origin) {
  static const found_caches found = machine();
  request r{found.in, found.from, std::string(spec)};
  std::size_t start = 0;
  bool caches_forced = false;
  while (start < spec.size()) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view entry = spec.substr(start, end - start);
    if (!apply_entry(entry, r.in))
      throw usage_error(
          fmt::format("{}: '{}' is not KEY=SIZE (keys: l1d, l2, l3, panels, panel_depth, mc, "
                      "panel_a, attention; "
                      "SIZE a positive count, or bytes with K, M or G, e.g. l2=512K,mc=48)",
                      origin, entry));
    caches_forced = caches_forced || entry.rfind("l1d=", 0) == 0 || entry.rfind("l2=", 0) == 0 ||
                    entry.rfind("l3=", 0) == 0;
    start = end + 1;
  }
  if (caches_forced) r.caches_from = origin;
  return r;
}

// The current request; replaced by use_blocking. Every request made stays in `made` until the
// program ends (a kernel may still be reading the one replaced). The first use reads
// ATTNVIZ_BLOCKING.
std::atomic<const request*> current{nullptr};
std::mutex replacing;
std::deque<std::unique_ptr<const request>> made;  // under `replacing`

// Keeps r and makes it the current request; call with `replacing` held.
const request& install(request r) {
  made.push_back(std::make_unique<const request>(std::move(r)));
  current.store(made.back().get(), std::memory_order_release);
  return *made.back();
}

const request& current_request() {
  if (const request* r = current.load(std::memory_order_acquire)) return *r;
  std::lock_guard<std::mutex> lock(replacing);
  if (const request* r = current.load(std::memory_order_acquire)) return *r;
  const char* env = std::getenv("ATTNVIZ_BLOCKING");
  return install(make_request(env ? env : "", "ATTNVIZ_BLOCKING"));
}

std::string bytes_text(std::size_t b) {
  if (b >= MiB && b % MiB == 0) return fmt::format("{} MiB", b / MiB);
  if (b >= KiB && b % KiB == 0) return fmt::format("{} KiB", b / KiB);
  return fmt::format("{} B", b);
}

}  // namespace blocking_parts

// The rules (gemm.inc, blocking_of) were measured on a 32 MiB L3 shared by the cores of one die.
// A larger figure is taken as 32 MiB whoever reports it, for two reasons measured:
// - sysconf (glibc's cpuid reading) under some hypervisors sums every die's L3: 384 or 508 MiB
//   on 2-vCPU Zen 5 guests whose /sys describes no cache. The panel path then took products
//   whose A is far larger than any L3 and read A from memory for every panel: GPT-2's mlp_down
//   at n = 1,024 took 0.208-0.220 s, 0.181-0.198 s with the L3 forced to 32 MiB.
// - /sys reports a whole package's L3 (105 MiB on a 2-vCPU Intel Xeon guest with AVX-512, which
//   shares it with the package's other cores and guests). GPT-2's mlp_down (A of 12 MiB) took
//   0.92-1.02 of mlp_up's time down the panel path there, 0.77-0.80 with the L3 taken as 32 MiB
//   (4 alternations, 2 threads; Llama-1B's within the noise). Not every shape agrees: Pythia-410M's
//   mlp_down (A of 16 MiB) took 1.00-1.03 of mlp_up's time down the panel path, 1.14-1.15 tiled,
//   on AVX2 (AVX-512: 1.00-1.01 against 1.01-1.14; 2 alternations each).
// A CPU whose one core really has more L3 to itself (a 96 MiB X3D part) gives up the larger limit.
std::size_t l3_for_blocking(std::size_t reported) {
  return reported < L3_LIMIT ? reported : L3_LIMIT;
}

const blocking_inputs& blocking_request() {
  using namespace blocking_parts;
  return current_request().in;
}

void use_blocking(std::string_view spec) {
  using namespace blocking_parts;
  request r = make_request(spec, "blocking");  // throws before anything changes
  std::lock_guard<std::mutex> lock(replacing);
  install(std::move(r));
}

blocking active_blocking() {
  using namespace blocking_parts;
  const request& r = current_request();
  const blocking_sizes s = isa_blocking(r.in);
  blocking b;
  b.l1d = r.in.l1d;
  b.l2 = r.in.l2;
  b.l3 = r.in.l3;
  b.caches_from = r.caches_from;
  b.forced = r.forced;
  b.kc = s.kc;
  b.panels = s.panels;
  b.panel_depth = s.panel_depth;
  b.mc = s.mc;
  b.panel_a_bytes = s.panel_a_bytes;
  b.attention_floats = s.attention_floats;
  return b;
}

std::size_t panel_group(std::size_t panels, std::size_t most, std::size_t threads) {
  threads = std::max<std::size_t>(threads, 1);
  const std::size_t cap = std::max<std::size_t>(1, std::min(most, panels / (4 * threads)));
  // The busiest thread holds ceil(groups / threads) whole groups (libgomp gives the first
  // threads the larger blocks, so the ragged last group is never theirs unless one thread
  // holds them all).
  const auto busiest = [&](std::size_t g) {
    const std::size_t groups = (panels + g - 1) / g;
    return std::min(panels, (groups + threads - 1) / threads * g);
  };
  const std::size_t even = busiest(1), allowed = even + even / 16;
  std::size_t g = cap;
  while (g > 1 && busiest(g) > allowed) --g;
  return g;
}

std::string describe(const blocking& b) {
  using namespace blocking_parts;
  return fmt::format(
      "L1d {}, L2 {}, L3 {} ({}); kc {}, panels of {} x {} rows, mc {}, panel path while A <= {}, "
      "attention blocks of {} floats{}",
      bytes_text(b.l1d), bytes_text(b.l2), bytes_text(b.l3), b.caches_from, b.kc, b.panels,
      b.panel_depth, b.mc, bytes_text(b.panel_a_bytes), b.attention_floats,
      b.forced.empty() ? "" : fmt::format(" (forced: {})", b.forced));
}

}  // namespace attnviz::kernels
