#include "analysis/query_pick.h"

#include <fmt/format.h>

#include <charconv>

#include "analysis/subwords.h"
#include "error.h"
#include "text/lookup.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

std::optional<std::size_t> whole_number(std::string_view text) {
  std::size_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// The positions of `word`: as written, else without the sub-word marks.
std::vector<std::size_t> occurrences(const std::vector<std::string>& tokens,
                                     const std::string& word) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] == word) at.push_back(i);
  if (at.empty())
    for (std::size_t i = 0; i < tokens.size(); ++i)
      if (strip_subword_mark(tokens[i]) == word) at.push_back(i);
  return at;
}

std::string positions_text(const std::vector<std::size_t>& at) {
  std::string out;
  for (std::size_t k = 0; k < at.size() && k < 10; ++k)
    out += fmt::format("{}{}", k == 0 ? "" : k + 1 == at.size() ? " and " : ", ", at[k]);
  if (at.size() > 10) out += ", …";
  return out;
}

}  // namespace

query_pick pick_query(const std::vector<std::string>& tokens, const std::string& q,
                      std::optional<std::size_t> fallback) {
  if (q.empty() && fallback) return {*fallback, {}};
  if (const auto at = occurrences(tokens, q); !at.empty()) {
    query_pick p{at[0], {}};
    if (at.size() > 1)
      p.note = fmt::format("{} {}: '{}' occurs {} times (positions {}); took the first, position "
                           "{} ({} {}#2 or {} {} takes the second)",
                           param("query"), shorten_for_message(q), shorten_for_message(q),
                           at.size(), positions_text(at), at[0], param("query"),
                           shorten_for_message(q), param("query"), at[1]);
    return p;
  }
  if (const std::size_t hash = q.rfind('#'); hash != std::string::npos && hash > 0)
    if (const auto k = whole_number(std::string_view(q).substr(hash + 1))) {
      const std::string word = q.substr(0, hash);
      const auto at = occurrences(tokens, word);
      if (!at.empty()) {
        if (*k >= 1 && *k <= at.size()) return {at[*k - 1], {}};
        throw usage_error(fmt::format("{} {}: '{}' occurs {} time{} (positions {}; {}#1 is the "
                                      "first)",
                                      param("query"), shorten_for_message(q),
                                      shorten_for_message(word), at.size(),
                                      at.size() == 1 ? "" : "s", positions_text(at),
                                      shorten_for_message(word)));
      }
    }
  if (const auto index = whole_number(q)) {
    if (*index < tokens.size()) return {*index, {}};
    throw usage_error(fmt::format("{} {}: there are {} tokens (positions 0 to {})", param("query"),
                                  q, tokens.size(), tokens.size() - 1));
  }
  throw usage_error(fmt::format("{} '{}' is not one of the tokens ({}) nor a position (from 0) "
                                "or an occurrence (word#2)",
                                param("query"), shorten_for_message(q), list_tokens(tokens)));
}

}  // namespace attnviz
