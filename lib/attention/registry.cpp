#include "attention/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>

#include "error.h"
#include "names.h"

namespace attnviz {

const std::vector<score_entry>& score_registry() {
  static const std::vector<score_entry> entries = {
      {{"dot",
        {"luong-dot"},
        "dot product of query and key",
        "e_ij = q_i . k_j",
        "none (needs d_q = d_k)",
        "Luong, Pham, Manning 2015, Effective Approaches to Attention-based Neural Machine "
        "Translation",
        "Luong's simplest score: no parameters, so it only measures how aligned q and k already "
        "are; its size grows with d_k, which pushes softmax into saturation (see scaled_dot)."},
       score_dot,
       false,
       true,
       /*uses_sharpen=*/false,
       /*uses_d_a=*/false,
       fused_score::dot},
      {{"scaled_dot",
        {"transformer", "sdp"},
        "dot product scaled by 1/sqrt(d_k), keeps softmax out of saturation",
        "e_ij = q_i . k_j / sqrt(d_k)",
        "none (needs d_q = d_k)",
        "Vaswani et al. 2017, Attention Is All You Need",
        "dot divided by sqrt(d_k): for unit-variance q and k the dot product has variance d_k, so "
        "the scaling keeps scores near unit size and softmax out of its flat, saturated regions "
        "(Transformer)."},
       score_scaled_dot,
       false,
       true,
       /*uses_sharpen=*/false,
       /*uses_d_a=*/false,
       fused_score::scaled_dot},
      {{"general",
        {"bilinear", "multiplicative", "luong-general"},
        "bilinear form with a learned matrix",
        "e_ij = q_i^T W k_j",
        "score.W [d_q, d_k]",
        "Luong, Pham, Manning 2015",
        "Luong's multiplicative score: a learned W lets query and key live in different spaces "
        "(d_q != d_k) and decides which directions matter; with W = I it is dot."},
       score_general,
       true,
       true},
      {{"additive",
        {"bahdanau"},
        "one-hidden-layer MLP on the sum of projected query and key",
        "e_ij = v^T tanh(W_q q_i + W_k k_j + b)",
        "score.W_q [d_a, d_q], score.W_k [d_a, d_k], score.v [d_a], score.b [d_a]",
        "Bahdanau, Cho, Bengio 2015, Neural Machine Translation by Jointly Learning to Align "
        "and Translate",
        "Bahdanau's score: an MLP on W_q q + W_k k, so it can score non-linearly; Bahdanau scored "
        "the previous decoder state s_{i-1}, Luong's scores use the current state h_i. Costs "
        "O(d_a) per pair instead of one dot product."},
       score_additive,
       true,
       true,
       /*uses_sharpen=*/false,
       /*uses_d_a=*/true},
      {{"concat",
        {"luong-concat", "mlp"},
        "MLP on the concatenation [q_i ; k_j]; equals additive with W = [W_q W_k], b = 0",
        "e_ij = v^T tanh(W [q_i ; k_j])",
        "score.W [d_a, d_q + d_k], score.v [d_a]",
        "Luong, Pham, Manning 2015",
        "Luong's MLP on the concatenation [q; k]; algebraically additive with W = [W_q W_k] and no "
        "bias, written the way Luong et al. wrote it."},
       score_concat,
       true,
       true,
       /*uses_sharpen=*/false,
       /*uses_d_a=*/true},
      {{"cosine",
        {"content", "ntm"},
        "cosine similarity, times a sharpening factor beta (--sharpen)",
        "e_ij = beta * q_i . k_j / (|q_i| |k_j|)",
        "none (needs d_q = d_k)",
        "Graves, Wayne, Danihelka 2014, Neural Turing Machines",
        "content-based addressing of the Neural Turing Machine: dot product of unit vectors, so "
        "vector lengths stop mattering; beta sharpens (beta > 1) or flattens the focus."},
       score_cosine,
       false,
       true,
       /*uses_sharpen=*/true},
      {{"location",
        {"luong-location"},
        "scores key positions from the query alone, blind to key content",
        "e_i = W q_i  (e_ij = row j of W applied to q_i)",
        "score.W [n_max, d_q], n_max >= n_k",
        "Luong, Pham, Manning 2015",
        "Luong's location-based score looks only at the query: it learns which positions to attend "
        "to, whatever the keys say."},
       score_location,
       true,
       true},
      {{"relative",
        {"transformer-xl", "rel"},
        "Transformer-XL relative-position score: content, position and two global biases",
        "e_ij = (q_i.k_j + q_i.(W_R r_{i-j}) + u.k_j + w.(W_R r_{i-j})) / sqrt(d_k),  r = "
        "sinusoid of i-j",
        "score.W_R [d_k, d_k], score.u [d_k], score.w [d_k] (needs d_q = d_k)",
        "Dai et al. 2019, Transformer-XL: Attentive Language Models Beyond a Fixed-Length "
        "Context",
        "where sinusoidal encoding adds absolute positions to the inputs, relative puts the offset "
        "i - j into the score itself (term 2: this query's taste for offsets, term 4: everyone's), "
        "with u.k_j a query-independent preference for some keys; the map depends on distance, "
        "not on where the sentence starts."},
       score_relative,
       true,
       false},
  };
  return entries;
}

const std::vector<align_entry>& align_registry() {
  static const std::vector<align_entry> entries = {
      {{"softmax",
        {"global"},
        "normalised exponentials of the scores, with temperature tau (--temperature)",
        "a_ij = exp((e_ij - max_k e_ik)/tau) / sum_k exp((e_ik - max_k e_ik)/tau)",
        "none",
        "Bahdanau, Cho, Bengio 2015",
        "global attention: every key gets some weight; lower temperature sharpens towards hardmax, "
        "higher flattens towards uniform."},
       align_softmax,
       true,
       true,
       /*uses_window=*/false,
       /*fused=*/true},
      {{"hardmax",
        {"argmax", "one-hot"},
        "all weight on the best-scoring key (the first one on ties)",
        "a_ij = 1 if j = argmax_k e_ik (first on ties), else 0",
        "none",
        "TensorFlow seq2seq hardmax",
        "all weight on one key: not differentiable, so models trained with it need sampling "
        "(REINFORCE) or straight-through tricks."},
       align_hardmax,
       false,
       true},
      {{"sparsemax",
        {"sparse"},
        "Euclidean projection onto the simplex: like softmax, but with exact zeros",
        "a_ij = max(e_ij/tau - theta_i, 0), theta_i such that sum_j a_ij = 1",
        "none",
        "Martins, Astudillo 2016, From Softmax to Sparsemax",
        "like softmax but a Euclidean projection: keys below a threshold get exactly 0, so the "
        "support is small and readable."},
       align_sparsemax,
       true,
       true},
      {{"entmax15",
        {"entmax", "1.5-entmax"},
        "alpha-entmax with alpha = 1.5: between softmax and sparsemax, sparse but smooth",
        "a_ij = max(e_ij/(2 tau) - theta_i, 0)^2, theta_i such that sum_j a_ij = 1",
        "none",
        "Peters, Niculae, Martins 2019, Sparse Sequence-to-Sequence Models",
        "between softmax (alpha = 1) and sparsemax (alpha = 2): sparse, but smoother than "
        "sparsemax."},
       align_entmax15,
       true,
       true},
      {{"local-m",
        {"local_m", "local-monotonic"},
        "softmax inside a window of half-width D (--window) around p_i = i",
        "a_ij = softmax over |j - p_i| <= D of e_ij/tau, p_i = i (scaled when n_q != n_k)",
        "none (needs --window D)",
        "Luong, Pham, Manning 2015 (local attention, monotonic)",
        "Luong's local attention with a fixed, monotonic centre p_i = i: cheap, assumes source and "
        "target are roughly aligned."},
       align_local_m,
       true,
       false,
       /*uses_window=*/true},
      {{"local-p",
        {"local_p", "local-predictive"},
        "softmax in a window around a predicted position, times a Gaussian (sigma = D/2)",
        "p_i = n_k sigmoid(v_p^T tanh(W_p q_i)); a_ij ~ softmax_window(e_ij/tau) "
        "exp(-(j - p_i)^2 / (2 sigma^2)), renormalised",
        "align.W_p [d_q, d_q], align.v_p [d_q] (needs --window D)",
        "Luong, Pham, Manning 2015 (local attention, predictive)",
        "Luong's local attention with a learned centre and a Gaussian preference for keys near it: "
        "it can move its focus, unlike local-m."},
       align_local_p,
       true,
       false,
       /*uses_window=*/true},
  };
  return entries;
}

const std::vector<context_entry>& context_registry() {
  static const std::vector<context_entry> entries = {
      {{"soft",
        {"deterministic", "weighted-sum"},
        "weighted average of the values",
        "c_i = sum_j a_ij v_j",
        "none",
        "Bahdanau, Cho, Bengio 2015; Xu et al. 2015, Show, Attend and Tell",
        "deterministic: the context is a weighted average of every value, so it is differentiable "
        "end to end."},
       context_soft,
       true,
       /*uses_hard_mode=*/false,
       /*fused=*/true},
      {{"hard",
        {"stochastic"},
        "one value, sampled from a_i (seeded) or the argmax with --hard argmax",
        "c_i = v_{j*}, j* ~ a_i  (or j* = argmax_j a_ij)",
        "none (uses --seed when sampling)",
        "Xu et al. 2015, Show, Attend and Tell",
        "stochastic: the context is one value, drawn from the weights (Xu et al.'s hard "
        "attention); cheaper at inference, trained by sampling."},
       context_hard,
       false,
       /*uses_hard_mode=*/true},
  };
  return entries;
}

namespace {

template <class Entry>
const Entry& find_in(const std::vector<Entry>& entries, std::string_view name, stage s) {
  const std::string key = normalise_name(name);
  for (const auto& e : entries) {
    if (normalise_name(e.info.name) == key) return e;
    for (auto alias : e.info.aliases)
      if (normalise_name(alias) == key) return e;
  }
  std::vector<std::string_view> known;
  std::vector<std::pair<std::string_view, std::string_view>> candidates;
  for (const auto& e : entries) {
    known.push_back(e.info.name);
    candidates.emplace_back(e.info.name, e.info.name);
    for (auto alias : e.info.aliases) candidates.emplace_back(alias, e.info.name);
  }
  throw_unknown_name(fmt::format("{} function", stage_name(s)), name, known, candidates,
                     "'attn-viz list'");
}

}  // namespace

const score_entry& find_score(std::string_view name) {
  return find_in(score_registry(), name, stage::score);
}
const align_entry& find_align(std::string_view name) {
  return find_in(align_registry(), name, stage::align);
}
const context_entry& find_context(std::string_view name) {
  return find_in(context_registry(), name, stage::context);
}

const std::vector<position_entry>& position_registry() {
  static const std::vector<position_entry> entries = {
      {{"none",
        {},
        "no positional information: the map only sees content",
        "q, k, v from the embeddings as they are",
        "none",
        "-",
        "without positions, attention is a function of the set of words: permuting the sentence "
        "permutes the map."},
       position_scheme::none},
      {{"sinusoidal",
        {"absolute"},
        "absolute sinusoidal encoding added to the embeddings before the projections",
        "x'_p = x_p + PE(p),  PE(p, 2i) = sin(p / 10000^(2i/d)),  PE(p, 2i+1) = cos(...)",
        "none",
        "Vaswani et al. 2017, Attention Is All You Need",
        "adds the position to the word vector itself, so values carry it too; unlike rope and "
        "alibi the score sees absolute positions, mixed with content."},
       position_scheme::sinusoidal},
      {{"rope",
        {"rotary"},
        "rotary encoding: q and k rotated pairwise by position-dependent angles",
        "(x_2i, x_2i+1) at position p rotated by p * 10000^(-2i/d_k);  q_m . k_n depends on m - n",
        "none",
        "Su et al. 2021, RoFormer: Enhanced Transformer with Rotary Position Embedding",
        "rotates queries and keys (not values) so their dot product depends only on the offset "
        "m - n: relative position through the score, without any learned parameter."},
       position_scheme::rope},
      {{"alibi",
        {},
        "linear distance penalty added to the scores, one slope per head",
        "e_ij - m_h |i - j|,  m_h = m^h, m = 2^(-8/H) (or --alibi-slope)",
        "none",
        "Press, Smith, Lewis 2022, Train Short, Test Long: Attention with Linear Biases",
        "no change to q, k or v: a fixed bias that grows linearly with distance, so far keys fade "
        "by a known amount; each head gets its own slope, from local to wide."},
       position_scheme::alibi},
  };
  return entries;
}

const std::vector<mask_entry>& mask_registry() {
  static const std::vector<mask_entry> entries = {
      {{"causal",
        {},
        "each query sees itself and the keys before it",
        "key j visible to query i iff j <= i (else e_ij = -inf, a_ij = 0)",
        "none",
        "Vaswani et al. 2017 (masked decoder self-attention)",
        "what a language model's decoder uses, so a token never sees the ones it must predict."},
       "--mask causal"},
      {{"window",
        {},
        "each query sees the keys at most R positions away",
        "key j visible to query i iff |i - j| <= R",
        "R (--mask window:R)",
        "Vaswani et al. 2017 (restricted self-attention); Beltagy et al. 2020 (Longformer)",
        "local attention by masking: the map keeps a band of width 2R + 1 around the diagonal."},
       "--mask window:R"},
      {{"dilated",
        {},
        "each query sees every K-th key counted from itself",
        "key j visible to query i iff |i - j| mod K = 0",
        "K (--mask dilated:K)",
        "Child et al. 2019 (strided sparse attention); atrous self-attention",
        "a sparse pattern that still reaches far: stripes parallel to the diagonal."},
       "--mask dilated:K"},
      {{"pad",
        {"padding"},
        "the listed key positions are padding: no query sees them",
        "key j visible iff j is not in the list",
        "the key positions (--pad-keys 7,8)",
        "every batched implementation (key_padding_mask in PyTorch)",
        "hides columns; a query whose every key is hidden gets zero weights, listed in masked_rows."},
       "--pad-keys 7,8"}};
  return entries;
}

const std::vector<structure_entry>& structure_registry() {
  static const std::vector<structure_entry> entries = {
      {{"self",
        {},
        "queries, keys and values from one sentence",
        "Q = K = V = X (raw), or X W_Q^T, X W_K^T, X W_V^T with --project",
        "q_proj.weight, k_proj.weight, v_proj.weight [d_k, d] with --project",
        "Vaswani et al. 2017; Cheng, Dong, Lapata 2016 (intra-attention)",
        "every word looks at every word of its own sentence; raw, the map is word similarity."},
       "attn-viz run --text \"...\" [--project]"},
      {{"cross",
        {"encoder-decoder"},
        "queries from the target sentence, keys and values from the source",
        "Q = target, K = V = source",
        "as self",
        "Bahdanau, Cho, Bengio 2015",
        "the classic alignment of translation: each target word over the source words."},
       "attn-viz run --source \"...\" --target \"...\""},
      {{"multihead",
        {"multi-head", "mha"},
        "H heads with their own projections, concatenated and projected by W^O",
        "head_h = attention(Q W_h^Q, K W_h^K, V W_h^V);  output = concat(head_1..H) W^O^T + b",
        "q_proj/k_proj/v_proj.weight [H d_k, d] (or in_proj_weight [3d, d]), out_proj.weight "
        "[d, H d_v], out_proj.bias [d]",
        "Vaswani et al. 2017",
        "heads see the sentence through different projections; the figure shows each head and "
        "their mean (or max)."},
       "attn-viz run --text \"...\" --heads 4"},
      {{"weighted",
        {"weighted-transformer"},
        "Weighted Transformer: heads combined by normalised learned weights instead of concat",
        "output = sum_h kappa_h (head_h W_h^O^T) + b,  kappa = combine.kappa / sum(combine.kappa)",
        "as multihead, plus combine.kappa [H] (seeded: all 1, so kappa_h = 1/H)",
        "Ahmed, Keskar, Socher 2017, Weighted Transformer Network for Machine Translation",
        "concat sums every head's W_h^O projection with weight 1; weighted gives each head a "
        "learned share kappa_h (the paper's alpha-weighted feed-forward branches are not "
        "attention and are left out)."},
       "attn-viz run --text \"...\" --heads 4 --combine weighted"},
      {{"transformer",
        {},
        "the three attentions of the Transformer for one sentence pair",
        "encoder self (source), masked decoder self (target, causal), encoder-decoder "
        "(target over source)",
        "encoder.self_attn.*, decoder.self_attn.*, decoder.cross_attn.* (each as multihead)",
        "Vaswani et al. 2017",
        "one figure with all three, so the causal triangle and the cross alignment sit side by "
        "side."},
       "attn-viz transformer --source \"...\" --target \"...\""},
      {{"memory",
        {"key-value", "qkv"},
        "keys and values from different sequences (soft addressing of a memory)",
        "c_i = sum_j a_ij v_j with a_ij from (q_i, k_j) and v_j from another sequence",
        "as self / cross",
        "Miller et al. 2016, Key-Value Memory Networks; Sukhbaatar et al. 2015",
        "the weights come from the keys, what is read comes from the values: attention as "
        "soft dictionary look-up."},
       "attn-viz run --source KEYS --target QUERY --values VALUES"},
      {{"convs2s",
        {},
        "ConvS2S values: encoder output plus input embedding",
        "score on z_j (keys), read v_j = z_j + e_j",
        "as self / cross (d_k = d with --project)",
        "Gehring et al. 2017, Convolutional Sequence to Sequence Learning",
        "keys are the encoder outputs z_j, but the values add the word embeddings e_j back, so "
        "the context keeps point information about the input words."},
       "attn-viz run ... --values convs2s"},
      {{"han",
        {"hierarchical"},
        "hierarchical attention: words within each sentence, then sentences in the document",
        "u_it = tanh(W_w h_it + b_w), a_it = softmax_t(u_it . u_w), s_i = sum_t a_it h_it; "
        "u_i = tanh(W_s s_i + b_s), alpha_i = softmax_i(u_i . u_s), v = sum_i alpha_i s_i",
        "han.W_w [d, d], han.b_w [d], han.u_w [d], han.W_s [d, d], han.b_s [d], han.u_s [d]",
        "Yang et al. 2016, Hierarchical Attention Networks for Document Classification",
        "a learned query vector (u_w, u_s) instead of another word: attention as pooling, twice. "
        "h_it are the word vectors here (the paper runs a bidirectional GRU first)."},
       "attn-viz han --document \"...\" or --file FILE (one sentence per line)"},
      {{"aoa",
        {"attention-over-attention"},
        "attention-over-attention for a document and a query",
        "M = D Q^T, alpha = column-wise softmax(M), beta = row-wise softmax(M), "
        "beta_bar = mean of beta's rows, s = alpha beta_bar^T",
        "none",
        "Cui et al. 2017, Attention-over-Attention Neural Networks for Reading Comprehension",
        "instead of one query vector, every query word attends over the document (alpha) and "
        "their votes are weighted by how much each matters to the document (beta_bar)."},
       "attn-viz aoa --document \"...\" --query \"...\""},
  };
  return entries;
}

const position_entry& find_position(std::string_view name) {
  const auto scheme = parse_position(name);
  for (const auto& e : position_registry())
    if (e.scheme == scheme) return e;
  throw std::logic_error("position scheme missing from the registry");
}

std::string_view stage_name(stage s) {
  switch (s) {
    case stage::score:
      return "score";
    case stage::align:
      return "align";
    case stage::context:
      return "context";
  }
  return "?";
}

}  // namespace attnviz
