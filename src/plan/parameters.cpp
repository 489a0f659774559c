#include "plan/parameters.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "tcsparse/error.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse {

std::string_view to_string(ParameterSpec::Type type) {
  switch (type) {
    case ParameterSpec::Type::integer: return "integer";
    case ParameterSpec::Type::number: return "number";
    case ParameterSpec::Type::choice: break;
  }
  return "choice";
}

std::string ParameterSpec::accepted_values() const {
  std::string words_text;
  for (const std::string_view word : words)
    words_text += fmt::format("{}{}", words_text.empty() ? "" : ", ", word);
  if (type == Type::choice) return "one of " + words_text;
  std::string range = fmt::format("{} in [{}, {}]", type == Type::integer ? "an integer" : "a number",
                                  lowest, highest);
  return words_text.empty() ? range : range + " or " + words_text;
}

namespace {
struct HostUploadName {
  HostUpload upload;
  std::string_view name;
};
constexpr HostUploadName kHostUploadNames[] = {{HostUpload::automatic, "automatic"},
                                               {HostUpload::staged, "staged"},
                                               {HostUpload::registered, "register"},
                                               {HostUpload::direct, "direct"}};
}  // namespace

std::string_view to_string(HostUpload upload) {
  for (const HostUploadName& entry : kHostUploadNames)
    if (entry.upload == upload) return entry.name;
  return "automatic";
}

HostUpload parse_host_upload(std::string_view text) {
  for (const HostUploadName& entry : kHostUploadNames)
    if (entry.name == text) return entry.upload;
  throw ParameterError(fmt::format(
      "host upload '{}' is not one of automatic, staged, register, direct", text));
}

std::string_view to_string(DenseLayout layout) {
  return layout == DenseLayout::column_major ? "column_major" : "row_major";
}

DenseLayout parse_dense_layout(std::string_view text) {
  if (text == "row_major" || text == "row") return DenseLayout::row_major;
  if (text == "column_major" || text == "column" || text == "col") return DenseLayout::column_major;
  throw ParameterError(fmt::format(
      "dense layout '{}' is not one of row_major (row), column_major (column, col)", text));
}

std::string_view to_string(SpmmOutput output) {
  return output == SpmmOutput::fp32 ? "fp32" : "input";
}

SpmmOutput parse_spmm_output(std::string_view text) {
  if (text == "input") return SpmmOutput::input_type;
  if (text == "fp32") return SpmmOutput::fp32;
  throw ParameterError(fmt::format("SpMM output '{}' is not one of input, fp32", text));
}

std::string describe(const SpmmLayout& layout, Precision input) {
  const std::string_view output =
      layout.output == SpmmOutput::fp32 ? std::string_view("fp32") : to_string(input);
  return fmt::format("{} B and C, C in {}", to_string(layout.dense), output);
}

namespace detail {
namespace {

bool is_one_of(std::string_view value, const std::vector<std::string_view>& words) {
  return std::find(words.begin(), words.end(), value) != words.end();
}

/// The number `value` spells exactly (no trailing characters), if it does.
bool parse_number(std::string_view value, bool integer, double& result) {
  if (value.empty()) return false;
  const char* end = value.data() + value.size();
  if (integer) {
    std::int64_t parsed = 0;
    const auto [stop, error] = std::from_chars(value.data(), end, parsed);
    result = static_cast<double>(parsed);
    return error == std::errc{} && stop == end;
  }
  const auto [stop, error] = std::from_chars(value.data(), end, result);
  return error == std::errc{} && stop == end && std::isfinite(result);
}

bool accepts(const ParameterSpec& spec, std::string_view value) {
  if (is_one_of(value, spec.words)) return true;
  if (spec.type == ParameterSpec::Type::choice) return false;
  double number = 0.0;
  return parse_number(value, spec.type == ParameterSpec::Type::integer, number) &&
         number >= spec.lowest && number <= spec.highest;
}

std::string known_keys(std::span<const ParameterSpec> specs) {
  std::string keys;
  for (const ParameterSpec& spec : specs) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", spec.name);
  return keys.empty() ? "none (it takes no parameters)" : keys;
}

}  // namespace

ParameterValues check_parameter_values(std::string_view method, std::span<const ParameterSpec> specs,
                                       const std::vector<std::string>& key_values) {
  ParameterValues values;
  for (const ParameterSpec& spec : specs)
    values.entries_.push_back({std::string(spec.name), std::string(spec.default_value), false});
  for (const std::string& item : key_values) {
    const auto equals = item.find('=');
    if (equals == std::string::npos || equals == 0)
      throw ParameterError(fmt::format("method '{}': parameter '{}' is not key=value; its keys: {}",
                                       method, item, known_keys(specs)));
    const std::string_view key = std::string_view(item).substr(0, equals);
    const std::string_view value = std::string_view(item).substr(equals + 1);
    const auto spec = std::find_if(specs.begin(), specs.end(),
                                   [&](const ParameterSpec& s) { return s.name == key; });
    if (spec == specs.end())
      throw ParameterError(fmt::format("method '{}' has no parameter '{}'; its keys: {}", method,
                                       key, known_keys(specs)));
    if (!accepts(*spec, value))
      throw ParameterError(fmt::format("method '{}': parameter {}={} is not accepted: expected {}",
                                       method, key, value, spec->accepted_values()));
    auto& entry = values.entries_[static_cast<std::size_t>(spec - specs.begin())];
    if (entry.given)
      throw ParameterError(fmt::format("method '{}': parameter '{}' is given twice ({}={} and {})",
                                       method, key, key, entry.value, item));
    entry.value = std::string(value);
    entry.given = true;
  }
  return values;
}

const ParameterValues::Entry& ParameterValues::entry(std::string_view name) const {
  for (const Entry& entry : entries_)
    if (entry.name == name) return entry;
  throw Error(fmt::format("internal: no parameter '{}' in this method's schema", name));
}

const std::string& ParameterValues::text(std::string_view name) const { return entry(name).value; }

bool ParameterValues::given(std::string_view name) const { return entry(name).given; }

std::int64_t ParameterValues::integer(std::string_view name) const {
  double number = 0.0;
  if (!parse_number(text(name), true, number))
    throw Error(fmt::format("internal: parameter {}={} is not an integer", name, text(name)));
  return static_cast<std::int64_t>(number);
}

double ParameterValues::number(std::string_view name) const {
  double number = 0.0;
  if (!parse_number(text(name), false, number))
    throw Error(fmt::format("internal: parameter {}={} is not a number", name, text(name)));
  return number;
}

std::string ParameterValues::to_string() const {
  std::string text;
  for (const Entry& entry : entries_)
    text += fmt::format("{}{}={}", text.empty() ? "" : ",", entry.name, entry.value);
  return text;
}

Json ParameterValues::to_json() const {
  Json json = Json::object();
  for (const Entry& entry : entries_) json[entry.name] = entry.value;
  return json;
}

}  // namespace detail
}  // namespace tcsparse
