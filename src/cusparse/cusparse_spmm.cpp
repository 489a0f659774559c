// cusparseSpMM (generic API, CSR, 32-bit indices) behind the SpmmMethod interface: B and C
// row-major (CUSPARSE_ORDER_ROW, leading dimension n) or column-major (CUSPARSE_ORDER_COL, leading
// dimension = their row count), C in the input type or, for fp16 / bf16 inputs, in fp32 (the
// mixed-precision entry A/B CUDA_R_16F or CUDA_R_16BF, C CUDA_R_32F, compute CUDA_R_32F).
//
// Algorithms: method cusparse -> CUSPARSE_SPMM_ALG_DEFAULT, cusparse_alg2 -> CSR_ALG2 (the one
// cuSPARSE intends for row-major layout), cusparse_alg3 -> CSR_ALG3 (deterministic; CSR with
// opA = non-transpose only, which is what we run). cuSPARSE computes fp16 / bf16 (mixed
// precision) with CSR_ALG3 only, so cusparse_alg2 registers no 16-bit SpMM (cusparse_method.cpp);
// the default picks CSR_ALG3 for them itself. Any other combination cuSPARSE refuses at plan time
// (CUSPARSE_STATUS_NOT_SUPPORTED) becomes an UnsupportedError.
//
// A matrix with no nonzeros never reaches cuSPARSE: C = beta * C by our own scale.
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

struct SpmmAlgorithm {
  cusparseSpMMAlg_t id;
  const char* name;
  const char* method;  ///< the baseline method that runs it
};

constexpr SpmmAlgorithm spmm_algorithm(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::csr_alg2:
      return {CUSPARSE_SPMM_CSR_ALG2, "CUSPARSE_SPMM_CSR_ALG2", "cusparse_alg2"};
    case Algorithm::csr_alg3:
      return {CUSPARSE_SPMM_CSR_ALG3, "CUSPARSE_SPMM_CSR_ALG3", "cusparse_alg3"};
    case Algorithm::default_algorithm: break;
  }
  return {CUSPARSE_SPMM_ALG_DEFAULT, "CUSPARSE_SPMM_ALG_DEFAULT", "cusparse"};
}

template <typename Value>
class CusparseSpmm final : public detail::SpmmMethod<Value> {
 public:
  /// `matrix`: the CSR on the device (uploaded or copied from a device view); `stats`: the time
  /// that took.
  CusparseSpmm(detail::DeviceCsr<Value> matrix, const PlanStats& stats, std::int64_t n,
               const SpmmLayout& layout, SpmmAlgorithm algorithm)
      : algorithm_(algorithm), n_(n), layout_(layout), stats_(stats), matrix_(std::move(matrix)) {
    stats_.stored_values = matrix_.nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = matrix_.bytes();
    if (has_products()) prepare();
    stats_.details = details(algorithm_.name, value_data_type<Value>(), compute_data_type<Value>(),
                             workspace_.bytes());
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output_type"] = data_type_name(output_data_type());
  }

