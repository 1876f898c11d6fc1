// Flags shared by the subcommands that run attention (run, compare).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "attention/pipeline.h"
#include "jobs/attention_job.h"
#include "jobs/inputs.h"
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
  std::string head_view = "grid";
  std::string max_memory = "8G";
  std::string masks;
  std::vector<std::size_t> pad_keys;
  std::string position = "none";
  std::string combine = "concat";
  bool cache = false;     // --cache
  std::string cache_dir;  // --cache-dir (implies --cache)
};

// --text --tokens --source --target --values --keep-case --embeddings --oov
void add_input_flags(CLI::App& cmd, common_flags& flags);
// --merge-subwords (run and compare: the commands whose maps are drawn per token).
void add_subword_flag(CLI::App& cmd, common_flags& f);
// --keep-case --embeddings --oov --max-memory (for commands with their own sentence flags)
void add_embedding_flags(CLI::App& cmd, common_flags& flags);
// --score --align --context --temperature --hard --window --mask --pad-keys --sharpen --project
// --heads --dk --da --combine --position --alibi-slope --convs2s --seed --params
void add_variant_flags(CLI::App& cmd, common_flags& flags);
// --show --cmap --annotate --cell --head-view
void add_view_flags(CLI::App& cmd, common_flags& flags);

// --json --png --svg into the given strings (group "Output").
void add_figure_outputs(CLI::App& cmd, std::string& json, std::string& png, std::string& svg,
                        const char* json_help);

// After parsing: the string flags as lib types; the bundled embeddings when none was given.
input_config resolve_input(const common_flags& flags);
attention_spec resolve_spec(const common_flags& flags);
view_options resolve_view(const common_flags& flags);
std::uint64_t resolve_max_memory(const common_flags& flags);
// All of the above, and the parameters' file and prefix, into the settings every attention job
// shares.
void resolve_job(const common_flags& flags, attention_job& job);

}  // namespace attnviz::cli
