#include "io/file_io.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "error.h"

namespace attnviz {
namespace fs = std::filesystem;

void require_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw input_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw input_error(path, "is a folder, expected a file");
  if (!S_ISREG(st.st_mode)) throw input_error(path, "is not a regular file (expected a file)");
}

std::string read_whole_file(const std::string& path) {
  require_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, fmt::format("cannot open: {}", std::strerror(errno)));
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path, "read error");
  return bytes;
}

void check_output_path(const std::string& path, const std::string& flag) {
  if (path.empty()) throw usage_error(fmt::format("{}: empty file name", flag));
  if (path == stdout_name) return;
  const fs::path p(path);
  fs::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw usage_error(fmt::format("{} {}: folder '{}' does not exist", flag, path, dir.string()));
  if (::access(dir.c_str(), W_OK) != 0)
    throw usage_error(fmt::format("{} {}: folder '{}' is not writable", flag, path, dir.string()));
  if (fs::is_directory(p, ec))
    throw usage_error(fmt::format("{} {}: is a folder, expected a file name", flag, path));
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

void create_output_dir(const std::string& path) {
  std::error_code ec;
  fs::create_directory(path, ec);
  if (ec) throw input_error(path, fmt::format("cannot create the folder: {}", ec.message()));
}

void output_batch::add(std::string path, std::string bytes) {
  files_.push_back({std::move(path), std::move(bytes)});
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

}  // namespace

std::vector<std::string> output_batch::commit() {
  std::set<std::string> seen;
  std::vector<std::string> order;
  for (const auto& f : files_) order.push_back(f.path);
  std::string stdout_bytes;
  bool has_stdout = false;
  std::vector<pending> files;
  for (auto& f : files_) {
    if (f.path != stdout_name) {
      files.push_back(std::move(f));
      continue;
    }
    if (has_stdout)
      throw usage_error("only one output can go to standard output (-); name a file for the other");
    has_stdout = true;
    stdout_bytes = std::move(f.bytes);
  }
  files_ = std::move(files);
  for (const auto& f : files_) {
    if (!seen.insert(fs::absolute(f.path).lexically_normal().string()).second)
      throw usage_error(fmt::format("two outputs would be written to the same file {}", f.path));
    check_output_path(f.path, "output");
  }
  std::vector<std::string> temps;
  auto cleanup = [&] {
    for (const auto& t : temps) ::unlink(t.c_str());
  };
  try {
    for (const auto& f : files_) {
      const fs::path p(f.path);
      fs::path dir = p.parent_path();
      if (dir.empty()) dir = ".";
      std::string tmpl = (dir / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
      std::vector<char> buf(tmpl.begin(), tmpl.end());
      buf.push_back('\0');
      const int fd = ::mkstemp(buf.data());
      if (fd < 0)
        throw input_error(f.path, fmt::format("cannot create a temporary file in '{}': {}",
                                              dir.string(), std::strerror(errno)));
      temps.emplace_back(buf.data());
      try {
        write_fully(fd, f.bytes, f.path);
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::fchmod(
          fd, 0644 & ~[] {
            mode_t m = ::umask(0);
            ::umask(m);
            return m;
          }());
      if (::close(fd) != 0)
        throw input_error(f.path, fmt::format("cannot write: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < files_.size(); ++i) {
      if (std::rename(temps[i].c_str(), files_[i].path.c_str()) != 0)
        throw input_error(files_[i].path,
                          fmt::format("cannot rename into place: {}", std::strerror(errno)));
    }
  } catch (...) {
    cleanup();
    throw;
  }
  files_.clear();
  if (has_stdout) {
    std::fflush(stdout);
    const std::size_t n = std::fwrite(stdout_bytes.data(), 1, stdout_bytes.size(), stdout);
    if (n != stdout_bytes.size() || std::fflush(stdout) != 0)
      throw input_error("standard output", fmt::format("cannot write: {}", std::strerror(errno)));
  }
  return order;
}

}  // namespace attnviz
