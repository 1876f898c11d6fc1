#include "model/vision.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "error.h"
#include "model/config_reader.h"
#include "model/linear.h"
#include "vision/resample.h"

namespace attnviz {
namespace vision_parts {
namespace {

// Elements [first, first + n) of a tensor as floats.
std::vector<float> floats_of(const weight_view& w, std::size_t first, std::size_t n) {
  std::vector<float> out(n);
  w.to_float(first, n, out.data());
  w.check_finite(out.data(), first, n);
  return out;
}

// The patches of the grid as rows of C·P·P (channel, row, column: the convolution's order).
matrix patch_matrix(const model_config& c, const pixel_tensor& p, const patch_grid& g) {
  const std::size_t P = c.vision.patch_size, C = c.vision.channels;
  matrix out(g.rows * g.cols, C * P * P);
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t col = 0; col < g.cols; ++col) {
      float* row = out.row(r * g.cols + col);
      for (std::size_t ch = 0; ch < C; ++ch)
        for (std::size_t y = 0; y < P; ++y)
          for (std::size_t x = 0; x < P; ++x) *row++ = p.at(ch, r * P + y, col * P + x);
    }
  return out;
}

// The position rows for the prefix and a g_h × g_w grid ((prefix + g_h·g_w) × d).
std::vector<float> position_rows(const hf_model& m, const patch_grid& g) {
  const model_config& c = m.config;
  const std::size_t d = c.d_model, k = c.vision.prefix;
  const auto stored = static_cast<std::size_t>(m.positions->shape[1]) - k;
  const auto G = static_cast<std::size_t>(std::llround(std::sqrt(static_cast<double>(stored))));
  std::vector<float> table = floats_of(*m.positions, 0, (k + stored) * d);
  if (g.rows == G && g.cols == G) return table;
  const std::vector<double> grid(table.begin() + static_cast<std::ptrdiff_t>(k * d), table.end());
  const std::vector<double> moved =
      resize_grid(grid, G, G, d, g.rows, g.cols,
                  c.vision.resize == position_resize::antialias ? grid_bicubic::antialias
                                                                : grid_bicubic::plain);
  table.resize(k * d);
  for (const double v : moved) table.push_back(static_cast<float>(v));
  return table;
}

// A learned token [1, k, d]: its row `i` added to row `r` of x, or copied there.
void put_token(matrix& x, std::size_t r, const weight_view& t, std::size_t i) {
  const std::size_t d = x.cols();
  const std::vector<float> v = floats_of(t, i * d, d);
  std::copy(v.begin(), v.end(), x.row(r));
}

std::vector<double> affine(const weight_view& w, const weight_view* b,
                           const std::vector<double>& in) {
  const auto out = static_cast<std::size_t>(w.shape[0]), width = in.size();
  std::vector<double> y(out, 0.0);
  for (std::size_t o = 0; o < out; ++o) {
    const std::vector<float> row = floats_of(w, o * width, width);
    double s = 0.0;
    for (std::size_t k = 0; k < width; ++k) s += static_cast<double>(row[k]) * in[k];
    y[o] = s;
  }
  if (b) {
    const std::vector<float> bias = vector_of(*b);
    for (std::size_t o = 0; o < out; ++o) y[o] += bias[o];
  }
  return y;
}

std::vector<double> row_of(const matrix& h, std::size_t r) {
  return std::vector<double>(h.row(r), h.row(r) + h.cols());
}

}  // namespace
}  // namespace vision_parts

void read_vision_config(const config_reader& r, model_config& c, std::size_t default_patch,
                        double default_eps) {
  c.vision.on = true;
  c.d_model = r.size("hidden_size");
  c.heads = r.size("num_attention_heads");
  c.layers = r.size("num_hidden_layers");
  c.vision.image_size = r.size_or("image_size", 224);
  c.vision.patch_size = r.size_or("patch_size", default_patch);
  c.vision.channels = r.size_or("num_channels", 3);
  if (c.vision.channels != 3) r.fail("num_channels", "3 (attn-viz reads RGB pictures)");
  if (c.vision.patch_size > c.vision.image_size)
    r.fail("patch_size", fmt::format("at most image_size ({})", c.vision.image_size));
  c.norm_eps = r.number_or("layer_norm_eps", default_eps);
  c.activation = activation_of(r, "hidden_act", r.text_or("hidden_act", "gelu"));
  c.qkv_bias = r.flag_or("qkv_bias", true);
  c.norm = norm_kind::layer_norm;
  c.positions = position_kind::learned;
  c.causal = false;
  c.tie_embeddings = false;
  c.vocab = 0;
  c.max_positions = std::size_t{1} << 20;  // the picture's grid sets n (model/vision.h)
  read_vision_labels(r, c);
}

