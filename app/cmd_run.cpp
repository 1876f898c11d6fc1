// attn-viz run: one variant on one sentence (or pair).
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <vector>

#include "commands.h"
#include "error.h"
#include "jobs/batch_job.h"
#include "jobs/run_job.h"
#include "options.h"
#include "report.h"
#include "suggest.h"

namespace attnviz::cli {

namespace {

int run_batch_command(const CLI::App& cmd, const common_flags& flags, batch_config batch,
                      const std::string& formats, bool quiet) {
  if (batch.input.empty()) throw usage_error("--out-dir needs --input FILE (one run per line)");
  if (batch.out_dir.empty())
    throw usage_error("--input needs --out-dir DIR: each line writes its own files there");
  std::vector<std::string> refused = output_flag_names();
  refused.insert(refused.end(),
                 {"--text", "--tokens", "--source", "--target", "--values", "--term", "--stream"});
  for (const std::string& flag : refused)
    if (cmd.count(flag))
      throw usage_error(fmt::format(
          "{} does not go with --input: the lines are the inputs, and --formats chooses the "
          "files written per line",
          flag));
  batch.formats = parse_batch_formats(formats);
  batch.settings = batch_settings(cmd);
  if (quiet) batch.progress = progress_style::quiet;
  run_config& c = batch.run;
  resolve_job(flags, c);
  c.stream = run_config::streaming::off;
  c.progress = progress_style::quiet;
  const batch_report report = run_batch(batch);
  for (const auto& s : report.skipped) fmt::print(stderr, "attn-viz: skipped {}\n", cli_text(s.message));
  print_warnings(report.warnings);
  fmt::print("ran {} of {} line(s){}{}: {} file(s) in {} (list: {})\n",
             report.succeeded - report.resumed, report.lines,
             report.resumed ? fmt::format(", {} already done (--resume)", report.resumed) : "",
             report.skipped.empty() ? "" : fmt::format(", {} skipped", report.skipped.size()),
             report.files, batch.out_dir, report.index_path);
  return report.succeeded > 0 ? 0 : 2;
}

// Every flag of run, in one place the action reads.
struct run_flags {
  common_flags common;
  run_config run;  // its outputs and --pixels
  bool term = false, stream = false, no_stream = false, quiet = false;
  std::string pool = "mean";
  batch_config batch;  // --input, --out-dir, --resume, --strict
  std::string formats = "png,json";
};

// --stream --no-stream --pixels --pool --quiet
void add_long_input_flags(CLI::App& cmd, run_flags& f) {
  cmd.add_flag("--stream", f.stream,
                "Push blocks of queries through all three stages and pool the weights straight "
                "into the picture: memory O(n d + pixels^2), never O(n^2); every softmax row "
                "is still exact. Automatic past 4096 x 4096 query x key cells, or when the full "
                "maps would pass --max-memory")
      ->group("Long inputs");
  cmd.add_flag("--no-stream", f.no_stream,
                "Never stream: keep every weight (the size check of --max-memory applies)")
      ->excludes(cmd.get_option("--stream"))
      ->group("Long inputs");
  cmd.add_option("--pixels", f.run.pixels,
                  "Streaming: side of the pooled map, at most this many bins of queries and of "
                  "keys (one pixel each)")
      ->check(CLI::Range(1, 16384))
      ->capture_default_str()
      ->group("Long inputs");
  cmd.add_option("--pool", f.pool,
                  "Streaming: a pixel is the mean of the weights it covers (a row of pixels "
                  "still sums to 1 per token) or their max (single sharp links stay visible)")
      ->check(one_of(names_of(pool_mode_names)))
      ->capture_default_str()
      ->group("Long inputs");
  cmd.add_flag("--quiet,-q", f.quiet, "No progress bar on stderr")->group("Long inputs");

}

// --input --out-dir --formats --resume --strict
void add_batch_flags(CLI::App& cmd, run_flags& f) {
  cmd.add_option("--input,-i", f.batch.input,
                  "Batch: one run per line of FILE (- for standard input): a sentence, or "
                  "source<TAB>target for cross attention; blank lines are skipped")
      ->type_name("FILE")
      ->group("Batch");
  cmd.add_option("--out-dir,-o", f.batch.out_dir,
                  "Batch: folder for the outputs (made if missing): NNNN-first-words.png etc., "
                  "NNNN the line number, and index.json listing every line's files or error")
      ->type_name("DIR")
      ->group("Batch");
  cmd.add_option("--formats", f.formats,
                  "Batch: what to write per line, from png, json, svg, npy, html")
      ->capture_default_str()
      ->group("Batch");
  cmd.add_flag("--resume", f.batch.resume,
                "Batch: skip the lines an earlier run of the same batch finished (its journal, "
                "DIR/.attn-viz-journal.jsonl, records each line once its files are whole), so a "
                "killed run picks up where it stopped; refused when the flags or files changed")
      ->group("Batch");
  cmd.add_flag("--strict", f.batch.strict,
                "Batch: stop at the first bad line (exit 2, nothing written) instead of reporting "
                "and skipping it")
      ->group("Batch");

}

}  // namespace

action setup_run(CLI::App& app) {
  auto f = std::make_shared<run_flags>();
  auto* cmd = app.add_subcommand("run", "Run one attention variant on a sentence and draw it");
  cmd->footer(R"(
The pipeline: tokens -> embeddings X -> [--project: Q = X W_Q^T, K = X W_K^T, V = X W_V^T]
  -> stage 1 score e_ij -> stage 2 align a_ij -> stage 3 context c_i.
Without --project, self-attention uses the raw embeddings (q = k = v = x), so the map shows
how similar the words' vectors are.

Examples:
  attn-viz run --text "the cat sat on the floor because it was tired" --png cat.png
  attn-viz run --text "..." --score additive --json a.json --params-out a.safetensors
  attn-viz run --source "paris is the capital of france" --target "what is the capital ?" \
               --score general --png cross.png
  attn-viz run --text "..." --context hard --hard argmax        (prints the table)
  attn-viz run --input sentences.txt --out-dir maps --formats png,json   (one run per line)
  attn-viz run --text - --project --dk 64 --stream --png long.png < book.txt
                              (65,536 tokens -> a 2048 x 2048 pooled map in well under 1 GiB)

Without --json/--png/--svg/--npy/--html/--params-out the weights are printed as a table.
Batch (--input): every line runs with the same variant and parameters, lines in parallel, a
progress bar on stderr (plain lines when not a terminal, none with --quiet). A bad line is
reported with its number and skipped; exit 0 when at least one line ran, 2 when none did.
Exit codes: 0 success, 2 bad usage or bad input, 1 internal error.)");
  add_input_flags(*cmd, f->common);
  add_subword_flag(*cmd, f->common);
  add_variant_flags(*cmd, f->common);
  add_view_flags(*cmd, f->common);
  cmd->add_flag("--term", f->term,
                "Draw the heatmap in the terminal (24-bit or 256 colours; plain numbers when "
                "not a terminal or NO_COLOR is set)")
      ->group("Output");
  add_output_flags(
      *cmd, f->run.out,
      {{output_kind::json, "Write scores, weights and context as JSON"},
       {output_kind::png},
       {output_kind::svg},
       {output_kind::npy,
        "Write weights.npy, scores.npy, context.npy [heads, rows, cols] (and output.npy) as "
        "NumPy float32 arrays, with the tokens as text, into this folder (made if missing)"},
       {output_kind::html,
        "Write one self-contained page (no network): the map, hover for the query, key, score "
        "and weight with the query's explanation, a head selector"},
       {output_kind::params,
        "Write every parameter the run used (safetensors), to reproduce or check it"}});
  add_long_input_flags(*cmd, *f);
  add_batch_flags(*cmd, *f);

  return [cmd, f] {
    if (!f->batch.input.empty() || !f->batch.out_dir.empty())
      return run_batch_command(*cmd, f->common, f->batch, f->formats, f->quiet);
    for (const char* flag : {"--formats", "--strict", "--resume"})
      if (cmd->count(flag)) throw usage_error(fmt::format("{} needs --input FILE", flag));
    run_config c = f->run;
    c.stream = f->stream      ? run_config::streaming::on
               : f->no_stream ? run_config::streaming::off
                              : run_config::streaming::automatic;
    c.pool = parse_pool_mode(f->pool);
    if (f->quiet) c.progress = progress_style::quiet;
    resolve_job(f->common, c);
    const run_report report = run_job(c);
    print_warnings(report.warnings);
    if (!report.streamed && (f->term || report.written.empty()))
      print_terminal_view(report.result, c.view, f->term);
    print_written(report.written);
    return 0;
  };
}

}  // namespace attnviz::cli
