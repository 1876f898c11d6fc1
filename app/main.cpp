// attn-viz: wires the subcommands, parses, and turns errors into one message and an exit code.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "attnviz/version.h"
#include "commands.h"
#include "error.h"
#include "io/file_io.h"
#include "kernels/kernels.h"
#include "render/canvas.h"
#include "report.h"
#include "suggest.h"

namespace {

// Every command's last step: what it printed must have reached standard output (and its
// messages standard error). A full disk or a closed pipe is an error like any other: exit 2.
int finish(int code, int stdout_errno = 0) {
  errno = 0;
  if (std::fflush(stdout) != 0 && errno != 0) stdout_errno = errno;
  if (std::ferror(stdout) || stdout_errno != 0) {
    fmt::print(stderr, "attn-viz: error: standard output: cannot write: {}\n",
               std::strerror(stdout_errno != 0 ? stdout_errno : EIO));
    std::fflush(stderr);
    return 2;
  }
  if (std::fflush(stderr) != 0 || std::ferror(stderr)) return 2;
  return code;
}

// The files each command reads, protected from its outputs (attnviz::guard_input): every
// option of the chosen subcommand that takes a FILE outside the "Output" group, and standard
// input when it is redirected from a file.
void guard_inputs(const CLI::App& app) {
  attnviz::guard_stdin();
  for (const CLI::App* cmd : app.get_subcommands())
    for (const CLI::Option* opt : cmd->get_options()) {
      if (opt->get_type_name() != "FILE" || opt->get_group() == "Output") continue;
      for (const auto& value : opt->results()) attnviz::guard_input(value, opt->get_name());
    }
}

// Every unsigned integer option refuses a negative value (CLI11 would wrap "-1" to 2^64 - 1).
// Walks the whole tree after the subcommands are declared, so a new option gets it too.
void refuse_negative_unsigned(CLI::App& app) {
  static const CLI::Validator non_negative(
      [](std::string& value) -> std::string {
        const auto first = value.find_first_not_of(" \t");
        if (first != std::string::npos && value[first] == '-')
          return fmt::format("must be 0 or more, got {}", value);
        return {};
      },
      "", "non-negative");
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_name() == "UINT") opt->check(non_negative);
  for (CLI::App* sub : app.get_subcommands({})) refuse_negative_unsigned(*sub);
}

// --threads: at most 4 threads per core (more only slows the kernels, and a huge count makes
// the OpenMP runtime try to allocate stacks for all of them).
std::size_t max_threads() {
  return 4 * std::max(1u, std::thread::hardware_concurrency());
}

int print_errno = 0;  // the error of a print to standard output that threw

// --help and --version: printed here, so a failure to write them is seen (finish reports it).
int print_help(const CLI::App& app, const CLI::ParseError& e) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  const std::string text = out.str();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    print_errno = errno;
  fmt::print(stderr, "{}", err.str());
  return code;
}

// Called in a catch block: the command's one message on stderr and its exit code (2 for what
// the user can fix, 1 for a bug or an environment failure). Library messages name parameters;
// they are shown as flags (cli_text).
int report_error() {
  using namespace attnviz;
  try {
    throw;
  } catch (const input_error& e) {
    fmt::print(stderr, "attn-viz: error: {}\n", cli::cli_text(e.marked()));
    return 2;
  } catch (const usage_error& e) {
    fmt::print(stderr, "attn-viz: error: {}\n", cli::cli_text(e.marked()));
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr,
               "attn-viz: error: out of memory: the run needs more than this machine has; use "
               "fewer tokens or a lower --max-memory so the size check stops it first\n");
    return 2;
  } catch (const std::system_error& e) {
    if (std::ferror(stdout)) {  // a failed print: main's finish reports it
      print_errno = e.code().value();
      return 2;
    }
    fmt::print(stderr, "attn-viz: internal error: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "attn-viz: internal error: {}\n", e.what());
    return 1;
  }
}

