#include "jobs/batch_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_set>
#include <utility>

#include "error.h"
#include "io/file_io.h"
#include "names.h"
#include "render/colormap.h"
#include "text/embedding_cache.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

using ojson = nlohmann::ordered_json;

struct batch_line {
  std::size_t number = 0;  // 1-based
  std::string text;
  std::string stem;
  tokenized tokens;
  std::optional<prepared_input> input;  // set once embedded, dropped once run
  std::vector<std::string> oov_tokens;
  std::string error;  // non-empty: skipped ("FILE:LINE: what was wrong")
  std::vector<std::string> written;
  std::vector<std::string> warnings;
};

std::string read_lines_source(const std::string& path) {
  if (path != "-") return read_whole_file(path);
  return std::string((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
}

std::vector<batch_line> split_lines(std::string bytes) {
  std::vector<batch_line> lines;
  for (numbered_line& l : batch_input_lines(std::move(bytes))) {
    batch_line line;
    line.number = l.number;
    line.text = std::move(l.text);
    lines.push_back(std::move(line));
  }
  return lines;
}

// The line as --text, or as --source/--target around its one tab.
tokenized tokenize_line(const batch_line& line, const input_config& base,
                        const std::string& where) {
  input_config c;
  c.keep_case = base.keep_case;
  const std::size_t tab = line.text.find('\t');
  if (tab == std::string::npos) {
    c.text = line.text;
  } else {
    if (line.text.find('\t', tab + 1) != std::string::npos)
      throw input_error(where, "has more than one tab; expected a sentence or source<TAB>target");
    c.source = line.text.substr(0, tab);
    c.target = line.text.substr(tab + 1);
    if (c.source.find_first_not_of(' ') == std::string::npos)
      throw input_error(where, "has nothing before its tab; expected source<TAB>target");
    if (c.target.find_first_not_of(' ') == std::string::npos)
      throw input_error(where, "has nothing after its tab; expected source<TAB>target");
  }
  try {
    return tokenize_inputs(c);
  } catch (const input_error& e) {
    // tokenize names the parameter ("text (byte 3): ..."); the user's file and line say more.
    std::string what = e.marked();
    if (!param_name(e.source()).empty()) what.replace(0, e.source().size(), where);
    throw std::runtime_error(what);
  }
}

}  // namespace

std::vector<numbered_line> batch_input_lines(std::string bytes) {
  if (bytes.rfind("\xEF\xBB\xBF", 0) == 0) bytes.erase(0, 3);
  std::vector<numbered_line> lines;
  std::size_t number = 0, pos = 0;
  while (pos < bytes.size()) {
    std::size_t end = bytes.find('\n', pos);
    if (end == std::string::npos) end = bytes.size();
    std::string text = bytes.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const std::size_t first = text.find_first_not_of(" \t\f\v");
    if (first == std::string::npos || text[first] == '#') continue;  // blank, or a comment
    lines.push_back({number, std::move(text)});
  }
  return lines;
}

std::string message_at(const std::string& where, const std::exception& e) {
  std::string what = e.what();
  if (const auto* u = dynamic_cast<const usage_error*>(&e)) what = u->marked();
  if (const auto* i = dynamic_cast<const input_error*>(&e)) what = i->marked();
  if (what.rfind(where, 0) == 0) return what;
  return fmt::format("{}: {}", where, what);
}

namespace {

// Each format's name, which is also its files' extension.
constexpr std::pair<std::string_view, batch_format> format_names[] = {{"png", batch_format::png},
                                                                      {"json", batch_format::json},
                                                                      {"svg", batch_format::svg},
                                                                      {"npy", batch_format::npy},
                                                                      {"html", batch_format::html}};

}  // namespace

std::string_view format_extension(batch_format f) {
  for (const auto& [name, format] : format_names)
    if (format == f) return name;
  return "?";
}

namespace {

// The line's run_config: the shared one with this line's output paths.
run_config line_config(const batch_config& c, const std::string& stem) {
  run_config r = c.run;
  r.out = {};
  const std::filesystem::path dir(c.out_dir);
  for (batch_format f : c.formats) {
    const std::string file = (dir / (stem + "." + std::string(format_extension(f)))).string();
    switch (f) {
      case batch_format::png:
        r.out.png = file;
        break;
      case batch_format::json:
        r.out.json = file;
        break;
      case batch_format::svg:
        r.out.svg = file;
        break;
      case batch_format::npy:
        r.out.npy_dir = (dir / stem).string();
        break;
      case batch_format::html:
        r.out.html = file;
        break;
    }
  }
  return r;
}

std::string index_json(const batch_config& c, const std::vector<batch_line>& lines,
                       const batch_report& report) {
  ojson j;
  j["input"] = c.input == "-" ? "(standard input)" : c.input;
  j["lines"] = report.lines;
  j["succeeded"] = report.succeeded;
  j["skipped"] = report.skipped.size();
  ojson rows = ojson::array();
  for (const auto& line : lines) {
    ojson row;
    row["line"] = line.number;
    row["text"] = shorten_for_message(line.text, 200);  // a 2 MB line is not copied whole
    if (line.error.empty()) {
      row["files"] = line.written;
    } else {
      row["error"] = plain_params(line.error);
    }
    rows.push_back(std::move(row));
  }
  j["runs"] = std::move(rows);
  // A line with invalid UTF-8 is listed with U+FFFD in place of its bad bytes.
  return j.dump(1, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace

std::vector<batch_format> parse_batch_formats(std::string_view list) {
  std::vector<batch_format> out;
  for (const std::string_view name : split_list(list)) {
    const auto* known = std::find_if(std::begin(format_names), std::end(format_names),
                                     [&](const auto& entry) { return entry.first == name; });
    if (known == std::end(format_names))
      throw usage_error(
          fmt::format("{}: unknown format '{}' (known: png, json, svg, npy, html)",
                      param("formats"), name));
    if (std::find(out.begin(), out.end(), known->second) == out.end()) out.push_back(known->second);
  }
  return out;
}

std::string batch_file_stem(std::size_t line, std::size_t width, std::string_view text) {
  std::string stem = fmt::format("{:0{}}", line, width);
  std::string words, word;
  bool full = false;
  auto flush = [&] {  // whole words only, up to the first that does not fit in 40 characters
    if (word.empty() || full) return word.clear();
    full = words.size() + 1 + word.size() > 40;
    if (!full) words += '-' + word;
    word.clear();
  };
  for (char ch : text) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 128 && std::isalnum(u)) {
      word += static_cast<char>(std::tolower(u));
    } else {
      flush();
    }
  }
  flush();
  return stem + words;
}

namespace {

void check_batch(const batch_config& c) {
  if (c.formats.empty())
    throw usage_error(param("formats") + ": give at least one of png, json, svg, npy, html");
  check_output_dir(c.out_dir, param("out_dir"));
  check_view(c.run.view);
  if (c.run.input.embeddings.empty())
    throw usage_error(param("embeddings") + " FILE is required");
}

// Every line's stem, tokens and input: tokens of every line, then one pass over the embedding
// file for all of them, then each line embedded and its memory checked. A line that fails gets
// its error and is skipped from then on.
void prepare_lines(const batch_config& c, const std::string& name,
                   std::vector<batch_line>& lines) {
  const std::size_t width = std::max<std::size_t>(4, fmt::format("{}", lines.back().number).size());
  std::unordered_set<std::string> wanted;
  for (auto& line : lines) {
    const std::string where = fmt::format("{}:{}", name, line.number);
    line.stem = batch_file_stem(line.number, width, line.text);
    try {
      line.tokens = tokenize_line(line, c.run.input, where);
      add_wanted(wanted, line.tokens, c.run.input.merge_subwords);
    } catch (const std::exception& e) {
      line.error = message_at(where, e);
    }
  }
  const embedding_table table =
      load_embeddings(c.run.input.embeddings, wanted, 0, c.run.input.cache_dir);
  for (auto& line : lines) {
    if (!line.error.empty()) continue;
    try {
      prepared_input in =
          embed_input(line.tokens, table, c.run.input.oov, c.run.input.merge_subwords);
      check_memory(size_of_run(line_config(c, line.stem), in), c.run.max_memory);
      line.oov_tokens = in.oov_tokens;
      line.input = std::move(in);
    } catch (const std::exception& e) {  // input_error (--oov error), usage_error (memory)
      line.error = message_at(fmt::format("{}:{}", name, line.number), e);
    }
  }
}

// The lines still to run: not failed, and (with --resume) not already in the journal, whose
// files are taken as they are. `resumed` counts those.
std::vector<std::size_t> lines_to_run(const batch_config& c, std::vector<batch_line>& lines,
                                      const batch_journal& journal, std::size_t& resumed) {
  if (c.resume) {
    std::vector<std::string> stems;
    for (const auto& line : lines) stems.push_back(line.stem);
    sweep_batch_temporaries(c.out_dir, stems);  // a commit the kill interrupted
  }
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].error.empty()) continue;
    if (const auto* files = journal.done(lines[i].number, lines[i].text, lines[i].stem)) {
      lines[i].written = *files;
      lines[i].input.reset();
      ++resumed;
      continue;
    }
    todo.push_back(i);
  }
  return todo;
}

