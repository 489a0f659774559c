// A CSR matrix on the device and the one timed upload that puts it there, shared by every method
// that reads the CSR arrays on the GPU (the cuSPARSE baseline keeps them; DASP fills its layout
// from them).
#pragma once

#include <cstddef>
#include <cstdint>

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
                            HostUpload policy = current_host_upload());

/// Replaces the first nnz values of `csr` by `values` (device pointer, the CSR order of the matrix
/// it was made from), asynchronously on `stream`; the pattern and the zeros past nnz stay. What
/// update_values costs for the methods that keep the CSR as it is.
template <typename Value>
void replace_values_async(DeviceCsr<Value>& csr, const Value* values, Stream stream);

}  // namespace tcsparse::detail
