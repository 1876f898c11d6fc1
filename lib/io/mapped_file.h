// A read-only memory mapping of a whole file: the embedding cache and model checkpoints are read
// in place, never copied whole. The file is guarded as an input (file_io.h) while the run lasts,
// so no output may replace it under the mapping.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace attnviz {

class mapped_file {
 public:
  // The mapping, or nothing when the file cannot be opened, is smaller than `at_least` bytes, or
  // cannot be mapped (the caller says what that means for it). The mapping asks for 2 MiB pages
  // (MADV_HUGEPAGE) before anything is read: what is read from disk through it is then cached
  // in 2 MiB folios, mapped 512 pages at a time by this run and every later one (Pythia-410M's
  // 791 MB read cold: 750 MB so without the advice, 790 with it). A file already cached in
  // small folios (written by a program in small pieces) keeps them: mapping GPT-2's 475 MiB so
  // cost a process 13 ms and its first reads 133 ms more on a 2-vCPU KVM guest (about 1 us a
  // 4 KiB page's first read), against 0.7 ms and 6 ms in 2 MiB folios.
  static std::optional<mapped_file> open(const std::string& path, std::size_t at_least = 0);
  // The same, but a failure is an input_error naming the file and the reason.
  static mapped_file open_or_throw(const std::string& path);

  mapped_file(mapped_file&& o) noexcept;
  mapped_file& operator=(mapped_file&& o) noexcept;
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  // Maps the pages of [offset, offset + bytes) now, in one call (MADV_POPULATE_READ), where the
  // caller is about to read them all (a model's weights, once their header is checked): a page
  // fault per few pages as they are first read cost a whole GPT-2 run 8 % of its time. Advice
  // only: nothing changes where the kernel cannot do it.
  void prefault(std::size_t offset, std::size_t bytes) const noexcept;

  const unsigned char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  const std::string& path() const noexcept { return path_; }

 private:
  mapped_file(const unsigned char* d, std::size_t n, std::string path)
      : data_(d), size_(n), path_(std::move(path)) {}
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::string path_;
};

}  // namespace attnviz
