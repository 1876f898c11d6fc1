// The logit lens (nostalgebraist 2020): the residual stream before each layer read as if it
// were the last — through the final norm (where the model has one) and the output embeddings —
// so each layer's guess at every position can be seen forming.
//
//   row l = 0 … L − 1:  z_l = W_out · final_norm(x_l)   x_l: the input of layer l (x_0: the
//                                                          embeddings)
//   row L:              z_L = W_out · h                 h: the model's last hidden state (its
//                                                          own prediction)
//
// Per row and position: the k most likely tokens with their softmax probabilities, and the rank
// of the model's own prediction (row L's top token at that position; 0: it is on top).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/progress.h"
#include "model/hf_model.h"
#include "tensor.h"

namespace attnviz {

struct logit_lens {
  std::size_t rows = 0, n = 0, k = 0;    // rows = layers + 1
  std::vector<std::int64_t> top_ids;     // [rows, n, k], most likely first
  std::vector<float> top_probs;          // [rows, n, k]
  std::vector<std::int64_t> final_rank;  // [rows, n]
  std::vector<std::string> tokens;       // [rows, n, k]: the top ids' tokens, when a caller
                                         // names them (jobs/model_job.cpp, from the vocabulary)
  std::int64_t id(std::size_t row, std::size_t i, std::size_t t = 0) const {
    return top_ids[(row * n + i) * k + t];
  }
  float prob(std::size_t row, std::size_t i, std::size_t t = 0) const {
    return top_probs[(row * n + i) * k + t];
  }
};

// The stack the lens reads: its layers and its final norm (an encoder–decoder's decoder:
// model/seq2seq.h decoder_final_norm); by default the decoder-only or encoder model's own.
struct lens_stack {
  std::size_t layers = 0;
  std::function<matrix(matrix)> final_norm;
};

// input_of(l): layer l's input (n × d, as the forward's taps saw it); `hidden`: the forward's
// last hidden state (n × d), through the final norm already.
logit_lens run_logit_lens(const hf_model& m, const std::function<matrix(std::size_t)>& input_of,
                          const matrix& hidden, std::size_t k, progress_style style);
logit_lens run_logit_lens(const hf_model& m, const std::function<matrix(std::size_t)>& input_of,
                          const matrix& hidden, std::size_t k, progress_style style,
                          const lens_stack& stack);

// The scratch and working bytes: the layers' inputs, and one chunk of logits.
std::uint64_t logit_lens_bytes(const model_config& c, std::size_t n);

}  // namespace attnviz
