#include "tokenizers/token_display.h"

#include <fmt/format.h>

#include <optional>

#include "text/utf8.h"
#include "tokenizers/byte_level.h"

namespace attnviz {
namespace {

// Text with its whitespace and control characters made visible, and each byte that is not part
// of a whole UTF-8 character as <0xNN>.
std::string visible(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    std::size_t len = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3
                                                        : (b & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || i + len > bytes.size() || !is_valid_utf8(bytes.substr(i, len))) {
      out += fmt::format("<0x{:02X}>", b);
      ++i;
      continue;
    }
    if (b == ' ')
      out += "\u00B7";
    else if (b == '\n')
      out += "\u23CE";
    else if (b == '\t')
      out += "\u21E5";
    else if (b < 0x20 || b == 0x7F)
      out += fmt::format("<0x{:02X}>", b);
    else
      out.append(bytes.substr(i, len));
    i += len;
  }
  return out;
}

// "<0x0A>" -> the byte 0x0A (SentencePiece's byte fallback); else none.
std::optional<unsigned char> fallback_byte(std::string_view t) {
  if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return std::nullopt;
  unsigned v = 0;
  for (const char c : t.substr(3, 2)) {
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<unsigned>(d);
  }
  return static_cast<unsigned char>(v);
}

}  // namespace

bool is_byte_level_sequence(const std::vector<std::string>& tokens) {
  bool stand_in = false;
  for (const auto& t : tokens) {
    for (const char32_t cp : decode_utf8_lossy(t)) {
      if (!byte_level_byte(cp)) return false;
      stand_in = stand_in || cp >= 256;
    }
  }
  return stand_in;
}

std::string display_token(std::string_view token, bool byte_level) {
  if (byte_level) {
    std::string bytes;
    for (const char32_t cp : decode_utf8_lossy(token)) {
      const auto b = byte_level_byte(cp);
      if (!b) return display_token(token, false);  // not spelled in the alphabet after all
      bytes.push_back(static_cast<char>(*b));
    }
    return visible(bytes);
  }
  if (const auto b = fallback_byte(token); b && (*b < 0x21 || *b == 0x7F))
    return visible(std::string(1, static_cast<char>(*b)));
  std::string text;  // SentencePiece's space mark, U+2581, is a space
  for (std::size_t at = 0; at < token.size();) {
    if (token.substr(at, 3) == "\u2581") {
      text += ' ';
      at += 3;
    } else {
      text += token[at++];
    }
  }
  return visible(text);
}

std::vector<std::string> display_tokens(const std::vector<std::string>& tokens) {
  const bool byte_level = is_byte_level_sequence(tokens);
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (const auto& t : tokens) out.push_back(display_token(t, byte_level));
  return out;
}

namespace {

// "<0xNN>" as its byte, or −1.
int byte_piece(std::string_view t) {
  if (t.size() != 6 || t.substr(0, 3) != "<0x" || t[5] != '>') return -1;
  int v = 0;
  for (const char c : t.substr(3, 2)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return -1;
    v = v * 16 + digit;
  }
  return v;
}

}  // namespace

std::string tokens_to_text(const std::vector<std::string>& tokens) {
  std::string bytes;
  if (is_byte_level_sequence(tokens)) {
    for (const auto& t : tokens)
      for (const char32_t cp : decode_utf8_lossy(t)) bytes.push_back(static_cast<char>(*byte_level_byte(cp)));
  } else {
    constexpr std::string_view space = "\xe2\x96\x81";  // ▁
    for (const auto& t : tokens) {
      if (const int b = byte_piece(t); b >= 0) {
        bytes.push_back(static_cast<char>(b));
        continue;
      }
      for (std::size_t at = 0; at < t.size();) {
        if (t.compare(at, space.size(), space) == 0) {
          bytes.push_back(' ');
          at += space.size();
        } else {
          bytes.push_back(t[at++]);
        }
      }
    }
  }
  if (!bytes.empty() && bytes.front() == ' ') bytes.erase(0, 1);
  return encode_utf8(decode_utf8_lossy(bytes));
}

}  // namespace attnviz
