// Printing for the CLI: warnings, written paths, the small weights table.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "attention/pipeline.h"
#include "render/views.h"

namespace attnviz::cli {

// The library names settings as parameters (error.h: param("window")); the CLI calls them by
// their flags: "--" and the name with '-' for '_' ("max_memory" -> "--max-memory"), but for
// the few whose flag is spelled otherwise ("d_k" -> "--dk").
std::string flag_of(std::string_view parameter);
// A library message (usage_error::marked(), a warning) with its parameters named as flags.
std::string cli_text(std::string_view marked);

void print_warnings(const std::vector<std::string>& warnings);
void print_written(const std::vector<std::string>& paths);
// Where a command's summary goes: stdout, or stderr when an output was written to stdout ("-").
std::FILE* summary_stream(const std::vector<std::string>& written);
// The heatmap in the terminal: colours when stdout is a terminal and NO_COLOR is unset
// (24-bit with COLORTERM=truecolor, else 256), else the values as a table; `colour = false`
// always prints the table.
void print_terminal_view(const attention_result& result, const view_options& view, bool colour);
bool stderr_is_terminal();

}  // namespace attnviz::cli
