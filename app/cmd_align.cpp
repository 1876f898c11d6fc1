// attn-viz align: Pharaoh word alignments of parallel text from a translation model.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/align_job.h"
#include "measures/measure.h"
#include "report.h"
#include "suggest.h"

namespace attnviz::cli {

namespace {

struct align_flags {
  align_job_config job;
  std::string method = "weights", extract = "argmax", symmetrize;
  bool quiet = false;
  std::vector<CLI::Option*> reading;  // --extract, --threshold, --symmetrize
};

}  // namespace

action setup_align(CLI::App& app) {
  auto f = std::make_shared<align_flags>();
  auto* cmd = app.add_subcommand(
      "align",
      "Align the words of parallel text with a translation model's cross attention: one "
      "Pharaoh line (i-j: source word i, target word j) a sentence pair");
  cmd->footer(R"(
Each pair runs through the model teacher-forced (the target given); its cross attention, as
--method shows it and averaged over --layers x --heads, becomes a map of target words x source
words (words: whitespace tokens, their pieces summed over the source and averaged over the
target; special tokens left out), and --extract reads the pairs off it. Without --layers and
--heads, a model folder's alignment.json names the ones to read (the bundled models': the head
their training taught to align, Garg et al. 2019) and, without --extract, --threshold and
--symmetrize, may name how to read them, alone and with a reverse model (the bundled models':
argmax-null alone, threshold 0.05 on the two maps' product, each the best on dev verses); the
summary says which were read.
  argmax        each target word to the source word of its row's largest value
  argmax-null   the same, unless the row's weight on the source's special tokens (</s>) is
                larger than that word's: then unaligned (a NULL link; the bundled models'
                guided head learnt to give one for a word without a counterpart)
  threshold     every pair whose value reaches --threshold (words may stay unaligned)
With --reverse-model (a model of the other direction), both directions are read: argmax (or
argmax-null) pairs joined by --symmetrize (intersect, union, grow-diag-final-and: Koehn et al. 2003), threshold
on the product of the two maps (Dou & Neubig 2021). Every line is read and checked before any
work; an empty side or a sentence past the model's positions is an error naming the line.

Examples:
  attn-viz align --model samples/rv-kjv-marian --source verses.es --target verses.en --out a.txt
  attn-viz align --model samples/rv-kjv-marian --input pairs.txt --method alti --layers 2
  attn-viz align --model samples/rv-kjv-marian --reverse-model samples/kjv-rv-marian \
      --input pairs.txt --symmetrize intersect)");
  auto& c = f->job;
  cmd->add_option("--model,-m", c.model_dir, "The translation model (an encoder–decoder folder)")
      ->required()
      ->type_name("PATH")
      ->group("Input");
  auto* source = cmd->add_option("--source,-s", c.source_path, "Source sentences, one a line")
                     ->type_name("FILE")
                     ->group("Input");
  auto* target = cmd->add_option("--target,-t", c.target_path,
                                 "Target sentences, one a line, as many as the source's")
                     ->type_name("FILE")
                     ->group("Input");
  cmd->add_option("--input,-i", c.input_path,
                  "Sentence pairs as 'source ||| target' lines (fast_align's input)")
      ->excludes(source)
      ->excludes(target)
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--reverse-model", c.reverse_model_dir,
                  "A model of the other direction (target to source): both directions read")
      ->type_name("PATH")
      ->group("Input");
  cmd->add_option("--method", f->method,
                  "What the cross attention shows: weights, or a measure (norms, contrib, alti, "
                  "value-zeroing: attn-viz model --measure)")
      ->check(one_of(measure_names()))
      ->capture_default_str()
      ->group("Alignment");
  cmd->add_option("--layers", c.layers,
                  "The decoder layers averaged, e.g. 2 or 0-1 [default: the model folder's "
                  "alignment.json, which the bundled models' training writes for the head it "
                  "trained to align; without one, all]")
      ->group("Alignment");
  cmd->add_option("--heads", c.heads, "The heads averaged [default: as --layers]")
      ->group("Alignment");
  cmd->add_flag("--shift", c.shift,
                "Read target token t at the decoder step that takes it as input (row t + 1: "
                "Chen et al. 2020's Shift-Att) instead of the step that predicts it")
      ->group("Alignment");
  f->reading.push_back(cmd->add_option("--extract", f->extract,
                                       "argmax, argmax-null or threshold (above) [default: the "
                                       "reading alignment.json names, else argmax]")
                           ->check(one_of({align_extract_names.begin(), align_extract_names.end()}))
                           ->group("Alignment"));
  f->reading.push_back(cmd->add_option("--threshold", c.threshold,
                                       "With --extract threshold: the value a pair must reach "
                                       "(with a reverse model, the two maps' product)")
                           ->check(CLI::Range(0.0, 1.0))
                           ->capture_default_str()
                           ->group("Alignment"));
  f->reading.push_back(cmd->add_option("--symmetrize", f->symmetrize,
                                       "With --reverse-model and argmax(-null): intersect, union "
                                       "or grow-diag-final-and [default: grow-diag-final-and]")
                           ->check(one_of({"intersect", "union", "grow-diag-final-and"}))
                           ->group("Alignment"));
  cmd->add_option("--out,-o", c.out, "Write the alignments to FILE [default: print them]")
      ->type_name("FILE")
      ->group("Output");
  cmd->add_flag("--resume", c.resume,
                "With --out: align only the pairs a killed run left (its journal, "
                "FILE.attn-viz-journal.jsonl, says which are done)")
      ->group("Output");
  cmd->add_flag("--quiet,-q", f->quiet, "No progress bar on stderr")->group("Output");

  return [f] {
    align_job_config job = f->job;
    if (job.input_path.empty() && (job.source_path.empty() || job.target_path.empty()))
      throw usage_error(
          fmt::format("give {} and {} (one sentence a line), or {} (source ||| "
                      "target lines)",
                      param("source"), param("target"), param("input")));
    job.method = &measure_named(f->method, "method");
    job.extract_given = false;
    for (const CLI::Option* o : f->reading) job.extract_given |= o->count() > 0;
    job.extract = align_extract_named(f->extract).value();  // checked by the option
    if (!f->symmetrize.empty()) {
      if (job.reverse_model_dir.empty() || job.extract == align_extract::threshold)
        throw usage_error(
            fmt::format("{} joins the argmax pairs of two directions: add {} "
                        "(and leave {} at argmax or argmax-null)",
                        param("symmetrize"), param("reverse_model"), param("extract")));
      job.symmetrize = symmetrize_named(f->symmetrize, "symmetrize");
    }
    if (job.resume && job.out.empty())
      throw usage_error(
          fmt::format("{} continues a run that writes {} FILE", param("resume"), param("out")));
    if (f->quiet) job.progress = progress_style::quiet;
    const align_report r = run_align_job(job);
    if (job.out.empty())
      for (const std::string& line : r.lines) fmt::print("{}\n", line);
    std::FILE* out = job.out.empty() ? stderr : summary_stream(r.written);
    fmt::print(out, "{} sentence pairs aligned{}, {} word pairs, in {:.1f} s ({:.1f} pairs/s)\n",
               r.pairs,
               r.resumed ? fmt::format(" ({} already done: --resume)", r.resumed) : std::string(),
               r.aligned, r.seconds,
               r.seconds > 0 ? static_cast<double>(r.pairs - r.resumed) / r.seconds : 0.0);
    for (const std::string& reading : r.readings) fmt::print(out, "  read: {}\n", reading);
    print_written(r.written);
    return 0;
  };
}

}  // namespace attnviz::cli
