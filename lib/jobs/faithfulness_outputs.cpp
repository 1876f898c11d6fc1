#include "jobs/faithfulness_outputs.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "attnviz/version.h"
#include "render/curve_chart.h"

namespace attnviz {

namespace faithfulness_outputs_parts {

// How the tokens were erased, for the table and the figure.
std::string erased_how(const faithfulness_report& r) {
  const std::string how = r.erase == "drop" ? "dropped" : r.erase;
  return r.keep_last ? how + ", the last token kept" : how;
}


nlohmann::ordered_json curves_json(const erasure_curves& c, bool with_areas) {
  nlohmann::ordered_json j;
  j["comprehensiveness"] = c.comprehensiveness;
  j["sufficiency"] = c.sufficiency;
  if (with_areas) {
    j["comprehensiveness_aopc"] = c.comprehensiveness_aopc();
    j["sufficiency_aopc"] = c.sufficiency_aopc();
  }
  return j;
}

nlohmann::ordered_json text_json(const faithfulness_report& r, const faithfulness_text& t) {
  nlohmann::ordered_json j;
  j["tokens"] = t.tokens;
  j["ids"] = t.ids;
  j["position"] = t.position;
  j["prediction"] = {
      {"id", t.predicted}, {"token", t.predicted_token}, {"probability", t.probability}};
  std::vector<std::size_t> erasable;
  for (std::size_t i = 0; i < t.erasable.size(); ++i)
    if (t.erasable[i]) erasable.push_back(i);
  j["erasable"] = erasable;
  nlohmann::ordered_json measures = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < r.measures.size(); ++k) {
    nlohmann::ordered_json m = curves_json(t.curves[k], false);
    m["ranking"] = t.rankings[k];
    measures[r.measures[k]] = m;
  }
  j["measures"] = measures;
  if (r.random > 0) j["random"] = curves_json(t.random, false);
  return j;
}

}  // namespace faithfulness_outputs_parts

std::string faithfulness_json(const faithfulness_report& r) {
  using namespace faithfulness_outputs_parts;
  nlohmann::ordered_json j;
  j["producer"] = fmt::format("attn-viz {}", version);
  j["model"] = r.folder;
  j["model_type"] = r.config.model_type;
  j["measures"] = r.measures;
  j["k"] = r.k;
  j["random"] = r.random;
  j["seed"] = r.seed;
  j["erase"] = r.erase;
  j["keep_last"] = r.keep_last;
  nlohmann::ordered_json summary;
  for (std::size_t k = 0; k < r.measures.size(); ++k)
    summary[r.measures[k]] = curves_json(r.summary[k], true);
  if (r.random > 0) summary["random"] = curves_json(r.random_summary, true);
  j["summary"] = summary;
  j["texts"] = nlohmann::ordered_json::array();
  for (const faithfulness_text& t : r.texts) j["texts"].push_back(text_json(r, t));
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string faithfulness_table(const faithfulness_report& r) {
  using faithfulness_outputs_parts::erased_how;
  std::string out = fmt::format(
      "{:<15} {:>9} {:>9}   {:>9} {:>9}   (over {} text{}, k = 1 to {} tokens erased, {})\n",
      "measure", "comp AOPC", "suff AOPC", "comp@" + std::to_string(r.k),
      "suff@" + std::to_string(r.k), r.texts.size(), r.texts.size() == 1 ? "" : "s", r.k,
      erased_how(r));
  const auto row = [&](const std::string& name, const erasure_curves& c) {
    out += fmt::format("{:<15} {:>9.4f} {:>9.4f}   {:>9.4f} {:>9.4f}\n", name,
                       c.comprehensiveness_aopc(), c.sufficiency_aopc(), c.comprehensiveness.back(),
                       c.sufficiency.back());
  };
  for (std::size_t k = 0; k < r.measures.size(); ++k) row(r.measures[k], r.summary[k]);
  if (r.random > 0) row(fmt::format("random ({})", r.random), r.random_summary);
  out +=
      "comprehensiveness: how far p(prediction) falls with the ranking's top k erased "
      "(higher: more faithful); sufficiency: how far it falls with all but them erased "
      "(lower: more faithful)\n";
  return out;
}

figure faithfulness_figure(const faithfulness_report& r) {
  using faithfulness_outputs_parts::erased_how;
  curve_chart_spec s;
  s.title = fmt::format("faithfulness · {}", r.folder);
  const faithfulness_text& first = r.texts.front();
  s.subtitle = r.texts.size() == 1
                   ? fmt::format("prediction \"{}\" (p = {:.3f}) at position {}; tokens {}",
                                 first.predicted_token, first.probability, first.position,
                                 erased_how(r))
                   : fmt::format("mean over {} texts; tokens {}", r.texts.size(),
                                 erased_how(r));
  s.x_label = "tokens erased (k), most important first";
  s.y_label = "p(prediction) − p(after erasing)";
  for (std::size_t k = 1; k <= r.k; ++k) s.x.push_back(static_cast<double>(k));
  chart_panel comp{"comprehensiveness: top k erased (higher: better)", {}};
  chart_panel suff{"sufficiency: only top k kept (lower: better)", {}};
  for (std::size_t k = 0; k < r.measures.size(); ++k) {
    comp.series.push_back({r.measures[k], r.summary[k].comprehensiveness, false});
    suff.series.push_back({r.measures[k], r.summary[k].sufficiency, false});
  }
  if (r.random > 0) {
    const std::string random = fmt::format("random ({} orders)", r.random);
    comp.series.push_back({random, r.random_summary.comprehensiveness, true});
    suff.series.push_back({random, r.random_summary.sufficiency, true});
  }
  s.panels = {comp, suff};
  return curve_chart(s);
}

}  // namespace attnviz
