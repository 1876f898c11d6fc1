// What --logit-lens writes (model/logit_lens.h computes it): with --npy, logit_lens.npy (int64
// [L + 1, n]: the top token), logit_lens_prob.npy (float32: its probability) and
// logit_lens_rank.npy (int64: the rank of the model's own prediction), an encoder–decoder's
// decoder_ before each; in --json, every row's and position's top tokens.
#pragma once

#include <string>

#include "io/file_io.h"
#include "model/logit_lens.h"

namespace attnviz {

// The three arrays into `dir`, with the batch's other files.
void add_logit_lens_npy(output_batch& batch, const std::string& dir, const logit_lens& lens,
                        const std::string& prefix = "");
// The lens as JSON text: per row (layer l's input; the last row the model's output) and
// position, the top tokens with their probabilities and the rank of the model's own prediction.
std::string logit_lens_json(const logit_lens& lens);

}  // namespace attnviz
