#include "text/embeddings.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

#include "error.h"
#include "io/byte_source.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr std::size_t norm_sample_rows = 1000;
// A row of 1M float values is about 10 MiB of text; anything past 64 MiB is not a word vector.
constexpr std::size_t max_line_bytes = 64u << 20;
// word2vec binary tokens are words; 64 KiB without a space means the file is not one.
constexpr std::size_t max_token_bytes = 64u << 10;
constexpr std::size_t chunk_bytes = 1u << 20;
// The largest word2vec binary dimension accepted (4 MiB per vector), so a damaged header cannot
// ask for an absurd buffer.
constexpr std::uint64_t max_binary_dim = 1u << 20;

bool is_sep(char c) {
  return c == ' ' || c == '\t';
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E';
}

// 0: any other byte, 1: field separator, 2: a character numbers are written with.
struct char_classes {
  unsigned char of[256] = {};
  char_classes() {
    for (int c = 0; c < 256; ++c)
      of[c] = is_sep(static_cast<char>(c)) ? 1 : is_number_char(static_cast<char>(c)) ? 2 : 0;
  }
};
const char_classes classes;

std::string_view preview(std::string_view field) {
  return field.size() > 24 ? field.substr(0, 24) : field;
}

// Keeps the rows asked for and says when nothing more is needed: every wanted token found, the
// first keep_first rows and the norm sample read.
class collector {
 public:
  collector(const std::string& source, const std::unordered_set<std::string>& wanted,
            std::size_t keep_first, const embedding_row_sink* sink = nullptr)
      : wanted_(wanted), keep_first_(keep_first), sink_(sink) {
    table.source = source;
  }

  // Whether the next row (with this token) is kept; call before counting it.
  bool keeps(std::string_view token) {
    key_.assign(token.data(), token.size());
    if (sink_) return seen_.insert(key_).second;  // every first occurrence, to the sink
    const bool is_wanted = wanted_.count(key_) != 0;
    const bool keep = (is_wanted || table.rows < keep_first_) && !table.vectors.count(key_);
    next_found_ = keep && is_wanted;
    return keep;
  }
  bool samples() const noexcept { return sampled_ < norm_sample_rows; }

  // The next row: its values when kept or sampled.
  void row(bool keep, const std::vector<float>& values) {
    ++table.rows;
    if (samples()) {
      double ss = 0;
      for (float v : values) ss += static_cast<double>(v) * v;
      norm_sum_ += std::sqrt(ss);
      ++sampled_;
    }
    if (keep && sink_) {
      (*sink_)(key_, table.rows - 1, values);
      return;
    }
    if (keep) table.vectors.emplace(key_, values);
    if (next_found_) ++found_;
  }
  void skipped_row() { ++table.rows; }

  bool satisfied() const noexcept {
    if (sink_) return false;  // a scan reads everything
    return found_ == wanted_.size() && table.rows >= keep_first_ && sampled_ >= norm_sample_rows;
  }

  embedding_table finish() {
    table.mean_norm = sampled_ ? norm_sum_ / static_cast<double>(sampled_) : 0.0;
    return std::move(table);
  }

  embedding_table table;

 private:
  const std::unordered_set<std::string>& wanted_;
  std::size_t keep_first_;
  const embedding_row_sink* sink_;
  std::unordered_set<std::string> seen_;  // a scan's tokens so far (the first row wins)
  std::string key_;                       // reused: no allocation per row
  bool next_found_ = false;
  std::size_t found_ = 0;
  double norm_sum_ = 0.0;
  std::size_t sampled_ = 0;
};

// `where(message)` makes the error with the caller's position; a template, not std::function,
// since this runs for every row of the file.
template <class Where>
void check_token_utf8(std::string_view token, const std::string& source, const Where& where) {
  for (unsigned char c : token)
    if (c >= 0x80) {  // only tokens with non-ASCII bytes need the full check
      try {
        decode_utf8(token, source);
      } catch (const input_error&) {
        throw where("the token is not valid UTF-8");
      }
      return;
    }
}

