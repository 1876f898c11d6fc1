// A float32 .npy array written in pieces as they are computed (io/file_io.h streamed_file), at
// their places in the file, never held whole: the header first, then write(first, values, count)
// puts elements [first, first + count) of the row-major array. output_batch::add_streamed places
// the file at its destination once every output of the run is written.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/file_io.h"

namespace attnviz {

// Where the temporaries of files bound for folder `dir` go: `dir` when it exists, else the
// existing folder above it that the output batch makes it in (the same file system).
std::string streamed_folder(const std::string& dir);

class streamed_npy {
 public:
  // `folder`: where the temporary goes (the destination's folder, or the existing one above it).
  streamed_npy(std::string path, const std::string& folder, std::vector<std::size_t> shape);
  // Safe from several threads at once for different elements; false when the bytes could not
  // all be written (check() then throws).
  bool write(std::uint64_t first, const float* values, std::size_t count) noexcept;
  // input_error naming the file when a write failed.
  void check() const;
  const std::string& path() const noexcept { return path_; }
  std::shared_ptr<streamed_file> file() const noexcept { return file_; }
  // The file's size: the header and the product of `shape` floats.
  static std::uint64_t bytes(const std::vector<std::size_t>& shape);

 private:
  std::string path_;
  std::uint64_t data_at_ = 0;
  std::shared_ptr<streamed_file> file_;
  std::atomic<bool> failed_{false};
};

}  // namespace attnviz
