// What --view draws from an encoder–decoder run (model/seq2seq.h), by --stack:
//
//   encoder, decoder   the self-attention stacks, square like a decoder-only model's maps: every
//                      view of jobs/maps_views.h and the --html page (the decoder's causal)
//   cross              target pieces as rows, source pieces as columns:
//                        head        one head's map (--layer, --head)
//                        mean, max   over --layers × --heads
//                        alignment   the mean over --layers × --heads in words (sub-words
//                                    merged, analysis/word_alignment.h), source words as
//                                    columns, target words as rows, each target word's argmax
//                                    outlined: the word alignment the model's attention implies
//   --html             one page of the three stacks behind a Stack selector (render/model_page.h),
//                      opening on --stack; the self-attention stacks with the mean, max, rollout
//                      (and for short texts flow) of maps_page, the cross stack with its mean
//                      and max
#pragma once

#include <string>
#include <vector>

#include "analysis/word_alignment.h"
#include "enum_names.h"
#include "jobs/maps_views.h"
#include "model/logit_lens.h"
#include "model/seq2seq.h"

namespace attnviz {

enum class seq2seq_stack { encoder, decoder, cross };
inline constexpr named<seq2seq_stack> seq2seq_stack_names[] = {
    {"encoder", seq2seq_stack::encoder},
    {"decoder", seq2seq_stack::decoder},
    {"cross", seq2seq_stack::cross}};

struct seq2seq_maps {
  const seq2seq_forward* f = nullptr;
  std::vector<std::string> source_tokens, target_tokens;  // as the tokenizer writes them
  std::string name, subtitle;                             // the folder, the model's sizes
  const logit_lens* lens = nullptr;  // the decoder's, with --logit-lens (rows: its layers + 1)
};

// usage_error naming the flag for a choice the stack cannot draw, or (html) a page too large
// (n_target: the target's rows, or the most generation may make), before any work.
void check_seq2seq_view(const view_choice& c, seq2seq_stack stack, const model_config& m,
                        std::size_t n_source, std::size_t n_target, bool html, bool twice = false);

// A self-attention stack as the views of maps_views.h read it.
maps_source stack_source(const seq2seq_maps& s, seq2seq_stack stack);

// The cross maps of --layers × --heads (empty: all), their mean or their element-wise max:
// nt × ns.
matrix cross_reduce(const seq2seq_forward& f, const std::string& layers, const std::string& heads,
                    bool max);

// The alignment of --layers × --heads (mean cross map, in words).
word_map alignment_words(const seq2seq_maps& s, const view_choice& c);

// The --html page: every stack, opening on `open` at the choice's layer and head.
// With `weights` (a measure's run: its three stacks of weights), the page holds the weights'
// three stacks and then the measure's, named so, and opens on the measure's `open` stack.
std::string seq2seq_page(const seq2seq_maps& s, seq2seq_stack open, const view_choice& c,
                         const seq2seq_maps* weights = nullptr, const std::string& measure = "");

// The figure --view draws from the chosen stack; `gold_note` (e.g. "AER 0.31 against gold.txt")
// goes under an alignment's title.
figure draw_seq2seq_view(const seq2seq_maps& s, seq2seq_stack stack, const view_choice& c,
                         align_method method, const std::string& gold_note);

}  // namespace attnviz
