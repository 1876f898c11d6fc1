// An encoder–decoder model (model/family.h: bart, mbart, marian, …) over a source and a target,
// keeping all three attentions: the encoder's self-attention, the decoder's masked
// self-attention and its cross attention over the encoder's output.
//
//   teacher forcing (run_seq2seq)   the target given: the decoder reads [start, y_0, …, y_{m−2}]
//                                   (start = decoder_start_token_id) and row i is the step
//                                   that produces y_i, as training does (labels shifted right)
//   generation (generate_seq2seq)   greedy: the decoder starts from [start], each step takes the
//                                   most likely next token (the config's forced_bos_token_id
//                                   first, when it sets one; never one of its bad_words_ids)
//                                   until eos_token_id or max_new
//                                   tokens; the self-attention keys and values of the earlier
//                                   steps are cached, so step t attends over t + 1 rows, O(t);
//                                   the steps' rows are assembled into the same full maps
// Both give the same maps for the same target (tests/e2e/test_seq2seq.py checks it).
#pragma once

#include <cstdint>
#include <vector>

#include "io/progress.h"
#include "model/hf_model.h"
#include "model/map_taps.h"
#include "stage_times.h"
#include "tensor.h"

namespace attnviz {

struct seq2seq_forward {
  std::size_t encoder_layers = 0, encoder_heads = 0, decoder_layers = 0, decoder_heads = 0;
  std::size_t ns = 0, nt = 0;  // source and target rows
  matrix encoder_attention;   // [Le, He, ns, ns] as (Le·He·ns) × ns, row = query
  matrix decoder_attention;   // [Ld, Hd, nt, nt], masked entries 0
  matrix cross_attention;     // [Ld, Hd, nt, ns]
  matrix encoder_hidden;      // ns × d, after the encoder's final norm (mBART)
  matrix decoder_hidden;      // nt × d, after the decoder's: row i predicts targets[i]
  std::vector<std::int64_t> decoder_inputs;  // nt ids: [start, targets[0], …, targets[nt−2]]
  std::vector<std::int64_t> targets;         // nt ids, the tokens the rows produce
  stage_list stage_seconds;

  const float* cross_map(std::size_t l, std::size_t h) const {
    return cross_attention.data() + (l * decoder_heads + h) * nt * ns;
  }
};

// input_error for ids outside the vocabulary or sequences longer than the positions (naming
// "ids" for the source, "target-ids" for the target).
seq2seq_forward run_seq2seq(const hf_model& m, const std::vector<std::int64_t>& source,
                            const std::vector<std::int64_t>& target,
                            progress_style progress = progress_style::quiet);
// Each decoder layer's cross attention once more, to `taps` (model/map_taps.h): its maps from
// f (rows, every head), then the values they mixed (f's encoder output through the layer's
// cross W_V) and its W_O (values), then layer_done — for a measure of the cross attention
// (lib/measures/) after a teacher-forced run.
void replay_cross_attention(const hf_model& m, const seq2seq_forward& f, map_taps& taps);
// The decoder once more over f's decoder inputs (teacher forcing, as run_seq2seq; after a
// generation its tokens), for the measures that follow the residual stream: every layer's
// self-attention to `self_taps` (rows, values, residual, layer_done, as run_model's taps get
// them) and its cross attention to `cross_taps` the same way; either may be null; each layer's
// input (nt × d) kept in `layer_inputs` when given (the logit lens).
void trace_decoder(const hf_model& m, const seq2seq_forward& f, map_taps* self_taps,
                   map_taps* cross_taps, std::vector<matrix>* layer_inputs = nullptr);
// The decoder's final norm (mBART's, T5's; none in BART and Marian) on rows of its stream.
matrix decoder_final_norm(const hf_model& m, matrix y);
// Decoder layer `layer` on its input y (teacher forcing, causal) over f's encoder output, with
// target row `zeroed_target`'s self-attention value vector, or source row `zeroed_source`'s
// cross-attention value vector, set to 0 in every head (no_row: none); its output (value
// zeroing, measures/value_zeroing.cpp).
matrix decoder_layer_output(const hf_model& m, const seq2seq_forward& f, std::size_t layer,
                            matrix y, std::size_t zeroed_target, std::size_t zeroed_source);
seq2seq_forward generate_seq2seq(const hf_model& m, const std::vector<std::int64_t>& source,
                                 std::size_t max_new,
                                 progress_style progress = progress_style::quiet);

}  // namespace attnviz
