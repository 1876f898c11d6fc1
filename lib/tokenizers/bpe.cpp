#include "tokenizers/bpe.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>

#include "error.h"

namespace attnviz {

namespace {

constexpr std::uint32_t unnumbered = std::numeric_limits<std::uint32_t>::max();

std::uint64_t pair_key(std::uint32_t left, std::uint32_t right) {
  return static_cast<std::uint64_t>(left) << 32 | right;
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

// Each merge (a, b) at rank r: a, b and what they become numbered; the joined text drops the
// right symbol's continuation prefix ("a" + "##b" -> "ab"). The first rank of a pair wins.
bpe_model::bpe_model(std::unordered_map<std::string, std::int64_t> vocab,
                     const std::vector<std::pair<std::string, std::string>>& merges,
                     bpe_options options)
    : vocab_(std::move(vocab)), options_(std::move(options)) {
  const std::string& prefix = options_.continuing_subword_prefix;
  rules_.reserve(merges.size());
  // a merge names at most one new symbol beyond the characters its parts start from
  symbol_of_.reserve(merges.size() + 512);
  symbols_.reserve(merges.size() + 512);
  symbol_token_.reserve(merges.size() + 512);
  for (std::size_t r = 0; r < merges.size(); ++r) {
    const auto& [a, b] = merges[r];
    const bool prefixed = !prefix.empty() && b.compare(0, prefix.size(), prefix) == 0;
    const std::uint32_t left = intern(a), right = intern(b);
    const std::uint32_t joined = intern(a + (prefixed ? b.substr(prefix.size()) : b));
    rules_.emplace(pair_key(left, right), merge_rule{static_cast<std::uint32_t>(r), joined});
  }
  if (options_.byte_fallback)
    for (int b = 0; b < 256; ++b) {
      const auto it = vocab_.find(fmt::format("<0x{:02X}>", b));
      byte_tokens_.push_back(it == vocab_.end() ? -1 : it->second);
    }
}

std::uint32_t bpe_model::intern(const std::string& text) {
  const auto [it, added] =
      symbol_of_.try_emplace(text, static_cast<std::uint32_t>(symbols_.size()));
  if (added) {
    symbols_.push_back(text);
    const auto id = vocab_.find(text);
    symbol_token_.push_back(id == vocab_.end() ? -1 : id->second);
  }
  return it->second;
}

const bpe_model::merge_rule* bpe_model::rule(std::uint32_t left, std::uint32_t right) const {
  if (left == unnumbered || right == unnumbered) return nullptr;
  const auto it = rules_.find(pair_key(left, right));
  return it == rules_.end() ? nullptr : &it->second;
}

// Symbols: a doubly linked list over the characters (a merged symbol keeps its left index, so
// index order is text order). Candidates: a min-heap of (rank, left index); a candidate is
// stale when its pair has changed since it was pushed (its left symbol merged away, or either
// side grown), which the rank of the pair as it now stands tells.
//   pass: pop the lowest (rank, position); skip it when stale; the left symbol becomes the
//         rule's joined one; push the new pairs with the neighbours on both sides.
void bpe_model::merge(const std::string& word, std::vector<std::uint32_t>& out,
                      std::vector<std::string>& unnamed) const {
  std::vector<std::string> text = characters(word);
  if (!options_.continuing_subword_prefix.empty())
    for (std::size_t i = 1; i < text.size(); ++i)
      text[i] = options_.continuing_subword_prefix + text[i];
  if (!options_.end_of_word_suffix.empty()) text.back() += options_.end_of_word_suffix;
  const std::size_t none = std::numeric_limits<std::size_t>::max(), n = text.size();
  std::vector<std::uint32_t> sym(n);
  std::vector<std::size_t> prev(n), next(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto it = symbol_of_.find(text[i]);
    sym[i] = it == symbol_of_.end() ? unnumbered : it->second;
    prev[i] = i ? i - 1 : none;
    next[i] = i + 1 < n ? i + 1 : none;
  }
  using candidate = std::pair<std::uint32_t, std::size_t>;  // (rank, left index)
  std::priority_queue<candidate, std::vector<candidate>, std::greater<>> heap;
  auto push = [&](std::size_t left) {
    if (left == none || next[left] == none) return;
    if (const merge_rule* m = rule(sym[left], sym[next[left]])) heap.emplace(m->rank, left);
  };
  for (std::size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const auto [r, left] = heap.top();
    heap.pop();
    if (sym[left] == unnumbered || next[left] == none) continue;
    const merge_rule* m = rule(sym[left], sym[next[left]]);
    if (!m || m->rank != r) continue;
    const std::size_t right = next[left];
    sym[left] = m->joined;
    sym[right] = unnumbered;  // gone: never read again, as nothing links to it
    next[left] = next[right];
    if (next[right] != none) prev[next[right]] = left;
    push(prev[left]);
    push(left);
  }
  for (std::size_t i = 0; i != none; i = next[i]) {
    out.push_back(sym[i]);
    unnamed.push_back(sym[i] == unnumbered ? std::move(text[i]) : std::string());
  }
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
  std::vector<std::uint32_t> symbols;
  std::vector<std::string> unnamed;
  merge(word, symbols, unnamed);
  for (std::size_t i = 0; i < symbols.size(); ++i) {
    const std::uint32_t s = symbols[i];
    if (s != unnumbered && symbol_token_[s] >= 0) {
      ids.push_back(symbol_token_[s]);
      tokens.push_back(symbols_[s]);
    } else {
      emit(s == unnumbered ? unnamed[i] : symbols_[s], ids, tokens);
    }
  }
}

void bpe_model::emit(const std::string& s, std::vector<std::int64_t>& ids,
                     std::vector<std::string>& tokens) const {
  if (const auto it = vocab_.find(s); it != vocab_.end()) {
    ids.push_back(it->second);
    tokens.push_back(s);
    return;
  }
  if (options_.byte_fallback &&
      std::all_of(s.begin(), s.end(),
                  [&](char ch) { return byte_tokens_[static_cast<unsigned char>(ch)] >= 0; })) {
    for (const char ch : s) {
      const auto b = static_cast<unsigned char>(ch);
      ids.push_back(byte_tokens_[b]);
      tokens.push_back(fmt::format("<0x{:02X}>", b));
    }
    return;
  }
  if (!options_.unk.empty())
    if (const auto it = vocab_.find(options_.unk); it != vocab_.end()) {
      ids.push_back(it->second);
      tokens.push_back(options_.unk);
      return;
    }
  throw input_error(param("text"),
                    fmt::format("the piece '{}' is not in the tokenizer's vocabulary, which "
                                "has no unknown token",
                                s));
}

}  // namespace attnviz
