// `attn-viz model` on an encoder–decoder checkpoint (BART, mBART, Marian): the source through
// the encoder, the target through the decoder (teacher forcing with --target / --target-ids,
// else greedy generation up to --max-new tokens), all three attentions kept (model/seq2seq.h)
// and written as the contract other tools read:
//   --npy DIR   encoder_attention.npy  float32 [Le, He, ns, ns]   (row = query)
//               decoder_attention.npy  float32 [Ld, Hd, nt, nt]   (masked entries 0)
//               cross_attention.npy    float32 [Ld, Hd, nt, ns]   (target rows, source columns)
//               source_ids.npy, target_ids.npy  int64 [ns], [nt]  (row i produces target i)
//               source_tokens.json, target_tokens.json
//               decoder_hidden.npy     float32 [nt, d] (after the decoder's final norm)
//   --json      the same, with the sizes, the decoder's inputs and the generated text
#pragma once

#include "jobs/model_job.h"
#include "model/hf_model.h"

namespace attnviz {

// Fills the report's encoder–decoder part and writes its outputs; `m` is the loaded model.
void run_seq2seq_job(const hf_model& m, const model_job_config& c, model_report& r);

}  // namespace attnviz
