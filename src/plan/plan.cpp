// SpmvPlan / SpmmPlan: check what was asked, pick the device, and hand the matrix to the method's
// factory (its MethodDescriptor in the registry).
#include "tcsparse/plan.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "core/csr_validation.hpp"
#include "plan/auto_choice.hpp"
#include "plan/auto_measure.hpp"
#include "plan/method.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/host_upload.hpp"
#include "runtime/permute.hpp"
#include "runtime/scale.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr_view.hpp"
#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {

namespace {

std::string_view operation_name(Operation operation) {
  return operation == Operation::spmv ? "SpMV" : "SpMM";
}

/// "SpMV in fp64, fp16, bf16; SpMM in fp64, fp32" for an UnsupportedError.
std::string capabilities_text(Method method) {
  std::string text;
  for (const Operation operation : {Operation::spmv, Operation::spmm}) {
    std::string precisions;
    for (const Precision precision : method.precisions(operation))
      precisions += (precisions.empty() ? "" : ", ") + std::string(to_string(precision));
    if (precisions.empty()) continue;
    text += (text.empty() ? "" : "; ") + std::string(operation_name(operation)) + " in " +
            precisions;
  }
  return text;
}

/// The method's factory for this operation and precision: the one place support is decided.
template <typename Factory>
Factory require_factory(Factory factory, Method method, Operation operation, Precision precision) {
  if (factory) return factory;
  throw UnsupportedError("method '" + std::string(method.name()) + "' does not support " +
                         std::string(operation_name(operation)) + " in " +
                         std::string(to_string(precision)) + " (it supports " +
                         capabilities_text(method) + ")");
}

/// Makes `ordinal` the calling thread's current device (and leaves it so: apply runs there).
void select_device(int ordinal) {
  require_cuda_device();
  int count = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (ordinal < 0 || ordinal >= count)
    throw NoDeviceError("PlanOptions::device " + std::to_string(ordinal) +
                        " does not exist: " + std::to_string(count) + " CUDA device(s) present");
  TCSPARSE_CUDA_CHECK(cudaSetDevice(ordinal));
}

/// The L2 of the current device (the features' x_over_l2).
std::int64_t current_device_l2_bytes() {
  int device = 0, bytes = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, device));
  return bytes;
}

/// Method("auto") on the selected device: the choice for a matrix with these row offsets.
detail::AutoChoice choose_automatically(std::span<const std::int32_t> row_ptr, std::int64_t cols,
                                        Operation operation, Precision precision, std::int64_t n) {
  const detail::MatrixFeatures features =
      detail::auto_features(row_ptr, cols, operation, precision, n, current_device_l2_bytes());
  return detail::choose_method(detail::fitted_auto_rule(), features, operation, precision);
}

