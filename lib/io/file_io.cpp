#include "io/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "error.h"

namespace attnviz {
namespace fs = std::filesystem;

namespace {

struct guarded_file {
  dev_t dev;
  ino_t ino;
  std::string name;
};

std::vector<guarded_file>& guarded() {
  static std::vector<guarded_file> files;
  return files;
}

std::mutex& guarded_mutex() {
  static std::mutex m;
  return m;
}

// The guarded entry for the file `st` describes (nullptr: none); the caller holds the lock.
const guarded_file* find_guarded(const struct stat& st) {
  for (const auto& g : guarded())
    if (g.dev == st.st_dev && g.ino == st.st_ino) return &g;
  return nullptr;
}

void guard(const struct stat& st, const std::string& name) {
  std::lock_guard<std::mutex> lock(guarded_mutex());
  if (!find_guarded(st)) guarded().push_back({st.st_dev, st.st_ino, name});
}

// The name of the guarded input that `st` is, if any.
std::optional<std::string> guarded_name(const struct stat& st) {
  std::lock_guard<std::mutex> lock(guarded_mutex());
  if (const guarded_file* g = find_guarded(st)) return g->name;
  return std::nullopt;
}

}  // namespace

void guard_input(const std::string& path, const std::string& name) {
  struct stat st {};
  if (path.empty() || path == stdout_name || ::stat(path.c_str(), &st) != 0) return;
  if (S_ISREG(st.st_mode)) guard(st, name);
}

void guard_stdin() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) guard(st, "standard input");
}

void clear_guarded_inputs() {
  std::lock_guard<std::mutex> lock(guarded_mutex());
  guarded().clear();
}

void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw input_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw input_error(path, "is a folder, expected a file");
  if (!S_ISREG(st.st_mode)) throw input_error(path, "is not a regular file (expected a file)");
  guard(st, path);
}

std::string read_whole_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path, "read error");
  return bytes;
}

std::vector<std::string> read_lines(const std::string& path) {
  const std::string whole = read_whole_file(path);
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < whole.size()) {
    std::size_t end = whole.find('\n', start);
    if (end == std::string::npos) end = whole.size();
    std::string line = whole.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    start = end + 1;
  }
  return out;
}

namespace {

// The final target of a chain of symbolic links (`path` itself when it is not a link); relative
// targets are taken from the link's folder, as the system does.
fs::path follow_links(const std::string& path, const std::string& name) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::error_code ec;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec)
      throw usage_error(
          fmt::format("{} {}: cannot read the link: {}", name, path, ec.message()));
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  throw usage_error(fmt::format("{} {}: too many levels of symbolic links", name, path));
}

const char* kind_of(mode_t mode) {
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

}  // namespace

output_target resolve_output(const std::string& path, const std::string& name) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty file name", name));
  if (path == stdout_name) return {output_target::kind::to_stdout, path};
  const fs::path target = follow_links(path, name);
  const std::string shown =
      target == fs::path(path) ? path : fmt::format("{} (a link to {})", path, target.string());
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (const auto input = guarded_name(st))
      throw usage_error(fmt::format(
          "{} {}: is the same file as {}, an input of this run; writing it would destroy that "
          "input: name another file",
          name, shown, *input));
    if (S_ISDIR(st.st_mode))
      throw usage_error(fmt::format("{} {}: is a folder, expected a file name", name, shown));
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
      return {output_target::kind::stream, target.string()};
    if (!S_ISREG(st.st_mode))
      throw usage_error(fmt::format(
          "{} {}: is {}; attn-viz writes files, character devices, pipes or - (standard output)",
          name, shown, kind_of(st.st_mode)));
  }
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw usage_error(fmt::format("{} {}: folder '{}' does not exist", name, shown, dir.string()));
  if (::access(dir.c_str(), W_OK) != 0)
    throw usage_error(fmt::format("{} {}: folder '{}' is not writable", name, shown, dir.string()));
  return {output_target::kind::replace, target.string()};
}

