#include "jobs/heads_job.h"
#include "jobs/map_keeper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "attnviz/version.h"
#include "error.h"
#include "model/seq2seq.h"
#include "jobs/model_job.h"
#include "model/forward.h"
#include "model/hf_model.h"
#include "params/rng.h"

namespace attnviz {

namespace {

// [CLS], [SEP], <s>, </s>, <|endoftext|>, …: the names tokenizers give their special tokens.
bool special_token(const std::string& t) {
  if (t.size() >= 3 && t.front() == '[' && t.back() == ']')
    return std::all_of(t.begin() + 1, t.end() - 1, [](char c) { return c >= 'A' && c <= 'Z'; });
  return t.size() >= 3 && t.front() == '<' && t.back() == '>' &&
         t.find(' ') == std::string::npos;
}

head_pattern strongest(const head_finding& f, double threshold) {
  head_pattern best = head_pattern::mixed;
  double top = threshold;
  for (const head_pattern p : ranked_patterns)
    if (f.score(p) >= top) {
      top = f.score(p);
      best = p;
    }
  return best;
}

double rounded(double v) { return std::round(v * 1e6) / 1e6; }

std::string heads_json(const heads_report& r, const heads_job_config& c) {
  using json = nlohmann::ordered_json;
  json j;
  j["attn-viz"] = fmt::format("attn-viz {}", version);
  j["model"] = {{"model_type", r.config.model_type},
                {"layers", r.stack == "decoder" ? r.config.decoder_layers : r.config.layers},
                {"heads", r.stack == "decoder" ? r.config.decoder_heads : r.config.heads},
                {"folder", c.model_dir}};
  if (!r.stack.empty()) j["model"]["stack"] = r.stack;
  j["measured_on"] = r.on_text ? "text" : "random";
  j["tokens"] = r.tokens;
  j["random"] = {{"period", r.period}, {"seed", c.seed}, {"ids", r.random_ids}};
  json heads = json::array();
  for (const head_finding& f : r.heads) {
    json h = {{"layer", f.layer},
              {"head", f.head},
              {"pattern", std::string(pattern_name(f.pattern))},
              {"entropy_bits", rounded(f.stats.entropy_bits)},
              {"distance", rounded(f.stats.distance)},
              {"first", rounded(f.stats.first)},
              {"previous", rounded(f.stats.previous)},
              {"self", rounded(f.stats.self)}};
    h["special"] = f.stats.marked ? json(rounded(*f.stats.marked)) : json(nullptr);
    h["induction"] = rounded(f.induction);
    json also = json::array();
    for (const head_pattern p : f.also) also.push_back(std::string(pattern_name(p)));
    h["also"] = std::move(also);
    heads.push_back(std::move(h));
  }
  j["heads"] = std::move(heads);
  json ranking;
  for (const head_pattern p : ranked_patterns) {
    json list = json::array();
    for (const head_finding* f : r.ranked(p))
      list.push_back(json::array({f->layer, f->head, rounded(f->score(p))}));
    ranking[std::string(pattern_name(p))] = std::move(list);
  }
  j["ranking"] = std::move(ranking);
  return j.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string_view pattern_name(head_pattern p) {
  switch (p) {
    case head_pattern::previous_token: return "previous-token";
    case head_pattern::first_token: return "first-token";
    case head_pattern::induction: return "induction";
    case head_pattern::self: return "self";
    case head_pattern::mixed: break;
  }
  return "mixed";
}

double head_finding::score(head_pattern p) const {
  switch (p) {
    case head_pattern::previous_token: return stats.previous;
    case head_pattern::first_token: return stats.first;
    case head_pattern::induction: return induction;
    case head_pattern::self: return stats.self;
    case head_pattern::mixed: break;
  }
  return 0.0;
}

std::vector<const head_finding*> heads_report::ranked(head_pattern p) const {
  std::vector<const head_finding*> out;
  for (const head_finding& f : heads) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [p](const head_finding* a, const head_finding* b) {
    return a->score(p) > b->score(p);
  });
  return out;
}

std::vector<std::int64_t> repeated_random_ids(std::size_t period, std::size_t vocab,
                                              std::uint64_t seed) {
  splitmix64 rng(seed, "heads.random_ids");
  std::vector<std::int64_t> ids(2 * period);
  for (std::size_t i = 0; i < period; ++i)
    ids[i] = ids[i + period] = static_cast<std::int64_t>(rng.next() % vocab);
  return ids;
}

std::size_t finder_period(const model_config& config, std::size_t requested,
                          const std::string& model_dir) {
  if (requested == 1) throw usage_error(param("period") + " must be at least 2");
  const std::size_t period =
      requested ? requested : std::min<std::size_t>(50, config.max_positions / 2);
  if (period < 2)
    throw input_error(model_dir, fmt::format("has {} positions: too few for a sequence said twice",
                                             config.max_positions));
  if (2 * period > config.max_positions)
    throw usage_error(fmt::format("{} {}: the random sequence (2 x {} tokens) is longer than the "
                                  "model's {} positions",
                                  param("period"), period, period, config.max_positions));
  return period;
}

std::vector<bool> special_tokens(const std::vector<std::string>& tokens) {
  std::vector<bool> special(tokens.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) special[i] = special_token(tokens[i]);
  return special;
}

std::vector<head_stats> measure_model_heads(const hf_model& m, const std::vector<std::int64_t>& ids,
                                            const std::vector<std::string>& tokens,
                                            progress_style progress) {
  keep_request plan;
  plan.layers = m.config.layers;
  plan.heads = m.config.heads;
  plan.n = ids.size();
  plan.causal = m.config.causal;
  plan.keep.assign(plan.layers * plan.heads, false);
  plan.measure = true;
  plan.marked = special_tokens(tokens);
  map_keeper keeper(std::move(plan));
  run_model(m, ids, progress, nullptr, &keeper);
  return keeper.stats();
}

std::vector<head_finding> find_heads(const model_forward& random, std::size_t period,
                                     const std::vector<head_stats>& stats, double threshold) {
  std::vector<head_finding> out;
  for (std::size_t l = 0; l < random.layers; ++l)
    for (std::size_t h = 0; h < random.heads; ++h) {
      head_finding f;
      f.layer = l;
      f.head = h;
      f.stats = stats[l * random.heads + h];
      f.induction = induction_score(random.map(l, h), period);
      f.pattern = strongest(f, threshold);
      for (const head_pattern p : ranked_patterns)
        if (p != f.pattern && f.pattern != head_pattern::mixed && f.score(p) >= threshold)
          f.also.push_back(p);
      std::stable_sort(f.also.begin(), f.also.end(),
                       [&](head_pattern a, head_pattern b) { return f.score(a) > f.score(b); });
      out.push_back(f);
    }
  return out;
}

std::string finding_caption(const head_finding& f) {
  auto one = [&](head_pattern p) -> std::string {
    switch (p) {
      case head_pattern::previous_token: return fmt::format("previous {:.2f}", f.stats.previous);
      case head_pattern::first_token: return fmt::format("first {:.2f}", f.stats.first);
      case head_pattern::induction: return fmt::format("induction {:.2f}", f.induction);
      case head_pattern::self: return fmt::format("self {:.2f}", f.stats.self);
      case head_pattern::mixed: break;
    }
    return {};
  };
  std::string caption = one(f.pattern);
  for (const head_pattern p : f.also) caption += "\n" + one(p);
  return caption;
}

namespace {

// "encoder" or "decoder" for an encoder–decoder model (default the decoder), "" for the others;
// usage_error for a stack that does not apply.
std::string searched_stack(const model_config& m, const std::string& stack) {
  if (!m.encoder_decoder) {
    if (!stack.empty())
      throw usage_error(fmt::format("{} picks a stack of an encoder–decoder model; {} has one",
                                    param("stack"), m.model_type));
    return "";
  }
  if (stack == "cross")
    throw usage_error(fmt::format("{} cross: the head finder's patterns (previous token, "
                                  "induction, …) are self-attention's; compare --stack cross "
                                  "--gold ranks cross heads by alignment",
                                  param("stack")));
  return stack.empty() ? "decoder" : stack;
}

// The maps of the searched stack over `ids`: the model's (the encoder's), or the decoder's,
// teacher-forced on the same ids (its rows read [start, ids[0], …]).
model_forward stack_forward(const hf_model& m, const std::string& stack,
                            const std::vector<std::int64_t>& ids, progress_style progress) {
  if (stack != "decoder") return run_model(m, ids, progress);
  seq2seq_forward s = run_seq2seq(m, ids, ids, progress);
  model_forward f;
  f.layers = s.decoder_layers;
  f.heads = s.decoder_heads;
  f.n = s.nt;
  f.attention = std::move(s.decoder_attention);
  f.hidden = std::move(s.decoder_hidden);
  f.stage_seconds = std::move(s.stage_seconds);
  return f;
}

}  // namespace

heads_report run_heads_job(const heads_job_config& c) {
  if (!(c.threshold >= 0.0 && c.threshold <= 1.0))
    throw usage_error(fmt::format("{} must lie in [0, 1], got {}", param("threshold"), c.threshold));
  check_job(c.out, view_options{});
  const hf_model m = load_model(c.model_dir);
  refuse_vision(m.config, c.model_dir, "attn-viz heads");
  heads_report r;
  r.config = m.config;
  r.stack = searched_stack(m.config, c.stack);
  r.period = finder_period(m.config, c.period, c.model_dir);
  r.random_ids = repeated_random_ids(r.period, m.config.vocab, c.seed);
  r.on_text = !c.text.empty() || !c.ids.empty();
  model_input in = read_model_input(c.model_dir, c.text, r.on_text ? c.ids : r.random_ids,
                                    m.config.max_positions);
  r.tokens = std::move(in.tokens);
  r.warnings = std::move(in.warnings);
  const model_forward random = stack_forward(m, r.stack, r.random_ids, c.progress);
  std::vector<head_stats> stats;
  if (!r.on_text) {
    stats = measure_heads(random.map(0, 0), random.layers * random.heads, random.n,
                          special_tokens(r.tokens));
  } else if (r.stack == "decoder") {
    const model_forward text = stack_forward(m, r.stack, in.ids, c.progress);
    stats = measure_heads(text.map(0, 0), text.layers * text.heads, text.n,
                          special_tokens(r.tokens));
  } else {  // row by row: no map kept, so as long as the model's positions allow
    stats = measure_model_heads(m, in.ids, r.tokens, c.progress);
  }
  r.heads = find_heads(random, r.period, stats, c.threshold);
  job_products made;
  made.json = [&] { return heads_json(r, c); };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