// Runs the lines `todo` in parallel (one line per thread at a time), each writing its own
// files all-or-nothing and recording them in the journal.
void run_lines(const batch_config& c, const param_store& params, const std::string& name,
               std::vector<batch_line>& lines, const std::vector<std::size_t>& todo,
               batch_journal& journal) {
  progress bar("running", "lines", todo.size(), c.progress);
  std::atomic<std::uint64_t> done{0};
  const auto count = static_cast<std::ptrdiff_t>(todo.size());
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
  for (std::ptrdiff_t t = 0; t < count; ++t) {
    batch_line& line = lines[todo[static_cast<std::size_t>(t)]];
    try {
      const run_config rc = line_config(c, line.stem);
      output_batch out;
      run_report report = run_prepared(rc, *line.input, params, out);
      const std::string own_oov = oov_warning(*line.input, c.run.input);
      for (auto& w : report.warnings)
        if (w != own_oov) line.warnings.push_back(std::move(w));
      for (const auto& path : out.commit())  // named within the folder, which may move
        line.written.push_back(
            std::filesystem::path(path).lexically_relative(c.out_dir).generic_string());
      journal.record(line.number, line.text, line.stem, line.written);
    } catch (const std::exception& e) {
      line.error = message_at(fmt::format("{}:{}", name, line.number), e);
    }
    line.input.reset();  // its matrices are no longer needed
    bar.update(++done);
  }
}

