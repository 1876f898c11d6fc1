#include "io/scratch_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "error.h"

namespace attnviz {

std::string scratch_file::folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? std::string(dir) : std::string("/tmp");
}

std::uint64_t scratch_file::free_bytes() {
  std::error_code ec;
  const auto space = std::filesystem::space(folder(), ec);
  return ec ? UINT64_MAX : space.available;
}

scratch_file::scratch_file(std::string purpose) : purpose_(std::move(purpose)) {
  const std::string tmpl = (std::filesystem::path(folder()) / "attn-viz-scratch-XXXXXX").string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    throw input_error(purpose_, fmt::format("cannot make a working file in '{}' (TMPDIR): {}",
                                            folder(), std::strerror(errno)));
  ::unlink(name.data());
}

scratch_file::~scratch_file() {
  if (fd_ >= 0) ::close(fd_);
}

void scratch_file::write_at(std::uint64_t offset, const void* bytes, std::size_t count) {
  const char* p = static_cast<const char*>(bytes);
  while (count > 0) {
    const ssize_t put = ::pwrite(fd_, p, count, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0)
      throw input_error(purpose_, fmt::format("cannot write its working file in '{}': {}", folder(),
                                              std::strerror(put < 0 ? errno : ENOSPC)));
    p += put;
    offset += static_cast<std::uint64_t>(put);
    count -= static_cast<std::size_t>(put);
  }
}

void scratch_file::read_at(std::uint64_t offset, void* bytes, std::size_t count) const {
  char* p = static_cast<char*>(bytes);
  while (count > 0) {
    const ssize_t got = ::pread(fd_, p, count, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0)
      throw input_error(purpose_,
                        fmt::format("cannot read back its working file in '{}': {}", folder(),
                                    got < 0 ? std::strerror(errno) : "the file ended early"));
    p += got;
    offset += static_cast<std::uint64_t>(got);
    count -= static_cast<std::size_t>(got);
  }
}

}  // namespace attnviz