// --version: the release, then what the kernels run with here (a benchmark's figures depend on
// both lines).
std::string version_text() {
  using namespace attnviz;
  return fmt::format("attn-viz {}\nkernels: {} (this CPU: {}), {} threads\nblocking: {}", version,
                     kernels::active_isa(), fmt::join(kernels::available_isas(), ", "),
                     kernels::threads(), kernels::describe(kernels::active_blocking()));
}

// --threads and --isa, applied before any kernel runs or --version describes them; then
// ATTNVIZ_BLOCKING, read now: a bad value is an error before any work, never a throw from a
// kernel called inside a parallel loop (align's pairs).
void use_kernel_options(std::size_t threads, const std::string& isa) {
  using namespace attnviz;
  if (threads > max_threads())
    throw usage_error(
        fmt::format("--threads {}: at most {} (4 per core; this machine has {} cores)", threads,
                    max_threads(), max_threads() / 4));
  if (threads > 0) kernels::set_threads(threads);
  if (!isa.empty()) kernels::use_isa(isa);
  (void)kernels::active_blocking();
}

int run(int argc, char** argv) {
  using namespace attnviz;
  std::size_t threads = 0;
  std::string isa;
  CLI::App app{
      "attn-viz: see what an attention mechanism does to a sentence.\n"
      "Every variant runs through three stages - score e_ij, align a_ij, context c_i - "
      "and is drawn as a heatmap (PNG) and written as data (JSON)."};
  // --threads and --isa are stored as they are parsed (trigger_on_parse), so --version, whose
  // callback runs after the whole line is read, describes the kernels they choose.
  app.set_version_flag(
      "--version",
      [&] {
        use_kernel_options(threads, isa);
        return version_text();
      },
      "Print the version, the kernels' instruction set and the cache blocking "
      "they use on this machine, and exit");
  app.require_subcommand(1);
  app.footer("Start with:  attn-viz demo      then  attn-viz run --help  and  attn-viz list");
  app.fallthrough();  // --threads / --isa may also follow the subcommand
  int png_level = default_png_level;
  app.add_option("--threads,-j", threads,
                 "CPU threads for the parallel kernels (default: OMP_NUM_THREADS, else every core)")
      ->trigger_on_parse();
  app.add_option("--isa", isa,
                 "Kernel instruction set: generic, avx2 or avx512 (default: the best this CPU "
                 "has; also ATTNVIZ_ISA)")
      ->trigger_on_parse();
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
      {"model", cli::setup_model(app)},
      {"heads", cli::setup_heads(app)},
      {"faithfulness", cli::setup_faithfulness(app)},
      {"align", cli::setup_align(app)},
      {"draw", cli::setup_draw(app)},
      {"list", cli::setup_list(app)},
      {"demo", cli::setup_demo(app)},
      {"bench", cli::setup_bench(app)},
      {"man", cli::setup_man(app)},
      {"completion", cli::setup_completion(app)}};
  refuse_negative_unsigned(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return print_help(app, e);  // --help, --version
    const std::string unknown = cli::unknown_word_message(app, argc, argv);
    if (!unknown.empty())
      fmt::print(stderr, "attn-viz: error: {}\n", unknown);
    else
      fmt::print(stderr, "attn-viz: error: {} (see 'attn-viz --help')\n", e.what());
    return 2;
  } catch (...) {  // --version with a bad --threads, --isa, ATTNVIZ_BLOCKING or ATTNVIZ_ISA
    return report_error();
  }
  try {
    use_kernel_options(threads, isa);
    set_png_level(png_level);
    set_notice_handler([](const std::string& note) {
      fmt::print(stderr, "attn-viz: note: {}\n", note);
    });
    guard_inputs(app);
    for (const auto& [name, act] : commands)
      if (app.got_subcommand(name)) return act();
    return 2;
  } catch (...) {
    return report_error();
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int code = run(argc, argv);
  return finish(code, print_errno);
}
