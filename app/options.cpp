#include "options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <set>

#include "attention/registry.h"
#include "error.h"
#include "jobs/demo_job.h"
#include "jobs/memory_guard.h"
#include "jobs/model_job.h"
#include "render/colormap.h"
#include "suggest.h"
#include "text/embedding_cache.h"

namespace attnviz::cli {
namespace {

template <class Entries>
std::string joined_names(const Entries& entries) {
  std::vector<std::string_view> names;
  for (const auto& e : entries) names.push_back(e.info.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator v(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double x = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || *end != '\0' || !(x > 0.0) || !std::isfinite(x))
          return fmt::format("must be a number above 0, got {}", value);
        return {};
      },
      "POSITIVE", "positive");
  return v;
}

const CLI::Validator& non_empty() {
  static const CLI::Validator v(
      [](std::string& value) -> std::string {
        return value.empty() ? "must not be empty (leave the flag out instead)" : "";
      },
      "", "non-empty");
  return v;
}

void add_input_flags(CLI::App& cmd, common_flags& f) {
  auto& c = f.input;
  cmd.add_option("--text,-t", c.text,
                 "Sentence for self-attention (queries = keys = values = its tokens); - reads "
                 "standard input. Chinese/Japanese without spaces becomes one token per "
                 "character (said on stderr): give words with --tokens")
      ->group("Input");
  cmd.add_option("--tokens", c.tokens,
                 "Pre-tokenised sentence, space-separated, taken as is (instead of --text)")
      ->group("Input");
  add_pair_flags(cmd, f, "Source sentence for cross attention: keys and values",
                 "Target sentence for cross attention: queries");
  cmd.add_option("--values", c.values,
                 "Memory view (keys != values): the values come from this sentence, one token "
                 "per key, while the weights come from the keys")
      ->group("Input");
  add_embedding_flags(cmd, f);
}

void add_pair_flags(CLI::App& cmd, common_flags& f, const char* source_help,
                    const char* target_help) {
  cmd.add_option("--source", f.input.source, source_help)->group("Input");
  cmd.add_option("--target", f.input.target, target_help)->group("Input");
}

void add_subword_flag(CLI::App& cmd, common_flags& f) {
  auto& c = f.input;
  cmd.add_flag("--merge-subwords", c.merge_subwords,
               "Sub-word pieces (--tokens \"play ##ing\", \"▁play ing\", \"Ġplay ing\") become "
               "words: a word's weight sums over its key pieces and averages over its query "
               "pieces (rows still sum to 1); pieces are looked up without their mark")
      ->group("Input");
}

void add_embedding_flags(CLI::App& cmd, common_flags& f) {
  auto& c = f.input;
  cmd.add_flag("--keep-case", c.keep_case,
               "Keep upper case in tokens (look-up still falls back to lower case)")
      ->group("Input");
  cmd.add_option("--embeddings,-e", c.embeddings,
                 "Word vectors: GloVe / word2vec text / fastText .vec, word2vec binary, any of "
                 "them .gz (told apart by content); read until every token is found "
                 "[default: the bundled samples/glove.6B.50d.sample.txt]")
      ->type_name("FILE")
      ->group("Input");
  cmd.add_flag("--cache", f.cache,
               "Keep a binary copy of the whole embedding file (first run: reads and checks all "
               "of it) so later runs look tokens up without reading it; rebuilt when the file "
               "changes. In $ATTNVIZ_CACHE_DIR, else $XDG_CACHE_HOME/attn-viz, else "
               "~/.cache/attn-viz")
      ->group("Input");
  cmd.add_option("--cache-dir", f.cache_dir, "--cache, in this folder (made if missing)")
      ->type_name("DIR")
      ->group("Input");
  cmd.add_option("--oov", f.oov,
                 "Tokens not in the vocabulary: hash (deterministic vector per token, scaled like "
                 "the file's), zero, or error")
      ->check(one_of(names_of(oov_policy_names)))
      ->capture_default_str()
      ->group("Input");
  cmd.add_option("--max-memory", f.max_memory,
                 "Stop before starting when the run would need more memory than this "
                 "(estimated from the token counts; e.g. 512M, 16G)")
      ->capture_default_str()
      ->group("Input");
}

namespace {

// --score --align --context --temperature --hard --window --mask --pad-keys --sharpen
void add_stage_flags(CLI::App& cmd, common_flags& f) {
  auto& s = f.spec;
  cmd.add_option("--score,-s", s.score,
                 fmt::format("Stage 1, e_ij = score(q_i, k_j): {} (aliases such as bahdanau, "
                             "luong-general work; see 'attn-viz list')",
                             joined_names(score_registry())))
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--align,-a", s.align,
                 fmt::format("Stage 2, a_i = align(e_i): {}", joined_names(align_registry())))
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--context,-c", s.context,
                 fmt::format("Stage 3, c_i = context(a_i, V): {}",
                             joined_names(context_registry())))
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--temperature", s.temperature,
                 "Softmax temperature tau > 0: below 1 sharpens, above 1 flattens")
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--hard", f.hard,
                 "Hard context: sample j* from a_i with --seed, or take the argmax")
      ->check(one_of(names_of(hard_mode_names)))
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--window", s.window,
                 "Half-width D of the window of local-m and local-p alignments (keys with "
                 "|j - p_i| <= D)")
      ->check(CLI::Range(1, 1 << 20))
      ->group("Variant");
  cmd.add_option("--mask", f.masks,
                 "Hide keys before alignment, comma-separated: causal (j <= i), window:R "
                 "(|i-j| <= R), dilated:K (|i-j| mod K = 0); masked weights are exactly 0")
      ->group("Variant");
  cmd.add_option("--pad-keys", f.pad_keys, "Key positions to mask as padding (0-based), e.g. 7,8")
      ->delimiter(',')
      ->group("Variant");
  cmd.add_option("--sharpen", s.sharpen, "Cosine score's sharpening factor beta")
      ->capture_default_str()
      ->group("Variant");
}

