#include "jobs/batch_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.h"
#include "io/file_io.h"
#include "params/rng.h"

namespace attnviz {
namespace fs = std::filesystem;

namespace {

std::string hex(std::uint64_t h) {
  return fmt::format("{:016x}", h);
}

std::uint64_t text_hash(const std::string& text) {
  return fnv1a64(text);
}

void write_record(int fd, const std::string& line, const std::string& path) {
  // one write() per record: a killed process leaves whole records (or a cut last one, ignored)
  const ssize_t n = ::write(fd, line.data(), line.size());
  if (n < 0 || static_cast<std::size_t>(n) != line.size())
    throw input_error(path, fmt::format("cannot write: {}",
                                        std::strerror(n < 0 ? errno : ENOSPC)));
}

}  // namespace

std::uint64_t batch_settings_hash(const std::vector<std::string>& settings,
                                  const std::vector<std::string>& files) {
  std::string all;
  for (const auto& s : settings) all += s + '\0';
  for (const auto& f : files) {
    struct stat st {};
    if (!f.empty() && ::stat(f.c_str(), &st) == 0)
      all += fmt::format("{}:{}:{}.{}", f, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    all += '\0';
  }
  return fnv1a64(all);
}

batch_journal::batch_journal(const std::string& dir, std::uint64_t settings, bool resume)
    : dir_(dir), path_((fs::path(dir) / journal_name).string()) {
  const std::string header =
      nlohmann::json{{"attn-viz-journal", 1}, {"settings", hex(settings)}}.dump() + "\n";
  bool fresh = !resume;
  if (resume) {
    std::string bytes;
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) bytes = read_whole_file(path_);
    if (bytes.empty()) {
      fresh = true;  // nothing done yet
    } else {
      std::istringstream in(bytes);
      std::string line;
      std::getline(in, line);
      if (line + "\n" != header)
        throw usage_error(fmt::format(
            "{}: {} was written by a batch with other settings (flags, formats, or the "
            "embedding or parameter files changed); run again without {}, or use another "
            "{}",
            param("resume"), path_, param("resume"), param("out_dir")));
      while (std::getline(in, line)) {
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("line") || !j.contains("files"))
          continue;  // a record cut short by a kill
        try {
          entry e;
          e.text = std::stoull(j.at("text").get<std::string>(), nullptr, 16);
          e.stem = j.at("stem").get<std::string>();
          bool whole = true;
          for (const auto& f : j.at("files")) {
            const std::string name = f.at(0).get<std::string>();
            const auto size = f.at(1).get<std::uintmax_t>();
            std::error_code ec;
            const fs::path p = fs::path(dir) / name;
            whole = whole && fs::is_regular_file(p, ec) && fs::file_size(p, ec) == size && !ec;
            e.files.push_back(name);
          }
          if (whole) done_[j.at("line").get<std::size_t>()] = std::move(e);
        } catch (const std::exception&) {  // a record of the wrong shape: the line is redone
        }
      }
    }
  }
  fd_ = ::open(path_.c_str(),
               O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | (fresh ? O_TRUNC : 0),
               0644);
  if (fd_ < 0)
    throw input_error(path_, fmt::format("cannot open the journal: {}", std::strerror(errno)));
  if (fresh) {
    try {
      write_record(fd_, header, path_);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
}

batch_journal::~batch_journal() {
  if (fd_ >= 0) ::close(fd_);
}

const std::vector<std::string>* batch_journal::done(std::size_t line, const std::string& text,
                                                    const std::string& stem) const {
  const auto it = done_.find(line);
  if (it == done_.end() || it->second.text != text_hash(text) || it->second.stem != stem)
    return nullptr;
  return &it->second.files;
}

void batch_journal::record(std::size_t line, const std::string& text, const std::string& stem,
                           const std::vector<std::string>& files) {
  nlohmann::json j;
  j["line"] = line;
  j["text"] = hex(text_hash(text));
  j["stem"] = stem;
  j["files"] = nlohmann::json::array();
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(fs::path(dir_) / f, ec);
    j["files"].push_back({f, ec ? 0 : size});
  }
  const std::string bytes = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  write_record(fd_, bytes, path_);
}

std::size_t sweep_batch_temporaries(const std::string& dir,
                                    const std::vector<std::string>& subdirs) {
  std::size_t removed = remove_stale_temporaries(dir).size();
  for (const auto& s : subdirs) {
    std::error_code ec;
    if (fs::is_directory(fs::path(dir) / s, ec))
      removed += remove_stale_temporaries((fs::path(dir) / s).string()).size();
  }
  return removed;
}

}  // namespace attnviz
