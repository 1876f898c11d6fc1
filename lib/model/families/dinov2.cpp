// DINOv2 (model_type dinov2, dinov2_with_registers): Dinov2Model and
// Dinov2ForImageClassification, with and without register tokens.
//
// config.json   hidden_size, num_attention_heads, num_hidden_layers, mlp_ratio (4), image_size,
//               patch_size (14), num_channels (3), layer_norm_eps (1e-6), hidden_act (gelu),
//               qkv_bias (true), use_swiglu_ffn (false), num_register_tokens (with registers)
// tensors       embeddings.{cls_token, position_embeddings [1, 1 + G², d], patch_embeddings.
//               projection, register_tokens [1, R, d]}, encoder.layer.{l}.{norm1,
//               attention.attention.{query, key, value}, attention.output.dense,
//               layer_scale1.lambda1 [d], norm2, mlp.{fc1, fc2} (or mlp.{weights_in [2I, d],
//               weights_out}: SwiGLU), layer_scale2.lambda1}, layernorm; the prefix dinov2. (or
//               dinov2_with_registers.) with the classifier [labels, 2d]
// block         x = [CLS, registers, patches]: positions added to CLS and the patches (the
//               grid's bicubic-interpolated to the picture's, antialiased with registers)
//               per layer: x += λ1 ⊙ attn(norm1(x));  x += λ2 ⊙ mlp(norm2(x))
//               mlp: fc2(gelu(fc1)), I = ⌊d · mlp_ratio⌋; SwiGLU: weights_out(silu(a) ⊙ b) for
//               [a | b] = weights_in(x), I = ⌈⌊2/3 · ⌊d · mlp_ratio⌋⌋ / 8⌉ · 8
//               h = LN(x); logits = classifier([h_CLS, mean of the patch rows])
#include <fmt/format.h>

#include <cmath>

#include "error.h"
#include "model/config_reader.h"
#include "model/families/families.h"
#include "model/layer_ops.h"
#include "model/vision.h"

namespace attnviz {

namespace dinov2_parts {
namespace {

void read_config(const config_reader& r, model_config& c) {
  read_vision_config(r, c, 14, 1e-6);
  const double ratio = r.number_or("mlp_ratio", 4.0);
  const auto hidden = static_cast<std::size_t>(static_cast<double>(c.d_model) * ratio);
  if (r.flag_or("use_swiglu_ffn", false)) {
    c.gated_mlp = true;
    c.activation = mlp_activation::silu;
    c.intermediate =
        (static_cast<std::size_t>(static_cast<double>(hidden) * 2.0 / 3.0) + 7) / 8 * 8;
  } else {
    c.intermediate = hidden;
  }
  if (c.intermediate == 0) r.fail("mlp_ratio", "a ratio giving an MLP at least 1 wide");
  if (c.model_type == "dinov2_with_registers") {
    c.vision.registers = r.size_or("num_register_tokens", 4);
    c.vision.resize = position_resize::antialias;
  }
}

layer_weights bind_layer(const binder& b, const model_config& c, std::size_t l) {
  const auto d = dim(c.d_model), I = dim(c.intermediate);
  const std::string e = fmt::format("encoder.layer.{}.", l);
  layer_weights w = bind_vision_layer(b, c, e, "norm1", "norm2");
  if (c.gated_mlp) {
    w.gate_up = b.need(e + "mlp.weights_in.weight", {2 * I, d});
    w.gate_up_b = b.need(e + "mlp.weights_in.bias", {2 * I});
    w.down = b.need(e + "mlp.weights_out.weight", {d, I});
    w.down_b = b.need(e + "mlp.weights_out.bias", {d});
  } else {
    w.up = b.need(e + "mlp.fc1.weight", {I, d});
    w.up_b = b.need(e + "mlp.fc1.bias", {I});
    w.down = b.need(e + "mlp.fc2.weight", {d, I});
    w.down_b = b.need(e + "mlp.fc2.bias", {d});
  }
  w.self.out_scale = b.need(e + "layer_scale1.lambda1", {d});
  w.scale2 = b.need(e + "layer_scale2.lambda1", {d});
  return w;
}

void bind(hf_model& m) {
  const model_config& c = m.config;
  const std::string name = c.model_type + ".";
  const std::string prefix = m.weights.has_prefix(name + "embeddings.") ? name : "";
  bind_vision_embeddings(m, prefix, "layernorm");
  const binder b(m.weights, prefix);
  if (c.vision.registers > 0)
    m.register_tokens =
        b.need("embeddings.register_tokens", {1, dim(c.vision.registers), dim(c.d_model)});
  for (std::size_t l = 0; l < c.layers; ++l) m.layers.push_back(bind_layer(b, c, l));
  m.classifier_w = bind_classifier(m, "classifier", 2 * c.d_model, &m.classifier_b);
  if (m.classifier_w) m.config.vision.head = vision_head::cls_and_mean;
}

}  // namespace
}  // namespace dinov2_parts

const family_spec dinov2_family{"dinov2",
                                {"dinov2", "dinov2_with_registers"},
                                dinov2_parts::read_config,
                                dinov2_parts::bind,
                                refuse_token_ids,
                                pre_norm_block,
                                nullptr,
                                nullptr,
                                nullptr,
                                embed_vision};

}  // namespace attnviz
