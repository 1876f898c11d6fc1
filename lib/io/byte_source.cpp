#include "io/byte_source.h"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <utility>

#include "error.h"
#include "io/file_io.h"

namespace attnviz {

bool is_gzip_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char magic[2] = {0, 0};
  const std::size_t n = std::fread(magic, 1, 2, f);
  std::fclose(f);
  return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

byte_source::byte_source(std::string path) : path_(std::move(path)) {
  require_regular_file(path_);
  if (is_gzip_file(path_)) {
    gzFile g = gzopen(path_.c_str(), "rb");
    if (!g) throw input_error(path_, fmt::format("cannot open: {}", std::strerror(errno)));
    gzbuffer(g, 1 << 20);
    gz_ = g;
    return;
  }
  file_ = std::fopen(path_.c_str(), "rb");
  if (!file_) throw input_error(path_, fmt::format("cannot open: {}", std::strerror(errno)));
}

byte_source::byte_source(std::string_view bytes, std::string name)
    : path_(std::move(name)), memory_(bytes) {}

byte_source::~byte_source() {
  if (file_) std::fclose(file_);
  if (gz_) gzclose(static_cast<gzFile>(gz_));
}

std::size_t byte_source::read(char* out, std::size_t n) {
  if (!file_ && !gz_) {
    const std::size_t rest = memory_.size() - static_cast<std::size_t>(offset_);
    const std::size_t got = n < rest ? n : rest;
    if (got) std::memcpy(out, memory_.data() + offset_, got);
    offset_ += got;
    return got;
  }
  if (file_) {
    const std::size_t got = std::fread(out, 1, n, file_);
    if (got == 0 && std::ferror(file_)) throw input_error::at_offset(path_, offset_, "read error");
    offset_ += got;
    return got;
  }
  auto g = static_cast<gzFile>(gz_);
  const auto want = static_cast<unsigned>(n < static_cast<std::size_t>(INT_MAX) ? n : INT_MAX);
  const int got = gzread(g, out, want);
  int code = Z_OK;
  const char* message = gzerror(g, &code);
  if (got < 0 || (code != Z_OK && code != Z_STREAM_END && got == 0)) {
    if (code == Z_BUF_ERROR)
      throw input_error::at_offset(
          path_, offset_,
          "the gzip data ends too early (a truncated download?); expected more compressed data");
    throw input_error::at_offset(path_, offset_,
                                 fmt::format("corrupt gzip data: {}", message ? message : "?"));
  }
  offset_ += static_cast<std::uint64_t>(got);
  return static_cast<std::size_t>(got);
}

}  // namespace attnviz
