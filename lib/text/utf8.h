// UTF-8 decoding and the few Unicode character classes the tokenizer needs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attnviz {

// Code points of `text`. Invalid UTF-8 (bad lead or continuation bytes, overlong forms,
// surrogates, > U+10FFFF, truncated sequences) is an input_error naming `source` and the
// byte offset.
std::u32string decode_utf8(std::string_view text, const std::string& source);
// Same, but invalid sequences become U+FFFD instead of an error (for display).
std::u32string decode_utf8_lossy(std::string_view text);
// Whether every byte of `text` belongs to a valid UTF-8 sequence (one linear pass).
bool is_valid_utf8(std::string_view text) noexcept;
// Bytes of the valid UTF-8 sequence `text` starts with (1 to 4), 0 when it starts with an
// invalid one or is empty.
std::size_t utf8_sequence_length(std::string_view text) noexcept;

void append_utf8(std::string& out, char32_t cp);
std::string encode_utf8(std::u32string_view cps);

bool is_space(char32_t cp) noexcept;        // separators, incl. NBSP, ideographic space
bool is_control(char32_t cp) noexcept;      // C0/C1 controls, zero-width marks, BOM
bool is_punctuation(char32_t cp) noexcept;  // ASCII, Latin-1, General, CJK and fullwidth punct.
bool is_cjk(char32_t cp) noexcept;          // ideographs and kana: one token per character
bool is_digit(char32_t cp) noexcept;        // ASCII 0-9
bool is_letter_like(char32_t cp) noexcept;  // anything that is none of the above

// Terminal columns a code point takes: 2 for CJK, Hangul and fullwidth forms, 0 for controls
// and zero-width marks, 1 otherwise.
int display_width(char32_t cp) noexcept;
int display_width(std::string_view utf8);

// A token or line as a message shows it: whole when it has at most `max_chars` characters,
// else its first `max_chars` characters and "… (N bytes)". Invalid UTF-8 shows as U+FFFD.
std::string shorten_for_message(std::string_view text, std::size_t max_chars = 40);

// Simple lower-casing: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic capitals.
char32_t to_lower(char32_t cp) noexcept;

}  // namespace attnviz
