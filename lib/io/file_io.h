// Reading inputs with clear errors, and writing outputs so that a failed run leaves nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnviz {

// Whole file as bytes. Throws input_error for a missing file, a directory, or a read error.
std::string read_whole_file(const std::string& path);
// The file's lines (line k at index k − 1), without their line breaks ("\n" or "\r\n"); a final
// line break adds no empty line. Errors as read_whole_file.
std::vector<std::string> read_lines(const std::string& path);

// Checks that `path` names a readable regular file (or a FIFO/stdin-like stream is refused
// with a clear message); throws input_error otherwise.
void require_regular_file(const std::string& path);

// The name that means standard output for any output file (`--json -`).
inline constexpr const char* stdout_name = "-";

// Inputs the run reads, so that no output is ever written over one of them (by the same path,
// a symbolic link or a hard link: files are compared by device and inode). guard_input records
// an existing file under `name` (the parameter that named it; the first name given to a file
// wins); guard_stdin records standard input when it is redirected from a regular file.
// require_regular_file guards every file the library opens, under its path.
void guard_input(const std::string& path, const std::string& name);
void guard_stdin();
void clear_guarded_inputs();  // tests

// Where the bytes of an output go, decided as `cp` and the shell's `>` do:
//   to_stdout  "-": standard output;
//   stream     an existing character device or FIFO (also through a link): written into, in
//              place, never replaced;
//   replace    anything else: written to a temporary file beside `path`, then renamed over it.
//              A symbolic link is followed: `path` is its final target, which is replaced and
//              the link kept.
// A block device, socket or folder is refused (usage_error naming `name`), as is a missing or
// unwritable folder for a replaced file and any guarded input.
struct output_target {
  enum class kind { to_stdout, stream, replace };
  kind how = kind::replace;
  std::string path;  // the resolved destination (the link's target for a link)
};
output_target resolve_output(const std::string& path, const std::string& name);

// A set of output files written all-or-nothing:
//   add() only records bytes; add_dir() a folder the outputs go into. commit() first resolves
//   every destination (resolve_output), then makes the missing folders, writes each replaced
//   file to a temporary name beside its destination and each stream in place, and only when all
//   are written renames the temporaries into place. On any failure the temporaries and the
//   folders it made are removed and existing files are left untouched (a stream may have
//   received part of its bytes). Returns the destination paths as given, in the order added.
//   One output may be "-": its bytes go to standard output once every file is written and
//   before any is renamed into place, so a failed standard output replaces no file.
// An output too large to build in memory (attention.npy of a long text), written while the run
// works: a locked temporary (".NAME.tmp-XXXXXX") in `folder` — the destination's folder, or the
// existing folder above one commit will make, on the same file system — `size` bytes long
// (holes until written), its bytes placed by write_at from any thread. An output_batch it is
// added to renames it into place with its other files; it is removed when it is dropped
// without being placed (the run failed).
class streamed_file {
 public:
  streamed_file(const std::string& destination, const std::string& folder, std::uint64_t size);
  streamed_file(const streamed_file&) = delete;
  streamed_file& operator=(const streamed_file&) = delete;
  ~streamed_file();
  // Safe from several threads at once; false when the bytes could not all be written (the
  // reason: error()).
  bool write_at(std::uint64_t offset, const void* bytes, std::size_t count) noexcept;
  std::string error() const;
  const std::string& temporary_name() const noexcept { return name_; }

 private:
  friend class output_batch;
  std::string destination_, name_;
  int fd_ = -1;
  std::atomic<int> errno_{0};
};

class output_batch {
 public:
  void add(std::string path, std::string bytes);
  // A file written already (its size and every byte), placed at `path` by commit.
  void add_streamed(std::string path, std::shared_ptr<streamed_file> file);
  void add_dir(std::string path);
  bool empty() const noexcept { return files_.empty(); }
  std::vector<std::string> commit();

 private:
  struct pending {
    std::string path;
    std::string bytes;
    std::shared_ptr<streamed_file> streamed;
  };
  using target_list = std::vector<std::pair<output_target, pending*>>;
  target_list resolve_targets(bool& has_stdout);
  void place(const target_list& targets, const std::function<void()>& before_renames);
  std::vector<pending> files_;
  std::vector<std::string> dirs_;
};

// Temporary files (".NAME.tmp-XXXXXX") in `folder` that a run killed by a signal it could not
// catch (SIGKILL, SIGXFSZ) left behind: those older than this process and not locked by a run
// still writing them are removed. commit() sweeps each folder it writes into first. Returns the
// names removed, and tells the notice handler (one line) when there are any.
std::vector<std::string> remove_stale_temporaries(const std::string& folder);
// Where the library's notices go (the CLI prints them as "attn-viz: note: …"); none by default.
void set_notice_handler(std::function<void(const std::string&)> handler);

// An output folder (--npy DIR, --out-dir DIR): fine when it is a writable folder, or when it does
// not exist yet and its parent is a writable folder (create_output_dir makes it when the outputs
// are ready). Otherwise a usage_error naming the flag.
void check_output_dir(const std::string& path, const std::string& flag);
// Makes the folder when it is missing; true when it made it.
bool create_output_dir(const std::string& path);

// Fails early (before any work) with resolve_output's checks: a folder missing or not writable, a
// destination that cannot be written, a guarded input ("-", standard output, always passes).
void check_output_path(const std::string& path, const std::string& flag);

}  // namespace attnviz