void check_output_path(const std::string& path, const std::string& flag) {
  resolve_output(path, flag);
}

void check_output_dir(const std::string& path, const std::string& flag) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty folder name", flag));
  const fs::path p(path);
  std::error_code ec;
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec))
      throw usage_error(fmt::format("{} {}: exists and is not a folder", flag, path));
    if (::access(p.c_str(), W_OK) != 0)
      throw usage_error(fmt::format("{} {}: folder is not writable", flag, path));
    return;
  }
  fs::path parent = p.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, ec))
    throw usage_error(
        fmt::format("{} {}: folder '{}' does not exist", flag, path, parent.string()));
  if (::access(parent.c_str(), W_OK) != 0)
    throw usage_error(
        fmt::format("{} {}: folder '{}' is not writable", flag, path, parent.string()));
}

bool create_output_dir(const std::string& path) {
  std::error_code ec;
  const bool made = fs::create_directory(path, ec);
  if (ec) throw input_error(path, fmt::format("cannot create the folder: {}", ec.message()));
  return made;
}

void output_batch::add(std::string path, std::string bytes) {
  files_.push_back({std::move(path), std::move(bytes), nullptr});
}

void output_batch::add_dir(std::string path) {
  dirs_.push_back(std::move(path));
}

namespace {

void write_fully(int fd, const std::string& bytes, const std::string& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw input_error(path, fmt::format("cannot write: {}", std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

// write_fully, then close; the descriptor is closed on every path.
void write_and_close(int fd, const std::string& bytes, const std::string& shown) {
  try {
    write_fully(fd, bytes, shown);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0)
    throw input_error(shown, fmt::format("cannot write: {}", std::strerror(errno)));
}

mode_t new_file_mode(const std::string& existing) {
  struct stat st {};
  if (::stat(existing.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return st.st_mode & 07777;
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0644 & ~mask;
}

fs::path folder_of(const std::string& target) {
  const fs::path dir = fs::path(target).parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// A temporary file being written: its name and its descriptor, which holds an exclusive lock
// (flock) from its creation until it is renamed into place or removed, so that another run's
// sweep (remove_stale_temporaries) can tell it from one a killed run left.
struct temporary {
  std::string name;
  int fd = -1;
};

// A new temporary file for `target` in `dir` (".NAME.tmp-XXXXXX"), open and locked.
temporary create_temporary(const std::string& target, const fs::path& dir,
                           const std::string& shown) {
  const std::string tmpl =
      (dir / ("." + fs::path(target).filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  const int fd = ::mkstemp(buf.data());
  if (fd < 0)
    throw input_error(shown, fmt::format("cannot create a temporary file in '{}': {}",
                                         dir.string(), std::strerror(errno)));
  ::flock(fd, LOCK_EX);  // a new file only we know of: never waits
  ::fchmod(fd, new_file_mode(target));
  return {buf.data(), fd};
}

// `bytes` in a new temporary file beside `target`, left open and locked.
void write_temporary(const std::string& target, const std::string& bytes,
                     const std::string& shown, std::vector<temporary>& temps) {
  temps.push_back(create_temporary(target, folder_of(target), shown));
  write_fully(temps.back().fd, bytes, shown);
}

// A streamed file's bytes into an existing character device or FIFO, in blocks.
void copy_to_stream(int from, const std::string& target, const std::string& shown) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw input_error(shown, fmt::format("cannot open: {}", std::strerror(errno)));
  std::string block(1 << 20, '\0');
  off_t at = 0;
  try {
    for (;;) {
      const ssize_t got = ::pread(from, block.data(), block.size(), at);
      if (got < 0) throw input_error(shown, fmt::format("cannot read back: {}", std::strerror(errno)));
      if (got == 0) break;
      at += got;
      write_fully(fd, block.substr(0, static_cast<std::size_t>(got)), shown);
    }
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw input_error(shown, fmt::format("cannot write: {}", std::strerror(errno)));
}

// The time this process started (its own temporaries are all younger).
const fs::file_time_type process_start = fs::file_time_type::clock::now();

std::function<void(const std::string&)>& notice_handler() {
  static std::function<void(const std::string&)> handler;
  return handler;
}

// ".NAME.tmp-XXXXXX": the temporary files write_temporary makes.
bool is_temporary_name(const std::string& name) {
  const std::size_t tmp = name.rfind(".tmp-");
  return name.size() > 12 && name[0] == '.' && tmp != std::string::npos && tmp > 1 &&
         tmp + 11 == name.size();
}

// `bytes` into an existing character device or FIFO, as `>` does (a FIFO waits for its reader).
void write_stream(const std::string& target, const std::string& bytes, const std::string& shown) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw input_error(shown, fmt::format("cannot open: {}", std::strerror(errno)));
  write_and_close(fd, bytes, shown);
}

}  // namespace

streamed_file::streamed_file(const std::string& destination, const std::string& folder,
                             std::uint64_t size)
    : destination_(destination) {
  temporary t = create_temporary(destination, folder, destination);
  name_ = std::move(t.name);
  fd_ = t.fd;
  if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) {
    const int e = errno;
    ::close(fd_);
    ::unlink(name_.c_str());
    throw input_error(destination, fmt::format("cannot make a file of {} bytes in '{}': {}", size,
                                               folder, std::strerror(e)));
  }
}

streamed_file::~streamed_file() {
  if (!name_.empty()) ::unlink(name_.c_str());
  if (fd_ >= 0) ::close(fd_);
}

bool streamed_file::write_at(std::uint64_t offset, const void* bytes, std::size_t count) noexcept {
  const char* p = static_cast<const char*>(bytes);
  while (count > 0) {
    const ssize_t put = ::pwrite(fd_, p, count, static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      errno_ = put < 0 ? errno : ENOSPC;
      return false;
    }
    p += put;
    offset += static_cast<std::uint64_t>(put);
    count -= static_cast<std::size_t>(put);
  }
  return true;
}

std::string streamed_file::error() const {
  const int e = errno_.load();
  return fmt::format("cannot write: {}", std::strerror(e ? e : EIO));
}

void output_batch::add_streamed(std::string path, std::shared_ptr<streamed_file> file) {
  if (path == stdout_name) throw std::logic_error("output_batch: a streamed file to standard output");
  files_.push_back({std::move(path), {}, std::move(file)});
}

void set_notice_handler(std::function<void(const std::string&)> handler) {
  notice_handler() = std::move(handler);
}

std::vector<std::string> remove_stale_temporaries(const std::string& folder) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (!is_temporary_name(name) || !e.is_regular_file(ec) || e.is_symlink(ec)) continue;
    const auto written = e.last_write_time(ec);
    if (ec || written >= process_start) continue;  // ours, or a run that started after us
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    // a run still writing it holds the lock; a killed one's lock went with it
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(e.path().c_str()) == 0)
      removed.push_back(name);
    ::close(fd);
  }
  std::sort(removed.begin(), removed.end());
  if (!removed.empty() && notice_handler()) {
    std::string names;
    for (std::size_t k = 0; k < removed.size() && k < 5; ++k)
      names += (k ? ", " : "") + removed[k];
    if (removed.size() > 5) names += ", …";
    notice_handler()(fmt::format(
        "removed {} temporar{} that an earlier run, stopped before it finished, left in {}: {}",
        removed.size(), removed.size() == 1 ? "y file" : "y files", folder, names));
  }
  return removed;
}

// Every destination resolved and checked before anything is written; the output to standard
// output (at most one) is left out and noted in has_stdout.
output_batch::target_list output_batch::resolve_targets(bool& has_stdout) {
  target_list targets;
  std::set<std::string> seen;
  for (auto& f : files_) {
    if (f.path == stdout_name) {
      if (has_stdout)
        throw usage_error(
            "only one output can go to standard output (-); name a file for the other");
      has_stdout = true;
      continue;
    }
    bool in_new_dir = false;
    for (const auto& d : dirs_)
      in_new_dir = in_new_dir || fs::path(f.path).parent_path() == fs::path(d);
    output_target t;
    if (in_new_dir && !fs::exists(fs::path(f.path).parent_path()))
      t = {output_target::kind::replace, f.path};  // a folder commit makes: nothing there yet
    else
      t = resolve_output(f.path, "output");
    if (!seen.insert(fs::absolute(t.path).lexically_normal().string()).second)
      throw usage_error(fmt::format("two outputs would be written to the same file {}", f.path));
    targets.emplace_back(t, &f);
  }
  return targets;
}

// The folders swept of a killed run's temporaries and made, the replaced files written to
// locked temporaries, the streams written, `before_renames` run (standard output's bytes), then
// every temporary renamed into place; on any failure the temporaries and the folders made are
// removed, so no existing file is replaced by a run whose standard output failed.
void output_batch::place(const target_list& targets, const std::function<void()>& before_renames) {
  std::vector<temporary> temps;
  std::vector<std::string> made_dirs;
  try {
    std::set<std::string> swept;
    for (const auto& [t, f] : targets)
      if (t.how == output_target::kind::replace &&
          swept.insert(folder_of(t.path).string()).second)
        remove_stale_temporaries(folder_of(t.path).string());
    for (const auto& d : dirs_)
      if (create_output_dir(d)) made_dirs.push_back(d);
    std::vector<std::pair<std::string, std::string>> renames;  // temporary -> destination
    for (const auto& [t, f] : targets)
      if (t.how == output_target::kind::replace && !f->streamed) {
        write_temporary(t.path, f->bytes, f->path, temps);
        renames.emplace_back(temps.back().name, t.path);
      } else if (t.how == output_target::kind::replace) {
        renames.emplace_back(f->streamed->name_, t.path);
      }
    for (const auto& [t, f] : targets)
      if (t.how == output_target::kind::stream && f->streamed)
        copy_to_stream(f->streamed->fd_, t.path, f->path);
      else if (t.how == output_target::kind::stream)
        write_stream(t.path, f->bytes, f->path);
    before_renames();
    for (const auto& [temp, dest] : renames)
      if (std::rename(temp.c_str(), dest.c_str()) != 0)
        throw input_error(dest, fmt::format("cannot rename into place: {}", std::strerror(errno)));
    for (const auto& [t, f] : targets)  // in place (or copied): nothing left to remove
      if (f->streamed) f->streamed->name_.clear();
    for (auto& t : temps) {  // in place: the lock goes with the descriptor
      const int fd = std::exchange(t.fd, -1);
      if (::close(fd) != 0)
        throw input_error(t.name, fmt::format("cannot write: {}", std::strerror(errno)));
    }
  } catch (...) {
    for (const auto& t : temps) {
      ::unlink(t.name.c_str());
      if (t.fd >= 0) ::close(t.fd);
    }
    for (auto d = made_dirs.rbegin(); d != made_dirs.rend(); ++d) ::rmdir(d->c_str());
    throw;
  }
}

std::vector<std::string> output_batch::commit() {
  std::vector<std::string> order;
  for (const auto& f : files_) order.push_back(f.path);
  bool has_stdout = false;
  const target_list targets = resolve_targets(has_stdout);
  std::string stdout_bytes;
  for (auto& f : files_)
    if (f.path == stdout_name) stdout_bytes = std::move(f.bytes);
  place(targets, [&] {
    if (!has_stdout) return;
    std::fflush(stdout);
    const std::size_t n = std::fwrite(stdout_bytes.data(), 1, stdout_bytes.size(), stdout);
    if (n != stdout_bytes.size() || std::fflush(stdout) != 0)
      throw input_error("standard output", fmt::format("cannot write: {}", std::strerror(errno)));
  });
  files_.clear();
  dirs_.clear();
  return order;
}

}  // namespace attnviz
