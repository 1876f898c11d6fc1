// Working bytes too large to hold in memory and needed again later in the same run (the
// rolled-out received view keeps each layer's input, n × d floats, for a second pass from the
// last layer down): a file with no name in the system's temporary folder ($TMPDIR, else /tmp),
// made with mkstemp and unlinked at once, so that nothing is left behind whatever happens to the
// run. Written and read at byte offsets (pwrite / pread); a failure throws input_error naming
// `purpose` and the folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attnviz {

class scratch_file {
 public:
  explicit scratch_file(std::string purpose);
  scratch_file(const scratch_file&) = delete;
  scratch_file& operator=(const scratch_file&) = delete;
  ~scratch_file();
  void write_at(std::uint64_t offset, const void* bytes, std::size_t count);
  void read_at(std::uint64_t offset, void* bytes, std::size_t count) const;
  // The folder it lives in, and the bytes free there (for the checks before work).
  static std::string folder();
  static std::uint64_t free_bytes();

 private:
  std::string purpose_;
  int fd_ = -1;
};

}  // namespace attnviz
