// The GGUF reader and ggml's block types: tests/data/gguf/blocks.gguf (written by
// tests/data/make_gguf_fixtures.py from the specification, NumPy only) decoded bit for bit, its
// metadata of every value type, and hand-built headers that must be refused with the offset.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "error.h"
#include "helpers.h"
#include "params/ggml_types.h"
#include "params/gguf.h"

using namespace attnviz;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace gguf_cases {

namespace {

std::string read_fixture() {
  std::ifstream in(std::string(ATTNVIZ_TEST_DATA) + "/gguf/blocks.gguf", std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

const unsigned char* bytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

const gguf_tensor_info& tensor(const gguf_header& h, const std::string& name) {
  for (const auto& t : h.tensors)
    if (t.name == name) return t;
  FAIL("no tensor " << name);
  throw 0;
}

// A header built by hand, little-endian.
struct builder {
  std::string b = "GGUF";
  builder& u32(std::uint32_t v) { return raw(&v, 4); }
  builder& u64(std::uint64_t v) { return raw(&v, 8); }
  builder& str(const std::string& s) {
    u64(s.size());
    b += s;
    return *this;
  }
  builder& raw(const void* p, std::size_t n) {
    b.append(static_cast<const char*>(p), n);
    return *this;
  }
  // version 3, `tensors` tensors, `keys` metadata entries
  static builder header(std::uint64_t tensors, std::uint64_t keys) {
    builder x;
    x.u32(3).u64(tensors).u64(keys);
    return x;
  }
  builder& tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type,
                  std::uint64_t offset) {
    str(name).u32(static_cast<std::uint32_t>(dims.size()));
    for (auto d : dims) u64(d);
    return u32(type).u64(offset);
  }
  builder& pad_data(std::size_t data_bytes, std::size_t alignment = 32) {
    b.append((alignment - b.size() % alignment) % alignment, '\0');
    b.append(data_bytes, '\0');
    return *this;
  }
};

std::string refusal(const std::string& file) {
  try {
    parse_gguf_header(bytes(file), file.size(), "m.gguf");
  } catch (const input_error& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

// On every instruction set: ggml_to_float uses the AVX2 build of the decoders (params/
// ggml_blocks.h) while the kernels run on AVX2 or AVX-512.
TEST_CASE("every block type decodes bit for bit as the specification's NumPy decoder does") {
  const std::string file = read_fixture();
  REQUIRE(file.size() > 1000);
  const gguf_header h = parse_gguf_header(bytes(file), file.size(), "blocks.gguf");
  CHECK(h.version == 3);
  CHECK(h.alignment == 64);
  CHECK(h.data_start % 64 == 0);
  testing::for_each_isa([&] {
    int types = 0;
    for (const char* name : {"Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
                             "Q6_K", "F16", "BF16"}) {
      INFO(name);
      const gguf_tensor_info& b = tensor(h, std::string("blocks.") + name);
      const gguf_tensor_info& e = tensor(h, std::string("expected.") + name);
      CHECK(ggml_type_name(static_cast<std::uint32_t>(b.type)) == name);
      REQUIRE(b.count() == e.count());
      const unsigned char* data = bytes(file) + h.data_start + b.offset;
      std::vector<float> got(b.count()), want(e.count());
      ggml_to_float(b.type, data, 0, got.size(), got.data());
      std::memcpy(want.data(), bytes(file) + h.data_start + e.offset, want.size() * 4);
      CHECK(std::memcmp(got.data(), want.data(), got.size() * 4) == 0);
      // Ranges that start and end inside blocks give the same values.
      for (std::size_t first : {std::size_t{1}, std::size_t{37}, std::size_t{256}, b.dims[0] - 3})
        for (std::size_t count : {std::size_t{1}, std::size_t{40}, std::size_t{300}}) {
          if (first + count > got.size()) continue;
          std::vector<float> part(count);
          ggml_to_float(b.type, data, first, count, part.data());
          CHECK(std::memcmp(part.data(), want.data() + first, count * 4) == 0);
        }
      ++types;
    }
    CHECK(types == 12);
  });
}

TEST_CASE("metadata of every value type reads back") {
  const std::string file = read_fixture();
  const gguf_header h = parse_gguf_header(bytes(file), file.size(), "blocks.gguf");
  const auto& m = h.metadata;
  CHECK(m.at("fixture.u8").value == 200);
  CHECK(m.at("fixture.i8").value == -100);
  CHECK(m.at("fixture.u16").value == 60000);
  CHECK(m.at("fixture.i16").value == -30000);
  CHECK(m.at("fixture.u32").value == 4000000000u);
  CHECK(m.at("fixture.i32").value == -2000000000);
  CHECK(m.at("fixture.f32").value == 0.25);
  CHECK(m.at("fixture.bool").value == true);
  CHECK(m.at("fixture.string").value == "naïve ▁text");
  CHECK(m.at("fixture.u64").value.get<std::uint64_t>() == (std::uint64_t{1} << 63) + 5);
  CHECK(m.at("fixture.i64").value.get<std::int64_t>() == -(std::int64_t{1} << 62));
  CHECK(m.at("fixture.f64").value == -1.5);
  CHECK(m.at("fixture.strings").value == nlohmann::json({"a", "", "Ġthe", "<0x0A>"}));
  CHECK(gguf_type_name(m.at("fixture.strings")) == "array of string");
  CHECK(m.at("fixture.floats").value == nlohmann::json({0.5, -2.0}));
  CHECK(m.at("fixture.nested").value == nlohmann::json::parse("[[1,2],[],[3]]"));
  const gguf_keys keys(h, "blocks.gguf");
  CHECK(keys.size("fixture.u32") == 4000000000u);
  CHECK(keys.text_or("general.architecture", "") == "fixture");
  CHECK_THROWS_WITH_AS(keys.size("fixture.i8"),
                       doctest::Contains("metadata 'fixture.i8': expected a whole number"),
                       input_error);
  CHECK_THROWS_WITH_AS(keys.size("fixture.absent"),
                       doctest::Contains("has no metadata 'fixture.absent'"), input_error);
  CHECK_THROWS_WITH_AS(keys.array("fixture.floats", gguf_value_type::string),
                       doctest::Contains("expected an array of string, got array of f32"),
                       input_error);
}

TEST_CASE("a minimal file with one F32 tensor, version 2 and 3") {
  for (std::uint32_t version : {2u, 3u}) {
    builder x;
    x.u32(version).u64(1).u64(0).tensor("w", {8, 2}, 0, 0).pad_data(64);
    const gguf_header h = parse_gguf_header(bytes(x.b), x.b.size(), "m.gguf");
    REQUIRE(h.tensors.size() == 1);
    CHECK(h.tensors[0].bytes == 64);
    CHECK(h.tensors[0].dims == std::vector<std::uint64_t>{8, 2});
    CHECK(h.data_start % 32 == 0);
  }
}

TEST_CASE("bad headers are refused with what was wrong") {
  CHECK(refusal("GGUX") .find("is not a GGUF file") != std::string::npos);
  {
    builder x;
    x.u32(1).u64(0).u64(0);
    CHECK(refusal(x.b).find("version 1") != std::string::npos);
  }
  {
    builder x;
    x.u32(0x03000000).u64(0).u64(0);
    CHECK(refusal(x.b).find("big-endian") != std::string::npos);
  }
  CHECK(refusal(builder::header(0, 1).str("k").u32(4).raw("\0\0", 2).b)
            .find("file ends inside a u32 (4 bytes needed, 2 left)") != std::string::npos);
  CHECK(refusal(builder::header(0, 1).str("k").u32(8).u64(50).b)
            .find("a string is 50 bytes long, past the end") != std::string::npos);
  CHECK(refusal(builder::header(0, 1).b).find("says it holds 1 metadata entries") !=
        std::string::npos);
  CHECK(refusal(builder::header(0, 1).str("k").u32(13).b).find("value type 13") !=
        std::string::npos);
  CHECK(refusal(builder::header(0, 1).str("k").u32(9).u32(10).u64(1u << 30).b)
            .find("holds 1073741824 items") != std::string::npos);
  CHECK(refusal(builder::header(0, 1).str("k").u32(7).raw("\x02", 1).b).find("a bool is 2") !=
        std::string::npos);
  CHECK(refusal(builder::header(0, 2).str("k").u32(4).u32(1).str("k").u32(4).u32(2).b)
            .find("'k' appears twice") != std::string::npos);
  {
    builder x = builder::header(0, 1).str("deep").u32(9);
    for (int i = 0; i < 5; ++i) x.u32(9).u64(1);
    CHECK(refusal(x.b).find("nests arrays more than 4 deep") != std::string::npos);
  }
  CHECK(refusal(builder::header(1u << 30, 0).b).find("says it holds 1073741824 tensors") !=
        std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {1, 1, 1, 1, 1}, 0, 0).pad_data(4).b)
            .find("5 dimensions") != std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {1u << 31, 1u << 31, 1u << 31}, 0, 0).b)
            .find("fewer than 2^62") != std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {0}, 0, 0).b).find("dimension of 0") !=
        std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {256}, 16, 0).b)
            .find("'w' is IQ2_XXS, which attn-viz does not read") != std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {48}, 8, 0).b)
            .find("rows of 48 elements: Q8_0 stores whole blocks of 32") != std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {8}, 0, 4).pad_data(64).b)
            .find("not a multiple of the alignment 32") != std::string::npos);
  CHECK(refusal(builder::header(1, 0).tensor("w", {64}, 0, 0).pad_data(100).b)
            .find("runs past the end of the file") != std::string::npos);
  CHECK(refusal(builder::header(2, 0).tensor("a", {16}, 0, 0).tensor("b", {8}, 0, 32)
                    .pad_data(128).b)
            .find("'a' and 'b' overlap") != std::string::npos);
  CHECK(refusal(builder::header(2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32)
                    .pad_data(64).b)
            .find("tensor 'a' appears twice") != std::string::npos);
  CHECK(refusal(builder::header(0, 1).str("general.alignment").u32(4).u32(48).b)
            .find("general.alignment is u32 48: expected a u32 power of two") !=
        std::string::npos);
  // Offsets are named: the unknown value type sits after the 24-byte header and the key.
  CHECK(refusal(builder::header(0, 1).str("k").u32(13).b).find("byte 33") != std::string::npos);
}

TEST_CASE("ggml's type names, refused types by name") {
  CHECK(ggml_type_name(12) == "Q4_K");
  CHECK(ggml_type_name(23) == "IQ4_XS");
  CHECK(ggml_type_name(999) == "type 999");
  CHECK(ggml_supported_types().find("Q6_K") != std::string::npos);
  CHECK(!ggml_type_of(15).has_value());  // Q8_K: refused
}

}  // namespace gguf_cases
