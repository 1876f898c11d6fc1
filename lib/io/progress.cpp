#include "io/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "number_format.h"

namespace attnviz {
namespace {

std::string duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600)
    return fmt::format("{}:{:02d} min", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return fmt::format("{}:{:02d} h", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
}

}  // namespace

progress::progress(std::string label, std::string what, std::uint64_t total, progress_style style,
                   std::FILE* out)
    : label_(std::move(label)),
      what_(std::move(what)),
      total_(total),
      style_(style),
      out_(out),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (style_ == progress_style::automatic)
    style_ = out_ && isatty(fileno(out_)) ? progress_style::bar : progress_style::lines;
  using std::chrono::milliseconds;
  first_wait_ = style_ == progress_style::bar ? milliseconds(100) : milliseconds(1000);
  final_wait_ = milliseconds(1000);
  if (const char* after = std::getenv("ATTNVIZ_PROGRESS_AFTER")) {
    char* end = nullptr;
    const double seconds = std::strtod(after, &end);
    if (end != after && *end == '\0' && seconds >= 0.0 && seconds < 1e6)
      first_wait_ = final_wait_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
  }
}

progress::~progress() {
  finish();
}

std::string progress::line(const std::string& label, const std::string& what, std::uint64_t done,
                           std::uint64_t total, double seconds, bool with_bar) {
  const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  std::string s = label.empty() ? std::string() : label + " ";
  if (with_bar) {
    constexpr int width = 24;
    const int filled = static_cast<int>(fraction * width);
    s += "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '.') + "] ";
  }
  s += fmt::format("{:3.0f}%  {}/{} {}", std::floor(fraction * 100), grouped_number(done),
                   grouped_number(total), what);
  if (seconds > 0 && done > 0) {
    const double rate = static_cast<double>(done) / seconds;
    s += fmt::format("  {}/s", rate >= 100 ? grouped_number(static_cast<std::uint64_t>(rate))
                                           : fmt::format("{:.1f}", rate));
    if (done < total)
      s += "  ETA " + duration(static_cast<double>(total - done) / rate);
    else
      s += "  in " + duration(seconds);
  }
  return s;
}

void progress::update(std::uint64_t done) {
  if (style_ == progress_style::quiet) return;
  const std::lock_guard<std::mutex> guard(lock_);
  if (finished_ || done <= done_) return;
  done_ = std::min(done, total_);
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < first_wait_) return;  // short work needs no report
  if (style_ == progress_style::bar) {
    if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  } else {
    const int decile = total_ ? static_cast<int>(done_ * 10 / total_) : 10;
    if (decile == last_decile_ || done_ == total_) return;  // the end is finish()'s line
    last_decile_ = decile;
  }
  last_draw_ = now;
  draw(done_, false);
}

void progress::finish() {
  if (style_ == progress_style::quiet) return;
  const std::lock_guard<std::mutex> guard(lock_);
  if (finished_) return;
  finished_ = true;
  // a final line only after a report, or for work that took a while
  const auto elapsed = std::chrono::steady_clock::now() - start_;
  if (drawn_ || (done_ == total_ && elapsed >= final_wait_)) draw(done_, true);
}

void progress::draw(std::uint64_t done, bool final) {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const bool bar = style_ == progress_style::bar;
  const std::string text = line(label_, what_, done, total_, seconds, bar);
  if (bar)
    std::fprintf(out_, "\r%s\033[K%s", text.c_str(), final ? "\n" : "");
  else
    std::fprintf(out_, "%s\n", text.c_str());
  std::fflush(out_);
  drawn_ = true;
}

}  // namespace attnviz
