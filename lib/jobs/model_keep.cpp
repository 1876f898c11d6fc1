#include "jobs/model_keep.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <numeric>

#include "error.h"
#include "index_list.h"
#include "io/npy_stream.h"
#include "io/scratch_file.h"
#include "model/layer_ops.h"
#include "render/heatmap.h"

namespace attnviz {

namespace {

bool keeps_every_map(const model_job_config& c) {
  return c.keep_every_map || !c.out.json.empty() || !c.out.html.empty();
}

bool draws(const model_job_config& c) {
  return c.out.figure() || c.term || (!c.out.npy_dir.empty() && computes_map(c.choice.view));
}

// The maps the view reads (model_keep.h), marked in r.keep (received-rollout: the layers
// whose inputs it keeps).
void mark_view_needs(const view_choice& v, keep_request& r) {
  const auto layers = chosen(v.layers, r.layers, "layers", "layer");
  const auto heads = chosen(v.heads, r.heads, "heads", "head");
  auto mark = [&](std::size_t l, std::size_t h) { r.keep[l * r.heads + h] = true; };
  switch (v.view) {
    case maps_view::head: mark(v.layer, v.head); return;
    case maps_view::model:
    case maps_view::mean:
    case maps_view::max:
      for (const std::size_t l : layers)
        for (const std::size_t h : heads) mark(l, h);
      return;
    case maps_view::rollout:
    case maps_view::flow:
      for (const std::size_t l : layers)
        for (std::size_t h = 0; h < r.heads; ++h) mark(l, h);
      return;
    case maps_view::lines:
    case maps_view::overlay:
      for (const std::size_t h : heads) mark(v.layer, h);
      return;
    case maps_view::received_rollout:  // no map: the inputs of --layers, for a second pass
      r.input_layers = layers;
      return;
    case maps_view::alignment:
    case maps_view::generation:
    case maps_view::received:
    case maps_view::logit_lens:
      return;
  }
}

std::uint64_t forward_bytes(const model_config& m, std::size_t n) {
  const std::uint64_t width = 6 * m.d_model + 2 * (m.heads + 2 * m.kv_heads) * m.head_dim;
  const std::uint64_t mlp_rows = std::min(n, mlp_row_chunk);  // the MLP goes in chunks
  return static_cast<std::uint64_t>(n) * width * 4 + mlp_rows * 3 * m.intermediate * 4 +
         static_cast<std::uint64_t>(m.layers) * m.heads * n * 4 + 16 * m.heads * n * 8;
}

}  // namespace

keep_request plan_keeping(const model_config& m, const model_job_config& c, std::size_t n) {
  namespace fs = std::filesystem;
  keep_request r;
  r.layers = m.layers;
  r.heads = m.heads;
  r.n = n;
  r.causal = m.causal;
  r.keep.assign(m.layers * m.heads, keeps_every_map(c));
  r.input_width = m.d_model;
  if (!keeps_every_map(c) && draws(c)) mark_view_needs(c.choice, r);
  if (wants_logit_lens(c)) {  // every layer's input, read through the output embeddings afterwards
    r.input_layers.resize(m.layers);
    std::iota(r.input_layers.begin(), r.input_layers.end(), 0);
  }
  r.measure = c.name_heads;  // the captions' statistics, row by row
  // The column sums: received.npy, --view received, and the page and JSON, which hold them.
  r.column_sums = keeps_every_map(c) || !c.out.npy_dir.empty() ||
                  (draws(c) && c.choice.view == maps_view::received);
  if (c.out.npy_dir.empty()) {
    if (!c.npy_layers.empty() || !c.npy_heads.empty())
      throw usage_error(fmt::format("{} and {} choose the maps of attention.npy: add {} DIR",
                                    param("npy_layers"), param("npy_heads"), param("npy")));
    return r;
  }
  r.file_layers = chosen(c.npy_layers, m.layers, "npy_layers", "layer");
  r.file_heads = chosen(c.npy_heads, m.heads, "npy_heads", "head");
  const fs::path dir(c.out.npy_dir);
  r.file_path = (dir / "attention.npy").string();
  r.file_folder = streamed_folder(c.out.npy_dir);
  return r;
}

measure_shape model_measure_shape(const model_config& m, std::size_t n) {
  measure_shape s;
  s.layers = m.layers;
  s.heads = m.heads;
  s.n = n;
  s.width = m.d_model;
  s.causal = m.causal;
  const double d = static_cast<double>(m.d_model), q = static_cast<double>(m.heads * m.head_dim),
               kv = static_cast<double>(m.kv_heads * m.head_dim);
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * d * static_cast<double>(m.intermediate);
  s.layer_row_flops = 2.0 * (2.0 * d * q + 2.0 * d * kv + mlp) + 4.0 * static_cast<double>(n) * q;
  return s;
}

void set_layer_output(measure_shape& s, const hf_model& m) {
  s.layer_output = [&m](std::size_t layer, const matrix& x, std::size_t zeroed) {
    stage_list times;  // a measure's time counts as the forward's next stage's
    return layer_output(m, layer, x, zeroed, times);
  };
}

namespace model_keep_parts {

// Taps that keep one map, head `head` of layer `layer`, and nothing else.
class one_map_taps final : public map_taps {
 public:
  one_map_taps(std::size_t layer, std::size_t head, std::size_t n)
      : layer_(layer), head_(head), map_(n * n, 0.0f) {}
  float* map_of(std::size_t layer, std::size_t head) override {
    return layer == layer_ && head == head_ ? map_.data() : nullptr;
  }
  void rows(std::size_t, std::size_t, std::size_t, std::size_t, const float*,
            std::size_t) noexcept override {}
  void layer_done(std::size_t) override {}
  std::vector<float> take() { return std::move(map_); }

