#include "jobs/align_journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.h"
#include "io/file_io.h"
#include "params/rng.h"

namespace attnviz {

namespace align_journal_parts {

std::uint64_t pair_hash(const std::string& source, const std::string& target) {
  return fnv1a64(source + '\x1f' + target);
}

std::string header_of(std::uint64_t settings) {
  return nlohmann::json{{"attn-viz-align-journal", 1},
                        {"settings", fmt::format("{:016x}", settings)}}
             .dump() +
         "\n";
}

}  // namespace align_journal_parts

align_journal::align_journal(const std::string& out, std::uint64_t settings, bool resume)
    : path_(out + ".attn-viz-journal.jsonl") {
  using namespace align_journal_parts;
  const std::string header = header_of(settings);
  std::string bytes;
  struct stat st {};
  if (resume && ::lstat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    bytes = read_whole_file(path_);
  std::istringstream in(bytes);
  std::string line;
  if (!bytes.empty()) {
    std::getline(in, line);
    if (line + "\n" != header)
      throw usage_error(
          fmt::format("{}: {} was written with other settings (flags, or the models "
                      "changed); run again without {}",
                      param("resume"), path_, param("resume")));
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object() || !j.contains("line") || !j.contains("pair") ||
          !j.contains("pharaoh") || !j["line"].is_number_unsigned() || !j["pair"].is_string() ||
          !j["pharaoh"].is_string())
        continue;  // a record cut short by a kill
      done_[j["line"].get<std::size_t>()] = {std::stoull(j["pair"].get<std::string>(), nullptr, 16),
                                             j["pharaoh"].get<std::string>()};
    }
  }
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (bytes.empty() ? O_TRUNC : O_APPEND);
  fd_ = ::open(path_.c_str(), flags, 0644);
  if (fd_ < 0) throw input_error(path_, fmt::format("cannot write: {}", std::strerror(errno)));
  if (bytes.empty()) {
    const ssize_t n = ::write(fd_, header.data(), header.size());
    if (n != static_cast<ssize_t>(header.size()))
      throw input_error(path_, fmt::format("cannot write: {}", std::strerror(errno)));
  } else if (bytes.back() != '\n' && ::write(fd_, "\n", 1) != 1) {  // after a cut record
    throw input_error(path_, fmt::format("cannot write: {}", std::strerror(errno)));
  }
}

align_journal::~align_journal() {
  if (fd_ >= 0) ::close(fd_);
}

const std::string* align_journal::done(std::size_t line, const std::string& source,
                                       const std::string& target) const {
  const auto it = done_.find(line);
  if (it == done_.end() || it->second.pair != align_journal_parts::pair_hash(source, target))
    return nullptr;
  return &it->second.pharaoh;
}

void align_journal::record(std::size_t line, const std::string& source, const std::string& target,
                           const std::string& pharaoh) {
  const std::string text =
      nlohmann::json{
          {"line", line},
          {"pair", fmt::format("{:016x}", align_journal_parts::pair_hash(source, target))},
          {"pharaoh", pharaoh}}
          .dump() +
      "\n";
  const ssize_t n = ::write(fd_, text.data(), text.size());  // one write: whole or cut
  if (n != static_cast<ssize_t>(text.size()))
    throw input_error(path_,
                      fmt::format("cannot write: {}", std::strerror(n < 0 ? errno : ENOSPC)));
}

void align_journal::finish() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

}  // namespace attnviz
