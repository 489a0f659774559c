// What the cuSPARSE SpMV and SpMM methods share: data types, RAII descriptors, event timing
// (the CSR upload is runtime/device_csr.hpp).
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <library_types.h>

#include <cstdint>
#include <string>
#include <utility>

#include "plan/method.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::cusparse {

/// The cudaDataType of the stored values (matrix, x, y, B, C).
template <typename Value>
constexpr cudaDataType value_data_type() {
  if constexpr (precision_of<Value>() == Precision::fp64) return CUDA_R_64F;
  else if constexpr (precision_of<Value>() == Precision::fp32) return CUDA_R_32F;
  else if constexpr (precision_of<Value>() == Precision::fp16) return CUDA_R_16F;
  else return CUDA_R_16BF;
}

/// The compute type: fp64 for fp64, fp32 otherwise (fp16 / bf16 are mixed precision with fp32
/// accumulation, as cuSPARSE's mixed-precision tables allow). alpha and beta have this type,
/// which is scalar_t<Value>.
template <typename Value>
constexpr cudaDataType compute_data_type() {
  return precision_of<Value>() == Precision::fp64 ? CUDA_R_64F : CUDA_R_32F;
}
static_assert(sizeof(scalar_t<half>) == 4 && sizeof(scalar_t<double>) == 8);

/// "CUDA_R_64F" etc., for statistics and messages.
const char* data_type_name(cudaDataType type);

/// A cuSPARSE call made while building a plan: CUSPARSE_STATUS_NOT_SUPPORTED becomes an
/// UnsupportedError naming what was asked (`what`, e.g. "cusparse_alg2 SpMM in fp16"), any other
/// failure a CusparseError.
void check_plan_status(cusparseStatus_t status, const char* call, const char* file, int line,
                       const std::string& what);

#define TCSPARSE_CUSPARSE_PLAN_CHECK(call, what) \
  ::tcsparse::cusparse::check_plan_status((call), #call, __FILE__, __LINE__, (what))

/// Owns a cusparseSpMatDescr_t.
class SparseMatrixDescriptor {
 public:
  SparseMatrixDescriptor() = default;
  explicit SparseMatrixDescriptor(cusparseSpMatDescr_t descriptor) : descriptor_(descriptor) {}
  SparseMatrixDescriptor(SparseMatrixDescriptor&& other) noexcept
      : descriptor_(std::exchange(other.descriptor_, nullptr)) {}
  SparseMatrixDescriptor& operator=(SparseMatrixDescriptor&& other) noexcept {
    std::swap(descriptor_, other.descriptor_);
    return *this;
  }
  SparseMatrixDescriptor(const SparseMatrixDescriptor&) = delete;
  SparseMatrixDescriptor& operator=(const SparseMatrixDescriptor&) = delete;
  ~SparseMatrixDescriptor() {
    if (descriptor_) cusparseDestroySpMat(descriptor_);
  }
  cusparseSpMatDescr_t get() const { return descriptor_; }

 private:
  cusparseSpMatDescr_t descriptor_ = nullptr;
};

/// Owns a cusparseDnVecDescr_t.
class DenseVectorDescriptor {
 public:
  DenseVectorDescriptor() = default;
  explicit DenseVectorDescriptor(cusparseDnVecDescr_t descriptor) : descriptor_(descriptor) {}
  DenseVectorDescriptor(DenseVectorDescriptor&& other) noexcept
      : descriptor_(std::exchange(other.descriptor_, nullptr)) {}
  DenseVectorDescriptor& operator=(DenseVectorDescriptor&& other) noexcept {
    std::swap(descriptor_, other.descriptor_);
    return *this;
  }
  DenseVectorDescriptor(const DenseVectorDescriptor&) = delete;
  DenseVectorDescriptor& operator=(const DenseVectorDescriptor&) = delete;
  ~DenseVectorDescriptor() {
    if (descriptor_) cusparseDestroyDnVec(descriptor_);
  }
  cusparseDnVecDescr_t get() const { return descriptor_; }

 private:
  cusparseDnVecDescr_t descriptor_ = nullptr;
};

/// Owns a cusparseDnMatDescr_t.
class DenseMatrixDescriptor {
 public:
  DenseMatrixDescriptor() = default;
  explicit DenseMatrixDescriptor(cusparseDnMatDescr_t descriptor) : descriptor_(descriptor) {}
  DenseMatrixDescriptor(DenseMatrixDescriptor&& other) noexcept
      : descriptor_(std::exchange(other.descriptor_, nullptr)) {}
  DenseMatrixDescriptor& operator=(DenseMatrixDescriptor&& other) noexcept {
    std::swap(descriptor_, other.descriptor_);
    return *this;
  }
  DenseMatrixDescriptor(const DenseMatrixDescriptor&) = delete;
  DenseMatrixDescriptor& operator=(const DenseMatrixDescriptor&) = delete;
  ~DenseMatrixDescriptor() {
    if (descriptor_) cusparseDestroyDnMat(descriptor_);
  }
  cusparseDnMatDescr_t get() const { return descriptor_; }

 private:
  cusparseDnMatDescr_t descriptor_ = nullptr;
};

/// A CSR descriptor over `device` (32-bit indices, base 0, the value type of Value).
template <typename Value>
SparseMatrixDescriptor make_csr_descriptor(detail::DeviceCsr<Value>& device) {
  cusparseSpMatDescr_t descriptor = nullptr;
  TCSPARSE_CUSPARSE_CHECK(cusparseCreateCsr(
      &descriptor, device.rows, device.cols, device.nnz, device.row_ptr.data(),
      device.col_idx.data(), device.values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
      CUSPARSE_INDEX_BASE_ZERO, value_data_type<Value>()));
  return SparseMatrixDescriptor(descriptor);
}

/// Milliseconds between two events recorded around device work on `stream` (waits for it).
class DeviceTimer {
 public:
  explicit DeviceTimer(cudaStream_t stream) : stream_(stream) { start_.record(stream_); }
  double stop_ms() {
    stop_.record(stream_);
    stop_.synchronize();
    return stop_.elapsed_ms_since(start_);
  }

 private:
  cudaStream_t stream_;
  detail::CudaEvent start_, stop_;
};

/// {"algorithm": "...", "value_type": "...", "compute_type": "...", "workspace_bytes": N}
Json details(const char* algorithm, cudaDataType value_type, cudaDataType compute_type,
             std::size_t workspace_bytes);

}  // namespace tcsparse::cusparse
