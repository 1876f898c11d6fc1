#include "names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

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
  // three rows: the one two back serves the transposition
  std::vector<std::size_t> back(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], back[j - 2] + 1);
    }
    std::swap(back, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

std::string typed_form(std::string_view s) {
  return normalise_name(s.substr(std::min(s.find_first_not_of('-'), s.size())));
}

}  // namespace

std::size_t nearest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string w = typed_form(word);
  std::size_t best = std::string_view::npos, best_d = 0, best_p = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string c = typed_form(candidates[i]);
    const std::size_t d = edit_distance(w, c);
    std::size_t p = 0;
    while (p < w.size() && p < c.size() && w[p] == c[p]) ++p;
    const std::size_t limit = std::max<std::size_t>(2, w.size() / (p > 0 ? 2 : 3));
    if (d > limit || d >= std::max(w.size(), c.size())) continue;  // nothing in common
    if (best == std::string_view::npos || d < best_d || (d == best_d && p > best_p))
      best = i, best_d = d, best_p = p;
  }
  return best;
}

void throw_unknown_name(
    std::string_view what, std::string_view name, const std::vector<std::string_view>& known,
    const std::vector<std::pair<std::string_view, std::string_view>>& candidates,
    std::string_view see_also) {
  std::vector<std::string_view> spellings;
  for (const auto& [candidate, canonical] : candidates) spellings.push_back(candidate);
  const std::size_t nearest = nearest_name(name, spellings);
  const std::string hint = nearest != std::string_view::npos
                               ? fmt::format(" Did you mean '{}'?", candidates[nearest].second)
                               : std::string();
  throw usage_error(fmt::format("unknown {} '{}'.{} Known: {}{}", what, name, hint,
                                fmt::join(known, ", "),
                                see_also.empty() ? "" : fmt::format(" (see {})", see_also)));
}

}  // namespace attnviz
