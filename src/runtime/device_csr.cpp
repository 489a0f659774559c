#include "runtime/device_csr.hpp"

#include <cuda_runtime_api.h>

#include <span>

#include "common/stopwatch.hpp"
#include "runtime/cuda_check.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::detail {

template <typename Value>
DeviceCsr<Value> upload_csr(const CsrMatrix<Value, std::int32_t>& matrix, PlanStats& stats) {
  DeviceCsr<Value> device;
  device.rows = matrix.rows;
  device.cols = matrix.cols;
  device.nnz = matrix.nnz();
  device.row_ptr = DeviceBuffer<std::int32_t>(matrix.row_ptr.size());
  device.col_idx = DeviceBuffer<std::int32_t>(matrix.col_idx.size());
  device.values = DeviceBuffer<Value>(matrix.values.size());

  const Stopwatch copies;
  device.row_ptr.upload(std::span<const std::int32_t>(matrix.row_ptr));
  device.col_idx.upload(std::span<const std::int32_t>(matrix.col_idx));
  device.values.upload(std::span<const Value>(matrix.values));
  // cudaMemcpy from pageable memory may return before its DMA ends: wait for the stream it used.
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
  stats.upload_ms += copies.elapsed_ms();
  return device;
}

template DeviceCsr<double> upload_csr(const CsrMatrix<double, std::int32_t>&, PlanStats&);
template DeviceCsr<float> upload_csr(const CsrMatrix<float, std::int32_t>&, PlanStats&);
template DeviceCsr<half> upload_csr(const CsrMatrix<half, std::int32_t>&, PlanStats&);
template DeviceCsr<bfloat16> upload_csr(const CsrMatrix<bfloat16, std::int32_t>&, PlanStats&);

}  // namespace tcsparse::detail
