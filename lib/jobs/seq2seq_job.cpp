#include "jobs/seq2seq_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analysis/column_sums.h"
#include "attnviz/version.h"
#include "error.h"
#include "index_list.h"
#include "io/file_io.h"
#include "io/npy.h"
#include "jobs/logit_lens_outputs.h"
#include "jobs/memory_guard.h"
#include "tokenizers/token_display.h"
#include "tokenizers/vocabulary.h"

namespace attnviz {

namespace {

// The three stacks' maps (and their JSON) against --max-memory, before any work; generation
// counts max_new target rows.
void check_seq2seq_memory(const model_config& m, std::size_t ns, std::size_t nt,
                          const model_job_config& c) {
  const bool json = !c.out.json.empty();
  const auto stack = [&](std::size_t heads, std::size_t n_q, std::size_t n_k) {
    run_size s;
    s.heads = heads;
    s.n_q = n_q;
    s.n_k = n_k;
    s.json = json;
    return estimate_bytes(s);
  };
  std::uint64_t need = stack(m.layers * m.heads, ns, ns) +
                       stack(m.decoder_layers * m.decoder_heads, nt, nt + ns);
  if (c.measure && measures_every_stack(c.measure->name)) {  // every stack's maps twice, kept,
    const std::uint64_t maps = 4 * (m.layers * m.heads * ns * ns +  // and ALTI's buffers
                                    m.decoder_layers * m.decoder_heads * nt * (nt + ns));
    need += 3 * maps;
  }
  if (need <= c.max_memory) return;
  throw usage_error(fmt::format("keeping the three attentions of {} source and {} target tokens "
                                "would need about {}, more than the limit of {}: use shorter "
                                "texts{}, or raise the limit with {}",
                                ns, nt, format_bytes(need), limit_text(c.max_memory),
                                json ? fmt::format(", leave out {}", param("json")) : "",
                                param("max_memory")));
}

// The tokens' strings for ids (the folder's vocabulary, or the ids as numbers).
std::vector<std::string> names_of(const std::vector<std::int64_t>& ids,
                                  const std::optional<vocabulary>& vocab) {
  std::vector<std::string> out;
  for (const auto id : ids) out.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
  return out;
}

// The generated text: the targets without the end token and the forced first one.
std::string generated_text(const model_config& m, const model_report& r) {
  std::vector<std::string> words;
  for (std::size_t i = 0; i < r.seq2seq.targets.size(); ++i) {
    const std::int64_t id = r.seq2seq.targets[i];
    if (id == m.eos_id || (i == 0 && id == m.forced_bos_id) || id == m.decoder_start_id) continue;
    words.push_back(r.target_tokens[i]);
  }
  return tokens_to_text(words);
}

std::string dumped(const nlohmann::json& j) {
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void add_npy(output_batch& batch, const std::string& dir, const model_report& r) {
  namespace fs = std::filesystem;
  const seq2seq_forward& f = r.seq2seq;
  const auto at = [&](const char* name) { return (fs::path(dir) / name).string(); };
  // with contrib or alti the maps are the measure's, the weights kept apart
  const seq2seq_measured* alti = r.measured ? &*r.measured : nullptr;
  batch.add(at("encoder_attention.npy"),
            npy_float32({f.encoder_layers, f.encoder_heads, f.ns, f.ns},
                        (alti ? alti->encoder_weights : f.encoder_attention).data()));
  batch.add(at("decoder_attention.npy"),
            npy_float32({f.decoder_layers, f.decoder_heads, f.nt, f.nt},
                        (alti ? alti->decoder_weights : f.decoder_attention).data()));
  if (alti) add_measured_npy(batch, dir, *alti);
  if (r.lens) add_logit_lens_npy(batch, dir, *r.lens, "decoder_");
  const matrix& cross = alti        ? alti->cross_weights
                        : r.measure ? r.cross_weights
                                    : f.cross_attention;  // the weights
  batch.add(at("cross_attention.npy"),
            npy_float32({f.decoder_layers, f.decoder_heads, f.nt, f.ns}, cross.data()));
  if (r.measure)
    for (const streamed_npy* a : r.measure->arrays()) batch.add_streamed(a->path(), a->file());
  // the attention each token receives: every map's column sums (cross: each source token's,
  // from the target rows)
  const std::size_t Le = f.encoder_layers * f.encoder_heads;
  const std::size_t Ld = f.decoder_layers * f.decoder_heads;
  batch.add(at("encoder_received.npy"),
            npy_float32({f.encoder_layers, f.encoder_heads, f.ns},
                        column_sums(f.encoder_attention.data(), Le, f.ns).data()));
  batch.add(at("decoder_received.npy"),
            npy_float32({f.decoder_layers, f.decoder_heads, f.nt},
                        column_sums(f.decoder_attention.data(), Ld, f.nt).data()));
  batch.add(at("cross_received.npy"),
            npy_float32({f.decoder_layers, f.decoder_heads, f.ns},
                        column_sums(f.cross_attention.data(), Ld, f.nt, f.ns).data()));
  batch.add(at("source_ids.npy"), npy_int64({r.ids.size()}, r.ids.data()));
  batch.add(at("target_ids.npy"), npy_int64({f.targets.size()}, f.targets.data()));
  batch.add(at("source_tokens.json"), dumped(r.tokens));
  batch.add(at("target_tokens.json"), dumped(r.target_tokens));
  batch.add(at("decoder_hidden.npy"),
            npy_float32({f.decoder_hidden.rows(), f.decoder_hidden.cols()},
                        f.decoder_hidden.data()));
}

// [layers][heads][rows][cols] of a stack's maps.
nlohmann::json stack_json(const matrix& maps, std::size_t layers, std::size_t heads,
                          std::size_t rows, std::size_t cols) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t l = 0; l < layers; ++l) {
    nlohmann::json layer = nlohmann::json::array();
    for (std::size_t h = 0; h < heads; ++h) {
      nlohmann::json map = nlohmann::json::array();
      for (std::size_t i = 0; i < rows; ++i) {
        const float* row = maps.row((l * heads + h) * rows + i);
        map.push_back(std::vector<float>(row, row + cols));
      }
      layer.push_back(std::move(map));
    }
    out.push_back(std::move(layer));
  }
  return out;
}

std::string seq2seq_json(const model_report& r, const std::string& folder) {
  const seq2seq_forward& f = r.seq2seq;
  nlohmann::json j;
  j["producer"] = fmt::format("attn-viz {}", version);
  j["model"] = folder;
  j["model_type"] = r.config.model_type;
  j["summary"] = model_summary(r.config);
  if (r.measure) j["cross_measure"] = r.measure_name;
  if (r.lens) j["decoder_logit_lens"] = nlohmann::json::parse(logit_lens_json(*r.lens));
  if (r.measured) {
    j["measure"] = r.measured->measure;
    if (!r.measured->source_share.empty()) j["source_share"] = r.measured->source_share;
  }
  j["source"] = {{"ids", r.ids}, {"tokens", r.tokens}};
  j["target"] = {{"ids", f.targets}, {"tokens", r.target_tokens},
                 {"decoder_inputs", f.decoder_inputs}, {"generated", r.generated}};
  if (r.generated) j["generated_text"] = r.generated_text;
  if (!r.alignment.empty() || r.gold_scores) j["alignment"] = format_pharaoh(r.alignment);
  if (r.gold_scores)
    j["gold"] = {{"precision", r.gold_scores->precision()}, {"recall", r.gold_scores->recall()},
                 {"aer", r.gold_scores->aer()}};
  j["encoder_attention"] = stack_json(f.encoder_attention, f.encoder_layers, f.encoder_heads,
                                      f.ns, f.ns);
  j["decoder_attention"] = stack_json(f.decoder_attention, f.decoder_layers, f.decoder_heads,
                                      f.nt, f.nt);
  j["cross_attention"] = stack_json(f.cross_attention, f.decoder_layers, f.decoder_heads, f.nt,
                                    f.ns);
  return dumped(j);
}

// --measure on an encoder–decoder: the cross attention of a teacher-forced run.
void check_cross_measure(const model_job_config& c, bool forced) {
  if (!c.measure || !c.measure->make || measures_every_stack(c.measure->name)) return;
  if (!forced)  // norms: the cross attention alone, replayed
    throw usage_error(
        fmt::format("{} {} reads the cross attention of a given translation: add "
                    "{} TEXT (a run without it prints the model's own)",
                    param("measure"), c.measure->name, param("target")));
  if (c.stack != seq2seq_stack::cross)
    throw usage_error(fmt::format(
        "{} {} measures an encoder–decoder's cross attention: leave "
        "out {} {}",
        param("measure"), c.measure->name, param("stack"), name_of(seq2seq_stack_names, c.stack)));
}

// The measure's maps in place of the cross attention's weights (kept in r.cross_weights), its
// arrays to --npy as cross_*.npy.
void measure_cross_attention(const hf_model& m, const model_job_config& c, model_report& r) {
  r.measure = measure_cross_only(m, *c.measure, r.seq2seq, r.cross_weights, c.out.npy_dir);
  r.measure_name = std::string(c.measure->name);
}

// The view, --html and the alignment flags against the stack, before any work.
void check_choice(const model_job_config& c, const model_config& m, std::size_t ns,
                  std::size_t nt) {
  if (c.choice.view == maps_view::alignment && c.stack != seq2seq_stack::cross)
    throw usage_error(fmt::format("{} alignment reads the cross attention: leave out {} {}",
                                  param("view"), param("stack"),
                                  name_of(seq2seq_stack_names, c.stack)));
  if (c.term && c.stack == seq2seq_stack::cross)
    throw usage_error(fmt::format("{} draws a self-attention stack of an encoder–decoder model: "
                                  "add {} encoder or {} decoder",
                                  param("term"), param("stack"), param("stack")));
  if (c.out.figure() || !c.out.html.empty() || c.term)
    check_seq2seq_view(c.choice, c.stack, m, ns, nt, !c.out.html.empty(),
                       c.measure && measures_every_stack(c.measure->name));
  if (!c.align_path.empty() || !c.gold_path.empty()) {
    if (!c.choice.layers.empty()) parse_index_list(c.choice.layers, m.decoder_layers, "layers", "layer");
    if (!c.choice.heads.empty()) parse_index_list(c.choice.heads, m.decoder_heads, "heads", "head");
  }
}

}  // namespace

