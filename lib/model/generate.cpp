#include "model/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "error.h"
#include "model/generation_maps.h"
#include "model/layer_ops.h"

namespace attnviz {

namespace {

// u in [0, 1) from the top 53 bits of one draw (the same on every platform, unlike
// std::uniform_real_distribution).
double unit_draw(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1p-53;
}

std::int64_t sample_token(const std::vector<float>& z, const sampling& how, std::mt19937_64& rng) {
  const std::size_t V = z.size();
  double most = -INFINITY;
  for (const float x : z) most = std::max<double>(most, x);
  std::vector<double> p(V);
  double sum = 0.0;
  for (std::size_t j = 0; j < V; ++j) sum += p[j] = std::exp((z[j] - most) / how.temperature);
  std::vector<std::size_t> order(V);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  // the nucleus: the most likely tokens until their probability reaches top_p
  std::size_t keep = 0;
  double kept = 0.0;
  while (keep < V && (keep == 0 || kept < how.top_p * sum)) kept += p[order[keep++]];
  const double u = unit_draw(rng) * kept;
  double run = 0.0;
  for (std::size_t r = 0; r < keep; ++r) {
    run += p[order[r]];
    if (u < run) return static_cast<std::int64_t>(order[r]);
  }
  return static_cast<std::int64_t>(order[keep - 1]);
}

bool is_end(const model_config& c, std::int64_t id) {
  return std::find(c.end_ids.begin(), c.end_ids.end(), id) != c.end_ids.end();
}

// The hidden rows: the prefill's, then each step's.
matrix hidden_rows(const matrix& prefill_hidden, const std::vector<std::vector<float>>& steps) {
  const std::size_t np = prefill_hidden.rows();
  matrix hidden = matrix::uninitialized(np + steps.size(), prefill_hidden.cols());
  std::copy(prefill_hidden.data(), prefill_hidden.data() + prefill_hidden.size(), hidden.data());
  for (std::size_t t = 0; t < steps.size(); ++t)
    std::copy(steps[t].begin(), steps[t].end(), hidden.row(np + t));
  return hidden;
}

void check_request(const hf_model& m, const std::vector<std::int64_t>& prompt,
                   const generation_request& request) {
  const model_config& c = m.config;
  if (request.max_new == 0)
    throw usage_error(fmt::format("{} must be at least 1", param("generate")));
  if (!c.causal || c.encoder_decoder)
    throw usage_error(fmt::format("{} continues a causal model's text; {} is {}",
                                  param("generate"), c.model_type,
                                  c.encoder_decoder ? "an encoder–decoder model (use --max-new)"
                                                    : "not causal"));
  if (request.how.sample && !(request.how.temperature > 0.0 && std::isfinite(request.how.temperature)))
    throw usage_error(fmt::format("{} must be above 0", param("temperature")));
  if (!(request.how.top_p > 0.0 && request.how.top_p <= 1.0))
    throw usage_error(fmt::format("{} must be in (0, 1]", param("top-p")));
  check_model_ids(m, prompt);
  if (prompt.size() >= c.max_positions)
    throw input_error(param("ids"), fmt::format("the prompt's {} tokens fill the model's {} "
                                                "positions: none is left to generate into",
                                                prompt.size(), c.max_positions));
}

}  // namespace

std::int64_t choose_token(std::vector<float> logits, const model_config& c, const sampling& how,
                          std::mt19937_64& rng) {
  for (const std::int64_t id : c.banned_ids)
    if (id >= 0 && static_cast<std::size_t>(id) < logits.size()) logits[id] = -INFINITY;
  if (how.sample) return sample_token(logits, how, rng);
  return static_cast<std::int64_t>(std::max_element(logits.begin(), logits.end()) -
                                   logits.begin());
}

generation generate_causal(const hf_model& m, const std::vector<std::int64_t>& prompt,
                           const generation_request& request, progress_style style) {
  check_request(m, prompt, request);
  const model_config& c = m.config;
  const std::size_t np = prompt.size(), LH = c.layers * c.heads;
  const std::size_t max_new = std::min(request.max_new, c.max_positions - np);
  generation g;
  g.ids = prompt;
  g.prompt = np;
  model_forward& f = g.forward;
  f.layers = c.layers;
  f.heads = c.heads;
  const std::size_t width = np + max_new;
  generation_maps maps(LH, np, width);
  std::vector<kv_cache> caches(c.layers);
  for (kv_cache& cache : caches) cache.planned = width;
  std::vector<float> prefill(LH * np * np);
  const matrix prefill_hidden = run_stack(m, prompt, 0, &caches, {prefill.data()}, f.stage_seconds);
  maps.place_prompt(prefill, np);
  prefill = {};
  std::vector<std::vector<float>> step_hidden;
  std::vector<float> last(prefill_hidden.row(np - 1), prefill_hidden.row(np - 1) + c.d_model);
  std::mt19937_64 rng(request.how.seed);
  progress bar("generating", "tokens", max_new, style);
  for (std::size_t t = 0; t < max_new; ++t) {
    const std::int64_t next = choose_token(output_logits(m, last.data()), c, request.how, rng);
    g.ids.push_back(next);
    const bool stop = request.on_token && request.on_token(next);
    // fed too, so that every map has its row: row np + t of each map
    const matrix h = run_stack(m, {next}, np + t, &caches, maps.row(np + t), f.stage_seconds);
    last.assign(h.row(0), h.row(0) + c.d_model);
    step_hidden.push_back(last);
    bar.update(t + 1);
    g.ended = is_end(c, next);
    if (g.ended || stop) break;
  }
  bar.finish();
  f.n = g.ids.size();
  f.attention = maps.take(f.n);
  f.hidden = hidden_rows(prefill_hidden, step_hidden);
  return g;
}

}  // namespace attnviz
