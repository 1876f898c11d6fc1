#include "jobs/demo_job.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attention/registry.h"
#include "attnviz/version.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/align_reading.h"
#include "jobs/aoa_job.h"
#include "jobs/compare_job.h"
#include "jobs/han_job.h"
#include "jobs/heads_job.h"
#include "jobs/model_job.h"
#include "jobs/run_job.h"
#include "jobs/transformer_job.h"

namespace attnviz {
namespace fs = std::filesystem;
namespace {

constexpr const char* sample_embeddings_name = "glove.6B.50d.sample.txt";
// The trained model in samples/ (samples/train_demo_model.py) and the text the demo runs it on.
constexpr const char* demo_model_name = "kjv-gpt";
constexpr const char* demo_model_text =
    "And God said, Let there be light: and there was light. And God said, Let there be light: "
    "and there was light.";

// The translation model in samples/ (samples/translation/train_translation_model.py), and the
// held-out verse the demo shows its alignment of: Ruth 1:16, line 16 of samples/translation's
// heldout.es, heldout.en and heldout.gold.
constexpr const char* translation_model_name = "rv-kjv-marian";
constexpr std::size_t translation_line = 15;  // from 0
constexpr const char* translation_stem = "translation-ruth-1-16";

std::vector<std::string> data_lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(read_whole_file(path));
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    out.push_back(line);
  }
  return out;
}

// Line `k` (from 0) of a text file.
std::string line_of(const fs::path& path, std::size_t k) {
  std::istringstream in(read_whole_file(path.string()));
  std::string line;
  for (std::size_t i = 0; std::getline(in, line); ++i)
    if (i == k) return line;
  throw input_error(path.string(), fmt::format("has fewer than {} lines", k + 1));
}

bool has_translation_model(const fs::path& samples) {
  std::error_code ec;
  return fs::is_regular_file(samples / translation_model_name / "config.json", ec) &&
         fs::is_regular_file(samples / "translation" / "heldout.gold", ec);
}

// The translation model's cross attention on the held-out verse as a word alignment (at the
// layer and head its alignment.json names, as align reads it — by argmax-null when the file
// names that reading for the model alone, as the bundled model's does: its head was taught to
// rest on </s> for a word without a counterpart; else by argmax at the layer
// samples/translation/evaluation.json found best, when it is there), scored against the
// translators' own alignment, which is written beside it (.gold.txt), with the model's
// (.align.txt).
std::vector<std::string> translation_demo(const fs::path& samples, const fs::path& out_dir,
                                          const std::function<job_outputs(std::string)>& outputs_of) {
  const fs::path held = samples / "translation";
  const std::string gold_path = (out_dir / (std::string(translation_stem) + ".gold.txt")).string();
  output_batch gold;
  gold.add(gold_path, line_of(held / "heldout.gold", translation_line) + "\n");
  std::vector<std::string> written = gold.commit();
  model_job_config m;
  m.model_dir = (samples / translation_model_name).string();
  m.text = line_of(held / "heldout.es", translation_line);
  m.target_text = line_of(held / "heldout.en", translation_line);
  m.progress = progress_style::quiet;
  m.choice.view = maps_view::alignment;
  const align_reading saved = saved_align_reading(m.model_dir);
  std::error_code ec;
  if (saved.from != "all") {
    m.choice.layers = saved.layers;
    m.choice.heads = saved.heads;
    if (saved.alone && saved.alone->extract == align_extract::argmax_null)
      m.method = align_method::argmax_null;
  } else if (fs::is_regular_file(held / "evaluation.json", ec)) {
    const auto e = nlohmann::json::parse(read_whole_file((held / "evaluation.json").string()));
    m.choice.layers = std::to_string(e.at("best_layer").get<int>());
  }
  m.gold_path = gold_path;
  m.out = outputs_of(translation_stem);
  m.align_path = (out_dir / (std::string(translation_stem) + ".align.txt")).string();
  const model_report r = run_model_job(m);
  written.insert(written.end(), r.written.begin(), r.written.end());
  return written;
}

}  // namespace

