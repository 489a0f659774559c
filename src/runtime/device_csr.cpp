#include "runtime/device_csr.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <optional>
#include <span>
#include <utility>

#include "common/omp_thread_limit.hpp"
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
PackedDeviceCsr<Value>::PackedDeviceCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                        std::optional<cudaStream_t> temporary_on)
    : rows_(rows), cols_(cols), nnz_(nnz) {
  auto aligned = [](std::size_t bytes) {
    return (bytes + kPackedCsrAlignment - 1) / kPackedCsrAlignment * kPackedCsrAlignment;
  };
  const auto count = static_cast<std::size_t>(nnz);
  col_idx_at_ = aligned((static_cast<std::size_t>(rows) + 1) * sizeof(std::int32_t));
  values_at_ = col_idx_at_ + aligned(count * sizeof(std::int32_t));
  const std::size_t bytes = values_at_ + count * sizeof(Value);
  storage_ = temporary_on ? DeviceBuffer<std::byte>::on_stream(bytes, *temporary_on)
                          : DeviceBuffer<std::byte>(bytes);
}

template <typename Value>
PackedDeviceCsr<Value>::PackedDeviceCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz)
    : PackedDeviceCsr(rows, cols, nnz, std::nullopt) {}

template <typename Value>
PackedDeviceCsr<Value> PackedDeviceCsr<Value>::on_stream(std::int64_t rows, std::int64_t cols,
                                                         std::int64_t nnz, cudaStream_t stream) {
  return PackedDeviceCsr(rows, cols, nnz, stream);
}

template <typename Value>
PackedDeviceCsr<Value> upload_csr_temporary(const CsrMatrix<Value, std::int32_t>& matrix,
                                            PlanStats& stats, cudaStream_t stream,
                                            HostUpload policy) {
  auto csr = is_small_build<Value>(matrix.rows, matrix.nnz())
                 ? PackedDeviceCsr<Value>::on_stream(matrix.rows, matrix.cols, matrix.nnz(), stream)
                 : PackedDeviceCsr<Value>(matrix.rows, matrix.cols, matrix.nnz());
  const Stopwatch copies;
  HostUploader uploader(policy, stream);
  uploader.copy(csr.row_ptr(), matrix.row_ptr.data(),
                matrix.row_ptr.size() * sizeof(std::int32_t));
  uploader.copy(csr.col_idx(), matrix.col_idx.data(),
                matrix.col_idx.size() * sizeof(std::int32_t));
  uploader.copy(csr.values(), matrix.values.data(), matrix.values.size() * sizeof(Value));
  uploader.finish();
  stats.upload_ms += copies.elapsed_ms();
  return csr;
}

template <typename Value>
PackedDeviceCsr<Value> upload_csr_beside(
    const CsrMatrix<Value, std::int32_t>& matrix, HostUpload policy,
    const std::function<void(const DeviceCsrView<Value>& csr, UploadLanded landed)>& work,
    UploadBesideTimes& times, StagingConfig staging) {
  const Stopwatch allocation;
  PackedDeviceCsr<Value> csr(matrix.rows, matrix.cols, matrix.nnz());
  times.allocate_ms = allocation.elapsed_ms();
  int device = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  const CudaStream stream;
  reserve_download_bounces();  // `work`'s thread takes them: no cudaMallocHost beside the copies
  CudaEvent row_ptr_landed(cudaEventDisableTiming), col_idx_landed(cudaEventDisableTiming);
  std::latch col_idx_recorded(1);
  std::exception_ptr failure;
  const Stopwatch upload;
  {
    // one core for `work`'s thread (it spins in its waits for the GPU): a staging team that
    // shares a core with it waits for that thread at every chunk's barrier
    if (staging.copy_threads <= 0) staging.copy_threads = std::max(1, resolve_threads(0) - 1);
    HostUploader uploader(policy, stream.get(), staging);
    uploader.copy(csr.row_ptr(), matrix.row_ptr.data(),
                  matrix.row_ptr.size() * sizeof(std::int32_t));
    row_ptr_landed.record(stream.get());
    // declared after the uploader, so destroyed (joined) first when a copy throws
    const Stopwatch spawned;
    std::jthread worker([&] {
      try {
        times.worker_started_ms = spawned.elapsed_ms();
        TCSPARSE_CUDA_CHECK(cudaSetDevice(device));
        times.worker_device_set_ms = spawned.elapsed_ms();
        const Stopwatch on_its_thread;
        work(csr.view(),
             UploadLanded(row_ptr_landed.get(), col_idx_landed.get(), col_idx_recorded));
        times.work_ms = on_its_thread.elapsed_ms();
        times.worker_done_ms = spawned.elapsed_ms();
      } catch (...) {
        failure = std::current_exception();
      }
    });
    try {
      uploader.copy(csr.col_idx(), matrix.col_idx.data(),
                    matrix.col_idx.size() * sizeof(std::int32_t));
      col_idx_landed.record(stream.get());
    } catch (...) {
      col_idx_recorded.count_down();  // `work` must not wait for it forever
      throw;
    }
    col_idx_recorded.count_down();
    uploader.copy(csr.values(), matrix.values.data(), matrix.values.size() * sizeof(Value));
    uploader.finish();
    times.upload_ms = upload.elapsed_ms();
    const Stopwatch waited;
    worker.join();
    times.waited_ms = waited.elapsed_ms();
    times.worker_joined_ms = spawned.elapsed_ms();
  }
  if (failure) std::rethrow_exception(failure);
  return csr;
}

template <typename Value>
void replace_values_async(DeviceCsr<Value>& csr, const Value* values, Stream stream) {
  if (csr.nnz == 0) return;
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(csr.values.data(), values,
                                      static_cast<std::size_t>(csr.nnz) * sizeof(Value),
                                      cudaMemcpyDeviceToDevice, stream));
}

#define TCSPARSE_INSTANTIATE_UPLOAD_BESIDE(Value)                                              \
  template class PackedDeviceCsr<Value>;                                                       \
  template PackedDeviceCsr<Value> upload_csr_temporary(const CsrMatrix<Value, std::int32_t>&,   \
                                                       PlanStats&, cudaStream_t, HostUpload);  \
  template PackedDeviceCsr<Value> upload_csr_beside(                                           \
      const CsrMatrix<Value, std::int32_t>&, HostUpload,                                       \
      const std::function<void(const DeviceCsrView<Value>&, UploadLanded)>&,                   \
      UploadBesideTimes&, StagingConfig);
TCSPARSE_INSTANTIATE_UPLOAD_BESIDE(double)
TCSPARSE_INSTANTIATE_UPLOAD_BESIDE(float)
TCSPARSE_INSTANTIATE_UPLOAD_BESIDE(half)
TCSPARSE_INSTANTIATE_UPLOAD_BESIDE(bfloat16)
#undef TCSPARSE_INSTANTIATE_UPLOAD_BESIDE
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
