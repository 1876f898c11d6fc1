#include "analysis/symmetrize.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "error.h"

namespace attnviz {

namespace symmetrize_parts {

using pair_set = std::set<word_pair>;

// grow-diag: passes over every (s, t) of the grid in order while a pass adds a pair; an aligned
// (s, t), the alignment as it stands (pairs added earlier in the pass included), adds each of
// its neighbours in the union whose source or target word is not aligned yet.
void grow_diag(pair_set& a, const pair_set& joined, std::set<std::size_t>& sources,
               std::set<std::size_t>& targets) {
  static const int steps[8][2] = {{-1, 0},  {0, -1}, {1, 0},  {0, 1},
                                  {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
  std::size_t ns = 0, nt = 0;
  for (const word_pair& p : joined) ns = std::max(ns, p.first + 1), nt = std::max(nt, p.second + 1);
  bool added = true;
  while (added) {
    added = false;
    for (std::size_t s = 0; s < ns; ++s)
      for (std::size_t t = 0; t < nt; ++t) {
        if (!a.count({s, t})) continue;
        for (const auto& step : steps) {
          const long s2 = static_cast<long>(s) + step[0], t2 = static_cast<long>(t) + step[1];
          if (s2 < 0 || t2 < 0) continue;
          const word_pair q{static_cast<std::size_t>(s2), static_cast<std::size_t>(t2)};
          if (a.count(q) || !joined.count(q)) continue;
          if (sources.count(q.first) && targets.count(q.second)) continue;
          a.insert(q);
          sources.insert(q.first);
          targets.insert(q.second);
          added = true;
        }
      }
  }
}

// final-and: a direction's pairs whose words are both still unaligned.
void final_and(pair_set& a, const std::vector<word_pair>& direction, std::set<std::size_t>& sources,
               std::set<std::size_t>& targets) {
  for (const word_pair& p : pair_set(direction.begin(), direction.end())) {
    if (sources.count(p.first) || targets.count(p.second)) continue;
    a.insert(p);
    sources.insert(p.first);
    targets.insert(p.second);
  }
}

}  // namespace symmetrize_parts

symmetrize_method symmetrize_named(std::string_view name, std::string_view flag) {
  if (name == "intersect") return symmetrize_method::intersect;
  if (name == "union") return symmetrize_method::union_;
  if (name == "grow-diag-final-and") return symmetrize_method::grow_diag_final_and;
  throw usage_error(
      fmt::format("{}: '{}' is not a way to join two directions (expected "
                  "intersect, union or grow-diag-final-and)",
                  param(std::string(flag)), name));
}

std::vector<word_pair> symmetrize(const std::vector<word_pair>& forward,
                                  const std::vector<word_pair>& reverse, symmetrize_method how) {
  using namespace symmetrize_parts;
  const pair_set f(forward.begin(), forward.end()), r(reverse.begin(), reverse.end());
  pair_set both, joined(f);
  joined.insert(r.begin(), r.end());
  std::set_intersection(f.begin(), f.end(), r.begin(), r.end(), std::inserter(both, both.end()));
  if (how == symmetrize_method::intersect) return {both.begin(), both.end()};
  if (how == symmetrize_method::union_) return {joined.begin(), joined.end()};
  std::set<std::size_t> sources, targets;
  for (const word_pair& p : both) sources.insert(p.first), targets.insert(p.second);
  grow_diag(both, joined, sources, targets);
  final_and(both, forward, sources, targets);
  final_and(both, reverse, sources, targets);
  return {both.begin(), both.end()};
}

}  // namespace attnviz
