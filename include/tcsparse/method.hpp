// Methods: the algorithms a plan can run, each known by its registered name.
//
//   for (const tcsparse::Method method : tcsparse::methods())
//     std::cout << method.name() << ": " << method.description() << '\n';
//   tcsparse::Method dasp("dasp");                   // throws Error for an unregistered name
//   dasp.supports(tcsparse::Operation::spmv, tcsparse::Precision::fp16);
//   dasp.parameters();                                // the schema of its "key=value" options
//
// The list is the registry of src/plan/registry.cpp: every method registers one descriptor
// there, and plans, the CLI, the benchmarks and the tests all iterate it.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse {

enum class Operation { spmv, spmm };

/// "spmv" or "spmm".
std::string_view to_string(Operation operation);

/// One named parameter of a method (PlanOptions::parameters, "name=value"). A value is accepted
/// when it is one of `words`, or (type integer / number) a number in [lowest, highest].
struct ParameterSpec {
  enum class Type { integer, number, choice };

  std::string_view name;
  Type type = Type::choice;
  std::string_view default_value;      ///< as it would be written, e.g. "auto" or "0.75"
  double lowest = 0.0, highest = 0.0;  ///< integer and number: the accepted range
  std::vector<std::string_view> words; ///< choice: every value; otherwise extra words ("auto")
  std::string_view help;               ///< one line

  /// "an integer in [1, 65536] or auto", "one of row, column, auto", ...
  std::string accepted_values() const;
};

std::string_view to_string(ParameterSpec::Type type);

namespace detail {
struct MethodDescriptor;
}

/// A registered method. Cheap to copy; compares by identity, orders by name.
class Method {
 public:
  /// The method registered under `name`; throws Error listing the registered names otherwise.
  Method(std::string_view name);  // NOLINT(google-explicit-constructor): Method("dasp") or "dasp"
  Method(const char* name) : Method(std::string_view(name)) {}
  Method(const std::string& name) : Method(std::string_view(name)) {}

  std::string_view name() const;
  std::string_view description() const;
  /// true for the vendor-library baselines every other method is measured against.
  bool is_baseline() const;
  /// true for "auto": a plan resolves it to a registered method chosen for the matrix and the
  /// request (the plan's method() then names that method; see automatic_choice below).
  bool is_automatic() const;
  /// The precisions it runs `operation` in (empty: not that operation at all).
  std::vector<Precision> precisions(Operation operation) const;
  bool supports(Operation operation, Precision precision) const;
  /// Its parameters, in the order `tcsparse methods` lists them.
  std::span<const ParameterSpec> parameters() const;

  friend bool operator==(const Method& a, const Method& b) { return a.descriptor_ == b.descriptor_; }
  friend std::strong_ordering operator<=>(const Method& a, const Method& b) {
    return a.name() <=> b.name();
  }

  /// The registry's entry (library internal).
  const detail::MethodDescriptor& descriptor() const { return *descriptor_; }
  explicit Method(const detail::MethodDescriptor& descriptor) : descriptor_(&descriptor) {}

 private:
  const detail::MethodDescriptor* descriptor_;
};

/// Every registered method, baselines first, in registration order; "auto" last.
const std::vector<Method>& methods();

std::string_view to_string(Method method);
/// Method(name), for symmetry with parse_precision.
Method parse_method(std::string_view name);
bool supports(Method method, Operation operation, Precision precision);

/// Checks "key=value" parameters against `method`'s schema without building anything. Throws
/// ParameterError naming the method, the parameter and what it accepts (for an unknown key: every
/// key the method has).
void check_parameters(Method method, const std::vector<std::string>& parameters);

/// The statistics of `method`'s layout of `matrix` (rows per category, padding, ...), built on the
/// host with the given parameters: no GPU needed. null for a method without a host layout.
Json layout_statistics(Method method, const CsrMatrix<double, std::int32_t>& matrix,
                       const std::vector<std::string>& parameters = {});

/// What Method("auto") chooses for `matrix` and this request, without building anything (no GPU
/// needed): {"chosen": name, "features": {...}, "rule": id, "leaf": tests}, the object a plan's
/// PlanStats::details["auto"] holds. l2_cache_bytes 0: the 50 MiB of an H100 / H200 (a plan uses
/// its GPU's cudaDevAttrL2CacheSize). Throws UnsupportedError when no method supports the request.
Json automatic_choice(const CsrMatrix<double, std::int32_t>& matrix, Operation operation,
                      Precision precision, std::int64_t n = 1, std::size_t l2_cache_bytes = 0);

}  // namespace tcsparse
