// The JSON type of tcsparse's structured statistics (PlanStats::details, layout_statistics):
// nlohmann::ordered_json, so keys keep the order in which a method adds them.
#pragma once

#include <nlohmann/json.hpp>

namespace tcsparse {

using Json = nlohmann::ordered_json;

}  // namespace tcsparse
