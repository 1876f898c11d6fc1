// model/hf_config.h: each family's sizes read under its own names, and the refusals.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>
#include <string>

#include "error.h"
#include "model/families/families.h"
#include "model/hf_config.h"

using namespace attnviz;

TEST_CASE("GPT-2, BERT and Llama configs read their own keys") {
  const model_config g = parse_model_config(
      R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
          "vocab_size": 50257, "n_inner": null, "activation_function": "gelu_new"})",
      "config.json");
  CHECK(g.family == &gpt2_family);
  CHECK((g.head_dim == 64 && g.intermediate == 3072 && g.kv_heads == 12 && g.causal));
  CHECK(g.norm_eps == 1e-5);
  const model_config b = parse_model_config(
      R"({"model_type": "bert", "hidden_size": 768, "num_attention_heads": 12,
          "num_hidden_layers": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
          "vocab_size": 30522, "hidden_act": "gelu"})",
      "config.json");
  CHECK((b.family == &bert_family && !b.causal && b.type_vocab == 2));
  CHECK(b.activation == mlp_activation::gelu_erf);
  CHECK(b.norm_eps == 1e-12);
  const model_config l = parse_model_config(
      R"({"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32,
          "num_key_value_heads": 8, "num_hidden_layers": 16, "intermediate_size": 8192,
          "max_position_embeddings": 131072, "vocab_size": 128256, "rope_theta": 500000.0,
          "tie_word_embeddings": true, "rope_scaling": null})",
      "config.json");
  CHECK((l.family == &llama_family && l.kv_heads == 8 && l.head_dim == 64));
  CHECK((l.rope_theta == 500000.0 && l.tie_embeddings && !l.qkv_bias));
  CHECK(model_summary(l) == "llama · 16 layers · d 2048 · 32 heads / 8 KV (64 each)");
  const model_config q = parse_model_config(
      R"({"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4,
          "num_hidden_layers": 1, "intermediate_size": 8, "max_position_embeddings": 8,
          "vocab_size": 9, "use_sliding_window": false, "sliding_window": 4096})",
      "config.json");
  CHECK((q.qkv_bias && q.sliding_window == 0));
}

TEST_CASE("a bad config names the file and the key") {
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "xlnet"})", "m/config.json"),
                       doctest::Contains("m/config.json: key 'model_type': expected one of gpt2, "
                                         "bert, roberta, xlm-roberta, llama, mistral, qwen2, "
                                         "bart, mbart, marian, t5, mt5, gpt_neox, opt, phi, "
                                         "phi3, gemma, gemma2, gemma3_text, gptj, falcon, "
                                         "distilbert, vit, deit, dinov2, dinov2_with_registers "
                                         "(the families attn-viz runs), got "
                                         "'xlnet'"),
                       input_error);
  CHECK_THROWS_WITH_AS(
      parse_model_config(R"({"model_type": "gpt2", "n_embd": -3})", "c.json"),
      "c.json: key 'n_embd': expected a positive whole number, got -3", input_error);
  CHECK_THROWS_WITH_AS(parse_model_config(R"({"model_type": "gpt2", "n_embd": 8, "n_head": 3,
                                              "n_layer": 1, "n_positions": 4, "vocab_size": 5})",
                                          "c.json"),
                       doctest::Contains("not a multiple of the 3 heads"), input_error);
  CHECK_THROWS_WITH_AS(
      parse_model_config(R"({"model_type": "llama", "hidden_size": 8, "num_attention_heads": 2,
                             "num_hidden_layers": 1, "intermediate_size": 8,
                             "max_position_embeddings": 8, "vocab_size": 9,
                             "rope_scaling": {"type": "yarn", "factor": 2}})",
                         "c.json"),
      doctest::Contains("key 'rope_scaling'"), input_error);
  CHECK_THROWS_WITH_AS(parse_model_config("{\"model_type\": ", "c.json"),
                       doctest::Contains("c.json (byte"), input_error);
}

namespace {
std::string marian_with(const std::string& extra) {
  return R"({"model_type": "marian", "d_model": 8, "encoder_layers": 1, "decoder_layers": 1,
             "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 8,
             "decoder_ffn_dim": 8, "max_position_embeddings": 16, "vocab_size": 100,
             "pad_token_id": 99, "eos_token_id": 0)" + extra + "}";
}

std::string llama_ids(const std::string& ids) {
  return R"({"model_type": "llama", "hidden_size": 32, "num_attention_heads": 2,
             "num_hidden_layers": 1, "intermediate_size": 8, "max_position_embeddings": 8,
             "vocab_size": 9, )" + ids + "}";
}
}  // namespace

