#include "render/neuron_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "render/colormap.h"
#include "render/font.h"
#include "render/heatmap.h"
#include "text/utf8.h"

namespace attnviz {
namespace {

constexpr rgb bar_blue{31, 119, 180};
constexpr int neuron_row_h = 18, strip_h = 14, label_chars = 18, column_gap = 16,
              weight_bar_w = 120;

const neuron_trace& trace_of(const neuron_view_spec& s) {
  if (!s.trace || !s.tokens || s.trace->query >= s.tokens->size())
    throw std::logic_error("neuron view: no trace or tokens");
  return *s.trace;
}

std::string quoted(const std::string& token) { return "\"" + token + "\""; }

// d numbers, 8 a line, each line led by the index of its first number.
std::string vector_lines(const std::vector<double>& v, const std::string& indent) {
  std::string out;
  for (std::size_t t = 0; t < v.size(); t += 8) {
    out += fmt::format("{}[{:>3}]", indent, t);
    for (std::size_t c = t; c < std::min(v.size(), t + 8); ++c) out += fmt::format(" {:>+8.4f}", v[c]);
    out += "\n";
  }
  return out;
}

// Part 5: each top key's share of the weight beside its share of the value-weighted norm, and
// one sentence on where they part most.
std::string weights_and_norms(const neuron_trace& t, const std::vector<std::string>& tok,
                              std::size_t listed) {
  std::string out = fmt::format(
      "\n5. weight and contribution: a_{0}j |v_j W_O^h| is the length of what key j adds to the "
      "head's output (Kobayashi et al. 2020); its share beside the weight's:\n",
      t.query);
  out += "   key  token                weight   norm share\n";
  for (std::size_t r = 0; r < listed; ++r) {
    const neuron_key& k = t.keys[t.by_weight[r]];
    out += fmt::format("   {:>4}  {:<18} {:>7.2f}%  {:>9.2f}%\n", k.j,
                       shorten_for_message(tok[k.j], 18), 100.0 * k.weight, 100.0 * k.norm_share);
  }
  const neuron_key* apart = nullptr;
  for (const neuron_key& k : t.keys)
    if (!apart || std::fabs(k.weight - k.norm_share) > std::fabs(apart->weight - apart->norm_share))
      apart = &k;
  if (!apart || std::fabs(apart->weight - apart->norm_share) < 0.05)
    return out + "   weight and norm agree within 5 points on every key\n";
  return out +
         fmt::format("   {:.0f} % of the weight is on key {} {}, {:.0f} % of the contribution\n",
                     100.0 * apart->weight, apart->j, quoted(tok[apart->j]),
                     100.0 * apart->norm_share);
}

// The keys part 6 lists: the `listed` highest of each layer reading and the query itself, in
// position order.
std::vector<std::size_t> reading_keys(const neuron_trace& t, std::size_t listed) {
  std::vector<std::size_t> keys{t.query};
  for (const layer_reading& r : t.readings) {
    std::vector<std::size_t> order(r.share.size());
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.share[a] > r.share[b]; });
    for (std::size_t k = 0; k < std::min(listed, order.size()); ++k) keys.push_back(order[k]);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// Part 6: the whole layer at the query's row — its heads' mean weight beside what each key
// brings to the query's result, residual and norm counted — and one sentence on where they part.
std::string layer_readings_text(const neuron_trace& t, const std::vector<std::string>& tok,
                                std::size_t listed) {
  if (t.readings.size() < 2) return {};
  std::string out = fmt::format(
      "\n6. the whole layer at query {}: its heads' mean weight beside each key's share of what "
      "the query's result of the layer takes from the keys, the residual and the norm counted "
      "(contrib: Kobayashi et al. 2021; alti: Ferrando et al. 2022):\n    key  token             ",
      t.query);
  for (const layer_reading& r : t.readings) out += fmt::format(" {:>9}", r.measure);
  out += "\n";
  for (const std::size_t j : reading_keys(t, listed)) {
    out += fmt::format("   {:>4}  {:<18}", j, shorten_for_message(tok[j], 18));
    for (const layer_reading& r : t.readings) out += fmt::format(" {:>8.2f}%", 100.0 * r.share[j]);
    out += j == t.query ? "   (the query itself)\n" : "\n";
  }
  const reading_gap gap = widest_gap(t, 0.05);
  if (gap.reading == 0)
    return out + "   weights and contributions agree within 5 points on every other key\n";
  std::string brings, own;
  for (std::size_t r = 1; r < t.readings.size(); ++r) {
    const char* sep = r == 1 ? "" : r + 1 == t.readings.size() ? " and " : ", ";
    brings += fmt::format("{}{:.0f} % by {}", sep, 100.0 * t.readings[r].share[gap.j],
                          t.readings[r].measure);
    own += fmt::format("{}{:.0f} %", sep, 100.0 * t.readings[r].share[t.query]);
  }
  return out +
         fmt::format(
             "   the layer's heads put {:.0f} % of their weight on key {} {}, which brings {} "
             "of the query's result (the query's own residual: {})\n",
             100.0 * t.readings.front().share[gap.j], gap.j, quoted(tok[gap.j]), brings, own);
}

double dot_of(const neuron_key& k) {
  double s = 0.0;
  for (const double p : k.product) s += p;
  return s;
}

// The keys the figure shows: every visible key, or the neuron_view_max_keys of highest weight,
// in position order.
std::vector<std::size_t> shown_keys(const neuron_trace& t) {
  std::vector<std::size_t> shown(t.by_weight.begin(),
                                 t.by_weight.begin() +
                                     static_cast<std::ptrdiff_t>(
                                         std::min(t.by_weight.size(), neuron_view_max_keys)));
  std::sort(shown.begin(), shown.end());
  return shown;
}

double max_abs(const std::vector<double>& v, double m) {
  for (const double x : v) m = std::max(m, std::fabs(x));
  return m;
}

void strip(figure& fig, int x, int y, int cell, const std::vector<double>& v, double range,
           const colormap& cmap) {
  for (std::size_t c = 0; c < v.size(); ++c)
    fig.rect(x + static_cast<int>(c) * cell, y, cell, strip_h,
             cmap.at(range > 0.0 ? std::clamp(0.5 + 0.5 * v[c] / range, 0.0, 1.0) : 0.5));
}

// A horizontal colour scale: w × 10 px of cmap over [-range, range] with its end values.
void legend(figure& fig, int x, int y, int w, const std::string& name, double range,
            const colormap& cmap) {
  const bitmap_font& font = bitmap_font::unifont();
  const std::u32string label = decode_utf8_lossy(name);
  fig.text(x, y, label, figure_ink);
  const int bx = x + font.text_width(label) + 8;
  for (int px = 0; px < w; ++px)
    fig.rect(bx + px, y + 3, 1, 10, cmap.at(static_cast<double>(px) / (w - 1)));
  fig.frame(bx - 1, y + 2, w + 2, 12, 1, figure_muted);
  const std::u32string lo = decode_utf8_lossy(fmt::format("{:+.3g}", -range));
  const std::u32string hi = decode_utf8_lossy(fmt::format("{:+.3g}", range));
  fig.text(bx, y + 16, lo, figure_muted);
  fig.text(bx + w - font.text_width(hi), y + 16, hi, figure_muted);
}

// The share columns right of the softmax bar: the head's norm share, then the layer's readings
// (explain --model: its heads' mean weight, contrib, alti), a column each.
constexpr int share_col_w = 9 * 8;

std::size_t shown_readings(const neuron_trace& t) {
  return t.readings.size() < 2 ? 0 : t.readings.size();
}

int share_columns_width(const neuron_trace& t) {
  return column_gap + share_col_w * static_cast<int>(1 + shown_readings(t));
}

// Their headers above head_y and each shown key's numbers from keys_y down, right-aligned.
void share_columns(figure& fig, const neuron_trace& t, const std::vector<std::size_t>& shown, int x,
                   int head_y, int keys_y) {
  const bitmap_font& font = bitmap_font::unifont();
  const std::size_t readings = shown_readings(t);
  const auto right = [&](std::size_t col) {
    return x + column_gap + share_col_w * static_cast<int>(col + 1) - 8;
  };
  fig.text(right(0) - font.text_width(U"norms"), head_y, U"norms", figure_muted);
  if (readings > 0) fig.text(right(0) + 8, head_y - neuron_row_h, U"the layer's", figure_muted);
  for (std::size_t r = 0; r < readings; ++r) {
    const std::u32string name = decode_utf8_lossy(t.readings[r].measure);
    fig.text(right(r + 1) - font.text_width(name), head_y, name, figure_muted);
  }
  for (std::size_t row = 0; row < shown.size(); ++row) {
    const neuron_key& k = t.keys[shown[row]];
    const int y = keys_y + static_cast<int>(row) * neuron_row_h;
    for (std::size_t m = 0; m <= readings; ++m) {
      const double share = m == 0 ? k.norm_share : t.readings[m - 1].share[k.j];
      const std::u32string v = decode_utf8_lossy(fmt::format("{:.1f}%", 100.0 * share));
      fig.text(right(m) - font.text_width(v), y, v, figure_ink);
    }
  }
}

}  // namespace

std::string neuron_text(const neuron_view_spec& s) {
  const neuron_trace& t = trace_of(s);
  const auto& tok = s.shown ? *s.shown : *s.tokens;
  const std::size_t i = t.query, dh = t.d_head;
  const double root = std::sqrt(static_cast<double>(dh));
  std::string out = fmt::format("{} · {} · {} tokens\n", s.folder, s.summary, tok.size());
  out += fmt::format("layer {}, head {}{} · query {} {}\n", t.layer, t.head,
                     t.kv_head != t.head ? fmt::format(" (reads key/value head {})", t.kv_head)
                                         : std::string(),
                     i, quoted(tok[i]));
  out += fmt::format("\n1. the query vector q_{} ({} numbers{}):\n", i, dh,
                     s.rope ? ", after RoPE" : "");
  out += vector_lines(t.q, "   ");
  out += fmt::format("\n2. scores s_{0}j = q_{0}·k_j / √{1} ({2:.4f}) for the {3} visible keys{4}; "
                     "a_{0}j = softmax over them:\n",
                     i, dh, root, t.keys.size(),
                     t.hidden_keys ? fmt::format(" ({} hidden by the mask, a = 0)", t.hidden_keys)
                                   : std::string());
  out += "   rank  key  token                 q·k        s        a     |a·v|\n";
  const std::size_t listed = std::min(s.top_k, t.keys.size());
  double listed_weight = 0.0;
  for (std::size_t r = 0; r < listed; ++r) {
    const neuron_key& k = t.keys[t.by_weight[r]];
    listed_weight += k.weight;
    out += fmt::format("   {:>4} {:>4}  {:<18} {:>+9.4f} {:>+8.4f} {:>7.2f}% {:>9.4f}\n", r + 1, k.j,
                       shorten_for_message(tok[k.j], 18), dot_of(k), k.score, 100.0 * k.weight,
                       k.mixed_norm);
  }
  if (listed < t.keys.size())
    out += fmt::format("   … {} more keys with {:.2f}% together\n", t.keys.size() - listed,
                       100.0 * (1.0 - listed_weight));
  out += "\n3. q ⊙ k per dimension for the top keys (their sum is q·k):\n";
  for (std::size_t r = 0; r < listed; ++r) {
    const neuron_key& k = t.keys[t.by_weight[r]];
    out += fmt::format("   key {} {}: a = {:.2f}%, s = {:+.4f}\n", k.j, quoted(tok[k.j]),
                       100.0 * k.weight, k.score);
    out += fmt::format("     k_{}{}:\n", k.j, s.rope ? " (after RoPE)" : "");
    out += vector_lines(k.k, "     ");
    out += fmt::format("     q_{} ⊙ k_{}:\n", i, k.j);
    out += vector_lines(k.product, "     ");
    std::string lead;
    for (const std::size_t d : leading_dimensions(k.product, 4))
      lead += fmt::format("{}[{}] {:+.4f}", lead.empty() ? "" : ", ", d, k.product[d]);
    out += fmt::format("     largest terms: {}\n", lead);
  }
  out += fmt::format("\n4. value mixing: c_{0} = Σ_j a_{0}j v_j, |c_{0}| = {1:.4f}", i,
                     t.context_norm);
  std::string parts;
  for (std::size_t r = 0; r < listed; ++r) {
    const neuron_key& k = t.keys[t.by_weight[r]];
    parts += fmt::format("{}{} {:.4f}", parts.empty() ? "" : ", ", shorten_for_message(tok[k.j], 18),
                         k.mixed_norm);
  }
  out += fmt::format("; the top keys add |a·v|: {}\n", parts);
  out += vector_lines(t.context, "   ");
  out += weights_and_norms(t, tok, listed);
  out += layer_readings_text(t, tok, listed);
  out += fmt::format("\nchecked: these weights against the model's map, max |difference| {:.1e}\n",
                     t.weight_error);
  return out;
}

std::string neuron_json(const neuron_view_spec& s, const std::string& generator) {
  const neuron_trace& t = trace_of(s);
  const auto& tok = *s.tokens;
  using nlohmann::ordered_json;
  ordered_json j;
  j["attn-viz"] = generator;
  j["model"] = {{"folder", s.folder}, {"summary", s.summary}};
  j["layer"] = t.layer;
  j["head"] = t.head;
  j["kv_head"] = t.kv_head;
  j["d_head"] = t.d_head;
  j["scale"] = 1.0 / std::sqrt(static_cast<double>(t.d_head));
  j["rope"] = s.rope;
  j["query"] = {{"position", t.query}, {"token", tok[t.query]}};
  j["q"] = t.q;
  ordered_json keys = ordered_json::array();
  for (const neuron_key& k : t.keys)
    keys.push_back({{"position", k.j},
                    {"token", tok[k.j]},
                    {"k", k.k},
                    {"q_times_k", k.product},
                    {"dot", dot_of(k)},
                    {"score", k.score},
                    {"weight", k.weight},
                    {"kernel_weight", k.kernel_weight},
                    {"v", k.v},
                    {"mixed_norm", k.mixed_norm},
                    {"output_norm", k.output_norm},
                    {"norm_share", k.norm_share}});
  j["keys"] = std::move(keys);
  j["hidden_keys"] = t.hidden_keys;
  j["context"] = t.context;
  j["context_norm"] = t.context_norm;
  j["weight_error"] = t.weight_error;
  ordered_json layer = ordered_json::object();
  for (const layer_reading& r : t.readings) layer[r.measure] = r.share;
  j["layer_readings"] = std::move(layer);
  return j.dump(1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

figure neuron_view_figure(const neuron_view_spec& s) {
  const neuron_trace& t = trace_of(s);
  const auto& tok = s.shown ? *s.shown : *s.tokens;
  const bitmap_font& font = bitmap_font::unifont();
  const colormap& cmap = colormap::by_name("rdbu");
  const std::vector<std::size_t> shown = shown_keys(t);
  const int cell = std::clamp(480 / static_cast<int>(std::max<std::size_t>(t.d_head, 1)), 2, 14);
  const int strip_w = cell * static_cast<int>(t.d_head);
  double vec_range = max_abs(t.q, 0.0), prod_range = 0.0;
  for (const std::size_t k : shown) {
    vec_range = max_abs(t.keys[k].k, vec_range);
    prod_range = max_abs(t.keys[k].product, prod_range);
  }
  vec_range = nice_at_or_above(vec_range);
  prod_range = nice_at_or_above(prod_range);

  auto label = [&](std::size_t j, const std::string& lead) {
    return fit_text(decode_utf8_lossy(fmt::format("{}{} {}", lead, j, tok[j])), label_chars * 8,
                    font);
  };
  int label_w = font.text_width(label(t.query, "query "));
  for (const std::size_t k : shown) label_w = std::max(label_w, font.text_width(label(t.keys[k].j, "")));
  const int x_vec = figure_margin + label_w + 10;
  const int x_prod = x_vec + strip_w + column_gap;
  const int x_score = x_prod + strip_w + column_gap;
  const int score_w = 9 * 8;
  const int x_bar = x_score + score_w + column_gap;
  const int x_layer = x_bar + weight_bar_w + 8 + 8 * 8;
  const int content_w = x_layer + share_columns_width(t) - figure_margin;

  const std::string title =
      fmt::format("neuron view · {} · layer {}, head {} · query {} {}", s.folder, t.layer, t.head,
                  t.query, quoted(tok[t.query]));
  const std::string subtitle =
      fmt::format("{} · s = q·k/√{}{}, a = softmax(s) · |c| = {:.4f}", s.summary, t.d_head,
                  s.rope ? " (q, k after RoPE)" : "", t.context_norm);
  const int title_h = title_block_height(title, subtitle, 1);
  const int head_y = figure_margin + title_h + 6;
  const int q_y = head_y + neuron_row_h + 2;
  const int keys_y = q_y + neuron_row_h + 10;
  const int foot_y = keys_y + static_cast<int>(shown.size()) * neuron_row_h + 10;
  const int legend_y = foot_y + neuron_row_h + 4;
  const int height = legend_y + 2 * neuron_row_h + 4 + figure_margin;
  const int width = std::max(2 * figure_margin + content_w,
                             2 * figure_margin + title_block_width(title, subtitle, 1));
  figure fig(width, height);
  draw_title_block(fig, title, subtitle, 1);

  auto header = [&](int x, const std::string& text) {
    fig.text(x, head_y, decode_utf8_lossy(text), figure_muted);
  };
  header(x_vec, s.rope ? "q, k (after RoPE)" : "q, k");
  header(x_prod, "q ⊙ k");
  header(x_score, "q·k/√d");
  header(x_bar, "softmax");
  share_columns(fig, t, shown, x_layer, head_y, keys_y);

  const std::u32string q_label = label(t.query, "query ");
  fig.text(x_vec - 10 - font.text_width(q_label), q_y, q_label, figure_ink);
  strip(fig, x_vec, q_y + 1, cell, t.q, vec_range, cmap);
  fig.rect(figure_margin, keys_y - 6, width - 2 * figure_margin, 1, figure_muted);

  for (std::size_t r = 0; r < shown.size(); ++r) {
    const neuron_key& k = t.keys[shown[r]];
    const int y = keys_y + static_cast<int>(r) * neuron_row_h;
    const std::u32string l = label(k.j, "");
    fig.text(x_vec - 10 - font.text_width(l), y, l, k.j == t.query ? bar_blue : figure_ink);
    strip(fig, x_vec, y + 1, cell, k.k, vec_range, cmap);
    strip(fig, x_prod, y + 1, cell, k.product, prod_range, cmap);
    const std::u32string score = decode_utf8_lossy(fmt::format("{:+.3f}", k.score));
    fig.text(x_score + score_w - font.text_width(score), y, score, figure_ink);
    const int w = static_cast<int>(std::lround(k.weight * weight_bar_w));
    if (w > 0) fig.rect(x_bar, y + 2, w, strip_h - 2, bar_blue);
    fig.frame(x_bar, y + 1, weight_bar_w, strip_h, 1, rgb{200, 200, 200});
    fig.text(x_bar + weight_bar_w + 8, y,
             decode_utf8_lossy(fmt::format("{:.1f}%", 100.0 * k.weight)), figure_ink);
  }
  std::string foot = fmt::format("{} visible key{}", t.keys.size(), t.keys.size() == 1 ? "" : "s");
  if (shown.size() < t.keys.size())
    foot = fmt::format("{} of {}, the highest weights, in position order", shown.size(), foot);
  if (t.hidden_keys) foot += fmt::format(" · {} hidden by the mask", t.hidden_keys);
  fig.text(figure_margin, foot_y, decode_utf8_lossy(foot), figure_muted);
  legend(fig, figure_margin, legend_y, 160, "q, k", vec_range, cmap);
  legend(fig, figure_margin + 320, legend_y, 160, "q ⊙ k", prod_range, cmap);
  return fig;
}

}  // namespace attnviz