 private:
  std::size_t layer_, head_;
  std::vector<float> map_;
};

}  // namespace model_keep_parts

std::vector<float> measure_map_of(const hf_model& m, const std::vector<std::int64_t>& ids,
                                  const measure_spec& spec, std::size_t layer, std::size_t head) {
  const std::size_t n = ids.size();
  model_keep_parts::one_map_taps views(layer, head, n);
  if (!spec.make) {
    run_model(m, ids, progress_style::quiet, nullptr, &views);
    return views.take();
  }
  measure_shape shape = model_measure_shape(m.config, n);
  set_layer_output(shape, m);
  if (spec.check) spec.check(shape);
  array_taps none(nullptr, m.config.heads, n, n);
  const auto taps = spec.make(shape, views, none);
  run_model(m, ids, progress_style::quiet, nullptr, taps.get());
  return views.take();
}

measure_shape measure_shape_of(const model_config& m, const model_job_config& c,
                               const keep_request& r) {
  measure_shape s = model_measure_shape(m, r.n);
  if (!c.out.npy_dir.empty()) {
    s.npy_dir = c.out.npy_dir;
    s.npy_folder = r.file_folder;
  }
  return s;
}

std::uint64_t model_run_bytes(const model_config& m, const model_job_config& c,
                              const keep_request& r) {
  const double n = static_cast<double>(r.n), maps = static_cast<double>(m.layers * m.heads);
  double bytes = 16.0 * (1 << 20) + static_cast<double>(kept_bytes(r)) +
                 static_cast<double>(forward_bytes(m, r.n));
  if (wants_logit_lens(c)) bytes += static_cast<double>(logit_lens_bytes(m, r.n));
  if (c.measure && c.measure->bytes)
    bytes += static_cast<double>(c.measure->bytes(measure_shape_of(m, c, r)));
  if (!c.out.json.empty()) bytes += maps * n * n * 16.0;
  if (!c.out.html.empty()) bytes += maps * n * n * 4.0;  // blobs, their text, the page's copies
  if (!c.out.html.empty() && c.measure && c.measure->make)  // the weights kept beside, and paged
    bytes += static_cast<double>(kept_bytes(r)) + maps * n * n * 4.0;
  if (c.out.figure() && received_view(c.choice.view)) {
    bytes += 1600.0 * (n * 2.0 + 400.0) * 3.0 * 2.0;  // a page: about a line of 22 px per 11 tokens
  } else if (c.out.figure()) {
    const double cell = c.choice.look.cell > 0 ? c.choice.look.cell : default_cell(r.n);
    bytes += (n * cell + 400.0) * (n * cell + 400.0) * 3.0 * 2.0;
  }
  return bytes >= 1.8e19 ? UINT64_MAX : static_cast<std::uint64_t>(bytes);
}

void check_model_memory(const model_config& m, const model_job_config& c, const keep_request& r) {
  const std::uint64_t need = model_run_bytes(m, c, r);
  if (need <= c.max_memory) return;
  const std::uint64_t one = static_cast<std::uint64_t>(r.n) * r.n * 4, kept = kept_bytes(r);
  const std::uint64_t rest = need - kept;
  const std::string what =
      kept > 0 ? fmt::format("{} maps of {} tokens kept, {} each", kept / one, r.n,
                             format_bytes(one))
               : fmt::format("{} tokens through {} layers", r.n, m.layers);
  std::string hint;
  if (keeps_every_map(c))
    hint = fmt::format("{} and {} hold every map: leave them out and write the maps to disk "
                       "with {} DIR (streamed, never kept)",
                       param("json"), param("html"), param("npy"));
  else if (kept > 0 && rest < c.max_memory)
    hint = fmt::format("choose fewer with {} and {} ({} of these maps fit), or draw {} received "
                       "(the attention each token receives, at any length)",
                       param("layers"), param("heads"), (c.max_memory - rest) / one,
                       param("view"));
  else
    hint = "give a shorter text";
  throw usage_error(fmt::format("this run would need about {} of memory ({}), more than {} {}: "
                                "{}, or raise {}",
                                format_bytes(need), what, param("max_memory"),
                                limit_text(c.max_memory), hint, param("max_memory")));
}

void check_model_disk(const keep_request& r, std::uint64_t measure_bytes) {
  if (const std::uint64_t inputs = input_bytes(r); inputs > 0) {
    const std::uint64_t free = scratch_file::free_bytes();
    if (free < inputs)
      throw usage_error(fmt::format("{} received-rollout keeps each layer's input for its pass "
                                    "from the last layer down: {} ({} layers × {} × {} floats) in "
                                    "{}, which has {} free: roll out through fewer {}, or set "
                                    "TMPDIR to a folder with room",
                                    param("view"), format_bytes(inputs), r.input_layers.size(),
                                    r.n, r.input_width, scratch_file::folder(),
                                    format_bytes(free), param("layers")));
  }
  const std::uint64_t need = file_bytes(r) + measure_bytes;
  if (need == 0) return;
  std::error_code ec;
  const auto space = std::filesystem::space(r.file_folder, ec);
  if (ec || space.available >= need) return;
  const std::string also =
      measure_bytes > 0
          ? fmt::format(", and {}'s arrays {} more", param("measure"), format_bytes(measure_bytes))
          : std::string();
  throw usage_error(
      fmt::format("{}: attention.npy would take {} ({} layers × {} heads × {} × {} "
                  "floats){}, and {} has {} free: choose fewer maps with {} and {}",
                  param("npy"), format_bytes(file_bytes(r)), r.file_layers.size(),
                  r.file_heads.size(), r.n, r.n, also, r.file_folder, format_bytes(space.available),
                  param("npy_layers"), param("npy_heads")));
}

}  // namespace attnviz
