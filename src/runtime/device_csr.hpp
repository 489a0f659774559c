// A CSR matrix on the device and the one timed upload that puts it there, shared by every method
// that reads the CSR arrays on the GPU (the cuSPARSE baseline keeps them; DASP fills its layout
// from them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>

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

/// Replaces the first nnz values of `csr` by `values` (device pointer, the CSR order of the matrix
/// it was made from), asynchronously on `stream`; the pattern and the zeros past nnz stay. What
/// update_values costs for the methods that keep the CSR as it is.
template <typename Value>
void replace_values_async(DeviceCsr<Value>& csr, const Value* values, Stream stream);

}  // namespace tcsparse::detail
