// cusparseSpMV (generic API, CSR, 32-bit indices) behind the SpmvMethod interface: the baseline.
//
// Plan time: upload the CSR arrays, create the descriptors, size and allocate the workspace, and
// call cusparseSpMV_preprocess (timed). Apply: point the dense-vector descriptors at x and y, set
// the stream, call cusparseSpMV. Nothing in apply synchronizes.
//
// A matrix with no nonzeros (which includes 0 columns) never reaches cuSPARSE: y = beta * y is
// done by our own scale (runtime/scale.hpp), so beta == 0 still clears a NaN-poisoned y.
#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "cusparse/cusparse_common.hpp"
#include "cusparse/cusparse_method.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/scale.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::cusparse {

namespace {

struct SpmvAlgorithm {
  cusparseSpMVAlg_t id;
  const char* name;
  const char* method;  ///< the baseline method that runs it
};

/// CSR_ALG3 is SpMM only: cusparse_alg3 registers no SpMV factory.
constexpr SpmvAlgorithm spmv_algorithm(Algorithm algorithm) {
  return algorithm == Algorithm::csr_alg2
             ? SpmvAlgorithm{CUSPARSE_SPMV_CSR_ALG2, "CUSPARSE_SPMV_CSR_ALG2", "cusparse_alg2"}
             : SpmvAlgorithm{CUSPARSE_SPMV_ALG_DEFAULT, "CUSPARSE_SPMV_ALG_DEFAULT", "cusparse"};
}

template <typename Value>
class CusparseSpmv final : public detail::SpmvMethod<Value> {
 public:
  /// `matrix`: the CSR on the device (uploaded or copied from a device view); `stats`: the time
  /// that took.
  CusparseSpmv(detail::DeviceCsr<Value> matrix, const PlanStats& stats, SpmvAlgorithm algorithm)
      : algorithm_(algorithm), stats_(stats), matrix_(std::move(matrix)) {
    stats_.stored_values = matrix_.nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = matrix_.bytes();
    if (has_products()) prepare();
    stats_.details = details(algorithm_.name, value_data_type<Value>(), compute_data_type<Value>(),
                             workspace_.bytes());
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (matrix_.rows == 0) return;
    if (!has_products()) {
      detail::scale_async(y, matrix_.rows, beta, stream);
      return;
    }
    const cusparseHandle_t handle = state_->handle.get();
    TCSPARSE_CUSPARSE_CHECK(cusparseSetStream(handle, stream));
    // cuSPARSE only reads x; its descriptor setter just takes a non-const pointer.
    TCSPARSE_CUSPARSE_CHECK(cusparseDnVecSetValues(state_->x.get(), const_cast<Value*>(x)));
    TCSPARSE_CUSPARSE_CHECK(cusparseDnVecSetValues(state_->y.get(), y));
    TCSPARSE_CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                         state_->matrix.get(), state_->x.get(), &beta,
                                         state_->y.get(), compute_data_type<Value>(),
                                         algorithm_.id, workspace_ptr()));
  }

  const PlanStats& stats() const override { return stats_; }

  bool can_update_values() const override { return true; }

  /// A copy into the plan's value array, which the CSR descriptor points at. The preprocessing
  /// is not redone: it depends on the sparsity pattern, which is unchanged (the conformance
  /// test UpdateValuesThenApplyMatchesTheReference checks the product with the new values).
  void update_values(const Value* values, Stream stream) override {
    detail::replace_values_async(matrix_, values, stream);
  }

 private:
  /// Rows and columns and at least one nonzero: the only case handed to cuSPARSE.
  bool has_products() const { return matrix_.rows > 0 && matrix_.cols > 0 && matrix_.nnz > 0; }

  void* workspace_ptr() const { return const_cast<std::byte*>(workspace_.data()); }

  void prepare() {
    const std::string what = std::string(algorithm_.method) + " SpMV in " +
                             std::string(to_string(precision_of<Value>()));
    state_.emplace();
    state_->matrix = make_csr_descriptor(matrix_);

    // The dense-vector descriptors need device pointers now; the real x and y replace them in
    // every apply (cuSPARSE allows x, y, alpha and beta to change after the preprocessing).
    detail::DeviceBuffer<Value> x_stand_in(static_cast<std::size_t>(matrix_.cols));
    detail::DeviceBuffer<Value> y_stand_in(static_cast<std::size_t>(matrix_.rows));
    cusparseDnVecDescr_t x = nullptr, y = nullptr;
    TCSPARSE_CUSPARSE_CHECK(
        cusparseCreateDnVec(&x, matrix_.cols, x_stand_in.data(), value_data_type<Value>()));
    state_->x = DenseVectorDescriptor(x);
    TCSPARSE_CUSPARSE_CHECK(
        cusparseCreateDnVec(&y, matrix_.rows, y_stand_in.data(), value_data_type<Value>()));
    state_->y = DenseVectorDescriptor(y);

    const cusparseHandle_t handle = state_->handle.get();
    TCSPARSE_CUSPARSE_CHECK(cusparseSetStream(handle, nullptr));
    const scalar_t<Value> alpha = 1, beta = 0;
    std::size_t workspace_bytes = 0;
    TCSPARSE_CUSPARSE_PLAN_CHECK(
        cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                state_->matrix.get(), state_->x.get(), &beta, state_->y.get(),
                                compute_data_type<Value>(), algorithm_.id, &workspace_bytes),
        what);
    workspace_ = detail::DeviceBuffer<std::byte>(workspace_bytes);

    DeviceTimer timer(nullptr);
    TCSPARSE_CUSPARSE_PLAN_CHECK(
        cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                state_->matrix.get(), state_->x.get(), &beta, state_->y.get(),
                                compute_data_type<Value>(), algorithm_.id, workspace_ptr()),
        what);
    stats_.device_preprocess_ms = timer.stop_ms();
    stats_.device_bytes += workspace_.bytes();
  }

  /// The cuSPARSE objects, present when has_products(). Declared after the buffers they point
  /// into, so they are destroyed first.
  struct CusparseState {
    detail::CusparseHandle handle;
    SparseMatrixDescriptor matrix;
    DenseVectorDescriptor x, y;
  };

  SpmvAlgorithm algorithm_;
  PlanStats stats_;
  detail::DeviceCsr<Value> matrix_;
  detail::DeviceBuffer<std::byte> workspace_;
  std::optional<CusparseState> state_;
};

}  // namespace

