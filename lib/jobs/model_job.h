// `attn-viz model`: a Hugging Face checkpoint run natively over a token sequence, every layer's
// every head's attention kept, written as the contract other tools read:
//   --npy DIR   attention.npy  float32 [layers, heads, n, n] (row i = query i): the maps of
//                              --npy-layers × --npy-heads (default: all), written as the
//                              forward makes them, never all in memory (jobs/map_keeper.h)
//               attention_maps.json  {"layers": [...], "heads": [...]}: which maps those are
//               received.npy   float32 [layers, heads, n]: every map's column sums, the
//                              attention each token receives
//               token_ids.npy  int64 [n]
//               tokens.json    the token strings as the tokenizer shows them
//               hidden.npy     float32 [n, d] the last hidden state (GPT-2 and Llama: after the
//                              final norm)
//               view.npy       float32 [n, n] the map --view mean, max, rollout or flow drew
//                              ([n] for --view received)
//   --json      tokens, ids, the config summary, per layer the per-head weights (model_json.h)
//   --png/--svg what --view draws (maps_views.h): one head's map, as `run` draws one, by default
//   top_k       the most likely next tokens after the last position (causal models), or the
//               fillers of each [MASK] position (BERT), with probabilities
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/progress.h"
#include "jobs/job_outputs.h"
#include "jobs/map_keeper.h"
#include "jobs/maps_views.h"
#include "jobs/memory_guard.h"
#include "jobs/seq2seq_measures.h"
#include "jobs/seq2seq_views.h"
#include "jobs/vision_input.h"
#include "measures/measure.h"
#include "model/forward.h"
#include "model/generate.h"
#include "model/hf_config.h"
#include "model/logit_lens.h"
#include "model/seq2seq.h"
#include "render/model_json.h"
#include "tokenizers/vocabulary.h"

