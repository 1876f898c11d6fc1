#include "params/gguf.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "error.h"

namespace attnviz {

namespace {

constexpr int kMaxDims = 4;         // ggml's GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 4;   // arrays of arrays of …: deeper is refused, not recursed
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 62;


std::string value_type_name(gguf_value_type t) {
  static const char* const names[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                      "bool", "string", "array", "u64", "i64", "f64"};
  const auto i = static_cast<std::uint32_t>(t);
  return i < 13 ? names[i] : fmt::format("type {}", i);
}

// The smallest encoding of one value of type t (to bound counts before reading them).
std::uint64_t min_size(gguf_value_type t) {
  switch (t) {
    case gguf_value_type::u8: case gguf_value_type::i8: case gguf_value_type::boolean: return 1;
    case gguf_value_type::u16: case gguf_value_type::i16: return 2;
    case gguf_value_type::u32: case gguf_value_type::i32: case gguf_value_type::f32: return 4;
    case gguf_value_type::array: return 12;
    default: return 8;  // u64, i64, f64, string (its length)
  }
}

class reader {
 public:
  reader(const unsigned char* b, std::size_t n, const std::string& source)
      : b_(b), n_(n), source_(source) {}

  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const {
    throw input_error::at_offset(source_, at, what);
  }
  std::uint64_t at() const { return at_; }
  std::uint64_t left() const { return n_ - at_; }

  const unsigned char* take(std::uint64_t bytes, const char* what) {
    if (bytes > left())
      fail(at_, fmt::format("the file ends inside {} ({} bytes needed, {} left)", what, bytes,
                            left()));
    const unsigned char* p = b_ + at_;
    at_ += bytes;
    return p;
  }
  template <class T>
  T number(const char* what) {
    T v;
    std::memcpy(&v, take(sizeof v, what), sizeof v);  // little-endian hosts (x86-64, arm64)
    return v;
  }
  std::string text(const char* what) {
    const std::uint64_t start = at_;
    const auto len = number<std::uint64_t>(what);
    if (len > left())
      fail(start, fmt::format("{} is {} bytes long, past the end of the file ({} bytes left)",
                              what, len, left()));
    const unsigned char* p = take(len, what);
    return std::string(reinterpret_cast<const char*>(p), len);
  }

