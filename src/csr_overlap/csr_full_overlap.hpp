// CSR-Full-Overlap (Zeng & Zou, "Leveraging Memory Copy Overlap for Efficient Sparse
// Matrix-Vector Multiplication on GPUs", Electronics 12 (2023) 3687, §4.2, Algorithm 8): SpMV on
// a matrix that stays in host memory, streamed to the GPU in big batches at every apply.
//
// Host memory is pinned once, at plan time, by parameter host_memory:
//   copy (default)  the plan copies the CSR into pinned memory it owns: the caller's matrix may
//                   be destroyed or changed after the plan is built;
//   register        the plan cudaHostRegisters the caller's row_ptr, col_idx and values arrays
//                   and streams from them: THE CALLER'S ARRAYS MUST OUTLIVE THE PLAN, stay where
//                   they are (no reallocation) and are read at every apply (a change of values
//                   shows in the next apply). The registration ends with the plan.
#pragma once

#include <memory>

#include "csr_overlap/csr_full_overlap_format.hpp"
#include "plan/method.hpp"

namespace tcsparse::csr_overlap {

/// Partitions the matrix into big batches, pins its host memory, allocates the device staging
/// ring and the per-big-batch batch tables, and returns the method object. Instantiated for
/// double, float, half and bfloat16. Throws ParameterError when a row does not fit one staging
/// slot of device_memory_limit / streams bytes.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_full_overlap_spmv(
    const CsrMatrix<Value, std::int32_t>& matrix, const detail::ParameterValues& parameters);

/// The same from a CSR on the GPU: downloaded once into the plan's pinned copy
/// (host_memory=copy). host_memory=register is an UnsupportedError: the download is temporary,
/// so there are no caller's host arrays to register and stream from.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters);

}  // namespace tcsparse::csr_overlap
