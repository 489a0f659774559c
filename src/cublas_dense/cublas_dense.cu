// cublas_dense: A densified once on the GPU, then one cublasGemmEx per apply.
//
// Layout: A_dense is rows x cols, row-major (leading dimension cols) - as cuBLAS (column-major)
// sees it, the cols x rows matrix A^T. The product in cuBLAS's column-major terms:
//   row-major B, C:    C^T (n x rows, ld n)    = B^T (n x cols, ld n) * A^T        -> GEMM N, N
//   column-major B, C: C   (rows x n, ld rows) = (A^T)^T * B (cols x n, ld cols)  -> GEMM T, N
// apply sets the caller's stream and then the plan's workspace (cublasSetStream resets the
// workspace to cuBLAS's own pool, which would allocate during graph capture), so apply allocates
// nothing and is graph-capturable. beta == 0: cuBLAS does not read C (BLAS semantics).
#include "cublas_dense/cublas_dense.hpp"

#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <string>
#include <utility>

#include "arch/types.cuh"
#include "cusparse/cusparse_common.hpp"  // value_data_type, data_type_name
#include "runtime/cublas_check.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/scale.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::cublas_dense {

namespace {

/// The workspace cuBLAS gets for its GEMM kernels: 32 MiB, what the cuBLAS documentation
/// ("cublasSetWorkspace") recommends for Hopper (4 MiB would do on Ampere).
constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;

/// Warps per block of the scatter kernel: one warp per CSR row.
constexpr int kScatterWarpsPerBlock = 8;

/// dense[r * cols + col_idx[k]] = values[k] for the nonzeros k of row r; a warp per row, lanes
/// over its nonzeros (coalesced reads of the CSR arrays). Every other element stays as it was
/// (zero after the plan's memset): columns are unique within a row (valid CSR), so no races.
template <typename T>
__global__ void scatter_csr_rows(std::int64_t rows, std::int64_t cols,
                                 const std::int32_t* __restrict__ row_ptr,
                                 const std::int32_t* __restrict__ col_idx,
                                 const T* __restrict__ values, T* __restrict__ dense) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kScatterWarpsPerBlock +
                           threadIdx.x / 32;
  if (row >= rows) return;
  T* dense_row = dense + row * cols;
  for (std::int32_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32)
    dense_row[col_idx[k]] = values[k];
}

template <typename Value>
constexpr cublasComputeType_t compute_type() {
  return std::is_same_v<Value, double> ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
}

int checked_int(std::int64_t value, const char* what) {
  if (value > INT_MAX)
    throw IndexOverflowError(std::string("cublas_dense: ") + what + " = " + std::to_string(value) +
                             " exceeds cuBLAS's 32-bit sizes");
  return static_cast<int>(value);
}

template <typename Value>
class CublasDenseSpmm final : public detail::SpmmMethod<Value> {
 public:
  CublasDenseSpmm(detail::DeviceCsr<Value> matrix, const PlanStats& stats, std::int64_t n,
                  const SpmmLayout& layout)
      : n_(n), layout_(layout), stats_(stats), matrix_(std::move(matrix)) {
    const std::int64_t rows = matrix_.rows, cols = matrix_.cols;
    const std::int64_t b_leading = layout_.dense == DenseLayout::row_major ? n_ : cols;
    const std::int64_t c_leading = layout_.dense == DenseLayout::row_major ? n_ : rows;
    checked_int(rows, "rows");
    checked_int(cols, "cols");
    checked_int(n_, "n");
    checked_int(b_leading, "the leading dimension of B");
    checked_int(c_leading, "the leading dimension of C");
    if (has_products()) {
      dense_ = detail::DeviceBuffer<Value>(static_cast<std::size_t>(rows * cols));
      workspace_ = detail::DeviceBuffer<std::byte>(kCublasWorkspaceBytes);
      detail::CudaEvent start, stop;
      start.record(nullptr);
      TCSPARSE_CUDA_CHECK(cudaMemsetAsync(dense_.data(), 0, dense_.bytes(), nullptr));
      densify(nullptr);
      stop.record(nullptr);
      stop.synchronize();
      stats_.device_preprocess_ms = stop.elapsed_ms_since(start);
    }
    stats_.stored_values = rows * cols;
    stats_.padding_ratio =
        matrix_.nnz > 0 ? static_cast<double>(rows * cols - matrix_.nnz) / matrix_.nnz : 0.0;
    stats_.device_bytes = matrix_.bytes() + dense_.bytes() + workspace_.bytes();
    stats_.details = Json{
        {"algorithm", "cublasGemmEx"},
        {"value_type", cusparse::data_type_name(cusparse::value_data_type<Value>())},
        {"output_type", cusparse::data_type_name(output_data_type())},
        {"compute_type", std::is_same_v<Value, double> ? "CUBLAS_COMPUTE_64F" : "CUBLAS_COMPUTE_32F"},
        {"layout", std::string(to_string(layout_.dense))},
        {"dense_bytes", dense_.bytes()},
        {"workspace_bytes", workspace_.bytes()}};
  }

