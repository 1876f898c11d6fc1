// Flags shared by the subcommands that run attention (run, compare).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "attention/pipeline.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"
#include "jobs/job_outputs.h"
#include "render/views.h"

namespace attnviz::cli {

struct common_flags {
  input_config input;
  std::string oov = "hash";
  attention_spec spec;
  std::string hard = "sample";
  std::string params_in;
  std::string params_prefix;
  int cell = 0;
  std::string cmap;
  std::string show = "weights";
  std::string annotate = "auto";
  std::string scale = "linear";  // --scale words (see parse_scale_words)
  std::string vmin, vmax;        // --vmin / --vmax; empty: automatic
  bool grids = false;            // the command draws grids of panels (--scale shared|panel)
  std::string title;             // --title (empty: the automatic one)
  bool no_title = false;         // --no-title
  std::string rows, cols;        // --rows / --cols
  std::string head_view = "grid";
  std::string max_memory = "8G";
  std::string masks;
  std::vector<std::size_t> pad_keys;
  std::string position = "none";
  std::string combine = "concat";
  bool cache = false;     // --cache
  std::string cache_dir;  // --cache-dir (implies --cache)
};

// A real number > 0, refused as "must be a number above 0, got 0" (CLI::PositiveNumber's
// message prints DBL_MAX in full).
const CLI::Validator& positive_number();
// A text that is not empty ("--stop ''" would match at once, or never).
const CLI::Validator& non_empty();

// --text --tokens --source --target --values --keep-case --embeddings --oov
void add_input_flags(CLI::App& cmd, common_flags& flags);
// --merge-subwords (run and compare: the commands whose maps are drawn per token).
void add_subword_flag(CLI::App& cmd, common_flags& f);
// --source --target (the sentence pair of cross attention and of transformer)
void add_pair_flags(CLI::App& cmd, common_flags& f, const char* source_help,
                    const char* target_help);
// --keep-case --embeddings --oov --max-memory (for commands with their own sentence flags)
void add_embedding_flags(CLI::App& cmd, common_flags& flags);
// --score --align --context --temperature --hard --window --mask --pad-keys --sharpen --project
// --heads --dk --da --combine --position --alibi-slope --convs2s --seed --params
void add_variant_flags(CLI::App& cmd, common_flags& flags);
// --show --head-view, --rows --cols (when `crop`) and add_look_flags (with grids: --scale also
// takes shared|panel)
void add_view_flags(CLI::App& cmd, common_flags& flags, bool crop = true);
// --rows --cols: the rows and columns of the map a figure draws
void add_crop_flags(CLI::App& cmd, std::string& rows, std::string& cols);
// --title --no-title
void add_title_flags(CLI::App& cmd, std::string& title, bool& no_title);
// --title / --no-title into the view (usage_error when both are given).
void resolve_title_flags(const std::string& title, bool no_title, view_options& view);
// --cmap --scale --vmin --vmax --annotate --cell --title --no-title (figures that draw neither
// scores nor heads)
void add_look_flags(CLI::App& cmd, common_flags& flags);
// --scale --vmin --vmax; `grids`: the figure has several panels (--scale shared|panel too)
void add_colour_flags(CLI::App& cmd, std::string& scale, std::string& vmin, std::string& vmax,
                      bool grids);
// The three flags as a colour scale (and the panels' range when `range` is given).
colour_scale resolve_colour_flags(const std::string& scale, const std::string& vmin,
                                  const std::string& vmax, scale_mode* range);

// The output flags: one row per field of job_outputs (output_flags in options.cpp: flag, type,
// help). A command lists the kinds it writes, each with what it writes there; png and svg have
// the table's help when given none. All go in the group "Output".
enum class output_kind { json, png, svg, html, params, npy };
struct output_help {
  output_kind kind;
  const char* help = nullptr;
};
void add_output_flags(CLI::App& cmd, job_outputs& out, std::initializer_list<output_help> kinds);
// Every output flag's name ("--json", …), for commands that refuse them in some mode.
std::vector<std::string> output_flag_names();
// What shapes a batch's files, for its journal: every flag given to the command and to attn-viz
// itself, with its values, except those that only say where, how loud or how fast.
std::vector<std::string> batch_settings(const CLI::App& cmd);

// usage_error "<flag> <why>" for the first of `options` that was given (flags that belong to
// another mode of the command).
void refuse_given(const std::vector<CLI::Option*>& options, const char* why);

// All of standard input ("-" for a text flag: long texts, or text with bytes argv cannot hold).
std::string read_stdin();

// A model command's input: --ids parsed into `ids` (when given), --text - read from standard
// input; usage_error for an empty standard input.
void resolve_text_or_ids(std::string& text, const std::string& ids_flag,
                         std::vector<std::int64_t>& ids);

// After parsing: the string flags as lib types; the bundled embeddings when none was given.
input_config resolve_input(const common_flags& flags);
attention_spec resolve_spec(const common_flags& flags);
view_options resolve_view(const common_flags& flags);
std::uint64_t resolve_max_memory(const common_flags& flags);
// All of the above, and the parameters' file and prefix, into the settings every attention job
// shares.
void resolve_job(const common_flags& flags, attention_job& job);

}  // namespace attnviz::cli
