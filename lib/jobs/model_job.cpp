#include "jobs/model_job.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "attnviz/version.h"
#include "error.h"
#include "analysis/layer_maps.h"
#include "index_list.h"
#include "io/npy.h"
#include "jobs/heads_job.h"
#include "model/hf_model.h"
#include "render/heatmap.h"
#include "tokenizers/model_tokenizer.h"
#include "tokenizers/vocabulary.h"

namespace attnviz {

namespace {

// The maps kept (L·H·n² floats) and, with JSON, their text (about 13 bytes a number).
void check_model_memory(const model_config& c, std::size_t n, const model_job_config& job) {
  run_size size = output_size(job.out, job.view, n, n);
  size.heads = c.layers * c.heads;
  check_memory(size, job.max_memory);
}

void add_npy(output_batch& batch, const std::string& dir, const model_report& r,
             const model_job_config& c) {
  namespace fs = std::filesystem;
  const model_forward& f = r.forward;
  if (c.figure != model_figure::head && draws_heatmap(c.figure)) {
    const matrix view = model_head_values(r, c);
    batch.add((fs::path(dir) / "view.npy").string(), npy_float32({f.n, f.n}, view.data()));
  }
  batch.add((fs::path(dir) / "attention.npy").string(),
            npy_float32({f.layers, f.heads, f.n, f.n}, f.attention.data()));
  batch.add((fs::path(dir) / "token_ids.npy").string(), npy_int64({r.ids.size()}, r.ids.data()));
  batch.add((fs::path(dir) / "hidden.npy").string(),
            npy_float32({f.hidden.rows(), f.hidden.cols()}, f.hidden.data()));
  batch.add((fs::path(dir) / "tokens.json").string(),
            nlohmann::json(r.tokens).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
}

// The rows to predict from: after the last token (causal), or each [MASK] (BERT).
std::vector<std::size_t> prediction_rows(const model_report& r) {
  if (r.config.family != model_family::bert) return {r.ids.size() - 1};
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < r.tokens.size(); ++i)
    if (r.tokens[i] == "[MASK]") rows.push_back(i);
  return rows;
}

// The folder's own name ("gpt2" for "models/gpt2/").
std::string folder_name(const std::string& dir) {
  std::filesystem::path p(dir);
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

}  // namespace

namespace {

std::vector<std::size_t> chosen(const std::string& list, std::size_t count, const char* parameter,
                                const char* what) {
  if (!list.empty()) return parse_index_list(list, count, parameter, what);
  std::vector<std::size_t> all(count);
  for (std::size_t i = 0; i < count; ++i) all[i] = i;
  return all;
}

// "layers 0-11", "layers 0, 5-7", "heads 2" for titles.
std::string list_label(const char* what, const std::string& list, std::size_t count) {
  return list.empty() ? fmt::format("{}s 0-{}", what, count - 1) : fmt::format("{}s {}", what, list);
}

}  // namespace

bool draws_heatmap(model_figure f) {
  return f != model_figure::model && f != model_figure::lines && f != model_figure::overlay;
}

matrix model_head_values(const model_report& r, const model_job_config& c) {
  const model_forward& f = r.forward;
  const std::size_t n = f.n;
  const model_maps maps{f.attention.data(), f.layers, f.heads, n};
  const auto layers = chosen(c.layers, f.layers, "layers", "layer");
  switch (c.figure) {
    case model_figure::mean:
    case model_figure::max:
      return reduce_maps(maps, layers, chosen(c.heads, f.heads, "heads", "head"),
                         c.figure == model_figure::mean ? map_reduce::mean : map_reduce::max);
    case model_figure::rollout: return attention_rollout(maps, layers);
    case model_figure::flow: return attention_flow(maps, layers);
    case model_figure::head:
    case model_figure::model:
    case model_figure::lines:
    case model_figure::overlay: break;
  }
  const float* map = f.map(c.layer, c.head);
  return matrix(n, n, std::vector<float>(map, map + n * n));
}

heatmap_spec model_head_heatmap(const model_report& r, const model_job_config& c,
                                const matrix& values) {
  const std::size_t n = r.forward.n;
  heatmap_spec spec;
  spec.values = &values;
  spec.row_labels = r.tokens;
  spec.col_labels = r.tokens;
  const std::string layers = list_label("layer", c.layers, r.forward.layers);
  const std::string heads = list_label("head", c.heads, r.forward.heads);
  switch (c.figure) {
    case model_figure::mean:
    case model_figure::max:
      spec.title = fmt::format("{} over {} × {} · {}", c.figure == model_figure::mean ? "mean" : "max",
                               layers, heads, folder_name(c.model_dir));
      break;
    case model_figure::rollout:
    case model_figure::flow:
      spec.title = fmt::format("attention {} through {} · {}",
                               c.figure == model_figure::rollout ? "rollout" : "flow", layers,
                               folder_name(c.model_dir));
      break;
    case model_figure::head:
    case model_figure::model:
    case model_figure::lines:
    case model_figure::overlay:
      spec.title = fmt::format("layer {} · head {} · {}", c.layer, c.head, folder_name(c.model_dir));
  }
  spec.subtitle = model_summary(r.config);
  spec.cell = c.view.cell;
  spec.annotate = c.view.annotate;
  spec.cmap = &colormap::named_or_default(c.view.cmap);
  if (r.config.causal) {
    spec.hidden.assign(n * n, false);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) spec.hidden[i * n + j] = true;
  }
  return spec;
}

model_view_spec model_view_of(const model_report& r, const model_job_config& c,
                              std::vector<std::string> captions) {
  model_view_spec v;
  v.maps = r.forward.attention.data();
  v.layers = r.forward.layers;
  v.heads = r.forward.heads;
  v.n = r.forward.n;
  if (!c.layers.empty()) v.rows = parse_index_list(c.layers, v.layers, "layers", "layer");
  if (!c.heads.empty()) v.cols = parse_index_list(c.heads, v.heads, "heads", "head");
  v.causal = r.config.causal;
  v.title = fmt::format("{} · {} tokens", folder_name(c.model_dir), r.ids.size());
  v.subtitle = model_summary(r.config);
  v.cmap = &colormap::named_or_default(c.view.cmap);
  v.scale = c.scale;
  v.captions = std::move(captions);
  v.thumb = c.view.cell;
  return v;
}

std::vector<std::int64_t> parse_ids(const std::string& text) {
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
                                    param("ids"), std::string(item)));
    ids.push_back(v);
    at = end + 1;
  }
  return ids;
}

