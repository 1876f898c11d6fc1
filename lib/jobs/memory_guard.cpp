#include "jobs/memory_guard.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "attention/pipeline.h"
#include "attention/registry.h"
#include "error.h"
#include "jobs/system_memory.h"
#include "render/heatmap.h"

namespace attnviz {

run_size with_parameters(run_size size, const attention_spec& spec, std::size_t d_model,
                         bool params_out) {
  size.d_model = d_model;
  size.projected = spec.project || spec.heads > 0;
  size.d_k = key_size(spec, d_model);
  if (size.d_v == 0) size.d_v = value_size(spec, d_model);
  if (find_score(spec.score).has_parameters) {
    const std::uint64_t d_a = spec.d_a ? spec.d_a : size.d_k;
    size.score_params = 2 * d_a * size.d_k + 2 * d_a + 3 * size.d_k;
  }
  size.params_out = params_out;
  return size;
}

std::uint64_t parameter_bytes(const run_size& s) {
  const double H = static_cast<double>(s.heads), d = static_cast<double>(s.d_model),
               dk = static_cast<double>(s.d_k), dv = static_cast<double>(s.d_v);
  double params = H * static_cast<double>(s.score_params), bytes = 0.0;
  if (s.projected) {
    params += d * H * (2.0 * dk + dv) + H * dv * d;
    bytes += static_cast<double>(s.variants) * 4.0 * H *
             (static_cast<double>(s.n_q) * dk + static_cast<double>(s.n_k) * (dk + dv));
  }
  bytes += params * 4.0 * (s.params_out ? 4.0 : 2.0);
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

std::uint64_t estimate_bytes(const run_size& s) {
  const double numbers = static_cast<double>(s.variants) * static_cast<double>(s.heads) *
                         (2.0 * static_cast<double>(s.n_q) * static_cast<double>(s.n_k) +
                          static_cast<double>(s.n_q) * static_cast<double>(s.d_v));
  // the program itself, its libraries and the input's vectors: measured 9.5 MB for 10 tokens
  constexpr double base = 16.0 * (1 << 20);
  double bytes = base + numbers * 4.0 + static_cast<double>(parameter_bytes(s));
  if (s.json) bytes += numbers * 16.0;
  if (s.image) {
    const double cell = s.cell > 0 ? s.cell : default_cell(std::max(s.n_q, s.n_k));
    bytes += static_cast<double>(s.variants) * (static_cast<double>(s.n_k) * cell + 400.0) *
             (static_cast<double>(s.n_q) * cell + 400.0) * 3.0 * 2.0;
  }
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

void check_memory(const run_size& s, std::uint64_t limit) {
  const std::uint64_t need = estimate_bytes(s);
  if (need <= limit) return;
  const std::uint64_t params = parameter_bytes(s);
  const std::string parts =
      params > need / 2
          ? fmt::format("; {} of it the parameters and projections ({} heads × d_k {} on "
                        "d_model {}): fewer {} or a smaller {}",
                        format_bytes(params), s.heads, s.d_k, s.d_model, param("heads"),
                        param("d_k"))
          : "";
  throw usage_error(fmt::format(
      "this run would need about {} ({} queries × {} keys{}{}{}{}), more than the limit of {}. "
      "Use fewer tokens, leave out {}/{}/{}, or raise the limit with {}",
      format_bytes(need), s.n_q, s.n_k, s.heads > 1 ? fmt::format(" × {} heads", s.heads) : "",
      s.variants > 1 ? fmt::format(" × {} variants", s.variants) : "",
      s.image ? " with a heatmap" : "", parts, limit_text(limit), param("json"), param("png"),
      param("svg"), param("max_memory")));
}

void check_read_memory(const std::string& path, std::uint64_t need, std::uint64_t limit) {
  if (need <= limit) return;
  throw usage_error(fmt::format("{}: its arrays would need about {} to read (as its headers "
                                "declare them), more than the limit of {}; raise the limit with "
                                "{} if the file is what you meant",
                                path, format_bytes(need), limit_text(limit),
                                param("max_memory")));
}

std::uint64_t parse_size(std::string_view text, std::string_view flag) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      t.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  std::string_view unit(end, static_cast<std::size_t>(t.data() + t.size() - end));
  double mult = 1.0;
  if (!unit.empty()) {
    const std::string_view units = "KMGT";
    const auto k = units.find(unit[0]);
    if (k != std::string_view::npos) {
      mult = std::pow(1024.0, static_cast<double>(k + 1));
      unit.remove_prefix(1);
    }
    if (unit == "IB" || unit == "B") unit = {};
  }
  if (ec != std::errc() || !unit.empty() || !(value > 0.0) || value * mult >= 1.8e19)
    throw usage_error(fmt::format("{} '{}': expected a size such as 512M, 8G or 1.5G", flag, text));
  return static_cast<std::uint64_t>(value * mult);
}

namespace {
system_memory_limit& system_bound() {  // the system's limit, when it bound the last run's
  static system_memory_limit bound{0, {}};
  return bound;
}
}  // namespace

std::uint64_t memory_limit(std::string_view text, std::string_view flag) {
  const std::uint64_t asked = parse_size(text, flag);
  const system_memory_limit sys = system_memory_limit_now();
  if (sys.bytes >= asked) return asked;
  system_bound() = sys;
  return sys.bytes;
}

std::string limit_text(std::uint64_t limit) {
  const system_memory_limit& b = system_bound();
  return !b.what.empty() && b.bytes == limit ? fmt::format("{} ({})", format_bytes(limit), b.what)
                                             : format_bytes(limit);
}

std::string format_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024.0 && u < 6) v /= 1024.0, ++u;
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace attnviz
