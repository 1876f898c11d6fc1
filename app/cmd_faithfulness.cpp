// attn-viz faithfulness: how far each measure's map can be trusted (erase what it ranks first).
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/faithfulness_job.h"
#include "jobs/faithfulness_outputs.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

namespace {

struct faithfulness_flags {
  faithfulness_job_config job;
  std::string measures;
  bool quiet = false;
};

std::vector<const measure_spec*> parse_measures(const std::string& list) {
  std::vector<const measure_spec*> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string name = list.substr(start, end - start);
    if (name.empty())
      throw usage_error(fmt::format("{}: an empty name in '{}'", param("measures"), list));
    out.push_back(&measure_named(name, "measures"));
    start = end + 1;
  }
  return out;
}

}  // namespace

action setup_faithfulness(CLI::App& app) {
  auto f = std::make_shared<faithfulness_flags>();
  auto* cmd = app.add_subcommand(
      "faithfulness",
      "Measure how far each attention measure can be trusted: erase the tokens it ranks first "
      "and watch the model's prediction (comprehensiveness, sufficiency, their areas)");
  cmd->footer(R"(
For each text the model predicts a token (a causal model: the next one after the text; a masked
LM: the first [MASK]), with probability p. Each measure ranks the tokens by its rollout through
every layer, read at the prediction's row (weights with 1/2 I for the residual; contrib, alti
and value-zeroing as they are). Then, for k = 1 to --k (DeYoung et al. 2020, "ERASER"):
  comprehensiveness(k)  p - p with the measure's top k tokens erased
                        (higher: the map found what the prediction rests on)
  sufficiency(k)        p - p with every token but its top k erased
                        (lower: what it ranks first is enough)
  AOPC                  the mean over k of either: the area over the perturbation curve
beside --random orders drawn from --seed. Erasing drops the tokens (the text closes up) or,
with --replace-id, puts that token id in their place; special tokens ([CLS], <s>, ...) and a
masked LM's own row are never erased; nor, with --keep-last, a causal model's last token
(erasing it changes the question itself, and most rankings put it first). A text needs more than --k tokens that may be erased.
Every erasure is one forward of the model: texts x (measures + random) x 2k runs.

Examples:
  attn-viz faithfulness --model samples/kjv-gpt --text "And God said, Let there be light: and there was"
  attn-viz faithfulness --model samples/kjv-gpt --input verses.txt --k 8 --png faithfulness.png --json f.json)");
  auto& c = f->job;
  cmd->add_option("--model,-m", c.model_dir,
                  "The model: a Hugging Face folder or a GGUF file (decoder-only or encoder)")
      ->required()
      ->type_name("PATH")
      ->group("Input");
  auto* text = cmd->add_option("--text,-t", c.text,
                               "One text, through the model's tokenizer; - reads standard input")
                   ->group("Input");
  cmd->add_option("--input,-i", c.input,
                  "A file of texts, one a line (blank lines skipped), each with its own "
                  "prediction; the results are their means")
      ->excludes(text)
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--measures", f->measures,
                  fmt::format("The measures ranked, comma-separated, from: {} [default: all]",
                              fmt::join(measure_names(), ", ")))
      ->group("Input");
  cmd->add_option("--k,-k", c.k, "Erase 1 to K tokens")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str()
      ->group("Input");
  cmd->add_option("--random", c.random, "Random orders a text, the baseline")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str()
      ->group("Input");
  cmd->add_option("--seed", c.seed, "Seed of the random orders")
      ->capture_default_str()
      ->group("Input");
  cmd->add_option("--replace-id", c.replace_id,
                  "Put this token id where a token is erased (e.g. the model's pad or unk id) "
                  "[default: drop the erased tokens]")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40))
      ->group("Input");
  cmd->add_flag("--keep-last", c.keep_last,
                "Never erase a causal model's last token, the one the prediction follows: "
                "rank and erase only its context")
      ->group("Input");
  add_output_flags(
      *cmd, c.out,
      {{output_kind::json, "Write each text's rankings and curves and the means as JSON"},
       {output_kind::png, "Draw both curves of every measure beside the random orders'"},
       {output_kind::svg, nullptr}});
  cmd->add_flag("--quiet,-q", f->quiet, "No progress bar on stderr")->group("Output");

  return [f] {
    faithfulness_job_config job = f->job;
    if (job.text.empty() && job.input.empty())
      throw usage_error(fmt::format("give {} TEXT or {} FILE", param("text"), param("input")));
    if (job.text == "-") job.text = read_stdin();
    if (!f->measures.empty()) job.measures = parse_measures(f->measures);
    if (f->quiet) job.progress = progress_style::quiet;
    const faithfulness_report r = run_faithfulness_job(job);
    print_warnings(r.warnings);
    std::FILE* out = summary_stream(r.written);
    if (r.texts.size() == 1) {
      const faithfulness_text& t = r.texts.front();
      fmt::print(out, "prediction at position {} ({} tokens): \"{}\", p = {:.4f}\n", t.position,
                 t.tokens.size(), t.predicted_token, t.probability);
    }
    fmt::print(out, "{}", faithfulness_table(r));
    print_written(r.written);
    return 0;
  };
}

}  // namespace attnviz::cli
