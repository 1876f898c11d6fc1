#include "jobs/model_job.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>

#include "attnviz/version.h"
#include "error.h"
#include "io/npy.h"
#include "jobs/generation_job.h"
#include "jobs/heads_job.h"
#include "jobs/logit_lens_outputs.h"
#include "jobs/model_keep.h"
#include "jobs/received_rollout.h"
#include "jobs/seq2seq_job.h"
#include "model/hf_model.h"
#include "render/model_page.h"
#include "render/picture_page.h"
#include "tokenizers/model_tokenizer.h"
#include "tokenizers/token_display.h"
#include "tokenizers/vocabulary.h"

namespace attnviz {

namespace {

// attention.npy: streamed by the keeper, or (a generation) the chosen maps from the forward's.
void add_attention_npy(output_batch& batch, const std::string& path, const model_report& r,
                       const std::vector<std::size_t>& layers,
                       const std::vector<std::size_t>& heads) {
  if (r.weights_keeper) {
    batch.add_streamed(path, r.weights_keeper->file());
    return;
  }
  const model_forward& f = r.forward;
  const std::size_t nn = f.n * f.n;
  std::vector<float> chosen_maps;
  chosen_maps.reserve(layers.size() * heads.size() * nn);
  for (const std::size_t l : layers)
    for (const std::size_t h : heads) chosen_maps.insert(chosen_maps.end(), f.map(l, h), f.map(l, h) + nn);
  batch.add(path, npy_float32({layers.size(), heads.size(), f.n, f.n}, chosen_maps.data()));
}

void add_npy(output_batch& batch, const std::string& dir, const model_report& r,
             const model_job_config& c) {
  namespace fs = std::filesystem;
  const model_forward& f = r.forward;
  if (computes_map(c.choice.view))
    batch.add((fs::path(dir) / "view.npy").string(), view_npy(model_maps_source(r, c), c.choice));
  if (r.prompt > 0)
    batch.add((fs::path(dir) / "generation.json").string(), generation_json(r, c, 1) + "\n");
  const auto layers = chosen(c.npy_layers, f.layers, "npy_layers", "layer");
  const auto heads = chosen(c.npy_heads, f.heads, "npy_heads", "head");
  add_attention_npy(batch, (fs::path(dir) / "attention.npy").string(), r, layers, heads);
  batch.add((fs::path(dir) / "attention_maps.json").string(),
            nlohmann::json{{"layers", layers}, {"heads", heads}}.dump() + "\n");
  batch.add((fs::path(dir) / "received.npy").string(),
            npy_float32({f.layers, f.heads, f.n}, r.received.data()));
  if (r.measure)
    for (const streamed_npy* a : r.measure->arrays()) batch.add_streamed(a->path(), a->file());
  if (r.lens) add_logit_lens_npy(batch, dir, *r.lens);
  if (r.image) {
    const patch_grid& g = r.image->grid;
    batch.add((fs::path(dir) / "cls_map.npy").string(),
              npy_float32({f.layers, f.heads, g.rows, g.cols}, r.cls_map.data()));
    const pixel_tensor& px = r.image->pixels;
    batch.add((fs::path(dir) / "pixels.npy").string(),
              npy_float32({3, px.height, px.width}, px.chw.data()));
  } else {
    batch.add((fs::path(dir) / "token_ids.npy").string(), npy_int64({r.ids.size()}, r.ids.data()));
  }
  batch.add((fs::path(dir) / "hidden.npy").string(),
            npy_float32({f.hidden.rows(), f.hidden.cols()}, f.hidden.data()));
  batch.add((fs::path(dir) / "tokens.json").string(),
            nlohmann::json(r.tokens).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
}

// The rows to predict from: after the last token (causal), or each [MASK] (BERT).
std::vector<std::size_t> prediction_rows(const model_report& r) {
  if (r.config.causal) return {r.ids.size() - 1};
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < r.tokens.size(); ++i)
    if (r.tokens[i] == "[MASK]" || r.tokens[i] == "<mask>") rows.push_back(i);
  return rows;
}

// The flags that only a generation reads, refused without --generate; --generate refused where
// it cannot run. n: the most rows the run may have.
void check_generation_flags(const model_job_config& c, const model_config& m) {
  const bool flags = c.how.sample || !c.stop.empty() || c.how.temperature != 1.0 ||
                     c.how.top_p != 1.0 || c.how.seed != 0;
  if (c.generate == 0) {
    if (flags)
      throw usage_error(fmt::format("{}, {}, {}, {} and {} shape a generation: add {} N",
                                    param("sample"), param("temperature"), param("top-p"),
                                    param("seed"), param("stop"), param("generate")));
    if (c.choice.view == maps_view::generation)
      throw usage_error(fmt::format("{} generation draws what {} N generated: add it",
                                    param("view"), param("generate")));
    return;
  }
  if (m.encoder_decoder)
    throw usage_error(fmt::format("{} continues a decoder-only model's text; {} is an "
                                  "encoder–decoder model: it generates without {}, up to {} "
                                  "tokens",
                                  param("generate"), c.model_dir, param("target"),
                                  param("max-new")));
  if (!m.causal)
    throw usage_error(fmt::format("{} continues a causal model's text; {} ({}) is not causal",
                                  param("generate"), c.model_dir, m.model_type));
  if (!c.how.sample && (c.how.temperature != 1.0 || c.how.top_p != 1.0 || c.how.seed != 0))
    throw usage_error(fmt::format("{}, {} and {} shape sampling: add {} (without it the most "
                                  "likely token is taken)",
                                  param("temperature"), param("top-p"), param("seed"),
                                  param("sample")));
  if (c.top_k > 0 || c.name_heads)
    throw usage_error(fmt::format("{} and {} read a fixed text; run them on the generated text "
                                  "with {}",
                                  param("top-k"), param("name-heads"), param("text")));
}

// --measure and --logit-lens: a measure other than the weights, and the lens, read one forward
// of a decoder-only or encoder model over a fixed text; a measure feeds every view but
// received-rollout (which recomputes the weights layer by layer from the saved inputs).
void check_measure(const model_job_config& c, const model_config& m) {
  if (wants_logit_lens(c) && c.generate > 0)
    throw usage_error(
        fmt::format("{} reads one forward over a fixed text, not a generation: "
                    "generate first, then run it with {} on the whole text",
                    param("logit_lens"), param("text")));
  if (!c.measure || !c.measure->make || m.encoder_decoder) return;  // (seq2seq_job.cpp's own)
  const std::string_view name = c.measure->name;
  if (c.generate > 0)
    throw usage_error(
        fmt::format("{} {} reads one forward over a fixed text, not a generation: "
                    "generate first, then run {} on the whole text",
                    param("measure"), name, param("text")));
  if (c.choice.view == maps_view::received_rollout)
    throw usage_error(
        fmt::format("{} received-rollout recomputes the weights from each layer's "
                    "input and cannot show {} {}: draw {} received or {} rollout",
                    param("view"), param("measure"), name, param("view"), param("view")));
}

// The view, --name-heads, the page's size and the memory and disk the run takes, before any
// work, for the most rows the run may have (the prompt and what --generate may add); the maps
// the run keeps and writes (a generation keeps them all).
keep_request check_outputs_before_work(const model_config& m, const model_job_config& c,
                                       std::size_t prompt) {
  const std::size_t n = std::min(prompt + c.generate, m.max_positions);
  check_view_choice(c.choice, m.layers, m.heads, n, m.causal, true);
  keep_request plan = plan_keeping(m, c, n);
  if (c.generate > 0) {  // a generation keeps every map: its views read them
    plan.keep.assign(plan.keep.size(), true);
    plan.input_layers.clear();
  }
  if (c.name_heads) {
    if (c.choice.view != maps_view::model && c.out.html.empty())
      throw usage_error(fmt::format("{} captions the model view: add {} model or {}",
                                    param("name_heads"), param("view"), param("html")));
    finder_period(m, 0, c.model_dir);
  }
  if (!c.out.html.empty()) {  // with a measure, the weights beside its maps
    const bool both = c.measure && c.measure->make && !m.encoder_decoder;
    std::vector<page_stack> stacks(both ? 2 : 1);
    for (page_stack& s : stacks) {
      s.layers = m.layers;
      s.heads = m.heads;
      s.n = n;
    }
    check_model_page_size(stacks);
  }
  check_model_memory(m, c, plan);
  if (c.measure && c.measure->check && !m.encoder_decoder)
    c.measure->check(measure_shape_of(m, c, plan));
  const bool measured = c.measure && c.measure->disk_bytes;
  check_model_disk(plan, measured ? c.measure->disk_bytes(measure_shape_of(m, c, plan)) : 0);
  return plan;
}

// --top-k: the most likely tokens at each prediction row (a vision model: classes).
void add_predictions(const hf_model& m, const model_job_config& c, model_report& r) {
  if (r.image) {
    if (c.top_k_if_possible && m.config.vision.head == vision_head::none) return;
    r.predictions.push_back(vision_prediction(m, r.forward.hidden, c.top_k));
    return;
  }
  const std::optional<vocabulary>& vocab = r.vocab.get();
  for (const std::size_t row : prediction_rows(r)) {
    model_prediction p;
    p.position = row;
    try {
      p.top = top_predictions(m, r.forward, row, c.top_k);
    } catch (const input_error&) {  // no LM head: nothing to predict with
      if (c.top_k_if_possible) return;
      throw;
    }
    for (const auto& [id, prob] : p.top)
      p.top_tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
    r.predictions.push_back(std::move(p));
  }
}

// The forward over the report's input: its token ids, or a vision model's picture.
model_forward forward_of(const hf_model& m, const model_report& r, progress_style style,
                         map_taps* taps) {
  if (r.image) return run_model_on_image(m, r.image->pixels, style, nullptr, taps);
  return run_model(m, r.ids, style, nullptr, taps);
}

// The forward with a measure between the kernel and the keeper of the maps the views read
// (lib/measures/measure.h): a second keeper receives the weights themselves, for attention.npy
// and the heads' statistics (none when neither is asked for).
void run_measured_forward(const hf_model& m, const model_job_config& c, keep_request plan,
                          model_report& r) {
  keep_request weights_plan = plan;
  // --html shows the weights beside the measure (a Measure selector): both kept whole
  if (c.out.html.empty()) weights_plan.keep.assign(weights_plan.keep.size(), false);
  weights_plan.input_layers.clear();
  plan.file_layers.clear();
  plan.file_heads.clear();
  plan.file_path.clear();
  plan.measure = false;
  measure_shape shape = measure_shape_of(m.config, c, weights_plan);
  set_layer_output(shape, m);
  array_taps nowhere(nullptr, m.config.heads, shape.n, shape.n);  // no file, no statistics
  if (!weights_plan.file_layers.empty() || weights_plan.measure || !c.out.html.empty())
    r.weights_keeper = std::make_shared<map_keeper>(std::move(weights_plan));
  r.keeper = std::make_shared<map_keeper>(std::move(plan));
  r.measure = c.measure->make(
      shape, *r.keeper, r.weights_keeper ? static_cast<map_taps&>(*r.weights_keeper) : nowhere);
  r.forward = forward_of(m, r, c.progress, r.measure.get());
  if (r.weights_keeper && r.weights_keeper->keeps_all())
    r.weights_attention = r.weights_keeper->take_all();
}

// The forward over r.ids, its maps kept and written as `plan` says (or a generation, which
// keeps them all), and every map's column sums.
void run_forward(const hf_model& m, const model_job_config& c, keep_request plan,
                 model_report& r) {
  if (c.generate > 0) {
    run_generation(m, c, r);
    r.received = column_sums(r.forward.attention.data(), r.forward.layers * r.forward.heads,
                             r.forward.n);
    return;
  }
  if (plan.measure) plan.marked = special_tokens(r.tokens);
  plan.first_rows = r.image != nullptr;
  if (c.measure && c.measure->make) {
    run_measured_forward(m, c, std::move(plan), r);
  } else {
    r.keeper = r.weights_keeper = std::make_shared<map_keeper>(std::move(plan));
    r.forward = forward_of(m, r, c.progress, r.keeper.get());
  }
  if (r.image)
    r.cls_map = cls_maps(r.keeper->first_rows(), r.forward.layers, r.forward.heads, m.config,
                         r.image->grid);
  if (r.keeper->keeps_all()) r.forward.attention = r.keeper->take_all();
  r.received = r.keeper->received();
  if (wants_logit_lens(c)) {
    const layer_inputs& inputs = *r.keeper->inputs();
    r.lens = run_logit_lens(
        m, [&](std::size_t l) { return inputs.load(l); }, r.forward.hidden,
        std::max<std::size_t>(1, c.top_k), c.progress);
    r.lens_positions = prediction_rows(r);
    const std::optional<vocabulary>& vocab = r.vocab.get();
    for (const std::int64_t id : r.lens->top_ids)
      r.lens->tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
  }
  if (!r.keeper->inputs() || c.choice.view != maps_view::received_rollout) return;
  const auto layers = chosen(c.choice.layers, m.config.layers, "layers", "layer");
  r.received_rollout = rolled_out_received(m, *r.keeper->inputs(), layers, c.progress);
}

// A picture for a vision model and nothing a text reads; a text model refuses a picture.
void check_image_flags(const model_job_config& c, const model_config& m) {
  if (!c.text_only_command.empty()) refuse_vision(m, c.model_dir, c.text_only_command);
  if (!m.vision.on) {
    if (!c.image.empty())
      throw usage_error(
          fmt::format("{} reads a picture for a vision model (vit, deit, dinov2); "
                      "{} is a {} model: give it {} or {}",
                      param("image"), c.model_dir, m.model_type, param("text"), param("ids")));
    return;
  }
  if (c.image.empty())
    throw usage_error(fmt::format("{} is a vision model ({}): give it a picture with {}",
                                  c.model_dir, m.model_type, param("image")));
  const std::vector<std::pair<bool, const char*>> text_only{
      {!c.text.empty(), "text"},     {!c.ids.empty(), "ids"},
      {c.generate > 0, "generate"},  {wants_logit_lens(c), "logit_lens"},
      {c.name_heads, "name_heads"},  {!c.align_path.empty(), "align"},
      {!c.gold_path.empty(), "gold"}};
  for (const auto& [given, name] : text_only)
    if (given)
      throw usage_error(
          fmt::format("{} reads a text; {} is a vision model ({}), which reads the "
                      "picture given with {}",
                      param(name), c.model_dir, m.model_type, param("image")));
}

void check_length(std::size_t tokens, std::size_t max_positions, const char* from, bool text) {
  if (tokens > max_positions)
    throw input_error(param(from),
                      fmt::format("{} tokens are more than the model's {} positions "
                                  "(max_position_embeddings); give {}",
                                  tokens, max_positions, text ? "a shorter text" : "fewer ids"));
}

}  // namespace

std::string vision_page(const model_report& r, const model_job_config& c) {
  const maps_source s = model_maps_source(r, c);
  picture_page_spec p;
  p.title =
      fmt::format("{} · {}", s.name, std::filesystem::path(r.image->path).filename().string());
  p.subtitle = s.subtitle;
  if (!r.predictions.empty() && !r.predictions[0].top.empty())
    p.subtitle += fmt::format(" · predicted {} (p = {:.3f})", r.predictions[0].top_tokens[0],
                              r.predictions[0].top[0].second);
  p.picture = s.picture;
  p.grid_rows = s.grid_rows;
  p.grid_cols = s.grid_cols;
  p.layers = r.forward.layers;
  p.heads = r.forward.heads;
  p.maps = r.cls_map;
  p.cmap = &colormap::named_or_default(c.choice.look.cmap);
  p.alpha = c.choice.alpha;
  const std::size_t cells = s.grid_rows * s.grid_cols;
  std::vector<double> mean(cells, 0.0);
  for (std::size_t k = 0; k < r.cls_map.size(); ++k) mean[k % cells] += r.cls_map[k];
  for (double& v : mean) v /= static_cast<double>(p.layers * p.heads);
  p.aggregates.emplace_back("mean over every layer and head · CLS", std::move(mean));
  view_choice rollout = c.choice;
  rollout.view = maps_view::rollout;
  rollout.layers.clear();
  const matrix rolled = view_values(s, rollout);
  p.aggregates.emplace_back(
      "rollout through every layer · CLS",
      std::vector<double>(rolled.row(0) + s.first_patch, rolled.row(0) + s.first_patch + cells));
  view_choice received = c.choice;
  received.view = maps_view::received;
  received.layers.clear();
  received.heads.clear();
  const matrix got = view_values(s, received);
  p.aggregates.emplace_back(
      "attention each patch receives",
      std::vector<double>(got.data() + s.first_patch, got.data() + s.first_patch + cells));
  return picture_page(p);
}

bool wants_logit_lens(const model_job_config& c) {
  return c.logit_lens || c.choice.view == maps_view::logit_lens;
}

std::string folder_name(const std::string& dir) {
  std::filesystem::path p(dir);
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

maps_source model_maps_source(const model_report& r, const model_job_config& c) {
  maps_source s;
  if (r.forward.attention.size() > 0)
    s.maps = r.forward.attention.data();
  else if (r.keeper)
    s.kept = r.keeper->kept();
  s.received = r.received.empty() ? nullptr : r.received.data();
  s.received_rollout = r.received_rollout.empty() ? nullptr : r.received_rollout.data();
  s.lens = r.lens ? &*r.lens : nullptr;
  s.layers = r.forward.layers;
  s.heads = r.forward.heads;
  s.n = r.forward.n;
  s.tokens = display_tokens(r.tokens);
  s.causal = r.config.causal;
  s.name = folder_name(c.model_dir);
  s.subtitle = model_summary(r.config);
  if (c.measure && c.measure->make) s.subtitle += fmt::format(" · {}", c.measure->name);
  if (c.measure && c.measure->follows_residual) {  // a layer's map, shown for each of its heads
    s.residual = 0.0;
    s.subtitle += ", one map per layer";
  }
  s.prompt = r.prompt;
  if (r.image) {
    s.picture = &r.image->seen;
    s.grid_rows = r.image->grid.rows;
    s.grid_cols = r.image->grid.cols;
    s.first_patch = r.config.vision.prefix + r.config.vision.registers;
  }
  return s;
}

void refuse_vision(const model_config& m, const std::string& dir, std::string_view what) {
  if (!m.vision.on) return;
  throw usage_error(
      fmt::format("{} reads text models; {} is a vision model ({}): attn-viz "
                  "model --model {} --image FILE shows its attention (every view "
                  "and measure, --html, --images for many pictures)",
                  what, dir, m.model_type, dir));
}

void refuse_encoder_decoder(const model_config& m, const std::string& dir, std::string_view what) {
  if (!m.encoder_decoder) return;
  throw usage_error(fmt::format("{} reads decoder-only and encoder models; {} is an "
                                "encoder–decoder model ({}): attn-viz model shows its three "
                                "attentions (--stack encoder, decoder or cross, --view alignment) "
                                "and attn-viz draw --key-tokens its cross_attention.npy",
                                what, dir, m.model_type));
}

std::vector<std::int64_t> parse_ids(const std::string& text, const char* name) {
  std::vector<std::int64_t> ids;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    std::string_view item(text.data() + at, end - at);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || v < 0)
      throw usage_error(fmt::format("{}: '{}' is not a token id (expected whole numbers from 0, "
                                    "comma-separated)",
                                    param(name), std::string(item)));
    ids.push_back(v);
    at = end + 1;
  }
  return ids;
}

