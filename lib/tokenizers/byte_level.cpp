#include "tokenizers/byte_level.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <fmt/format.h>
#include <pcre2.h>

#include <array>
#include <cstdint>

#include "error.h"
#include "text/utf8.h"

namespace attnviz {

namespace {

// The code point of each byte in the byte-level alphabet.
std::array<char32_t, 256> byte_code_points() {
  std::array<char32_t, 256> cp{};
  std::array<bool, 256> kept{};
  for (int b = '!'; b <= '~'; ++b) kept[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) kept[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) kept[b] = true;
  char32_t next = 256;
  for (int b = 0; b < 256; ++b) cp[b] = kept[b] ? static_cast<char32_t>(b) : next++;
  return cp;
}

}  // namespace

std::optional<unsigned char> byte_level_byte(char32_t cp) {
  static const std::array<int, 324> byte_of = [] {  // U+0000 … U+0143
    std::array<int, 324> t{};
    t.fill(-1);
    const std::array<char32_t, 256> code = byte_code_points();
    for (int b = 0; b < 256; ++b) t[code[static_cast<std::size_t>(b)]] = b;
    return t;
  }();
  if (cp >= byte_of.size() || byte_of[cp] < 0) return std::nullopt;
  return static_cast<unsigned char>(byte_of[cp]);
}

std::string to_byte_level(std::string_view bytes) {
  static const std::array<char32_t, 256> cp = byte_code_points();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char ch : bytes) append_utf8(out, cp[static_cast<unsigned char>(ch)]);
  return out;
}

regex_splitter::regex_splitter(const std::string& pattern) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                        PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
  if (!code_) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw usage_error(fmt::format("the pattern {} does not compile at byte {}: {}", pattern,
                                  offset, reinterpret_cast<const char*>(message)));
  }
  pcre2_jit_compile(static_cast<pcre2_code*>(code_), PCRE2_JIT_COMPLETE);  // faster when it can
}

regex_splitter::~regex_splitter() {
  if (code_) pcre2_code_free(static_cast<pcre2_code*>(code_));
}

regex_splitter::regex_splitter(regex_splitter&& o) noexcept : code_(o.code_) { o.code_ = nullptr; }

namespace {

// Calls piece(text, is_match) for every match and every non-empty gap, in order.
// Linear in the text: the text's UTF-8 is checked once here, not by every pcre2_match call
// (which, unasked, validates the whole rest of the subject each time: quadratic). Text that is
// not UTF-8 keeps pcre2's check, whose first failure ends the matching (the rest is one piece).
template <class F>
void for_each_piece(void* compiled, std::string_view text, F piece) {
  auto* code = static_cast<pcre2_code*>(compiled);
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(code, nullptr);
  PCRE2_SIZE at = 0, gap = 0;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const std::uint32_t options = is_valid_utf8(text) ? PCRE2_NO_UTF_CHECK : 0;
  while (at <= text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), at, options, match, nullptr);
    if (rc < 0) break;  // no match (or an error on invalid UTF-8: the rest is one piece)
    const PCRE2_SIZE* v = pcre2_get_ovector_pointer(match);
    if (v[0] > gap) piece(text.substr(gap, v[0] - gap), false);
    if (v[1] > v[0]) {
      piece(text.substr(v[0], v[1] - v[0]), true);
      at = v[1];
    } else {  // an empty match: step over one character
      at = v[1] + 1;
      while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
    }
    gap = v[1];
  }
  if (gap < text.size()) piece(text.substr(gap), false);
  pcre2_match_data_free(match);
}

}  // namespace

std::vector<std::string> regex_splitter::split(std::string_view text) const {
  std::vector<std::string> pieces;
  for_each_piece(code_, text, [&](std::string_view p, bool) { pieces.emplace_back(p); });
  return pieces;
}

std::vector<std::string> regex_splitter::matches(std::string_view text) const {
  std::vector<std::string> pieces;
  for_each_piece(code_, text, [&](std::string_view p, bool match) {
    if (match) pieces.emplace_back(p);
  });
  return pieces;
}

std::string regex_splitter::replace_all(std::string_view text, std::string_view content) const {
  std::string out;
  for_each_piece(code_, text, [&](std::string_view p, bool match) {
    if (match)
      out += content;
    else
      out += p;
  });
  return out;
}

const std::string& gpt2_pattern() {
  static const std::string p =
      R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
  return p;
}

}  // namespace attnviz
