// A run's numbers as NumPy files (--npy DIR), for tools that read arrays rather than JSON:
//   weights.npy   [H, n_q, n_k]  float32, a_ij of every head (H = 1 without heads)
//   scores.npy    [H, n_q, n_k]  e_ij before masking (when the run kept them)
//   context.npy   [H, n_q, d_v]  c_i of every head
//   output.npy    [n_q, d_model] multi-head output after W^O (multi-head runs only)
//   query_tokens.txt, key_tokens.txt   one token per line, the rows' and columns' labels
// The files are added to an output batch, so they are written all-or-nothing with the rest.
#pragma once

#include <string>

#include "attention/pipeline.h"
#include "io/file_io.h"

namespace attnviz {

void add_npy_files(output_batch& out, const std::string& dir, const attention_result& result);

}  // namespace attnviz
