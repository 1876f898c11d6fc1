#include "jobs/align_reading.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "error.h"
#include "index_list.h"
#include "io/file_io.h"

namespace attnviz {

namespace align_reading_parts {

// One key of alignment.json as index-list text: a string ("0-1") or a whole number; absent: "".
std::string key_text(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.contains(key)) return {};
  const nlohmann::json& v = j.at(key);
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  throw input_error(path, fmt::format("\"{}\": expected a list like \"1\" or \"0-1\", or a "
                                      "whole number",
                                      key));
}

// Checked against the model: a layer or head it lacks names the file, not a flag.
void check_indices(const std::string& text, std::size_t limit, const char* what,
                   const std::string& path) {
  if (text.empty()) return;
  try {
    parse_index_list(text, limit, what, what);
  } catch (const usage_error&) {
    throw input_error(path, fmt::format("\"{}\": \"{}\" is not a list of the model's {} {} "
                                        "(0 to {})",
                                        what, text, limit, what, limit - 1));
  }
}

// "extract", "threshold" and "symmetrize" of one object of alignment.json; none: nullopt.
std::optional<saved_extract> extract_of(const nlohmann::json& j, const std::string& path,
                                        const char* where) {
  if (!j.contains("extract")) return std::nullopt;
  const auto text = [&](const char* key, const std::vector<const char*>& allowed) {
    const nlohmann::json& v = j.at(key);
    if (v.is_string())
      for (const char* name : allowed)
        if (v.get<std::string>() == name) return v.get<std::string>();
    throw input_error(
        path, fmt::format("{}\"{}\": expected one of {}", where, key, fmt::join(allowed, ", ")));
  };
  saved_extract e;
  e.extract = *align_extract_named(
      text("extract", {align_extract_names.begin(), align_extract_names.end()}));
  if (e.extract == align_extract::threshold) {
    const auto t = j.find("threshold");
    if (t == j.end() || !t->is_number() || t->get<double>() < 0.0 || t->get<double>() > 1.0)
      throw input_error(path, fmt::format("{}\"threshold\": expected a number from 0 to 1 with "
                                          "\"extract\": \"threshold\"",
                                          where));
    e.threshold = t->get<double>();
  } else if (j.contains("symmetrize")) {
    e.symmetrize = text("symmetrize", {"intersect", "union", "grow-diag-final-and"});
  }
  return e;
}

}  // namespace align_reading_parts

std::optional<align_extract> align_extract_named(std::string_view name) {
  for (std::size_t k = 0; k < align_extract_names.size(); ++k)
    if (name == align_extract_names[k]) return static_cast<align_extract>(k);
  return std::nullopt;
}

align_reading saved_align_reading(const std::string& model_dir) {
  using namespace align_reading_parts;
  const std::string path = model_dir + "/alignment.json";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {"", "", "all", {}, {}};
  const auto j = nlohmann::json::parse(read_whole_file(path), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw input_error(path, "expected a JSON object like {\"layers\": \"1\", \"heads\": \"0\"}");
  align_reading r{key_text(j, "layers", path), key_text(j, "heads", path), path, {}, {}};
  r.alone = extract_of(j, path, "");
  if (j.contains("with_reverse")) {
    if (!j.at("with_reverse").is_object())
      throw input_error(path,
                        "\"with_reverse\": expected an object like {\"extract\": "
                        "\"threshold\", \"threshold\": 0.05}");
    r.with_reverse = extract_of(j.at("with_reverse"), path, "\"with_reverse\": ");
  }
  return r;
}

align_reading align_reading_of(const hf_model& m, const std::string& model_dir,
                               const std::string& layers, const std::string& heads) {
  using namespace align_reading_parts;
  if (!layers.empty() || !heads.empty()) return {layers, heads, "--layers/--heads", {}, {}};
  align_reading r = saved_align_reading(model_dir);
  if (r.from == "all") return r;
  check_indices(r.layers, m.config.decoder_layers, "layers", r.from);
  check_indices(r.heads, m.config.decoder_heads, "heads", r.from);
  return r;
}

std::string describe(const align_reading& r) {
  const auto plural = [](const std::string& list) {
    return list.find_first_of(",-") == std::string::npos ? "" : "s";
  };
  const std::string layers = r.layers.empty()
                                 ? "every decoder layer"
                                 : fmt::format("decoder layer{} {}", plural(r.layers), r.layers);
  const std::string heads =
      r.heads.empty() ? "every head" : fmt::format("head{} {}", plural(r.heads), r.heads);
  return fmt::format("{}, {} ({})", layers, heads,
                     r.from == "all" ? "no --layers/--heads nor alignment.json" : r.from);
}

}  // namespace attnviz
