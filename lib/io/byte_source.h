// The bytes of an input file, plain or gzip-compressed, in chunks: the embedding readers stream
// a file of a gigabyte once without holding it, and may stop as soon as they have what they
// need (so a lookup near the top of a big file reads only that part).
//
//   byte_source src(path);   // a regular file; gzip (first bytes 1f 8b) is inflated by zlib
//   src.read(buf, n)         // up to n bytes, 0 at the end
//   src.offset()             // bytes delivered so far (of the uncompressed stream)
//
// Errors are input_error naming the file: missing, a folder, unreadable, and for gzip corrupt
// or truncated data (with the uncompressed offset reached).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace attnviz {

class byte_source {
 public:
  explicit byte_source(std::string path);
  // Bytes already in memory (not copied: they must outlive the source), named `name` in errors.
  byte_source(std::string_view bytes, std::string name);
  ~byte_source();
  byte_source(const byte_source&) = delete;
  byte_source& operator=(const byte_source&) = delete;

  std::size_t read(char* out, std::size_t n);
  bool compressed() const noexcept { return gz_ != nullptr; }
  // For bytes in memory, how many are left (to size a buffer); otherwise `fallback`.
  std::size_t size_hint(std::size_t fallback) const noexcept {
    return file_ || gz_ ? fallback : memory_.size() - static_cast<std::size_t>(offset_);
  }
  std::uint64_t offset() const noexcept { return offset_; }
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  std::FILE* file_ = nullptr;  // plain files
  void* gz_ = nullptr;         // gzFile for compressed ones
  std::string_view memory_;    // in-memory bytes (neither file_ nor gz_)
  std::uint64_t offset_ = 0;
};

// True when the file starts with the gzip magic bytes (1f 8b).
bool is_gzip_file(const std::string& path);

}  // namespace attnviz