 private:
  const unsigned char* b_;
  std::uint64_t n_;
  const std::string& source_;
  std::uint64_t at_ = 0;
};

gguf_value_type value_type(reader& r, const std::string& key) {
  const std::uint64_t at = r.at();
  const auto t = r.number<std::uint32_t>("a value type");
  if (t > 12)
    r.fail(at, fmt::format("'{}' has value type {}: expected 0-12 (u8 … f64)", key, t));
  return static_cast<gguf_value_type>(t);
}

nlohmann::json scalar(reader& r, gguf_value_type t) {
  switch (t) {
    case gguf_value_type::u8: return r.number<std::uint8_t>("a u8");
    case gguf_value_type::i8: return r.number<std::int8_t>("an i8");
    case gguf_value_type::u16: return r.number<std::uint16_t>("a u16");
    case gguf_value_type::i16: return r.number<std::int16_t>("an i16");
    case gguf_value_type::u32: return r.number<std::uint32_t>("a u32");
    case gguf_value_type::i32: return r.number<std::int32_t>("an i32");
    case gguf_value_type::f32: return r.number<float>("an f32");
    case gguf_value_type::boolean: {
      const std::uint64_t at = r.at();
      const auto v = r.number<std::uint8_t>("a bool");
      if (v > 1) r.fail(at, fmt::format("a bool is {}: expected 0 or 1", v));
      return v == 1;
    }
    case gguf_value_type::string: return r.text("a string");
    case gguf_value_type::u64: return r.number<std::uint64_t>("a u64");
    case gguf_value_type::i64: return r.number<std::int64_t>("an i64");
    default: return r.number<double>("an f64");
  }
}

nlohmann::json value(reader& r, gguf_value_type t, const std::string& key, int depth,
                     gguf_value_type* item_type = nullptr) {
  if (t != gguf_value_type::array) return scalar(r, t);
  const std::uint64_t at = r.at();
  if (depth >= kMaxArrayDepth)
    r.fail(at, fmt::format("'{}' nests arrays more than {} deep", key, kMaxArrayDepth));
  const gguf_value_type items = value_type(r, key);
  const auto count = r.number<std::uint64_t>("an array's length");
  if (count > r.left() / min_size(items))
    r.fail(at, fmt::format("'{}' says it holds {} items of {}, more than the {} bytes left",
                           key, count, value_type_name(items), r.left()));
  if (item_type) *item_type = items;
  nlohmann::json list = nlohmann::json::array();
  for (std::uint64_t i = 0; i < count; ++i) list.push_back(value(r, items, key, depth + 1));
  return list;
}

void read_metadata(reader& r, std::uint64_t count, gguf_header& h) {
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t at = r.at();
    std::string key = r.text("a metadata key");
    gguf_value v;
    v.type = value_type(r, key);
    v.value = value(r, v.type, key, 0, &v.item_type);
    if (!h.metadata.emplace(key, std::move(v)).second)
      r.fail(at, fmt::format("the metadata key '{}' appears twice", key));
  }
}

std::uint64_t alignment_of(const gguf_header& h, const std::string& source) {
  const auto it = h.metadata.find("general.alignment");
  if (it == h.metadata.end()) return 32;
  const gguf_value& v = it->second;
  if (v.type != gguf_value_type::u32 || v.value.get<std::uint64_t>() == 0 ||
      (v.value.get<std::uint64_t>() & (v.value.get<std::uint64_t>() - 1)) != 0)
    throw input_error(source, fmt::format("general.alignment is {} {}: expected a u32 power of "
                                          "two",
                                          gguf_type_name(v), v.value.dump()));
  return v.value.get<std::uint64_t>();
}

gguf_tensor_info tensor_info(reader& r) {
  const std::uint64_t at = r.at();
  gguf_tensor_info t;
  t.name = r.text("a tensor name");
  const auto n_dims = r.number<std::uint32_t>("a tensor's dimension count");
  if (n_dims == 0 || n_dims > kMaxDims)
    r.fail(at, fmt::format("tensor '{}' has {} dimensions: expected 1 to {}", t.name, n_dims,
                           kMaxDims));
  std::uint64_t count = 1;
  for (std::uint32_t d = 0; d < n_dims; ++d) {
    const auto dim = r.number<std::uint64_t>("a tensor's dimensions");
    if (dim == 0 || dim > kMaxCount / count)
      r.fail(at, fmt::format("tensor '{}' has a dimension of {}: expected 1 or more, with fewer "
                             "than 2^62 elements in all",
                             t.name, dim));
    count *= dim;
    t.dims.push_back(dim);
  }
  const auto type = r.number<std::uint32_t>("a tensor's type");
  const auto info = ggml_type_of(type);
  if (!info)
    r.fail(at, fmt::format("tensor '{}' is {}, which attn-viz does not read (it reads {})",
                           t.name, ggml_type_name(type), ggml_supported_types()));
  t.type = info->type;
  if (t.dims[0] % info->block != 0)
    r.fail(at, fmt::format("tensor '{}' has rows of {} elements: {} stores whole blocks of {}",
                           t.name, t.dims[0], info->name, info->block));
  t.bytes = count / info->block * info->block_bytes;
  t.offset = r.number<std::uint64_t>("a tensor's offset");
  return t;
}

// Every tensor aligned, inside the file and apart from the others.
void check_placement(gguf_header& h, std::uint64_t size, const std::string& source) {
  std::vector<const gguf_tensor_info*> by_offset;
  for (const auto& t : h.tensors) {
    if (t.offset % h.alignment != 0)
      throw input_error(source, fmt::format("tensor '{}' starts at offset {} of the data section, "
                                            "not a multiple of the alignment {}",
                                            t.name, t.offset, h.alignment));
    const std::uint64_t room = size - h.data_start;
    if (t.offset > room || t.bytes > room - t.offset)
      throw input_error::at_offset(
          source, h.data_start + t.offset,
          fmt::format("tensor '{}' ({} bytes at offset {} of the data section) runs past the end "
                      "of the file ({} bytes of data)",
                      t.name, t.bytes, t.offset, room));
    by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const auto* a, const auto* b) { return a->offset < b->offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i - 1]->offset + by_offset[i - 1]->bytes > by_offset[i]->offset)
      throw input_error(source, fmt::format("tensors '{}' and '{}' overlap in the data section",
                                            by_offset[i - 1]->name, by_offset[i]->name));
}

}  // namespace