namespace {

// Which of --layers and --heads each view reads; each given list parsed against the model (and
// --name-heads and flow's token count checked) before the forward.
void check_view_lists(const model_job_config& c, const model_config& config, std::size_t n) {
  using f = model_figure;
  const f v = c.figure;
  const bool takes_layers = v == f::model || v == f::mean || v == f::max || v == f::rollout ||
                            v == f::flow;
  const bool takes_heads = v == f::model || v == f::mean || v == f::max || v == f::lines ||
                           v == f::overlay;
  if (!c.layers.empty() && !takes_layers)
    throw usage_error(fmt::format("{} chooses the layers of {} model, mean, max, rollout and flow; "
                                  "{} {} draws the one {} gives",
                                  param("layers"), param("view"), param("view"),
                                  name_of(model_figure_names, v), param("layer")));
  if (!c.heads.empty() && !takes_heads)
    throw usage_error(fmt::format("{} chooses the heads of {} model, mean, max, lines and overlay; "
                                  "{} {} {}",
                                  param("heads"), param("view"), param("view"),
                                  name_of(model_figure_names, v),
                                  v == f::head ? fmt::format("draws the one {} gives", param("head"))
                                               : std::string("averages every head of a layer "
                                                             "(Abnar & Zuidema 2020)")));
  if (c.name_heads && v != f::model)
    throw usage_error(fmt::format("{} captions the model view: add {} model", param("name_heads"),
                                  param("view")));
  if (!c.layers.empty()) parse_index_list(c.layers, config.layers, "layers", "layer");
  if (!c.heads.empty()) parse_index_list(c.heads, config.heads, "heads", "head");
  if (c.name_heads) finder_period(config, 0, c.model_dir);
  if (v == f::flow) check_flow_size(n);
}

}  // namespace

