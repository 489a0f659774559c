// The HBP layout on the device: built there from the uploaded CSR (paper Algorithm 2, a thread a
// row; hbp_device_build.cu) or uploaded from the host builder (build_layout, the model). Both
// give the same arrays, bit for bit (the GPU test HbpGpuBuild compares them), so the host model
// (host_apply) stays exact for either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "hbp/hbp_format.hpp"
#include "hbp/hbp_parameters.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"

namespace tcsparse::hbp {

/// The arrays of HbpLayout (hbp_format.hpp, same meaning and order) in device memory, with the
/// scalars the launch needs. block_col and block_row are not read by the kernels: the plan may
/// release them (release_block_indices) once the layout is built. With slot_output=partial the
/// plan rewrites the combine's arrays and releases output_hash and combine_rows
/// (hbp_slot_partials.hpp).
template <typename Value>
struct DeviceLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int32_t block_rows = 1, block_cols = 8;
  Reorder reorder = Reorder::hash;
  std::int32_t warp_row_length = 0;
  NonlinearHash hash;
  std::int64_t blocks = 0, groups = 0, slots = 0, tasks = 0, partials = 0, combine_row_count = 0;
  /// Whether the GPU build took the arrays from tcsparse's pool (HbpParameters::layout_memory);
  /// false for upload_layout.
  bool arrays_from_pool = false;
  /// build_layout_on_device's steps in milliseconds (CUDA events on the build's stream: a step's
  /// time is its GPU work, its downloads and the gaps while its launches were enqueued); empty
  /// for upload_layout.
  std::vector<std::pair<std::string, double>> build_phases_ms;

  detail::DeviceBuffer<std::int32_t> block_col, block_row, block_group_begin, group_slot_begin,
      group_col;
  detail::DeviceBuffer<std::int64_t> begin_nnz;
  detail::DeviceBuffer<std::uint32_t> col_add_sign;
  detail::DeviceBuffer<Value> data;
  detail::DeviceBuffer<std::int32_t> value_source;  ///< empty unless HbpParameters::update_values
  detail::DeviceBuffer<std::int32_t> output_hash, combine_rows, combine_begin, combine_partials,
      task_block_begin, task_col, task_shared_x;
  detail::DeviceBuffer<std::uint16_t> slot_last_round;

  /// Bytes the plan keeps of the layout (as device_bytes(HbpLayout) counts them: block_col /
  /// block_row left out): what the kernels read, value_source, the partial sums of
  /// `partial_bytes` each and the 4-byte ticket.
  std::size_t plan_bytes(std::size_t partial_bytes) const {
    return block_group_begin.bytes() + group_slot_begin.bytes() + group_col.bytes() +
           begin_nnz.bytes() + col_add_sign.bytes() + data.bytes() + value_source.bytes() +
           output_hash.bytes() + slot_last_round.bytes() +
           combine_rows.bytes() + combine_begin.bytes() + combine_partials.bytes() +
           task_block_begin.bytes() + task_col.bytes() +
           task_shared_x.bytes() + static_cast<std::size_t>(partials) * partial_bytes +
           sizeof(std::uint32_t);
  }
  void release_block_indices() {
    block_col = {};
    block_row = {};
  }
};

/// Uploads the host builder's layout (build=host; synchronous copies).
template <typename Value>
DeviceLayout<Value> upload_layout(const HbpLayout<Value>& layout);

/// Builds the layout on the GPU from `csr` (build=device: a checked CSR on the device, uploaded
/// by the plan or the caller's own), on `stream`, returning when it is complete (plan time: it
/// downloads a few counts, allocates the arrays and temporary storage, and synchronises
/// `stream`). The layout holds its own copy of the values: `csr` is not read afterwards. The same
/// arrays as build_layout(matrix, p, block_cols) for the matrix `csr` holds, bit for bit. Throws
/// ParameterError for block_cols outside 1..kLargestBlockCols, UnsupportedError when a block's
/// hash table does not fit shared memory.
template <typename Value>
DeviceLayout<Value> build_layout_on_device(const DeviceCsrView<Value>& csr,
                                           const HbpParameters& p, std::int32_t block_cols,
                                           cudaStream_t stream);

/// The nonzeros of each column of a CSR on the GPU (column_order=, hbp_column_order.hpp).
struct DeviceColumnCounts {
  std::int64_t cols = 0;
  detail::DeviceBuffer<unsigned> counts;  ///< cols, stream-ordered on the build's stream
};
DeviceColumnCounts count_columns_on_device(const std::int32_t* col_idx, std::int64_t nnz,
                                           std::int64_t cols, cudaStream_t stream);

/// estimated_column_count_concentration of `csr` from the columns of every
/// concentration_sample_step-th nonzero, as sampled_column_counts samples on the host (downloads
/// two sums: waits for `stream`).
template <typename Value>
double estimated_column_count_concentration_on_device(const DeviceCsrView<Value>& csr,
                                                      cudaStream_t stream);

/// hubs_first_column_order on the GPU: plan_to_caller (the plan's own array, cols entries), the
/// host's order bit for bit (GPU test HbpColumnOrder*). Asynchronous on `stream`.
detail::DeviceBuffer<std::int32_t> hubs_first_column_order_on_device(
    const DeviceColumnCounts& counts, std::int32_t block_cols, std::int64_t hub_min_count,
    cudaStream_t stream);

/// plan_col_idx[k] = the plan column of caller column col_idx[k] (with_plan_columns' columns;
/// nnz entries each; plan_col_idx == col_idx renumbers in place, else they must not overlap).
/// Asynchronous on `stream`.
void renumber_columns_on_device(const std::int32_t* col_idx, std::int64_t nnz,
                                const detail::DeviceBuffer<std::int32_t>& plan_to_caller,
                                std::int32_t* plan_col_idx, cudaStream_t stream);

/// The layout's arrays downloaded into an HbpLayout (reorder_statistics left empty: the device
/// build does not compute the paper's Fig. 6 statistics; `info --json` reports them from the host
/// build). For tests: compare with build_layout.
template <typename Value>
HbpLayout<Value> download_layout(const DeviceLayout<Value>& layout);

}  // namespace tcsparse::hbp
