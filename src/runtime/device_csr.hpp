// A CSR matrix on the device and the one timed upload that puts it there, shared by every method
// that reads the CSR arrays on the GPU (the cuSPARSE baseline keeps them; DASP fills its layout
// from them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <latch>
#include <optional>
#include <thread>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::detail {

/// The CSR arrays on the device, exactly as on the host (32-bit indices, zero-based); the column
/// and value arrays may be allocated longer than nnz (upload_csr's nonzero_multiple), with zeros
/// past nnz.
template <typename Value>
struct DeviceCsr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  DeviceBuffer<std::int32_t> row_ptr;  ///< rows + 1
  DeviceBuffer<std::int32_t> col_idx;  ///< nnz, or more (zeros)
  DeviceBuffer<Value> values;          ///< nnz, or more (zeros)

  std::size_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
  /// The arrays as a view (for the builds that take the caller's device CSR too).
  DeviceCsrView<Value> view() const {
    return {rows, cols, nnz, row_ptr.data(), col_idx.data(), values.data()};
  }
};

/// A CSR's three arrays in one device allocation, for a plan that reads the CSR only while it
/// builds (DASP's device build, upload_csr_beside): one cudaMalloc and one cudaFree instead of
/// three (H200, fp16 CSRs of 20-26 M nonzeros: 0.06 + 0.08-0.11 ms against 0.15-0.18 +
/// 0.19-0.23 ms; bench/results/2026-11-29-0715-h200-dasp-upload-beside, run 209). Each array
/// starts on a kPackedCsrAlignment boundary. Move-only.
template <typename Value>
class PackedDeviceCsr {
 public:
  static constexpr std::size_t kPackedCsrAlignment = 256;
  PackedDeviceCsr() = default;
  PackedDeviceCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz);
  /// The same in one allocation from tcsparse's stream-ordered pool on `stream`
  /// (DeviceBuffer::on_stream), given back there without waiting for the device: a plan build's
  /// temporary copy of the CSR (H200, DLMC layers of ~26 k nonzeros: the cudaMalloc and cudaFree
  /// of upload_csr's three arrays took 0.06 and 0.05 ms of a 0.35 ms tca plan build, run 362).
  static PackedDeviceCsr on_stream(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                   cudaStream_t stream);

  std::int32_t* row_ptr() { return reinterpret_cast<std::int32_t*>(storage_.data()); }
  std::int32_t* col_idx() {
    return reinterpret_cast<std::int32_t*>(storage_.data() + col_idx_at_);
  }
  Value* values() { return reinterpret_cast<Value*>(storage_.data() + values_at_); }
  DeviceCsrView<Value> view() const {
    const std::byte* base = storage_.data();
    return {rows_, cols_, nnz_, reinterpret_cast<const std::int32_t*>(base),
            reinterpret_cast<const std::int32_t*>(base + col_idx_at_),
            reinterpret_cast<const Value*>(base + values_at_)};
  }
  std::size_t bytes() const { return storage_.bytes(); }

 private:
  PackedDeviceCsr(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                  std::optional<cudaStream_t> temporary_on);
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0;
  std::size_t col_idx_at_ = 0, values_at_ = 0;  ///< byte offsets into storage_
  DeviceBuffer<std::byte> storage_;
};

/// Allocates `matrix`'s arrays on the device and copies them there. The column and value arrays
/// hold a whole multiple of `nonzero_multiple` elements (at least one multiple), zeros past nnz,
/// for kernels that copy them in aligned pieces. Adds the time of the copies to stats.upload_ms
/// (device allocation excluded; pinned staging, registration and the end of the transfers
/// included); nothing else of `stats` changes. Every host-to-device copy of a CSR goes through
/// here, by `policy` (host_upload.hpp; by default the plan's PlanOptions::host_upload).
template <typename Value>
DeviceCsr<Value> upload_csr(const CsrMatrix<Value, std::int32_t>& matrix, PlanStats& stats,
                            std::size_t nonzero_multiple = 1,
                            HostUpload policy = current_host_upload(),
                            StagingConfig staging = {});

/// Whether a plan build from a CSR of `rows` rows and `nnz` nonzeros is small: its packed CSR
/// (row_ptr, col_idx, values) fits kSmallBuildTemporaryBytes. A small build's temporaries
/// and the arrays its plan keeps may share the pool; a larger build allocates what its plan keeps
/// with cudaMalloc, or those arrays, placed among its freed temporaries, would keep the pool's
/// memory around them from being given back while the plan lives (GPU test
/// PlanBuild.TcaBuildsKeepNoMoreOfThePool...).
template <typename Value>
constexpr bool is_small_build(std::int64_t rows, std::int64_t nnz) {
  const auto bytes = static_cast<std::size_t>(rows + 1 + nnz) * sizeof(std::int32_t) +
                     static_cast<std::size_t>(nnz) * sizeof(Value);
  return bytes <= kSmallBuildTemporaryBytes;
}

