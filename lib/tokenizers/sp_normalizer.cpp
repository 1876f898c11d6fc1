#include "tokenizers/sp_normalizer.h"

#include <fmt/format.h>

#include "error.h"
#include "text/utf8.h"

namespace attnviz {

namespace {

constexpr std::string_view space_symbol = "\xe2\x96\x81";  // ▁
constexpr std::string_view replacement = "\xef\xbf\xbd";   // U+FFFD

std::uint32_t read_u32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

bool has_leaf(std::uint32_t u) { return (u >> 8) & 1; }
std::uint32_t value_of(std::uint32_t u) { return u & 0x7fffffffu; }
std::uint32_t label_of(std::uint32_t u) { return u & 0x800000ffu; }
std::uint32_t offset_of(std::uint32_t u) { return (u >> 10) << ((u & 0x200u) >> 6); }

}  // namespace

sp_normalizer::sp_normalizer(std::string charsmap, sp_normalizer_options options,
                             std::string source)
    : options_(std::move(options)), source_(std::move(source)) {
  if (charsmap.empty()) return;
  if (charsmap.size() < 4)
    throw input_error(source_, "precompiled_charsmap: expected a 4-byte trie size, found fewer "
                               "bytes");
  const std::uint32_t trie = read_u32(charsmap, 0);
  if (trie % 4 != 0 || trie == 0 || trie > charsmap.size() - 4)
    throw input_error(source_, fmt::format("precompiled_charsmap: the trie size {} is not a "
                                           "non-zero multiple of 4 within the {} bytes",
                                           trie, charsmap.size() - 4));
  units_.resize(trie / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) units_[i] = read_u32(charsmap, 4 + 4 * i);
  strings_ = charsmap.substr(4 + trie);
}

std::pair<std::size_t, std::uint32_t> sp_normalizer::longest_match(std::string_view input) const {
  std::pair<std::size_t, std::uint32_t> best{0, 0};
  if (units_.empty()) return best;
  std::size_t node = offset_of(units_[0]);
  for (std::size_t i = 0; i < input.size(); ++i) {
    const auto c = static_cast<unsigned char>(input[i]);
    node ^= c;
    if (node >= units_.size()) break;
    const std::uint32_t unit = units_[node];
    if (label_of(unit) != c) break;
    node ^= offset_of(unit);
    if (!has_leaf(unit)) continue;
    if (node >= units_.size())
      throw input_error(source_, fmt::format("precompiled_charsmap: a trie leaf at unit {} is "
                                             "outside its {} units",
                                             node, units_.size()));
    best = {i + 1, value_of(units_[node])};
  }
  return best;
}

std::size_t sp_normalizer::user_defined_prefix(std::string_view input) const {
  std::size_t longest = 0;
  for (const auto& u : options_.user_defined)
    if (u.size() > longest && input.substr(0, u.size()) == u) longest = u.size();
  return longest;
}

std::pair<std::string_view, std::size_t> sp_normalizer::normalize_prefix(
    std::string_view input) const {
  if (const std::size_t n = user_defined_prefix(input)) return {input.substr(0, n), n};
  const auto [length, value] = longest_match(input);
  if (length == 0) {
    const std::size_t n = utf8_sequence_length(input);
    if (n == 0) return {replacement, 1};
    return {input.substr(0, n), n};
  }
  if (value >= strings_.size())
    throw input_error(source_, fmt::format("precompiled_charsmap: a replacement at byte {} is "
                                           "past its {} bytes of strings",
                                           value, strings_.size()));
  const std::size_t end = strings_.find('\0', value);
  if (end == std::string::npos)
    throw input_error(source_, fmt::format("precompiled_charsmap: the replacement at byte {} has "
                                           "no terminating NUL",
                                           value));
  return {std::string_view(strings_).substr(value, end - value), length};
}

std::string sp_normalizer::normalize(std::string_view input) const {
  const std::string_view space = options_.escape_whitespaces ? space_symbol : " ";
  std::string out;
  if (options_.remove_extra_whitespaces)
    while (!input.empty()) {
      const auto [piece, used] = normalize_prefix(input);
      if (piece != " ") break;
      input.remove_prefix(used);
    }
  if (input.empty()) return out;
  if (options_.add_dummy_prefix && !options_.treat_whitespace_as_suffix) out += space;
  bool previous_space = options_.remove_extra_whitespaces;
  while (!input.empty()) {
    auto [piece, used] = normalize_prefix(input);
    while (previous_space && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    if (!piece.empty()) {
      for (const char c : piece) {
        if (c == ' ' && options_.escape_whitespaces) out += space_symbol;
        else out += c;
      }
      previous_space = piece.back() == ' ';
    }
    input.remove_prefix(used);
    previous_space = previous_space && options_.remove_extra_whitespaces;
  }
  if (options_.remove_extra_whitespaces)
    while (out.size() >= space.size() && out.compare(out.size() - space.size(), space.size(), space) == 0)
      out.resize(out.size() - space.size());
  if (options_.add_dummy_prefix && options_.treat_whitespace_as_suffix) out += space;
  return out;
}

}  // namespace attnviz