std::uint64_t gguf_tensor_info::count() const {
  std::uint64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

bool is_gguf(const unsigned char* bytes, std::size_t size) {
  return size >= 4 && std::memcmp(bytes, "GGUF", 4) == 0;
}

std::string gguf_type_name(const gguf_value& v) {
  if (v.type != gguf_value_type::array) return value_type_name(v.type);
  return "array of " + value_type_name(v.item_type);
}

gguf_header parse_gguf_header(const unsigned char* bytes, std::size_t size,
                              const std::string& source) {
  reader r(bytes, size, source);
  if (!is_gguf(bytes, size))
    r.fail(0, "is not a GGUF file (expected the magic 'GGUF' in its first 4 bytes)");
  r.take(4, "the magic");
  gguf_header h;
  h.version = r.number<std::uint32_t>("the version");
  if (h.version != 2 && h.version != 3)
    r.fail(4, h.version == 1 ? "is GGUF version 1, which attn-viz does not read (expected 2 or 3: "
                               "convert it again with a current llama.cpp)"
              : (h.version & 0xffffu) == 0 ? fmt::format("has version {}: a big-endian GGUF file, "
                                                         "which attn-viz does not read",
                                                         h.version)
                                           : fmt::format("has version {}: expected 2 or 3",
                                                         h.version));
  const auto tensors = r.number<std::uint64_t>("the tensor count");
  const auto entries = r.number<std::uint64_t>("the metadata count");
  if (entries > r.left() / 12) r.fail(16, fmt::format("says it holds {} metadata entries, more "
                                                      "than its {} bytes can", entries, size));
  if (tensors > r.left() / 24) r.fail(8, fmt::format("says it holds {} tensors, more than its "
                                                     "{} bytes can", tensors, size));
  read_metadata(r, entries, h);
  h.alignment = alignment_of(h, source);
  std::map<std::string, std::uint64_t> seen;
  for (std::uint64_t i = 0; i < tensors; ++i) {
    const std::uint64_t at = r.at();
    h.tensors.push_back(tensor_info(r));
    if (!seen.emplace(h.tensors.back().name, at).second)
      r.fail(at, fmt::format("tensor '{}' appears twice", h.tensors.back().name));
  }
  const std::uint64_t end = r.at();
  h.data_start = (end + h.alignment - 1) / h.alignment * h.alignment;
  if (h.data_start > size) h.data_start = size;
  check_placement(h, size, source);
  return h;
}

const gguf_value* gguf_keys::find(const std::string& key) const {
  const auto it = h_.metadata.find(key);
  return it == h_.metadata.end() ? nullptr : &it->second;
}

void gguf_keys::fail(const std::string& key, const std::string& expected) const {
  const gguf_value* v = find(key);
  throw input_error(source_, v ? fmt::format("metadata '{}': expected {}, got {} {}", key,
                                             expected, gguf_type_name(*v),
                                             v->value.is_array()
                                                 ? fmt::format("of {} items", v->value.size())
                                                 : v->value.dump(-1, ' ', false,
                                                                 nlohmann::json::error_handler_t::replace))
                                       : fmt::format("has no metadata '{}' ({})", key, expected));
}

std::uint64_t gguf_keys::size(const std::string& key) const {
  const gguf_value* v = find(key);
  if (!v || !v->value.is_number_integer() || v->value.get<std::int64_t>() < 1 ||
      (v->value.is_number_unsigned() && v->value.get<std::uint64_t>() > (std::uint64_t{1} << 32)) ||
      (!v->value.is_number_unsigned() && v->value.get<std::int64_t>() > (std::int64_t{1} << 32)))
    fail(key, "a whole number from 1 to 2^32");
  return v->value.get<std::uint64_t>();
}

std::uint64_t gguf_keys::size_or(const std::string& key, std::uint64_t fallback) const {
  return has(key) ? size(key) : fallback;
}

std::optional<std::uint64_t> gguf_keys::index(const std::string& key) const {
  const gguf_value* v = find(key);
  if (!v) return std::nullopt;
  if (!v->value.is_number_integer() || v->value.get<std::int64_t>() < 0)
    fail(key, "a whole number from 0");
  return v->value.get<std::uint64_t>();
}

double gguf_keys::number_or(const std::string& key, double fallback) const {
  const gguf_value* v = find(key);
  if (!v) return fallback;
  if (!v->value.is_number()) fail(key, "a number");
  return v->value.get<double>();
}

std::string gguf_keys::text_or(const std::string& key, const std::string& fallback) const {
  const gguf_value* v = find(key);
  if (!v) return fallback;
  if (!v->value.is_string()) fail(key, "a string");
  return v->value.get<std::string>();
}

bool gguf_keys::flag_or(const std::string& key, bool fallback) const {
  const gguf_value* v = find(key);
  if (!v) return fallback;
  if (!v->value.is_boolean()) fail(key, "a bool");
  return v->value.get<bool>();
}

const nlohmann::json& gguf_keys::array(const std::string& key, gguf_value_type t) const {
  const gguf_value* v = find(key);
  if (!v || v->type != gguf_value_type::array || (v->item_type != t && !v->value.empty()))
    fail(key, "an array of " + value_type_name(t));
  return v->value;
}

std::string find_gguf(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    std::ifstream in(path, std::ios::binary);
    unsigned char magic[4] = {};
    in.read(reinterpret_cast<char*>(magic), 4);
    return is_gguf(magic, static_cast<std::size_t>(in.gcount())) ? path : std::string();
  }
  if (!fs::is_directory(path, ec) || fs::exists(fs::path(path) / "config.json", ec)) return {};
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".gguf") found.push_back(e.path().filename().string());
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw input_error(path, fmt::format("holds {} .gguf files ({}): give the one to run as --model",
                                        found.size(), fmt::join(found, ", ")));
  }
  return found.empty() ? std::string() : (fs::path(path) / found[0]).string();
}

}  // namespace attnviz