/// The row offsets of a device CSR (rows + 1 values): all the features need.
template <typename Value>
std::vector<std::int32_t> download_row_ptr(const DeviceCsrView<Value>& matrix) {
  std::vector<std::int32_t> row_ptr(static_cast<std::size_t>(matrix.rows) + 1);
  TCSPARSE_CUDA_CHECK(cudaMemcpy(row_ptr.data(), matrix.row_ptr,
                                 row_ptr.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return row_ptr;
}

template <typename Value>
const detail::SpmvMethod<Value>& spmv_impl(const std::unique_ptr<detail::SpmvMethod<Value>>& impl) {
  if (!impl) throw Error("SpmvPlan: used after being moved from");
  return *impl;
}
template <typename Value>
const detail::SpmmMethod<Value>& spmm_impl(const std::unique_ptr<detail::SpmmMethod<Value>>& impl) {
  if (!impl) throw Error("SpmmPlan: used after being moved from");
  return *impl;
}

template <typename Impl>
Impl& mutable_impl(const std::unique_ptr<Impl>& impl, const char* plan) {
  if (!impl) throw Error(std::string(plan) + ": used after being moved from");
  return *impl;
}

/// The method's object, when it can take new values; else UnsupportedError naming the method.
template <typename Impl>
Impl& updatable(const std::unique_ptr<Impl>& impl, Method method, const char* plan) {
  Impl& object = mutable_impl(impl, plan);
  if (!object.can_update_values())
    throw UnsupportedError("method '" + std::string(method.name()) +
                           "' does not support update_values here: " +
                           object.values_fixed_because());
  return object;
}

template <typename Impl, typename Value>
void update_from_device(Impl& object, std::int64_t nnz, const Value* values, Stream stream,
                        const char* plan) {
  if (nnz == 0) return;
  if (values == nullptr)
    throw ValidationError(std::string(plan) + "::update_values: values is null, expected nnz = " +
                          std::to_string(nnz) + " values");
  object.update_values(values, stream);
}

/// Uploads `values` into a staging buffer on `stream`, hands it to the method, and waits for
/// `stream` so that the staging buffer can go.
template <typename Impl, typename Value>
void update_from_host(Impl& object, std::int64_t nnz, std::span<const Value> values,
                      Stream stream, const char* plan) {
  if (static_cast<std::int64_t>(values.size()) != nnz)
    throw ValidationError(std::string(plan) + "::update_values: " + std::to_string(values.size()) +
                          " values given, expected nnz = " + std::to_string(nnz));
  if (nnz == 0) return;
  detail::DeviceBuffer<Value> staging(values.size());
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(staging.data(), values.data(), values.size_bytes(),
                                      cudaMemcpyHostToDevice, stream));
  object.update_values(staging.data(), stream);
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

/// The method a plan builds, with its checked parameters, and what "auto" saw when it chose it.
struct PlanMethod {
  Method method;  ///< the named method, or the rule's choice under "auto"
  detail::ParameterValues parameters;
  std::optional<detail::AutoChoice> choice;  ///< set when the caller asked for "auto"
};

/// Before any GPU work: a named method must have the factory and accept the parameters (a bad
/// key is a ParameterError even without a GPU). Nothing for "auto": its parameters are checked
/// against the method it chooses.
template <typename Factory>
std::optional<detail::ParameterValues> check_named_method(Method method, Factory factory,
                                                          const PlanOptions& options,
                                                          Operation operation,
                                                          Precision precision) {
  if (method.is_automatic()) return std::nullopt;
  require_factory(factory, method, operation, precision);
  return detail::checked_parameters(method.descriptor(), options.parameters);
}

/// After select_device: the named method as checked, or the one "auto" chooses from the row
/// offsets that `row_offsets()` gives (called only then).
template <typename RowOffsets>
PlanMethod resolve_method(Method method, std::optional<detail::ParameterValues> named,
                          const PlanOptions& options, RowOffsets&& row_offsets, std::int64_t cols,
                          Operation operation, Precision precision, std::int64_t n) {
  if (named) return {method, std::move(*named), std::nullopt};
  detail::AutoChoice choice = choose_automatically(row_offsets(), cols, operation, precision, n);
  detail::ParameterValues parameters = detail::parameters_for_choice(choice, options.parameters);
  return {choice.chosen, std::move(parameters), std::move(choice)};
}

/// The method object under "auto", wrapped to report the choice in its statistics.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> reporting_choice(
    std::unique_ptr<detail::SpmvMethod<Value>> built, Json details) {
  return std::make_unique<detail::AutoSpmvMethod<Value>>(std::move(built), std::move(details));
}
template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> reporting_choice(
    std::unique_ptr<detail::SpmmMethod<Value>> built, Json details) {
  return std::make_unique<detail::AutoSpmmMethod<Value>>(std::move(built), std::move(details));
}

/// The trial timer of SpMV plans: x (cols) and y (rows) zeroed.
template <typename Value>
detail::TrialTimer<detail::SpmvMethod<Value>, Value, Value> spmv_trial_timer(std::int64_t rows,
                                                                           std::int64_t cols) {
  return {static_cast<std::size_t>(cols), static_cast<std::size_t>(rows)};
}

/// The trial timer of SpMM plans: B (cols x n) and C (rows x n) zeroed, C with room for fp32
/// output (as many floats as the wider of the input type and fp32 needs).
template <typename Value>
detail::TrialTimer<detail::SpmmMethod<Value>, Value, float> spmm_trial_timer(std::int64_t rows,
                                                                           std::int64_t cols,
                                                                           std::int64_t n) {
  constexpr std::size_t floats_per_value = (sizeof(Value) + sizeof(float) - 1) / sizeof(float);
  return {static_cast<std::size_t>(cols * n), static_cast<std::size_t>(rows * n) * floats_per_value};
}

/// The plan's method object: `build(method, parameters)` of the named method, or under "auto"
/// the choice (measured among its trial methods where `measurable` and PlanOptions::auto_measure
/// say so, plan/auto_measure.hpp) wrapped to report it. `built` is set to the method built.
template <typename Object, typename Build, typename MakeTimer>
std::unique_ptr<Object> build_method(const PlanMethod& resolved, const PlanOptions& options,
                                     bool measurable, Build&& build, MakeTimer&& make_timer,
                                     Method& built) {
  built = resolved.method;
  if (!resolved.choice) return build(resolved.method, resolved.parameters);
  detail::AutoChoice choice = *resolved.choice;
  // parameters given under "auto" are for the rule's choice: nothing else is tried then
  if (!options.parameters.empty()) choice.trial_methods = {choice.chosen};
  const bool measure = measurable && options.auto_measure && choice.trial_methods.size() > 1;
  Json details = detail::auto_details(choice);
  Json measured = Json::array();
  detail::AutoBuilt<Object> chosen = detail::build_auto_choice<Object>(
      choice, measure,
      [&](Method method) {
        return build(method, method == resolved.method
                                 ? resolved.parameters
                                 : detail::checked_parameters(method.descriptor(), {}));
      },
      make_timer, measured);
  built = chosen.method;
  details["chosen"] = std::string(chosen.method.name());
  details["choice"] = measure ? "measured" : "rule";
  if (measure) details["measured"] = std::move(measured);
  return reporting_choice(std::move(chosen.object), std::move(details));
}

}  // namespace

