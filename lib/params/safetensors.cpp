#include "params/safetensors.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "error.h"
#include "half_float.h"
#include "io/file_io.h"
#include "io/json_file.h"

namespace attnviz {
namespace {

using json = nlohmann::json;

std::uint64_t read_u64_le(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int b = 7; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

std::size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F64") return 8;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

}  // namespace

std::string shape_string(const std::vector<std::int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

namespace {

// The header: a little-endian u64 length, then that many bytes of JSON holding an object.
json read_header(const unsigned char* bytes, std::size_t size, const std::string& source,
                 std::uint64_t& header_len) {
  if (size < 8)
    throw input_error(source, fmt::format("not a safetensors file: {} bytes, expected at least 8 "
                                          "(a little-endian u64 header length)",
                                          size));
  header_len = read_u64_le(bytes);
  if (header_len > size - 8)
    throw input_error::at_offset(source, 0,
                                 fmt::format("safetensors header length {} is larger than the "
                                             "{} bytes that follow it",
                                             header_len, size - 8));
  // a tensor entry nests three levels ({name: {shape: [...]}}); allow metadata a little more
  check_json_depth(std::string_view(reinterpret_cast<const char*>(bytes) + 8, header_len), source,
                   8, 8);
  json header;
  try {
    header = json::parse(bytes + 8, bytes + 8 + header_len);
  } catch (const json::parse_error& e) {
    throw input_error::at_offset(source, 8 + e.byte - 1,
                                 "safetensors header is not valid JSON (expected an object of "
                                 "tensor entries)");
  } catch (const json::exception& e) {  // e.g. a number too large for any type
    throw input_error::at_offset(source, 8,
                                 fmt::format("safetensors header cannot be read: {}", e.what()));
  }
  if (!header.is_object())
    throw input_error::at_offset(source, 8, "safetensors header must be a JSON object");
  return header;
}

// One tensor entry checked against the data section: its dtype's element size, its shape
// (into t.shape; returns the element count) and its byte range [begin, end).
std::uint64_t read_entry(const json& entry, std::uint64_t data_len, const std::string& dtype,
                         const std::function<input_error(const std::string&)>& bad,
                         tensor_data& t, std::uint64_t& begin, std::uint64_t& end) {
  const std::size_t esize = dtype_size(dtype);
  if (esize == 0)
    throw bad(fmt::format("dtype {} is not supported (expected F32, F64, F16 or BF16)", dtype));
  std::uint64_t count = 1;
  if (!entry["shape"].is_array()) throw bad("shape must be an array of sizes");
  for (const auto& d : entry["shape"]) {
    if (!d.is_number_unsigned()) throw bad("shape must hold non-negative integers");
    const auto dim = d.get<std::uint64_t>();
    if (dim > (1ull << 40) || (dim && count > (1ull << 40) / dim)) throw bad("shape is too large");
    count *= dim;
    t.shape.push_back(static_cast<std::int64_t>(dim));
  }
  const auto& offs = entry["data_offsets"];
  if (!offs.is_array() || offs.size() != 2 || !offs[0].is_number_unsigned() ||
      !offs[1].is_number_unsigned())
    throw bad("data_offsets must be [begin, end]");
  begin = offs[0].get<std::uint64_t>();
  end = offs[1].get<std::uint64_t>();
  if (begin > end || end > data_len)
    throw bad(fmt::format("data_offsets [{}, {}] fall outside the {} data bytes", begin, end,
                          data_len));
  if (end - begin != count * esize)
    throw bad(fmt::format("shape {} of {} needs {} bytes but data_offsets span {}",
                          shape_string(t.shape), dtype, count * esize, end - begin));
  return count;
}

// count elements of `dtype` at p (little-endian) as floats; each must be finite.
void decode_values(const unsigned char* p, std::uint64_t count, const std::string& dtype,
                   const std::function<input_error(const std::string&)>& bad,
                   std::vector<float>& values) {
  values.resize(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    float v;
    if (dtype == "F32") {
      std::uint32_t bits = 0;
      for (int b = 3; b >= 0; --b) bits = (bits << 8) | p[i * 4 + b];
      std::memcpy(&v, &bits, 4);
    } else if (dtype == "F64") {
      std::uint64_t bits = read_u64_le(p + i * 8);
      double d;
      std::memcpy(&d, &bits, 8);
      v = static_cast<float>(d);
    } else {
      const auto h = static_cast<std::uint16_t>(p[i * 2] | (p[i * 2 + 1] << 8));
      v = dtype == "F16" ? half_to_float(h) : bf16_to_float(h);
    }
    if (!std::isfinite(v))
      throw bad(fmt::format("element {} is {} (expected a finite number)", i, v));
    values[i] = v;
  }
}

}  // namespace

safetensors_header parse_safetensors_header(const unsigned char* bytes, std::size_t size,
                                            const std::string& source) {
  std::uint64_t header_len = 0;
  const json header = read_header(bytes, size, source, header_len);
  safetensors_header out;
  out.data_start = 8 + header_len;
  const std::uint64_t data_len = size - out.data_start;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& item : header.items()) {
    const std::string& name = item.key();
    const json& entry = item.value();
    if (name == "__metadata__") {
      if (!entry.is_object())
        throw input_error(source, "safetensors __metadata__ must be an object of strings");
      for (const auto& [k, v] : entry.items())
        if (v.is_string()) out.metadata[k] = v.get<std::string>();
      continue;
    }
    const std::function<input_error(const std::string&)> bad = [&](const std::string& what) {
      return input_error(source, fmt::format("tensor '{}': {}", name, what));
    };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets"))
      throw bad("expected an object with dtype, shape and data_offsets");
    if (!entry["dtype"].is_string()) throw bad("dtype must be a string");
    safetensors_entry e;
    e.name = name;
    e.dtype = entry["dtype"].get<std::string>();
    tensor_data t;
    e.count = read_entry(entry, data_len, e.dtype, bad, t, e.begin, e.end);
    e.shape = std::move(t.shape);
    ranges.emplace_back(e.begin, e.end);
    out.entries.push_back(std::move(e));
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second)
      throw input_error(source, fmt::format("two tensors overlap in the data section at bytes "
                                            "[{}, {})",
                                            ranges[i].first, ranges[i - 1].second));
  return out;
}

safetensors_file parse_safetensors(const std::string& bytes, const std::string& source) {
  const auto* raw = reinterpret_cast<const unsigned char*>(bytes.data());
  const safetensors_header header = parse_safetensors_header(raw, bytes.size(), source);
  safetensors_file out;
  out.metadata = header.metadata;
  for (const auto& e : header.entries) {
    const std::function<input_error(const std::string&)> bad = [&](const std::string& what) {
      return input_error(source, fmt::format("tensor '{}': {}", e.name, what));
    };
    tensor_data t;
    t.shape = e.shape;
    decode_values(raw + header.data_start + e.begin, e.count, e.dtype, bad, t.values);
    out.tensors.emplace(e.name, std::move(t));
  }
  return out;
}

safetensors_file read_safetensors(const std::string& path) {
  return parse_safetensors(read_whole_file(path), path);
}

std::string serialize_safetensors(const std::vector<std::pair<std::string, tensor_data>>& tensors,
                                  const std::map<std::string, std::string>& metadata) {
  // Build the header by hand so key order is the order given (deterministic bytes).
  std::vector<std::string> entries;
  if (!metadata.empty()) entries.push_back("\"__metadata__\":" + json(metadata).dump());
  std::uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const std::uint64_t nbytes = t.values.size() * 4;
    entries.push_back(json(name).dump() + ":{\"dtype\":\"F32\",\"shape\":" + json(t.shape).dump() +
                      ",\"data_offsets\":[" + std::to_string(offset) + "," +
                      std::to_string(offset + nbytes) + "]}");
    offset += nbytes;
  }
  std::string header = "{" + fmt::format("{}", fmt::join(entries, ","));
  header += "}";
  while (header.size() % 8 != 0) header += ' ';

  std::string out;
  out.reserve(8 + header.size() + offset);
  std::uint64_t len = header.size();
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((len >> (8 * b)) & 0xff));
  out += header;
  for (const auto& entry : tensors) {
    for (float v : entry.second.values) {
      std::uint32_t bits;
      std::memcpy(&bits, &v, 4);
      for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((bits >> (8 * b)) & 0xff));
    }
  }
  return out;
}

}  // namespace attnviz
