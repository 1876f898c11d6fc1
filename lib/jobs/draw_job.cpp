#include "jobs/draw_job.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "io/attention_file.h"
#include "io/npy_read.h"
#include "jobs/seq2seq_views.h"
#include "render/model_page.h"
#include "tokenizers/token_display.h"

namespace attnviz {

namespace {

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", shape[i]);
  return s + "]";
}

bool zero_above_diagonal(const std::vector<float>& maps, std::size_t n) {
  for (std::size_t at = 0; at < maps.size(); at += n * n)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j)
        if (maps[at + i * n + j] != 0.0f) return false;
  return n > 1;
}

// A token file's tokens, `count` of them.
std::vector<std::string> tokens_from(const std::string& path, std::size_t count,
                                     const char* what) {
  require_regular_file(path);
  std::vector<std::string> t = parse_token_list(read_whole_file(path), path);
  if (t.size() != count)
    throw input_error(path, fmt::format("holds {} tokens; the maps have {} {}", t.size(), count,
                                        what));
  return t;
}

// Cross-attention maps [layers, heads, n_q, n_k] (queries = target, keys = source): the views of
// jobs/seq2seq_views.h for --stack cross.
std::vector<std::string> draw_cross(const draw_job_config& c, draw_report& r) {
  if (!c.out.npy_dir.empty() || !c.out.html.empty())
    throw usage_error(fmt::format("{} draws cross attention as {} head, mean, max or alignment "
                                  "figures; {} and {} are for self-attention maps",
                                  param("key-tokens"), param("view"), param("npy"),
                                  param("html")));
  if (c.tokens.empty())
    throw usage_error(fmt::format("{} names the keys (the source); give the queries' tokens (the "
                                  "target) with {}",
                                  param("key-tokens"), param("tokens")));
  r.tokens = tokens_from(c.tokens, r.n, "query rows");
  r.key_tokens = tokens_from(c.key_tokens, r.n_k, "key columns");
  model_config m;
  m.decoder_layers = r.layers;
  m.decoder_heads = r.heads;
  check_seq2seq_view(c.choice, seq2seq_stack::cross, m, r.n_k, r.n, false);
  seq2seq_forward f;
  f.decoder_layers = r.layers;
  f.decoder_heads = r.heads;
  f.nt = r.n;
  f.ns = r.n_k;
  f.cross_attention = matrix(r.layers * r.heads * r.n, r.n_k, r.maps);
  const seq2seq_maps maps{&f, r.key_tokens, r.tokens,
                          std::filesystem::path(c.weights).filename().string(),
                          fmt::format("{}{} · {} layer{} × {} head{} · {} × {} tokens",
                                      r.what.empty() ? "" : r.what + " ", shape_text(r.shape),
                                      r.layers, r.layers == 1 ? "" : "s", r.heads,
                                      r.heads == 1 ? "" : "s", r.n, r.n_k)};
  job_products made;
  made.picture = [&] {
    return draw_seq2seq_view(maps, seq2seq_stack::cross, c.choice, align_method::argmax, "");
  };
  return write_outputs(c.out, made);
}

// The file's array as maps: its shape read as [layers, heads, n, n_k] (square unless cross),
// every weight finite; moved into r.
void take_maps(const draw_job_config& c, attention_file& file, draw_report& r) {
  npy_array& a = file.array;
  r.shape = file.stored;
  r.what = file.what;
  const auto& s = a.shape;
  r.cross = !c.key_tokens.empty();
  if (s.size() < 2 || s.size() > 4 || (!r.cross && s[s.size() - 1] != s[s.size() - 2]) ||
      s.back() == 0 || s[s.size() - 2] == 0)
    throw input_error(c.weights, fmt::format("holds an array of shape {}; attention maps are [n, n], "
                                             "[heads, n, n] or [layers, heads, n, n] with n >= 1{}",
                                             shape_text(s),
                                             r.cross ? " (with --key-tokens: [.., n_q, n_k])"
                                             : s.size() >= 2 && s.back() != s[s.size() - 2]
                                                 ? "; maps of n_q × n_k (cross attention) are "
                                                   "drawn with --key-tokens"
                                                 : ""));
  r.n = s[s.size() - 2];
  r.n_k = s.back();
  r.heads = s.size() >= 3 ? s[s.size() - 3] : 1;
  r.layers = s.size() == 4 ? s[0] : 1;
  if (r.heads == 0 || r.layers == 0)
    throw input_error(c.weights, fmt::format("holds no map (shape {})", shape_text(s)));
  for (std::size_t k = 0; k < a.values.size(); ++k)
    if (!std::isfinite(a.values[k])) {
      const std::size_t n2 = r.n * r.n_k, map = k / n2, i = k % n2 / r.n_k, j = k % r.n_k;
      throw input_error(c.weights, fmt::format("weight [layer {}, head {}, {}, {}] is {} (expected "
                                               "finite numbers)",
                                               map / r.heads, map % r.heads, i, j, a.values[k]));
    }
  r.maps = std::move(a.values);
}

}  // namespace