// ---- SpmvPlan ---------------------------------------------------------------------------------

template <typename Value>
SpmvPlan<Value>::SpmvPlan(const CsrMatrix<Value, std::int32_t>& matrix, Method method,
                          const PlanOptions& options)
    : method_(method), rows_(matrix.rows), cols_(matrix.cols), nnz_(matrix.nnz()) {
  // every method relies on valid CSR: the shape is checked here, the rows and columns here too
  // unless the method checks them on the GPU once it has uploaded them (checks_csr_on_device)
  detail::validate_csr_shape(matrix);
  std::optional<detail::ParameterValues> named = check_named_method(
      method, method.descriptor().spmv.template of<Value>(), options, Operation::spmv,
      precision_of<Value>());
  select_device(options.device);
  const PlanMethod resolved = resolve_method(
      method, std::move(named), options,
      [&] { return std::span<const std::int32_t>(matrix.row_ptr); }, matrix.cols,
      Operation::spmv, precision_of<Value>(), 1);
  const detail::HostUploadScope upload(options.host_upload);
  bool validated = false;
  impl_ = build_method<detail::SpmvMethod<Value>>(
      resolved, options, nnz_ > 0,
      [&](Method chosen, const detail::ParameterValues& parameters) {
        if (!chosen.descriptor().checks_csr_on_device && !validated) {
          matrix.validate();
          validated = true;
        }
        return chosen.descriptor().spmv.template of<Value>()(matrix, parameters);
      },
      [&] { return spmv_trial_timer<Value>(rows_, cols_); }, method_);
}

