// `tcsparse methods [--json]`: every method with what it can do. Needs no GPU.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::cli {
namespace {

std::vector<std::string> precision_names(Method method, Operation operation) {
  std::vector<std::string> names;
  for (const Precision precision : method.precisions(operation))
    names.emplace_back(to_string(precision));
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text.empty() ? "-" : text;
}

Json parameters_json(Method method) {
  Json list = Json::array();
  for (const ParameterSpec& spec : method.parameters()) {
    Json entry{{"name", spec.name},
               {"type", to_string(spec.type)},
               {"default", spec.default_value},
               {"accepts", spec.accepted_values()},
               {"help", spec.help}};
    if (spec.type != ParameterSpec::Type::choice) entry["range"] = {spec.lowest, spec.highest};
    if (!spec.words.empty()) entry["words"] = spec.words;
    list.push_back(std::move(entry));
  }
  return list;
}

int run_methods(bool json) {
  Json list = Json::array();
  if (!json)
    fmt::print("{:<14} {:<20} {:<20} {:<9} {}\n", "method", "spmv", "spmm", "baseline",
               "description");
  for (const Method method : methods()) {
    const auto spmv = precision_names(method, Operation::spmv);
    const auto spmm = precision_names(method, Operation::spmm);
    if (json) {
      list.push_back({{"name", method.name()},
                      {"description", method.description()},
                      {"spmv", spmv},
                      {"spmm", spmm},
                      {"baseline", method.is_baseline()},
                      {"automatic", method.is_automatic()},
                      {"parameters", parameters_json(method)}});
      continue;
    }
    fmt::print("{:<14} {:<20} {:<20} {:<9} {}\n", method.name(), joined(spmv), joined(spmm),
               method.is_baseline() ? "yes" : "no", method.description());
    for (const ParameterSpec& spec : method.parameters())
      fmt::print("    {}={}  {}; {}\n", spec.name, spec.default_value, spec.help,
                 spec.accepted_values());
  }
  if (json) fmt::print("{}\n", list.dump(2));
  return kExitOk;
}

}  // namespace

Command add_methods_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand(
      "methods", "List the methods, what they support and their parameters (KEY=DEFAULT)");
  sub->add_flag("--json", *json, "Print JSON");
  return {sub, [json] { return run_methods(*json); }};
}

}  // namespace tcsparse::cli
