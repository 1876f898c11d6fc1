#include "tokenizers/wordpiece.h"

#include <fmt/format.h>

#include "error.h"
#include "text/utf8.h"
#include "tokenizers/unicode_text.h"

namespace attnviz {

namespace {

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
         (c >= 123 && c <= 126) || is_unicode_punctuation(c);
}

}  // namespace

std::string bert_normalize(const std::string& text, const bert_normalizer_options& o) {
  std::u32string s = decode_utf8_lossy(text);
  if (o.clean_text) {
    std::u32string t;
    for (const char32_t c : s) {
      const bool kept_space = c == '\t' || c == '\n' || c == '\r';
      if (c == 0 || c == 0xFFFD || (!kept_space && is_unicode_control(c))) continue;
      t.push_back(is_unicode_whitespace(c) ? U' ' : c);
    }
    s.swap(t);
  }
  if (o.handle_chinese_chars) {
    std::u32string t;
    for (const char32_t c : s) {
      if (is_chinese_char(c)) {
        t.push_back(U' ');
        t.push_back(c);
        t.push_back(U' ');
      } else {
        t.push_back(c);
      }
    }
    s.swap(t);
  }
  if (o.strip_accents.value_or(o.lowercase)) {
    std::u32string t;
    for (const char32_t c : decode_utf8_lossy(nfd(encode_utf8(s))))
      if (!is_nonspacing_mark(c)) t.push_back(c);
    s.swap(t);
  }
  if (o.lowercase)
    for (char32_t& c : s) c = unicode_lower(c);
  return encode_utf8(s);
}

std::vector<std::string> bert_pre_tokenize(const std::string& text) {
  std::vector<std::string> out;
  std::u32string word;
  auto flush = [&] {
    if (!word.empty()) out.push_back(encode_utf8(word));
    word.clear();
  };
  for (const char32_t c : decode_utf8_lossy(text)) {
    if (is_unicode_whitespace(c)) {
      flush();
    } else if (is_bert_punctuation(c)) {
      flush();
      out.push_back(encode_utf8(std::u32string(1, c)));
    } else {
      word.push_back(c);
    }
  }
  flush();
  return out;
}

wordpiece_model::wordpiece_model(std::unordered_map<std::string, std::int64_t> vocab,
                                 std::string unk, std::string prefix, std::size_t max_chars)
    : vocab_(std::move(vocab)), unk_(std::move(unk)), prefix_(std::move(prefix)),
      max_chars_(max_chars) {}

void wordpiece_model::encode(const std::string& word, encoding& out) const {
  const std::u32string chars = decode_utf8_lossy(word);
  auto unknown = [&] {
    const auto it = vocab_.find(unk_);
    if (it == vocab_.end())
      throw input_error(param("text"), fmt::format("'{}' has no WordPiece split and the "
                                                   "vocabulary has no '{}'",
                                                   word, unk_));
    out.ids.push_back(it->second);
    out.tokens.push_back(unk_);
  };
  if (chars.size() > max_chars_) return unknown();
  encoding pieces;
  std::size_t start = 0;
  while (start < chars.size()) {
    std::size_t end = chars.size();
    const std::unordered_map<std::string, std::int64_t>::const_iterator none = vocab_.end();
    auto found = none;
    std::string piece;
    while (start < end) {
      piece = encode_utf8(chars.substr(start, end - start));
      if (start > 0) piece = prefix_ + piece;
      found = vocab_.find(piece);
      if (found != none) break;
      --end;
    }
    if (found == none) return unknown();
    pieces.ids.push_back(found->second);
    pieces.tokens.push_back(piece);
    start = end;
  }
  out.ids.insert(out.ids.end(), pieces.ids.begin(), pieces.ids.end());
  out.tokens.insert(out.tokens.end(), pieces.tokens.begin(), pieces.tokens.end());
}

}  // namespace attnviz
