// `attn-viz model --measure contrib|alti` on an encoder–decoder: the measures that follow the
// residual stream (measures/contrib.cpp, measures/alti.cpp) in each of its three attentions,
// and for alti ALTI+ over them (measures/alti_plus.h) — how much of each target row's
// representation comes from the source and how much from the target prefix.
//
//   encoder   the encoder run again with the measure's taps (its blocks report their residual)
//   decoder   the decoder traced over the run's decoder inputs (model/seq2seq.h trace_decoder):
//             its self-attention and its cross attention each to the measure's taps; the cross
//             attention's residual counted apart (its share r_i per layer)
//   views     every stack's maps become the measure's (each head showing its layer's map; the
//             cross map the source's part, each row scaled to 1), the weights kept for the .npy
//             files
//   --npy     encoder_<m>.npy [Le, ns, ns], decoder_<m>.npy [Ld, nt, nt], cross_<m>.npy
//             [Ld, nt, ns], cross_<m>_residual.npy [Ld, nt] (r); alti adds alti_plus.npy
//             [nt, ns + nt] (each target row's shares of the source tokens, then of the
//             decoder inputs) and source_share.npy [nt]
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/file_io.h"
#include "measures/measure.h"
#include "model/hf_model.h"
#include "model/seq2seq.h"
#include "tensor.h"

namespace attnviz {

struct seq2seq_measured {
  std::string measure;  // "contrib" or "alti"
  std::size_t encoder_layers = 0, decoder_layers = 0, ns = 0, nt = 0;
  matrix encoder_weights, decoder_weights, cross_weights;  // the stacks' weights, as run
  std::vector<float> encoder, decoder, cross;              // each layer's map, [L, rows, keys]
  std::vector<float> residual;                             // [Ld, nt]: the cross attention's r_i
  std::vector<double> contributions;                       // alti: [nt, ns + nt], ALTI+'s M
  std::vector<double> source_share;                        // alti: [nt]
};

// Whether `measure` is one this file runs on an encoder–decoder: the measures that follow the
// residual stream (measure_spec::follows_residual; norms measures the cross attention alone).
bool measures_every_stack(std::string_view measure);

// The measure in every stack of f (a run over `source`), its maps put in f's place (the
// weights moved into the result), and for alti ALTI+.
seq2seq_measured measure_every_stack(const hf_model& m, std::string_view measure,
                                     const std::vector<std::int64_t>& source, seq2seq_forward& f);

// A measure of the cross attention alone (norms): f's cross maps replaced by the measure's (the
// cross attention replayed: model/seq2seq.h replay_cross_attention), the weights copied into
// `weights`; with npy_dir, its arrays prefixed cross_ (the taps returned hold them).
std::unique_ptr<measure_taps> measure_cross_only(const hf_model& m, const measure_spec& spec,
                                                 seq2seq_forward& f, matrix& weights,
                                                 const std::string& npy_dir = "");

// A teacher-forced run over (source, target) whose cross maps are `spec`'s: the weights, norms
// (measure_cross_only) or a measure of every stack (measure_every_stack).
seq2seq_forward measured_run(const hf_model& m, const measure_spec& spec,
                             const std::vector<std::int64_t>& source,
                             const std::vector<std::int64_t>& target);

// The measure's arrays into `dir` (the --npy names above).
void add_measured_npy(output_batch& batch, const std::string& dir, const seq2seq_measured& a);

}  // namespace attnviz
