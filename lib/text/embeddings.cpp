#include "text/embeddings.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "error.h"
#include "io/file_io.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr std::size_t norm_sample_rows = 1000;
// A row of 1M float values is about 10 MiB of text; anything past 64 MiB is not a word vector.
constexpr std::size_t max_line_bytes = 64u << 20;

bool is_sep(char c) {
  return c == ' ' || c == '\t';
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
}

std::string_view preview(std::string_view field) {
  return field.size() > 24 ? field.substr(0, 24) : field;
}

class text_reader {
 public:
  text_reader(const std::string& path, const std::unordered_set<std::string>& wanted,
              std::size_t keep_first = 0)
      : path_(path), wanted_(wanted), keep_first_(keep_first) {
    table_.source = path;
  }

  // Streams the file once in 1 MiB chunks.
  embedding_table run_file() {
    require_regular_file(path_);
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path_.c_str(), "rb"), std::fclose);
    if (!f) throw input_error(path_, fmt::format("cannot open: {}", std::strerror(errno)));
    std::vector<char> buf(1 << 20);
    for (;;) {
      const std::size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
      if (n == 0) break;
      feed(std::string_view(buf.data(), n));
    }
    if (std::ferror(f.get())) throw input_error(path_, "read error");
    return finish();
  }

  embedding_table run_bytes(std::string_view bytes) {
    feed(bytes);
    return finish();
  }

 private:
  // Splits a chunk into lines; a line cut by the chunk's end waits in carry_.
  void feed(std::string_view chunk) {
    std::size_t start = 0;
    for (;;) {
      const auto nl = chunk.find('\n', start);
      if (nl == std::string_view::npos) {
        carry_.append(chunk.substr(start));
        check_line_length(carry_.size());
        return;
      }
      if (carry_.empty()) {
        check_line_length(nl - start);
        line(chunk.substr(start, nl - start));
      } else {
        carry_.append(chunk.substr(start, nl - start));
        check_line_length(carry_.size());
        line(carry_);
        carry_.clear();
      }
      start = nl + 1;
    }
  }

  void check_line_length(std::size_t n) const {
    if (n > max_line_bytes)
      throw input_error(
          path_, line_no_ + 1,
          fmt::format("line longer than {} MiB; is this an embedding file?", max_line_bytes >> 20));
  }

  embedding_table finish() {
    if (!carry_.empty()) line(carry_);
    if (table_.dim == 0 || table_.rows == 0)
      throw input_error(path_, header_ ? "has a header but no vectors"
                                       : "is empty: expected rows of 'token v1 v2 ...'");
    if (header_count_ && *header_count_ != table_.rows)
      throw input_error(
          path_, 1,
          fmt::format("header says {} rows but the file has {}", *header_count_, table_.rows));
    table_.mean_norm = sampled_ ? norm_sum_ / static_cast<double>(sampled_) : 0.0;
    return std::move(table_);
  }

  void line(std::string_view s) {
    ++line_no_;
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    if (line_no_ == 1 && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
    while (!s.empty() && is_sep(s.back())) s.remove_suffix(1);
    if (s.empty()) return;
    if (line_no_ == 1 && try_header(s)) return;

    std::size_t p = 0;
    while (p < s.size() && !is_sep(s[p])) ++p;
    const std::string_view token = s.substr(0, p);
    check_utf8(token);
    const bool keep = (wanted_.count(std::string(token)) || table_.rows < keep_first_) &&
                      !table_.vectors.count(std::string(token));
    const bool sample = sampled_ < norm_sample_rows;
    fields_.clear();
    while (p < s.size()) {
      while (p < s.size() && is_sep(s[p])) ++p;
      const std::size_t b = p;
      while (p < s.size() && !is_sep(s[p])) ++p;
      if (p > b) fields_.push_back(s.substr(b, p - b));
    }
    check_dim(fields_.size());
    ++table_.rows;
    if (keep || sample) {
      values_.resize(fields_.size());
      for (std::size_t k = 0; k < fields_.size(); ++k) values_[k] = parse(fields_[k], k);
      if (sample) {
        double ss = 0;
        for (float v : values_) ss += static_cast<double>(v) * v;
        norm_sum_ += std::sqrt(ss);
        ++sampled_;
      }
      if (keep) table_.vectors.emplace(std::string(token), values_);
    } else {
      for (std::size_t k = 0; k < fields_.size(); ++k)
        for (char c : fields_[k])
          if (!is_number_char(c)) not_a_number(fields_[k], k);
    }
  }

  bool try_header(std::string_view s) {
    unsigned long long a = 0, b = 0;
    const char* end = s.data() + s.size();
    auto r1 = std::from_chars(s.data(), end, a);
    if (r1.ec != std::errc() || r1.ptr == end || !is_sep(*r1.ptr)) return false;
    const char* q = r1.ptr;
    while (q < end && is_sep(*q)) ++q;
    auto r2 = std::from_chars(q, end, b);
    if (r2.ec != std::errc() || r2.ptr != end) return false;
    if (b == 0) throw input_error(path_, 1, "header 'count dim' has dimension 0");
    header_ = true;
    header_count_ = a;
    table_.dim = static_cast<std::size_t>(b);
    dim_line_ = 1;
    return true;
  }

  void check_utf8(std::string_view token) {
    for (unsigned char c : token)
      if (c >= 0x80) {  // only tokens with non-ASCII bytes need the full check
        try {
          decode_utf8(token, path_);
        } catch (const input_error&) {
          throw input_error(path_, line_no_, "the token is not valid UTF-8");
        }
        return;
      }
  }

  void check_dim(std::size_t n) {
    if (n == 0)
      throw input_error(path_, line_no_, "token with no values; expected 'token v1 v2 ...'");
    if (table_.dim == 0) {
      table_.dim = n;
      dim_line_ = line_no_;
      return;
    }
    if (n != table_.dim)
      throw input_error(
          path_, line_no_,
          fmt::format("{} values, expected {} (the dimension set by {} {})", n, table_.dim,
                      header_ && dim_line_ == 1 ? "the header on line" : "line", dim_line_));
  }

  [[noreturn]] void not_a_number(std::string_view field, std::size_t k) {
    throw input_error(path_, line_no_,
                      fmt::format("value {} '{}' is not a number", k + 1, preview(field)));
  }

  float parse(std::string_view field, std::size_t k) {
    float v = 0;
    const char* b = field.data();
    if (*b == '+') ++b;
    auto r = std::from_chars(b, field.data() + field.size(), v);
    if (r.ec == std::errc::result_out_of_range)
      throw input_error(
          path_, line_no_,
          fmt::format("value {} '{}' is outside the float range", k + 1, preview(field)));
    if (r.ec != std::errc() || r.ptr != field.data() + field.size()) not_a_number(field, k);
    if (!std::isfinite(v))
      throw input_error(
          path_, line_no_,
          fmt::format("value {} is {}; expected a finite number", k + 1, preview(field)));
    return v;
  }

  const std::string& path_;
  const std::unordered_set<std::string>& wanted_;
  std::size_t keep_first_ = 0;
  std::string carry_;
  embedding_table table_;
  std::uint64_t line_no_ = 0;
  std::uint64_t dim_line_ = 0;
  bool header_ = false;
  std::optional<std::uint64_t> header_count_;
  std::vector<std::string_view> fields_;
  std::vector<float> values_;
  double norm_sum_ = 0.0;
  std::size_t sampled_ = 0;
};

}  // namespace

const std::vector<float>* embedding_table::find(const std::string& token) const {
  auto it = vectors.find(token);
  return it == vectors.end() ? nullptr : &it->second;
}

embedding_table read_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first) {
  return text_reader(path, wanted, keep_first).run_file();
}

embedding_table parse_embeddings(std::string_view bytes, const std::string& source,
                                 const std::unordered_set<std::string>& wanted) {
  return text_reader(source, wanted).run_bytes(bytes);
}

}  // namespace attnviz
