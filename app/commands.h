// One subcommand per file: setup_<cmd> declares its flags on the parent app and returns the
// action to run after parsing (which calls lib/ and reports; it never computes attention).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace attnviz::cli {

using action = std::function<int()>;

action setup_run(CLI::App& app);
action setup_list(CLI::App& app);
action setup_demo(CLI::App& app);
action setup_bench(CLI::App& app);
action setup_compare(CLI::App& app);
action setup_explain(CLI::App& app);
action setup_transformer(CLI::App& app);
action setup_aoa(CLI::App& app);
action setup_han(CLI::App& app);
action setup_model(CLI::App& app);
action setup_heads(CLI::App& app);
action setup_faithfulness(CLI::App& app);
action setup_align(CLI::App& app);
action setup_draw(CLI::App& app);
action setup_man(CLI::App& app);
action setup_completion(CLI::App& app);

}  // namespace attnviz::cli