model_input read_model_input(const std::string& model_dir, const std::string& text,
                             const std::vector<std::int64_t>& ids, std::size_t max_positions,
                             const char* text_name, const char* ids_name) {
  model_input in;
  in.ids = ids;
  in.vocab = vocabulary_once(model_dir);
  check_length(ids.size(), max_positions, ids_name, false);
  if (!text.empty()) {
    std::optional<vocabulary> parsed;
    const auto tokenizer = load_model_tokenizer(
        model_dir,
        std::string(text_name) == "target" ? tokenizer_side::target : tokenizer_side::source,
        &parsed);
    if (!tokenizer)
      throw input_error(model_dir, fmt::format("has no tokenizer.json, vocab.json with "
                                               "merges.txt, vocab.txt or spiece.model to read "
                                               "the text with; give the token ids with --{}",
                                               ids_name));
    encoding e = tokenizer->encode(text);
    check_length(e.ids.size(), max_positions, text_name, true);
    in.ids = std::move(e.ids);
    in.tokens = std::move(e.tokens);
    if (parsed) in.vocab.set(std::move(parsed));
    return in;
  }
  const std::optional<vocabulary>& vocab = in.vocab.get();
  for (const auto id : in.ids) in.tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
  if (!vocab)
    in.warnings.push_back(fmt::format("{} has no tokenizer.json, vocab.json or vocab.txt: tokens "
                                      "are shown as their ids",
                                      model_dir));
  return in;
}

