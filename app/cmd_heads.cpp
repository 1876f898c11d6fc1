// attn-viz heads: the head finder (which heads of a model do what).
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/heads_job.h"
#include "jobs/model_job.h"
#include "options.h"
#include "report.h"
#include "suggest.h"

namespace attnviz::cli {

namespace {

struct heads_flags {
  heads_job_config job;
  std::string ids;
  std::size_t top = 3;
  bool quiet = false;
};

void print_report(std::FILE* out, const heads_report& r, std::size_t top) {
  fmt::print(out, "{}{} · measured on {}\n", model_summary(r.config),
             r.stack.empty() ? "" : fmt::format(" · the {}'s heads", r.stack),
             r.on_text ? fmt::format("the text ({} tokens); induction on {} random tokens said "
                                     "twice",
                                     r.tokens.size(), r.period)
                       : fmt::format("{} random tokens said twice", r.period));
  for (const head_pattern p : ranked_patterns) {
    fmt::print(out, "{:<15}", pattern_name(p));
    const auto ranked = r.ranked(p);
    for (std::size_t i = 0; i < std::min(top, ranked.size()); ++i)
      fmt::print(out, "  L{} H{} {:.2f}", ranked[i]->layer, ranked[i]->head, ranked[i]->score(p));
    fmt::print(out, "\n");
  }
  fmt::print(out, "\nlayer head  pattern          previous  first  induction  self  special  "
                  "entropy  distance  also\n");
  for (const head_finding& f : r.heads) {
    std::string also;
    for (const head_pattern p : f.also) also += (also.empty() ? "" : ", ") + std::string(pattern_name(p));
    fmt::print(out,
               "{:>5} {:>4}  {:<15} {:>9.3f} {:>6.3f} {:>10.3f} {:>5.3f} {:>8} {:>8.2f} {:>9.2f}{}\n",
               f.layer, f.head, pattern_name(f.pattern), f.stats.previous, f.stats.first,
               f.induction, f.stats.self,
               f.stats.marked ? fmt::format("{:.3f}", *f.stats.marked) : std::string("-"),
               f.stats.entropy_bits, f.stats.distance, also.empty() ? "" : "  " + also);
  }
}

}  // namespace

action setup_heads(CLI::App& app) {
  auto f = std::make_shared<heads_flags>();
  auto* cmd = app.add_subcommand(
      "heads", "Find what a model's heads do: previous-token, first-token (sink), induction and "
               "self heads, ranked, with each head's statistics");
  cmd->footer(R"(
Runs the model on T random tokens said twice (--period T, ids from --seed), and on the text when
one is given. Per head (means over the query rows):
  previous   weight on the token just before the query
  first      weight on the first token (attention sinks)
  induction  in the second half of the random sequence, weight on the token after the query's
             earlier occurrence (Olsson et al. 2022, "In-context learning and induction heads")
  self       weight on the query's own token
  special    weight on special tokens ([CLS], [SEP], <s>, <|endoftext|>, ...), if the text has any
  entropy    of each row, in bits (0: one key; log2 n: uniform)
  distance   mean |query - key| in tokens, weighted
previous, first and self come from the text when one is given, else from the random sequence. A
head is named for its strongest pattern when that score reaches --threshold, else "mixed"; the
other patterns that also reach it are listed under "also" (an induction head often rests on the
first token when the current token has no earlier occurrence).

Examples:
  attn-viz heads --model samples/kjv-gpt
  attn-viz heads --model gpt2 --text "The cat sat on the mat." --json heads.json)");
  auto& c = f->job;
  cmd->add_option("--model,-m", c.model_dir, "The model: a Hugging Face folder or a GGUF file (as for attn-viz model)")
      ->required()
      ->type_name("PATH")
      ->group("Input");
  auto* text = cmd->add_option("--text,-t", c.text,
                               "Measure previous/first/self/special on this text (through the "
                               "model's tokenizer); - reads standard input")
                    ->group("Input");
  cmd->add_option("--ids", f->ids, "Or on these token ids, comma-separated, as given")
      ->excludes(text)
      ->group("Input");
  cmd->add_option("--period", c.period,
                  "T: the random sequence is T tokens said twice [default: 50, or half the "
                  "model's positions if fewer]")
      ->check(CLI::Range(2, 100000))
      ->group("Input");
  cmd->add_option("--seed", c.seed, "Seed of the random tokens")->capture_default_str()->group("Input");
  cmd->add_option("--threshold", c.threshold,
                  "Name a head for its strongest pattern from this score on")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--stack", c.stack,
                  "Encoder-decoder models: the self-attention stack searched, encoder or decoder "
                  "(default; teacher-forced on the same tokens)")
      ->check(one_of({"encoder", "decoder", "cross"}))
      ->group("Input");
  cmd->add_option("--top", f->top, "Heads listed per pattern")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str()
      ->group("Output");
  add_output_flags(*cmd, c.out,
                   {{output_kind::json, "Write every head's statistics, its pattern and the "
                                        "rankings as JSON"}});
  cmd->add_flag("--quiet,-q", f->quiet, "No progress bar on stderr")->group("Output");

  return [f] {
    heads_job_config job = f->job;
    resolve_text_or_ids(job.text, f->ids, job.ids);
    if (f->quiet) job.progress = progress_style::quiet;
    const heads_report r = run_heads_job(job);
    print_warnings(r.warnings);
    print_report(summary_stream(r.written), r, f->top);
    print_written(r.written);
    return 0;
  };
}

}  // namespace attnviz::cli
