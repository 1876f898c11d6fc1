#include "jobs/neuron_job.h"

#include <fmt/format.h>

#include <charconv>

#include "analysis/query_pick.h"
#include "analysis/subwords.h"
#include "attnviz/version.h"
#include "error.h"
#include "jobs/model_job.h"
#include "jobs/model_keep.h"
#include "measures/measure.h"
#include "model/forward.h"
#include "model/hf_model.h"
#include "model/linear.h"
#include "render/neuron_page.h"
#include "render/neuron_view.h"
#include "text/lookup.h"
#include "text/utf8.h"
#include "tokenizers/token_display.h"

namespace attnviz {

namespace neuron_job_parts {

// The layer's readings at the query's row: its heads' mean weight, then contrib and alti (one
// forward each, keeping one map).
std::vector<layer_reading> layer_readings(const hf_model& m, const std::vector<std::int64_t>& ids,
                                          const model_forward& f, std::size_t layer,
                                          std::size_t query) {
  const std::size_t n = f.n, heads = m.config.heads;
  layer_reading mean{"weights", std::vector<double>(n, 0.0)};
  for (std::size_t h = 0; h < heads; ++h) {
    const float* row = f.map(layer, h) + query * n;
    for (std::size_t j = 0; j < n; ++j) mean.share[j] += row[j] / static_cast<double>(heads);
  }
  std::vector<layer_reading> out{std::move(mean)};
  for (const char* name : {"contrib", "alti"}) {
    const std::vector<float> map = measure_map_of(m, ids, measure_named(name, "measure"), layer, 0);
    out.push_back(
        {name, std::vector<double>(map.begin() + static_cast<std::ptrdiff_t>(query * n),
                                   map.begin() + static_cast<std::ptrdiff_t>((query + 1) * n))});
  }
  return out;
}

}  // namespace neuron_job_parts

neuron_report run_neuron_job(const neuron_job_config& c) {
  c.out.check();
  const hf_model m = load_model(c.model_dir);
  refuse_encoder_decoder(m.config, c.model_dir, "explain --model");
  refuse_vision(m.config, c.model_dir, "explain --model");
  const model_config& mc = m.config;
  if (c.layer >= mc.layers)
    throw usage_error(fmt::format("{} {}: the model has {} layers (0 to {})", param("layer"),
                                  c.layer, mc.layers, mc.layers - 1));
  if (c.head >= mc.heads)
    throw usage_error(fmt::format("{} {}: the model has {} heads a layer (0 to {})", param("head"),
                                  c.head, mc.heads, mc.heads - 1));
  neuron_report r;
  r.config = mc;
  r.folder = folder_name(c.model_dir);
  model_input in = read_model_input(c.model_dir, c.text, c.ids, mc.max_positions);
  r.tokens = std::move(in.tokens);
  r.warnings = std::move(in.warnings);
  const query_pick pick = pick_query(r.tokens, c.query, r.tokens.size() - 1);
  if (!pick.note.empty()) r.warnings.push_back(pick.note);
  const std::size_t query = pick.index;
  layer_probe probe;
  probe.layer = c.layer;
  const model_forward f = run_model(m, in.ids, c.progress, &probe);
  neuron_query at;
  at.head = c.head;
  at.query = query;
  at.heads = mc.heads;
  at.kv_heads = mc.kv_heads;
  at.d_head = mc.head_dim;
  at.causal = mc.causal;
  at.window = mc.sliding_window > 0 && f.n > mc.sliding_window ? mc.sliding_window : 0;
  r.trace = trace_neuron(probe, at, f.map(c.layer, c.head) + query * f.n);
  const weight_view& o = *m.layers[c.layer].self.o;
  std::vector<float> w(o.count()), w_head(mc.head_dim * mc.d_model);
  o.to_float(0, w.size(), w.data());
  output_head_block(w.data(), m.conv1d ? linear_layout::in_out : linear_layout::out_in,
                    mc.heads * mc.head_dim, mc.d_model, c.head, mc.head_dim, w_head.data());
  add_output_norms(r.trace, w_head, mc.d_model);
  r.trace.readings = neuron_job_parts::layer_readings(m, in.ids, f, c.layer, query);

  neuron_view_spec spec;
  spec.trace = &r.trace;
  spec.tokens = &r.tokens;
  const std::vector<std::string> shown = display_tokens(r.tokens);
  spec.shown = &shown;
  spec.folder = r.folder;
  spec.summary = model_summary(mc);
  spec.rope = mc.positions == position_kind::rotary;
  spec.top_k = c.top_k;
  r.text = neuron_text(spec);
  r.json = neuron_json(spec, fmt::format("attn-viz {}", version));
  job_products made;
  made.picture = [&] { return neuron_view_figure(spec); };
  made.html = [&] {
    neuron_page_spec page;
    page.title = fmt::format("neuron view · {} · layer {}, head {}", r.folder, c.layer, c.head);
    page.subtitle = fmt::format("{} · {} tokens · s = q·k/√{}, a = softmax(s)", model_summary(mc),
                                f.n, mc.head_dim);
    page.tokens = shown;
    page.layer = c.layer;
    page.head = c.head;
    page.kv_head = r.trace.kv_head;
    page.d_head = mc.head_dim;
    page.query = query;
    page.rope = spec.rope;
    page.causal = at.causal;
    page.window = at.window;
    page.probe = &probe;
    page.maps = f.map(c.layer, c.head);
    return neuron_page(page);
  };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