template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& /*none*/) {
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::upload_csr(matrix, stats);
  return std::make_unique<CusparseSpmv<Value>>(std::move(device), stats,
                                               spmv_algorithm(kAlgorithm));
}

template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& /*none*/) {
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::copy_device_csr(matrix, stats);
  return std::make_unique<CusparseSpmv<Value>>(std::move(device), stats,
                                               spmv_algorithm(kAlgorithm));
}

#define TCSPARSE_INSTANTIATE_CUSPARSE_SPMV(Value)                                         \
  template std::unique_ptr<detail::SpmvMethod<Value>>                                    \
  make_spmv<Value, Algorithm::default_algorithm>(const CsrMatrix<Value, std::int32_t>&,  \
                                                 const detail::ParameterValues&);        \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv<Value, Algorithm::csr_alg2>( \
      const CsrMatrix<Value, std::int32_t>&, const detail::ParameterValues&);             \
  template std::unique_ptr<detail::SpmvMethod<Value>>                                    \
  make_spmv_from_device<Value, Algorithm::default_algorithm>(const DeviceCsrView<Value>&, \
                                                             const detail::ParameterValues&); \
  template std::unique_ptr<detail::SpmvMethod<Value>>                                    \
  make_spmv_from_device<Value, Algorithm::csr_alg2>(const DeviceCsrView<Value>&,          \
                                                    const detail::ParameterValues&);
TCSPARSE_INSTANTIATE_CUSPARSE_SPMV(double)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMV(float)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMV(half)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMV(bfloat16)
#undef TCSPARSE_INSTANTIATE_CUSPARSE_SPMV

}  // namespace tcsparse::cusparse