  void apply(const Value* B, void* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (matrix_.rows == 0 || n_ == 0) return;
    if (!has_products()) {
      detail::scale_spmm_output_async<Value>(C, matrix_.rows * n_, layout_.output, beta, stream);
      return;
    }
    const cusparseHandle_t handle = state_->handle.get();
    TCSPARSE_CUSPARSE_CHECK(cusparseSetStream(handle, stream));
    // cuSPARSE only reads B; its descriptor setter just takes a non-const pointer.
    TCSPARSE_CUSPARSE_CHECK(cusparseDnMatSetValues(state_->B.get(), const_cast<Value*>(B)));
    TCSPARSE_CUSPARSE_CHECK(cusparseDnMatSetValues(state_->C.get(), C));
    TCSPARSE_CUSPARSE_CHECK(cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                         state_->matrix.get(), state_->B.get(), &beta,
                                         state_->C.get(), compute_data_type<Value>(),
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
  bool has_products() const {
    return matrix_.rows > 0 && matrix_.cols > 0 && matrix_.nnz > 0 && n_ > 0;
  }

  void* workspace_ptr() const { return const_cast<std::byte*>(workspace_.data()); }

  cudaDataType output_data_type() const {
    return layout_.output == SpmmOutput::fp32 ? CUDA_R_32F : value_data_type<Value>();
  }

  void prepare() {
    const std::string what = std::string(algorithm_.method) + " SpMM in " +
                             std::string(to_string(precision_of<Value>())) + " with " +
                             describe(layout_, precision_of<Value>());
    state_.emplace();
    state_->matrix = make_csr_descriptor(matrix_);

    // B (cols x n) and C (rows x n): row-major with leading dimension n, or column-major with
    // leading dimension cols (B) and rows (C). Stand-in buffers give the descriptors device
    // pointers for the preprocessing; every apply replaces them.
    const bool row_major = layout_.dense == DenseLayout::row_major;
    const cusparseOrder_t order = row_major ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
    const std::int64_t b_leading = row_major ? n_ : matrix_.cols;
    const std::int64_t c_leading = row_major ? n_ : matrix_.rows;
    const std::size_t c_value_bytes = layout_.output == SpmmOutput::fp32 ? 4 : sizeof(Value);
    detail::DeviceBuffer<Value> b_stand_in(static_cast<std::size_t>(matrix_.cols * n_));
    detail::DeviceBuffer<std::byte> c_stand_in(static_cast<std::size_t>(matrix_.rows * n_) *
                                               c_value_bytes);
    cusparseDnMatDescr_t B = nullptr, C = nullptr;
    TCSPARSE_CUSPARSE_CHECK(cusparseCreateDnMat(&B, matrix_.cols, n_, b_leading,
                                                b_stand_in.data(), value_data_type<Value>(),
                                                order));
    state_->B = DenseMatrixDescriptor(B);
    TCSPARSE_CUSPARSE_CHECK(cusparseCreateDnMat(&C, matrix_.rows, n_, c_leading,
                                                c_stand_in.data(), output_data_type(), order));
    state_->C = DenseMatrixDescriptor(C);

    const cusparseHandle_t handle = state_->handle.get();
    TCSPARSE_CUSPARSE_CHECK(cusparseSetStream(handle, nullptr));
    const scalar_t<Value> alpha = 1, beta = 0;
    std::size_t workspace_bytes = 0;
    TCSPARSE_CUSPARSE_PLAN_CHECK(
        cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, state_->matrix.get(),
                                state_->B.get(), &beta, state_->C.get(),
                                compute_data_type<Value>(), algorithm_.id, &workspace_bytes),
        what);
    workspace_ = detail::DeviceBuffer<std::byte>(workspace_bytes);

    DeviceTimer timer(nullptr);
    TCSPARSE_CUSPARSE_PLAN_CHECK(
        cusparseSpMM_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, state_->matrix.get(),
                                state_->B.get(), &beta, state_->C.get(),
                                compute_data_type<Value>(), algorithm_.id, workspace_ptr()),
        what);
    stats_.device_preprocess_ms = timer.stop_ms();
    stats_.device_bytes += workspace_.bytes();
  }

  struct CusparseState {
    detail::CusparseHandle handle;
    SparseMatrixDescriptor matrix;
    DenseMatrixDescriptor B, C;
  };

  SpmmAlgorithm algorithm_;
  std::int64_t n_ = 0;
  SpmmLayout layout_;
  PlanStats stats_;
  detail::DeviceCsr<Value> matrix_;
  detail::DeviceBuffer<std::byte> workspace_;
  std::optional<CusparseState> state_;
};

}  // namespace

template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& /*none*/) {
  if (n < 0) throw ValidationError("SpMM: n must not be negative, got " + std::to_string(n));
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::upload_csr(matrix, stats);
  return std::make_unique<CusparseSpmm<Value>>(std::move(device), stats, n, layout,
                                               spmm_algorithm(kAlgorithm));
}

template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& /*none*/) {
  if (n < 0) throw ValidationError("SpMM: n must not be negative, got " + std::to_string(n));
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::copy_device_csr(matrix, stats);
  return std::make_unique<CusparseSpmm<Value>>(std::move(device), stats, n, layout,
                                               spmm_algorithm(kAlgorithm));
}

#define TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(Value, kAlgorithm)                             \
  template std::unique_ptr<detail::SpmmMethod<Value>> make_spmm<Value, kAlgorithm>(      \
      const CsrMatrix<Value, std::int32_t>&, std::int64_t, const SpmmLayout&,              \
      const detail::ParameterValues&);                                                     \
  template std::unique_ptr<detail::SpmmMethod<Value>>                                     \
  make_spmm_from_device<Value, kAlgorithm>(const DeviceCsrView<Value>&, std::int64_t,     \
                                           const SpmmLayout&, const detail::ParameterValues&);
#define TCSPARSE_INSTANTIATE_CUSPARSE_SPMM_ALL(Value)                       \
  TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(Value, Algorithm::default_algorithm)  \
  TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(Value, Algorithm::csr_alg2)           \
  TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(Value, Algorithm::csr_alg3)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM_ALL(double)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM_ALL(float)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(half, Algorithm::default_algorithm)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(half, Algorithm::csr_alg3)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(bfloat16, Algorithm::default_algorithm)
TCSPARSE_INSTANTIATE_CUSPARSE_SPMM(bfloat16, Algorithm::csr_alg3)
#undef TCSPARSE_INSTANTIATE_CUSPARSE_SPMM_ALL
#undef TCSPARSE_INSTANTIATE_CUSPARSE_SPMM

}  // namespace tcsparse::cusparse
