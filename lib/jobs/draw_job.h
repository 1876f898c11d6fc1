// `attn-viz draw`: attention weights another tool computed, drawn with every view `attn-viz
// model` has (maps_views.h) — the bertviz use for models attn-viz does not run.
//   weights  a .npy, .npz, .safetensors or .json file (io/attention_file.h) of [n, n] (one map),
//            [heads, n, n] (one layer) or [layers, heads, n, n] (a whole model, as `attn-viz
//            model --npy` writes it; row i = query i); `key` picks one array of several
//   tokens   a file of n tokens, one per line (a final newline is optional), or a JSON list of
//            n strings (as tokens.json); else a JSON weights file's "tokens"; else 0 … n − 1
//   causal   hide j > i in the figures: automatic when every map is 0 above the diagonal
//   key tokens  the keys' own tokens (cross attention: an encoder–decoder's source_tokens.json,
//            with --tokens its target_tokens.json): the maps may then be [.., n_q, n_k], drawn
//            as --view head, mean, max or alignment (jobs/seq2seq_views.h)
// Outputs: --png/--svg (the view), --npy DIR (view.npy for mean, max, rollout and flow).
// Bad input (another dtype or rank, maps that are not square, a token count that is not n, a
// value that is not finite) is an input_error naming the file; nothing is written.
#pragma once

#include <string>
#include <vector>

#include "enum_names.h"
#include "jobs/job_outputs.h"
#include "jobs/memory_guard.h"
#include "jobs/maps_views.h"

namespace attnviz {

enum class causal_mode { automatic, on, off };
inline constexpr named<causal_mode> causal_mode_names[] = {
    {"auto", causal_mode::automatic}, {"on", causal_mode::on}, {"off", causal_mode::off}};

struct draw_job_config {
  std::string weights;
  std::string key;  // the array of an .npz or .safetensors to draw
  std::string tokens;
  std::string key_tokens;  // cross attention: the keys' tokens (source), --tokens the queries'
  view_choice choice;
  causal_mode causal = causal_mode::automatic;
  job_outputs out;  // png, svg, npy_dir
  // Refuse, before reading past the file's headers, a file whose arrays would need more memory
  // than this to read (io/attention_file.h: attention_file_memory).
  std::uint64_t max_memory = default_memory_limit;
};

struct draw_report {
  std::vector<std::size_t> shape;  // as the file had it
  std::string what;                // which array(s) of the file, when it has several
  std::size_t layers = 0, heads = 0, n = 0;
  std::size_t n_k = 0;      // the keys (cross: may differ from n, the queries)
  bool cross = false;
  bool causal = false;
  std::vector<float> maps;  // [layers, heads, n, n_k]
  std::vector<std::string> tokens, key_tokens;
  std::vector<std::string> written;
};

draw_report run_draw_job(const draw_job_config& config);

// The report's maps as the views read them.
maps_source draw_maps_source(const draw_report& report, const draw_job_config& config);

// Tokens from a file's text: a JSON list of strings, or one per line.
std::vector<std::string> parse_token_list(const std::string& text, const std::string& source);

}  // namespace attnviz
