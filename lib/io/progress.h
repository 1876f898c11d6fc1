// Progress of long work on stderr (or another stream), three ways:
//   bar     stderr is a terminal: one line redrawn in place at most 10 times a second,
//           "[#########...........]  41%  26,880/65,536 rows  3,210 rows/s  ETA 12 s";
//   lines   not a terminal (logs, CI): a plain line at every 10 % and at the end;
//   quiet   nothing.
// Short work reports nothing: the bar appears after 0.1 s, lines after 1 s, and the final line
// only after a report or 1 s of work. ATTNVIZ_PROGRESS_AFTER=SECONDS sets that first wait for
// both (0: report from the first update; for slow terminals and for the tests of --quiet).
// update() may be called from several threads at once; counts only grow.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace attnviz {

enum class progress_style { automatic, bar, lines, quiet };

class progress {
 public:
  // what: the unit counted ("rows", "lines"); label: printed before the counts ("attending").
  progress(std::string label, std::string what, std::uint64_t total,
           progress_style style = progress_style::automatic, std::FILE* out = stderr);
  ~progress();
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;

  void update(std::uint64_t done);  // `done` out of total so far
  void finish();                    // the final line (also done by the destructor)

  // The text of one report (without the bar's carriage return), for the tests.
  static std::string line(const std::string& label, const std::string& what, std::uint64_t done,
                          std::uint64_t total, double seconds, bool with_bar);

 private:
  void draw(std::uint64_t done, bool final);

  std::string label_, what_;
  std::uint64_t total_;
  progress_style style_;
  std::FILE* out_;
  std::mutex lock_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  std::chrono::steady_clock::duration first_wait_, final_wait_;
  std::uint64_t done_ = 0;
  int last_decile_ = 0;
  bool finished_ = false, drawn_ = false;
};

}  // namespace attnviz