std::string slug(const std::string& text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) && c < 0x80)
      out.push_back(static_cast<char>(std::tolower(c)));
    else if (!out.empty() && out.back() != '-')
      out.push_back('-');
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (out.size() > 40) {  // cut at a word boundary
    const auto dash = out.rfind('-', 40);
    out.resize(dash != std::string::npos && dash > 0 ? dash : 40);
  }
  return out.empty() ? "sentence" : out;
}

std::string find_samples_dir() {
  auto has_samples = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p / sample_embeddings_name, ec);
  };
  if (const char* env = std::getenv("ATTNVIZ_SAMPLES"); env && *env) return env;
  for (const char* candidate : {default_samples_dir, installed_samples_dir})
    if (has_samples(candidate)) return candidate;
  throw usage_error(
      fmt::format("cannot find the samples folder (looked in {} and {}); "
                  "give it with {} DIR",
                  default_samples_dir, installed_samples_dir, param("samples")));
}

namespace {

// The output folder: made when missing, its parent must exist.
void make_demo_dir(const fs::path& out_dir) {
  std::error_code ec;
  if (fs::is_directory(out_dir, ec)) return;
  const fs::path parent = out_dir.parent_path().empty() ? "." : out_dir.parent_path();
  if (!fs::is_directory(parent, ec))
    throw usage_error(fmt::format("{} {}: folder '{}' does not exist", param("out_dir"),
                                  out_dir.string(), parent.string()));
  fs::create_directory(out_dir, ec);
  if (ec)
    throw usage_error(fmt::format("{} {}: cannot create it: {}", param("out_dir"),
                                  out_dir.string(), ec.message()));
}

// The single runs, named by their files' stem: every score function on the first sentence, the
// other sentences with scaled_dot, each pair with scaled_dot and additive, five heads on the
// first sentence.
std::vector<std::pair<std::string, run_config>> demo_runs(
    const run_config& base, const std::vector<std::string>& sentences,
    const std::vector<std::string>& pairs, const std::string& pairs_file) {
  std::vector<std::pair<std::string, run_config>> jobs;
  const std::string first = fmt::format("01-{}", slug(sentences[0]));
  for (const auto& s : score_registry()) {
    run_config c = base;
    c.input.text = sentences[0];
    c.spec.score = std::string(s.info.name);
    jobs.emplace_back(fmt::format("{}-{}", first, s.info.name), c);
  }
  for (std::size_t i = 1; i < sentences.size(); ++i) {
    run_config c = base;
    c.input.text = sentences[i];
    jobs.emplace_back(fmt::format("{:02}-{}-scaled_dot", i + 1, slug(sentences[i])), c);
  }
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto tab = pairs[i].find('\t');
    if (tab == std::string::npos)
      throw input_error(pairs_file, i + 1, "expected source<TAB>target");
    for (const char* score : {"scaled_dot", "additive"}) {
      run_config c = base;
      c.input.source = pairs[i].substr(0, tab);
      c.input.target = pairs[i].substr(tab + 1);
      c.spec.score = score;
      jobs.emplace_back(fmt::format("cross-{:02}-{}-{}", i + 1, slug(c.input.target), score), c);
    }
  }
  // multi-head: five heads of d_k = 10 on the first sentence, each head and their mean
  run_config c = base;
  c.input.text = sentences[0];
  c.spec.heads = 5;
  jobs.emplace_back(fmt::format("{}-multihead-5", first), c);
  return jobs;
}

// samples/document.txt as one text (lines joined), or empty when there is none.
std::string demo_document(const fs::path& samples) {
  std::error_code missing;
  if (!fs::exists(samples / "document.txt", missing)) return {};
  std::string document;
  for (const auto& line : data_lines((samples / "document.txt").string())) document += line + "\n";
  return document;
}

}  // namespace

