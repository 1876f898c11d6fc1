#include "io/attention_file.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "params/safetensors.h"

namespace attnviz {
namespace {

std::uint32_t u16(std::string_view b, std::size_t at) {
  return static_cast<std::uint8_t>(b[at]) | static_cast<std::uint32_t>(static_cast<std::uint8_t>(b[at + 1])) << 8;
}
std::uint32_t u32(std::string_view b, std::size_t at) { return u16(b, at) | u16(b, at + 2) << 16; }
std::uint64_t u64(std::string_view b, std::size_t at) {
  return u32(b, at) | static_cast<std::uint64_t>(u32(b, at + 4)) << 32;
}

// The first `keep` bytes (all when keep >= size) of a deflated member that declares `size`
// bytes, inflated in chunks: memory grows with what the data really gives, not with what the
// header declares, and the inflation stops at the declared size (more is an error, as is less).
std::string inflate_raw(std::string_view data, std::uint64_t size, const std::string& source,
                        const std::string& name, std::uint64_t offset,
                        std::uint64_t keep = std::numeric_limits<std::uint64_t>::max()) {
  // deflate expands at most 1032:1, so a larger declared size is a damaged (or hostile) entry:
  // refused before anything is allocated for it
  if (size > 1032 * static_cast<std::uint64_t>(data.size()) + 1024)
    throw input_error(source, fmt::format("member {} (byte {}): declares {} bytes uncompressed "
                                          "from {} compressed, more than deflate can give",
                                          name, offset, size, data.size()));
  const std::uint64_t want = std::min(keep, size);
  auto damaged = [&](const char* what) {
    return input_error(source, fmt::format("member {} (byte {}): the deflated data is damaged "
                                           "({}; expected {} bytes)",
                                           name, offset, what, size));
  };
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(data.size(), UINT32_MAX));
  std::string out;
  int rc = Z_OK;
  constexpr std::uint64_t chunk = 1u << 24;
  while (out.size() < want && rc != Z_STREAM_END) {
    const std::size_t at = out.size();
    out.resize(static_cast<std::size_t>(std::min(want, at + chunk)));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
    z.avail_out = static_cast<uInt>(out.size() - at);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    if (rc == Z_OK && z.avail_out != 0 && z.avail_in == 0) break;  // the input ran out
  }
  unsigned char extra = 0;
  if (want == size && rc == Z_OK && out.size() == size) {  // declared all: is there more?
    z.next_out = &extra;
    z.avail_out = 1;
    rc = inflate(&z, Z_NO_FLUSH);
    if (z.avail_out == 0) rc = Z_DATA_ERROR, extra = 1;
  }
  inflateEnd(&z);
  if (extra) throw damaged("it inflates to more than it declares");
  if (out.size() < want || (want == size && rc != Z_STREAM_END)) throw damaged("it ends early");
  return out;
}

std::vector<std::size_t> shape_of(const std::vector<std::int64_t>& s) {
  return {s.begin(), s.end()};
}

// The place of the item the walk stands on: "where[2][0][5]".
std::string json_path(const std::string& where, const std::vector<std::size_t>& at) {
  std::string out = where;
  for (const std::size_t i : at) out += fmt::format("[{}]", i);
  return out;
}

// Nested JSON lists of numbers -> shape and values; input_error naming the first bad place.
// Walked with an explicit stack (one index per level, at most `attention_max_dims` levels), so
// neither the depth nor the size of the file can exhaust the call stack, and the path of an
// item is only spelled out for the message.
void flatten(const nlohmann::json& root, std::vector<std::size_t>& shape,
             std::vector<float>& values, const std::string& source, const std::string& where) {
  std::vector<const nlohmann::json*> lists;  // the open lists, outermost first
  std::vector<std::size_t> at;               // the next item of each
  auto enter = [&](const nlohmann::json& list) {
    const std::size_t depth = lists.size();
    if (depth == attention_max_dims)
      throw input_error(source, fmt::format("{} nests lists deeper than {} levels (expected at "
                                            "most layers, heads, queries and keys)",
                                            json_path(where, at), attention_max_dims));
    if (depth == shape.size()) {
      if (!values.empty())
        throw input_error(source, fmt::format("{} is a list where a number was expected (the "
                                              "lists must nest to one depth)",
                                              json_path(where, at)));
      shape.push_back(list.size());
    } else if (shape[depth] != list.size()) {
      throw input_error(source, fmt::format("{} has {} items where its neighbours have {} (the "
                                            "maps must be rectangular)",
                                            json_path(where, at), list.size(), shape[depth]));
    }
    lists.push_back(&list);
    at.push_back(0);
  };
  enter(root);
  while (!lists.empty()) {
    if (at.back() == lists.back()->size()) {
      lists.pop_back();
      at.pop_back();
      if (!at.empty()) ++at.back();
      continue;
    }
    const nlohmann::json& item = (*lists.back())[at.back()];
    if (item.is_array()) {
      enter(item);
      continue;
    }
    if (!item.is_number())
      throw input_error(source, fmt::format("{} is {} (expected a number)", json_path(where, at),
                                            item.is_null() ? "null" : item.type_name()));
    if (lists.size() != shape.size())
      throw input_error(source, fmt::format("{} is a number where a list was expected (the lists "
                                            "must nest to one depth)",
                                            json_path(where, at)));
    values.push_back(item.get<float>());
    ++at.back();
  }
}

attention_file from_json(const std::string& bytes, const std::string& path) {
  const nlohmann::json j = parse_json_text(bytes, path);
  attention_file f;
  const nlohmann::json* maps = &j;
  std::string where = "the list";
  if (j.is_object()) {
    for (const char* key : {"attentions", "attention"})
      if (j.contains(key)) {
        maps = &j[key];
        where = fmt::format("\"{}\"", key);
        break;
      }
    if (maps == &j)
      throw input_error(path, "is a JSON object without \"attentions\" (expected the maps as "
                              "nested lists, alone or as {\"attentions\": [...], \"tokens\": "
                              "[...]})");
    if (j.contains("tokens")) {
      const auto& t = j["tokens"];
      for (std::size_t i = 0; t.is_array() && i < t.size(); ++i) {
        if (!t[i].is_string())
          throw input_error(path, fmt::format("\"tokens\"[{}] is not a string", i));
        f.tokens.push_back(t[i].get<std::string>());
      }
      if (!t.is_array()) throw input_error(path, "\"tokens\" is not a list of strings");
    }
    f.what = where;
  }
  if (!maps->is_array())
    throw input_error(path, fmt::format("{} is not a list (expected the maps as nested lists "
                                        "of numbers)",
                                        where));
  flatten(*maps, f.array.shape, f.array.values, path, where);
  return f;
}

// One array of several, by key or alone, or all of them stacked.
attention_file choose(std::vector<std::pair<std::string, npy_array>> arrays,
                      const std::string& key, const std::string& path) {
  std::sort(arrays.begin(), arrays.end(),
            [](const auto& a, const auto& b) { return natural_less(a.first, b.first); });
  std::string names;
  for (const auto& [name, a] : arrays) names += (names.empty() ? "" : ", ") + name;
  attention_file f;
  if (!key.empty()) {
    for (auto& [name, a] : arrays)
      if (name == key) {
        f.array = std::move(a);
        f.stored = f.array.shape;
        f.what = "'" + name + "'";
        return f;
      }
    throw input_error(path, fmt::format("has no array '{}' (it has {})", key, names));
  }
  if (arrays.empty()) throw input_error(path, "holds no array");
  if (arrays.size() == 1) {
    f.array = std::move(arrays[0].second);
    f.stored = f.array.shape;
    f.what = "'" + arrays[0].first + "'";
    return f;
  }
  const std::vector<std::size_t>& shape = arrays[0].second.shape;
  for (const auto& [name, a] : arrays)
    if (a.shape != shape)
      throw input_error(path, fmt::format("holds arrays of different shapes ({}); name the one "
                                          "to draw with --key",
                                          names));
  f.array.shape = shape;
  f.array.shape.insert(f.array.shape.begin(), arrays.size());
  f.array.values.reserve(arrays.size() * arrays[0].second.values.size());
  for (auto& [name, a] : arrays) {  // each array freed once copied: the peak is one array more
    f.array.values.insert(f.array.values.end(), a.values.begin(), a.values.end());
    std::vector<float>().swap(a.values);
  }
  f.stored = f.array.shape;
  f.what = fmt::format("{} … {} stacked", arrays.front().first, arrays.back().first);
  return f;
}

}  // namespace

bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      std::size_t i2 = i, j2 = j;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      std::string x = a.substr(i, i2 - i), y = b.substr(j, j2 - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

namespace {

// A member's local header must agree with its central directory entry: the same method, and
// the same sizes unless they follow the data (flag bit 3) or sit in a zip64 field (0xFFFFFFFF).
void check_local_header(std::string_view b, std::uint64_t local, std::uint32_t method,
                        std::uint64_t csize, std::uint64_t usize, const std::string& name,
                        const std::string& source) {
  const auto damaged = [&](std::string_view what, std::uint64_t here, std::uint64_t central) {
    throw input_error(source, fmt::format("byte {}: zip member {}'s local header declares {} {} "
                                          "where the central directory declares {}",
                                          local, name, what, here, central));
  };
  if (u16(b, local + 8) != method) damaged("compression method", u16(b, local + 8), method);
  if (u16(b, local + 6) & 8) return;
  const std::uint64_t lc = u32(b, local + 18), lu = u32(b, local + 22);
  if (lc != 0xFFFFFFFF && lc != csize) damaged("a compressed size of", lc, csize);
  if (lu != 0xFFFFFFFF && lu != usize) damaged("a size of", lu, usize);
}

// A member's .npy header, read from its first bytes alone and checked against the size the zip
// declares for the member: a damaged member is refused before a byte of its data is inflated.
npy_header member_header(std::string_view b, const zip_member& m, const std::string& path) {
  // an .npy header fits in its first 64 KiB + 12 bytes unless it is a version 2 header that long
  constexpr std::uint64_t header_bytes = (64u << 10) + 12;
  const std::string source = path + ":" + m.name;
  const npy_header h = parse_npy_header(zip_member_bytes(b, m, path, header_bytes), source);
  const std::uint64_t have = m.usize > h.data_at ? m.usize - h.data_at : 0;
  if (have != h.count * h.width)
    throw input_error::at_offset(source, h.data_at,
                                 fmt::format("the data is {} bytes; shape {} of {}-byte floats "
                                             "needs {}",
                                             have, h.shape_text, h.width, h.count * h.width));
  return h;
}

}  // namespace

std::vector<zip_member> zip_members(std::string_view b, const std::string& source) {
  // the end of central directory record: signature 0x06054b50, at most 65,535 bytes of comment
  // after it
  std::size_t eocd = std::string_view::npos;
  for (std::size_t at = b.size() >= 22 ? b.size() - 22 : 0, stop = at > 65557 ? at - 65557 : 0;
       b.size() >= 22; --at) {
    if (u32(b, at) == 0x06054b50) {
      eocd = at;
      break;
    }
    if (at == stop) break;
  }
  if (eocd == std::string_view::npos)
    throw input_error(source, "is not a zip archive (no end of central directory record; an .npz "
                              "is what numpy.savez writes)");
  std::uint64_t count = u16(b, eocd + 10), dir = u32(b, eocd + 16);
  if (count == 0xFFFF || dir == 0xFFFFFFFF) {  // zip64: its locator sits just before
    if (eocd < 20 || u32(b, eocd - 20) != 0x07064b50)
      throw input_error(source, fmt::format("byte {}: a zip64 archive without its locator", eocd));
    const std::uint64_t rec = u64(b, eocd - 12);
    if (rec + 56 > b.size() || u32(b, rec) != 0x06064b50)
      throw input_error(source, fmt::format("byte {}: damaged zip64 end record", rec));
    count = u64(b, rec + 32);
    dir = u64(b, rec + 48);
  }
  std::vector<zip_member> out;
  std::uint64_t at = dir;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (at + 46 > b.size() || u32(b, at) != 0x02014b50)
      throw input_error(source, fmt::format("byte {}: damaged zip central directory (entry {})", at, k));
    zip_member m;
    m.method = u16(b, at + 10);
    std::uint64_t csize = u32(b, at + 20), usize = u32(b, at + 24), local = u32(b, at + 42);
    const std::size_t name_len = u16(b, at + 28), extra_len = u16(b, at + 30),
                      comment_len = u16(b, at + 32);
    if (at + 46 + name_len + extra_len > b.size())
      throw input_error(source, fmt::format("byte {}: damaged zip central directory (entry {})", at, k));
    m.name = std::string(b.substr(at + 46, name_len));
    // zip64 sizes and offset, in that order, for the fields that are 0xFFFFFFFF
    for (std::size_t e = at + 46 + name_len; e + 4 <= at + 46 + name_len + extra_len;) {
      const std::uint32_t id = u16(b, e), len = u16(b, e + 2);
      if (id == 0x0001) {
        std::size_t p = e + 4;
        if (usize == 0xFFFFFFFF) usize = u64(b, p), p += 8;
        if (csize == 0xFFFFFFFF) csize = u64(b, p), p += 8;
        if (local == 0xFFFFFFFF) local = u64(b, p);
      }
      e += 4 + len;
    }
    if (local + 30 > b.size() || u32(b, local) != 0x04034b50)
      throw input_error(source, fmt::format("byte {}: damaged zip member {}", local, m.name));
    check_local_header(b, local, m.method, csize, usize, m.name, source);
    m.data = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    if (m.data + csize > b.size())
      throw input_error(source, fmt::format("byte {}: zip member {} is cut short ({} bytes "
                                            "expected)",
                                            m.data, m.name, csize));
    if (m.method != 0 && m.method != 8)
      throw input_error(source, fmt::format("zip member {} uses compression method {} (stored "
                                            "and deflate are read)",
                                            m.name, m.method));
    m.csize = csize;
    m.usize = m.method == 0 ? csize : usize;
    out.push_back(std::move(m));
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

std::string zip_member_bytes(std::string_view b, const zip_member& m, const std::string& source,
                             std::uint64_t keep) {
  if (m.method == 0) return std::string(b.substr(m.data, std::min(m.csize, keep)));
  return inflate_raw(b.substr(m.data, m.csize), m.usize, source, m.name, m.data, keep);
}

std::vector<std::pair<std::string, std::string>> read_zip(std::string_view b,
                                                          const std::string& source) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const zip_member& m : zip_members(b, source))
    out.emplace_back(m.name, zip_member_bytes(b, m, source));
  return out;
}

