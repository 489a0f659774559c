// Method parameters: "key=value" strings checked against a method's schema (ParameterSpec, in
// include/tcsparse/method.hpp) once, when a plan is built, then read by the method as typed
// values. Host-only (tcsparse_host): a method's host layout reads its parameters too.
//
//   const ParameterValues values = check_parameter_values("dasp", dasp_parameter_specs(),
//                                                         {"blocks_in_flight=4"});
//   values.is_auto("blocks_in_flight");   // false
//   values.integer("blocks_in_flight");   // 4
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tcsparse/method.hpp"

namespace tcsparse::detail {

/// Every parameter of one method, as given or defaulted, each value accepted by its spec.
class ParameterValues {
 public:
  ParameterValues() = default;

  /// The value as written ("auto", "4", "0.75", "column").
  const std::string& text(std::string_view name) const;
  bool is(std::string_view name, std::string_view word) const { return text(name) == word; }
  bool is_auto(std::string_view name) const { return is(name, "auto"); }
  /// The value of an integer parameter that is not one of its words.
  std::int64_t integer(std::string_view name) const;
  /// The value of a number parameter that is not one of its words.
  double number(std::string_view name) const;
  /// Whether `name` was given rather than defaulted.
  bool given(std::string_view name) const;

  /// "key=value,key=value" with every key, in schema order.
  std::string to_string() const;
  /// {"key": "value", ...} with every key, in schema order.
  Json to_json() const;

 private:
  friend ParameterValues check_parameter_values(std::string_view, std::span<const ParameterSpec>,
                                                const std::vector<std::string>&);
  struct Entry {
    std::string name, value;
    bool given = false;
  };
  const Entry& entry(std::string_view name) const;
  std::vector<Entry> entries_;
};

/// Checks `key_values` ("key=value" each) against `specs` and fills in the defaults. A string
/// without '=', an unknown key, a key given twice or a value the spec does not accept throws
/// ParameterError naming `method`, the parameter and what it accepts (every key, for an unknown
/// one).
ParameterValues check_parameter_values(std::string_view method, std::span<const ParameterSpec> specs,
                                       const std::vector<std::string>& key_values);

}  // namespace tcsparse::detail
