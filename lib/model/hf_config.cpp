#include "model/hf_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "error.h"
#include "io/file_io.h"
#include "io/json_file.h"
#include "model/config_reader.h"
#include "model/family.h"

namespace attnviz {

namespace {

// eos_token_id: an id, a list of ids, null or absent (no end token).
void read_end_ids(const config_reader& r, model_config& c) {
  if (!r.has("eos_token_id")) return;
  const nlohmann::json& v = r.object().at("eos_token_id");
  if (v.is_null()) return;
  const nlohmann::json list = v.is_array() ? v : nlohmann::json::array({v});
  for (const auto& id : list) {
    if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= c.vocab)
      r.fail("eos_token_id", fmt::format("a token id below the vocabulary's {} (or a list of "
                                         "them), got {}",
                                         c.vocab, v.dump()));
    c.end_ids.push_back(id.get<std::int64_t>());
  }
}

// The token ids config.json names, each one id, a list of ids or null. Those attn-viz looks up
// (decoder_start, forced_bos, eos) and every other one present must name a row of the embedding
// table; a negative id means "none" only where configs use it so (pad_token_id −1, LLaMA's).
constexpr const char* token_id_keys[] = {"bos_token_id",          "eos_token_id",
                                         "pad_token_id",          "decoder_start_token_id",
                                         "forced_bos_token_id",   "forced_eos_token_id",
                                         "mask_token_id",         "unk_token_id",
                                         "sep_token_id",          "cls_token_id"};

void check_token_id_keys(const config_reader& r, const model_config& c) {
  for (const char* key : token_id_keys) {
    if (!r.has(key)) continue;
    const nlohmann::json& v = r.object().at(key);
    const nlohmann::json list = v.is_array() ? v : nlohmann::json::array({v});
    for (const auto& id : list) {
      if (id.is_number_integer() && id.get<std::int64_t>() == -1 &&
          std::string_view(key) == "pad_token_id")
        continue;
      if (!id.is_number_unsigned() || id.get<std::uint64_t>() >= c.vocab)
        r.fail(key, fmt::format("a token id below the vocabulary's {} (vocab_size; or a list of "
                                "them, or null), got {}",
                                c.vocab, v.dump()));
    }
  }
}

// The ids the family settled on (read or defaulted) that a run looks up.
void check_used_ids(const config_reader& r, const model_config& c) {
  const auto check = [&](std::int64_t id, const char* key, bool none_allowed) {
    if (none_allowed && id == -1) return;
    if (id < 0 || static_cast<std::uint64_t>(id) >= c.vocab)
      r.fail(key, fmt::format("a token id below the vocabulary's {} (vocab_size); the key is "
                              "absent and its default {} is not",
                              c.vocab, id));
  };
  check(c.eos_id, "eos_token_id", true);
  if (c.encoder_decoder) {
    check(c.decoder_start_id, "decoder_start_token_id", false);
    check(c.forced_bos_id, "forced_bos_token_id", true);
  }
  for (const std::int64_t id : c.banned_ids)
    if (static_cast<std::uint64_t>(id) >= c.vocab)
      r.fail("bad_words_ids", fmt::format("token ids below the vocabulary's {} (vocab_size), "
                                          "got {}",
                                          c.vocab, id));
}

}  // namespace

model_config parse_model_config(const std::string& json_text, const std::string& path) {
  const nlohmann::json j = parse_json_text(json_text, path, "the model's config object");
  if (!j.is_object()) throw input_error(path, "must hold a JSON object (the model's config)");
  return model_config_of(j, path);
}

model_config model_config_of(const nlohmann::json& j, const std::string& path) {
  const config_reader r(j, path);
  model_config c;
  c.model_type = r.text_or("model_type", "");
  if (c.model_type.empty())
    r.fail("model_type", fmt::format("one of {} (the key is missing)",
                                     fmt::join(supported_model_types(), ", ")));
  c.family = find_family(c.model_type);
  if (!c.family)
    r.fail("model_type", fmt::format("one of {} (the families attn-viz runs), got '{}'",
                                     fmt::join(supported_model_types(), ", "), c.model_type));
  c.family->read_config(r, c);
  if (c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0) {
    if (c.d_model % c.heads != 0)
      throw input_error(path, fmt::format("the model size {} is not a multiple of the {} heads",
                                          c.d_model, c.heads));
    c.head_dim = c.d_model / c.heads;
  }
  if (c.heads % c.kv_heads != 0)
    throw input_error(path, fmt::format("{} query heads cannot share {} key/value heads evenly",
                                        c.heads, c.kv_heads));
  if (c.causal && !c.encoder_decoder) read_end_ids(r, c);
  if (c.vision.on) return c;  // no vocabulary: no token ids to check
  check_token_id_keys(r, c);
  check_used_ids(r, c);
  return c;
}

model_config read_model_config(const std::string& path) {
  return parse_model_config(read_whole_file(path), path);
}

std::string model_summary(const model_config& c) {
  if (c.encoder_decoder)
    return fmt::format("{} · encoder {} layers × {} heads · decoder {} layers × {} heads · d {}",
                       c.model_type, c.layers, c.heads, c.decoder_layers, c.decoder_heads,
                       c.d_model);
  std::string heads = fmt::format("{} heads", c.heads);
  if (c.vision.on)
    return fmt::format("{} · {} layers · d {} · {} ({} each) · patch {}", c.model_type, c.layers,
                       c.d_model, heads, c.head_dim, c.vision.patch_size);
  if (c.kv_heads != c.heads) heads += fmt::format(" / {} KV", c.kv_heads);
  return fmt::format("{} · {} layers · d {} · {} ({} each)", c.model_type, c.layers, c.d_model,
                     heads, c.head_dim);
}

std::vector<double> rope_frequencies(const model_config& c) {
  const double pi = 3.14159265358979323846;
  const rope_scaling_config& s = c.rope_scaling;
  const std::size_t r = c.rotary_dims ? c.rotary_dims : c.head_dim;
  std::vector<double> theta(r / 2);
  for (std::size_t i = 0; i < theta.size(); ++i) {
    const double t = std::pow(c.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(r));
    double scaled = t;
    if (s.kind == rope_scaling_kind::divisors) {
      scaled = t / s.divisors.at(i);
    } else if (s.kind == rope_scaling_kind::linear) {
      scaled = t / s.factor;
    } else if (s.kind == rope_scaling_kind::llama3) {
      const double wavelength = 2.0 * pi / t;
      if (wavelength > s.original_max_positions / s.low_freq_factor) {
        scaled = t / s.factor;
      } else if (wavelength >= s.original_max_positions / s.high_freq_factor) {
        const double smooth = (s.original_max_positions / wavelength - s.low_freq_factor) /
                              (s.high_freq_factor - s.low_freq_factor);
        scaled = (1.0 - smooth) * t / s.factor + smooth * t;
      }
    }
    theta[i] = scaled;
  }
  return theta;
}

}  // namespace attnviz