std::string attention_file_ext(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext != ".npy" && ext != ".npz" && ext != ".safetensors" && ext != ".json")
    throw input_error(path, "is not a file attn-viz draw reads: .npy, .npz, .safetensors or .json "
                            "(maps of shape [n, n], [heads, n, n] or [layers, heads, n, n])");
  return ext;
}

attention_file read_attention_file(const std::string& path, const std::string& key) {
  require_regular_file(path);
  const std::string ext = attention_file_ext(path);
  return parse_attention_file(read_whole_file(path), ext, key, path);
}

std::uint64_t attention_file_memory(std::string_view bytes, const std::string& ext,
                                    const std::string& path) {
  if (ext == ".npy") return 4 * parse_npy_header(bytes, path).count;
  if (ext == ".safetensors") return 2 * static_cast<std::uint64_t>(bytes.size());
  if (ext == ".json") return 10 * static_cast<std::uint64_t>(bytes.size());
  std::uint64_t floats = 0, largest = 0;
  for (const zip_member& m : zip_members(bytes, path)) {
    floats += 4 * member_header(bytes, m, path).count;
    largest = std::max(largest, m.usize);
  }
  return floats + largest;
}

attention_file parse_attention_file(const std::string& bytes, const std::string& ext,
                                    const std::string& key, const std::string& path) {
  if (!key.empty() && (ext == ".npy" || ext == ".json"))
    throw usage_error(fmt::format("{} names an array of an .npz or .safetensors file; {} holds one",
                                  param("key"), path));
  attention_file f;
  if (ext == ".npy") {
    f.array = parse_npy(bytes, path);
    f.stored = f.array.shape;
  } else if (ext == ".npz") {
    std::vector<std::pair<std::string, npy_array>> arrays;
    for (const zip_member& m : zip_members(bytes, path)) {  // one member inflated at a time
      std::string array = m.name;
      if (array.size() > 4 && array.compare(array.size() - 4, 4, ".npy") == 0)
        array.resize(array.size() - 4);
      member_header(bytes, m, path);
      arrays.emplace_back(array, parse_npy(zip_member_bytes(bytes, m, path), path + ":" + m.name));
    }
    f = choose(std::move(arrays), key, path);
  } else if (ext == ".safetensors") {
    std::vector<std::pair<std::string, npy_array>> arrays;
    for (auto& [name, t] : parse_safetensors(bytes, path).tensors)
      arrays.emplace_back(name, npy_array{shape_of(t.shape), std::move(t.values)});
    f = choose(std::move(arrays), key, path);
  } else if (ext == ".json") {
    f = from_json(bytes, path);
    f.stored = f.array.shape;
  } else {
    throw std::logic_error("parse_attention_file: unknown extension " + ext);
  }
  auto& s = f.array.shape;
  if (s.size() == 5) {
    if (s[1] != 1)
      throw input_error(path, fmt::format("holds a batch of {} sequences ([layers, batch, heads, n, "
                                          "n]); save one of them (a[:, 0])",
                                          s[1]));
    s.erase(s.begin() + 1);
  }
  return f;
}

}  // namespace attnviz