model_report run_model_job(const model_job_config& c) {
  check_job(c.out, c.choice.look);
  const hf_model m = load_model(c.model_dir);
  return run_model_job_on(m, c);
}

model_report run_model_job_on(const hf_model& m, const model_job_config& c) {
  check_job(c.out, c.choice.look);
  model_report r;
  r.config = m.config;
  check_image_flags(c, m.config);
  check_generation_flags(c, m.config);
  check_measure(c, m.config);
  if (m.config.encoder_decoder) {
    run_seq2seq_job(m, c, r);
    return r;
  }
  if (!c.target_text.empty() || !c.target_ids.empty())
    throw usage_error(fmt::format("{} and {} are for encoder–decoder models (bart, mbart, "
                                  "marian); {} is a {} model",
                                  param("target"), param("target-ids"), c.model_dir,
                                  m.config.model_type));
  if (m.config.vision.on) {
    auto image = std::make_shared<vision_input>(read_vision_input(m.config, c.model_dir, c.image));
    r.tokens = image->tokens;
    r.ids.resize(r.tokens.size());
    std::iota(r.ids.begin(), r.ids.end(), 0);
    r.image = std::move(image);
  } else {
    model_input in = read_model_input(c.model_dir, c.text, c.ids, m.config.max_positions);
    r.ids = std::move(in.ids);
    r.tokens = std::move(in.tokens);
    r.warnings = std::move(in.warnings);
    r.vocab = std::move(in.vocab);
  }
  keep_request plan = check_outputs_before_work(m.config, c, r.ids.size());
  if (c.top_k > 0) r.vocab.get();  // a damaged vocabulary is refused before the forward
  run_forward(m, c, std::move(plan), r);
  if (c.top_k > 0) add_predictions(m, c, r);

  const std::string folder = folder_name(c.model_dir);
  job_products made;
  made.json = [&] {
    model_json_meta meta{fmt::format("attn-viz {}", version), folder, "", "", ""};
    if (c.measure && c.measure->make) meta.measure = std::string(c.measure->name);
    if (r.lens) meta.logit_lens = logit_lens_json(*r.lens);
    if (r.prompt > 0) meta.generation = generation_json(r, c, -1);
    return model_to_json(meta, r.config, r.tokens, r.ids, r.forward, r.predictions);
  };
  // the head finder's names, once, for the model view and the page
  std::optional<std::vector<std::string>> captions;
  auto head_names = [&]() -> std::vector<std::string> {
    if (!c.name_heads) return {};
    if (!captions) {
      captions.emplace();
      const std::size_t period = finder_period(m.config, 0, c.model_dir);
      const model_forward random =
          run_model(m, repeated_random_ids(period, m.config.vocab, 0), progress_style::quiet);
      for (const head_finding& f : find_heads(random, period, r.weights_keeper->stats(), 0.4))
        captions->push_back(finding_caption(f));
    }
    return *captions;
  };
  made.picture = [&] {
    return draw_view(model_maps_source(r, c), c.choice,
                     c.choice.view == maps_view::model ? head_names() : std::vector<std::string>{});
  };
  made.html = [&] {
    if (r.image) return vision_page(r, c);
    const maps_source measured = model_maps_source(r, c);
    if (r.weights_attention.empty()) return maps_page(measured, c.choice, head_names());
    maps_source weights = measured;
    weights.maps = r.weights_attention.data();
    weights.residual = 0.5;
    weights.subtitle = model_summary(r.config);
    return measures_page({{"weights", weights}, {std::string(c.measure->name), measured}}, c.choice,
                         head_names());
  };
  made.npy = [&](output_batch& batch, const std::string& dir) { add_npy(batch, dir, r, c); };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
