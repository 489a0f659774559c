// The interface every method implements, and the descriptor through which it registers.
//
// A method object is built from a host CSR matrix by one of its factories (which does the
// preprocessing and the upload, and fills PlanStats), or from a CSR already on the GPU by its
// device factory where it has one, and is then applied any number of times; update_values
// replaces its values where the method can.
// The public SpmvPlan / SpmmPlan hold one through a unique_ptr.
//
// Adding a method:
//   src/<method>/<method>_format.{hpp,cpp}   host layout + host apply (tcsparse_host)
//   src/<method>/<method>.cu                  kernels + classes deriving from SpmvMethod/SpmmMethod
//   src/<method>/<method>_method.cpp          `const MethodDescriptor <method>_method = {...}`
//   src/plan/registry.cpp                     one line: X(<method>) in TCSPARSE_REGISTERED_METHODS
// and its CMake entry. Plans, the CLI, the benchmarks and the conformance tests then see it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "plan/parameters.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::detail {

/// A plan's own row order on the device (SpmvPlan::permute): rows entries each.
struct DeviceRowOrder {
  const std::int32_t* plan_to_caller = nullptr;  ///< [p]: the caller's row at plan position p
  const std::int32_t* caller_to_plan = nullptr;  ///< [r]: the plan position of caller row r
};

template <typename Value>
class SpmvMethod {
 public:
  virtual ~SpmvMethod() = default;
  /// x, y: device pointers (cols and rows values). Asynchronous on `stream`; must not
  /// synchronize, allocate or read device data on the host (apply is captured in CUDA graphs).
  /// beta == 0 must ignore y's old contents.
  virtual void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
                     Stream stream) const = 0;
  virtual const PlanStats& stats() const = 0;
  /// The plan's row order when apply reads and writes vectors in it (a method's own option),
  /// else nullopt: the caller's order.
  virtual std::optional<DeviceRowOrder> row_order() const { return std::nullopt; }

  /// Whether update_values works; false (the default): the plan throws UnsupportedError naming the
  /// method and values_fixed_because().
  virtual bool can_update_values() const { return false; }
  /// Why update_values does not work, and what to do instead (for the plan's message).
  virtual std::string values_fixed_because() const {
    return "its layout holds the values in its own order: build a new plan for new values";
  }
  /// Replaces the nnz values (device pointer, the CSR order of the matrix the plan was built from)
  /// keeping the sparsity pattern. Asynchronous on `stream`, costing no more than copying the
  /// values; same rules as apply (no sync, no allocation). Called only when can_update_values().
  virtual void update_values(const Value* /*values*/, Stream /*stream*/) {}
};

template <typename Value>
class SpmmMethod {
 public:
  virtual ~SpmmMethod() = default;
  /// B: cols x n, C: rows x n, device pointers, in the SpmmLayout the factory accepted: C holds
  /// Value (SpmmOutput::input_type) or float (SpmmOutput::fp32, 16-bit inputs only). Same rules
  /// as SpmvMethod::apply.
  virtual void apply(const Value* B, void* C, scalar_t<Value> alpha, scalar_t<Value> beta,
                     Stream stream) const = 0;
  virtual const PlanStats& stats() const = 0;

  /// As SpmvMethod::can_update_values / values_fixed_because / update_values.
  virtual bool can_update_values() const { return false; }
  virtual std::string values_fixed_because() const {
    return "its layout holds the values in its own order: build a new plan for new values";
  }
  virtual void update_values(const Value* /*values*/, Stream /*stream*/) {}
};

/// Builds a method object; the matrix is valid (or, for a method whose descriptor says
/// checks_csr_on_device, of a valid shape: the factory checks the rest) and the parameters are
/// checked against the method's schema. Throws UnsupportedError for a matrix the method cannot take, and for an SpMM
/// layout it cannot do (naming it: describe(layout, precision)). The plan hands SpMM factories a
/// normalised layout: SpmmOutput::fp32 only with fp16 / bf16 inputs.
template <typename Value>
using SpmvFactory = std::unique_ptr<SpmvMethod<Value>> (*)(const CsrMatrix<Value, std::int32_t>&,
                                                           const ParameterValues&);
template <typename Value>
using SpmmFactory = std::unique_ptr<SpmmMethod<Value>> (*)(const CsrMatrix<Value, std::int32_t>&,
                                                           std::int64_t n, const SpmmLayout&,
                                                           const ParameterValues&);

/// Builds a method object from a CSR already on the GPU (DeviceCsrView), checked on the GPU
/// (runtime/device_csr_view.hpp) and the parameters checked: no host round trip. The object must
/// not keep the view's pointers (the caller may free its arrays once the plan is built): copy them
/// device to device (runtime/device_csr_view.hpp, copy_device_csr). Keep it cheap (the goal is a
/// build from device CSR within 3 SpMV-times): no host work proportional to nnz.
template <typename Value>
using SpmvDeviceFactory = std::unique_ptr<SpmvMethod<Value>> (*)(const DeviceCsrView<Value>&,
                                                                 const ParameterValues&);
