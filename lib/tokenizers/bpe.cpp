#include "tokenizers/bpe.h"

#include <fmt/format.h>

#include <limits>

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

void bpe_model::encode(const std::string& word, std::vector<std::int64_t>& ids,
                       std::vector<std::string>& tokens) const {
  if (word.empty()) return;
  if (options_.ignore_merges)
    if (const auto it = vocab_.find(word); it != vocab_.end()) {
      ids.push_back(it->second);
      tokens.push_back(word);
      return;
    }
  std::vector<std::string> symbols = characters(word);
  if (!options_.continuing_subword_prefix.empty())
    for (std::size_t i = 1; i < symbols.size(); ++i)
      symbols[i] = options_.continuing_subword_prefix + symbols[i];
  if (!options_.end_of_word_suffix.empty()) symbols.back() += options_.end_of_word_suffix;
  const std::size_t none = std::numeric_limits<std::size_t>::max();
  while (symbols.size() > 1) {
    std::size_t best = none, at = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = ranks_.find(pair_key(symbols[i], symbols[i + 1]));
      if (it != ranks_.end() && it->second < best) best = it->second, at = i;
    }
    if (best == none) break;
    // join every occurrence of that pair, left to right
    const std::string left = symbols[at], right = symbols[at + 1];
    std::vector<std::string> next;
    next.reserve(symbols.size());
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        // the right symbol's continuation prefix goes: "a" + "##b" -> "ab"
        const std::string& prefix = options_.continuing_subword_prefix;
        const bool prefixed = !prefix.empty() && right.compare(0, prefix.size(), prefix) == 0;
        next.push_back(left + (prefixed ? right.substr(prefix.size()) : right));
        ++i;
      } else {
        next.push_back(symbols[i]);
      }
    }
    symbols.swap(next);
  }
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
