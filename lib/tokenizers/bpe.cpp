#include "tokenizers/bpe.h"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <queue>

#include "error.h"

namespace attnviz {

namespace {

std::string pair_key(const std::string& a, const std::string& b) {
  std::string k;
  k.reserve(a.size() + b.size() + 1);
  k += a;
  k += '\x01';
  k += b;
  return k;
}

// The UTF-8 characters of s.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

bpe_model::bpe_model(std::unordered_map<std::string, std::int64_t> vocab,
                     const std::vector<std::pair<std::string, std::string>>& merges,
                     bpe_options options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
  ranks_.reserve(merges.size());
  for (std::size_t r = 0; r < merges.size(); ++r)
    ranks_.emplace(pair_key(merges[r].first, merges[r].second), r);  // the first rank wins
}

std::size_t bpe_model::rank(const std::string& left, const std::string& right) const {
  const auto it = ranks_.find(pair_key(left, right));
  return it == ranks_.end() ? std::numeric_limits<std::size_t>::max() : it->second;
}

// Symbols: a doubly linked list over the characters (a merged symbol keeps its left index, so
// index order is text order). Candidates: a min-heap of (rank, left index); a candidate is
// stale when its pair has changed since it was pushed (its left symbol merged away, or either
// side grown), which the rank of the pair as it now stands tells.
//   pass: pop the lowest (rank, position); skip it when stale; join right into left; push the
//         new pairs with the neighbours on both sides.
std::vector<std::string> bpe_model::merge(const std::string& word) const {
  std::vector<std::string> sym = characters(word);
  if (!options_.continuing_subword_prefix.empty())
    for (std::size_t i = 1; i < sym.size(); ++i)
      sym[i] = options_.continuing_subword_prefix + sym[i];
  if (!options_.end_of_word_suffix.empty()) sym.back() += options_.end_of_word_suffix;
  const std::size_t none = std::numeric_limits<std::size_t>::max(), n = sym.size();
  std::vector<std::size_t> prev(n), next(n);
  for (std::size_t i = 0; i < n; ++i) {
    prev[i] = i ? i - 1 : none;
    next[i] = i + 1 < n ? i + 1 : none;
  }
  std::vector<bool> alive(n, true);
  using candidate = std::pair<std::size_t, std::size_t>;  // (rank, left index)
  std::priority_queue<candidate, std::vector<candidate>, std::greater<>> heap;
  auto push = [&](std::size_t left) {
    if (left == none || next[left] == none) return;
    const std::size_t r = rank(sym[left], sym[next[left]]);
    if (r != none) heap.emplace(r, left);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);
  const std::string& prefix = options_.continuing_subword_prefix;
  while (!heap.empty()) {
    const auto [r, left] = heap.top();
    heap.pop();
    if (!alive[left] || next[left] == none || rank(sym[left], sym[next[left]]) != r) continue;
    const std::size_t right = next[left];
    // the right symbol's continuation prefix goes: "a" + "##b" -> "ab"
    const bool prefixed = !prefix.empty() && sym[right].compare(0, prefix.size(), prefix) == 0;
    sym[left] += prefixed ? sym[right].substr(prefix.size()) : sym[right];
    alive[right] = false;
    next[left] = next[right];
    if (next[right] != none) prev[next[right]] = left;
    push(prev[left]);
    push(left);
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < n; i = next[i]) {
    out.push_back(std::move(sym[i]));
    if (next[i] == none) break;
  }
  return out;
}

void bpe_model::encode(const std::string& word, std::vector<std::int64_t>& ids,
                       std::vector<std::string>& tokens) const {
  if (word.empty()) return;
  if (options_.ignore_merges)
    if (const auto it = vocab_.find(word); it != vocab_.end()) {
      ids.push_back(it->second);
      tokens.push_back(word);
      return;
    }
  const std::vector<std::string> symbols = merge(word);
  for (const auto& s : symbols) {
    if (const auto it = vocab_.find(s); it != vocab_.end()) {
      ids.push_back(it->second);
      tokens.push_back(s);
      continue;
    }
    if (options_.byte_fallback) {
      bool all = true;
      std::vector<std::pair<std::int64_t, std::string>> bytes;
      for (const char ch : s) {
        const std::string b = fmt::format("<0x{:02X}>", static_cast<unsigned char>(ch));
        const auto it = vocab_.find(b);
        if (it == vocab_.end()) {
          all = false;
          break;
        }
        bytes.emplace_back(it->second, b);
      }
      if (all) {
        for (auto& [id, t] : bytes) ids.push_back(id), tokens.push_back(std::move(t));
        continue;
      }
    }
    if (!options_.unk.empty())
      if (const auto it = vocab_.find(options_.unk); it != vocab_.end()) {
        ids.push_back(it->second);
        tokens.push_back(options_.unk);
        continue;
      }
    throw input_error(param("text"),
                      fmt::format("the piece '{}' is not in the tokenizer's vocabulary, which "
                                  "has no unknown token",
                                  s));
  }
}

}  // namespace attnviz
