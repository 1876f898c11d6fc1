// attn-viz model: run a Hugging Face checkpoint and keep every layer's every head.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

#include "commands.h"
#include "error.h"
#include "jobs/image_batch_job.h"
#include "jobs/model_job.h"
#include "maps_view_flags.h"
#include "options.h"
#include "render/terminal.h"
#include "report.h"
#include "suggest.h"
#include "text/utf8.h"
#include "tokenizers/token_display.h"

namespace attnviz::cli {

namespace {

struct model_flags {
  model_job_config job;
  std::string ids, target_ids, stack = "cross", align_method = "argmax", measure = "weights";
  std::string max_memory = "8G";
  maps_view_flags view;
  bool quiet = false;
  image_batch_config images;  // --images LIST --out-dir DIR --formats --resume
  std::string formats = "png";
};

// `model --images LIST --out-dir DIR`: a vision model over every picture of LIST.
int run_images_command(const CLI::App& cmd, model_flags& f, model_job_config job) {
  image_batch_config& b = f.images;
  if (b.out_dir.empty())
    throw usage_error("--images needs --out-dir DIR: each picture writes its own files there");
  std::vector<std::string> refused = output_flag_names();
  refused.insert(refused.end(), {"--image", "--text", "--ids", "--term", "--generate"});
  for (const std::string& flag : refused)
    if (const CLI::Option* o = cmd.get_option_no_throw(flag); o && o->count() > 0)
      throw usage_error(
          fmt::format("{} does not go with --images: the list's pictures are the "
                      "inputs, and --formats chooses the files written per picture",
                      flag));
  b.formats = parse_batch_formats(f.formats);
  b.settings = batch_settings(cmd);
  b.job = std::move(job);
  const image_batch_report r = run_image_batch(b);
  for (const auto& s : r.skipped) fmt::print(stderr, "attn-viz: skipped {}\n", cli_text(s.message));
  fmt::print("ran {} of {} picture(s){}{}: {} file(s) in {} (list: {})\n", r.succeeded - r.resumed,
             r.pictures, r.resumed ? fmt::format(", {} already done (--resume)", r.resumed) : "",
             r.skipped.empty() ? "" : fmt::format(", {} skipped", r.skipped.size()), r.files,
             b.out_dir, r.index_path);
  return r.succeeded > 0 ? 0 : 2;
}

// After a run that asked for nothing: where its attention can be seen.
void print_model_outputs_hint(std::FILE* out, const std::string& dir) {
  fmt::print(out,
             "nothing written. To see the attention: --png FILE (every layer's every head; "
             "--view lines, heads, rollout, … for others), --html FILE (one page to explore), "
             "--term (here), --json FILE or --npy DIR (the numbers); attn-viz heads --model {} "
             "names what each head does\n",
             dir);
}

// The logit lens at each prediction row: per layer the top token, its probability and the
// rank of the model's own prediction there.
void print_logit_lens(std::FILE* out, const model_report& r, bool byte_level) {
  const logit_lens& lens = *r.lens;
  auto name = [&](std::size_t l, std::size_t i) {
    return display_token(lens.tokens[(l * lens.n + i) * lens.k], byte_level);
  };
  for (const std::size_t i : r.lens_positions) {
    fmt::print(out, "logit lens after position {} ({}): the model's prediction {}\n", i,
               display_token(r.tokens[i], byte_level), name(lens.rows - 1, i));
    for (std::size_t l = 0; l < lens.rows; ++l)
      fmt::print(out, "  {:<9} {:<20} p = {:.4f}   prediction's rank {}\n",
                 l + 1 < lens.rows ? fmt::format("layer {}", l) : std::string("output"), name(l, i),
                 lens.prob(l, i), lens.final_rank[l * lens.n + i]);
  }
}

// An encoder–decoder's decoder lens: a line per target row, the top token read after each
// layer with its probability, then the output (what the row predicts).
void print_decoder_lens(std::FILE* out, const model_report& r) {
  const logit_lens& lens = *r.lens;
  const bool byte_level = is_byte_level_sequence(r.target_tokens);
  auto cell = [&](std::size_t l, std::size_t i) {
    const std::string t = display_token(lens.tokens[(l * lens.n + i) * lens.k], byte_level);
    return fmt::format("{:<12} {:.2f}", shorten_for_message(t, 12), lens.prob(l, i));
  };
  fmt::print(out,
             "logit lens of the decoder: each target row's top token read from each layer's "
             "input, its probability, and the output\n  row");
  for (std::size_t l = 0; l + 1 < lens.rows; ++l)
    fmt::print(out, "  {:<17}", fmt::format("layer {}", l));
  fmt::print(out, "  output\n");
  for (std::size_t i = 0; i < lens.n; ++i) {
    fmt::print(out, "  {:>3}", i);
    for (std::size_t l = 0; l < lens.rows; ++l) fmt::print(out, "  {}", cell(l, i));
    fmt::print(out, "\n");
  }
}

// ALTI+'s source share of each target token, six to a line.
void print_source_shares(std::FILE* out, const model_report& r) {
  const std::vector<double>& share = r.measured->source_share;
  double mean = 0.0;
  for (const double v : share) mean += v / static_cast<double>(share.size());
  fmt::print(out,
             "ALTI+: each target token's share from the source (the rest from the target "
             "prefix), mean {:.0f} %:\n",
             100.0 * mean);
  const std::vector<std::string> shown = display_tokens(r.target_tokens);
  for (std::size_t i = 0; i < share.size(); ++i)
    fmt::print(out, "  {:>14} {:>3.0f} %{}",
               shorten_for_message(i < shown.size() ? shown[i] : "?", 14), 100.0 * share[i],
               i % 6 == 5 || i + 1 == share.size() ? "\n" : "");
}

}  // namespace

action setup_model(CLI::App& app) {
  auto f = std::make_shared<model_flags>();
  auto* cmd = app.add_subcommand(
      "model",
      "Run a Hugging Face model folder or a GGUF file (GPT-2, Llama, Mistral, Qwen2, Pythia/GPT-NeoX, OPT, Phi, "
      "Phi-3, Gemma, GPT-J, Falcon; BERT, RoBERTa, XLM-R, DistilBERT; BART, mBART, Marian, T5) natively and keep "
      "every layer's every head's attention");
  cmd->footer(R"(
PATH is a model folder as Hugging Face stores it: config.json, model.safetensors (or
model.safetensors.index.json and its shards) in F32, F16 or BF16, memory-mapped, and the
tokenizer files (tokenizer.json, vocab.json or vocab.txt) for the tokens' names.
Or a GGUF file as llama.cpp, Ollama and LM Studio keep models (architectures llama/Mistral,
qwen2, gemma, gemma2, phi3, gpt2, gptneox, falcon): hyper-parameters and tokenizer from its
metadata, weights F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1 or Q2_K-Q6_K, dequantized block
by block inside the matrix products (never a float copy of the model). Ollama's models are
the largest files in ~/.ollama/models/blobs (no extension; recognised by their contents).
Layers and heads count from 0, as in the arrays: attention.npy[layer, head, query, key].

Outputs (without any: the five most likely next tokens, or each [MASK]'s fillers, and this
list in short):
  --npy DIR   attention.npy  float32 [layers, heads, n, n]   (row i = query i): the maps of
                             --npy-layers x --npy-heads (default: all), written to the file
                             as the forward makes them
              attention_maps.json  {"layers": [...], "heads": [...]}: which maps those are
              received.npy   float32 [layers, heads, n]: each map's column sums, the
                             attention each token receives
              token_ids.npy  int64 [n]
              tokens.json    the token strings, as the tokenizer shows them
              hidden.npy     float32 [n, d]: the last hidden state
              view.npy       float32 [n, n]: with --view mean, max, rollout or flow, that map
                             ([n] with --view received or received-rollout)
  --json      tokens, ids, the model's sizes and every layer's heads' weights
  --png/--svg/--term   one head's map: --layer L --head H

Measures (--measure; decoder-only and encoder models): weights are not contributions. With
--measure norms every view, --json and --html show how long the vector each key adds to each
query's output is, a_ij |f_h(x_j)| with f_h(x) = (x W_V + b_V) W_O^h (Kobayashi et al. 2020),
each row scaled to sum to 1: a token attended to with a large weight but a short value vector
(a first token, a full stop) fades. --npy still writes the weights to attention.npy and adds
              norms.npy        float32 [layers, heads, n, n]: a_ij |f_h(x_j)| per head
              norms_layer.npy  float32 [layers, n, n]: |sum_h a^h_ij f_h(x_j)| per layer
              (both as they are, not scaled; received.npy and view.npy are the measure's)
contrib, alti and value-zeroing give one map per layer (each head shows it), counting the
residual stream: rollout chains them as they are. value-zeroing runs each layer again once
per token with that token's value vector zeroed (n + 1 runs of every layer: GPT-2-small
takes 35 s at 128 tokens, a weights run 1 s), so a text too long is refused naming the
longest that fits.
Encoder-decoder models with --target: norms measures the cross attention (its views, --align
and --gold read the measure; cross_attention.npy stays the weights), cross_norms.npy [layers,
heads, nt, ns] and cross_norms_layer.npy [layers, nt, ns]. contrib, alti and value-zeroing
measure all three stacks: --npy adds encoder_<m>.npy [Le, ns, ns], decoder_<m>.npy [Ld, nt,
nt] and cross_<m>.npy [Ld, nt, ns], with contrib and alti cross_<m>_residual.npy [Ld, nt] (the
cross attention's residual, a part of its own); alti chains them (ALTI+, Ferrando et al. 2022b): how much of each
target token comes from the source and how much from the target prefix, printed, with
alti_plus.npy [nt, ns + nt] and source_share.npy [nt].

Long texts: only the maps an output reads are kept in memory (--view head: one; mean, max,
model: --layers x --heads; rollout, flow: --layers x every head; --json and --html: all of
them), so a text as long as the model's positions runs in the memory of its weights and
activations. --view received draws the attention each token receives over the text itself,
wrapped like a page (per --layers x --heads), from the column sums every run keeps;
--view received-rollout the same through the rollout over --layers (a second pass from the
last layer down, each layer's input kept in a scratch file in $TMPDIR: about twice the
forward's time); --npy streams attention.npy to disk. --max-memory refuses before any work,
naming what would fit.

Vision models (vit, deit, dinov2): --image FILE is the input, preprocessed as the folder's
preprocessor_config.json says (resize with PIL's filters, centre crop, rescale, normalise); the
tokens are CLS (DeiT: and DIST; DINOv2 with registers: REG1 ...) and the patches row by row,
named "row,column". --top-k shows the classifier's classes (id2label); --npy also writes
              cls_map.npy    float32 [layers, heads, grid rows, grid columns]: each map's CLS
                             row over the patches (the measure's with --measure)
              pixels.npy     float32 [3, height, width]: the preprocessed picture
(and no token_ids.npy). Every view and measure reads the patches as tokens.

Encoder-decoder models (bart, mbart, marian): --text / --ids is the source; --target /
--target-ids the target, read with teacher forcing (the decoder reads the start token and the
target shifted right: row i is the step that produces target token i); without a target the
model translates greedily, up to --max-new tokens, and the text is printed.
  --npy DIR   encoder_attention.npy  float32 [Le, He, ns, ns]
              decoder_attention.npy  float32 [Ld, Hd, nt, nt]   (masked entries 0)
              cross_attention.npy    float32 [Ld, Hd, nt, ns]   (target rows, source columns)
              encoder_received.npy, decoder_received.npy, cross_received.npy   float32
                                     [L, H, ns | nt | ns]: each map's column sums
              source_ids.npy, target_ids.npy   int64; source_tokens.json, target_tokens.json
              decoder_hidden.npy     float32 [nt, d]
  --json      the same, with the decoder's inputs and the generated text

Causal models (every family but bert and the encoder-decoders): --generate N continues the
text (greedy, or --sample with --temperature, --top-p and --seed), stopping at the config's
eos_token_id, after N tokens or at --stop TEXT; the text is printed as it grows. The prompt runs
once and each new token over the cached keys and values; the maps (and --npy, --json, --html)
cover prompt + generated tokens, as `model --text` on that text would give them.
  --npy DIR   also generation.json: prompt_tokens, generated_ids, generated_text,
              ended_at_end_token, sampling
  --view generation   the generated tokens as rows, the prompt and the earlier generated tokens
              as columns (a rule at the prompt's end), each row divided by its largest weight

Examples:
  attn-viz model --model gpt2 --ids 464,3797,3332,319,262,2603 --npy maps --top-k 5
  attn-viz model --model gpt2 --text "The capital of France is" --generate 20 \
                 --view generation --png gen.png
  attn-viz model --model bert-base-uncased --ids 101,1996,4937,2938,102 --layer 5 --head 3 \
                 --png l5h3.png)");
  auto& c = f->job;
  cmd->add_option("--model,-m", c.model_dir,
                  "The model: a Hugging Face folder (config.json, model.safetensors, the "
                  "tokenizer's files) or a GGUF file as llama.cpp and Ollama keep them, "
                  "quantized or not (also a folder holding one, or an Ollama blob)")
      ->required()
      ->type_name("PATH")
      ->group("Input");
  auto* text = cmd->add_option("--text,-t", c.text,
                               "Text, read by the model's own tokenizer (tokenizer.json, GPT-2's "
                               "vocab.json + merges.txt, or BERT's vocab.txt), its special tokens "
                               "added; - reads standard input")
                    ->group("Input");
  auto* ids = cmd->add_option("--ids", f->ids,
                              "Token ids, comma-separated, run as given (no special tokens "
                              "added)")
                  ->excludes(text)
                  ->group("Input");
  cmd->add_option("--image", c.image,
                  "Vision models (vit, deit, dinov2): the picture (PNG, JPEG, BMP), "
                  "preprocessed as the folder's preprocessor_config.json says")
      ->excludes(text)
      ->excludes(ids)
      ->type_name("FILE")
      ->group("Input");
  cmd->add_option("--alpha", c.choice.alpha,
                  "Vision models: the opacity of the colours over the picture, from 0 (the "
                  "picture alone) to 1 (the colours alone)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str()
      ->group("Figure");
  auto* target = cmd->add_option("--target", c.target_text,
                                 "Encoder-decoder models: the target text, read by the model's "
                                 "tokenizer, run with teacher forcing (default: translate "
                                 "greedily)")
                      ->group("Input");
  cmd->add_option("--target-ids", f->target_ids,
                  "Encoder-decoder models: the target's token ids, comma-separated, as given")
      ->excludes(target)
      ->group("Input");
  auto* generate =
      cmd->add_option("--generate", c.generate,
                      "Causal models: continue the text by up to N tokens (greedy: the most "
                      "likely token each step), printed as they come; the maps then cover the "
                      "prompt and the generated tokens (--view generation draws them)")
          ->type_name("N")
          ->check(CLI::Range(1, 100000))
          ->group("Generation");
  cmd->add_flag("--sample", c.how.sample,
                "Sample each token from softmax(logits / T) instead of taking the most likely")
      ->needs(generate)
      ->group("Generation");
  cmd->add_option("--temperature", c.how.temperature,
                  "With --sample: T, the logits' divisor (below 1 sharper, above 1 flatter)")
      ->capture_default_str()
      ->check(positive_number())
      ->group("Generation");
  cmd->add_option("--top-p", c.how.top_p,
                  "With --sample: draw only from the most likely tokens whose probabilities "
                  "first sum to P (nucleus sampling)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0))
      ->group("Generation");
  cmd->add_option("--seed", c.how.seed,
                  "With --sample: the random seed (same seed, same text, on every machine)")
      ->capture_default_str()
      ->group("Generation");
  cmd->add_option("--stop", c.stop,
                  "Stop generating once the continuation contains this text")
      ->check(non_empty())
      ->needs(generate)
      ->group("Generation");
  cmd->add_option("--max-new", c.max_new,
                  "Encoder-decoder models without a target: stop the greedy translation after "
                  "this many tokens (or at the end token)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000))
      ->group("Input");
  cmd->add_option("--stack", f->stack,
                  "Encoder-decoder models: the attention --view draws: encoder, decoder "
                  "(self-attention, every view) or cross (target rows, source columns: head, "
                  "mean, max, alignment); the --html page holds all three and opens on this one")
      ->check(one_of(names_of(seq2seq_stack_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_option("--align", c.align_path,
                  "Encoder-decoder models: write the word alignment the cross attention over "
                  "--layers x --heads implies, in Pharaoh format (i-j: source word i, target "
                  "word j, from 0), as fast_align and awesome-align write it")
      ->type_name("FILE")
      ->group("Output");
  cmd->add_option("--align-method", f->align_method,
                  "argmax: each target word to its most attended source word; argmax-null: the "
                  "same unless the row's weight on the special tokens (</s>) is larger, the word "
                  "then unaligned (the bundled models' guided head gives such NULL links); "
                  "intersect: only the pairs where the source word's most attended target word "
                  "agrees")
      ->check(one_of({"argmax", "argmax-null", "intersect"}))
      ->capture_default_str()
      ->group("Output");
  cmd->add_option("--gold", c.gold_path,
                  "Encoder-decoder models: score the alignment against this gold one (one "
                  "Pharaoh line: i-j sure, i?j or i-j-P possible): precision, recall and "
                  "alignment error rate (Och & Ney 2003)")
      ->type_name("FILE")
      ->group("Output");
  cmd->add_option("--max-memory", f->max_memory,
                  "Stop before starting when the run would need more than this (e.g. 512M, 16G): "
                  "the maps the outputs keep in memory (n x n floats each: what the view reads, "
                  "or all of them for --json and --html), their JSON, the forward itself")
      ->capture_default_str()
      ->group("Input");
  cmd->add_option("--measure", f->measure,
                  "What the maps show, in every view, --json and --html: weights (the attention "
                  "weights a_ij); norms (Kobayashi et al. 2020: a_ij |f(x_j)|, how long the "
                  "vector key j adds to query i's output is, f(x) = (x W_V + b_V) W_O per head, "
                  "each row scaled to sum to 1; --npy norms.npy, norms_layer.npy); contrib "
                  "(Kobayashi et al. 2021: how long what key j brings to query i's result is "
                  "once the residual and the layer's norm are counted, one map per layer shown "
                  "for each of its heads, each row scaled to sum to 1; rollout chains it with no "
                  "extra identity; --npy contrib.npy); alti (Ferrando et al. 2022: how close "
                  "that vector is to query i's result by the L1 distance, max(0, |y_i|1 - "
                  "|y_i - T_i(x_j)|1), per layer like contrib; --npy alti.npy and "
                  "alti_rollout.npy, the layers chained); value-zeroing (Mohebbi et al. 2023: "
                  "how far query i's output of the whole layer turns, 1 - cos, when key j's "
                  "value vector is set to 0 and the layer runs again, per layer like contrib; "
                  "n + 1 runs of every layer, so for short texts: the longest that fits is "
                  "named; --npy value_zeroing.npy). Decoder-only and encoder models; "
                  "encoder-decoder models: the cross attention with norms, every stack with "
                  "contrib, alti (and ALTI+'s source shares) and value-zeroing. --npy still "
                  "writes the weights to "
                  "attention.npy and adds the measure's arrays")
      ->check(one_of(measure_names()))
      ->capture_default_str()
      ->group("Figure");
  cmd->add_flag("--logit-lens", c.logit_lens,
                "The logit lens: each layer's input read as if it were the last (through the "
                "final norm and the output embeddings), at every position: printed for the "
                "prediction rows (the top token per layer, its probability, the rank of the "
                "model's own prediction; printed like the predictions, also when a figure or "
                "file is written); --json adds every position's top --top-k tokens per "
                "layer, --npy logit_lens.npy, logit_lens_prob.npy and logit_lens_rank.npy. "
                "Encoder-decoder models: the decoder's layers at every target row, printed as a "
                "table (--view logit-lens --stack decoder draws it; decoder_logit_lens*.npy)")
      ->group("Output");
  add_maps_view_flags(*cmd, c.choice, f->view);
  cmd->add_flag("--name-heads", c.name_heads,
                "Caption the model view's thumbnails (and the --html grid) with what the head finder sees (previous, "
                "first, induction, self; see attn-viz heads)")
      ->group("Figure");
  cmd->add_option("--top-k", c.top_k,
                  "Print the K most likely next tokens after the last one (causal models) or the "
                  "fillers of each [MASK] (BERT), with probabilities")
      ->check(CLI::Range(1, 1000))
      ->group("Output");
  add_output_flags(*cmd, c.out,
                   {{output_kind::json,
                     "Write tokens, ids, the model's sizes and every layer's "
                     "heads' weights as JSON"},
                    {output_kind::png},
                    {output_kind::svg},
                    {output_kind::html,
                     "Write one page to explore every layer and head offline: "
                     "the model view's grid (click a head to open it), layer "
                     "and head selectors, hover for the weights (with "
                     "--measure: the weights and the measure's maps behind a "
                     "Measure selector)"},
                    {output_kind::npy,
                     "Write attention.npy [layers, heads, n, n] (as the "
                     "forward makes it, never all in memory), received.npy, "
                     "token_ids.npy and tokens.json into this folder (made if "
                     "missing)"}});
  cmd->add_option("--npy-layers", c.npy_layers,
                  "The layers attention.npy holds, e.g. 0,5-7 [default: all] (a long text's "
                  "maps take n x n x 4 bytes each)")
      ->group("Output");
  cmd->add_option("--npy-heads", c.npy_heads,
                  "The heads attention.npy holds, e.g. 0-3 [default: all]")
      ->group("Output");
  cmd->add_flag("--quiet,-q", f->quiet, "No progress bar on stderr")->group("Output");
  cmd->add_option("--images", f->images.list,
                  "Vision models: a list of pictures, one path a line (relative to the list's "
                  "folder), each run as --image would, the model loaded once")
      ->type_name("LIST")
      ->group("Batch");
  cmd->add_option("--out-dir,-o", f->images.out_dir,
                  "With --images: the folder for each picture's files (NNNN-name.png etc., "
                  "NNNN the line number) and index.json")
      ->type_name("DIR")
      ->group("Batch");
  cmd->add_option("--formats", f->formats,
                  "With --images: what to write per picture, from png, json, svg, npy, html")
      ->capture_default_str()
      ->group("Batch");
  cmd->add_flag("--resume", f->images.resume,
                "With --images: skip the pictures an earlier run of the same batch finished "
                "(its journal in --out-dir), so a killed run picks up where it stopped")
      ->group("Batch");

  return [f, cmd] {
    model_job_config job = f->job;
    if (f->images.list.empty()) {
      for (const char* flag : {"--out-dir", "--formats", "--resume"})
        if (cmd->count(flag)) throw usage_error(fmt::format("{} needs --images LIST", flag));
    }
    if (job.text.empty() && f->ids.empty() && job.image.empty() && f->images.list.empty())
      throw usage_error(
          "give the text (--text), the token ids (--ids) or, for a vision "
          "model, a picture (--image)");
    resolve_text_or_ids(job.text, f->ids, job.ids);
    if (!f->target_ids.empty()) job.target_ids = parse_ids(f->target_ids, "target-ids");
    job.stack = value_of(seq2seq_stack_names, f->stack, "--stack");
    job.term = f->view.term;
    job.method = f->align_method == "intersect"     ? align_method::intersect
                 : f->align_method == "argmax-null" ? align_method::argmax_null
                                                    : align_method::argmax;
    resolve_maps_view(f->view, job.choice);
    job.measure = &measure_named(f->measure, "--measure");
    job.max_memory = memory_limit(f->max_memory, "--max-memory");
    if (f->quiet) job.progress = job.choice.progress = progress_style::quiet;
    if (!f->images.list.empty()) return run_images_command(*cmd, *f, std::move(job));
    // nothing asked for: the most likely next tokens (or [MASK] fillers), and what to ask for
    const bool nothing_asked = !job.out.any() && !f->view.term && job.top_k == 0 &&
                               !job.logit_lens && job.generate == 0 && !job.name_heads &&
                               job.align_path.empty() && job.gold_path.empty();
    if (nothing_asked) job.top_k = 5, job.top_k_if_possible = true;
    // the continuation as it comes: on stdout, unless an output takes it
    const job_outputs& o = job.out;
    std::FILE* text_out = stdout;
    for (const std::string* p : {&o.json, &o.png, &o.svg, &o.html, &o.pdf})
      if (*p == stdout_name) text_out = stderr;
    if (job.generate > 0)
      job.on_text = [text_out](const std::string& piece) {
        fmt::print(text_out, "{}", piece);
        std::fflush(text_out);
      };
    const model_report r = run_model_job(job);
    if (r.prompt > 0) fmt::print(text_out, "\n");
    print_warnings(r.warnings);
    std::FILE* out = summary_stream(r.written);
    if (r.encoder_decoder) {
      fmt::print(out, "{} · {} source tokens · {} target tokens{}\n", model_summary(r.config),
                 r.ids.size(), r.seq2seq.nt, r.generated ? " (generated)" : "");
      if (r.generated) fmt::print(out, "{}\n", r.generated_text);
      if (r.measured && !r.measured->source_share.empty()) print_source_shares(out, r);
      if (r.lens && job.logit_lens) print_decoder_lens(out, r);
      if (r.gold_scores)
        fmt::print(out,
                   "alignment ({}): precision {:.3f}, recall {:.3f}, AER {:.3f} ({} pairs "
                   "predicted, {} of them sure or possible in the gold; {} of its {} sure pairs "
                   "found)\n",
                   f->align_method, r.gold_scores->precision(), r.gold_scores->recall(),
                   r.gold_scores->aer(), r.gold_scores->predicted, r.gold_scores->hit_possible,
                   r.gold_scores->hit_sure, r.gold_scores->sure);
      if (f->view.term) {
        const seq2seq_maps maps{&r.seq2seq, r.tokens, r.target_tokens,
                                folder_name(job.model_dir), model_summary(r.config)};
        print_view_term(stack_source(maps, job.stack), job.choice);
      }
      print_written(r.written);
      if (nothing_asked) print_model_outputs_hint(out, job.model_dir);
      return 0;
    }
    if (r.prompt > 0)
      fmt::print(out, "{} · {} prompt tokens + {} generated{}\n", model_summary(r.config), r.prompt,
                 r.ids.size() - r.prompt, r.ended ? " (ended at the end token)" : "");
    else if (r.image)
      fmt::print(out, "{} · {} tokens (CLS … and {} × {} patches of a {} × {} picture)\n",
                 model_summary(r.config), r.ids.size(), r.image->grid.rows, r.image->grid.cols,
                 r.image->pixels.width, r.image->pixels.height);
    else
      fmt::print(out, "{} · {} tokens\n", model_summary(r.config), r.ids.size());
    const bool byte_level = is_byte_level_sequence(r.tokens);
    for (const auto& p : r.predictions) {
      if (r.image)
        fmt::print(out, "classes ({}):\n",
                   r.config.vision.head == vision_head::cls_distilled
                       ? "CLS and DIST heads averaged"
                       : "the classifier");
      else
        fmt::print(out, "after position {} ({}):\n", p.position,
                   display_token(r.tokens[p.position], byte_level));
      for (std::size_t i = 0; i < p.top.size(); ++i)
        fmt::print(out, "  {:>2}. {:<20} {:>8}  p = {:.4f}\n", i + 1,
                   r.image ? p.top_tokens[i] : display_token(p.top_tokens[i], byte_level),
                   p.top[i].first, p.top[i].second);
    }
    if (r.lens) print_logit_lens(out, r, byte_level);
    if (f->view.term) print_view_term(model_maps_source(r, job), job.choice);
    print_written(r.written);
    if (nothing_asked && r.image)
      fmt::print(out,
                 "nothing written. To see the attention over the picture: --png FILE "
                 "(--view overlay, model, rollout, received …), --html FILE (every head "
                 "over it), --npy DIR (cls_map.npy and the maps)\n");
    else if (nothing_asked)
      print_model_outputs_hint(out, job.model_dir);
    return 0;
  };
}

}  // namespace attnviz::cli
