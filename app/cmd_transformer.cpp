// attn-viz transformer: the Transformer's three attentions for one sentence pair.
#include <fmt/format.h>

#include <memory>

#include "commands.h"
#include "jobs/transformer_job.h"
#include "options.h"
#include "report.h"

namespace attnviz::cli {

action setup_transformer(CLI::App& app) {
  auto flags = std::make_shared<common_flags>();
  flags->position = "sinusoidal";  // as in the paper
  flags->spec.heads = 1;
  auto config = std::make_shared<transformer_config>();
  auto* cmd = app.add_subcommand(
      "transformer",
      "The Transformer's three attentions for a sentence pair: encoder self, masked decoder "
      "self, encoder-decoder");
  cmd->footer(R"(
One figure, three panels (Vaswani et al. 2017):
  encoder self-attention          source over source              encoder.self_attn.*
  masked decoder self-attention   target over target, j <= i      decoder.self_attn.*
  encoder-decoder attention       target (queries) over source    decoder.cross_attn.*
Each is multi-head attention with its own projections and W^O, under its prefix in --params /
--params-out (q_proj.weight, k_proj.weight, v_proj.weight, out_proj.weight, or a torch
in_proj_weight). A PyTorch nn.Transformer state_dict loads as is: --layer K reads
encoder.layers.K.self_attn, decoder.layers.K.self_attn and decoder.layers.K.multihead_attn
(its feed-forward and norms are not drawn); --params-prefix P reads either layout under P. Positions are sinusoidal unless --position says otherwise. All three read the
word embeddings: one layer's attentions, without the residual, layer-norm and feed-forward
sublayers. With several heads the panels show the mean over heads (--head-view max or N).

Examples:
  attn-viz transformer --source "the cat sat on the mat" --target "le chat est assis" --png t.png
  attn-viz transformer --source "..." --target "..." --heads 5 --json t.json --params-out t.st)");
  add_pair_flags(*cmd, *flags, "Source sentence: the encoder's input (keys of the cross attention)",
                 "Target sentence: the decoder's input (queries of the cross attention)");
  add_embedding_flags(*cmd, *flags);
  add_variant_flags(*cmd, *flags);
  // every attention here is multi-head attention with its projections: --project would be a no-op
  cmd->remove_option(cmd->get_option("--project"));
  cmd->add_option("--layer", config->layer,
                  "With --params holding a PyTorch nn.Transformer state_dict: which layer of its "
                  "encoder and decoder stacks, from 0")
      ->capture_default_str()
      ->group("Parameters");
  add_view_flags(*cmd, *flags, false);
  add_output_flags(
      *cmd, config->out,
      {{output_kind::json, "Write the three attentions (per head, with outputs) as JSON"},
       {output_kind::png},
       {output_kind::svg},
       {output_kind::params,
        "Write every parameter used, under the three prefixes (safetensors)"}});
  return [flags, config] {
    transformer_config c = *config;
    resolve_job(*flags, c);
    const transformer_report report = run_transformer(c);
    print_warnings(report.warnings);
    if (report.written.empty())
      for (const auto& a : report.attentions) {
        fmt::print("{}\n", a.title);
        print_terminal_view(a.result, c.view, false);
        fmt::print("\n");
      }
    print_written(report.written);
    return 0;
  };
}

}  // namespace attnviz::cli