  void apply(const Value* B, void* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (matrix_.rows == 0 || n_ == 0) return;
    if (!has_products()) {
      detail::scale_spmm_output_async<Value>(C, matrix_.rows * n_, layout_.output, beta, stream);
      return;
    }
    const cublasHandle_t handle = handle_.get();
    TCSPARSE_CUBLAS_CHECK(cublasSetStream(handle, stream));
    TCSPARSE_CUBLAS_CHECK(cublasSetWorkspace(handle, const_cast<std::byte*>(workspace_.data()),
                                             workspace_.bytes()));
    const cudaDataType value_type = cusparse::value_data_type<Value>();
    const int rows = static_cast<int>(matrix_.rows), cols = static_cast<int>(matrix_.cols);
    const int n = static_cast<int>(n_);
    if (layout_.dense == DenseLayout::row_major) {
      TCSPARSE_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, rows, cols, &alpha,
                                         B, value_type, n, dense_.data(), value_type, cols,
                                         &beta, C, output_data_type(), n, compute_type<Value>(),
                                         CUBLAS_GEMM_DEFAULT));
    } else {
      TCSPARSE_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, n, cols, &alpha,
                                         dense_.data(), value_type, cols, B, value_type, cols,
                                         &beta, C, output_data_type(), rows,
                                         compute_type<Value>(), CUBLAS_GEMM_DEFAULT));
    }
  }

  const PlanStats& stats() const override { return stats_; }

  bool can_update_values() const override { return true; }

  /// New values into the kept CSR, then scattered over the same positions of the dense copy
  /// (the zeros elsewhere stay): one copy and one scatter on `stream`.
  void update_values(const Value* values, Stream stream) override {
    detail::replace_values_async(matrix_, values, stream);
    if (has_products()) densify(stream);
  }

 private:
  bool has_products() const {
    return matrix_.rows > 0 && matrix_.cols > 0 && matrix_.nnz > 0 && n_ > 0;
  }

  cudaDataType output_data_type() const {
    return layout_.output == SpmmOutput::fp32 ? CUDA_R_32F : cusparse::value_data_type<Value>();
  }

  void densify(cudaStream_t stream) {
    using T = arch::device_value_t<Value>;
    const std::int64_t blocks = (matrix_.rows + kScatterWarpsPerBlock - 1) / kScatterWarpsPerBlock;
    scatter_csr_rows<T><<<static_cast<unsigned>(blocks), kScatterWarpsPerBlock * 32, 0, stream>>>(
        matrix_.rows, matrix_.cols, matrix_.row_ptr.data(), matrix_.col_idx.data(),
        reinterpret_cast<const T*>(matrix_.values.data()), reinterpret_cast<T*>(dense_.data()));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  std::int64_t n_ = 0;
  SpmmLayout layout_;
  PlanStats stats_;
  detail::DeviceCsr<Value> matrix_;
  detail::DeviceBuffer<Value> dense_;
  detail::DeviceBuffer<std::byte> workspace_;
  detail::CublasHandle handle_;
};

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& /*none*/) {
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::upload_csr(matrix, stats);
  return std::make_unique<CublasDenseSpmm<Value>>(std::move(device), stats, n, layout);
}

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& /*none*/) {
  PlanStats stats;
  detail::DeviceCsr<Value> device = detail::copy_device_csr(matrix, stats);
  return std::make_unique<CublasDenseSpmm<Value>>(std::move(device), stats, n, layout);
}

#define TCSPARSE_INSTANTIATE_CUBLAS_DENSE(Value)                                              \
  template std::unique_ptr<detail::SpmmMethod<Value>> make_spmm<Value>(                      \
      const CsrMatrix<Value, std::int32_t>&, std::int64_t, const SpmmLayout&,                \
      const detail::ParameterValues&);                                                       \
  template std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device<Value>(          \
      const DeviceCsrView<Value>&, std::int64_t, const SpmmLayout&, const detail::ParameterValues&);
TCSPARSE_INSTANTIATE_CUBLAS_DENSE(double)
TCSPARSE_INSTANTIATE_CUBLAS_DENSE(float)
TCSPARSE_INSTANTIATE_CUBLAS_DENSE(half)
TCSPARSE_INSTANTIATE_CUBLAS_DENSE(bfloat16)
#undef TCSPARSE_INSTANTIATE_CUBLAS_DENSE

}  // namespace tcsparse::cublas_dense
