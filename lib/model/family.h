// The model families attn-viz runs, as a table: a family is one file in lib/model/families/
// holding its config reading (config.json's keys into model_config), its tensor-name table
// (binding every tensor of hf_model, shape-checked) and its block (one layer's forward, built
// from the shared pieces of model/layer_ops.h). Adding a family touches that file, the list in
// family.cpp and lib/CMakeLists.txt, nothing else: parse_model_config, load_model, run_model,
// the commands and the tests' refusals read the table.
//
//   family  model_type values           positions   norm       mask     block
//   gpt2    gpt2                        learned     pre-LN     causal   families/gpt2.cpp
//   bert    bert, roberta, xlm-roberta  learned (RoBERTa: after the pad id)  post-LN  none
//                                                                            families/bert.cpp
//   llama   llama, mistral, qwen2       rotary      pre-RMS    causal   families/llama.cpp
//   bart    bart, mbart, marian         learned+2   post-LN    encoder–decoder  families/bart.cpp
//                                       (Marian: sinusoidal; mBART: pre-LN)
//   t5      t5, mt5                     relative    pre-RMS    encoder–decoder  families/t5.cpp
//   gpt_neox gpt_neox (Pythia)          partial rotary  pre-LN, parallel  causal
//   families/gpt_neox.cpp opt     opt                         learned+2   pre-LN (350m: post-LN)
//   causal  families/opt.cpp phi     phi (phi-1, 1.5, 2)         partial rotary  one LN, parallel
//   causal  families/phi.cpp phi3    phi3                        partial rotary  pre-RMS, fused qkv
//   and gate_up  causal
//                                                                            families/phi3.cpp
//   gemma   gemma, gemma2               rotary      pre-RMS (1 + w), GeGLU, embeddings × √d
//   gemma3_text                         (gemma2: soft caps, local/global layers, four norms;
//                                        gemma3: q/k norms, a RoPE base per kind of layer)
//                                                              causal   families/gemma.cpp
//   gptj    gptj                        interleaved rotary  one LN, parallel  causal
//   families/gptj.cpp falcon  falcon                      rotary      LN, parallel (or sequential)
//   causal
//                                                                            families/falcon.cpp
//   distilbert distilbert               learned     post-LN    none     families/distilbert.cpp
//   vit     vit                         learned (a picture's patches: model/vision.h)  pre-LN
//                                                              none     families/vit.cpp
//   deit    deit                        vit's, with a distillation token     families/deit.cpp
//   dinov2  dinov2, dinov2_with_registers  vit's, layer scales, registers, SwiGLU (giant)
//                                                                       families/dinov2.cpp
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/hf_config.h"
#include "tensor.h"

namespace attnviz {

class config_reader;
struct hf_model;
struct layer_weights;
struct layer_context;
struct layer_probe;
struct decoder_io;
struct kv_cache;
struct pixel_tensor;

struct family_spec {
  std::string_view name;
  std::vector<std::string_view> model_types;  // config.json's model_type values it runs
  // Reads the family's keys into c (c.model_type is set); refuses, naming the key, any value it
  // does not implement.
  void (*read_config)(const config_reader& r, model_config& c);
  // Finds and shape-checks every tensor (model/hf_model.h's binder), filling m's slots.
  void (*bind)(hf_model& m);
  // The embedding rows of `ids` at positions first, first + 1, … (n × d), positions and
  // embedding norm included (first > 0: a generation step after `first` cached rows).
  matrix (*embed)(const hf_model& m, const std::vector<std::int64_t>& ids, std::size_t first);
  // One layer on x (n × d, updated in place), its heads' maps written to `maps`
  // ([H, n, n], or [H, n, lc.past + n] over `cache`, which the new keys and values are appended
  // to: generation); q, k, v kept in `probe` when it is not null. Encoder-only and the
  // encoder–decoders' encoder blocks are never given a cache.
  void (*block)(layer_context& lc, const layer_weights& w, matrix& x, float* maps,
                layer_probe* probe, kv_cache* cache);
  // The last hidden row(s) → what the output embeddings multiply (BERT: its masked-LM
  // transform); null: the hidden state as it is.
  matrix (*prediction_input)(const hf_model& m, matrix h) = nullptr;

  // Encoder–decoder families (null for the others). The encoder is embed + block above; the
  // decoder's embedding rows of `ids` at positions first, first + 1, …; one decoder layer on x
  // (self-attention over the cache when io.cache is set, then cross attention over io.memory,
  // then the MLP), its maps written where io says.
  matrix (*decoder_embed)(const hf_model& m, const std::vector<std::int64_t>& ids,
                          std::size_t first) = nullptr;
  void (*decoder_block)(layer_context& lc, const layer_weights& w, matrix& x,
                        const decoder_io& io) = nullptr;

  // Vision families (model/vision.h; null for the others): the rows of a preprocessed picture
  // (prefix tokens, registers, patches; positions added), as `embed` gives a text's.
  matrix (*embed_image)(const hf_model& m, const pixel_tensor& pixels) = nullptr;
};

// Every family, in the order messages list them.
const std::vector<const family_spec*>& model_families();
// The family running `model_type`, or null.
const family_spec* find_family(std::string_view model_type);
// Every model_type value attn-viz runs, for messages.
std::vector<std::string_view> supported_model_types();

}  // namespace attnviz
