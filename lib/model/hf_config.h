// A Hugging Face model folder's config.json, read into one description of the network whatever
// the family calls its sizes (GPT-2: n_embd, n_head, …; BERT and Llama: hidden_size, …). Each
// family reads its own keys (lib/model/families/, one file each; model/family.h lists them).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace attnviz {

struct family_spec;  // model/family.h
enum class norm_kind { layer_norm, rms_norm };
// The MLP's nonlinearity; with gated_mlp it is applied to the gate and multiplied by up.
enum class mlp_activation { gelu_tanh, gelu_erf, silu, relu };
// How a token's position enters: learned rows added to the embeddings, fixed sinusoids added
// to them (Marian), rotary (RoPE) on q, k, or a learned bias on the scores by relative
// distance (T5).
enum class position_kind { learned, sinusoidal, rotary, relative };

// config.json's rope_scaling (Hugging Face's rope_type, or the older "type"):
//   none     θ_i = rope_theta^(−2i/d_h)
//   linear   θ_i / factor (positions stretched by the factor)
//   llama3   Llama 3.1/3.2's: wavelength λ_i = 2π/θ_i against the original context L0 =
//            original_max_position_embeddings: λ_i < L0/high_freq_factor keeps θ_i,
//            λ_i > L0/low_freq_factor takes θ_i/factor, and between them
//            (1 − s) θ_i/factor + s θ_i with s = (L0/λ_i − low_freq_factor) /
//            (high_freq_factor − low_freq_factor)
//   divisors θ_i / divisors[i] (a GGUF file's rope_freqs: llama3's rule as numbers)
enum class rope_scaling_kind { none, linear, llama3, divisors };
// Which pairs of a head's rotary dimensions turn together: i with i + r/2 (rotate-half: GPT-NeoX,
// Llama, Hugging Face's layout) or 2i with 2i + 1 (interleaved: GPT-J, Meta's original).
enum class rope_pairs { half, interleaved };
// How a fused q/k/v projection lays out its output columns: q | k | v (GPT-2, Phi-3), or per
// key/value group g [q heads of g | k_g | v_g] (Falcon's new architecture; GPT-NeoX, where each
// head is its own group: [q_h | k_h | v_h]).
enum class qkv_order { blocks, grouped };
struct rope_scaling_config {
  rope_scaling_kind kind = rope_scaling_kind::none;
  double factor = 1.0;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;
  double original_max_positions = 8192.0;
  std::vector<double> divisors;  // r / 2 of them
};

// Vision transformers (ViT, DeiT, DINOv2: model/vision.h): the picture's patches are the tokens,
// after `prefix` learned tokens (CLS, DeiT's distillation token) and DINOv2's registers.
// How the final hidden state becomes the classifier's logits:
//   cls           classifier(h_CLS)                                    ViT, DeiT without teacher
//   cls_distilled (cls_classifier(h_CLS) + distillation_classifier(h_DIST)) / 2   DeiT
//   cls_and_mean  classifier([h_CLS, mean of the patch rows])          DINOv2
enum class vision_head { none, cls, cls_distilled, cls_and_mean };
// How learned positions move to another patch grid (model/vision.h): PyTorch's bicubic
// interpolate, plain (ViT, DeiT, DINOv2) or antialiased (DINOv2 with registers).
enum class position_resize { plain, antialias };
struct vision_config {
  bool on = false;
  std::size_t image_size = 0, patch_size = 0, channels = 3;
  std::size_t prefix = 1;     // learned tokens before the patches, CLS first
  std::size_t registers = 0;  // DINOv2's register tokens, after the prefix
  position_resize resize = position_resize::plain;
  vision_head head = vision_head::none;  // what the checkpoint has is what binding finds
  std::vector<std::string> labels;       // id2label, by class index ("LABEL_3" when missing)
};