template <typename Value>
using SpmmDeviceFactory = std::unique_ptr<SpmmMethod<Value>> (*)(const DeviceCsrView<Value>&,
                                                                 std::int64_t n,
                                                                 const SpmmLayout&,
                                                                 const ParameterValues&);

/// One factory per precision; nullptr where the method does not run in that precision. This is
/// the only record of what a method supports.
template <template <typename> class Factory>
struct FactoriesByPrecision {
  Factory<double> fp64 = nullptr;
  Factory<float> fp32 = nullptr;
  Factory<half> fp16 = nullptr;
  Factory<bfloat16> bf16 = nullptr;

  template <typename Value>
  Factory<Value> of() const {
    if constexpr (std::is_same_v<Value, double>) return fp64;
    else if constexpr (std::is_same_v<Value, float>) return fp32;
    else if constexpr (std::is_same_v<Value, half>) return fp16;
    else return bf16;
  }
  bool has(Precision precision) const {
    return dispatch_precision(precision, [&](auto value) { return of<decltype(value)>() != nullptr; });
  }
};

/// Cheap features of a matrix and a request, for the automatic choice (plan/auto_choice.hpp
/// computes them in one pass over the row offsets) and a method's cost estimate.
struct MatrixFeatures {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  double mean_row_length = 0.0, stddev_row_length = 0.0;
  std::int64_t max_row_length = 0, empty_rows = 0;
  /// stddev / mean of the row lengths (0 for a matrix without nonzeros)
  double row_length_cv = 0.0;
  /// Shares of the rows in DASP's categories (SC'23 §3.2, the paper's MAX_LEN): long
  /// (> dasp::kDaspMaxMediumRowLength), medium, short (1..dasp::kDaspMaxShortRowLength), empty.
  double long_row_share = 0.0, medium_row_share = 0.0, short_row_share = 0.0,
         empty_row_share = 0.0;
  double density = 0.0;  ///< nnz / (rows * cols)
  std::int64_t n = 1;    ///< columns of B and C (SpMM); 1 for SpMV
  std::int64_t x_bytes = 0;            ///< cols * n * sizeof(value): the dense input
  std::int64_t l2_cache_bytes = 0;     ///< the GPU's L2 (or the host default)
  double x_over_l2 = 0.0;              ///< x_bytes / l2_cache_bytes
  double dense_bytes = 0.0;            ///< rows * cols * sizeof(value): A stored dense
};

/// Everything the library knows about one method. Each method's folder defines one (constant
/// initialised: names, flags and function pointers only) and registry.cpp lists it.
struct MethodDescriptor {
  std::string_view name;
  std::string_view description;  ///< one line, with the paper it implements
  bool is_baseline = false;
  /// "auto": no factories of its own; a plan resolves it to a registered method
  /// (plan/auto_choice.hpp) and supports() is true where any candidate supports the request.
  bool is_automatic = false;
  /// The method keeps the matrix in host memory and streams it to the GPU on every apply
  /// (csr_full_overlap): never chosen by "auto", only when the caller names it.
  bool matrix_stays_on_host = false;

  /// The method's host factories check the CSR themselves, on the GPU after uploading it
  /// (runtime/device_csr_view.hpp validate_device_csr: the host's rules and words) or, where
  /// they build on the host, with CsrMatrix::validate(): a plan from a host CSR then checks only
  /// its shape (core/csr_validation.hpp) before calling them, instead of reading every row and
  /// column on the host.
  bool checks_csr_on_device = false;

  /// The method's from-device factories check the DeviceCsrView themselves (a
  /// runtime/device_csr_view.hpp DeviceCsrCheck beside their own build, finished before they use
  /// its results): a plan from a DeviceCsrView that names the method leaves the check to them.
  bool checks_device_csr_itself = false;

  /// The parameter schema; nullptr: the method takes no parameters.
  std::span<const ParameterSpec> (*parameters)() = nullptr;

  FactoriesByPrecision<SpmvFactory> spmv;
  FactoriesByPrecision<SpmmFactory> spmm;

  /// Factories from a CSR already on the GPU, per precision. nullptr where the method has a host
  /// factory only: a plan from a DeviceCsrView then downloads the CSR once and uses the host
  /// factory (plan.hpp says so). What the method supports is decided by spmv / spmm alone.
  FactoriesByPrecision<SpmvDeviceFactory> spmv_from_device;
  FactoriesByPrecision<SpmmDeviceFactory> spmm_from_device;

  /// Statistics of the method's host layout of a matrix with these parameters (the fields that
  /// PlanStats::details reports too); nullptr: no host layout.
  Json (*layout_statistics)(const CsrMatrix<double, std::int32_t>&, const ParameterValues&) = nullptr;

  /// Whether "auto" may choose the method for a matrix with these features, beyond supports():
  /// nullptr where it may for any matrix. cublas_dense densifies A, so "auto" takes it only for
  /// small, not too sparse matrices (cublas_dense_method.cpp).
  bool (*auto_may_choose)(const MatrixFeatures&) = nullptr;
};

/// The checked parameters of `method` (see check_parameter_values).
ParameterValues checked_parameters(const MethodDescriptor& method,
                                   const std::vector<std::string>& key_values);

}  // namespace tcsparse::detail
