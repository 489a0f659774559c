// `tcsparse methods [--json]`: every method with what it can do. Needs no GPU.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::cli {
namespace {

constexpr Precision kAllPrecisions[] = {Precision::fp64, Precision::fp32, Precision::fp16,
                                        Precision::bf16};

std::vector<std::string> precisions_of(Method method, Operation operation) {
  std::vector<std::string> names;
  for (Precision precision : kAllPrecisions)
    if (supports(method, operation, precision)) names.emplace_back(to_string(precision));
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ",") + name;
  return text.empty() ? "-" : text;
}

int run_methods(bool json) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  if (!json)
    fmt::print("{:<14} {:<20} {:<20} {:<9} {}\n", "method", "spmv", "spmm", "baseline",
               "description");
  for (const MethodInfo& info : methods()) {
    const auto spmv = precisions_of(info.method, Operation::spmv);
    const auto spmm = precisions_of(info.method, Operation::spmm);
    if (json)
      list.push_back({{"name", info.name},
                      {"description", info.description},
                      {"spmv", spmv},
                      {"spmm", spmm},
                      {"baseline", info.is_baseline}});
    else
      fmt::print("{:<14} {:<20} {:<20} {:<9} {}\n", info.name, joined(spmv), joined(spmm),
                 info.is_baseline ? "yes" : "no", info.description);
  }
  if (json) fmt::print("{}\n", list.dump(2));
  return kExitOk;
}

}  // namespace

Command add_methods_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("methods", "List the methods and their capabilities");
  sub->add_flag("--json", *json, "Print JSON");
  return {sub, [json] { return run_methods(*json); }};
}

}  // namespace tcsparse::cli
