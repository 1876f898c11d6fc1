// attn-viz: wires the subcommands, parses, and turns errors into one message and an exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "attnviz/version.h"
#include "commands.h"
#include "error.h"
#include "kernels/kernels.h"
#include "render/canvas.h"

int main(int argc, char** argv) {
  using namespace attnviz;
  CLI::App app{
      "attn-viz: see what an attention mechanism does to a sentence.\n"
      "Every variant runs through three stages - score e_ij, align a_ij, context c_i - "
      "and is drawn as a heatmap (PNG) and written as data (JSON)."};
  app.set_version_flag("--version", fmt::format("attn-viz {}", version));
  app.require_subcommand(1);
  app.footer("Start with:  attn-viz demo      then  attn-viz run --help  and  attn-viz list");
  app.fallthrough();  // --threads / --isa may also follow the subcommand
  std::size_t threads = 0;
  std::string isa;
  int png_level = default_png_level;
  app.add_option(
      "--threads,-j", threads,
      "CPU threads for the parallel kernels (default: OMP_NUM_THREADS, else every core)");
  app.add_option("--isa", isa,
                 "Kernel instruction set: generic, avx2 or avx512 (default: the best this CPU "
                 "has; also ATTNVIZ_ISA)");
  app.add_option("--png-level", png_level,
                 "PNG compression: 0 (fastest, largest) to 9 (smallest, slowest)")
      ->check(CLI::Range(0, 9))
      ->capture_default_str();
  // name and action of each subcommand, in the order --help lists them
  const std::pair<const char*, cli::action> commands[] = {
      {"run", cli::setup_run(app)},
      {"compare", cli::setup_compare(app)},
      {"explain", cli::setup_explain(app)},
      {"transformer", cli::setup_transformer(app)},
      {"aoa", cli::setup_aoa(app)},
      {"han", cli::setup_han(app)},
      {"list", cli::setup_list(app)},
      {"demo", cli::setup_demo(app)},
      {"bench", cli::setup_bench(app)},
      {"man", cli::setup_man(app)},
      {"completion", cli::setup_completion(app)}};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "attn-viz: error: {} (see 'attn-viz --help')\n", e.what());
    return 2;
  }
  try {
    if (threads > 0) kernels::set_threads(threads);
    if (!isa.empty()) kernels::use_isa(isa);
    set_png_level(png_level);
    for (const auto& [name, act] : commands)
      if (app.got_subcommand(name)) return act();
    return 2;
  } catch (const input_error& e) {
    fmt::print(stderr, "attn-viz: error: {}\n", e.what());
    return 2;
  } catch (const usage_error& e) {
    fmt::print(stderr, "attn-viz: error: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "attn-viz: error: out of memory: the run needs more than this machine has; use "
               "fewer tokens or a lower --max-memory so the size check stops it first\n");
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "attn-viz: internal error: {}\n", e.what());
    return 1;
  }
}
