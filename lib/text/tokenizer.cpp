#include "text/tokenizer.h"

#include <set>

#include "text/utf8.h"

namespace attnviz {
namespace {

bool is_apostrophe(char32_t cp) {
  return cp == U'\'' || cp == 0x2019;
}

class token_builder {
 public:
  explicit token_builder(bool keep_case) : keep_case_(keep_case) {}
  void push(char32_t cp) { current_.push_back(keep_case_ ? cp : to_lower(cp)); }
  void flush() {
    if (!current_.empty()) tokens_.push_back(encode_utf8(current_));
    current_.clear();
  }
  void single(std::u32string_view cps) {
    flush();
    current_ = cps;
    flush();
  }
  std::u32string& current() { return current_; }
  std::vector<std::string> take() {
    flush();
    return std::move(tokens_);
  }

 private:
  bool keep_case_;
  std::u32string current_;
  std::vector<std::string> tokens_;
};

}  // namespace

namespace {

// True when some whitespace has a CJK character right before and right after it (我 爱): the
// user spaced the Chinese/Japanese words, so each run between spaces is a word.
bool spaces_cjk_words(const std::u32string& cps) {
  for (std::size_t i = 1; i < cps.size(); ++i) {
    if (!is_space(cps[i]) || !is_cjk(cps[i - 1])) continue;
    std::size_t j = i;
    while (j < cps.size() && is_space(cps[j])) ++j;
    if (j < cps.size() && is_cjk(cps[j])) return true;
    i = j;
  }
  return false;
}

}  // namespace

bool splits_cjk_runs(std::string_view text) {
  const std::u32string cps = decode_utf8_lossy(text);
  if (spaces_cjk_words(cps)) return false;
  for (std::size_t i = 1; i < cps.size(); ++i)
    if (is_cjk(cps[i - 1]) && is_cjk(cps[i])) return true;
  return false;
}

std::vector<std::string> tokenize(std::string_view text, const tokenizer_options& options,
                                  const std::string& source) {
  const std::u32string cps = decode_utf8(text, source);
  token_builder out(options.keep_case);
  const std::size_t n = cps.size();
  const bool cjk_words = spaces_cjk_words(cps);
  for (std::size_t i = 0; i < n; ++i) {
    const char32_t cp = cps[i];
    const char32_t prev = i > 0 ? cps[i - 1] : 0;
    const char32_t next = i + 1 < n ? cps[i + 1] : 0;
    if (is_space(cp) || is_control(cp)) {
      out.flush();
    } else if (is_cjk(cp)) {
      std::size_t j = i + 1;
      if (cjk_words)
        while (j < n && is_cjk(cps[j])) ++j;
      out.single(std::u32string(cps, i, j - i));
      i = j - 1;
    } else if ((cp == U'.' || cp == U',') && is_digit(prev) && is_digit(next) &&
               !out.current().empty()) {
      out.push(cp);
    } else if (is_apostrophe(cp) && i > 0 && is_letter_like(prev) && is_letter_like(next) &&
               !out.current().empty()) {
      // Clitic: "don't" -> "do" "n't" when the word ends in n; otherwise "it" "'s".
      std::u32string& cur = out.current();
      const bool nt = (next == U't' || next == U'T') &&
                      (cur.back() == U'n' || cur.back() == U'N') && cur.size() > 1 &&
                      !(i + 2 < n && is_letter_like(cps[i + 2]));
      char32_t carried = 0;
      if (nt) {
        carried = cur.back();
        cur.pop_back();
      }
      out.flush();
      if (nt) out.push(carried);
      out.push(U'\'');
    } else if (is_punctuation(cp)) {
      std::size_t j = i + 1;
      if (cp < 0x80)
        while (j < n && cps[j] == cp) ++j;
      out.single(std::u32string(j - i, cp));
      i = j - 1;
    } else {
      out.push(cp);
    }
  }
  return out.take();
}

std::vector<std::string> split_pretokenized(std::string_view text, const std::string& source) {
  const std::u32string cps = decode_utf8(text, source);
  std::vector<std::string> tokens;
  std::u32string cur;
  for (char32_t cp : cps) {
    if (is_space(cp) || is_control(cp)) {
      if (!cur.empty()) tokens.push_back(encode_utf8(cur));
      cur.clear();
    } else {
      cur.push_back(cp);
    }
  }
  if (!cur.empty()) tokens.push_back(encode_utf8(cur));
  return tokens;
}

std::string lower_case(std::string_view token) {
  std::string out;
  for (char32_t cp : decode_utf8_lossy(token)) append_utf8(out, to_lower(cp));
  return out;
}

std::vector<std::vector<std::string>> split_sentences(std::string_view text,
                                                      const tokenizer_options& options,
                                                      const std::string& source) {
  static const std::set<std::string> enders = {".", "!", "?", "…", "。", "！", "？"};
  std::vector<std::vector<std::string>> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::vector<std::string> current;
    for (auto& token : tokenize(text.substr(start, end - start), options, source)) {
      const bool last = enders.count(token) != 0;
      current.push_back(std::move(token));
      if (last) out.push_back(std::move(current)), current.clear();
    }
    if (!current.empty()) out.push_back(std::move(current));
    start = end + 1;
  }
  return out;
}

}  // namespace attnviz
