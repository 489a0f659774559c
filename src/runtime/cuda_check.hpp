// Turning CUDA and cuSPARSE status codes into typed tcsparse errors.
//
//   TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(...));      // throws CudaError naming call, file, line
//   TCSPARSE_CUSPARSE_CHECK(cusparseSpMV(...));     // throws CusparseError
//   TCSPARSE_CUDA_CHECK_LAUNCH();                   // after a <<<>>> launch
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::detail {

/// "512 B", "1.5 KiB", "12.0 GiB": sizes in error messages.
std::string format_bytes(std::size_t bytes);

[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file,
                                       int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}
inline void check_cusparse(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) throw_cusparse_error(status, call, file, line);
}

}  // namespace tcsparse::detail

#define TCSPARSE_CUDA_CHECK(call) ::tcsparse::detail::check_cuda((call), #call, __FILE__, __LINE__)
#define TCSPARSE_CUSPARSE_CHECK(call) \
  ::tcsparse::detail::check_cusparse((call), #call, __FILE__, __LINE__)
#define TCSPARSE_CUDA_CHECK_LAUNCH() \
  ::tcsparse::detail::check_cuda(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)

namespace tcsparse::detail {

/// An attribute of the current device (SM count, opt-in shared memory, ...).
inline int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

}  // namespace tcsparse::detail
