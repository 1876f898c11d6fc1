#include "tokenizers/sentencepiece_file.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "error.h"
#include "io/file_io.h"

namespace attnviz {

namespace {

// One protobuf message's fields, read in order; offsets are from the start of the file.
class proto_reader {
 public:
  proto_reader(std::string_view bytes, std::size_t base, const std::string& path)
      : b_(bytes), base_(base), path_(path) {}

  bool done() const { return at_ == b_.size(); }
  // The next field's number and wire type.
  std::pair<std::uint64_t, int> key() {
    const std::uint64_t k = varint();
    const int wire = static_cast<int>(k & 7);
    if (k >> 3 == 0 || (wire != 0 && wire != 1 && wire != 2 && wire != 5))
      fail(fmt::format("a protobuf field key (number ≥ 1, wire type 0, 1, 2 or 5), got {:#x}", k));
    return {k >> 3, wire};
  }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ >= b_.size()) fail("a varint, found the end of the data");
      const auto c = static_cast<unsigned char>(b_[at_++]);
      v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if (c < 0x80) return v;
    }
    fail("a varint of at most 10 bytes");
  }
  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > b_.size() - at_)
      fail(fmt::format("{} bytes of a length-delimited field, only {} remain", n, b_.size() - at_));
    const std::string_view v = b_.substr(at_, n);
    at_ += n;
    return v;
  }
  // Where the last bytes() began, from the file's start (for a nested reader).
  std::size_t offset_of(std::string_view inner) const {
    return base_ + static_cast<std::size_t>(inner.data() - b_.data());
  }
  float fixed32_float() {
    if (b_.size() - at_ < 4) fail("a 32-bit value, found the end of the data");
    std::uint32_t bits = 0;
    for (int i = 0; i < 4; ++i)
      bits |= static_cast<std::uint32_t>(static_cast<unsigned char>(b_[at_ + i])) << (8 * i);
    at_ += 4;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  void skip(int wire) {
    if (wire == 0) varint();
    else if (wire == 2) bytes();
    else skip_fixed(wire == 1 ? 8 : 4);
  }
  std::int64_t int32_value() { return static_cast<std::int32_t>(varint()); }
  [[noreturn]] void fail(const std::string& expected) const {
    throw input_error::at_offset(path_, base_ + at_,
                                 fmt::format("expected {} (a SentencePiece model file)", expected));
  }

 private:
  void skip_fixed(std::size_t n) {
    if (b_.size() - at_ < n) fail(fmt::format("a {}-byte value, found the end of the data", n));
    at_ += n;
  }
  std::string_view b_;
  std::size_t base_, at_ = 0;
  const std::string& path_;
};

sp_piece read_piece(proto_reader r) {
  sp_piece p;
  while (!r.done()) {
    const auto [field, wire] = r.key();
    if (field == 1 && wire == 2) p.piece = std::string(r.bytes());
    else if (field == 2 && wire == 5) {
      p.score = r.fixed32_float();
      if (!std::isfinite(p.score)) r.fail(fmt::format("a finite score, got {}", p.score));
    }
    else if (field == 3 && wire == 0) {
      const std::uint64_t t = r.varint();
      if (t < 1 || t > 6) r.fail(fmt::format("a piece type from 1 to 6, got {}", t));
      p.type = static_cast<sp_piece_type>(t);
    } else r.skip(wire);
  }
  return p;
}

void read_trainer(proto_reader r, sp_model_file& m) {
  while (!r.done()) {
    const auto [field, wire] = r.key();
    if (wire != 0) { r.skip(wire); continue; }
    switch (field) {
      case 3: m.model_type = static_cast<int>(r.varint()); break;
      case 24: m.treat_whitespace_as_suffix = r.varint() != 0; break;
      case 35: m.byte_fallback = r.varint() != 0; break;
      case 40: m.unk_id = r.int32_value(); break;
      case 41: m.bos_id = r.int32_value(); break;
      case 42: m.eos_id = r.int32_value(); break;
      case 43: m.pad_id = r.int32_value(); break;
      default: r.varint();
    }
  }
}

void read_normalizer(proto_reader r, sp_model_file& m) {
  while (!r.done()) {
    const auto [field, wire] = r.key();
    if (field == 1 && wire == 2) m.normalizer_name = std::string(r.bytes());
    else if (field == 2 && wire == 2) m.charsmap = std::string(r.bytes());
    else if (field == 3 && wire == 0) m.add_dummy_prefix = r.varint() != 0;
    else if (field == 4 && wire == 0) m.remove_extra_whitespaces = r.varint() != 0;
    else if (field == 5 && wire == 0) m.escape_whitespaces = r.varint() != 0;
    else r.skip(wire);
  }
}

}  // namespace

sp_model_file parse_sentencepiece_file(std::string_view bytes, const std::string& path) {
  sp_model_file m;
  proto_reader r(bytes, 0, path);
  while (!r.done()) {
    const auto [field, wire] = r.key();
    if (wire != 2 || field > 3) { r.skip(wire); continue; }
    const std::string_view inner = r.bytes();
    const proto_reader nested(inner, r.offset_of(inner), path);
    if (field == 1) m.pieces.push_back(read_piece(nested));
    else if (field == 2) read_trainer(nested, m);
    else read_normalizer(nested, m);
  }
  if (m.pieces.empty())
    throw input_error(path, "expected a SentencePiece model (a ModelProto with pieces), found no "
                            "pieces");
  return m;
}

sp_model_file read_sentencepiece_file(const std::string& path) {
  return parse_sentencepiece_file(read_whole_file(path), path);
}

}  // namespace attnviz
