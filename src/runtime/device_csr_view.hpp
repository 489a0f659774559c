// Plans built from a CSR already on the GPU (tcsparse::DeviceCsrView): its check on the GPU, the
// device-to-device copy into a plan's own arrays, and the download for methods that build their
// layout on the host. The host-to-device upload stays in device_csr.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/device_csr.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::detail {

/// Checks `view` against the invariants of CsrMatrix::validate(), on the current device, and
/// throws the same ValidationError (same words: core/csr_validation_messages.hpp) for the first
/// broken one: shape, row_ptr[0] == 0, row_ptr non-decreasing (first row where it decreases),
/// row_ptr[rows] == nnz, then the first entry (in storage order) whose column is out of [0, cols),
/// repeats the previous column or is smaller than it. Also throws ValidationError for a null or
/// host (pageable or pinned) pointer or memory of another device, IndexOverflowError when rows,
/// cols or nnz exceed 32-bit indices. Runs its kernels on the legacy default stream and waits for
/// them once: the view's arrays must be complete when it is called (work writing them on another
/// stream must be synchronised first). Costs about one read of row_ptr and col_idx.
template <typename Value>
void validate_device_csr(const DeviceCsrView<Value>& view);

/// validate_device_csr in flight. The constructor checks the shape and the pointers (throwing at
/// once), launches the GPU check on the legacy default stream with the copy of its answer into
/// pinned memory, and returns without waiting; finish() waits for that answer alone (not for work
/// launched after it) and throws what validate_device_csr throws, once. A build from device CSR
/// that only reads the arrays within their sizes and writes nothing but its own (csr_overlap's
/// batch table) runs its kernels meanwhile, on another stream that waits for arrays_ready(), and
/// finishes the check before it uses their results: the host's work and the build's kernels
/// overlap the check. One in flight per thread; the destructor waits for the check (and any work
/// launched after it on the legacy stream).
template <typename Value>
class DeviceCsrCheck {
 public:
  explicit DeviceCsrCheck(const DeviceCsrView<Value>& view);
  ~DeviceCsrCheck();
  DeviceCsrCheck(const DeviceCsrCheck&) = delete;
  DeviceCsrCheck& operator=(const DeviceCsrCheck&) = delete;

  void finish();
  /// Recorded on the legacy stream before the check's first kernel: work on another stream that
  /// waits for it finds the view's arrays complete and runs beside the check.
  cudaEvent_t arrays_ready() const;

 private:
  struct InFlight;
  std::unique_ptr<InFlight> in_flight_;
};

/// validate_device_csr in two parts, on `stream` (each waits for it; its temporaries are
/// stream-ordered, so either may run while a copy on another stream goes on): the shape, the
/// pointers and the row offsets, which a plan can check before the columns have arrived; then
/// the columns, once the row offsets have passed.
template <typename Value>
void validate_device_row_offsets(const DeviceCsrView<Value>& view, cudaStream_t stream);
template <typename Value>
void validate_device_columns(const DeviceCsrView<Value>& view, cudaStream_t stream);

/// Copies a checked `view` into new device arrays (device to device, on the legacy stream), the
/// column and value arrays rounded up to a whole multiple of `nonzero_multiple` elements (at least
/// one multiple) with zeros past nnz, as upload_csr does. Adds the copy time to stats.upload_ms.
template <typename Value>
DeviceCsr<Value> copy_device_csr(const DeviceCsrView<Value>& view, PlanStats& stats,
                                 std::size_t nonzero_multiple = 1);

/// The host copy of a checked `view` (synchronous), for methods that build their layout on the
/// host.
template <typename Value>
CsrMatrix<Value, std::int32_t> download_device_csr(const DeviceCsrView<Value>& view);

}  // namespace tcsparse::detail
