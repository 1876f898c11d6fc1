#include "jobs/generation_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "error.h"
#include "model/generate.h"
#include "tokenizers/token_display.h"
#include "tokenizers/vocabulary.h"

namespace attnviz {

namespace {

// The text the tokens after the prompt spell: the whole sequence's text (end tokens left out)
// past the prompt's (`head`, its text alone), so a leading space survives; a trailing U+FFFD (a
// character whose bytes are not all generated yet) is held back while `partial`.
std::string continuation(const model_config& c, const std::vector<std::int64_t>& ids,
                         const std::vector<std::string>& tokens, std::size_t prompt,
                         const std::string& head, bool partial) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (i < prompt || std::find(c.end_ids.begin(), c.end_ids.end(), ids[i]) == c.end_ids.end())
      kept.push_back(tokens[i]);
  std::string text = tokens_to_text(kept);
  text = text.compare(0, head.size(), head) == 0 ? text.substr(head.size()) : text;
  const std::string replacement = "\xEF\xBF\xBD";
  if (partial && text.size() >= 3 && text.compare(text.size() - 3, 3, replacement) == 0)
    text.resize(text.size() - 3);
  return text;
}

}  // namespace

void run_generation(const hf_model& m, const model_job_config& c, model_report& r) {
  const std::optional<vocabulary>& vocab = r.vocab.get();
  auto name = [&](std::int64_t id) { return vocab ? vocab->token(id) : fmt::format("{}", id); };
  const std::size_t prompt = r.ids.size();
  std::vector<std::int64_t> ids = r.ids;
  std::vector<std::string> tokens = r.tokens;
  const std::string head = tokens_to_text(r.tokens);  // the prompt's text, once
  std::size_t shown = 0;
  generation_request request;
  request.max_new = c.generate;
  request.how = c.how;
  request.on_token = [&](std::int64_t id) {
    ids.push_back(id);
    tokens.push_back(name(id));
    const std::string text = continuation(m.config, ids, tokens, prompt, head, true);
    if (c.on_text && text.size() > shown) c.on_text(text.substr(shown));
    shown = std::max(shown, text.size());
    return !c.stop.empty() && text.find(c.stop) != std::string::npos;
  };
  generation g = generate_causal(m, r.ids, request, c.on_text ? progress_style::quiet : c.progress);
  r.ids = std::move(g.ids);
  r.tokens = std::move(tokens);
  r.forward = std::move(g.forward);
  r.prompt = prompt;
  r.generated = true;
  r.ended = g.ended;
  r.generated_text = continuation(m.config, r.ids, r.tokens, prompt, head, false);
  if (c.on_text && r.generated_text.size() > shown) c.on_text(r.generated_text.substr(shown));
}

std::string generation_json(const model_report& r, const model_job_config& c, int indent) {
  nlohmann::ordered_json j;
  j["prompt_tokens"] = r.prompt;
  j["generated_ids"] = std::vector<std::int64_t>(r.ids.begin() + static_cast<std::ptrdiff_t>(r.prompt), r.ids.end());
  j["generated_text"] = r.generated_text;
  j["ended_at_end_token"] = r.ended;
  j["sampling"] = {{"sample", c.how.sample},
                   {"temperature", c.how.temperature},
                   {"top_p", c.how.top_p},
                   {"seed", c.how.seed}};
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace attnviz
