// Printing for the CLI: warnings, written paths, the small weights table.
#pragma once

#include <string>
#include <vector>

#include "attention/pipeline.h"

namespace attnviz::cli {

void print_warnings(const std::vector<std::string>& warnings);
void print_written(const std::vector<std::string>& paths);
// The weights as a text table (rows = queries), with the chosen key for hard context.
void print_weights_table(const attention_result& result);
bool stderr_is_terminal();

}  // namespace attnviz::cli
