#include "model/seq2seq.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "attention/mask.h"
#include "error.h"
#include "model/family.h"
#include "model/forward.h"
#include "model/generate.h"
#include "model/layer_ops.h"

namespace attnviz {

namespace {

void check_target(const hf_model& m, const std::vector<std::int64_t>& ids) {
  if (ids.empty()) throw usage_error(fmt::format("{}: no target tokens", param("target-ids")));
  if (ids.size() > m.config.max_positions)
    throw input_error(param("target-ids"),
                      fmt::format("{} tokens are more than the model's {} positions "
                                  "(max_position_embeddings)",
                                  ids.size(), m.config.max_positions));
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= m.config.vocab)
      throw input_error(param("target-ids"),
                        fmt::format("token {} (position {}) is outside the vocabulary of {} ids",
                                    ids[i], i, m.config.vocab));
}

// A layer context for the decoder's stack.
layer_context decoder_context(const hf_model& m, std::size_t n, stage_list* times) {
  layer_context lc(m, n, times);
  lc.heads = lc.kv_heads = m.config.decoder_heads;
  lc.head_dim = m.config.decoder_head_dim;
  return lc;
}

// The encoder pass (run_model: embed, blocks, final norm) into f; and every decoder layer's
// cross-attention keys and values over its output.
std::vector<kv_rows> encode(const hf_model& m, const std::vector<std::int64_t>& source,
                            progress_style style, seq2seq_forward& f) {
  if (!m.config.encoder_decoder)
    throw std::logic_error("run_seq2seq: not an encoder–decoder model");
  model_forward e = run_model(m, source, style);
  f.encoder_layers = e.layers;
  f.encoder_heads = e.heads;
  f.decoder_layers = m.config.decoder_layers;
  f.decoder_heads = m.config.decoder_heads;
  f.ns = e.n;
  f.encoder_attention = std::move(e.attention);
  f.encoder_hidden = std::move(e.hidden);
  f.stage_seconds = std::move(e.stage_seconds);
  layer_context lc = decoder_context(m, 0, &f.stage_seconds);
  std::vector<kv_rows> memory;
  for (const layer_weights& w : m.decoder_layers)
    memory.push_back(project_memory(lc, w.cross, f.encoder_hidden));
  return memory;
}

matrix decoder_final(const hf_model& m, matrix y) {
  if (!m.decoder_final_norm_w) return y;
  return norm_of(m, y, m.decoder_final_norm_w, m.decoder_final_norm_b);
}

}  // namespace

seq2seq_forward run_seq2seq(const hf_model& m, const std::vector<std::int64_t>& source,
                            const std::vector<std::int64_t>& target, progress_style style) {
  check_target(m, target);
  seq2seq_forward f;
  const std::vector<kv_rows> memory = encode(m, source, style, f);
  const std::size_t nt = target.size(), ns = f.ns, Hd = f.decoder_heads;
  f.nt = nt;
  f.targets = target;
  f.decoder_inputs = {m.config.decoder_start_id};
  f.decoder_inputs.insert(f.decoder_inputs.end(), target.begin(), target.end() - 1);
  f.decoder_attention = matrix::uninitialized(f.decoder_layers * Hd * nt, nt);
  f.cross_attention = matrix::uninitialized(f.decoder_layers * Hd * nt, ns);
  layer_context lc = decoder_context(m, nt, &f.stage_seconds);
  lc.spec.masks.rules = parse_masks("causal");
  matrix y = m.config.family->decoder_embed(m, f.decoder_inputs, 0);
  lc.lap("embed");
  progress bar("decoding", "layers", f.decoder_layers, style);
  for (std::size_t l = 0; l < f.decoder_layers; ++l) {
    decoder_io io;
    io.self_maps = f.decoder_attention.data() + l * Hd * nt * nt;
    io.cross_maps = f.cross_attention.data() + l * Hd * nt * ns;
    io.memory = &memory[l];
    m.config.family->decoder_block(lc, m.decoder_layers[l], y, io);
    bar.update(l + 1);
  }
  bar.finish();
  f.decoder_hidden = decoder_final(m, std::move(y));
  lc.lap("norm");
  return f;
}

