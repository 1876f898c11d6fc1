#include "jobs/align_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>

#include "analysis/word_alignment.h"
#include "error.h"
#include "io/file_io.h"
#include "jobs/align_journal.h"
#include "jobs/align_reading.h"
#include "jobs/batch_journal.h"
#include "jobs/model_job.h"
#include "jobs/seq2seq_measures.h"
#include "jobs/seq2seq_views.h"
#include "model/hf_model.h"
#include "tokenizers/model_tokenizer.h"

namespace attnviz {

namespace align_job_parts {

// The most a model's 16-bit weights may take as floats for align to widen them (4 bytes a
// weight: models up to 128 M parameters).
constexpr std::uint64_t widen_limit = std::uint64_t{512} << 20;

// One sentence pair and where it came from (errors name it).
struct sentence_pair {
  std::string source, target;
  std::string file, target_file;  // the source's file and the target's (--input: both the same)
  std::size_t line = 0;
};

bool blank(const std::string& s) {
  return s.find_first_not_of(" \t") == std::string::npos;
}

std::string trimmed(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// The pairs of --input ("source ||| target") or of --source and --target, each side non-empty.
std::vector<sentence_pair> read_pairs(const align_job_config& c) {
  std::vector<sentence_pair> out;
  if (!c.input_path.empty()) {
    const std::vector<std::string> lines = read_lines(c.input_path);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const std::size_t bar = lines[k].find("|||");
      if (bar == std::string::npos)
        throw input_error(c.input_path, k + 1, "expected 'source ||| target'");
      out.push_back({trimmed(lines[k].substr(0, bar)), trimmed(lines[k].substr(bar + 3)),
                     c.input_path, c.input_path, k + 1});
    }
  } else {
    const std::vector<std::string> src = read_lines(c.source_path), tgt = read_lines(c.target_path);
    if (src.size() != tgt.size())
      throw input_error(c.target_path,
                        fmt::format("{} lines, and {} has {}: one target sentence a source "
                                    "sentence",
                                    tgt.size(), c.source_path, src.size()));
    for (std::size_t k = 0; k < src.size(); ++k)
      out.push_back({src[k], tgt[k], c.source_path, c.target_path, k + 1});
  }
  if (out.empty())
    throw input_error(c.input_path.empty() ? c.source_path : c.input_path, "no sentence pairs");
  for (const sentence_pair& p : out)
    if (blank(p.source) || blank(p.target))
      throw input_error(blank(p.source) ? p.file : p.target_file, p.line,
                        fmt::format("the {} side is empty (every line holds a sentence pair)",
                                    blank(p.source) ? "source" : "target"));
  return out;
}

// A pair's token ids for one model (source through its source tokenizer, target through its
// target one).
struct encoded_pair {
  std::vector<std::int64_t> source_ids, target_ids;
  std::vector<std::string> source_tokens, target_tokens;
};

// A model with its two tokenizers, each read once for every pair.
struct translator {
  const hf_model* model = nullptr;
  std::unique_ptr<model_tokenizer> source, target;
};

translator translator_of(const hf_model& m, const std::string& dir) {
  translator t{&m, load_model_tokenizer(dir, tokenizer_side::source),
               load_model_tokenizer(dir, tokenizer_side::target)};
  if (!t.source || !t.target)
    throw input_error(dir,
                      "has no tokenizer.json, vocab.json with merges.txt, vocab.txt or "
                      "spiece.model to read the sentences with");
  return t;
}

// One side's tokens; an input_error naming the side's file and line past the model's positions.
encoding encode_side(const translator& t, const model_tokenizer& tokenizer, const std::string& text,
                     const std::string& file, std::size_t line) {
  encoding e;
  try {
    e = tokenizer.encode(text);
  } catch (const input_error& bad) {  // invalid UTF-8 and the like: named by file and line
    throw input_error(file, line, bad.marked());
  }
  const std::size_t most = t.model->config.max_positions;
  if (e.ids.size() > most)
    throw input_error(file, line,
                      fmt::format("{} tokens, more than the model's {} positions "
                                  "(max_position_embeddings)",
                                  e.ids.size(), most));
  return e;
}

encoded_pair encode(const translator& t, const sentence_pair& p, bool reversed) {
  encoding s = encode_side(t, *t.source, reversed ? p.target : p.source,
                           reversed ? p.target_file : p.file, p.line);
  encoding g = encode_side(t, *t.target, reversed ? p.source : p.target,
                           reversed ? p.file : p.target_file, p.line);
  return {std::move(s.ids), std::move(g.ids), std::move(s.tokens), std::move(g.tokens)};
}

// Every cross map's row t replaced by row t + 1 (the step that reads target token t as its
// input); the last row kept.
void shift_rows(seq2seq_forward& f) {
  const std::size_t ns = f.ns, nt = f.nt;
  for (std::size_t lh = 0; lh < f.decoder_layers * f.decoder_heads; ++lh) {
    float* map = f.cross_attention.data() + lh * nt * ns;
    for (std::size_t t = 0; t + 1 < nt; ++t)
      std::copy(map + (t + 1) * ns, map + (t + 2) * ns, map + t * ns);
  }
}

// The target-words × source-words map of one direction (reversed: the other model's, turned
// round so rows are still the target's words).
word_map direction_map(const hf_model& m, const align_reading& reading, const align_job_config& c,
                       const encoded_pair& e, bool reversed) {
  const measure_spec& spec = c.method ? *c.method : *attention_measures().front();
  seq2seq_forward f = measured_run(m, spec, e.source_ids, e.target_ids);
  if (c.shift) shift_rows(f);
  const seq2seq_maps maps{&f, e.source_tokens, e.target_tokens, "", ""};
  view_choice choice;
  choice.layers = reading.layers;
  choice.heads = reading.heads;
  word_map w = alignment_words(maps, choice);
  if (!reversed) return w;
  word_map turned;
  turned.values = matrix(w.values.cols(), w.values.rows());
  for (std::size_t i = 0; i < w.values.rows(); ++i)
    for (std::size_t j = 0; j < w.values.cols(); ++j) turned.values(j, i) = w.values(i, j);
  turned.source_words = std::move(w.target_words);
  turned.target_words = std::move(w.source_words);
  return turned;
}

// The pairs whose value reaches t.
std::vector<word_pair> above(const matrix& values, double t) {
  std::vector<word_pair> out;
  for (std::size_t j = 0; j < values.rows(); ++j)
    for (std::size_t i = 0; i < values.cols(); ++i)
      if (values(j, i) >= t) out.emplace_back(i, j);
  return out;
}

// The model (and the reverse one, if any) with the layers and heads each is read at.
struct aligner {
  const hf_model& m;
  const hf_model* reverse;
  align_reading there, back;
};

std::vector<word_pair> align_pair(const aligner& a, const align_job_config& c,
                                  const encoded_pair& forward, const encoded_pair* backward,
                                  const sentence_pair& p) {
  const word_map f = direction_map(a.m, a.there, c, forward, false);
  const bool null = c.extract == align_extract::argmax_null;
  if (!a.reverse) {
    if (c.extract == align_extract::threshold) return above(f.values, c.threshold);
    return best_links(f.values, true, null);
  }
  const word_map r = direction_map(*a.reverse, a.back, c, *backward, true);
  if (r.values.rows() != f.values.rows() || r.values.cols() != f.values.cols())
    throw input_error(
        p.file, p.line,
        fmt::format("the two models cut the pair into different words ({} × {} "
                    "and {} × {} target × source)",
                    f.values.rows(), f.values.cols(), r.values.rows(), r.values.cols()));
  if (c.extract == align_extract::threshold) {
    matrix product(f.values.rows(), f.values.cols());
    for (std::size_t k = 0; k < product.size(); ++k)
      product.data()[k] = f.values.data()[k] * r.values.data()[k];
    return above(product, c.threshold);
  }
  // the reverse map's rows are the source words: its best over each column (target words)
  return symmetrize(best_links(f.values, true, null), best_links(r.values, false, null),
                    c.symmetrize.value_or(symmetrize_method::grow_diag_final_and));
}

// The reading alignment.json names for this run (the model's with_reverse one with a reverse
// model, else its own) in place of the defaults; the summary says which and whence.
void take_saved_extract(const align_reading& there, bool with_reverse, align_job_config& c,
                        align_report& r) {
  const std::optional<saved_extract>& e = with_reverse ? there.with_reverse : there.alone;
  if (c.extract_given || !e) return;
  c.extract = e->extract;
  if (c.extract == align_extract::threshold) c.threshold = e->threshold;
  if (!e->symmetrize.empty()) c.symmetrize = symmetrize_named(e->symmetrize, "symmetrize");
  r.readings.push_back(fmt::format(
      "extract {}{}{} ({})", name_of(e->extract),
      c.extract == align_extract::threshold
          ? fmt::format(" {}{}", e->threshold, with_reverse ? " on the two maps' product" : "")
          : std::string(),
      e->symmetrize.empty() ? std::string() : ", symmetrize " + e->symmetrize, there.from));
}

// What shapes the lines: the flags and the models' files (their sizes and times).
std::uint64_t settings_of(const align_job_config& c) {
  std::vector<std::string> files;
  for (const std::string& dir : {c.model_dir, c.reverse_model_dir})
    if (!dir.empty())
      for (const char* name : {"config.json", "model.safetensors", "alignment.json"})
        files.push_back(dir + "/" + name);
  return batch_settings_hash(
      {c.model_dir, c.reverse_model_dir, std::string(c.method ? c.method->name : "weights"),
       c.layers, c.heads, c.shift ? "shift" : "", name_of(c.extract),
       fmt::format("{}", c.threshold),
       c.symmetrize ? fmt::format("{}", static_cast<int>(*c.symmetrize)) : ""},
      files);
}

// The number of word pairs on a Pharaoh line.
std::size_t pair_count(const std::string& line) {
  if (line.empty()) return 0;
  return static_cast<std::size_t>(std::count(line.begin(), line.end(), ' ')) + 1;
}

// Every pair's line into r.lines (from the journal when it has it), a pair to a thread at a
// time: each pair's forward is small (a few layers over tens of tokens), so the threads share
// the pairs rather than each product; the kernels give the same bytes on any thread count, so
// the lines do not depend on it. The first failing pair's error (in line order) is thrown once
// all are done, the others' records kept.
void align_all(const aligner& a, const align_job_config& c, const std::vector<sentence_pair>& pairs,
               const std::vector<encoded_pair>& forward, const std::vector<encoded_pair>& backward,
               align_journal* journal, align_report& r) {
  r.lines.assign(pairs.size(), std::string());
  std::vector<char> resumed(pairs.size(), 0);
  std::vector<std::exception_ptr> failed(pairs.size());
  std::mutex journal_lock;
  std::atomic<std::uint64_t> done{0};
  progress bar("aligning", "pairs", pairs.size(), c.progress);
  const auto count = static_cast<std::ptrdiff_t>(pairs.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (std::ptrdiff_t t = 0; t < count; ++t) {
    const auto k = static_cast<std::size_t>(t);
    const sentence_pair& p = pairs[k];
    try {
      if (const std::string* line = journal ? journal->done(k + 1, p.source, p.target) : nullptr) {
        r.lines[k] = *line;
        resumed[k] = 1;
      } else {
        r.lines[k] =
            format_pharaoh(align_pair(a, c, forward[k], a.reverse ? &backward[k] : nullptr, p));
        if (journal) {
          const std::lock_guard<std::mutex> guard(journal_lock);
          journal->record(k + 1, p.source, p.target, r.lines[k]);
        }
      }
    } catch (...) {
      failed[k] = std::current_exception();
    }
    bar.update(++done);
  }
  bar.finish();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    r.resumed += resumed[k];
    r.aligned += pair_count(r.lines[k]);
  }
}

}  // namespace align_job_parts

align_report run_align_job(const align_job_config& config) {
  using namespace align_job_parts;
  align_job_config c = config;
  const auto start = std::chrono::steady_clock::now();
  hf_model m = load_model(c.model_dir);
  if (!m.config.encoder_decoder)
    throw usage_error(
        fmt::format("{}: align reads a translation model's cross attention; {} is "
                    "a {} model (an encoder–decoder: bart, mbart, marian, t5)",
                    param("model"), c.model_dir, m.config.model_type));
  std::optional<hf_model> reverse;
  if (!c.reverse_model_dir.empty()) reverse.emplace(load_model(c.reverse_model_dir));
  if (reverse && !reverse->config.encoder_decoder)
    throw usage_error(fmt::format("{}: {} is not an encoder–decoder model", param("reverse_model"),
                                  c.reverse_model_dir));
  // a forward a pair: 16-bit weights widened once rather than at every product (same bytes)
  for (hf_model* each : {&m, reverse ? &*reverse : nullptr})
    if (each) each->weights.widen_to_float(widen_limit);
  const aligner a{m, reverse ? &*reverse : nullptr,
                  align_reading_of(m, c.model_dir, c.layers, c.heads),
                  reverse ? align_reading_of(*reverse, c.reverse_model_dir, c.layers, c.heads)
                          : align_reading{}};
  const std::vector<sentence_pair> pairs = read_pairs(c);
  const translator there = translator_of(m, c.model_dir);
  const std::optional<translator> back =
      reverse ? std::optional<translator>(translator_of(*reverse, c.reverse_model_dir))
              : std::nullopt;
  std::vector<encoded_pair> forward, backward;  // every pair encoded before any work
  for (const sentence_pair& p : pairs) {
    forward.push_back(encode(there, p, false));
    if (back) backward.push_back(encode(*back, p, true));
  }
  align_report r;
  r.pairs = pairs.size();
  r.readings.push_back(fmt::format("{}: {}", c.model_dir, describe(a.there)));
  if (reverse) r.readings.push_back(fmt::format("{}: {}", c.reverse_model_dir, describe(a.back)));
  take_saved_extract(a.there, reverse.has_value(), c, r);
  std::optional<align_journal> journal;
  if (!c.out.empty()) journal.emplace(c.out, settings_of(c), c.resume);
  align_all(a, c, pairs, forward, backward, journal ? &*journal : nullptr, r);
  if (journal) {
    std::string text;
    for (const std::string& line : r.lines) text += line + "\n";
    output_batch batch;
    batch.add(c.out, std::move(text));
    r.written = batch.commit();
    journal->finish();
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace attnviz
