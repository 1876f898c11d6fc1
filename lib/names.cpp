#include "names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "error.h"

namespace attnviz {

std::vector<std::string_view> split_list(std::string_view list, char sep) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = list.find(sep, start);
    items.push_back(list.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return items;
    start = end + 1;
  }
}

std::string normalise_name(std::string_view s) {
  std::string out;
  for (char c : s)
    out.push_back(c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

void throw_unknown_name(
    std::string_view what, std::string_view name, const std::vector<std::string_view>& known,
    const std::vector<std::pair<std::string_view, std::string_view>>& candidates,
    std::string_view see_also) {
  const std::string key = normalise_name(name);
  std::string_view nearest;
  std::size_t best = std::numeric_limits<std::size_t>::max();
  for (const auto& [candidate, canonical] : candidates) {
    const std::size_t d = edit_distance(key, normalise_name(candidate));
    if (d < best) best = d, nearest = canonical;
  }
  const std::string hint = best <= std::max<std::size_t>(2, key.size() / 3)
                               ? fmt::format(" Did you mean '{}'?", nearest)
                               : std::string();
  throw usage_error(fmt::format("unknown {} '{}'.{} Known: {}{}", what, name, hint,
                                fmt::join(known, ", "),
                                see_also.empty() ? "" : fmt::format(" (see {})", see_also)));
}

}  // namespace attnviz