std::vector<std::string> parse_token_list(const std::string& text, const std::string& source) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    const nlohmann::json j = parse_json_text(text, source);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string())
        throw input_error(source, fmt::format("item {} of the JSON list is not a string (expected "
                                              "a list of token strings, as tokens.json)",
                                              i));
      out.push_back(j[i].get<std::string>());
    }
    return out;
  }
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
    at = end + 1;
  }
  return out;
}

maps_source draw_maps_source(const draw_report& r, const draw_job_config& c) {
  maps_source s;
  s.maps = r.maps.data();
  s.layers = r.layers;
  s.heads = r.heads;
  s.n = r.n;
  s.tokens = display_tokens(r.tokens);
  s.causal = r.causal;
  s.name = std::filesystem::path(c.weights).filename().string();
  s.subtitle = fmt::format("{}{} · {} layer{} × {} head{} · {} tokens",
                           r.what.empty() ? "" : r.what + " ", shape_text(r.shape), r.layers,
                           r.layers == 1 ? "" : "s", r.heads, r.heads == 1 ? "" : "s", r.n);
  return s;
}

draw_report run_draw_job(const draw_job_config& c) {
  check_job(c.out, c.choice.look);
  if (!c.out.npy_dir.empty() && !computes_map(c.choice.view))
    throw usage_error(fmt::format("{} writes the map of {} mean, max, rollout or flow; {} {} "
                                  "computes none",
                                  param("npy"), param("view"), param("view"),
                                  name_of(maps_view_names, c.choice.view)));
  require_regular_file(c.weights);
  const std::string ext = attention_file_ext(c.weights);
  const std::string bytes = read_whole_file(c.weights);
  check_read_memory(c.weights, attention_file_memory(bytes, ext, c.weights), c.max_memory);
  attention_file file = parse_attention_file(bytes, ext, c.key, c.weights);
  draw_report r;
  take_maps(c, file, r);
  if (r.cross) {
    r.written = draw_cross(c, r);
    return r;
  }
  if (!c.tokens.empty()) {
    require_regular_file(c.tokens);
    r.tokens = parse_token_list(read_whole_file(c.tokens), c.tokens);
    if (r.tokens.size() != r.n)
      throw input_error(c.tokens, fmt::format("holds {} tokens; the maps are {} x {}", r.tokens.size(),
                                              r.n, r.n));
  } else if (!file.tokens.empty()) {
    r.tokens = std::move(file.tokens);
    if (r.tokens.size() != r.n)
      throw input_error(c.weights, fmt::format("holds {} tokens; the maps are {} x {}",
                                               r.tokens.size(), r.n, r.n));
  } else {
    for (std::size_t i = 0; i < r.n; ++i) r.tokens.push_back(fmt::format("{}", i));
  }
  r.causal = c.causal == causal_mode::on ||
             (c.causal == causal_mode::automatic && zero_above_diagonal(r.maps, r.n));
  check_view_choice(c.choice, r.layers, r.heads, r.n, r.causal);
  if (!c.out.html.empty()) check_model_page_size(r.layers, r.heads, r.n);
  const maps_source source = draw_maps_source(r, c);
  job_products made;
  made.picture = [&] { return draw_view(source, c.choice); };
  made.html = [&] { return maps_page(source, c.choice); };
  made.npy = [&](output_batch& batch, const std::string& dir) {
    batch.add((std::filesystem::path(dir) / "view.npy").string(), view_npy(source, c.choice));
  };
  r.written = write_outputs(c.out, made);
  return r;
}

}  // namespace attnviz
