// CUB's device-wide algorithms in one call: they take their temporary storage in two calls (the
// first, with no storage, says how many bytes; the second works), which every plan-time scan,
// reduction and sort here repeats.
//
//   detail::run_with_temporary_storage(stream, [&](void* storage, std::size_t& bytes) {
//     return cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, items, stream);
//   });
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"

namespace tcsparse::detail {

/// Runs `call(storage, bytes)` (a CUB device algorithm on `stream`) with the temporary storage it
/// asks for, and waits for `stream` before the storage is freed: for plan time, never in apply.
template <typename Call>
void run_with_temporary_storage(cudaStream_t stream, Call&& call) {
  std::size_t bytes = 0;
  TCSPARSE_CUDA_CHECK(call(nullptr, bytes));
  DeviceBuffer<unsigned char> storage(std::max<std::size_t>(bytes, 1));
  TCSPARSE_CUDA_CHECK(call(storage.data(), bytes));
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the storage dies on return
}

}  // namespace tcsparse::detail
