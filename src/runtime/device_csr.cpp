#include "runtime/device_csr.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <span>
#include <utility>

#include "common/stopwatch.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::detail {

namespace {

/// Enqueues the copy of `host` to the front of `device` (which may be longer; the rest is zeroed
/// first, on the same legacy stream).
template <typename T>
void upload_front(HostUploader& uploader, DeviceBuffer<T>& device, std::span<const T> host) {
  if (device.size() > host.size()) device.fill_bytes(0);
  uploader.copy(device.data(), host.data(), host.size_bytes());
}

}  // namespace

template <typename Value>
DeviceCsr<Value> upload_csr(const CsrMatrix<Value, std::int32_t>& matrix, PlanStats& stats,
                            std::size_t nonzero_multiple, HostUpload policy,
                            StagingConfig staging) {
  DeviceCsr<Value> device;
  device.rows = matrix.rows;
  device.cols = matrix.cols;
  device.nnz = matrix.nnz();
  const std::size_t nnz = matrix.col_idx.size();
  const std::size_t capacity =
      nonzero_multiple <= 1
          ? nnz
          : std::max<std::size_t>(1, (nnz + nonzero_multiple - 1) / nonzero_multiple) *
                nonzero_multiple;
  device.row_ptr = DeviceBuffer<std::int32_t>(matrix.row_ptr.size());
  device.col_idx = DeviceBuffer<std::int32_t>(capacity);
  device.values = DeviceBuffer<Value>(capacity);

  const Stopwatch copies;
  HostUploader uploader(policy, nullptr, staging);  // on the legacy stream, after the fills
  upload_front(uploader, device.row_ptr, std::span<const std::int32_t>(matrix.row_ptr));
  upload_front(uploader, device.col_idx, std::span<const std::int32_t>(matrix.col_idx));
  upload_front(uploader, device.values, std::span<const Value>(matrix.values));
  uploader.finish();  // the end of the transfers is part of the upload
  stats.upload_ms += copies.elapsed_ms();
  return device;
}

template <typename Value>
BackgroundCsrUpload<Value>::BackgroundCsrUpload(const CsrMatrix<Value, std::int32_t>& matrix,
                                                HostUpload policy, StagingConfig staging) {
  int device = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  worker_ = std::thread([this, &matrix, policy, staging, device] {
    try {
      TCSPARSE_CUDA_CHECK(cudaSetDevice(device));
      result_ = upload_csr(matrix, stats_, 1, policy, staging);
    } catch (...) {
      failure_ = std::current_exception();
    }
  });
}

template <typename Value>
void BackgroundCsrUpload<Value>::join() noexcept {
  if (worker_.joinable()) worker_.join();
}

template <typename Value>
BackgroundCsrUpload<Value>::~BackgroundCsrUpload() {
  join();
}

template <typename Value>
DeviceCsr<Value> BackgroundCsrUpload<Value>::get(double& upload_ms, double& waited_ms) {
  const Stopwatch waited;
  join();
  waited_ms = waited.elapsed_ms();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  upload_ms = stats_.upload_ms;
  return std::move(result_);
}

template <typename Value>
void replace_values_async(DeviceCsr<Value>& csr, const Value* values, Stream stream) {
  if (csr.nnz == 0) return;
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(csr.values.data(), values,
                                      static_cast<std::size_t>(csr.nnz) * sizeof(Value),
                                      cudaMemcpyDeviceToDevice, stream));
}

template class BackgroundCsrUpload<double>;
template class BackgroundCsrUpload<float>;
template class BackgroundCsrUpload<half>;
template class BackgroundCsrUpload<bfloat16>;

template void replace_values_async(DeviceCsr<double>&, const double*, Stream);
template void replace_values_async(DeviceCsr<float>&, const float*, Stream);
template void replace_values_async(DeviceCsr<half>&, const half*, Stream);
template void replace_values_async(DeviceCsr<bfloat16>&, const bfloat16*, Stream);

template DeviceCsr<double> upload_csr(const CsrMatrix<double, std::int32_t>&, PlanStats&,
                                      std::size_t, HostUpload, StagingConfig);
template DeviceCsr<float> upload_csr(const CsrMatrix<float, std::int32_t>&, PlanStats&,
                                     std::size_t, HostUpload, StagingConfig);
template DeviceCsr<half> upload_csr(const CsrMatrix<half, std::int32_t>&, PlanStats&, std::size_t, HostUpload, StagingConfig);
template DeviceCsr<bfloat16> upload_csr(const CsrMatrix<bfloat16, std::int32_t>&, PlanStats&,
                                        std::size_t, HostUpload, StagingConfig);

}  // namespace tcsparse::detail