// --project --heads --dk --combine --position --alibi-slope --convs2s --da
void add_head_flags(CLI::App& cmd, common_flags& f) {
  auto& s = f.spec;
  cmd.add_flag("--project", s.project,
               "Apply learned projections W_Q, W_K, W_V before scoring (seeded or --params)")
      ->group("Variant");
  cmd.add_option("--heads,-H", s.heads,
                 "Multi-head attention with H heads: per-head projections (implies --project), "
                 "each head drawn with their mean, and the combined output W^O in the JSON "
                 "(0: one attention, no W^O)")
      ->check(CLI::Range(0, 1024))
      ->group("Variant");
  cmd.add_option("--dk", s.d_k,
                 "Per-head projection size d_k = d_v [default: d_model / heads, or d_model]")
      ->check(CLI::Range(1, 65536))
      ->group("Variant");
  cmd.add_option("--combine", f.combine,
                 "How heads become the output: concat (concat(heads) W^O) or weighted "
                 "(Weighted Transformer: normalised learned shares kappa_h per head)")
      ->check(one_of(names_of(head_combine_names)))
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--position,-p", f.position,
                 "Word order: none, sinusoidal (added to the embeddings), rope (rotates q and "
                 "k), alibi (-m|i-j| added to the scores); the relative score is --score relative")
      ->capture_default_str()
      ->group("Variant");
  cmd.add_option("--alibi-slope", s.alibi_slope,
                 "ALiBi slope m of the first head; head h uses m^h [default: 2^(-8/heads), the "
                 "paper's: one head gets 2^-8 = 0.0039, a faint bias over short texts]")
      ->check(positive_number())
      ->group("Variant");
  cmd.add_flag("--convs2s", s.convs2s,
               "ConvS2S values: v_j = z_j + e_j, the keys plus the input embeddings")
      ->group("Variant");
  cmd.add_option("--da", s.d_a, "Hidden size d_a of additive / concat scores [default: d_k]")
      ->check(CLI::Range(1, 65536))
      ->group("Variant");
}