namespace {

// One generation step's rows, kept until the maps are assembled.
struct step_rows {
  std::vector<float> self;   // [Ld, Hd, t + 1]
  std::vector<float> cross;  // [Ld, Hd, ns]
};

// Runs the decoder on one new token at position t over the caches; its rows into `rows`, the
// final hidden row returned.
std::vector<float> decode_step(const hf_model& m, std::int64_t input, std::size_t t,
                               const std::vector<kv_rows>& memory, std::vector<kv_cache>& caches,
                               seq2seq_forward& f, step_rows& rows) {
  const std::size_t Hd = f.decoder_heads, ns = f.ns;
  layer_context lc = decoder_context(m, 1, &f.stage_seconds);
  lc.past = t;
  rows.self.resize(f.decoder_layers * Hd * (t + 1));
  rows.cross.resize(f.decoder_layers * Hd * ns);
  matrix y = m.config.family->decoder_embed(m, {input}, t);
  for (std::size_t l = 0; l < f.decoder_layers; ++l) {
    decoder_io io;
    io.self_maps = rows.self.data() + l * Hd * (t + 1);
    io.cross_maps = rows.cross.data() + l * Hd * ns;
    io.cache = &caches[l];
    io.memory = &memory[l];
    m.config.family->decoder_block(lc, m.decoder_layers[l], y, io);
  }
  const matrix h = decoder_final(m, std::move(y));
  return std::vector<float>(h.row(0), h.row(0) + h.cols());
}

// The steps' rows as full maps: row t of each decoder map holds step t's t + 1 weights (zeros
// after them: the causal mask), row t of each cross map step t's.
void assemble(const std::vector<step_rows>& steps, seq2seq_forward& f) {
  const std::size_t L = f.decoder_layers, H = f.decoder_heads, nt = f.nt, ns = f.ns;
  f.decoder_attention = matrix(L * H * nt, nt);
  f.cross_attention = matrix::uninitialized(L * H * nt, ns);
  for (std::size_t t = 0; t < nt; ++t)
    for (std::size_t lh = 0; lh < L * H; ++lh) {
      const float* s = steps[t].self.data() + lh * (t + 1);
      std::copy(s, s + t + 1, f.decoder_attention.row(lh * nt + t));
      const float* c = steps[t].cross.data() + lh * ns;
      std::copy(c, c + ns, f.cross_attention.row(lh * nt + t));
    }
}

}  // namespace

void replay_cross_attention(const hf_model& m, const seq2seq_forward& f, map_taps& taps) {
  const std::size_t Hd = f.decoder_heads, nt = f.nt, ns = f.ns;
  stage_list times;
  layer_context lc = decoder_context(m, nt, &times);
  for (std::size_t l = 0; l < f.decoder_layers; ++l) {
    const attention_weights& w = m.decoder_layers[l].cross;
    for (std::size_t h = 0; h < Hd; ++h) {
      const float* map = f.cross_map(l, h);
      if (float* kept = taps.map_of(l, h)) std::copy(map, map + nt * ns, kept);
      taps.rows(l, h, 0, nt, map, ns);
    }
    const kv_rows memory = project_memory(lc, w, f.encoder_hidden);
    taps.values(
        {l, Hd, lc.kv_heads, lc.head_dim, ns, memory.v.data(), memory.v.cols(), w.o, lc.layout});
    taps.layer_done(l);
  }
}

matrix decoder_final_norm(const hf_model& m, matrix y) {
  return decoder_final(m, std::move(y));
}

