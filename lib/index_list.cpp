#include "index_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "error.h"

namespace attnviz {

namespace {

bool read_number(std::string_view s, std::size_t& v) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

std::vector<std::size_t> parse_index_list(std::string_view text, std::size_t limit,
                                          const std::string& parameter, const char* what) {
  std::vector<std::size_t> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(at, end - at);
    const std::size_t dash = item.find('-');
    std::size_t lo = 0, hi = 0;
    const bool ok = dash == std::string_view::npos
                        ? read_number(item, lo) && (hi = lo, true)
                        : read_number(item.substr(0, dash), lo) &&
                              read_number(item.substr(dash + 1), hi) && lo <= hi;
    if (!ok)
      throw usage_error(fmt::format("{} '{}': expected {} numbers or ranges from 0, like 0,5-7",
                                    param(parameter), std::string(item), what));
    if (hi >= limit)
      throw usage_error(fmt::format("{} {}: there are {} {}s (0 to {})", param(parameter), hi,
                                    limit, what, limit - 1));
    for (std::size_t i = lo; i <= hi; ++i)
      if (std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    at = end + 1;
  }
  return out;
}

}  // namespace attnviz