model_input read_model_input(const std::string& model_dir, const std::string& text,
                             const std::vector<std::int64_t>& ids) {
  model_input in;
  in.ids = ids;
  if (!text.empty()) {
    const auto tokenizer = load_model_tokenizer(model_dir);
    if (!tokenizer)
      throw input_error(model_dir, "has no tokenizer.json nor vocab.json with merges.txt to "
                                   "read the text with; give the token ids with --ids");
    encoding e = tokenizer->encode(text);
    in.ids = std::move(e.ids);
    in.tokens = std::move(e.tokens);
    return in;
  }
  const std::optional<vocabulary> vocab = read_vocabulary(model_dir);
  for (const auto id : in.ids) in.tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
  if (!vocab)
    in.warnings.push_back(fmt::format("{} has no tokenizer.json, vocab.json or vocab.txt: tokens "
                                      "are shown as their ids",
                                      model_dir));
  return in;
}

model_report run_model_job(const model_job_config& c) {
  check_job(c.out, c.view);
  const hf_model m = load_model(c.model_dir);
  model_report r;
  r.config = m.config;
  model_input in = read_model_input(c.model_dir, c.text, c.ids);
  r.ids = std::move(in.ids);
  r.tokens = std::move(in.tokens);
  r.warnings = std::move(in.warnings);
  check_view_lists(c, m.config, r.ids.size());
  if (c.layer >= m.config.layers)
    throw usage_error(fmt::format("{} {}: the model has {} layers (0 to {})", param("layer"),
                                  c.layer, m.config.layers, m.config.layers - 1));
  if (c.head >= m.config.heads)
    throw usage_error(fmt::format("{} {}: the model has {} heads (0 to {})", param("head"), c.head,
                                  m.config.heads, m.config.heads - 1));
  check_model_memory(m.config, r.ids.size(), c);
  const std::optional<vocabulary> vocab =
      c.top_k > 0 ? read_vocabulary(c.model_dir) : std::optional<vocabulary>();
  r.forward = run_model(m, r.ids, c.progress);
  if (c.top_k > 0)
    for (const std::size_t row : prediction_rows(r)) {
      model_prediction p;
      p.position = row;
      p.top = top_predictions(m, r.forward, row, c.top_k);
      for (const auto& [id, prob] : p.top)
        p.top_tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
      r.predictions.push_back(std::move(p));
    }

  const std::string folder = folder_name(c.model_dir);
  job_products made;
  made.json = [&] {
    return model_to_json({fmt::format("attn-viz {}", version), folder}, r.config, r.tokens, r.ids,
                         r.forward, r.predictions);
  };
  made.picture = [&] {
    if (c.figure == model_figure::model) {
      std::vector<std::string> captions;
      if (c.name_heads) {
        const std::size_t period = finder_period(m.config, 0, c.model_dir);
        const model_forward random =
            run_model(m, repeated_random_ids(period, m.config.vocab, 0), progress_style::quiet);
        for (const head_finding& f : find_heads(random, period, r.forward, r.tokens, 0.4))
          captions.push_back(finding_caption(f));
      }
      return model_view_figure(model_view_of(r, c, std::move(captions)));
    }
    if (c.figure == model_figure::lines || c.figure == model_figure::overlay) {
      head_view_spec v;
      v.maps = r.forward.map(c.layer, 0);
      v.heads = r.forward.heads;
      v.n = r.forward.n;
      if (!c.heads.empty()) v.shown = parse_index_list(c.heads, v.heads, "heads", "head");
      v.tokens = r.tokens;
      v.title = fmt::format("layer {} · {} · {}", c.layer,
                            list_label("head", c.heads, r.forward.heads), folder);
      v.subtitle = model_summary(r.config);
      v.overlay = c.figure == model_figure::overlay;
      return head_view_figure(v);
    }
    const matrix values = model_head_values(r, c);
    return heatmap_figure(model_head_heatmap(r, c, values));
  };
  made.npy = [&](output_batch& batch, const std::string& dir) { add_npy(batch, dir, r, c); };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
