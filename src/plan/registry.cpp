// The registry: every method of the library, and the public Method functions that read it.
#include <algorithm>
#include <string>
#include <vector>

#include "plan/auto_choice.hpp"
#include "plan/method.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/method.hpp"

// Every registered method, baselines first, in the order `tcsparse methods` lists them. Each entry
// names a `const tcsparse::detail::MethodDescriptor <entry>_method` defined in the method's folder.
// `automatic` ("auto", plan/auto_choice.cpp) is last: it chooses among the others, so a new
// method is one line above it.
#define TCSPARSE_REGISTERED_METHODS(X) \
  X(cusparse)                          \
  X(cusparse_alg2)                     \
  X(cusparse_alg3)                     \
  X(cublas_dense)                      \
  X(dasp)                              \
  X(csr_overlap)                       \
  X(csr_full_overlap)                  \
  X(tca)                               \
  X(hbp)                               \
  X(automatic)                         \
  /* end of the list */

namespace tcsparse {

namespace detail {
#define TCSPARSE_DECLARE_METHOD(entry) extern const MethodDescriptor entry##_method;
TCSPARSE_REGISTERED_METHODS(TCSPARSE_DECLARE_METHOD)
#undef TCSPARSE_DECLARE_METHOD

ParameterValues checked_parameters(const MethodDescriptor& method,
                                   const std::vector<std::string>& key_values) {
  const std::span<const ParameterSpec> specs =
      method.parameters ? method.parameters() : std::span<const ParameterSpec>{};
  return check_parameter_values(method.name, specs, key_values);
}
}  // namespace detail

namespace {

std::vector<Method> registered_methods() {
  std::vector<Method> list;
#define TCSPARSE_LIST_METHOD(entry) list.emplace_back(detail::entry##_method);
  TCSPARSE_REGISTERED_METHODS(TCSPARSE_LIST_METHOD)
#undef TCSPARSE_LIST_METHOD
  return list;
}

std::string registered_names() {
  std::string names;
  for (const Method method : methods())
    names += (names.empty() ? "" : ", ") + std::string(method.name());
  return names;
}

const detail::MethodDescriptor& find_descriptor(std::string_view name) {
  for (const Method method : methods())
    if (method.name() == name) return method.descriptor();
  throw Error("unknown method '" + std::string(name) + "': known methods are " +
              registered_names());
}

}  // namespace

const std::vector<Method>& methods() {
  static const std::vector<Method> list = registered_methods();
  return list;
}

Method::Method(std::string_view name) : descriptor_(&find_descriptor(name)) {}

std::string_view Method::name() const { return descriptor_->name; }
std::string_view Method::description() const { return descriptor_->description; }
bool Method::is_baseline() const { return descriptor_->is_baseline; }

std::vector<Precision> Method::precisions(Operation operation) const {
  std::vector<Precision> list;
  for (const Precision precision : {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16})
    if (supports(operation, precision)) list.push_back(precision);
  return list;
}

bool Method::is_automatic() const { return descriptor_->is_automatic; }

bool Method::supports(Operation operation, Precision precision) const {
  if (descriptor_->is_automatic) return !detail::auto_candidates(operation, precision).empty();
  return operation == Operation::spmv ? descriptor_->spmv.has(precision)
                                      : descriptor_->spmm.has(precision);
}

std::span<const ParameterSpec> Method::parameters() const {
  return descriptor_->parameters ? descriptor_->parameters() : std::span<const ParameterSpec>{};
}

std::string_view to_string(Method method) { return method.name(); }
Method parse_method(std::string_view name) { return Method(name); }
bool supports(Method method, Operation operation, Precision precision) {
  return method.supports(operation, precision);
}

std::string_view to_string(Operation operation) {
  return operation == Operation::spmv ? "spmv" : "spmm";
}

void check_parameters(Method method, const std::vector<std::string>& parameters) {
  (void)detail::checked_parameters(method.descriptor(), parameters);
}

Json layout_statistics(Method method, const CsrMatrix<double, std::int32_t>& matrix,
                       const std::vector<std::string>& parameters) {
  const detail::MethodDescriptor& descriptor = method.descriptor();
  const detail::ParameterValues values = detail::checked_parameters(descriptor, parameters);
  if (!descriptor.layout_statistics) return nullptr;
  return descriptor.layout_statistics(matrix, values);
}

}  // namespace tcsparse
