// A DASP layout's index arrays on the device: built there from the CSR (build=device, the
// default: dasp_device_build.cu) or uploaded from the host builder (build=host). Both give the
// same arrays, bit for bit (the GPU test DaspGpuOnCatalogue.DeviceBuildEqualsHostBuild compares
// them), so the host layout and its host apply stay the model of either.
//
// The device build, in the host plan's steps (dasp_format_internal.hpp), each a few kernels
// (dasp_build_kernels.cuh) or CUB calls, with a small download where the host decides:
//   1. row lengths summarised -> MAX_LEN                      (choose_max_medium_row_length)
//   2. category keys + histogram -> stable radix sort of the rows by key descending -> bounds
//   3. regular blocks of each medium row-block -> rows a warp (LOOP_NUM); windows: a stable sort
//      of the medium rows by window, row-blocks that straddle two re-sorted, blocks recounted
//   4. long groups and tasks, medium pieces -> the work split and every count
//   5. the arrays: scans for the offsets, one thread a row / row-block / pair / tile for the rest
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "dasp/dasp_format.hpp"
#include "runtime/device_buffer.hpp"

namespace tcsparse::dasp {

/// The index arrays of a DaspLayout (same names, meaning and sizes) in device memory, with the
/// layout's scalars. long_row_ids is kept for the plan's row order.
struct DaspDeviceIndex {
  DaspLayoutInfo info;
  detail::DeviceBuffer<std::int32_t> long_row_ids, long_group_ptr, long_task_ptr;
  detail::DeviceBuffer<DaspLongTask> long_tasks;
  detail::DeviceBuffer<std::int32_t> medium_row_ids, rowblock_ptr, irregular_ptr;
  detail::DeviceBuffer<std::uint8_t> medium_tail_widths;
  detail::DeviceBuffer<DaspMediumPiece> medium_extra_pieces;
  detail::DeviceBuffer<std::int32_t> short_row_ids, short_tile_order, empty_row_ids;

  std::size_t bytes() const;
};

/// Builds the index arrays on the GPU from the CSR's row offsets (device pointer, rows + 1
/// entries, a checked CSR) for values of `value_bytes` bytes in blocks of `shape`, on `stream`,
/// returning when they are complete (plan time: it downloads a few counts and synchronises
/// `stream`). The same arrays and scalars as build_dasp_layout(matrix, parameters, shape,
/// DaspFill::index_only) of that CSR. `phases` gets the host plan's phase names (max_len,
/// row_sort, regular_blocks, windows, work_split, fill_long, fill_medium, fill_short,
/// empty_rows). Throws IndexOverflowError, UnsupportedError as build_dasp_layout does, and
/// DeviceMemoryError.
DaspDeviceIndex build_index_on_device(const std::int32_t* row_ptr, std::int64_t rows,
                                      std::int64_t cols, std::int64_t nnz,
                                      const DaspParameters& parameters, DaspBlockShape shape,
                                      int value_bytes, detail::PhaseTimes* phases,
                                      cudaStream_t stream);

/// The nonzeros of a square CSR on the device whose column c is a row of more than `max_medium`
/// values (row_order=auto's measure, internal_row_order_pays); plan time: waits for `stream`.
std::int64_t count_long_column_nonzeros(const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                        std::int64_t nnz, int max_medium, cudaStream_t stream);

/// Uploads a host layout's index arrays through the plan's upload path (build=host); complete on
/// return.
template <typename Value>
DaspDeviceIndex upload_index(const DaspLayout<Value>& layout);

/// The plan's row order on the device (dasp_plan_row_order of the same layout): plan_to_caller[p]
/// is the caller's row at plan position p, caller_to_plan its inverse (rows entries each, on
/// `stream`, complete on return). Throws Error if the index does not list every row once.
void plan_row_order_on_device(const DaspDeviceIndex& index, std::int32_t* plan_to_caller,
                              std::int32_t* caller_to_plan, cudaStream_t stream);

/// For tests: the index arrays and scalars copied back into a host layout (its value and column
/// arrays empty), to compare with build_dasp_layout(..., DaspFill::index_only).
template <typename Value>
DaspLayout<Value> download_index(const DaspDeviceIndex& index);

}  // namespace tcsparse::dasp