namespace attnviz {

struct model_job_config {
  std::string model_dir;
  std::string text;               // run through the folder's own tokenizer (its specials added)
  std::vector<std::int64_t> ids;  // or the token ids as given (nothing added)
  std::string image;              // or, for a vision model, a picture (jobs/vision_input.h)
  job_outputs out;                // json, png, svg, npy_dir
  std::string npy_layers, npy_heads;  // attention.npy's maps, lists as "0,5-7" (empty: all)
  view_choice choice;             // what --png/--svg draw (maps_views.h)
  bool name_heads = false;  // caption the model view's heads with the head finder's names
  std::size_t top_k = 0;    // 0: no predictions
  // top_k was not asked for but chosen to show something (a run without outputs): a model
  // without an LM head, or an encoder–decoder one, then gets no predictions instead of a refusal
  bool top_k_if_possible = false;
  // Encoder–decoder models (jobs/seq2seq_job.h): the target as text or ids (teacher forcing),
  // else greedy generation of at most max_new tokens
  std::string target_text;
  std::vector<std::int64_t> target_ids;
  std::size_t max_new = 64;
  // Causal models (jobs/generation_job.h): continue the prompt by this many tokens (0: no
  // generation), as `how` says, stopping early once the continuation holds `stop`; on_text
  // receives the continuation as it grows (the front end prints it)
  std::size_t generate = 0;
  sampling how;
  std::string stop;
  std::function<void(const std::string&)> on_text;
  seq2seq_stack stack = seq2seq_stack::cross;  // what --view draws
  bool term = false;                           // the front end draws the view in the terminal
  std::string align_path;                      // the word alignment, Pharaoh "i-j"
  std::string gold_path;                       // a gold alignment to score it against
  align_method method = align_method::argmax;
  progress_style progress = progress_style::automatic;
  std::uint64_t max_memory = default_memory_limit;
  // The logit lens (model/logit_lens.h): every layer's guess at every position, its top
  // max(1, top_k) tokens (also run for --view logit-lens: wants_logit_lens)
  bool logit_lens = false;
  // What the maps show (lib/measures/measure.h): null, the weights
  const measure_spec* measure = nullptr;
  // A caller that reads the report's maps itself (compare --model): keep every map, whatever
  // the outputs read (jobs/model_keep.h)
  bool keep_every_map = false;
  // A command that runs the job on texts only (compare --model): vision models refused naming it
  std::string text_only_command;
};

// --logit-lens, or --view logit-lens, which draws it.
bool wants_logit_lens(const model_job_config& c);

struct model_report {
  model_config config;
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  model_forward forward;
  std::vector<model_prediction> predictions;
  std::vector<std::string> written;
  std::vector<std::string> warnings;
  // encoder–decoder models: ids/tokens above are the source's
  bool encoder_decoder = false, generated = false;
  seq2seq_forward seq2seq;
  matrix weights_attention;  // with a measure and --html: every map's weights, [L, H, n, n]
                             // (forward.attention holding the measure's maps)
  matrix cross_weights;  // with a measure: the cross attention's weights (cross_attention.npy),
                         // seq2seq.cross_attention then holding the measure's maps
  // --measure contrib or alti on an encoder–decoder: every stack's weights and the measure's
  // maps (jobs/seq2seq_measures.h), with alti ALTI+
  std::optional<seq2seq_measured> measured;
  std::vector<std::string> target_tokens;
  std::string generated_text;  // the target's text, or a causal model's continuation
  std::size_t prompt = 0;      // causal generation: the prompt's tokens (ids after it generated)
  bool ended = false;          // causal generation stopped at an end token
  std::vector<word_pair> alignment;   // with --align or --gold
  std::optional<alignment_counts> gold_scores;
  // Decoder-only and encoder models: the maps kept and attention.npy (jobs/map_keeper.h; null
  // in a generation, whose maps are all in `forward`), and every map's column sums
  // [layers, heads, n]
  std::shared_ptr<map_keeper> keeper;
  // With a measure: what keeps the weights themselves (attention.npy, the heads' statistics;
  // else `keeper` itself; null under a measure when neither is asked for), and the measure (its
  // arrays for --npy)
  std::shared_ptr<map_keeper> weights_keeper;
  std::shared_ptr<measure_taps> measure;
  std::string measure_name;  // an encoder–decoder's: what the cross attention's maps show
  // --logit-lens, and the positions whose lens the summary shows (the prediction rows)
  std::optional<logit_lens> lens;
  std::vector<std::size_t> lens_positions;
  std::vector<float> received;
  std::vector<float> received_rollout;  // --view received-rollout's column sums (a second pass)
  vocabulary_once vocab;                // names the predictions, the lens and generated tokens
  // A vision model's picture (its tokens are `tokens`, its ids their positions), and each map's
  // CLS row over the patches, [layers, heads, g_h, g_w] (cls_map.npy)
  std::shared_ptr<const vision_input> image;
  std::vector<float> cls_map;
};

model_report run_model_job(const model_job_config& config);
// The same on a model already loaded from config.model_dir (a batch of pictures: one load).
model_report run_model_job_on(const hf_model& model, const model_job_config& config);

// The token ids a model run reads and their strings: `text` through the folder's own tokenizer
// (its special tokens added), or `ids` as given, named by the folder's vocabulary (or shown as
// numbers, with a warning, when it has none).
struct model_input {
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  std::vector<std::string> warnings;
  vocabulary_once vocab;  // the folder's, read once (the tokenizer's parse gives it)
};
// More tokens than `max_positions` are refused right after tokenizing, naming the parameter
// the tokens came from (text_name or ids_name: "text" and "ids", or "target" and "target-ids").
model_input read_model_input(const std::string& model_dir, const std::string& text,
                             const std::vector<std::int64_t>& ids, std::size_t max_positions,
                             const char* text_name = "text", const char* ids_name = "ids");

// A vision model's --html page (render/picture_page.h): every head's CLS map over the picture,
// with the mean, the rollout and the received attention.
std::string vision_page(const model_report& report, const model_job_config& config);

// The report's maps as views draw them (tokens, causal, the folder's name, the model's sizes).
maps_source model_maps_source(const model_report& report, const model_job_config& config);

// usage_error for an encoder–decoder model in a command that reads one stack of self-attention
// (`what`: "attn-viz heads" …), pointing at what shows its attentions.
void refuse_encoder_decoder(const model_config& m, const std::string& dir, std::string_view what);

// usage_error for a vision model in a command that reads texts (`what`: "attn-viz heads" …),
// pointing at what shows its attention.
void refuse_vision(const model_config& m, const std::string& dir, std::string_view what);

// The model folder's own name ("gpt2" for "models/gpt2/"), as figures and JSON name it.
std::string folder_name(const std::string& dir);

// "1,2, 3" -> {1, 2, 3}; usage_error naming the parameter (`name`) for anything else.
std::vector<std::int64_t> parse_ids(const std::string& text, const char* name = "ids");

}  // namespace attnviz
