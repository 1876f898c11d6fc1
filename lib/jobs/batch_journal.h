// The batch's journal: which lines of `run --input FILE --out-dir DIR` are done, so that
// `--resume` skips them after the run was killed.
//
// DIR/.attn-viz-journal.jsonl, one JSON object per line:
//   {"attn-viz-journal": 1, "settings": "<16 hex>"}                       first, once
//   {"line": 12, "text": "<16 hex>", "stem": "0012-the-cat", "files": [["0012-the-cat.png", 5123], ...]}
// A line's record is appended with one write() after all its files are in place (an
// all-or-nothing output_batch), so a line killed before or while writing has no record and is
// run again. "settings" is a hash of everything that shapes the files (the flags the app passes,
// the formats, the size and time of the embedding and parameter files); "text" a hash of the
// line. On resume a line counts as done only when its record has the same text and stem and
// every file is there with the recorded size; a journal of other settings is refused.
// Every batch writes the journal (a fresh run starts it anew), so any run can be resumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace attnviz {

inline constexpr const char* journal_name = ".attn-viz-journal.jsonl";

class batch_journal {
 public:
  // Starts a new journal in `dir` (resume = false), or reads the one there and checks that it
  // was written with the same `settings` hash (resume = true; a missing journal resumes nothing).
  batch_journal(const std::string& dir, std::uint64_t settings, bool resume);
  ~batch_journal();
  batch_journal(const batch_journal&) = delete;
  batch_journal& operator=(const batch_journal&) = delete;

  // The files (relative to dir) of a line already done with this text and stem, else nullptr.
  const std::vector<std::string>* done(std::size_t line, const std::string& text,
                                       const std::string& stem) const;
  // Appends the line's record (thread-safe). Throws input_error when the write fails.
  void record(std::size_t line, const std::string& text, const std::string& stem,
              const std::vector<std::string>& files);

 private:
  struct entry {
    std::uint64_t text = 0;
    std::string stem;
    std::vector<std::string> files;
  };
  std::string dir_;
  std::string path_;
  std::map<std::size_t, entry> done_;
  int fd_ = -1;
  std::mutex mutex_;
};

// Hash of the strings that decide a batch's files, with the size and modification time of each
// file in `files` (missing files count as empty).
std::uint64_t batch_settings_hash(const std::vector<std::string>& settings,
                                  const std::vector<std::string>& files);

// Removes what a killed commit left in `dir` and the given sub-folders (io/file_io.h:
// remove_stale_temporaries in each). Returns how many it removed.
std::size_t sweep_batch_temporaries(const std::string& dir,
                                    const std::vector<std::string>& subdirs);

}  // namespace attnviz
