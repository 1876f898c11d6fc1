// Flags shared by the subcommands that run attention (run now; compare and explain later).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "jobs/run_job.h"

namespace attnviz::cli {

struct run_flags {
  run_config config;
  std::string oov = "hash";
  std::string hard = "sample";
};

// --text --tokens --source --target --keep-case --embeddings --oov
void add_input_flags(CLI::App& cmd, run_flags& flags);
// --score --align --context --temperature --hard --sharpen --project --dk --da --seed --params
void add_variant_flags(CLI::App& cmd, run_flags& flags);
// Turns the string flags into the config (after parsing); fills the default embeddings file.
run_config resolve(const run_flags& flags);

}  // namespace attnviz::cli