// --seed --params --params-prefix
void add_parameter_flags(CLI::App& cmd, common_flags& f) {
  auto& s = f.spec;
  cmd.add_option("--seed", s.seed,
                 "Seed for every parameter (Xavier-uniform, biases 0) and for hard sampling")
      ->capture_default_str()
      ->group("Parameters");
  cmd.add_option("--params", f.params_in,
                 "Load parameters from a safetensors file instead of seeding them "
                 "(names: score.W, score.W_q, score.W_k, score.v, score.b, q_proj.weight, "
                 "…, or in_proj_weight)")
      ->type_name("FILE")
      ->group("Parameters");
  cmd.add_option("--params-prefix", f.params_prefix,
                 "Take one attention layer of a larger checkpoint: the tensors under PREFIX, "
                 "named as torch nn.MultiheadAttention (in_proj_weight), Hugging Face BERT "
                 "(query/key/value.weight, output.dense.weight), GPT-2 (c_attn.weight, Conv1D) "
                 "or attn-viz; e.g. bert.encoder.layer.0.attention.")
      ->type_name("PREFIX")
      ->group("Parameters");
}

}  // namespace

void add_variant_flags(CLI::App& cmd, common_flags& f) {
  add_stage_flags(cmd, f);
  add_head_flags(cmd, f);
  add_parameter_flags(cmd, f);
}

void add_crop_flags(CLI::App& cmd, std::string& rows, std::string& cols) {
  cmd.add_option("--rows", rows,
                 "Draw only these query rows, from 0: a range or a list, e.g. 3-10 or 0,4-7 "
                 "(in the PNG, SVG, PDF and terminal; --json, --npy and --html keep every row) "
                 "[default: all]")
      ->type_name("LIST")
      ->group("Figure");
  cmd.add_option("--cols", cols,
                 "Draw only these key columns, from 0, e.g. 0-20 [default: all]")
      ->type_name("LIST")
      ->group("Figure");
}

void add_title_flags(CLI::App& cmd, std::string& title, bool& no_title) {
  cmd.add_option("--title", title,
                 "The figure's title instead of the automatic one (the subtitle stays)")
      ->type_name("TEXT")
      ->group("Figure");
  cmd.add_flag("--no-title", no_title,
               "No title and no subtitle (for a figure whose caption lives elsewhere)")
      ->group("Figure");
}

void resolve_title_flags(const std::string& title, bool no_title, view_options& view) {
  if (!title.empty() && no_title)
    throw usage_error("--title and --no-title: give one of them");
  if (!title.empty()) view.title = title;
  view.no_title = no_title;
}