template <typename Value>
SpmvPlan<Value>::SpmvPlan(const DeviceCsrView<Value>& matrix, Method method,
                          const PlanOptions& options)
    : method_(method), rows_(matrix.rows), cols_(matrix.cols), nnz_(matrix.nnz) {
  std::optional<detail::ParameterValues> named = check_named_method(
      method, method.descriptor().spmv.template of<Value>(), options, Operation::spmv,
      precision_of<Value>());
  select_device(options.device);
  // every method relies on valid CSR, as from the host; a named one may check it itself
  if (!method.descriptor().checks_device_csr_itself) detail::validate_device_csr(matrix);
  const PlanMethod resolved = resolve_method(
      method, std::move(named), options, [&] { return download_row_ptr(matrix); }, matrix.cols,
      Operation::spmv, precision_of<Value>(), 1);
  std::optional<CsrMatrix<Value, std::int32_t>> downloaded;  // once, for the methods that need it
  impl_ = build_method<detail::SpmvMethod<Value>>(
      resolved, options, nnz_ > 0,
      [&](Method chosen, const detail::ParameterValues& parameters) {
        const detail::MethodDescriptor& descriptor = chosen.descriptor();
        if (const auto from_device = descriptor.spmv_from_device.template of<Value>())
          return from_device(matrix, parameters);
        // the host round trip
        if (!downloaded) downloaded = detail::download_device_csr(matrix);
        return descriptor.spmv.template of<Value>()(*downloaded, parameters);
      },
      [&] { return spmv_trial_timer<Value>(rows_, cols_); }, method_);
}

template <typename Value>
SpmvPlan<Value>::~SpmvPlan() = default;
template <typename Value>
SpmvPlan<Value>::SpmvPlan(SpmvPlan&&) noexcept = default;
template <typename Value>
SpmvPlan<Value>& SpmvPlan<Value>::operator=(SpmvPlan&&) noexcept = default;

template <typename Value>
void SpmvPlan<Value>::apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
                            Stream stream) const {
  const detail::SpmvMethod<Value>& impl = spmv_impl(impl_);
  if (rows_ > 0 && y == nullptr)
    throw Error("SpmvPlan::apply: y is null, expected " + std::to_string(rows_) + " values");
  if (cols_ > 0 && nnz_ > 0 && x == nullptr)
    throw Error("SpmvPlan::apply: x is null, expected " + std::to_string(cols_) + " values");
  if (nnz_ == 0) {  // no products, whatever the method: y = beta * y
    detail::scale_async(y, rows_, beta, stream);
    return;
  }
  impl.apply(x, y, alpha, beta, stream);
}

template <typename Value>
const PlanStats& SpmvPlan<Value>::stats() const {
  return spmv_impl(impl_).stats();
}

template <typename Value>
bool SpmvPlan<Value>::plan_row_order() const {
  return spmv_impl(impl_).row_order().has_value();
}

template <typename Value>
void SpmvPlan<Value>::reorder(const Value* in, Value* out, const std::int32_t* index,
                              Stream stream) const {
  if (rows_ == 0) return;
  if (in == nullptr || out == nullptr)
    throw Error("SpmvPlan::permute/unpermute: a vector is null, expected " +
                std::to_string(rows_) + " values");
  if (index) {
    detail::gather_async(in, index, out, rows_, stream);
  } else if (in != out) {
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<std::size_t>(rows_) * sizeof(Value),
                                        cudaMemcpyDeviceToDevice, stream));
  }
}

template <typename Value>
void SpmvPlan<Value>::permute(const Value* caller_order, Value* plan_order, Stream stream) const {
  const auto order = spmv_impl(impl_).row_order();
  reorder(caller_order, plan_order, order ? order->plan_to_caller : nullptr, stream);
}

template <typename Value>
void SpmvPlan<Value>::unpermute(const Value* plan_order, Value* caller_order,
                                Stream stream) const {
  const auto order = spmv_impl(impl_).row_order();
  reorder(plan_order, caller_order, order ? order->caller_to_plan : nullptr, stream);
}

template <typename Value>
void SpmvPlan<Value>::update_values(const Value* device_values, Stream stream) {
  update_from_device(updatable(impl_, method_, "SpmvPlan"), nnz_, device_values, stream,
                     "SpmvPlan");
}