layer_weights bind_vision_layer(const binder& b, const model_config& c, const std::string& at,
                                const std::string& norm1, const std::string& norm2) {
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  layer_weights w;
  w.norm1_w = b.need_ln(at + norm1, "weight", {d});
  w.norm1_b = b.need_ln(at + norm1, "bias", {d});
  const std::string self = at + "attention.attention.";
  w.self.q = b.need(self + "query.weight", {d, d});
  w.self.k = b.need(self + "key.weight", {d, d});
  w.self.v = b.need(self + "value.weight", {d, d});
  if (c.qkv_bias) {
    w.self.q_b = b.need(self + "query.bias", {d});
    w.self.k_b = b.need(self + "key.bias", {d});
    w.self.v_b = b.need(self + "value.bias", {d});
  }
  w.self.o = b.need(at + "attention.output.dense.weight", {d, d});
  w.self.o_b = b.need(at + "attention.output.dense.bias", {d});
  w.norm2_w = b.need_ln(at + norm2, "weight", {d});
  w.norm2_b = b.need_ln(at + norm2, "bias", {d});
  if (c.model_type.rfind("dinov2", 0) != 0) {  // (DINOv2 binds its own MLP)
    w.up = b.need(at + "intermediate.dense.weight", {I, d});
    w.up_b = b.need(at + "intermediate.dense.bias", {I});
    w.down = b.need(at + "output.dense.weight", {d, I});
    w.down_b = b.need(at + "output.dense.bias", {d});
  }
  return w;
}

void bind_vit_stack(hf_model& m, const std::string& prefix) {
  bind_vision_embeddings(m, prefix, "layernorm");
  const binder b(m.weights, prefix);
  for (std::size_t l = 0; l < m.config.layers; ++l)
    m.layers.push_back(bind_vision_layer(b, m.config, fmt::format("encoder.layer.{}.", l),
                                         "layernorm_before", "layernorm_after"));
}

void bind_cls_classifier(hf_model& m) {
  m.classifier_w = bind_classifier(m, "classifier", m.config.d_model, &m.classifier_b);
  if (m.classifier_w) m.config.vision.head = vision_head::cls;
}

matrix refuse_token_ids(const hf_model& m, const std::vector<std::int64_t>&, std::size_t) {
  throw usage_error(
      fmt::format("{} is a vision model ({}): it reads a picture, given with {}, "
                  "not a text or token ids",
                  m.dir, m.config.model_type, param("image")));
}

patch_grid grid_of(const model_config& c, const pixel_tensor& pixels, const std::string& source) {
  const std::size_t P = c.vision.patch_size;
  patch_grid g{pixels.height / P, pixels.width / P};
  if (g.rows == 0 || g.cols == 0)
    throw input_error(source, fmt::format("gives a {} × {} picture after preprocessing: smaller "
                                          "than one {} × {} patch",
                                          pixels.width, pixels.height, P, P));
  return g;
}

matrix embed_vision(const hf_model& m, const pixel_tensor& pixels) {
  using namespace vision_parts;
  const model_config& c = m.config;
  const patch_grid g = grid_of(c, pixels, "the picture");
  const std::size_t d = c.d_model, k = c.vision.prefix, R = c.vision.registers;
  weight_converter conv;
  const matrix patches =
      linear(patch_matrix(c, pixels, g), *m.patch_w, linear_layout::out_in, m.patch_b, conv);
  const std::vector<float> positions = position_rows(m, g);
  matrix x(k + R + patches.rows(), d);
  put_token(x, 0, *m.cls_token, 0);
  if (k > 1) put_token(x, 1, *m.distill_token, 0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < d; ++j) x(i, j) += positions[i * d + j];
  for (std::size_t i = 0; i < R; ++i) put_token(x, k + i, *m.register_tokens, i);
  for (std::size_t p = 0; p < patches.rows(); ++p)
    for (std::size_t j = 0; j < d; ++j)
      x(k + R + p, j) = patches(p, j) + positions[(k + p) * d + j];
  return x;
}

void bind_vision_embeddings(hf_model& m, const std::string& prefix, const std::string& final_norm) {
  model_config& c = m.config;
  const auto d = dim(c.d_model), P = dim(c.vision.patch_size), C = dim(c.vision.channels);
  const binder b(m.weights, prefix);
  const weight_view* conv = b.need("embeddings.patch_embeddings.projection.weight", {d, C, P, P});
  auto flat = std::make_unique<weight_view>(*conv);
  flat->shape = {d, C * P * P};
  m.patch_w = flat.get();
  m.computed_views.push_back(std::move(flat));
  m.patch_b = b.need("embeddings.patch_embeddings.projection.bias", {d});
  m.cls_token = b.need("embeddings.cls_token", {1, 1, d});
  const auto G = dim(c.vision.image_size / c.vision.patch_size);
  m.positions = b.need("embeddings.position_embeddings", {1, dim(c.vision.prefix) + G * G, d});
  m.final_norm_w = b.need_ln(final_norm, "weight", {d});
  m.final_norm_b = b.need_ln(final_norm, "bias", {d});
}

