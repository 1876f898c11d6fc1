// `attn-viz model --measure alti` on an encoder–decoder: ALTI (measures/alti.cpp) in each of
// its three attentions and ALTI+ over them (measures/alti_plus.h) — how much of each target
// row's representation comes from the source and how much from the target prefix.
//
//   encoder   the encoder run again with ALTI's taps (its blocks report their residual)
//   decoder   the decoder traced over the run's decoder inputs (model/seq2seq.h trace_decoder):
//             its self-attention and its cross attention each to ALTI's taps; the cross
//             attention's residual counted apart (its share r_i per layer)
//   views     every stack's maps become ALTI's (each head showing its layer's map; the cross
//             map the source's part, each row scaled to 1), the weights kept for the .npy files
//   --npy     encoder_alti.npy [Le, ns, ns], decoder_alti.npy [Ld, nt, nt], cross_alti.npy
//             [Ld, nt, ns], cross_alti_residual.npy [Ld, nt] (r), alti_plus.npy [nt, ns + nt]
//             (each target row's shares of the source tokens, then of the decoder inputs) and
//             source_share.npy [nt]
#pragma once

#include <cstdint>
#include <vector>

#include "model/hf_model.h"
#include "model/seq2seq.h"
#include "tensor.h"

namespace attnviz {

struct seq2seq_alti {
  std::size_t encoder_layers = 0, decoder_layers = 0, ns = 0, nt = 0;
  matrix encoder_weights, decoder_weights, cross_weights;  // the stacks' weights, as run
  std::vector<float> encoder, decoder, cross;              // each layer's map, [L, rows, keys]
  std::vector<float> residual;                             // [Ld, nt]: the cross attention's r_i
  std::vector<double> contributions;                       // [nt, ns + nt]: ALTI+'s M
  std::vector<double> source_share;                        // [nt]
};

// ALTI in every stack of f (a run over `source`), its maps put in f's place (the weights moved
// into the result), and ALTI+.
seq2seq_alti measure_seq2seq_alti(const hf_model& m, const std::vector<std::int64_t>& source,
                                  seq2seq_forward& f);

}  // namespace attnviz