// Counts, skipped lines, distinct warnings, and one warning for the OOV tokens of every line
// (in order of first appearance), not one per line.
batch_report summarise(const batch_config& c, const std::vector<batch_line>& lines) {
  batch_report report;
  report.lines = lines.size();
  std::vector<std::string> oov;
  std::unordered_set<std::string> seen_oov, seen_warning;
  std::size_t oov_lines = 0;
  for (const auto& line : lines) {
    if (!line.error.empty()) {
      report.skipped.push_back({line.number, line.error});
      continue;
    }
    ++report.succeeded;
    report.files += line.written.size();
    for (const auto& w : line.warnings)
      if (seen_warning.insert(w).second) report.warnings.push_back(w);
  }
  for (const auto& line : lines) {
    if (!line.error.empty()) continue;
    for (const auto& t : line.oov_tokens)
      if (seen_oov.insert(t).second) oov.push_back(t);
    oov_lines += !line.oov_tokens.empty();
  }
  if (!oov.empty())
    report.warnings.insert(report.warnings.begin(),
                           oov_warning(oov, c.run.input, fmt::format(" in {} line(s)", oov_lines)));
  return report;
}

}  // namespace

batch_report run_batch(const batch_config& c) {
  check_batch(c);
  // The parameters first: a bad --params file stops the batch before the lines are read.
  const param_store params =
      param_store::open(c.run.params_in, c.run.spec.seed, c.run.params_prefix);
  std::vector<batch_line> lines = split_lines(read_lines_source(c.input));
  const std::string name = c.input == "-" ? "(standard input)" : c.input;
  if (lines.empty()) throw input_error(name, "has no lines to run (only blank lines)");
  prepare_lines(c, name, lines);
  if (c.strict)
    for (const auto& line : lines)
      if (!line.error.empty())
        throw usage_error(
            fmt::format("{} ({}: stopped, nothing written)", line.error, param("strict")));

  create_output_dir(c.out_dir);  // checked before any work
  std::vector<std::string> settings = c.settings;
  for (const auto f : c.formats) settings.emplace_back(format_extension(f));
  batch_journal journal(c.out_dir,
                        batch_settings_hash(settings, {c.run.input.embeddings, c.run.params_in}),
                        c.resume);
  std::size_t resumed = 0;
  const std::vector<std::size_t> todo = lines_to_run(c, lines, journal, resumed);
  run_lines(c, params, name, lines, todo, journal);

  batch_report report = summarise(c, lines);
  report.resumed = resumed;
  report.index_path = (std::filesystem::path(c.out_dir) / "index.json").string();
  output_batch index;
  index.add(report.index_path, index_json(c, lines, report));
  index.commit();
  ++report.files;
  return report;
}

}  // namespace attnviz
