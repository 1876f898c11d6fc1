// `attn-viz run --input FILE --out-dir DIR`: one run per line of a text file.
//
// Each non-blank line is a sentence (self-attention) or `source<TAB>target` (cross attention:
// the source gives keys and values, the target queries). Blank lines and '#' comments are
// skipped and not counted; line numbers stay those of the file.
//
// Order of work:
//   1. check the folder and the variant; read the file (or standard input for "-");
//   2. tokenize every line; a bad line (invalid UTF-8, no tokens, two tabs, too big for
//      --max-memory, or --oov error with a missing token) is recorded with its line number;
//   3. read the embedding file once, for the tokens of every line;
//   4. with `strict`, the first bad line is an input_error here, before anything is written;
//   5. run the good lines in parallel (OpenMP, one line per thread at a time; the kernels inside
//      a line then run on one thread), each line's files written all-or-nothing as
//      DIR/NNNN-first-words.{png,json,svg,html} and DIR/NNNN-first-words/ (npy), NNNN the line
//      number; progress on stderr;
//   6. DIR/index.json: every line with its files or its error.
// Each line's record goes to the journal once its files are in place (batch_journal.h); with
// `resume`, lines recorded there are not run again, and the files and index come out as a
// clean run's.
// Every line runs with the same parameters (the same seed, or the same --params file), so the
// outputs are the same bytes whatever the thread count.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "io/progress.h"
#include "jobs/batch_journal.h"
#include "jobs/run_job.h"

namespace attnviz {

enum class batch_format { png, json, svg, npy, html };

struct batch_config {
  run_config run;     // input flags, variant, parameters, view, max_memory; its paths unused
  std::string input;  // the lines ("-": standard input)
  std::string out_dir;
  std::vector<batch_format> formats = {batch_format::png, batch_format::json};
  bool strict = false;
  progress_style progress = progress_style::automatic;
  bool resume = false;                // skip the lines the journal says are done
  std::vector<std::string> settings;  // what else shapes the files (the app's flags), hashed
};

struct batch_line_error {
  std::size_t line = 0;  // 1-based line of the input file
  std::string message;   // starts with "FILE:LINE"; parameters marked (error.h: param)
};

struct batch_report {
  std::size_t lines = 0;                  // lines to run (not blank, not comments)
  std::size_t succeeded = 0;              // lines whose files were all written (or resumed)
  std::size_t resumed = 0;                // of those, lines the journal had as done
  std::size_t files = 0;                  // files written in all (index.json included)
  std::vector<batch_line_error> skipped;  // in line order
  std::vector<std::string> warnings;      // OOV tokens over all lines, unused tensors
  std::string index_path;                 // DIR/index.json
};

batch_report run_batch(const batch_config& config);

// The lines of a batch's input file to run (not blank, not a '#' comment), numbered as in the
// file (a leading UTF-8 BOM and a trailing '\r' dropped).
struct numbered_line {
  std::size_t number = 0;
  std::string text;
};
std::vector<numbered_line> batch_input_lines(std::string bytes);
// The message of e prefixed with "where: " unless it starts so already (input_error's what()
// names the source first), with its param() marks (plain names in index.json).
std::string message_at(const std::string& where, const std::exception& e);
// A format's name, which is also its files' extension ("png").
std::string_view format_extension(batch_format f);

// "png,json" -> formats; unknown names are a usage_error listing the known ones.
std::vector<batch_format> parse_batch_formats(std::string_view list);

// The file stem of line `line`: the number padded to `width` digits, then up to 40 characters
// of the line's ASCII letters and digits in lower case, runs of anything else as one '-':
// (7, 4, "The cat sat.") -> "0007-the-cat-sat". Only the number when nothing is left.
std::string batch_file_stem(std::size_t line, std::size_t width, std::string_view text);

}  // namespace attnviz