template <typename Value>
void SpmvPlan<Value>::update_values(std::span<const Value> host_values, Stream stream) {
  update_from_host(updatable(impl_, method_, "SpmvPlan"), nnz_, host_values, stream, "SpmvPlan");
}

template <typename Value>
bool SpmvPlan<Value>::can_update_values() const {
  return spmv_impl(impl_).can_update_values();
}

// ---- SpmmPlan ---------------------------------------------------------------------------------

/// The layout a factory sees: fp32 output is the input type for fp32 inputs; fp64 inputs have no
/// fp32 output (UnsupportedError).
template <typename Value>
SpmmLayout normalised_layout(SpmmLayout layout) {
  if (layout.output == SpmmOutput::fp32) {
    if constexpr (std::is_same_v<Value, float>) layout.output = SpmmOutput::input_type;
    else if constexpr (std::is_same_v<Value, double>)
      throw UnsupportedError("SpmmPlan: C in fp32 is for fp16 / bf16 inputs, not fp64");
  }
  return layout;
}

template <typename Value>
SpmmPlan<Value>::SpmmPlan(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t n,
                          Method method, const PlanOptions& options, const SpmmLayout& layout)
    : method_(method), rows_(matrix.rows), cols_(matrix.cols), n_(n), nnz_(matrix.nnz()),
      layout_(normalised_layout<Value>(layout)) {
  matrix.validate();  // every method relies on valid CSR: refuse anything else up front
  if (n < 0) throw ValidationError("SpmmPlan: n must not be negative, got " + std::to_string(n));
  std::optional<detail::ParameterValues> named = check_named_method(
      method, method.descriptor().spmm.template of<Value>(), options, Operation::spmm,
      precision_of<Value>());
  select_device(options.device);
  const PlanMethod resolved = resolve_method(
      method, std::move(named), options,
      [&] { return std::span<const std::int32_t>(matrix.row_ptr); }, matrix.cols,
      Operation::spmm, precision_of<Value>(), n);
  const detail::HostUploadScope upload(options.host_upload);
  impl_ = build_method<detail::SpmmMethod<Value>>(
      resolved, options, nnz_ > 0 && n > 0,
      [&](Method chosen, const detail::ParameterValues& parameters) {
        return chosen.descriptor().spmm.template of<Value>()(matrix, n, layout_, parameters);
      },
      [&] { return spmm_trial_timer<Value>(rows_, cols_, n); }, method_);
}

template <typename Value>
SpmmPlan<Value>::SpmmPlan(const DeviceCsrView<Value>& matrix, std::int64_t n, Method method,
                          const PlanOptions& options, const SpmmLayout& layout)
    : method_(method), rows_(matrix.rows), cols_(matrix.cols), n_(n), nnz_(matrix.nnz),
      layout_(normalised_layout<Value>(layout)) {
  if (n < 0) throw ValidationError("SpmmPlan: n must not be negative, got " + std::to_string(n));
  std::optional<detail::ParameterValues> named = check_named_method(
      method, method.descriptor().spmm.template of<Value>(), options, Operation::spmm,
      precision_of<Value>());
  select_device(options.device);
  detail::validate_device_csr(matrix);  // every method relies on valid CSR, as from the host
  const PlanMethod resolved = resolve_method(
      method, std::move(named), options, [&] { return download_row_ptr(matrix); }, matrix.cols,
      Operation::spmm, precision_of<Value>(), n);
  std::optional<CsrMatrix<Value, std::int32_t>> downloaded;  // once, for the methods that need it
  impl_ = build_method<detail::SpmmMethod<Value>>(
      resolved, options, nnz_ > 0 && n > 0,
      [&](Method chosen, const detail::ParameterValues& parameters) {
        const detail::MethodDescriptor& descriptor = chosen.descriptor();
        if (const auto from_device = descriptor.spmm_from_device.template of<Value>())
          return from_device(matrix, n, layout_, parameters);
        // the host round trip
        if (!downloaded) downloaded = detail::download_device_csr(matrix);
        return descriptor.spmm.template of<Value>()(*downloaded, n, layout_, parameters);
      },
      [&] { return spmm_trial_timer<Value>(rows_, cols_, n); }, method_);
}

