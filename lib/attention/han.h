// Hierarchical attention (HAN, Yang et al. 2016) over a document of several sentences.
//
// Word level, for sentence i with word vectors h_it (t = 1..T_i):
//   u_it = tanh(W_w h_it + b_w),  a_it = softmax_t(u_itᵀ u_w),  s_i = Σ_t a_it h_it
// Sentence level, over the sentence vectors s_i (i = 1..L):
//   u_i = tanh(W_s s_i + b_s),    α_i = softmax_i(u_iᵀ u_s),     v = Σ_i α_i s_i
// u_w and u_s are learned "what is informative" query vectors: attention as pooling.
// Parameters: han.W_w [d, d], han.b_w [d], han.u_w [d], han.W_s [d, d], han.b_s [d],
// han.u_s [d] (seeded: Xavier-uniform, biases 0). h_it are the word vectors here; the paper
// runs a bidirectional GRU over each sentence (and over the sentences) first.
#pragma once

#include <vector>

#include "params/param_store.h"
#include "tensor.h"

namespace attnviz {

// One level: weights over the rows of h and their weighted sum.
struct pooled {
  std::vector<double> weights;  // one per row of h, sum 1
  std::vector<float> vector;    // Σ_t weights_t h_t
};
// The plain kernel: u_t = tanh(W h_t + b), weights = softmax_t(u_t · u).
pooled attention_pool(const matrix& h, const matrix& w, const std::vector<float>& b,
                      const std::vector<float>& u);

struct han_result {
  std::vector<std::vector<double>> word_weights;  // a_it, per sentence
  matrix sentence_vectors;                        // s_i: L × d
  std::vector<double> sentence_weights;           // α_i
  std::vector<float> document;                    // v
};

// sentences: one matrix of word vectors (T_i × d) per sentence, none empty.
han_result hierarchical_attention(const std::vector<matrix>& sentences, param_store& params);

}  // namespace attnviz
