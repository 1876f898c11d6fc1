// Before the pipeline allocates anything that grows with n_q × n_k: estimate the memory the run
// will need and stop with a clear message past a limit, instead of being killed by the OS.
//
// Estimate (bytes), for V variants, H heads, n_q queries, n_k keys, d_v value size, d_k key
// size, d_model the vectors' size:
//   matrices   V · H · (2 · n_q · n_k + n_q · d_v) · 4          scores, weights, context
//   parameters P = (d_model · H · (2 d_k + d_v) + H · d_v · d_model   W_Q, W_K, W_V, W^O (when
//                   + H · 2 · d_a · d_k) · 4                       projecting) and the score's
//              held twice (the store and the working copy;          W (when it has one)
//              measured: run --heads 16 --dk 65536 peaks at 1.86 GB for 2P = 1.68 GB), and
//              twice more with --params-out (the file's bytes built in memory)
//   projected  H · (n_q · d_k + n_k · d_k + n_k · d_v) · 4         Q, K, V
//   JSON       V · H · (2 · n_q · n_k + n_q · d_v) · 16         text, about 13 bytes a number
//              (the maps are written as text straight away, never held as JSON values)
//   image      V · (n_k · cell + 400) · (n_q · cell + 400) · 3  RGB raster (+ as much to encode)
// The default limit is 8 GiB (--max-memory).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnviz {

inline constexpr std::uint64_t default_memory_limit = 8ull << 30;

struct run_size {
  std::uint64_t n_q = 0, n_k = 0, d_v = 0;
  std::uint64_t heads = 1, variants = 1;
  bool json = false;
  bool image = false;
  int cell = 0;  // 0: default_cell
  // the parameters and projections (0: none; set by with_parameters)
  std::uint64_t d_model = 0, d_k = 0;
  bool projected = false;
  std::uint64_t score_params = 0;  // floats of the score's own tensors, per head
  bool params_out = false;
};

struct attention_spec;
// `size` with the parameters and projections a run of `spec` on d_model-sized vectors holds
// (the same d_k and d_v rules as the pipeline), and whether it writes them (--params-out).
run_size with_parameters(run_size size, const attention_spec& spec, std::size_t d_model,
                         bool params_out);

std::uint64_t estimate_bytes(const run_size& size);
// The parameters' and projections' part of it.
std::uint64_t parameter_bytes(const run_size& size);

// Throws usage_error saying how much the run would take and what to do instead.
void check_memory(const run_size& size, std::uint64_t limit);

// Throws usage_error when reading the file at `path` would need more than `limit` (bytes, as
// its headers declare them), naming --max-memory.
void check_read_memory(const std::string& path, std::uint64_t need, std::uint64_t limit);

// "512M", "8G", "1.5G", "1000000" (bytes; K, M, G, T are powers of 1024; an optional B or iB).
std::uint64_t parse_size(std::string_view text, std::string_view flag);
// --max-memory's limit for a run: parse_size(text), or less when the system allows less
// (jobs/system_memory.h: ulimit -v, the cgroup's memory.max), which limit_text then names.
std::uint64_t memory_limit(std::string_view text, std::string_view flag);
// "8.0 GiB", or "1.2 GiB (what the address-space limit (ulimit -v) leaves this process)" for
// the limit memory_limit took from the system: how every refusal states its limit.
std::string limit_text(std::uint64_t limit);
std::string format_bytes(std::uint64_t bytes);

}  // namespace attnviz
