// Reading inputs with clear errors, and writing outputs so that a failed run leaves nothing.
#pragma once

#include <string>
#include <vector>

namespace attnviz {

// Whole file as bytes. Throws input_error for a missing file, a directory, or a read error.
std::string read_whole_file(const std::string& path);

// Checks that `path` names a readable regular file (or a FIFO/stdin-like stream is refused
// with a clear message); throws input_error otherwise.
void require_regular_file(const std::string& path);

// The name that means standard output for any output file (`--json -`).
inline constexpr const char* stdout_name = "-";

// A set of output files written all-or-nothing:
//   add() only records bytes; commit() first checks every destination folder, then writes each
//   file to a temporary name beside its destination, and only when all are written renames
//   them into place. On any failure the temporaries are removed and existing files are left
//   untouched. Returns the destination paths in the order added.
//   One output may be "-": its bytes go to standard output, after every file is in place.
class output_batch {
 public:
  void add(std::string path, std::string bytes);
  bool empty() const noexcept { return files_.empty(); }
  std::vector<std::string> commit();

 private:
  struct pending {
    std::string path;
    std::string bytes;
  };
  std::vector<pending> files_;
};

// An output folder (--npy DIR, --out-dir DIR): fine when it is a writable folder, or when it does
// not exist yet and its parent is a writable folder (create_output_dir makes it when the outputs
// are ready). Otherwise a usage_error naming the flag.
void check_output_dir(const std::string& path, const std::string& flag);
void create_output_dir(const std::string& path);

// Fails early (before any work) when an output's folder is missing or not writable ("-", standard
// output, always passes).
void check_output_path(const std::string& path, const std::string& flag);

}  // namespace attnviz