template <typename Value>
SpmmPlan<Value>::~SpmmPlan() = default;
template <typename Value>
SpmmPlan<Value>::SpmmPlan(SpmmPlan&&) noexcept = default;
template <typename Value>
SpmmPlan<Value>& SpmmPlan<Value>::operator=(SpmmPlan&&) noexcept = default;

template <typename Value>
void SpmmPlan<Value>::check_operands(const void* B, const void* C) const {
  if (rows_ > 0 && n_ > 0 && C == nullptr)
    throw Error("SpmmPlan::apply: C is null, expected " + std::to_string(rows_) + " x " +
                std::to_string(n_) + " values");
  if (cols_ > 0 && n_ > 0 && nnz_ > 0 && B == nullptr)
    throw Error("SpmmPlan::apply: B is null, expected " + std::to_string(cols_) + " x " +
                std::to_string(n_) + " values");
}

template <typename Value>
void SpmmPlan<Value>::apply(const Value* B, Value* C, scalar_t<Value> alpha, scalar_t<Value> beta,
                            Stream stream) const {
  const detail::SpmmMethod<Value>& impl = spmm_impl(impl_);
  if (layout_.output != SpmmOutput::input_type)
    throw Error("SpmmPlan::apply: the plan writes C in fp32: call apply_fp32_output");
  check_operands(B, C);
  if (nnz_ == 0) {  // no products, whatever the method: C = beta * C
    detail::scale_async(C, rows_ * n_, beta, stream);
    return;
  }
  impl.apply(B, C, alpha, beta, stream);
}

template <typename Value>
void SpmmPlan<Value>::apply_fp32_output(const Value* B, float* C, float alpha, float beta,
                                        Stream stream) const {
  const detail::SpmmMethod<Value>& impl = spmm_impl(impl_);
  if constexpr (std::is_same_v<Value, double>) {
    throw UnsupportedError("SpmmPlan::apply_fp32_output: fp64 plans write C in fp64");
  } else {
    const bool fp32_c = layout_.output == SpmmOutput::fp32 || std::is_same_v<Value, float>;
    if (!fp32_c)
      throw Error("SpmmPlan::apply_fp32_output: the plan writes C in " +
                  std::string(to_string(precision_of<Value>())) +
                  " (build it with SpmmLayout::output = SpmmOutput::fp32)");
    check_operands(B, C);
    if (nnz_ == 0) {
      detail::scale_async(C, rows_ * n_, beta, stream);
      return;
    }
    impl.apply(B, C, alpha, beta, stream);
  }
}

template <typename Value>
const PlanStats& SpmmPlan<Value>::stats() const {
  return spmm_impl(impl_).stats();
}

template <typename Value>
void SpmmPlan<Value>::update_values(const Value* device_values, Stream stream) {
  update_from_device(updatable(impl_, method_, "SpmmPlan"), nnz_, device_values, stream,
                     "SpmmPlan");
}

template <typename Value>
void SpmmPlan<Value>::update_values(std::span<const Value> host_values, Stream stream) {
  update_from_host(updatable(impl_, method_, "SpmmPlan"), nnz_, host_values, stream, "SpmmPlan");
}

template <typename Value>
bool SpmmPlan<Value>::can_update_values() const {
  return spmm_impl(impl_).can_update_values();
}

// ---- explicit instantiations -----------------------------------------------------------------

#define TCSPARSE_INSTANTIATE_PLANS(Value)                                                      \
  template class SpmvPlan<Value>;                                                             \
  template class SpmmPlan<Value>;

TCSPARSE_INSTANTIATE_PLANS(double)
TCSPARSE_INSTANTIATE_PLANS(float)
TCSPARSE_INSTANTIATE_PLANS(half)
TCSPARSE_INSTANTIATE_PLANS(bfloat16)

#undef TCSPARSE_INSTANTIATE_PLANS

}  // namespace tcsparse
