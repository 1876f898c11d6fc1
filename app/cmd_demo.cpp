// attn-viz demo: the main job on the bundled samples; prints where the heatmaps went.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/demo_job.h"
#include "report.h"

namespace attnviz::cli {

action setup_demo(CLI::App& app) {
  auto config = std::make_shared<demo_config>();
  config->out_dir = "attn-viz-demo";
  auto* cmd = app.add_subcommand(
      "demo", "Draw heatmaps of the bundled sample sentences with several variants");
  cmd->footer(R"(
Reads samples/sentences.txt, samples/pairs.tsv and samples/glove.6B.50d.sample.txt and writes,
for each figure, a PNG heatmap and its JSON (plus the parameters of seeded variants):
  - the first sentence under every score function,
  - the other sentences with scaled_dot,
  - each source/target pair as cross attention (scaled_dot and additive),
  - a compare grid of every score function on the first sentence.)");
  cmd->add_option("--out-dir,-o", config->out_dir, "Folder for the figures (created if missing)")
      ->capture_default_str();
  cmd->add_option("--samples", config->samples_dir,
                  "Samples folder [default: $ATTNVIZ_SAMPLES, the source tree's samples/, or the "
                  "installed one]");
  cmd->add_option("--seed", config->seed, "Seed for the parameters of learned score functions")
      ->capture_default_str();
  return [config] {
    demo_config c = *config;
    if (c.samples_dir.empty()) c.samples_dir = find_samples_dir();
    const bool tty = stderr_is_terminal();
    const auto report =
        run_demo(c, [tty](std::size_t done, std::size_t total, const std::string& name) {
          if (!tty) return;
          const std::size_t width = 30, filled = total ? width * done / total : width;
          fmt::print(stderr, "\r[{}{}] {}/{} {:<48.48}", std::string(filled, '#'),
                     std::string(width - filled, '.'), done, total, name);
          if (done == total) fmt::print(stderr, "\n");
        });
    print_warnings(report.warnings);
    print_written(report.written);
    fmt::print("{} files in {}/ (open the .png files to see the heatmaps)\n", report.written.size(),
               c.out_dir);
    return 0;
  };
}

}  // namespace attnviz::cli
