// Turning cuBLAS status codes into typed tcsparse errors (next to cuda_check.hpp's CUDA and
// cuSPARSE checks; a header of its own so that only cuBLAS users include cublas_api.h).
//
//   TCSPARSE_CUBLAS_CHECK(cublasGemmEx(...));   // throws CublasError naming call, file, line
#pragma once

#include <cublas_api.h>
#include <cublas_v2.h>

#include <utility>

#include "tcsparse/error.hpp"

namespace tcsparse::detail {

[[noreturn]] void throw_cublas_error(cublasStatus_t status, const char* call, const char* file,
                                     int line);

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw_cublas_error(status, call, file, line);
}

}  // namespace tcsparse::detail

#define TCSPARSE_CUBLAS_CHECK(call) \
  ::tcsparse::detail::check_cublas((call), #call, __FILE__, __LINE__)

namespace tcsparse::detail {

/// A cuBLAS library handle.
class CublasHandle {
 public:
  CublasHandle() { TCSPARSE_CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~CublasHandle() {
    if (!handle_) return;
    // As CusparseHandle: the last stream set may be gone already; detach it first.
    cublasSetStream(handle_, nullptr);
    cublasDestroy(handle_);
  }
  CublasHandle(CublasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CublasHandle& operator=(CublasHandle&&) = delete;
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace tcsparse::detail
