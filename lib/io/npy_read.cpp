#include "io/npy_read.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>

#include "error.h"
#include "half_float.h"

namespace attnviz {

namespace {

struct header_reader {
  std::string_view text;
  std::size_t base;  // the header's byte offset in the file
  const std::string& source;

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw input_error::at_offset(source, base + at, what);
  }
  // The value after 'key': (the text up to the next ',' at depth 0 or the closing '}').
  std::pair<std::string_view, std::size_t> value(std::string_view key) const {
    const std::string quoted = fmt::format("'{}'", key);
    std::size_t at = text.find(quoted);
    if (at == std::string_view::npos)
      fail(0, fmt::format("the .npy header has no '{}' (expected a dict with 'descr', "
                          "'fortran_order' and 'shape')",
                          key));
    at = text.find(':', at + quoted.size());
    if (at == std::string_view::npos) fail(0, fmt::format("no ':' after '{}' in the .npy header", key));
    std::size_t begin = at + 1;
    while (begin < text.size() && text[begin] == ' ') ++begin;
    std::size_t end = begin;
    int depth = 0;
    for (; end < text.size(); ++end) {
      const char c = text[end];
      if (c == '(') ++depth;
      if (c == ')') --depth;
      if (depth == 0 && (c == ',' || c == '}')) break;
    }
    if (end >= text.size()) fail(begin, fmt::format("the value of '{}' does not end", key));
    std::string_view v = text.substr(begin, end - begin);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return {v, begin};
  }
};

std::vector<std::size_t> parse_shape(std::string_view v, std::size_t at, const header_reader& h) {
  if (v.size() < 2 || v.front() != '(' || v.back() != ')')
    h.fail(at, fmt::format("'shape' must be a tuple like (2, 3), got {}", std::string(v)));
  std::vector<std::size_t> shape;
  std::string_view inner = v.substr(1, v.size() - 2);
  std::size_t pos = 0;
  while (pos < inner.size()) {
    while (pos < inner.size() && (inner[pos] == ' ' || inner[pos] == ',')) ++pos;
    if (pos >= inner.size()) break;
    std::size_t d = 0, digits = 0;
    while (pos < inner.size() && inner[pos] >= '0' && inner[pos] <= '9') {
      if (d > (SIZE_MAX - 9) / 10) h.fail(at + 1 + pos, "a dimension of 'shape' is too large");
      d = d * 10 + static_cast<std::size_t>(inner[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || (pos < inner.size() && inner[pos] != ',' && inner[pos] != ' '))
      h.fail(at + 1 + pos, fmt::format("'shape' must hold whole numbers, got {}", std::string(v)));
    shape.push_back(d);
  }
  return shape;
}

}  // namespace

npy_header parse_npy_header(std::string_view bytes, const std::string& source) {
  if (bytes.size() < 10 || bytes.substr(0, 6) != std::string_view("\x93NUMPY", 6))
    throw input_error::at_offset(source, 0, "not a .npy file (expected the magic \\x93NUMPY)");
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    throw input_error::at_offset(source, 6, fmt::format(".npy version {} (expected 1, 2 or 3)", major));
  std::size_t header_len = 0, base = 0;
  auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    header_len = byte(8) | byte(9) << 8;
    base = 10;
  } else {
    if (bytes.size() < 12) throw input_error::at_offset(source, bytes.size(), "the .npy file ends in its preamble");
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    base = 12;
  }
  if (bytes.size() - base < header_len)
    throw input_error::at_offset(source, bytes.size(),
                                 fmt::format("the .npy header is {} bytes but the file ends first",
                                             header_len));
  const header_reader h{bytes.substr(base, header_len), base, source};
  const auto [descr, descr_at] = h.value("descr");
  const auto [order, order_at] = h.value("fortran_order");
  const auto [shape_text, shape_at] = h.value("shape");
  if (descr.size() != 5 || descr.front() != '\'' || descr.back() != '\'')
    h.fail(descr_at, fmt::format("'descr' must be a dtype string like '<f4', got {}", std::string(descr)));
  const char endian = descr[1], kind = descr[2], size = descr[3];
  if (kind != 'f' || (size != '2' && size != '4' && size != '8') ||
      (endian != '<' && endian != '>' && endian != '='))
    h.fail(descr_at, fmt::format("dtype {} is not a float (expected float16, float32 or float64: "
                                 "'<f2', '<f4', '<f8')",
                                 std::string(descr)));
  if (order != "False" && order != "True")
    h.fail(order_at, fmt::format("'fortran_order' must be True or False, got {}", std::string(order)));
  npy_header out;
  out.shape = parse_shape(shape_text, shape_at, h);
  out.shape_text = std::string(shape_text);
  std::size_t count = 1;
  for (const std::size_t d : out.shape) {
    if (d != 0 && count > SIZE_MAX / d / 8) h.fail(shape_at, "the shape's element count overflows");
    count *= d;
  }
  out.count = count;
  out.width = static_cast<std::size_t>(size - '0');
  out.data_at = base + header_len;
  out.swap = endian == '>';
  out.fortran = order == "True";
  return out;
}

npy_array parse_npy(std::string_view bytes, const std::string& source) {
  const npy_header hd = parse_npy_header(bytes, source);
  const std::size_t count = hd.count, width = hd.width, data_at = hd.data_at;
  const std::size_t have = bytes.size() - data_at;
  if (have != count * width)
    throw input_error::at_offset(source, data_at,
                                 fmt::format("the data is {} bytes; shape {} of {}-byte floats needs "
                                             "{}",
                                             have, hd.shape_text, width, count * width));
  npy_array out;
  out.shape = hd.shape;
  const bool swap = hd.swap;
  out.values.resize(count);
  const char* p = bytes.data() + data_at;
  for (std::size_t i = 0; i < count; ++i) {
    unsigned char b[8];
    std::memcpy(b, p + i * width, width);
    if (swap)
      for (std::size_t k = 0; k < width / 2; ++k) std::swap(b[k], b[width - 1 - k]);
    if (width == 2) {
      std::uint16_t v;
      std::memcpy(&v, b, 2);
      out.values[i] = half_to_float(v);
    } else if (width == 4) {
      std::memcpy(&out.values[i], b, 4);
    } else {
      double v;
      std::memcpy(&v, b, 8);
      out.values[i] = static_cast<float>(v);
    }
  }
  if (hd.fortran && out.shape.size() > 1) {  // column-major: index i_0 varies fastest
    std::vector<float> c(count);
    const std::size_t dims = out.shape.size();
    std::vector<std::size_t> idx(dims, 0);
    for (std::size_t f = 0; f < count; ++f) {
      std::size_t ci = 0;
      for (std::size_t k = 0; k < dims; ++k) ci = ci * out.shape[k] + idx[k];
      c[ci] = out.values[f];
      for (std::size_t k = 0; k < dims; ++k) {  // advance the Fortran index
        if (++idx[k] < out.shape[k]) break;
        idx[k] = 0;
      }
    }
    out.values.swap(c);
  }
  return out;
}

}  // namespace attnviz
