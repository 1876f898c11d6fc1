// model/checkpoint.h: weights read in place from safetensors files, and the conversions.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "error.h"
#include "model/checkpoint.h"

using namespace attnviz;
namespace fs = std::filesystem;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace checkpoint_cases {

namespace {

// A safetensors file with one tensor of raw little-endian bytes.
void write_one(const fs::path& path, const std::string& name, const std::string& dtype,
               const std::string& shape, const std::string& bytes) {
  std::string header = "{\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
                       ",\"data_offsets\":[0," + std::to_string(bytes.size()) + "]}}";
  while (header.size() % 8) header += ' ';
  std::ofstream f(path, std::ios::binary);
  const std::uint64_t n = header.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f << header << bytes;
}

struct folder {
  fs::path dir = fs::temp_directory_path() / ("attnviz-ckpt-" + std::to_string(std::rand()));
  folder() { fs::create_directories(dir); }
  ~folder() { fs::remove_all(dir); }
};

}  // namespace

TEST_CASE("F16 and BF16 weights convert exactly to float") {
  folder d;
  // F16: 1.0 (0x3C00), -2.5 (0xC100), the smallest subnormal 2^-24 (0x0001), 65504 (0x7BFF)
  write_one(d.dir / "model.safetensors", "w", "F16", "[4]",
            std::string("\x00\x3C\x00\xC1\x01\x00\xFF\x7B", 8));
  const checkpoint c = checkpoint::open(d.dir.string());
  float out[4];
  c.require({"w"}, {4}).to_float(0, 4, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -2.5f);
  CHECK(out[2] == std::ldexp(1.0f, -24));
  CHECK(out[3] == 65504.0f);
  folder e;
  // BF16: the high half of a float: 1.0 (0x3F80), -0.15625 (0xBE20)
  write_one(e.dir / "model.safetensors", "w", "BF16", "[2]", std::string("\x80\x3F\x20\xBE", 4));
  const checkpoint b = checkpoint::open(e.dir.string());
  b.require({"w"}, {2}).to_float(0, 2, out);
  CHECK(out[0] == 1.0f);
  CHECK(out[1] == -0.15625f);
}

TEST_CASE("widen_to_float: 16-bit tensors held as floats, the same values, within the limit") {
  folder d;
  write_one(d.dir / "model.safetensors", "w", "F16", "[4]",
            std::string("\x00\x3C\x00\xC1\x01\x00\xFF\x7B", 8));
  checkpoint c = checkpoint::open(d.dir.string());
  const weight_view* w = &c.require({"w"}, {4});
  float before[4], after[4];
  w->to_float(0, 4, before);
  CHECK(c.widen_to_float(15) == 0);  // 16 bytes as floats: over the limit, nothing changes
  CHECK(w->dtype == weight_dtype::f16);
  CHECK(c.widen_to_float(16) == 16);
  CHECK(&c.require({"w"}, {4}) == w);  // the same view, now over floats
  CHECK(w->dtype == weight_dtype::f32);
  w->to_float(0, 4, after);
  CHECK(std::memcmp(before, after, sizeof before) == 0);
  CHECK(std::memcmp(w->data, before, sizeof before) == 0);
  checkpoint moved = std::move(c);  // the copies move with it, in place
  moved.require({"w"}, {4}).to_float(0, 4, after);
  CHECK(std::memcmp(before, after, sizeof before) == 0);
  CHECK(moved.widen_to_float(1 << 20) == 0);  // nothing 16-bit left
}

TEST_CASE("a missing tensor, another shape, a pickle, an empty folder: named") {
  folder d;
  write_one(d.dir / "model.safetensors", "a.weight", "F32", "[2]", std::string(8, '\0'));
  const checkpoint c = checkpoint::open(d.dir.string());
  CHECK(c.has_prefix("a."));
  CHECK(!c.has_prefix("b."));
  CHECK_THROWS_WITH_AS(c.require({"b.weight", "c.weight"}, {2}),
                       doctest::Contains("has no tensor 'b.weight' [2]"), input_error);
  CHECK_THROWS_WITH_AS(c.require({"a.weight"}, {3}),
                       doctest::Contains("tensor 'a.weight' has shape [2], expected [3]"),
                       input_error);
  folder p;
  std::ofstream(p.dir / "pytorch_model.bin") << "pickle";
  CHECK_THROWS_WITH_AS(checkpoint::open(p.dir.string()),
                       doctest::Contains("pytorch_model.bin: is a PyTorch pickle"), input_error);
  folder empty;
  CHECK_THROWS_WITH_AS(checkpoint::open(empty.dir.string()),
                       doctest::Contains("has no model.safetensors"), input_error);
  folder i64;
  write_one(i64.dir / "model.safetensors", "x", "F64", "[1]", std::string(8, '\0'));
  CHECK_THROWS_WITH_AS(checkpoint::open(i64.dir.string()),
                       doctest::Contains("dtype F64 is not supported for model weights"),
                       input_error);
}

TEST_CASE("an index maps tensors to shards; a shard outside the folder is refused") {
  folder d;
  write_one(d.dir / "s1.safetensors", "a", "F32", "[1]", std::string("\x00\x00\x80\x3F", 4));
  write_one(d.dir / "s2.safetensors", "b", "F32", "[1]", std::string("\x00\x00\x00\x40", 4));
  std::ofstream(d.dir / "model.safetensors.index.json")
      << R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})";
  const checkpoint c = checkpoint::open(d.dir.string());
  float v;
  c.require({"b"}, {1}).to_float(0, 1, &v);
  CHECK(v == 2.0f);
  CHECK(*c.find("a")->file == (d.dir / "s1.safetensors").string());
  std::ofstream(d.dir / "model.safetensors.index.json")
      << R"({"weight_map": {"a": "../s1.safetensors"}})";
  CHECK_THROWS_WITH_AS(checkpoint::open(d.dir.string()),
                       doctest::Contains("expected a file name in the model folder"), input_error);
  std::ofstream(d.dir / "model.safetensors.index.json")
      << R"({"weight_map": {"a": "s2.safetensors"}})";
  CHECK_THROWS_WITH_AS(checkpoint::open(d.dir.string()),
                       doctest::Contains("has no tensor 'a'"), input_error);
}

}  // namespace checkpoint_cases
