#include "analysis/word_alignment.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>

#include "analysis/subwords.h"
#include "error.h"
#include "io/file_io.h"

namespace attnviz {

namespace {

bool special(const std::string& word) {
  return word.size() >= 3 && ((word.front() == '<' && word.back() == '>') ||
                              (word.front() == '[' && word.back() == ']'));
}

// The words of a piece sequence without the special tokens, and each kept word's pieces.
struct kept_words {
  std::vector<std::string> words;
  std::vector<std::pair<std::size_t, std::size_t>> pieces;  // [first, end)
};

kept_words words_of(const std::vector<std::string>& pieces) {
  const word_spans s = group_subwords(pieces);
  kept_words k;
  for (std::size_t w = 0; w < s.size(); ++w) {
    if (special(s.words[w]) && s.starts[w + 1] - s.starts[w] == 1) continue;
    k.words.push_back(s.words[w]);
    k.pieces.emplace_back(s.starts[w], s.starts[w + 1]);
  }
  return k;
}

std::size_t whole_number(std::string_view text, const std::string& source, std::size_t line,
                         std::string_view item) {
  std::size_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw input_error(source, line,
                      fmt::format("'{}' is not an alignment pair (expected i-j, i?j or i-j-P "
                                  "with word numbers from 0)",
                                  item));
  return v;
}

}  // namespace

word_map cross_words(const float* map, const std::vector<std::string>& target_pieces,
                     const std::vector<std::string>& source_pieces) {
  const kept_words t = words_of(target_pieces), s = words_of(source_pieces);
  const std::size_t ns = source_pieces.size();
  word_map out;
  out.source_words = s.words;
  out.target_words = t.words;
  out.values = matrix(t.words.size(), s.words.size());
  for (std::size_t J = 0; J < t.words.size(); ++J) {
    const auto [r0, r1] = t.pieces[J];
    for (std::size_t I = 0; I < s.words.size(); ++I) {
      const auto [c0, c1] = s.pieces[I];
      double sum = 0.0;
      for (std::size_t r = r0; r < r1; ++r)
        for (std::size_t c = c0; c < c1; ++c) sum += map[r * ns + c];
      out.values(J, I) = static_cast<float>(sum / static_cast<double>(r1 - r0));
    }
  }
  return out;
}

std::vector<word_pair> best_links(const matrix& m, bool by_rows, bool null) {
  std::vector<word_pair> out;
  const std::size_t lines = by_rows ? m.rows() : m.cols(), length = by_rows ? m.cols() : m.rows();
  for (std::size_t a = 0; a < lines && length > 0; ++a) {
    const auto at = [&](std::size_t b) { return by_rows ? m(a, b) : m(b, a); };
    std::size_t best = 0;
    double sum = 0.0;
    for (std::size_t b = 0; b < length; ++b) {
      sum += at(b);
      if (at(b) > at(best)) best = b;
    }
    if (null && at(best) < 1.0 - sum) continue;
    out.push_back(by_rows ? word_pair(best, a) : word_pair(a, best));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<word_pair> align_words(const matrix& m, align_method method) {
  std::vector<word_pair> rows = best_links(m, true, method == align_method::argmax_null);
  if (method != align_method::intersect) return rows;
  const std::vector<word_pair> cols = best_links(m, false, false);
  std::vector<word_pair> out;
  std::set_intersection(rows.begin(), rows.end(), cols.begin(), cols.end(),
                        std::back_inserter(out));
  return out;
}

gold_alignment parse_pharaoh(std::string_view line, const std::string& source,
                             std::size_t line_no) {
  gold_alignment g;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && (line[at] == ' ' || line[at] == '\t' || line[at] == '\r')) ++at;
    std::size_t end = at;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
    if (end == at) break;
    const std::string_view item = line.substr(at, end - at);
    at = end;
    const std::size_t sep = item.find_first_of("-?");
    if (sep == std::string_view::npos)
      throw input_error(source, line_no,
                        fmt::format("'{}' is not an alignment pair (expected i-j, i?j or i-j-P)",
                                    item));
    std::string_view rest = item.substr(sep + 1);
    bool possible = item[sep] == '?';
    if (rest.size() >= 2 && rest[rest.size() - 2] == '-' &&
        (rest.back() == 'P' || rest.back() == 'S')) {
      possible = possible || rest.back() == 'P';
      rest.remove_suffix(2);
    }
    const word_pair p{whole_number(item.substr(0, sep), source, line_no, item),
                      whole_number(rest, source, line_no, item)};
    if (!possible) g.sure.insert(p);
    g.possible.insert(p);
  }
  return g;
}

std::string format_pharaoh(const std::vector<word_pair>& pairs) {
  std::string out;
  for (const auto& [i, j] : pairs) out += fmt::format("{}{}-{}", out.empty() ? "" : " ", i, j);
  return out;
}

gold_alignment read_gold_file(const std::string& path) {
  std::string text = read_whole_file(path);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.find('\n') != std::string::npos)
    throw input_error(path, 2, "expected one line: the gold alignment of this one sentence pair "
                               "(Pharaoh i-j sure, i?j possible)");
  return parse_pharaoh(text, path, 1);
}

void check_gold_words(const gold_alignment& g, const word_map& w, const std::string& path) {
  for (const auto& [i, j] : g.possible)
    if (i >= w.source_words.size() || j >= w.target_words.size())
      throw input_error(path, 1, fmt::format("the pair {}-{} names a word past the texts' {} "
                                             "source and {} target words (counted from 0, "
                                             "special tokens left out)",
                                             i, j, w.source_words.size(), w.target_words.size()));
}

void alignment_counts::add(const std::vector<word_pair>& a, const gold_alignment& g) {
  predicted += a.size();
  sure += g.sure.size();
  for (const word_pair& p : a) {
    hit_sure += g.sure.count(p);
    hit_possible += g.possible.count(p);
  }
}

double alignment_counts::precision() const {
  return predicted == 0 ? 0.0 : static_cast<double>(hit_possible) / static_cast<double>(predicted);
}

double alignment_counts::recall() const {
  return sure == 0 ? 0.0 : static_cast<double>(hit_sure) / static_cast<double>(sure);
}

double alignment_counts::aer() const {
  const std::size_t denominator = predicted + sure;
  return denominator == 0 ? 0.0
                          : 1.0 - static_cast<double>(hit_sure + hit_possible) /
                                      static_cast<double>(denominator);
}

}  // namespace attnviz
