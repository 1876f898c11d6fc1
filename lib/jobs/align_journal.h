// `attn-viz align --out FILE`'s journal: the sentence pairs aligned so far, so that `--resume`
// after a killed run aligns only the missing ones.
//
// FILE.attn-viz-journal.jsonl, one JSON object a line:
//   {"attn-viz-align-journal": 1, "settings": "<16 hex>"}          first, once
//   {"line": 12, "pair": "<16 hex>", "pharaoh": "0-0 1-2 …"}       a pair, once aligned
// A record is appended with one write() as its pair is done; a record cut short by a kill is
// ignored. "settings" hashes what shapes the lines (the flags and the models' files' sizes and
// times); "pair" the pair's two sides. On resume a pair counts as done when its record has the
// same pair hash; a journal of other settings is refused, nothing touched. The journal goes once
// FILE is in place.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace attnviz {

class align_journal {
 public:
  // A new journal for `out` (resume = false), or the one there read and checked (resume = true;
  // none there: nothing done).
  align_journal(const std::string& out, std::uint64_t settings, bool resume);
  ~align_journal();
  align_journal(const align_journal&) = delete;
  align_journal& operator=(const align_journal&) = delete;

  // The pair's Pharaoh line when line `line` was done with these sides, else null.
  const std::string* done(std::size_t line, const std::string& source,
                          const std::string& target) const;
  // Appends the pair's record; input_error naming the journal when the write fails.
  void record(std::size_t line, const std::string& source, const std::string& target,
              const std::string& pharaoh);
  // The journal removed (its output is in place).
  void finish();
  std::size_t resumed() const noexcept { return done_.size(); }

 private:
  struct entry {
    std::uint64_t pair = 0;
    std::string pharaoh;
  };
  std::string path_;
  std::map<std::size_t, entry> done_;
  int fd_ = -1;
};

}  // namespace attnviz
