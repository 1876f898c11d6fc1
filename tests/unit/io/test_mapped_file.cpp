#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "error.h"
#include "helpers.h"
#include "io/mapped_file.h"

using namespace attnviz;
using attnviz::testing::temp_dir;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace mapped_file_cases {

namespace {
// The VmFlags line of the mapping that starts at `start` in /proc/self/smaps ("" if none).
std::string vm_flags_of(const void* start) {
  char head[32];
  std::snprintf(head, sizeof head, "%lx-",
                static_cast<unsigned long>(reinterpret_cast<std::uintptr_t>(start)));
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    if (line.rfind(head, 0) == 0)
      inside = true;
    else if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}
}  // namespace

TEST_CASE("mapped_file maps a whole file's bytes, or says why not") {
  temp_dir dir;
  const std::string bytes = "a header, then weights", path = dir.file("w.bin", bytes);
  auto m = mapped_file::open(path);
  REQUIRE(m);
  CHECK(m->size() == bytes.size());
  CHECK(std::string(reinterpret_cast<const char*>(m->data()), m->size()) == bytes);
  CHECK(m->path() == path);
  CHECK_FALSE(mapped_file::open(path, bytes.size() + 1));  // shorter than asked for
  CHECK_FALSE(mapped_file::open(dir.file("empty.bin", "")));
  CHECK_THROWS_WITH_AS(mapped_file::open_or_throw(dir.path("missing.bin")),
                       doctest::Contains("missing.bin"), input_error);
  CHECK_THROWS_WITH_AS(mapped_file::open_or_throw(dir.path("empty.bin")),
                       doctest::Contains("is empty"), input_error);
  m->prefault(4, 1000);  // past the end: clipped, the bytes unchanged
  CHECK(std::string(reinterpret_cast<const char*>(m->data()), m->size()) == bytes);
}

TEST_CASE("mapped_file asks for 2 MiB pages before the file is read") {
  // A kernel without transparent huge pages has no such advice (and nothing to show here).
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage")) return;
  temp_dir dir;
  const std::string path = dir.file("w.bin", std::string(3 << 20, 'x'));
  const auto m = mapped_file::open(path);
  REQUIRE(m);
  const std::string flags = vm_flags_of(m->data());
  REQUIRE(!flags.empty());
  CHECK(flags.find(" hg") != std::string::npos);  // VM_HUGEPAGE (MADV_HUGEPAGE)
}

}  // namespace mapped_file_cases
