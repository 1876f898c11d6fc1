#include "io/mapped_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "error.h"
#include "io/file_io.h"

namespace attnviz {

std::optional<mapped_file> mapped_file::open(const std::string& path, std::size_t at_least) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
      static_cast<std::size_t>(st.st_size) < at_least) {
    ::close(fd);
    return std::nullopt;
  }
  void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return std::nullopt;
#if defined(MADV_HUGEPAGE)
  // Before the first read: pages read from disk then come in 2 MiB folios, which map whole (one
  // entry for 512 pages), in this run and every later one while the file stays cached.
  ::madvise(p, static_cast<std::size_t>(st.st_size), MADV_HUGEPAGE);
#endif
  guard_input(path, path);  // read while the run lasts: no output may replace it
  return mapped_file(static_cast<const unsigned char*>(p), static_cast<std::size_t>(st.st_size),
                     path);
}

void mapped_file::prefault(std::size_t offset, std::size_t bytes) const noexcept {
#if defined(MADV_POPULATE_READ)
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  if (!data_ || offset >= size_ || page == 0) return;
  const std::size_t first = offset / page * page, end = std::min(size_, offset + bytes);
  ::madvise(const_cast<unsigned char*>(data_) + first, end - first, MADV_POPULATE_READ);
#else
  (void)offset, (void)bytes;
#endif
}

mapped_file mapped_file::open_or_throw(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw input_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw input_error(path, "is not a regular file");
  if (st.st_size == 0) throw input_error(path, "is empty");
  errno = 0;
  if (auto m = open(path)) return std::move(*m);
  throw input_error(path, fmt::format("cannot be opened and mapped into memory: {}",
                                      std::strerror(errno != 0 ? errno : EIO)));
}

mapped_file::mapped_file(mapped_file&& o) noexcept
    : data_(o.data_), size_(o.size_), path_(std::move(o.path_)) {
  o.data_ = nullptr;
  o.size_ = 0;
}

mapped_file& mapped_file::operator=(mapped_file&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
    data_ = o.data_;
    size_ = o.size_;
    path_ = std::move(o.path_);
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

mapped_file::~mapped_file() {
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace attnviz