namespace vision_parts {
namespace {

// Whether every name is LABEL_i at its own index i (what transformers writes for a config
// without id2label).
bool default_label_names(const std::vector<std::string>& labels) {
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] != fmt::format("LABEL_{}", i)) return false;
  return true;
}

}  // namespace
}  // namespace vision_parts

const weight_view* bind_classifier(hf_model& m, const std::string& name, std::size_t width,
                                   const weight_view** bias) {
  const weight_view* w = m.weights.find(name + ".weight");
  if (!w) return nullptr;
  if (w->shape.size() != 2 || w->shape[0] < 1)
    throw input_error(
        m.weights.stored_name(name + ".weight"),
        fmt::format("has shape [{}] (expected [labels, {}])", fmt::join(w->shape, ", "), width));
  const binder top(m.weights, "");
  const std::int64_t rows = w->shape[0];
  w = top.need(name + ".weight", {rows, dim(width)});
  *bias = top.need(name + ".bias", {rows});
  std::vector<std::string>& labels = m.config.vision.labels;
  const auto count = static_cast<std::size_t>(rows);
  // (A config written without id2label gets PretrainedConfig's default LABEL_0, LABEL_1: names
  // that say nothing are resized to the classifier, named ones must match it.)
  if (labels.size() != count && !vision_parts::default_label_names(labels))
    throw input_error(m.dir + "/config.json",
                      fmt::format("id2label names {} classes but the classifier {} has {}",
                                  labels.size(), name, count));
  labels.resize(count);
  for (std::size_t i = 0; i < count; ++i)
    if (labels[i].empty()) labels[i] = fmt::format("LABEL_{}", i);
  return w;
}

std::vector<float> image_logits(const hf_model& m, const matrix& hidden) {
  using namespace vision_parts;
  const model_config& c = m.config;
  std::vector<double> z;
  switch (c.vision.head) {
    case vision_head::none:
      return {};
    case vision_head::cls:
      z = affine(*m.classifier_w, m.classifier_b, row_of(hidden, 0));
      break;
    case vision_head::cls_distilled: {
      z = affine(*m.classifier_w, m.classifier_b, row_of(hidden, 0));
      const std::vector<double> z2 = affine(*m.classifier2_w, m.classifier2_b, row_of(hidden, 1));
      for (std::size_t i = 0; i < z.size(); ++i) z[i] = (z[i] + z2[i]) / 2.0;
      break;
    }
    case vision_head::cls_and_mean: {
      std::vector<double> in = row_of(hidden, 0), mean(c.d_model, 0.0);
      const std::size_t first = c.vision.prefix + c.vision.registers;
      for (std::size_t r = first; r < hidden.rows(); ++r)
        for (std::size_t j = 0; j < c.d_model; ++j) mean[j] += hidden(r, j);
      for (double& v : mean) v /= static_cast<double>(hidden.rows() - first);
      in.insert(in.end(), mean.begin(), mean.end());
      z = affine(*m.classifier_w, m.classifier_b, in);
      break;
    }
  }
  return std::vector<float>(z.begin(), z.end());
}

std::vector<std::string> vision_token_names(const model_config& c, const patch_grid& g) {
  std::vector<std::string> names{"CLS"};
  if (c.vision.prefix > 1) names.push_back("DIST");
  for (std::size_t i = 0; i < c.vision.registers; ++i) names.push_back(fmt::format("REG{}", i + 1));
  for (std::size_t r = 0; r < g.rows; ++r)
    for (std::size_t col = 0; col < g.cols; ++col) names.push_back(fmt::format("{},{}", r, col));
  return names;
}

void read_vision_labels(const config_reader& r, model_config& c) {
  if (!r.has("id2label")) return;
  const nlohmann::json& map = r.object().at("id2label");
  if (!map.is_object()) r.fail("id2label", "an object {\"0\": \"label\", …}");
  std::vector<std::pair<std::size_t, std::string>> named;
  for (const auto& [key, value] : map.items()) {
    std::size_t index = 0;
    const char* end = key.data() + key.size();
    const auto [p, ec] = std::from_chars(key.data(), end, index);
    if (key.empty() || ec != std::errc() || p != end || index >= (1u << 20) || !value.is_string())
      r.fail("id2label", fmt::format("class indices from 0 (below 2^20) naming strings, got "
                                     "\"{}\": {}",
                                     key, value.dump()));
    named.emplace_back(index, value.get<std::string>());
  }
  for (const auto& [index, name] : named) {
    if (c.vision.labels.size() <= index) c.vision.labels.resize(index + 1);
    c.vision.labels[index] = name;
  }
  for (std::size_t i = 0; i < c.vision.labels.size(); ++i)
    if (c.vision.labels[i].empty()) c.vision.labels[i] = fmt::format("LABEL_{}", i);
}

}  // namespace attnviz
