// attn-viz list: every registered variant with its formula, aliases, parameters and paper.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>

#include "attention/registry.h"
#include "commands.h"
#include "error.h"
#include "suggest.h"

namespace attnviz::cli {
namespace {

void print_entry(const variant_info& v, std::string_view usage = {}) {
  fmt::print("  {}", v.name);
  if (!v.aliases.empty()) fmt::print("  (also: {})", fmt::join(v.aliases, ", "));
  fmt::print("\n      {}\n      formula:    {}\n      parameters: {}\n      paper:      {}\n",
             v.summary, v.formula, v.parameters, v.paper);
  if (!usage.empty()) fmt::print("      run:        {}\n", usage);
  fmt::print("\n");
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
  cmd->add_option("stage", *which,
                  "Only one part: score, align, context, position, mask or structure")
      ->check(one_of({"all", "score", "align", "context", "position", "mask", "structure"}))
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
    if (w == "all" || w == "position")
      print_stage("Positions - how word order reaches the scores   (--position)",
                  position_registry());
    if (w == "all" || w == "mask") {
      fmt::print("Masks - keys hidden before alignment, combined with commas   (--mask, "
                 "--pad-keys)\n\n");
      for (const auto& e : mask_registry()) print_entry(e.info, e.usage);
    }
    if (w == "all" || w == "structure") {
      fmt::print("Structures - what feeds Q, K, V and how heads combine\n\n");
      for (const auto& e : structure_registry()) print_entry(e.info, e.usage);
    }
    return 0;
  };
}

}  // namespace attnviz::cli
