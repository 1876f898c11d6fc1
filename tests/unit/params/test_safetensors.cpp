#include <doctest/doctest.h>

#include <cstring>
#include <limits>

#include "error.h"
#include "params/safetensors.h"

using namespace attnviz;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace safetensors_cases {

namespace {

// A file built by hand, byte by byte, following the format description.
std::string handmade(const std::string& header, const std::string& data) {
  std::string out;
  const std::uint64_t n = header.size();
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
  return out + header + data;
}

std::string f32(std::initializer_list<float> values) {
  std::string s;
  for (float v : values) {
    char b[4];
    std::memcpy(b, &v, 4);  // little-endian machine
    s.append(b, 4);
  }
  return s;
}

std::string error_of(const std::string& bytes) {
  try {
    parse_safetensors(bytes, "w.safetensors");
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("reads a hand-made file with F32, F16 and BF16 tensors and metadata") {
  const std::string header = R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
                             R"("h":{"dtype":"F16","shape":[2],"data_offsets":[16,20]},)"
                             R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[20,22]},)"
                             R"("__metadata__":{"format":"pt"}})";
  // F16 0x3C00 = 1.0, 0xC000 = -2.0; BF16 0x3FC0 = 1.5
  const std::string data =
      f32({1, 2, 3, 4}) + std::string("\x00\x3c\x00\xc0", 4) + std::string("\xc0\x3f", 2);
  const auto f = parse_safetensors(handmade(header, data), "w.safetensors");
  CHECK(f.tensors.at("a").shape == std::vector<std::int64_t>{2, 2});
  CHECK(f.tensors.at("a").values == std::vector<float>{1, 2, 3, 4});
  CHECK(f.tensors.at("h").values == std::vector<float>{1.0f, -2.0f});
  CHECK(f.tensors.at("b").values == std::vector<float>{1.5f});
  CHECK(f.metadata.at("format") == "pt");
}

TEST_CASE("round trip: serialise then parse gives the same tensors; bytes are stable") {
  std::vector<std::pair<std::string, tensor_data>> t = {
      {"score.W", {{2, 3}, {1, -2, 3.5f, 0, 1e-7f, -1e7f}}}, {"score.v", {{3}, {0.25f, 0.5f, 1}}}};
  const std::string bytes = serialize_safetensors(t, {{"seed", "7"}});
  CHECK(bytes == serialize_safetensors(t, {{"seed", "7"}}));
  std::uint64_t header_len = 0;
  std::memcpy(&header_len, bytes.data(), 8);
  CHECK(header_len % 8 == 0);
  const auto f = parse_safetensors(bytes, "x");
  CHECK(f.tensors.at("score.W").values == t[0].second.values);
  CHECK(f.tensors.at("score.W").shape == t[0].second.shape);
  CHECK(f.tensors.at("score.v").values == t[1].second.values);
  CHECK(f.metadata.at("seed") == "7");
}

TEST_CASE("a file with metadata and no tensors is valid JSON") {
  const std::string bytes = serialize_safetensors({}, {{"seed", "1"}});
  const auto f = parse_safetensors(bytes, "x");
  CHECK(f.tensors.empty());
  CHECK(f.metadata.at("seed") == "1");
  CHECK(parse_safetensors(serialize_safetensors({}), "y").tensors.empty());
}

TEST_CASE("broken files are input errors that say what is wrong") {
  CHECK(error_of("abc") ==
        "w.safetensors: not a safetensors file: 3 bytes, expected at least 8 (a little-endian u64 "
        "header length)");
  CHECK(error_of(handmade("{}", "").substr(0, 8) + "x").find("header length 2 is larger") !=
        std::string::npos);
  CHECK(error_of(handmade("{nope", "")).find("header is not valid JSON") != std::string::npos);
  CHECK(error_of(handmade(R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]}})", "x")) ==
        "w.safetensors: tensor 'a': dtype I8 is not supported (expected F32, F64, F16 or BF16)");
  CHECK(error_of(handmade(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", f32({1}))) ==
        "w.safetensors: tensor 'a': shape [2] of F32 needs 8 bytes but data_offsets span 4");
  CHECK(error_of(handmade(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}})", f32({1})))
            .find("outside") != std::string::npos);
  CHECK(
      error_of(
          handmade(
              R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
              f32({1})))
          .find("overlap") != std::string::npos);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(error_of(handmade(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", f32({nan})))
            .find("expected a finite number") != std::string::npos);
}

}  // namespace safetensors_cases
