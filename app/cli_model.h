// What the man page and the shell completion read from the parser: every command with its
// options, so neither can drift from --help.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace attnviz::cli {

struct option_model {
  std::vector<std::string> names;    // "--score", "-s"
  std::string value;                 // "FILE", "TEXT", ... (empty: a flag)
  std::vector<std::string> choices;  // fixed values ({hash,zero,error}, or a registry's names)
  std::string default_value;
  std::string description;
  std::string group;
};

struct command_model {
  std::string name;  // empty: the program itself (its global options)
  std::string description;
  std::string footer;
  std::vector<option_model> options;
};

// The program first (global options), then each subcommand in --help order.
std::vector<command_model> describe(const CLI::App& app);

}  // namespace attnviz::cli
