// attn-viz bench: time the pipeline on synthetic inputs and print the figures as JSON.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "jobs/bench_job.h"
#include "jobs/model_bench_job.h"
#include "jobs/product_bench_job.h"
#include "kernels/kernels.h"
#include "options.h"
#include "render/canvas.h"

namespace attnviz::cli {
namespace {

// The cache blocking the kernels ran with (kernels.h): figures from hosts with other caches are
// not comparable, and a forced blocking is said.
nlohmann::ordered_json blocking_json(const kernels::blocking& b = kernels::active_blocking()) {
  return {{"l1d", b.l1d},
          {"l2", b.l2},
          {"l3", b.l3},
          {"caches_from", b.caches_from},
          {"forced", b.forced},
          {"kc", b.kc},
          {"panels", b.panels},
          {"panel_depth", b.panel_depth},
          {"mc", b.mc},
          {"panel_a_bytes", b.panel_a_bytes},
          {"attention_floats", b.attention_floats}};
}

nlohmann::ordered_json to_json(const bench_report& r, const bench_config& c) {
  nlohmann::ordered_json j;
  j["n_q"] = r.n_q;
  j["n_k"] = r.n_k;
  j["d_model"] = r.d_model;
  j["heads"] = r.heads;
  j["d_k"] = r.d_k;
  j["d_v"] = r.d_v;
  j["score"] = c.spec.score;
  j["align"] = c.spec.align;
  j["context"] = c.spec.context;
  // the rest of what was timed, so a run says what it measured
  const attention_spec& v = c.spec;
  j["variant"] = {{"temperature", v.temperature},
                  {"hard", name_of(hard_mode_names, v.hard)},
                  {"projected", v.project},
                  {"combine", name_of(head_combine_names, v.combine)},
                  {"position", position_name(v.position)},
                  {"alibi_slope", v.alibi_slope},
                  {"convs2s", v.convs2s},
                  {"d_a", v.d_a},
                  {"sharpen", v.sharpen},
                  {"window", v.window},
                  {"masks", v.masks.describe()},
                  {"seed", c.seed},
                  {"parameters", c.params_in.empty() ? "seeded" : c.params_in + c.params_prefix}};
  j["scores_kept"] = c.spec.keep_scores && c.stream_pixels == 0;
  j["streamed"] = c.stream_pixels > 0;
  if (c.stream_pixels > 0) j["pixels"] = c.stream_pixels;
  j["threads"] = r.threads;
  j["isa"] = r.isa;
  j["blocking"] = blocking_json();
  j["warmup"] = c.warmup;
  j["reps"] = r.total_seconds.size();
  j["total_s"] = r.median_total;
  auto& stages = j["stages_s"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : r.median_stage) stages[name] = s;
  j["times_s"] = r.total_seconds;
  j["gflop"] = {
      {"project", r.gflop_project}, {"attend", r.gflop_attend}, {"combine", r.gflop_combine}};
  const double total_gflop = r.gflop_project + r.gflop_attend + r.gflop_combine;
  j["gflops"] = r.median_total > 0 ? total_gflop / r.median_total : 0.0;
  auto& rates = j["stage_gflops"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : r.median_stage) {
    const double g = name == "project"   ? r.gflop_project
                     : name == "combine" ? r.gflop_combine
                     : name == "attend"  ? r.gflop_attend
                                         : 0.0;
    if (g > 0 && s > 0) rates[name] = g / s;
  }
  j["peak_rss_mib"] = r.peak_rss_mib;
  if (c.png) {
    j["image"] = {{"width", r.image_width}, {"height", r.image_height}};
    j["png_bytes"] = r.png_bytes;
    j["png_level"] = png_level();
  }
  return j;
}

nlohmann::ordered_json to_json(const model_bench_report& r) {
  const model_config& c = r.config;
  nlohmann::ordered_json j;
  j["model"] = {{"model_type", c.model_type}, {"layers", c.layers}, {"d_model", c.d_model},
                {"heads", c.heads},           {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim},
                {"intermediate", c.intermediate}, {"vocab", c.vocab},
                {"weights_dtype", r.weights_dtype}};
  j["n"] = r.n;
  j["threads"] = r.threads;
  j["isa"] = r.isa;
  j["blocking"] = blocking_json();
  j["reps"] = r.total_seconds.size();
  j["load_s"] = r.load_seconds;
  j["total_s"] = r.median_total;
  auto& stages = j["stages_s"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : r.median_stage) stages[name] = s;
  j["times_s"] = r.total_seconds;
  j["gflop"] = {{"products", r.gflop_products}, {"attention", r.gflop_attention}};
  const double total = r.gflop_products + r.gflop_attention;
  j["gflops"] = r.median_total > 0 ? total / r.median_total : 0.0;
  j["tokens_per_s"] = r.median_total > 0 ? static_cast<double>(r.n) / r.median_total : 0.0;
  auto& views = j["views_s"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : r.view_seconds) views[name] = s;
  j["mapped_mib"] = r.mapped_mib;
  j["maps_mib"] = r.maps_mib;
  j["peak_rss_mib"] = r.peak_rss_mib;
  return j;
}

// The path the product took (kernels.h, product_plan): with the panel path, how many panels of
// nr columns a thread's group held, which panel_group may set below the blocking's panels.
nlohmann::ordered_json plan_json(const kernels::product_plan& p) {
  nlohmann::ordered_json j = {
      {"path", kernels::path_name(p.path)}, {"nr", p.nr}, {"panels", p.panels}};
  if (p.path == kernels::product_path::panel) j["group"] = p.group;
  return j;
}

nlohmann::ordered_json to_json(const product_bench_report& r, const product_bench_config& c) {
  nlohmann::ordered_json j;
  j["product"] = {{"m", c.m},
                  {"n", c.n},
                  {"k", c.k},
                  {"weights", c.weights == kernels::element_type::f32   ? "f32"
                              : c.weights == kernels::element_type::f16 ? "f16"
                                                                        : "bf16"}};
  j["threads"] = r.threads;
  j["isa"] = r.isa;
  j["gflop"] = r.gflop;
  j["b_copies"] = r.b_copies;
  j["warmup"] = c.warmup;
  j["rounds"] = c.rounds;
  auto& list = j["blockings"] = nlohmann::ordered_json::array();
  for (const product_bench_blocking& b : r.blockings)
    list.push_back(
        {{"spec", b.spec.empty() ? "default" : b.spec},
         {"blocking", blocking_json(b.sizes)},
         {"plan", plan_json(b.plan)},
         {"median_s", b.median_s},
         {"gflops", b.gflops},
         {"times_s", b.seconds},
         {"speed_vs_first", {{"median", b.speed_median}, {"q1", b.speed_q1}, {"q3", b.speed_q3}}},
         {"c_fnv1a", b.c_fnv1a}});
  return j;
}

// --product and the flags only it reads; every other bench flag is refused beside it.
struct product_flags {
  std::string shape, weights = "f32";
  std::vector<std::string> blockings;
  std::size_t rounds = 10;
};

CLI::Option* add_product_flags(CLI::App& cmd, product_flags& p) {
  CLI::Option* product =
      cmd.add_option("--product", p.shape,
                     "Time one product C = A B^T (A MxK, B NxK as a layer's weights) instead, "
                     "under each --blocking in turn, round after round")
          ->type_name("MxNxK")
          ->group("Product");
  cmd.add_option("--weights", p.weights, "With --product: B's element type")
      ->check(CLI::IsMember({"f32", "f16", "bf16"}))
      ->capture_default_str()
      ->group("Product")
      ->needs(product);
  cmd.add_option("--blocking", p.blockings,
                 "With --product: a blocking to time (ATTNVIZ_BLOCKING's form; 'default': the "
                 "one in use); repeat it to compare, speeds are against the first")
      ->type_name("SPEC")
      ->group("Product")
      ->needs(product);
  cmd.add_option("--rounds", p.rounds, "With --product: rounds, each timing every blocking once")
      ->capture_default_str()
      ->group("Product")
      ->needs(product);
  return product;
}

int run_product(const product_flags& p, std::size_t warmup, std::uint64_t seed) {
  product_bench_config config;
  parse_product_shape(p.shape, config);
  config.weights = p.weights == "f32"   ? kernels::element_type::f32
                   : p.weights == "f16" ? kernels::element_type::f16
                                        : kernels::element_type::bf16;
  config.blockings.clear();
  for (const std::string& spec : p.blockings)
    config.blockings.push_back(spec == "default" ? "" : spec);
  if (config.blockings.empty()) config.blockings.emplace_back();
  config.warmup = warmup;
  config.rounds = p.rounds;
  config.seed = seed;
  fmt::print("{}\n", to_json(product_bench_job(config), config).dump(2));
  return 0;
}

}  // namespace

action setup_bench(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  flags->spec.heads = 12;  // a Transformer layer's shape unless told otherwise
  flags->spec.seed = 1;
  auto config = std::make_shared<bench_config>();
  auto no_scores = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand(
      "bench",
      "Time attention on synthetic inputs: per-stage and total median seconds, GFLOP/s and peak "
      "memory, as JSON");
  cmd->footer(
      "Inputs are reproducible random vectors (--seed); each repetition is one full pipeline "
      "call, as `run` makes it, with the weights materialised for the picture. Every variant "
      "flag of `run` applies; --heads is 12 unless given (0: one attention straight on the "
      "vectors, no projections).\n"
      "Examples:\n"
      "  attn-viz bench --n 2048 --d 768 --heads 12\n"
      "  attn-viz --threads 1 bench --n 8192 --d 64 --heads 1\n"
      "  attn-viz bench --n 1024 --d 128 --heads 0 --score additive --da 128\n"
      "  attn-viz bench --n 65536 --d 64 --heads 1 --stream 2048 --png --warmup 0 --reps 1\n"
      "  attn-viz bench --model models/gpt2 --n 1024\n"
      "  attn-viz bench --product 1024x3072x768 --blocking panels=1 --blocking default\n"
      "With --model PATH, the whole forward pass of that model, a Hugging Face folder or a GGUF "
      "file (as `attn-viz model` runs it, every layer's maps kept) is timed on --n random token "
      "ids (--seed): "
      "stages, GFLOP/s, tokens/s, the mapped weights and peak memory; only --n, --seed, "
      "--warmup and --reps apply then.\n"
      "With --product MxNxK, one product C = A B^T with B fresh from memory each call (as a "
      "model's weights are) is timed under each --blocking in turn, every round; each "
      "blocking's speed against the first one's is taken within a round, so a host whose speed "
      "drifts still compares them. The JSON gives GFLOP/s, the paired speeds' median and "
      "quartiles, and a hash of C that every blocking shares (the blocking never changes a "
      "result's bytes).\n"
      "bench/run_benchmarks.py runs the shapes of bench/RESULTS.md against PyTorch and oneDNN; "
      "bench/run_model_benchmarks.py the model shapes against ../shared/bench/bench_model.py.");
  auto& c = *config;
  cmd->add_option("--n", c.n_q, "Query tokens (and keys, for self-attention)")
      ->capture_default_str()
      ->group("Shape");
  cmd->add_option("--nk", c.n_k, "Key tokens: cross attention with this many keys (0: self)")
      ->capture_default_str()
      ->group("Shape");
  cmd->add_option("--d", c.d_model, "Model (embedding) size d")
      ->capture_default_str()
      ->group("Shape");
  add_variant_flags(*cmd, *flags);
  cmd->add_flag("--no-scores", *no_scores,
                "Keep only the weights, not the raw scores (one n x n map less per head)")
      ->group("Timing");
  cmd->add_option("--warmup", c.warmup, "Untimed calls first")
      ->capture_default_str()
      ->group("Timing");
  cmd->add_option("--reps", c.reps, "Timed calls; the median is reported")
      ->capture_default_str()
      ->group("Timing");
  cmd->add_option("--stream", c.stream_pixels,
                  "Stream as `run --stream` does, pooling the weights into at most N x N pixels "
                  "(memory O(n d + N^2))")
      ->type_name("N")
      ->check(CLI::Range(1, 16384))
      ->group("Timing");
  cmd->add_flag("--png", c.png,
                "With --stream: also draw and PNG-encode the pooled picture each call (stage "
                "\"png\"; level from --png-level)")
      ->group("Timing");
  cmd->add_flag("--quiet,-q", c.quiet, "No progress bar on stderr while streaming")
      ->group("Timing");
  auto model_dir = std::make_shared<std::string>();
  CLI::Option* model = cmd->add_option("--model", *model_dir,
                                       "Time this model's forward pass instead (a Hugging Face "
                                       "folder or a GGUF file; --n tokens, default 512)")
                           ->type_name("PATH")
                           ->check(CLI::ExistingPath)
                           ->group("Model");
  auto product_in = std::make_shared<product_flags>();
  CLI::Option* product = add_product_flags(*cmd, *product_in);
  // With --model only the token count, the seed and the repetitions mean something; with
  // --product its own flags, the seed and the warm-up.
  for (CLI::Option* o : cmd->get_options()) {
    const std::string name = o->get_name();
    if (o != model && name != "--n" && name != "--seed" && name != "--warmup" &&
        name != "--reps" && name != "--help")
      model->excludes(o);
    if (o != product && o->get_group() != "Product" && name != "--seed" && name != "--warmup" &&
        name != "--help" && o != model)
      product->excludes(o);
  }
  return [cmd, flags, config, no_scores, model_dir, product_in] {
    if (!product_in->shape.empty())
      return run_product(*product_in, config->warmup, flags->spec.seed);
    if (!model_dir->empty()) {
      model_bench_config mb;
      mb.model_dir = *model_dir;
      mb.n = cmd->count("--n") ? config->n_q : 512;
      mb.warmup = config->warmup;
      mb.reps = config->reps;
      mb.seed = flags->spec.seed;
      fmt::print("{}\n", to_json(model_bench_job(mb)).dump(2));
      return 0;
    }
    bench_config run = *config;
    run.spec = resolve_spec(*flags);
    run.spec.keep_scores = !*no_scores;
    run.seed = run.spec.seed;
    run.params_in = flags->params_in;
    run.params_prefix = flags->params_prefix;
    const bench_report report = bench_job(run);
    fmt::print("{}\n", to_json(report, run).dump(2));
    return 0;
  };
}

}  // namespace attnviz::cli
