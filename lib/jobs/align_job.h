// `attn-viz align`: word alignments of parallel text from a translation model's cross attention,
// one Pharaoh line a sentence pair ("i-j": source word i, target word j, from 0; words as
// analysis/word_alignment.h groups the pieces: whitespace words), fast_align's format.
//
//   pairs       --source and --target, one sentence a line, or --input with fast_align's
//               "source ||| target" lines; every line read and checked before any work (an
//               empty side, a length mismatch, too many tokens: an error naming the line)
//   a pair      the model run teacher-forced on it; its cross attention as --method shows it
//               (weights, norms, contrib, alti, value-zeroing: lib/measures), averaged over
//               --layers × --heads (default: the model's alignment.json, else all:
//               jobs/align_reading.h), turned into a target-words × source-words
//               map (analysis/word_alignment.h); --shift reads target token t at the step
//               whose input it is (Chen et al. 2020, Shift-Att)
//   --extract   argmax: each target word to its row's largest source word; argmax-null: the
//               same unless the row's weight on the special tokens (</s>: 1 − the row's sum
//               over the words) is larger, the word then unaligned (a NULL link, as the
//               bundled models' guided head learnt to give); threshold: every pair whose value
//               reaches --threshold (words may stay unaligned)
//   --reverse-model   a model of the other direction, run on (target, source) the same way, its
//               map turned round: with argmax(-null) the two directions' pairs joined by
//               --symmetrize (analysis/symmetrize.h, default grow-diag-final-and); with
//               threshold the product
//               of the two maps against --threshold (awesome-align's rule)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/symmetrize.h"
#include "io/progress.h"
#include "jobs/align_reading.h"
#include "measures/measure.h"

namespace attnviz {

struct align_job_config {
  std::string model_dir, reverse_model_dir;
  std::string source_path, target_path;  // one sentence a line, or
  std::string input_path;                // "source ||| target" lines
  std::string out;                       // the Pharaoh file (empty: returned, printed)
  bool resume = false;  // with out: the pairs its journal has done are not aligned again
                        // (jobs/align_journal.h)
  const measure_spec* method = nullptr;  // null: the weights
  std::string layers, heads;  // averaged over (empty: each model's alignment.json, else all)
  // Chen et al. 2020's shift: target token t read at the decoder step that takes it as its
  // input (cross row t + 1), not the step that predicts it (the last row stays)
  bool shift = false;
  align_extract extract = align_extract::argmax;
  double threshold = 0.1;
  std::optional<symmetrize_method> symmetrize;  // with a reverse model (default: gdfa)
  // false: the three above are defaults, and the model's alignment.json, where it stands for the
  // layers and heads and names a reading (jobs/align_reading.h), replaces them
  bool extract_given = true;
  progress_style progress = progress_style::automatic;
};

struct align_report {
  std::vector<std::string> lines;      // one Pharaoh line a pair
  std::size_t pairs = 0, aligned = 0;  // pairs, and word pairs in all
  std::size_t resumed = 0;             // pairs taken from the journal (--resume)
  std::vector<std::string> readings;   // per model, the layers and heads read and why
  double seconds = 0.0;
  std::vector<std::string> written;
};

align_report run_align_job(const align_job_config& config);

}  // namespace attnviz
