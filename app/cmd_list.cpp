// attn-viz list: every registered variant with its formula, aliases, parameters and paper.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "attention/registry.h"
#include "commands.h"
#include "error.h"

namespace attnviz::cli {
namespace {

void print_entry(const variant_info& v) {
  fmt::print("  {}", v.name);
  if (!v.aliases.empty()) fmt::print("  (also: {})", fmt::join(v.aliases, ", "));
  fmt::print("\n      {}\n      formula:    {}\n      parameters: {}\n      paper:      {}\n\n",
             v.summary, v.formula, v.parameters, v.paper);
}

template <class Entries>
void print_stage(const char* title, const Entries& entries) {
  fmt::print("{}\n\n", title);
  for (const auto& e : entries) print_entry(e.info);
}

}  // namespace

action setup_list(CLI::App& app) {
  auto which = std::make_shared<std::string>("all");
  auto* cmd = app.add_subcommand("list", "List every attention variant with formula and paper");
  cmd->add_option("stage", *which, "Only one stage: score, align or context")
      ->check(CLI::IsMember({"all", "score", "align", "context"}))
      ->capture_default_str();
  return [which] {
    const std::string& w = *which;
    if (w == "all" || w == "score")
      print_stage("Stage 1 - score functions  e_ij = score(q_i, k_j)   (--score)",
                  score_registry());
    if (w == "all" || w == "align")
      print_stage("Stage 2 - alignment functions  a_i = align(e_i)   (--align)", align_registry());
    if (w == "all" || w == "context")
      print_stage("Stage 3 - context functions  c_i = context(a_i, V)   (--context)",
                  context_registry());
    return 0;
  };
}

}  // namespace attnviz::cli
