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

std::string inflate_raw(std::string_view data, std::uint64_t size, const std::string& source,
                        const std::string& name, std::uint64_t offset) {
  // deflate expands at most 1032:1, so a larger declared size is a damaged (or hostile) entry:
  // refused before anything is allocated for it
  if (size > 1032 * static_cast<std::uint64_t>(data.size()) + 1024)
    throw input_error(source, fmt::format("member {} (byte {}): declares {} bytes uncompressed "
                                          "from {} compressed, more than deflate can give",
                                          name, offset, size, data.size()));
  std::string out(size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) throw std::runtime_error("zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const auto produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != size)
    throw input_error(source, fmt::format("member {} (byte {}): the deflated data is damaged "
                                          "(expected {} bytes)",
                                          name, offset, size));
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
  for (auto& [name, a] : arrays) f.array.values.insert(f.array.values.end(), a.values.begin(), a.values.end());
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

std::vector<std::pair<std::string, std::string>> read_zip(std::string_view b,
                                                          const std::string& source) {
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
  std::vector<std::pair<std::string, std::string>> out;
  std::uint64_t at = dir;
  for (std::uint64_t k = 0; k < count; ++k) {
    if (at + 46 > b.size() || u32(b, at) != 0x02014b50)
      throw input_error(source, fmt::format("byte {}: damaged zip central directory (entry {})", at, k));
    const std::uint32_t method = u16(b, at + 10);
    std::uint64_t csize = u32(b, at + 20), usize = u32(b, at + 24), local = u32(b, at + 42);
    const std::size_t name_len = u16(b, at + 28), extra_len = u16(b, at + 30),
                      comment_len = u16(b, at + 32);
    if (at + 46 + name_len + extra_len > b.size())
      throw input_error(source, fmt::format("byte {}: damaged zip central directory (entry {})", at, k));
    const std::string name(b.substr(at + 46, name_len));
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
      throw input_error(source, fmt::format("byte {}: damaged zip member {}", local, name));
    const std::uint64_t data = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    if (data + csize > b.size())
      throw input_error(source, fmt::format("byte {}: zip member {} is cut short ({} bytes "
                                            "expected)",
                                            data, name, csize));
    if (method == 0)
      out.emplace_back(name, std::string(b.substr(data, csize)));
    else if (method == 8)
      out.emplace_back(name, inflate_raw(b.substr(data, csize), usize, source, name, data));
    else
      throw input_error(source, fmt::format("zip member {} uses compression method {} (stored "
                                            "and deflate are read)",
                                            name, method));
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

attention_file read_attention_file(const std::string& path, const std::string& key) {
  require_regular_file(path);
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ext != ".npy" && ext != ".npz" && ext != ".safetensors" && ext != ".json")
    throw input_error(path, "is not a file attn-viz draw reads: .npy, .npz, .safetensors or .json "
                            "(maps of shape [n, n], [heads, n, n] or [layers, heads, n, n])");
  return parse_attention_file(read_whole_file(path), ext, key, path);
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
    for (auto& [name, member] : read_zip(bytes, path)) {
      std::string array = name;
      if (array.size() > 4 && array.compare(array.size() - 4, 4, ".npy") == 0)
        array.resize(array.size() - 4);
      arrays.emplace_back(array, parse_npy(member, path + ":" + name));
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
