// One attention layer out of a bigger checkpoint: every naming scheme gives the tensors the
// pipeline asks for, and a two-head run on them equals the run on the same numbers named
// q_proj / k_proj / v_proj / out_proj directly.
#include <doctest/doctest.h>

#include "attention/pipeline.h"
#include "error.h"
#include "helpers.h"
#include "params/checkpoint_layer.h"

using namespace attnviz;
using attnviz::testing::random_matrix;
using attnviz::testing::self_input;

// This file's cases and helpers, apart from the other files' (the tests compile as a unity
// build).
namespace checkpoint_layer_cases {

namespace {

constexpr std::size_t d = 6;

tensor_data tensor_of(const matrix& m) {
  return {{static_cast<std::int64_t>(m.rows()), static_cast<std::int64_t>(m.cols())},
          m.to_vector()};
}
tensor_data vector_of(std::size_t n, unsigned seed) {
  return {{static_cast<std::int64_t>(n)}, random_matrix(1, n, seed).to_vector()};
}
matrix transpose(const matrix& m) {
  matrix t(m.cols(), m.rows());
  for (std::size_t i = 0; i < m.rows(); ++i)
    for (std::size_t j = 0; j < m.cols(); ++j) t(j, i) = m(i, j);
  return t;
}
matrix stack(const matrix& a, const matrix& b, const matrix& c) {
  std::vector<float> v = a.to_vector(), vb = b.to_vector(), vc = c.to_vector();
  v.insert(v.end(), vb.begin(), vb.end());
  v.insert(v.end(), vc.begin(), vc.end());
  return matrix(a.rows() * 3, a.cols(), v);
}

// The layer's numbers: projections [d, d] with biases, output [d, d] with a bias.
struct layer_numbers {
  matrix wq = random_matrix(d, d, 1), wk = random_matrix(d, d, 2), wv = random_matrix(d, d, 3),
         wo = random_matrix(d, d, 4);
  tensor_data bq = vector_of(d, 5), bk = vector_of(d, 6), bv = vector_of(d, 7),
              bo = vector_of(d, 8);
};

// The same numbers under the names the pipeline asks for.
std::map<std::string, tensor_data> direct_names(const layer_numbers& n) {
  return {{"q_proj.weight", tensor_of(n.wq)},
          {"k_proj.weight", tensor_of(n.wk)},
          {"v_proj.weight", tensor_of(n.wv)},
          {"q_proj.bias", n.bq},
          {"k_proj.bias", n.bk},
          {"v_proj.bias", n.bv},
          {"out_proj.weight", tensor_of(n.wo)},
          {"out_proj.bias", n.bo}};
}

attention_result run_two_heads(param_store params) {
  attention_spec spec;
  spec.project = true;
  spec.heads = 2;
  return run_attention(self_input(random_matrix(5, d, 9)), spec, params);
}

void check_same_run(const attention_result& a, const attention_result& b) {
  REQUIRE(a.heads.size() == b.heads.size());
  for (std::size_t h = 0; h < a.heads.size(); ++h)
    for (std::size_t i = 0; i < a.heads[h].weights.size(); ++i)
      CHECK(a.heads[h].weights.data()[i] ==
            doctest::Approx(b.heads[h].weights.data()[i]).epsilon(1e-6));
  for (std::size_t i = 0; i < a.output.size(); ++i)
    CHECK(a.output.data()[i] == doctest::Approx(b.output.data()[i]).epsilon(1e-5));
}

safetensors_file with_noise(std::map<std::string, tensor_data> layer, const std::string& prefix) {
  safetensors_file f;
  for (auto& [name, t] : layer) f.tensors[prefix + name] = std::move(t);
  // the rest of a checkpoint: other layers, embeddings, a LayerNorm under the same prefix
  f.tensors["embeddings.word_embeddings.weight"] = tensor_of(random_matrix(10, d, 20));
  f.tensors[prefix + "output.LayerNorm.weight"] = vector_of(d, 21);
  f.tensors["other." + prefix + "in_proj_weight"] = tensor_of(random_matrix(3 * d, d, 22));
  return f;
}

}  // namespace

TEST_CASE("torch, BERT, GPT-2 and attn-viz names give the same two-head run") {
  const layer_numbers n;
  const auto want = run_two_heads(attnviz::testing::store(direct_names(n)));
  std::vector<float> packed_bias = n.bq.values;
  packed_bias.insert(packed_bias.end(), n.bk.values.begin(), n.bk.values.end());
  packed_bias.insert(packed_bias.end(), n.bv.values.begin(), n.bv.values.end());
  const tensor_data in_bias{{3 * static_cast<std::int64_t>(d)}, packed_bias};

  struct scheme_case {
    std::string scheme, prefix;
    std::map<std::string, tensor_data> layer;
  };
  const std::vector<scheme_case> cases = {
      {"torch",
       "transformer.layers.2.self_attn.",
       {{"in_proj_weight", tensor_of(stack(n.wq, n.wk, n.wv))},
        {"in_proj_bias", in_bias},
        {"out_proj.weight", tensor_of(n.wo)},
        {"out_proj.bias", n.bo}}},
      {"bert",
       "bert.encoder.layer.3.attention.",
       {{"self.query.weight", tensor_of(n.wq)},
        {"self.query.bias", n.bq},
        {"self.key.weight", tensor_of(n.wk)},
        {"self.key.bias", n.bk},
        {"self.value.weight", tensor_of(n.wv)},
        {"self.value.bias", n.bv},
        {"output.dense.weight", tensor_of(n.wo)},
        {"output.dense.bias", n.bo}}},
      {"bert",
       "encoder.layer.0.attention.self.",  // the names right under the prefix, no output.dense
       {{"query.weight", tensor_of(n.wq)},
        {"query.bias", n.bq},
        {"key.weight", tensor_of(n.wk)},
        {"key.bias", n.bk},
        {"value.weight", tensor_of(n.wv)},
        {"value.bias", n.bv}}},
      {"gpt2",
       "transformer.h.1.attn.",
       {{"c_attn.weight", tensor_of(transpose(stack(n.wq, n.wk, n.wv)))},  // Conv1D [in, 3 out]
        {"c_attn.bias", in_bias},
        {"c_proj.weight", tensor_of(transpose(n.wo))},
        {"c_proj.bias", n.bo},
        {"bias", {{1, 1, 4, 4}, std::vector<float>(16, 1.0f)}}}},  // GPT-2's causal-mask buffer
      {"attn-viz", "decoder.self_attn.", direct_names(n)},
  };
  for (const auto& c : cases) {
    INFO("scheme " << c.scheme << ", prefix " << c.prefix);
    const checkpoint_layer layer =
        select_attention_layer(with_noise(c.layer, c.prefix), c.prefix, "ckpt.safetensors");
    CHECK(layer.scheme == c.scheme);
    for (const auto& [name, t] : layer.tensors.tensors)  // nothing from outside the layer
      CHECK((name.rfind("q_proj", 0) == 0 || name.rfind("k_proj", 0) == 0 ||
             name.rfind("v_proj", 0) == 0 || name.rfind("out_proj", 0) == 0 ||
             name.rfind("in_proj", 0) == 0));
    if (c.layer.count("output.dense.weight") || c.layer.count("out_proj.weight") ||
        c.layer.count("c_proj.weight")) {
      check_same_run(run_two_heads(param_store::from_tensors(layer.tensors, "ckpt")), want);
    } else {  // no output projection in the file: the heads still match
      auto seeded_out = layer.tensors;
      seeded_out.tensors["out_proj.weight"] = tensor_of(n.wo);
      seeded_out.tensors["out_proj.bias"] = n.bo;
      check_same_run(run_two_heads(param_store::from_tensors(seeded_out, "ckpt")), want);
    }
  }
}

TEST_CASE("a GPT-2 Conv1D weight is transposed to [out, in]") {
  safetensors_file f;
  f.tensors["h.0.attn.c_attn.weight"] = {{2, 3}, {1, 2, 3, 4, 5, 6}};  // [in 2, out 3]
  const auto layer = select_attention_layer(f, "h.0.attn.", "gpt2.safetensors");
  const tensor_data& t = layer.tensors.tensors.at("in_proj_weight");
  CHECK(t.shape == std::vector<std::int64_t>{3, 2});
  CHECK(t.values == std::vector<float>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("a prefix with no tensors, or with no attention layer, is a clear error") {
  safetensors_file f;
  f.tensors["bert.encoder.layer.0.attention.self.query.weight"] = {{1, 1}, {1}};
  f.tensors["bert.encoder.layer.0.intermediate.dense.weight"] = {{1, 1}, {1}};
  CHECK_THROWS_WITH_AS(
      select_attention_layer(f, "encoder.layer.0.", "m.safetensors"),
      "m.safetensors: no tensor name starts with 'encoder.layer.0.' (params_prefix); the "
      "file's 2 tensors include bert.encoder.layer.0.attention.self.query.weight, "
      "bert.encoder.layer.0.intermediate.dense.weight",
      input_error);
  CHECK_THROWS_WITH_AS(
      select_attention_layer(f, "bert.encoder.layer.0.intermediate.", "m.safetensors"),
      "m.safetensors: the tensors under 'bert.encoder.layer.0.intermediate.' are "
      "no attention layer attn-viz knows: expected in_proj_weight (torch), "
      "query.weight or self.query.weight (BERT), c_attn.weight (GPT-2) or "
      "q_proj.weight (attn-viz); found dense.weight",
      input_error);
  CHECK_THROWS_WITH_AS(param_store::open("", 0, "bert."), "params_prefix needs params FILE",
                       usage_error);
}

}  // namespace checkpoint_layer_cases