// "count dim" with two integers, or nothing.
std::optional<std::pair<std::uint64_t, std::uint64_t>> parse_header(std::string_view s) {
  unsigned long long a = 0, b = 0;
  const char* end = s.data() + s.size();
  auto r1 = std::from_chars(s.data(), end, a);
  if (r1.ec != std::errc() || r1.ptr == end || !is_sep(*r1.ptr)) return std::nullopt;
  const char* q = r1.ptr;
  while (q < end && is_sep(*q)) ++q;
  auto r2 = std::from_chars(q, end, b);
  if (r2.ec != std::errc() || r2.ptr != end) return std::nullopt;
  return std::make_pair(std::uint64_t{a}, std::uint64_t{b});
}

// A line without its CR and trailing separators (and, on line 1, without a UTF-8 BOM).
std::string_view trimmed_line(std::string_view s, bool first) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  if (first && s.substr(0, 3) == "\xEF\xBB\xBF") s.remove_prefix(3);
  while (!s.empty() && is_sep(s.back())) s.remove_suffix(1);
  return s;
}

// Text or binary, from the first bytes of the file (see embeddings.h): binary needs a header,
// a second line that is not a text row of dim numbers, and, in the 4·dim bytes after the first
// token, a byte no text row has (a control byte or one >= 0x80: float32 data always has them).
embedding_format detect_format(std::string_view head) {
  const auto nl = head.find('\n');
  if (nl == std::string_view::npos) return embedding_format::text;
  const auto header = parse_header(trimmed_line(head.substr(0, nl), true));
  if (!header || header->second == 0) return embedding_format::text;
  const std::string_view rest = head.substr(nl + 1);
  const std::string_view second = trimmed_line(rest.substr(0, rest.find('\n')), false);
  std::size_t p = 0;
  while (p < second.size() && !is_sep(second[p])) ++p;
  std::size_t fields = 0;
  bool numbers = true, in_field = false;
  for (std::size_t q = p; q < second.size(); ++q) {
    const unsigned char k = classes.of[static_cast<unsigned char>(second[q])];
    if (k == 1) {
      in_field = false;
    } else {
      if (!in_field) ++fields;
      in_field = true;
      numbers = numbers && k == 2;
    }
  }
  if (numbers && fields == header->second) return embedding_format::text;
  const auto space = rest.find(' ');
  if (space == std::string_view::npos) return embedding_format::text;
  const std::string_view data = rest.substr(space + 1, 4 * header->second);
  for (unsigned char c : data)
    if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r'))
      return embedding_format::word2vec_binary;
  return embedding_format::text;
}

// Fields after position p of a line (s[p] is the separator after the token, or p is the end)
// and whether any byte is neither a separator nor a number character. A field starts where a
// non-separator follows a separator. 16 bytes at a time with vector compares (the lane masks
// are 0x00 / 0xff, so a popcount / 8 counts lanes); the tail byte by byte.
struct field_scan {
  std::size_t count;
  bool other;
};
field_scan scan_fields(std::string_view s, std::size_t p) {
  using u8x16 = unsigned char __attribute__((vector_size(16)));
  if (p >= s.size()) return {0, false};
  const char* b = s.data();
  std::size_t count = 0, q = p + 1;
  u8x16 other{};
  const auto sep_of = [](u8x16 c) -> u8x16 { return (c == ' ') | (c == '\t'); };
  for (; q + 16 <= s.size(); q += 16) {
    u8x16 c, before;
    std::memcpy(&c, b + q, 16);
    std::memcpy(&before, b + q - 1, 16);
    const u8x16 sep = sep_of(c);
    const u8x16 number =
        ((c - '0') < 10) | (c == '.') | (c == '-') | (c == '+') | (c == 'e') | (c == 'E');
    const u8x16 starts = ~sep & sep_of(before);
    other |= ~(sep | number);
    std::uint64_t half[2];
    std::memcpy(half, &starts, 16);
    count +=
        static_cast<std::size_t>(__builtin_popcountll(half[0]) + __builtin_popcountll(half[1])) / 8;
  }
  bool any_other = false;
  for (int l = 0; l < 16; ++l) any_other = any_other || other[l] != 0;
  for (; q < s.size(); ++q) {
    const bool sep = is_sep(b[q]);
    count += !sep && is_sep(b[q - 1]);
    any_other = any_other || !(sep || is_number_char(b[q]));
  }
  return {count, any_other};
}

