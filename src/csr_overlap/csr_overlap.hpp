// CSR-Partial-Overlap (Electronics 2023): the entry points of the method. Everything else stays in
// this folder: csr_overlap_format.{hpp,cpp} (host model), csr_overlap_kernels.cuh and
// csr_overlap.cu (kernels, the method object), csr_overlap_method.cpp (the registry's descriptor).
#pragma once

#include <memory>
#include <vector>

#include "csr_overlap/csr_overlap_format.hpp"
#include "plan/method.hpp"

namespace tcsparse::csr_overlap {

/// Uploads the CSR, builds the batch table (or the merge-path tiles, or nothing for row vectors:
/// partition) on the GPU and returns the method object.
/// Instantiated for double, float, half and bfloat16 (fp32 accumulation for the 16-bit types).
/// Throws UnsupportedError when two stages of max_batch_size do not fit the device's shared memory.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters);

/// The same from a CSR already on the GPU (checked by the plan): copied device to device into the
/// plan's own padded arrays, the batch table built on the GPU as above; no host work on the
/// matrix (the table statistics of PlanStats::details are computed on the first stats()).
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters);

namespace testing {

/// What a plan built on the device (tests compare it with the host model). Not for use outside
/// tests.
struct DeviceTable {
  BatchTable table;  ///< empty for merge-path tiles
  KernelShape shape;
  /// partition=merge_path: where the tiles start, the end included (else empty).
  std::vector<MergeCoordinate> merge_tile_starts;
  /// partition=row_vectors: the launch shape (else all zero).
  RowVectorShape row_vectors;
};

/// Copies the batch table (or the merge-path tiles' starts) of a method made by make_spmv back
/// (synchronous) with the kernels' launch shape. Throws Error for another method.
template <typename Value>
DeviceTable download_table(const detail::SpmvMethod<Value>& method);

}  // namespace testing

}  // namespace tcsparse::csr_overlap
