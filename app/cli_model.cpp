#include "cli_model.h"

#include <algorithm>

#include "attention/registry.h"
#include "render/colormap.h"

namespace attnviz::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    std::size_t end = s.find(sep, pos);
    if (end == std::string::npos) end = s.size();
    if (end > pos) out.push_back(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

template <class Entries>
std::vector<std::string> names_of(const Entries& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.emplace_back(e.info.name);
  return out;
}

// Values an option takes from a registry rather than a fixed list (the parser accepts aliases
// too, so it has no IsMember check to read them from).
std::vector<std::string> registry_choices(const std::string& name) {
  if (name == "--score" || name == "--scores") return names_of(score_registry());
  if (name == "--align" || name == "--aligns") return names_of(align_registry());
  if (name == "--context" || name == "--contexts") return names_of(context_registry());
  if (name == "--position") return {"none", "sinusoidal", "rope", "alibi"};
  if (name == "--cmap") {
    std::vector<std::string> out;
    for (const auto& c : colormap_registry()) out.emplace_back(c.name);
    return out;
  }
  if (name == "--isa") return {"generic", "avx2", "avx512"};
  return {};
}

option_model model_of(const CLI::Option& o) {
  option_model m;
  for (const auto& n : o.get_lnames()) m.names.push_back("--" + n);
  for (const auto& n : o.get_snames()) m.names.push_back("-" + n);
  std::string type = o.get_type_size() == 0 ? "" : o.get_type_name();
  if (const auto brace = type.find(":{"); brace != std::string::npos) {
    m.choices = split(type.substr(brace + 2, type.size() - brace - 3), ',');
    type.erase(brace);
  }
  if (const auto colon = type.find(':'); colon != std::string::npos)
    type.erase(colon);  // INT:INT in [0 - 9]
  m.value = type;
  if (m.choices.empty() && !m.names.empty()) m.choices = registry_choices(m.names.front());
  m.default_value = o.get_default_str();
  m.description = o.get_description();
  m.group = o.get_group();
  return m;
}

command_model command_of(const CLI::App& app, const std::string& name) {
  command_model c;
  c.name = name;
  c.description = app.get_description();
  c.footer = app.get_footer();
  for (const CLI::Option* o : app.get_options())
    if (!o->get_lnames().empty() || !o->get_snames().empty()) c.options.push_back(model_of(*o));
  return c;
}

}  // namespace

std::vector<command_model> describe(const CLI::App& app) {
  std::vector<command_model> out{command_of(app, "")};
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out.push_back(command_of(*sub, sub->get_name()));
  return out;
}

}  // namespace attnviz::cli