TEST_CASE("every token id config.json names is checked against the vocabulary") {
  const model_config ok = parse_model_config(marian_with(R"(, "decoder_start_token_id": 99,
                                                           "forced_bos_token_id": null)"),
                                             "m/config.json");
  CHECK((ok.decoder_start_id == 99 && ok.forced_bos_id == -1 && ok.eos_id == 0));
  for (const char* key : {"decoder_start_token_id", "forced_bos_token_id", "forced_eos_token_id",
                          "bos_token_id", "mask_token_id", "unk_token_id"})
    for (const char* id : {"100", "1000000000"}) {
      CAPTURE(key);
      CAPTURE(id);
      const std::string want = fmt::format("m/config.json: key '{}': expected a token id below "
                                           "the vocabulary's 100",
                                           key);
      CHECK_THROWS_WITH_AS(
          parse_model_config(marian_with(fmt::format(R"(, "{}": {})", key, id)), "m/config.json"),
          doctest::Contains(want.c_str()), input_error);
    }
  CHECK_THROWS_WITH_AS(parse_model_config(marian_with(R"(, "bad_words_ids": [[100]])"), "c.json"),
                       doctest::Contains("key 'bad_words_ids'"), input_error);
  // a list, as Llama 3's eos_token_id; LLaMA's pad_token_id −1 means none
  CHECK_THROWS_WITH_AS(parse_model_config(marian_with(R"(, "forced_eos_token_id": [0, 100])"),
                                          "c.json"),
                       doctest::Contains("key 'forced_eos_token_id'"), input_error);
  CHECK_NOTHROW(parse_model_config(llama_ids(R"("pad_token_id": -1, "bos_token_id": 1)"), "c.json"));
  CHECK_THROWS_WITH_AS(parse_model_config(llama_ids(R"("bos_token_id": 9)"), "c.json"),
                       doctest::Contains("key 'bos_token_id'"), input_error);
  CHECK_THROWS_WITH_AS(parse_model_config(llama_ids(R"("bos_token_id": -5)"), "c.json"),
                       doctest::Contains("key 'bos_token_id'"), input_error);
  // a default the config leaves in place must fit too (BART's end token is 2)
  CHECK_THROWS_WITH_AS(
      parse_model_config(R"({"model_type": "bart", "d_model": 8, "encoder_layers": 1,
                             "decoder_layers": 1, "encoder_attention_heads": 2,
                             "decoder_attention_heads": 2, "encoder_ffn_dim": 8,
                             "decoder_ffn_dim": 8, "max_position_embeddings": 16,
                             "vocab_size": 2, "pad_token_id": 1})",
                         "c.json"),
      doctest::Contains("key 'eos_token_id': expected a token id below the vocabulary's 2 "
                        "(vocab_size); the key is absent and its default 2 is not"),
      input_error);
}

namespace {
const char* llama_with(const std::string& scaling) {
  static std::string text;
  text = R"({"model_type": "llama", "hidden_size": 32, "num_attention_heads": 2,
             "num_hidden_layers": 1, "intermediate_size": 8, "max_position_embeddings": 8,
             "vocab_size": 9, "rope_theta": 10000, "rope_scaling": )" + scaling + "}";
  return text.c_str();
}

}  // namespace

TEST_CASE("RoPE frequencies: plain, linear and Llama 3's scaling, by hand") {
  // head_dim 16: θ_i = 10000^(−i/8), i < 8; wavelengths 2π/θ_i = 6.28, 19.9, 62.8, 199, …
  const model_config plain = parse_model_config(llama_with("null"), "c.json");
  const std::vector<double> t = rope_frequencies(plain);
  REQUIRE(t.size() == 8);
  for (std::size_t i = 0; i < 8; ++i) CHECK(t[i] == doctest::Approx(std::pow(10000.0, -static_cast<double>(i) / 8.0)));
  const model_config lin =
      parse_model_config(llama_with(R"({"rope_type": "linear", "factor": 4})"), "c.json");
  for (std::size_t i = 0; i < 8; ++i) CHECK(rope_frequencies(lin)[i] == doctest::Approx(t[i] / 4));
  // Llama 3 with L0 = 160, low 1, high 4: wavelength < 40 kept, > 160 divided by 8, between
  // them s = (160/λ − 1)/3 mixes the two
  const model_config l3 = parse_model_config(
      llama_with(R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 1,
                     "high_freq_factor": 4, "original_max_position_embeddings": 160})"),
      "c.json");
  const std::vector<double> s = rope_frequencies(l3);
  const double pi = 3.14159265358979323846;
  CHECK(s[0] == doctest::Approx(t[0]));  // λ 6.3
  CHECK(s[1] == doctest::Approx(t[1]));  // λ 19.9
  const double mix = (160.0 / (2 * pi / t[2]) - 1.0) / 3.0;  // λ 62.8
  CHECK(s[2] == doctest::Approx((1 - mix) * t[2] / 8 + mix * t[2]));
  for (std::size_t i = 3; i < 8; ++i) CHECK(s[i] == doctest::Approx(t[i] / 8));  // λ ≥ 199
  // "default" is no scaling; an unknown type and a missing factor are refused
  CHECK(rope_frequencies(parse_model_config(llama_with(R"({"rope_type": "default"})"), "c.json")) == t);
  CHECK_THROWS_WITH_AS(parse_model_config(llama_with(R"({"rope_type": "dynamic", "factor": 2})"), "c.json"),
                       doctest::Contains("default, linear and llama3"), input_error);
  CHECK_THROWS_WITH_AS(parse_model_config(llama_with(R"({"rope_type": "linear"})"), "c.json"),
                       doctest::Contains("rope_scaling.factor"), input_error);
}

TEST_CASE("the family table: every model_type once, found, and listed in the refusal") {
  std::vector<std::string_view> seen;
  for (const family_spec* f : model_families()) {
    CHECK(!f->name.empty());
    CHECK((f->read_config && f->bind && f->embed && f->block));
    for (std::string_view t : f->model_types) {
      CHECK(std::find(seen.begin(), seen.end(), t) == seen.end());
      seen.push_back(t);
      CHECK(find_family(t) == f);
    }
  }
  CHECK(seen == supported_model_types());
  CHECK(find_family("t5x") == nullptr);
  CHECK(find_family("mistral") == &llama_family);
}