void add_view_flags(CLI::App& cmd, common_flags& f, bool crop) {
  cmd.add_option("--show", f.show,
                 "Matrix to draw: weights a_ij (sequential colours) or scores e_ij (before "
                 "alignment; diverging colours centred on 0)")
      ->check(one_of(names_of(shown_matrix_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--head-view", f.head_view,
                 "With several heads: grid (every head and their mean), mean, max (element-wise "
                 "over heads), or one head by number (heads count from 0, as in every figure, "
                 "flag and JSON)")
      ->capture_default_str()
      ->group("Figure");
  if (crop) add_crop_flags(cmd, f.rows, f.cols);
  f.grids = true;
  add_look_flags(cmd, f);
}

void add_colour_flags(CLI::App& cmd, std::string& scale, std::string& vmin, std::string& vmax,
                      bool grids) {
  cmd.add_option("--scale", scale,
                 std::string("Colour scale: linear, log (decades; 0 takes the first colour) or "
                             "power=G (G < 1 gives small weights more colours, e.g. power=0.5)") +
                     (grids ? "; with several panels also shared (one range for all) or panel "
                              "(each its own), comma-separated: log,panel [default: "
                              "linear,shared]"
                            : " [default: linear]"))
      ->type_name("SCALE")
      ->group("Figure");
  cmd.add_option("--vmin", vmin,
                 "Value of the colour bar's first colour; lower values take it too [default: "
                 "0, or the smallest value when below 0; log: the decade of the smallest value "
                 "above 0, at most 4 decades under --vmax]")
      ->type_name("X")
      ->group("Figure");
  cmd.add_option("--vmax", vmax,
                 "Value of the colour bar's last colour; higher values take it too [default: "
                 "the round number (1, 2, 2.5, 5 x 10^k) at or above the largest value]")
      ->type_name("X")
      ->group("Figure");
}

colour_scale resolve_colour_flags(const std::string& scale, const std::string& vmin,
                                  const std::string& vmax, scale_mode* range) {
  colour_scale c;
  parse_scale_words(scale, c, range);
  c.lo = parse_range_end(vmin, "vmin");
  c.hi = parse_range_end(vmax, "vmax");
  check_colour_scale(c);
  return c;
}

void add_look_flags(CLI::App& cmd, common_flags& f) {
  std::vector<std::string> names;
  for (const auto& c : colormap_registry()) names.emplace_back(c.name);
  cmd.add_option("--cmap", f.cmap,
                 fmt::format("Colormap: {} [default: viridis for weights, rdbu for scores]",
                             fmt::join(names, ", ")))
      ->group("Figure");
  add_colour_flags(cmd, f.scale, f.vmin, f.vmax, f.grids);
  cmd.add_option("--annotate", f.annotate,
                 "Write each cell's value in it: auto (when every value fits its cell), on, off")
      ->check(one_of(names_of(annotate_mode_names)))
      ->capture_default_str()
      ->group("Figure");
  cmd.add_option("--cell", f.cell,
                 "Cell size in pixels; labels grow with it (2x from 80 px) [default: 20-48 by "
                 "token count]")
      ->check(CLI::Range(1, 256))
      ->group("Figure");
  add_title_flags(cmd, f.title, f.no_title);
}

namespace {

struct output_flag {
  output_kind kind;
  const char* flag;
  std::string job_outputs::*path;
  const char* type;
  const char* help;    // used when the command gives none
  const char* suffix;  // added to every help
};

constexpr output_flag output_flags[] = {
    {output_kind::json, "--json", &job_outputs::json, "FILE", "Write the numbers as JSON",
     " (- for standard output)"},
    {output_kind::png, "--png", &job_outputs::png, "FILE",
     "Write the figure as PNG (any output FILE may be -: standard output)", ""},
    {output_kind::svg, "--svg", &job_outputs::svg, "FILE",
     "Write the same figure as SVG (text stays text: crisp at any zoom)", ""},
    {output_kind::html, "--html", &job_outputs::html, "FILE",
     "Write one self-contained page (no network)", ""},
    {output_kind::params, "--params-out", &job_outputs::params, "FILE",
     "Write every parameter used (safetensors)", ""},
    {output_kind::npy, "--npy", &job_outputs::npy_dir, "DIR",
     "Write the maps as NumPy float32 arrays into this folder (made if missing)", ""},
};

}  // namespace

void add_output_flags(CLI::App& cmd, job_outputs& out, std::initializer_list<output_help> kinds) {
  for (const output_help& k : kinds)
    for (const output_flag& row : output_flags) {
      if (row.kind != k.kind) continue;
      cmd.add_option(row.flag, out.*row.path,
                     std::string(k.help ? k.help : row.help) + row.suffix)
          ->type_name(row.type)
          ->group("Output");
    }
  const auto has = [&](output_kind kind) {
    return std::any_of(kinds.begin(), kinds.end(),
                       [kind](const output_help& k) { return k.kind == kind; });
  };
  if (has(output_kind::png)) {  // every figure also goes to PDF
    cmd.add_option("--pdf", out.pdf,
                   "Write the same figure as PDF (vector, its text drawn from the bundled font: "
                   "looks the same in every viewer and editor)")
        ->type_name("FILE")
        ->group("Output");
    cmd.add_option("--dpi", out.dpi,
                   "The figure's physical size: pixels per inch, written into the PNG (pHYs), "
                   "the SVG (size in inches) and the PDF page [default: PNG/SVG none, PDF 96]")
        ->check(CLI::Range(1, 10000))
        ->group("Output");
  }
  if (has(output_kind::svg))
    cmd.add_option_function<std::string>(
           "--svg-text",
           [&out](const std::string& v) { out.text = v == "paths" ? svg_text::paths : svg_text::glyphs; },
           "SVG text: glyphs (<text>, searchable; the viewer's font, Unifont metrics) or paths "
           "(the bundled font's pixels: the same everywhere, CJK included) [default: glyphs]")
        ->check(one_of({"glyphs", "paths"}))
        ->type_name("HOW")
        ->group("Output");
}

std::vector<std::string> output_flag_names() {
  std::vector<std::string> names;
  for (const output_flag& row : output_flags) names.emplace_back(row.flag);
  names.emplace_back("--pdf");
  return names;
}

std::uint64_t resolve_max_memory(const common_flags& f) {
  return memory_limit(f.max_memory, "--max-memory");
}

void resolve_text_or_ids(std::string& text, const std::string& ids_flag,
                         std::vector<std::int64_t>& ids) {
  if (!ids_flag.empty()) ids = parse_ids(ids_flag);
  if (text == "-") {
    text = read_stdin();
    if (text.empty()) throw usage_error("--text -: standard input is empty");
  }
}

void refuse_given(const std::vector<CLI::Option*>& options, const char* why) {
  for (const CLI::Option* o : options)
    if (o->count() > 0) throw usage_error(fmt::format("{} {}", o->get_name(), why));
}

std::string read_stdin() {
  std::string all((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  return all;
}

input_config resolve_input(const common_flags& f) {
  input_config c = f.input;
  // "-" reads the sentence from standard input (for long texts; argv holds 128 KiB at most)
  for (std::string* s : {&c.text, &c.tokens, &c.source, &c.target, &c.values})
    if (*s == "-") *s = read_stdin();
  c.oov = value_of(oov_policy_names, f.oov, "--oov");
  if (c.embeddings.empty()) c.embeddings = find_samples_dir() + "/glove.6B.50d.sample.txt";
  c.cache_dir = !f.cache_dir.empty() ? f.cache_dir : f.cache ? default_cache_dir() : "";
  return c;
}

attention_spec resolve_spec(const common_flags& f) {
  attention_spec s = f.spec;
  s.hard = value_of(hard_mode_names, f.hard, "--hard");
  s.masks.rules = parse_masks(f.masks);
  s.masks.pad_keys = f.pad_keys;
  s.position = parse_position(f.position);
  s.combine = value_of(head_combine_names, f.combine, "--combine");
  return s;
}

void resolve_job(const common_flags& f, attention_job& job) {
  job.input = resolve_input(f);
  job.spec = resolve_spec(f);
  job.params_in = f.params_in;
  job.params_prefix = f.params_prefix;
  job.view = resolve_view(f);
  job.max_memory = resolve_max_memory(f);
}

view_options resolve_view(const common_flags& f) {
  view_options v;
  v.show = parse_shown_matrix(f.show);
  v.annotate = parse_annotate_mode(f.annotate);
  v.cmap = f.cmap;
  v.cell = f.cell;
  v.heads = parse_head_view(f.head_view);
  v.colours = resolve_colour_flags(f.scale, f.vmin, f.vmax, f.grids ? &v.range : nullptr);
  resolve_title_flags(f.title, f.no_title, v);
  v.rows = f.rows;
  v.cols = f.cols;
  return v;
}

// What shapes a batch's files, for its journal: every flag given to the command and to attn-viz
// itself, with its values, except those that only say where, how loud or how fast.
std::vector<std::string> batch_settings(const CLI::App& cmd) {
  static const std::set<std::string> ignored = {"--resume",  "--quiet",  "--input",   "--images",
                                                "--out-dir", "--strict", "--threads", "--help"};
  std::vector<std::string> settings;
  for (const CLI::App* app : {cmd.get_parent(), &cmd})
    for (const CLI::Option* opt : app->get_options()) {
      if (opt->count() == 0 || ignored.count(opt->get_name())) continue;
      std::string s = opt->get_name();
      for (const auto& v : opt->results()) s += '\0' + v;
      settings.push_back(std::move(s));
    }
  std::sort(settings.begin(), settings.end());
  return settings;
}

}  // namespace attnviz::cli