/// upload_csr into one allocation for a build's temporary: PackedDeviceCsr::on_stream(...,
/// stream) (stream must outlive it) for a small build (is_small_build), else one cudaMalloc. A
/// larger temporary from the pool would share its memory with the arrays the plan takes from the
/// pool during the build, which would then keep it from being given back (as hbp's layout_memory
/// rule found, run 371 of bench/results/2026-11-30-2010-h200-tca-plan-build). The copies run on
/// `stream` by `policy` and have landed on return; adds their time to stats.upload_ms.
template <typename Value>
PackedDeviceCsr<Value> upload_csr_temporary(const CsrMatrix<Value, std::int32_t>& matrix,
                                            PlanStats& stats, cudaStream_t stream,
                                            HostUpload policy = current_host_upload());

/// upload_csr (nonzero_multiple 1) on a worker thread, so that a plan's host work runs beside
/// the upload: the CSR needs nothing the method builds. The worker takes the caller's CUDA
/// device, copies with `staging.copy_threads` OpenMP threads (the caller gives its own loops the
/// rest, OmpThreadLimitScope) and enqueues on the legacy stream. get() waits for the worker and
/// returns the CSR, or rethrows what the worker threw (e.g. DeviceMemoryError); the destructor
/// waits for it too, so nothing it allocated outlives an exception of the caller.
template <typename Value>
class BackgroundCsrUpload {
 public:
  BackgroundCsrUpload(const CsrMatrix<Value, std::int32_t>& matrix, HostUpload policy,
                      StagingConfig staging);
  ~BackgroundCsrUpload();
  BackgroundCsrUpload(const BackgroundCsrUpload&) = delete;
  BackgroundCsrUpload& operator=(const BackgroundCsrUpload&) = delete;

  /// Waits for the upload. upload_ms: the worker's time for the allocations and copies (as
  /// upload_csr measures them); waited_ms: how long this call blocked.
  DeviceCsr<Value> get(double& upload_ms, double& waited_ms);

 private:
  void join() noexcept;
  DeviceCsr<Value> result_;
  PlanStats stats_;
  std::exception_ptr failure_;
  std::thread worker_;  // last: started once the members it writes exist
};

/// What upload_csr_beside measured (milliseconds, wall clock).
struct UploadBesideTimes {
  double allocate_ms = 0.0;  ///< the device CSR's allocation, before the first copy
  double upload_ms = 0.0;  ///< the calling thread's copies, from the first to the last landing
  double work_ms = 0.0;    ///< `work` on its thread
  double waited_ms = 0.0;  ///< how long the upload waited for `work` at the end (0: it did not)
  /// `work`'s thread, from its start: when it ran its first line, set the device, finished
  /// `work`, and was joined
  double worker_started_ms = 0.0, worker_device_set_ms = 0.0, worker_done_ms = 0.0,
         worker_joined_ms = 0.0;
};

/// What upload_csr_beside's `work` waits for: the copies of row_ptr and of col_idx.
class UploadLanded {
 public:
  UploadLanded(cudaEvent_t row_ptr, cudaEvent_t col_idx, const std::latch& col_idx_recorded)
      : row_ptr_(row_ptr), col_idx_(col_idx), col_idx_recorded_(&col_idx_recorded) {}
  /// Makes `stream` wait for row_ptr's copy (no host wait).
  void row_ptr(cudaStream_t stream) const {
    TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream, row_ptr_));
  }
  /// Makes `stream` wait for col_idx's copy (the host waits only until that copy is enqueued).
  void col_idx(cudaStream_t stream) const {
    col_idx_recorded_->wait();
    TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream, col_idx_));
  }

 private:
  cudaEvent_t row_ptr_, col_idx_;
  const std::latch* col_idx_recorded_;
};

/// Uploads `matrix` (into one allocation, PackedDeviceCsr) while `work(csr, landed)` runs
/// on another thread, on the caller's CUDA device: plan work that needs only the row offsets
/// (DASP's device build), then the column indices, overlaps the copies. The calling thread
/// stages the copies (row_ptr, col_idx, values, in that order; its OpenMP team but one thread,
/// the upload path by `policy`) on a stream of its own: `work` makes its stream wait for a copy
/// (landed.row_ptr(stream), landed.col_idx(stream)) before reading that array, and never reads
/// values. `work` should run on a non-blocking stream with stream-ordered temporaries
/// (DeviceBuffer::on_stream), so that neither waits for the other. Returns once both are done,
/// with every copy landed; rethrows what `work` threw. `staging`: the ring, and the staging team
/// (copy_threads 0: all of OpenMP's threads but one, kept for `work`; tcsparse_upload_probe
/// sweeps both: on 16-core H200 hosts 8, 14 and 15 threads each came out fastest on some fp16
/// CSR and day, runs 209-210).
template <typename Value>
PackedDeviceCsr<Value> upload_csr_beside(
    const CsrMatrix<Value, std::int32_t>& matrix, HostUpload policy,
    const std::function<void(const DeviceCsrView<Value>& csr, UploadLanded landed)>& work,
    UploadBesideTimes& times, StagingConfig staging = {});

/// Replaces the first nnz values of `csr` by `values` (device pointer, the CSR order of the matrix
/// it was made from), asynchronously on `stream`; the pattern and the zeros past nnz stay. What
/// update_values costs for the methods that keep the CSR as it is.
template <typename Value>
void replace_values_async(DeviceCsr<Value>& csr, const Value* values, Stream stream);

}  // namespace tcsparse::detail
