// One forward pass of a Hugging Face model over a token sequence, keeping every layer's every
// head's attention weights: the family's embedding rows, its block once per layer (model/family.h
// lists the families, each file above its block says what it computes), then the final norm
// when the model has one. The masks come from the config: causal, and a sliding window.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "io/progress.h"
#include "model/hf_model.h"
#include "model/map_taps.h"
#include "stage_times.h"
#include "tensor.h"

namespace attnviz {

struct kv_cache;

struct model_forward {
  std::size_t layers = 0, heads = 0, n = 0;
  // [layers, heads, n, n], row i = query i: (layers·heads·n) × n, written whole by the kernel
  // (masked entries as 0), so never filled beforehand; empty when the run had taps
  matrix attention;
  matrix hidden;                 // n × d: the last hidden state (see above)
  // Wall seconds per stage over all layers: embed, norm (with the residual adds), project (the
  // Q, K, V products and RoPE), attend (scores, softmax, context: the fused kernel), output
  // (W^O), mlp_up (up and gate products), activation, mlp_down.
  stage_list stage_seconds;
  const float* map(std::size_t layer, std::size_t head) const {
    return attention.data() + (layer * heads + head) * n * n;
  }
};

// What one layer's attention read, kept for the neuron view (`explain --model`): n rows each;
// query head h is columns [h·d_h, (h+1)·d_h) of q, and reads key/value head h / (H / KV), the
// same columns of k and v. q and k are after RoPE where the model uses it (Llama family), as
// the kernel multiplied them; the scores are q_i · k_j / √d_h.
struct layer_probe {
  std::size_t layer = 0;
  matrix q, k, v;  // n × H·d_h, n × KV·d_h, n × KV·d_h
};

// Throws input_error for ids outside the vocabulary or a sequence longer than the model's
// positions (naming the parameter "ids" and the limit).
// With `probe`, also keeps its layer's q, k and v there. With `taps`, the maps go where the taps
// say (model/map_taps.h) and `attention` stays empty.
model_forward run_model(const hf_model& m, const std::vector<std::int64_t>& ids,
                        progress_style progress = progress_style::quiet,
                        layer_probe* probe = nullptr, map_taps* taps = nullptr);

// A vision model's forward over a preprocessed picture (model/vision.h): the family's
// embed_image rows (prefix tokens, registers, patches), then every layer and the final norm as
// run_model. usage_error for a text model.
struct pixel_tensor;
model_forward run_model_on_image(const hf_model& m, const pixel_tensor& pixels,
                                 progress_style progress = progress_style::quiet,
                                 layer_probe* probe = nullptr, map_taps* taps = nullptr);

// Where run_stack writes its maps: layer l's head h's n rows of past + n floats, one after
// another, at at + (l · heads + h) · head_stride (head_stride 0: n · (past + n), the maps packed
// as [layers, heads, n, past + n]). Generation writes a step's row of each map in its place in
// the whole generation's maps.
struct map_place {
  float* at = nullptr;
  std::size_t head_stride = 0;
};

// The stack on rows at positions [past, past + n) (run_model is this with past 0 and no caches;
// generation feeds one row at a time over `caches`, a key/value cache per layer): the family's
// embedding, every block, the final norm; returns the hidden state (n × d) and writes the maps
// at `maps`, or (past 0, no caches, maps.at null) to `taps`. The ids are not checked
// (check_model_ids).
matrix run_stack(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t past,
                 std::vector<kv_cache>* caches, map_place maps, stage_list& times,
                 progress* bar = nullptr, layer_probe* probe = nullptr, map_taps* taps = nullptr);
// Layer `layer` once more on its input x (n × d, as the forward's taps were shown it by
// layer_input, positions from 0): its maps go to `taps` (rows, then layer_done), its output is
// dropped. For views that need the layers from the last one down (jobs/received_rollout.h).
void rerun_layer(const hf_model& m, std::size_t layer, matrix x, map_taps& taps,
                 stage_list& times);
inline constexpr std::size_t no_row = static_cast<std::size_t>(-1);

// Layer `layer`'s output on its input x (n × d, positions from 0) with the value vector of key
// `zeroed_value` set to 0 in every head before the heads mix them (value zeroing, Mohebbi et al.
// 2023: measures/value_zeroing.cpp; no_row: none, the layer as it runs). Its maps are dropped.
matrix layer_output(const hf_model& m, std::size_t layer, matrix x, std::size_t zeroed_value,
                    stage_list& times);
// run_model's checks of the ids: in the vocabulary, within the positions.
void check_model_ids(const hf_model& m, const std::vector<std::int64_t>& ids);

// The logits over the vocabulary of one hidden row: × head_input_scale (T5 tied: d^−1/2), the
// family's prediction input (BERT's masked-LM transform), the output embeddings and their bias
// (BERT's, BART's final_logits_bias), and Gemma 2's soft cap (cap · tanh(z / cap)).
std::vector<float> output_logits(const hf_model& m, const float* hidden_row);
// The same for every row of h (rows × d) at once: rows × vocab.
matrix output_logits_rows(const hf_model& m, matrix h);
// What the output embeddings read of a residual stream x (n × d) taken before the last layer:
// the final norm where the model has one (the logit lens), else x.
matrix final_norm_of(const hf_model& m, matrix x);

// The k most likely tokens (id, probability) from row `row` of the hidden state through the
// output embeddings: the next token after it for causal models; for BERT the filler of that
// position (through its masked-LM head, which must be in the checkpoint).
std::vector<std::pair<std::int64_t, double>> top_predictions(const hf_model& m,
                                                             const model_forward& f,
                                                             std::size_t row, std::size_t k);

}  // namespace attnviz