// --logit-lens: each decoder layer's input (the decoder traced again over its inputs) through
// the decoder's final norm and the output embeddings, at every target row; the last row the
// model's own output.
void decoder_logit_lens(const hf_model& m, const model_job_config& c, model_report& r) {
  std::vector<matrix> inputs;
  trace_decoder(m, r.seq2seq, nullptr, nullptr, &inputs);
  lens_stack decoder;
  decoder.layers = r.seq2seq.decoder_layers;
  decoder.final_norm = [&m](matrix y) { return decoder_final_norm(m, std::move(y)); };
  r.lens = run_logit_lens(
      m, [&](std::size_t l) { return inputs[l]; }, r.seq2seq.decoder_hidden,
      std::max<std::size_t>(1, c.top_k), c.progress, decoder);
  const std::optional<vocabulary>& vocab = r.vocab.get();
  for (const std::int64_t id : r.lens->top_ids)
    r.lens->tokens.push_back(vocab ? vocab->token(id) : fmt::format("{}", id));
}

void run_seq2seq_job(const hf_model& m, const model_job_config& c, model_report& r) {
  const model_config& mc = m.config;
  r.encoder_decoder = true;
  if ((c.top_k > 0 && !c.top_k_if_possible && !wants_logit_lens(c)) || c.name_heads)
    throw usage_error(
        fmt::format("{} (but with {}) and {} read a decoder-only or encoder-only "
                    "model's predictions and heads; {} is an encoder–decoder model",
                    param("top-k"), param("logit_lens"), param("name-heads"), c.model_dir));
  model_input in = read_model_input(c.model_dir, c.text, c.ids, mc.max_positions);
  r.ids = std::move(in.ids);
  r.tokens = std::move(in.tokens);
  r.warnings = std::move(in.warnings);
  r.vocab = std::move(in.vocab);
  const bool forced = !c.target_text.empty() || !c.target_ids.empty();
  std::vector<std::int64_t> target;
  if (forced) {
    model_input t = read_model_input(c.model_dir, c.target_text, c.target_ids, mc.max_positions,
                                     "target", "target-ids");
    target = std::move(t.ids);
    r.target_tokens = std::move(t.tokens);
  }
  check_cross_measure(c, forced);
  const std::size_t nt_most = forced ? target.size() : std::min(c.max_new, mc.max_positions);
  check_seq2seq_memory(mc, r.ids.size(), nt_most, c);
  check_choice(c, mc, r.ids.size(), nt_most);
  const std::optional<gold_alignment> gold =
      c.gold_path.empty() ? std::optional<gold_alignment>() : read_gold_file(c.gold_path);
  r.generated = !forced;
  r.seq2seq = forced ? run_seq2seq(m, r.ids, target, c.progress)
                     : generate_seq2seq(m, r.ids, c.max_new, c.progress);
  if (r.generated) {
    r.target_tokens = names_of(r.seq2seq.targets, r.vocab.get());
    r.generated_text = generated_text(mc, r);
  }
  if (c.measure && measures_every_stack(c.measure->name)) {
    r.measured = measure_every_stack(m, c.measure->name, r.ids, r.seq2seq);
    r.measure_name = std::string(c.measure->name);
  } else if (c.measure && c.measure->make) {
    measure_cross_attention(m, c, r);
  }
  const std::string folder = folder_name(c.model_dir);
  const std::string summary =
      r.measured  ? fmt::format("{} · {} (every stack)", model_summary(mc), r.measure_name)
      : r.measure ? fmt::format("{} · cross: {}", model_summary(mc), r.measure_name)
                  : model_summary(mc);
  if (wants_logit_lens(c)) decoder_logit_lens(m, c, r);
  const seq2seq_maps maps{&r.seq2seq, r.tokens, r.target_tokens,
                          folder,     summary,  r.lens ? &*r.lens : nullptr};
  std::string gold_note;
  if (!c.align_path.empty() || gold) {
    const word_map words = alignment_words(maps, c.choice);
    r.alignment = align_words(words.values, c.method);
    if (gold) {
      check_gold_words(*gold, words, c.gold_path);
      r.gold_scores.emplace();
      r.gold_scores->add(r.alignment, *gold);
      gold_note = fmt::format("AER {:.3f} against {}", r.gold_scores->aer(),
                              std::filesystem::path(c.gold_path).filename().string());
    }
  }
  job_products made;
  made.json = [&] { return seq2seq_json(r, folder); };
  made.npy = [&](output_batch& batch, const std::string& dir) { add_npy(batch, dir, r); };
  made.picture = [&] { return draw_seq2seq_view(maps, c.stack, c.choice, c.method, gold_note); };
  made.html = [&] {
    if (!r.measured) return seq2seq_page(maps, c.stack, c.choice);
    seq2seq_forward weights = r.seq2seq;  // the same run with its weights back in place
    weights.encoder_attention = r.measured->encoder_weights;
    weights.decoder_attention = r.measured->decoder_weights;
    weights.cross_attention = r.measured->cross_weights;
    const seq2seq_maps plain{&weights, r.tokens, r.target_tokens, folder, model_summary(mc)};
    return seq2seq_page(maps, c.stack, c.choice, &plain, r.measure_name);
  };
  output_batch batch;
  add_outputs(batch, c.out, made);
  if (!c.align_path.empty()) batch.add(c.align_path, format_pharaoh(r.alignment) + "\n");
  r.written = batch.commit();
}

}  // namespace attnviz
