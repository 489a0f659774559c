// The interface every method implements. A method object is built from a host CSR matrix (its
// constructor does the preprocessing and the upload, and fills PlanStats) and is then applied
// any number of times. The public SpmvPlan / SpmmPlan hold one through a unique_ptr.
//
// Adding a method = writing src/<method>/<method>_format.{hpp,cpp} (host layout + host apply),
// src/<method>/<method>.cu (kernels + a class deriving from SpmvMethod / SpmmMethod), and one
// entry in src/plan/registry.cpp.
#pragma once

#include <memory>

#include "tcsparse/plan.hpp"

namespace tcsparse::detail {

template <typename Value>
class SpmvMethod {
 public:
  virtual ~SpmvMethod() = default;
  /// x, y: device pointers (cols and rows values). Asynchronous on `stream`; must not
  /// synchronize the device. beta == 0 must ignore y's old contents.
  virtual void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
                     Stream stream) const = 0;
  virtual const PlanStats& stats() const = 0;
};

template <typename Value>
class SpmmMethod {
 public:
  virtual ~SpmmMethod() = default;
  /// B: cols x n, C: rows x n, row-major, device pointers.
  virtual void apply(const Value* B, Value* C, scalar_t<Value> alpha, scalar_t<Value> beta,
                     Stream stream) const = 0;
  virtual const PlanStats& stats() const = 0;
};

/// Factories, one per (method, operation); implemented in the method's folder and dispatched by
/// src/plan/registry.cpp. Each throws UnsupportedError for a precision it lacks.
template <typename Value>
std::unique_ptr<SpmvMethod<Value>> make_spmv_method(const CsrMatrix<Value, std::int32_t>& matrix,
                                                    Method method, const PlanOptions& options);
template <typename Value>
std::unique_ptr<SpmmMethod<Value>> make_spmm_method(const CsrMatrix<Value, std::int32_t>& matrix,
                                                    std::int64_t n, Method method,
                                                    const PlanOptions& options);

}  // namespace tcsparse::detail