struct model_config {
  std::string model_type;  // as config.json says it (llama, mistral, qwen2, …)
  const family_spec* family = nullptr;  // the family that runs it
  std::size_t layers = 0, d_model = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::size_t intermediate = 0, vocab = 0, max_positions = 0, type_vocab = 0;
  double norm_eps = 1e-5;
  double rope_theta = 10000.0;
  rope_scaling_config rope_scaling;
  std::size_t sliding_window = 0;  // 0: none
  std::size_t rotary_dims = 0;     // the rotated dimensions of each head (0: all of head_dim)
  rope_pairs rope_layout = rope_pairs::half;
  qkv_order fused_qkv = qkv_order::blocks;
  bool parallel_residual = false;  // attention and MLP side by side on the same input
  bool post_norm = false;          // OPT-350m: the norms after each residual add
  bool final_norm = true;          // OPT: a final norm (pre-norm models only)
  std::size_t embed_width = 0;     // OPT: word_embed_proj_dim (0: d_model)
  std::int64_t pad_id = -1;        // RoBERTa: positions count from pad_token_id + 1 (−1: BERT)
  std::size_t position_table = 0;  // the learned positions' rows, when not max_positions
  float norm_weight_offset = 0.0f;  // Gemma: RMSNorm scales by (offset + w)
  double embed_scale = 0.0;         // Gemma: the embeddings' factor (0: none)
  bool new_architecture = false;    // Falcon's new_decoder_architecture
  // Gemma 2: scores and logits soft-capped (cap · tanh(x / cap); 0: not), scores scaled by
  // query_pre_attn_scalar^−1/2, and every even layer attending within local_window keys
  double attn_soft_cap = 0.0, final_soft_cap = 0.0, query_scale = 0.0;
  std::size_t local_window = 0;
  double local_rope_theta = 0.0;  // Gemma 3: the local layers' RoPE base (0: rope_theta)
  std::vector<bool> local_layers;  // Gemma 3: which layers are local
  std::size_t norms_in_parallel = 1;  // Falcon: LayerNorms before a parallel block (1 or 2)
  norm_kind norm = norm_kind::layer_norm;
  mlp_activation activation = mlp_activation::gelu_tanh;
  bool gated_mlp = false;  // down(act(gate(x)) ⊙ up(x)) (Llama's SwiGLU), else down(act(up(x)))
  position_kind positions = position_kind::learned;
  bool causal = true;
  bool qkv_bias = false;         // llama family: q/k/v projections carry biases (Qwen2)
  bool tie_embeddings = true;    // the LM head is the token embeddings
  std::size_t position_offset = 0;  // learned positions read at position + offset (BART: 2)
  bool scale_embedding = false;     // token embeddings × √d_model
  std::int64_t eos_id = -1;         // end of sequence (generation stops there), −1: none
  // Causal models: every end token config.json's eos_token_id names (one id or a list, as
  // Llama 3's); generation stops at any of them.
  std::vector<std::int64_t> end_ids;

  vision_config vision;  // vision transformers (on: the input is a picture)

  // Encoder–decoder models: the fields above describe the encoder (layers, heads, intermediate),
  // these the decoder.
  bool encoder_decoder = false;
  std::size_t decoder_layers = 0, decoder_heads = 0, decoder_head_dim = 0, decoder_intermediate = 0;
  std::int64_t decoder_start_id = 0;  // the decoder's first input
  std::int64_t forced_bos_id = -1;    // the first generated token, when the config forces one
  std::vector<std::int64_t> banned_ids;  // bad_words_ids of one token: never generated
  double head_input_scale = 1.0;      // the hidden state's factor before the LM head (T5 tied:
                                      // d^−1/2)
  // T5's relative position buckets: how many, and the distance past which they stop growing
  std::size_t relative_buckets = 0, relative_max_distance = 0;
};

// config.json parsed and checked (`path` names it in errors, with the JSON key: a missing or
// mistyped size, an unsupported model_type, activation or rope_scaling type, head counts that do
// not divide): model_type picks the family, which reads the rest. Throws input_error.
model_config parse_model_config(const std::string& json_text, const std::string& path);
model_config read_model_config(const std::string& path);
// The same from a parsed object (a GGUF file's metadata in config.json's terms).
model_config model_config_of(const nlohmann::json& j, const std::string& path);

// "gpt2 · 12 layers · d 768 · 12 heads (64 each)" and the like, for titles.
std::string model_summary(const model_config& c);

// The rotary frequencies θ_i, i < r / 2 (r = rotary_dims, or head_dim), with
// θ_i = rope_theta^(−2i/r): rope_theta and rope_scaling
// as above.
std::vector<double> rope_frequencies(const model_config& c);

}  // namespace attnviz
