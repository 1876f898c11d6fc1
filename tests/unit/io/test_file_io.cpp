#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <cstring>

#include "error.h"
#include "helpers.h"
#include "io/file_io.h"
#include "io/npy.h"

using namespace attnviz;
using attnviz::testing::temp_dir;
namespace fs = std::filesystem;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace file_io_cases {

namespace {
std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
std::size_t entries(const fs::path& d) {
  return static_cast<std::size_t>(
      std::distance(fs::directory_iterator(d), fs::directory_iterator()));
}
}  // namespace

TEST_CASE("a batch writes every file, and nothing else stays in the folder") {
  temp_dir d;
  output_batch b;
  b.add(d.path("a.json"), "{}");
  b.add(d.path("b.png"), "png");
  CHECK(b.commit() == std::vector<std::string>{d.path("a.json"), d.path("b.png")});
  CHECK(slurp(d.path("a.json")) == "{}");
  CHECK(entries(d.dir()) == 2);
}

TEST_CASE("a failing batch leaves no file and keeps existing ones untouched") {
  temp_dir d;
  const auto existing = d.file("a.json", "old");
  output_batch b;
  b.add(existing, "new");
  b.add(d.path("missing-folder/b.png"), "png");
  CHECK_THROWS_AS(b.commit(), usage_error);
  CHECK(slurp(existing) == "old");
  CHECK(entries(d.dir()) == 1);
}

TEST_CASE("check_output_path explains what is wrong") {
  temp_dir d;
  CHECK_THROWS_WITH(check_output_path(d.path("nope/x.png"), "--png"),
                    doctest::Contains("does not exist"));
  CHECK_THROWS_WITH(check_output_path(d.dir().string(), "--png"), doctest::Contains("is a folder"));
  CHECK_NOTHROW(check_output_path(d.path("x.png"), "--png"));
}

TEST_CASE("reading a missing file or a folder is an input error") {
  temp_dir d;
  CHECK_THROWS_AS(read_whole_file(d.path("none")), input_error);
  CHECK_THROWS_WITH(read_whole_file(d.dir().string()), doctest::Contains("is a folder"));
}

TEST_CASE(".npy 1.0: magic, version, padded header, little-endian float32 data") {
  const std::vector<float> v = {1.0f, -2.5f, 0.0f, 3.0f, 4.0f, 5.0f};
  const std::string a = npy_float32({2, 3}, v.data());
  REQUIRE(a.size() == 128 + 24);  // the data starts at 128, a multiple of 64
  CHECK(a.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(static_cast<unsigned char>(a[8]) + 256 * static_cast<unsigned char>(a[9]) == 118);
  const std::string header = a.substr(10, 118);
  CHECK(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
  CHECK(header.back() == '\n');
  // -2.5f = 0xC0200000, stored low byte first
  CHECK(a.substr(132, 4) == std::string("\x00\x00\x20\xC0", 4));
  // a 1-tuple keeps its comma; a bigger header still aligns to 64
  const std::string b = npy_float32({5}, v.data());
  CHECK(b.find("'shape': (5,), }") != std::string::npos);
  CHECK((b.size() - 20) % 64 == 0);
}

TEST_CASE("output folders: existing, creatable, or a clear usage error") {
  temp_dir d;
  CHECK_NOTHROW(check_output_dir(d.dir().string(), "--npy"));
  CHECK_NOTHROW(check_output_dir((d.dir() / "new").string(), "--npy"));
  const auto file = d.file("f.txt", "x");
  CHECK_THROWS_WITH_AS(check_output_dir(file, "--npy"),
                       ("--npy " + file + ": exists and is not a folder").c_str(), usage_error);
  const auto deep = (d.dir() / "a" / "b").string();
  CHECK_THROWS_WITH_AS(
      check_output_dir(deep, "--out-dir"),
      ("--out-dir " + deep + ": folder '" + (d.dir() / "a").string() + "' does not exist").c_str(),
      usage_error);
  create_output_dir((d.dir() / "new").string());
  CHECK(std::filesystem::is_directory(d.dir() / "new"));
  create_output_dir((d.dir() / "new").string());  // already there: fine
}

// --- destinations that are not plain files (cp's and the shell's behaviour) ---

TEST_CASE("a symbolic link is followed: its target is replaced, the link stays a link") {
  temp_dir d;
  const auto target = d.file("real.json", "old");
  fs::create_symlink("real.json", d.path("link.json"));  // relative, as ln -s makes it
  output_batch b;
  b.add(d.path("link.json"), "new");
  CHECK(b.commit() == std::vector<std::string>{d.path("link.json")});
  CHECK(fs::is_symlink(d.path("link.json")));
  CHECK(slurp(target) == "new");
  CHECK(entries(d.dir()) == 2);
  // a dangling link makes its target, as `cp x link` does
  fs::create_symlink(d.path("made.json"), d.path("dangling.json"));
  output_batch c;
  c.add(d.path("dangling.json"), "made");
  c.commit();
  CHECK(fs::is_symlink(d.path("dangling.json")));
  CHECK(slurp(d.path("made.json")) == "made");
  // a loop of links is an error, not a hang
  fs::create_symlink("loop2", d.path("loop1"));
  fs::create_symlink("loop1", d.path("loop2"));
  CHECK_THROWS_WITH_AS(check_output_path(d.path("loop1"), "--json"),
                       doctest::Contains("too many levels of symbolic links"), usage_error);
}

TEST_CASE("replacing a file keeps its permissions") {
  temp_dir d;
  const auto f = d.file("a.json", "old");
  fs::permissions(f, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  output_batch b;
  b.add(f, "new");
  b.commit();
  CHECK(slurp(f) == "new");
  CHECK((fs::status(f).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

TEST_CASE("a FIFO is written into, never replaced") {
  temp_dir d;
  const auto fifo = d.path("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });  // opening blocks until the writer opens
  output_batch b;
  b.add(d.path("a.json"), "file");
  b.add(fifo, "through the pipe");
  b.commit();
  reader.join();
  CHECK(got == "through the pipe");
  struct stat st {};
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(slurp(d.path("a.json")) == "file");
  CHECK(resolve_output(fifo, "--json").how == output_target::kind::stream);
}

TEST_CASE("character devices are streamed into; a failing one leaves no file behind") {
  temp_dir d;
  // private device nodes in the temporary folder (never the system's); making them needs root
  const auto null_node = d.path("null"), full_node = d.path("full");
  if (::mknod(null_node.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      ::mknod(full_node.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    MESSAGE("mknod needs root: device-node cases skipped");
    return;
  }
  output_batch b;
  b.add(null_node, "discarded");
  b.commit();
  struct stat st {};
  REQUIRE(::lstat(null_node.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));  // still the device, not a file holding the bytes
  // through a link too
  fs::create_symlink("null", d.path("to-null"));
  output_batch l;
  l.add(d.path("to-null"), "discarded");
  l.commit();
  CHECK(fs::is_symlink(d.path("to-null")));
  REQUIRE(::lstat(null_node.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  // /dev/full's twin: the write error is reported and the other output never appears
  output_batch f;
  f.add(d.path("a.json"), "json");
  f.add(d.path("npy/weights.npy"), "w");
  f.add_dir(d.path("npy"));  // made by the commit, removed again when it fails
  f.add(full_node, "bytes");
  CHECK_THROWS_WITH_AS(f.commit(), doctest::Contains("No space left on device"), input_error);
  CHECK(!fs::exists(d.path("a.json")));
  CHECK(!fs::exists(d.path("npy")));
  REQUIRE(::lstat(full_node.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(entries(d.dir()) == 3);  // null, full, to-null
}

TEST_CASE("a socket or a block device is refused with a message") {
  temp_dir d;
  const auto sock_path = d.path("sock");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(sock_path.size() < sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, sock_path.c_str(), sock_path.size() + 1);
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  CHECK_THROWS_WITH_AS(check_output_path(sock_path, "--png"),
                       ("--png " + sock_path +
                        ": is a socket; attn-viz writes files, character devices, pipes or - "
                        "(standard output)")
                           .c_str(),
                       usage_error);
  ::close(s);
  const auto block = d.path("block");
  if (::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0)
    CHECK_THROWS_WITH_AS(check_output_path(block, "--json"), doctest::Contains("a block device"),
                         usage_error);
  else
    MESSAGE("mknod needs root: block-device case skipped");
}

TEST_CASE("an input is never an output: by path, by link, by hard link") {
  clear_guarded_inputs();
  temp_dir d;
  const auto in = d.file("e.txt", "the embeddings");
  guard_input(in, "--embeddings");
  fs::create_symlink(in, d.path("link.txt"));
  fs::create_hard_link(in, d.path("hard.txt"));
  for (const auto& out : {in, d.path("link.txt"), d.path("hard.txt")}) {
    CAPTURE(out);
    CHECK_THROWS_WITH_AS(check_output_path(out, "--json"),
                         doctest::Contains("is the same file as --embeddings, an input of this "
                                           "run; writing it would destroy that input"),
                         usage_error);
    output_batch b;
    b.add(d.path("other.png"), "png");
    b.add(out, "json");
    CHECK_THROWS_AS(b.commit(), usage_error);
  }
  CHECK(slurp(in) == "the embeddings");
  CHECK(!fs::exists(d.path("other.png")));
  // every file the library opens is guarded under its path
  const auto read = d.file("read.txt", "x");
  read_whole_file(read);
  CHECK_THROWS_WITH(check_output_path(read, "--png"),
                    doctest::Contains(("is the same file as " + read).c_str()));
  // the first name a file is guarded under is the one messages use
  guard_input(in, "--params");
  CHECK_THROWS_WITH(check_output_path(in, "--png"), doctest::Contains("--embeddings"));
  clear_guarded_inputs();
  CHECK_NOTHROW(check_output_path(in, "--json"));
}

TEST_CASE("a folder the batch makes is removed again when the batch fails") {
  temp_dir d;
  output_batch b;
  b.add(d.path("npy/weights.npy"), "w");
  b.add_dir(d.path("npy"));
  b.add(d.path("missing/x.png"), "png");
  CHECK_THROWS_AS(b.commit(), usage_error);
  CHECK(!fs::exists(d.path("npy")));
  output_batch ok;
  ok.add(d.path("npy/weights.npy"), "w");
  ok.add_dir(d.path("npy"));
  ok.commit();
  CHECK(slurp(d.path("npy/weights.npy")) == "w");
}

}  // namespace file_io_cases