matrix decoder_layer_output(const hf_model& m, const seq2seq_forward& f, std::size_t layer,
                            matrix y, std::size_t zeroed_target, std::size_t zeroed_source) {
  if (layer >= f.decoder_layers) throw std::logic_error("decoder_layer_output: no such layer");
  stage_list times;
  layer_context lc = decoder_context(m, y.rows(), &times);
  lc.spec.masks.rules = parse_masks("causal");
  lc.layer = layer;
  lc.zeroed_value = zeroed_target;
  kv_rows memory = project_memory(lc, m.decoder_layers[layer].cross, f.encoder_hidden);
  if (zeroed_source < memory.rows) std::fill_n(memory.v.row(zeroed_source), memory.v.cols(), 0.0f);
  decoder_io io;
  io.memory = &memory;
  m.config.family->decoder_block(lc, m.decoder_layers[layer], y, io);
  return y;
}

void trace_decoder(const hf_model& m, const seq2seq_forward& f, map_taps* self_taps,
                   map_taps* cross_taps, std::vector<matrix>* layer_inputs) {
  const std::size_t Hd = f.decoder_heads, nt = f.nt, ns = f.ns;
  stage_list times;
  layer_context lc = decoder_context(m, nt, &times);
  lc.spec.masks.rules = parse_masks("causal");
  lc.taps = self_taps;
  std::vector<float> self_maps(Hd * nt * nt), cross_maps(Hd * nt * ns);  // when not tapped
  matrix y = m.config.family->decoder_embed(m, f.decoder_inputs, 0);
  for (std::size_t l = 0; l < f.decoder_layers; ++l) {
    lc.layer = l;
    if (layer_inputs) layer_inputs->push_back(y);
    for (map_taps* taps : {self_taps, cross_taps})
      if (taps) taps->layer_input(l, y.data(), y.rows(), y.cols());
    const kv_rows memory = project_memory(lc, m.decoder_layers[l].cross, f.encoder_hidden);
    decoder_io io;
    io.self_maps = self_maps.data();
    io.cross_maps = cross_maps.data();
    io.memory = &memory;
    io.cross_taps = cross_taps;
    m.config.family->decoder_block(lc, m.decoder_layers[l], y, io);
    if (self_taps) self_taps->layer_done(l);
    if (cross_taps) cross_taps->layer_done(l);
  }
}

seq2seq_forward generate_seq2seq(const hf_model& m, const std::vector<std::int64_t>& source,
                                 std::size_t max_new, progress_style style) {
  if (max_new == 0) throw usage_error(fmt::format("{} must be at least 1", param("max-new")));
  max_new = std::min(max_new, m.config.max_positions);
  seq2seq_forward f;
  const std::vector<kv_rows> memory = encode(m, source, style, f);
  std::vector<kv_cache> caches(f.decoder_layers);
  for (kv_cache& cache : caches) cache.planned = max_new;
  std::vector<step_rows> steps;
  std::vector<std::vector<float>> hidden;
  std::int64_t input = m.config.decoder_start_id;
  std::mt19937_64 unused_rng;
  progress bar("generating", "tokens", max_new, style);
  for (std::size_t t = 0; t < max_new; ++t) {
    steps.emplace_back();
    hidden.push_back(decode_step(m, input, t, memory, caches, f, steps.back()));
    const std::int64_t next = t == 0 && m.config.forced_bos_id >= 0
                                  ? m.config.forced_bos_id
                                  : choose_token(output_logits(m, hidden.back().data()), m.config,
                                                 sampling{}, unused_rng);
    f.decoder_inputs.push_back(input);
    f.targets.push_back(next);
    input = next;
    bar.update(t + 1);
    if (next == m.config.eos_id) break;
  }
  bar.finish();
  f.nt = f.targets.size();
  assemble(steps, f);
  f.decoder_hidden = matrix::uninitialized(f.nt, m.config.d_model);
  for (std::size_t t = 0; t < f.nt; ++t)
    std::copy(hidden[t].begin(), hidden[t].end(), f.decoder_hidden.row(t));
  return f;
}

}  // namespace attnviz