demo_report run_demo(
    const demo_config& config,
    const std::function<void(std::size_t, std::size_t, const std::string&)>& progress) {
  const fs::path samples(config.samples_dir);
  const fs::path out_dir(config.out_dir);
  const auto sentences = data_lines((samples / "sentences.txt").string());
  const auto pairs = data_lines((samples / "pairs.tsv").string());
  if (sentences.empty())
    throw input_error((samples / "sentences.txt").string(), "has no sentences");
  make_demo_dir(out_dir);

  run_config base;
  base.input.embeddings = (samples / sample_embeddings_name).string();
  base.spec.seed = config.seed;
  auto jobs = demo_runs(base, sentences, pairs, (samples / "pairs.tsv").string());
  const std::string document = demo_document(samples);

  std::error_code ec;
  const bool has_demo_model = fs::is_regular_file(samples / demo_model_name / "config.json", ec);
  const bool has_translation = has_translation_model(samples);
  demo_report report;
  const std::size_t total = jobs.size() + 4 + (has_demo_model ? 2 : 0) + (has_translation ? 1 : 0);
  std::size_t step = 0;
  // Each job's PNG and JSON, named by its stem, after the progress line that names it.
  auto outputs_of = [&](const std::string& name) {
    if (progress) progress(step++, total, name);
    job_outputs out;
    out.png = (out_dir / (name + ".png")).string();
    out.json = (out_dir / (name + ".json")).string();
    return out;
  };
  auto keep = [&report](const std::vector<std::string>& written) {
    report.written.insert(report.written.end(), written.begin(), written.end());
  };
  for (auto& [name, c] : jobs) {
    c.out = outputs_of(name);
    if (find_score(c.spec.score).has_parameters)
      c.out.params = (out_dir / (name + ".safetensors")).string();
    run_report r = run_job(c);
    keep(r.written);
    for (auto& w : r.warnings) report.warnings.push_back(fmt::format("{}: {}", name, w));
  }
  // every score function side by side, with the comparison table
  compare_config cmp;
  cmp.input = base.input;
  cmp.input.text = sentences[0];
  cmp.spec = base.spec;
  cmp.scores = {"all"};
  cmp.out = outputs_of(fmt::format("compare-01-{}", slug(sentences[0])));
  keep(run_compare(cmp).written);
  if (!pairs.empty()) {
    const auto tab = pairs[0].find('\t');
    // the Transformer's three attentions for the first pair (sinusoidal positions, 5 heads)
    transformer_config t;
    t.input = base.input;
    t.input.source = pairs[0].substr(0, tab);
    t.input.target = pairs[0].substr(tab + 1);
    t.spec = base.spec;
    t.spec.heads = 5;
    t.spec.position = position_scheme::sinusoidal;
    t.out = outputs_of(fmt::format("transformer-01-{}", slug(t.input.target)));
    keep(run_transformer(t).written);
    // attention-over-attention: the source as document, the target as query
    aoa_config a;
    a.input = t.input;
    a.out = outputs_of(fmt::format("aoa-01-{}", slug(a.input.target)));
    keep(run_aoa(a).written);
  }
  if (!document.empty()) {
    han_config h;
    h.input.text = document;
    h.input.embeddings = base.input.embeddings;
    h.seed = config.seed;
    h.out = outputs_of("han-document");
    keep(run_han(h).written);
  }
  if (has_demo_model) {
    // the trained model: every head on a verse said twice (the second time, induction heads
    // look back to the token after the first), named by the head finder; and the layer of the
    // strongest induction head as the head view
    model_job_config m;
    m.model_dir = (samples / demo_model_name).string();
    m.text = demo_model_text;
    m.progress = progress_style::quiet;
    m.choice.view = maps_view::model;
    m.name_heads = true;
    m.out = outputs_of(fmt::format("model-{}", demo_model_name));
    m.out.html = (out_dir / fmt::format("model-{}.html", demo_model_name)).string();  // to explore
    const model_report r = run_model_job(m);
    keep(r.written);
    heads_job_config f;
    f.model_dir = m.model_dir;
    f.progress = progress_style::quiet;
    const heads_report found = run_heads_job(f);
    m.name_heads = false;
    m.choice.view = maps_view::lines;
    m.choice.layer = found.ranked(head_pattern::induction).front()->layer;
    m.out = outputs_of(fmt::format("model-{}-layer{}-lines", demo_model_name, m.choice.layer));
    m.out.json.clear();
    keep(run_model_job(m).written);
  }
  if (has_translation) keep(translation_demo(samples, out_dir, outputs_of));
  if (progress) progress(total, total, "");
  return report;
}

}  // namespace attnviz