class text_reader {
 public:
  text_reader(const std::string& path, collector& out) : path_(path), out_(out) {}

  // Splits a chunk into lines; a line cut by the chunk's end waits in carry_. Returns false
  // once the collector is satisfied (the rest of the file is not needed).
  bool feed(std::string_view chunk) {
    std::size_t start = 0;
    for (;;) {
      const auto nl = chunk.find('\n', start);
      if (nl == std::string_view::npos) {
        carry_.append(chunk.substr(start));
        check_line_length(carry_.size());
        return true;
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
      if (out_.satisfied()) {
        unread_ = chunk.size() - start;
        return false;
      }
    }
  }

  // Bytes of the last chunk fed that were not read (feed returned false).
  std::size_t unread() const noexcept { return unread_; }

  // At the end of the file (complete) or when stopped early.
  embedding_table finish(bool complete) {
    if (complete && !carry_.empty()) line(carry_);
    embedding_table& t = out_.table;
    if (t.dim == 0 || t.rows == 0)
      throw input_error(path_, header_ ? "has a header but no vectors"
                                       : "is empty: expected rows of 'token v1 v2 ...'");
    if (complete && header_count_ && *header_count_ != t.rows)
      throw input_error(
          path_, 1, fmt::format("header says {} rows but the file has {}", *header_count_, t.rows));
    t.complete = complete;
    return out_.finish();
  }

 private:
  void check_line_length(std::size_t n) const {
    if (n > max_line_bytes)
      throw input_error(
          path_, line_no_ + 1,
          fmt::format("line longer than {} MiB; is this an embedding file?", max_line_bytes >> 20));
  }

  void line(std::string_view s) {
    ++line_no_;
    s = trimmed_line(s, line_no_ == 1);
    if (s.empty()) return;
    if (line_no_ == 1 && try_header(s)) return;

    std::size_t p = 0;
    while (p < s.size() && !is_sep(s[p])) ++p;
    const std::string_view token = s.substr(0, p);
    check_token_utf8(token, path_, [&](std::string m) { return input_error(path_, line_no_, m); });
    const bool keep = out_.keeps(token);
    if (!keep && !out_.samples()) {  // the common row: count fields, check characters, one pass
      const auto [count, other] = scan_fields(s, p);
      check_dim(count);
      if (other) {  // find the field to name it
        split(s, p);
        for (std::size_t k = 0; k < fields_.size(); ++k)
          for (char c : fields_[k])
            if (!is_number_char(c)) not_a_number(fields_[k], k);
      }
      out_.skipped_row();
      return;
    }
    split(s, p);
    check_dim(fields_.size());
    values_.resize(fields_.size());
    for (std::size_t k = 0; k < fields_.size(); ++k) values_[k] = parse(fields_[k], k);
    out_.row(keep, values_);
  }

  void split(std::string_view s, std::size_t p) {
    fields_.clear();
    while (p < s.size()) {
      while (p < s.size() && is_sep(s[p])) ++p;
      const std::size_t b = p;
      while (p < s.size() && !is_sep(s[p])) ++p;
      if (p > b) fields_.push_back(s.substr(b, p - b));
    }
  }

  bool try_header(std::string_view s) {
    const auto h = parse_header(s);
    if (!h) return false;
    if (h->second == 0) throw input_error(path_, 1, "header 'count dim' has dimension 0");
    header_ = true;
    header_count_ = h->first;
    out_.table.dim = static_cast<std::size_t>(h->second);
    dim_line_ = 1;
    return true;
  }

  void check_dim(std::size_t n) {
    if (n == 0)
      throw input_error(path_, line_no_, "token with no values; expected 'token v1 v2 ...'");
    std::size_t& dim = out_.table.dim;
    if (dim == 0) {
      dim = n;
      dim_line_ = line_no_;
      return;
    }
    if (n != dim)
      throw input_error(
          path_, line_no_,
          fmt::format("{} values, expected {} (the dimension set by {} {})", n, dim,
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
  collector& out_;
  std::string carry_;
  std::size_t unread_ = 0;
  std::uint64_t line_no_ = 0;
  std::uint64_t dim_line_ = 0;
  bool header_ = false;
  std::optional<std::uint64_t> header_count_;
  std::vector<std::string_view> fields_;
  std::vector<float> values_;
};

// word2vec binary: "count dim\n", then count times: token ' ' float32[dim] (little-endian),
// each optionally followed by '\n'. Errors give the byte offset.
class binary_reader {
 public:
  binary_reader(byte_source& src, collector& out, std::string head)
      : src_(src), out_(out), buf_(std::move(head)) {}

  embedding_table run() {
    const auto nl = buf_.find('\n');
    const auto header = parse_header(trimmed_line(std::string_view(buf_).substr(0, nl), true));
    const std::uint64_t count = header->first;
    if (header->second > max_binary_dim)
      throw input_error(src_.path(), 1,
                        fmt::format("header 'count dim' has dimension {}, more than {}; is this a "
                                    "word2vec binary file?",
                                    header->second, max_binary_dim));
    const std::size_t dim = static_cast<std::size_t>(header->second);
    out_.table.dim = dim;
    pos_ = nl + 1;
    if (count == 0) throw input_error(src_.path(), 1, "has a header but no vectors");
    const std::size_t bytes = 4 * dim;
    values_.resize(dim);
    bool complete = true;
    for (std::uint64_t r = 0; r < count; ++r) {
      skip_newlines();
      if (!ensure(1))
        throw error_here(
            fmt::format("the header says {} vectors but the file ends after {}", count, r));
      const std::uint64_t token_at = offset();
      std::size_t len = 0;
      for (;;) {  // the token runs to the next space
        const auto sp = std::string_view(buf_).substr(pos_, end() - pos_).find(' ', len);
        if (sp != std::string_view::npos) {
          len = sp;
          break;
        }
        len = end() - pos_;
        if (len > max_token_bytes)
          throw error_here(
              fmt::format("no space within {} KiB; expected a word, a space and {} "
                          "float32 values (word2vec binary)",
                          max_token_bytes >> 10, dim));
        if (!ensure(len + 1))
          throw error_here(fmt::format("the file ends inside word {} of {}", r + 1, count));
      }
      if (len == 0) throw error_here("empty word; expected a word, a space and the values");
      const bool whole = ensure(len + 1 + bytes);  // the buffer stays put until the next row
      const std::string_view token(buf_.data() + pos_, len);
      check_token_utf8(token, src_.path(), [&](std::string m) {
        return input_error::at_offset(src_.path(), token_at, m);
      });
      const bool keep = out_.keeps(token);
      pos_ += len + 1;
      const std::uint64_t values_at = offset();
      if (!whole)
        throw error_here(
            fmt::format("the vector of word {} ('{}') is cut short: expected {} "
                        "bytes ({} float32), the file ends after {}",
                        r + 1, preview(token), bytes, dim, end() - pos_));
      if (keep || out_.samples()) {
        for (std::size_t k = 0; k < dim; ++k) {
          const auto* b = reinterpret_cast<const unsigned char*>(buf_.data() + pos_ + 4 * k);
          const std::uint32_t u = std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 |
                                  std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
          float v;
          std::memcpy(&v, &u, sizeof v);
          if (!std::isfinite(v))
            throw input_error::at_offset(
                src_.path(), values_at + 4 * k,
                fmt::format("value {} of '{}' is {}; expected a finite number", k + 1,
                            preview(token),
                            std::isnan(v) ? "NaN"
                            : v > 0       ? "inf"
                                          : "-inf"));
          values_[k] = v;
        }
        out_.row(keep, values_);
      } else {
        out_.skipped_row();
      }
      pos_ += bytes;
      if (out_.satisfied() && r + 1 < count) {
        complete = false;
        break;
      }
    }
    if (complete) {
      skip_newlines();
      if (ensure(1))
        throw error_here(fmt::format("more data after the {} vectors the header announces", count));
    }
    out_.table.complete = complete;
    return out_.finish();
  }

  std::uint64_t offset() const { return consumed_ + pos_; }

 private:
  std::size_t end() const { return buf_.size(); }

  // At least n bytes from pos_ in the buffer, reading more as needed; false at the file's end.
  bool ensure(std::size_t n) {
    while (end() - pos_ < n) {
      if (pos_ > 0) {  // drop what was read
        buf_.erase(0, pos_);
        consumed_ += pos_;
        pos_ = 0;
      }
      // a chunk at a time, but never more than bytes in memory still hold (a zero-filled MiB per
      // call made short inputs slow: the fuzzer ran 155 k of them in 180 s)
      const std::size_t old = buf_.size();
      const std::size_t left = src_.size_hint(SIZE_MAX);
      buf_.resize(old + std::max<std::size_t>(1, std::min(std::max(chunk_bytes, n - old), left)));
      const std::size_t got = src_.read(buf_.data() + old, buf_.size() - old);
      buf_.resize(old + got);
      if (got == 0) return false;
    }
    return true;
  }

  void skip_newlines() {
    while (ensure(1) && (buf_[pos_] == '\n' || buf_[pos_] == '\r')) ++pos_;
  }

  input_error error_here(const std::string& message) const {
    return input_error::at_offset(src_.path(), offset(), message);
  }

  byte_source& src_;
  collector& out_;
  std::string buf_;
  std::size_t pos_ = 0;
  std::uint64_t consumed_ = 0;  // bytes dropped from the buffer's front
  std::vector<float> values_;
};

// Reads the first bytes (enough to tell the format), then streams the rest to the right reader.
embedding_table read_source(byte_source& src, const std::unordered_set<std::string>& wanted,
                            std::size_t keep_first, const embedding_row_sink* sink = nullptr) {
  collector out(src.path(), wanted, keep_first, sink);
  std::string head(std::min(chunk_bytes, src.size_hint(chunk_bytes)), '\0');
  std::size_t have = 0;
  while (have < head.size()) {  // gzip may deliver less than asked
    const std::size_t got = src.read(head.data() + have, head.size() - have);
    if (got == 0) break;
    have += got;
  }
  head.resize(have);
  // a fastText model (.bin) starts with its magic number 793712314, int32 little-endian
  if (head.size() >= 4 && head.compare(0, 4, std::string_view("\xBA\x16\x4F\x2F", 4)) == 0)
    throw input_error(src.path(), "is a fastText model (.bin: its magic number 793712314 at byte "
                                  "0), not word vectors; use the .vec file fastText writes beside "
                                  "it (or `fasttext print-word-vectors model.bin < words`)");
  embedding_format format = detect_format(head);
  embedding_table table;
  if (format == embedding_format::word2vec_binary) {
    binary_reader reader(src, out, std::move(head));
    table = reader.run();
  } else {
    text_reader reader(src.path(), out);
    bool more = reader.feed(head);
    std::vector<char> buf(
        std::max<std::size_t>(1, std::min(chunk_bytes, src.size_hint(chunk_bytes))));
    bool complete = true;
    while (more) {
      const std::size_t n = src.read(buf.data(), buf.size());
      if (n == 0) break;
      more = reader.feed(std::string_view(buf.data(), n));
    }
    if (!more)  // stopped: complete only if nothing was left
      complete = reader.unread() == 0 && src.read(buf.data(), 1) == 0;
    table = reader.finish(complete);
  }
  table.format = format;
  table.compressed = src.compressed();
  table.bytes_read = src.offset();
  return table;
}

}  // namespace

const std::vector<float>* embedding_table::find(const std::string& token) const {
  auto it = vectors.find(token);
  return it == vectors.end() ? nullptr : &it->second;
}

std::string_view embedding_format_name(embedding_format f) {
  return f == embedding_format::word2vec_binary ? "word2vec binary" : "text";
}

embedding_table read_embeddings(const std::string& path,
                                const std::unordered_set<std::string>& wanted,
                                std::size_t keep_first) {
  byte_source src(path);
  return read_source(src, wanted, keep_first);
}

embedding_table scan_embeddings(const std::string& path, const embedding_row_sink& sink) {
  byte_source src(path);
  return read_source(src, {}, 0, &sink);
}

embedding_table parse_embeddings(std::string_view bytes, const std::string& source,
                                 const std::unordered_set<std::string>& wanted) {
  byte_source src(bytes, source);
  return read_source(src, wanted, 0);
}

}  // namespace attnviz
