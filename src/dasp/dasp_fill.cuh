// The value and column arrays of a DASP layout, filled on the GPU from the uploaded CSR.
//
// The host builds the index arrays (sorted row ids, offsets, tasks; build_dasp_layout with
// DaspFill::index_only), which is linear in the rows; the O(nnz) part, scattering every value
// into its block, runs here. The result is bit for bit what the host fill (dasp_format.cpp)
// writes: the same padding (0 with the row's last column; 0 with column 0 where no row is) and
// the same positions (DaspBlockShape::offset). A GPU test compares the two.
#pragma once

#include <cuda_runtime.h>

#include "dasp/dasp_format.hpp"
#include "dasp/dasp_fragments.cuh"

namespace tcsparse::dasp::device {

/// The uploaded CSR matrix.
template <typename V>
struct CsrArrays {
  const int* row_ptr;
  const int* col_idx;
  const V* values;
};

/// Storage position inside a block of value `value` of block row `slot`: the host layout's
/// DaspBlockShape::offset (a constexpr function, callable here).
template <int kBlockRows>
__device__ __forceinline__ int offset_of_slot(int slot, int value, bool column_major) {
  return DaspBlockShape{kBlockRows, kDaspBlockWidth, column_major}.offset(slot, value);
}

/// Block row `slot` and position `value` of storage position `offset` inside a block
/// (the inverse of offset_of_slot).
template <int kBlockRows>
__device__ __forceinline__ void slot_of_offset(int offset, bool column_major, int& slot,
                                               int& value) {
  if (kBlockRows == 8 && column_major) {
    slot = offset & 7;
    value = offset >> 3;
  } else if (kBlockRows == 8) {
    slot = offset >> 2;
    value = offset & 3;
  } else {
    value = offset & 3;
    const int quad = offset >> 2;  // which 4-value group of the block
    slot = quad / 2 + 8 * (quad % 2);
  }
}

/// Writes (value i of `row`, or padding) to position `at`, for a row whose CSR values are
/// [begin, begin + length): a value of the row when i < length, else 0 with the row's last
/// column; 0 with column 0 where row < 0.
template <typename V>
__device__ __forceinline__ void put_row_value(const CsrArrays<V>& csr, int row, long long begin,
                                              long long length, long long i, V* out_values,
                                              int* out_cols, long long at) {
  if (row < 0) {
    out_values[at] = V{};
    out_cols[at] = 0;
  } else if (i < length) {
    out_values[at] = csr.values[begin + i];
    out_cols[at] = csr.col_idx[begin + i];
  } else {
    out_values[at] = V{};
    out_cols[at] = csr.col_idx[begin + length - 1];
  }
}

/// put_row_value for `row`, its place in the CSR read from row_ptr.
template <typename V>
__device__ __forceinline__ void put_value(const CsrArrays<V>& csr, int row, long long i,
                                          V* out_values, int* out_cols, long long at) {
  const long long begin = row < 0 ? 0 : csr.row_ptr[row];
  const long long length = row < 0 ? 0 : csr.row_ptr[row + 1] - begin;
  put_row_value(csr, row, begin, length, i, out_values, out_cols, at);
}

/// Long rows: one warp a task; the task's values are its row's values from the first value of
/// its first group (long_group_ptr) on, then padding.
template <typename V>
__global__ void fill_long_kernel(CsrArrays<V> csr, const int4* tasks, int task_count,
                                 const int* group_ptr, V* out_values, int* out_cols) {
  constexpr long long kValuesPerBlock = kBlockValues<V>;
  constexpr long long kGroupValues = 2 * kValuesPerBlock;
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  if (warp >= task_count) return;
  const int4 task = tasks[warp];  // row, block_begin, block_end, long_row
  const long long row_first = group_ptr[task.w] * kGroupValues;
  for (long long at = task.y * kValuesPerBlock + lane; at < task.z * kValuesPerBlock;
       at += kWarpSize)
    put_value(csr, task.x, at - row_first, out_values, out_cols, at);
}

/// Medium rows: one warp a row-block. Lane s < R first loads block row s's row id, its place in
/// the CSR and its irregular offset (one round of loads for the row-block's R rows, which the
/// lanes then take from lane s by shuffle); then the lanes walk the row-block's regular blocks
/// (block row s = medium row rb*R + s, chunk j = values 4j..4j+3 of the row), one storage
/// position a lane, and write the rest of the R rows to the irregular part, 32 / R lanes a row.
template <typename V>
__global__ void fill_medium_kernel(CsrArrays<V> csr, int row_blocks, const int* rowblock_ptr,
                                   const int* medium_row_ids, const int* irregular_ptr,
                                   V* regular_values, int* regular_cols, V* irregular_values,
                                   int* irregular_cols, bool column_major) {
  constexpr int R = Traits<V>::kBlockRows;
  static_assert(R <= kWarpSize && kWarpSize % R == 0, "whole lanes a block row");
  constexpr int kBlockValuesR = kBlockValues<V>;
  constexpr unsigned kAllLanes = 0xffffffffu;
  const int rb = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize);
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
  if (rb >= row_blocks) return;  // warp-uniform: the shuffles below have all 32 lanes
  const long long base = rowblock_ptr[rb], end = rowblock_ptr[rb + 1];
  int lane_row = -1, lane_begin = 0, lane_length = 0, lane_to = 0;
  if (lane < R) {
    const long long m = static_cast<long long>(rb) * R + lane;
    lane_row = medium_row_ids[m];
    if (lane_row >= 0) {
      lane_begin = csr.row_ptr[lane_row];
      lane_length = csr.row_ptr[lane_row + 1] - lane_begin;
      lane_to = irregular_ptr[m];
    }
  }
  for (long long first = base; first < end; first += kWarpSize) {
    const long long at = first + lane, within = at - base;
    int slot, value;
    slot_of_offset<R>(static_cast<int>(within % kBlockValuesR), column_major, slot, value);
    const int row = __shfl_sync(kAllLanes, lane_row, slot);
    const long long begin = __shfl_sync(kAllLanes, lane_begin, slot);
    const long long length = __shfl_sync(kAllLanes, lane_length, slot);
    if (at < end)
      put_row_value(csr, row, begin, length, within / kBlockValuesR * 4 + value, regular_values,
                    regular_cols, at);
  }
  // the irregular part: lane l takes block row l % R, its values regular_per_row + l / R,
  // + kLanesPerRow, ... (most rows have a few irregular values: one round for all R rows)
  constexpr int kLanesPerRow = kWarpSize / R;
  const int slot = lane % R;
  const long long regular_per_row = (end - base) / kBlockValuesR * 4;
  const long long begin = __shfl_sync(kAllLanes, lane_begin, slot);
  const long long length = __shfl_sync(kAllLanes, lane_length, slot);
  const long long to = __shfl_sync(kAllLanes, lane_to, slot);
  for (long long i = regular_per_row + lane / R; i < length; i += kLanesPerRow) {
    irregular_values[to + i - regular_per_row] = csr.values[begin + i];
    irregular_cols[to + i - regular_per_row] = csr.col_idx[begin + i];
  }
}

/// Short rows: one warp a tile of one kind, lane o = output o of the tile (short_row_ids):
///   pairs (split 1 or 2): block o / 2R, part (o / R) % 2, block row o % R; part 0 writes
///     values [0, split) of the block row, part 1 values [split, 4)
///   rows of 4: block o / R, block row o % R, 4 values (padding after a 3 or a 2)
///   single values: value o of the tile
template <typename V>
__global__ void fill_short_kernel(CsrArrays<V> csr, int kind, long long tiles,
                                  const int* row_ids, V* values, int* cols, bool column_major) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kBlockValuesR = kBlockValues<V>;
  const long long tile = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const int o = static_cast<int>(threadIdx.x % kWarpSize);
  if (tile >= tiles) return;
  const int row = row_ids[tile * kWarpSize + o];
  if (kind == 0 || kind == 2) {  // pairs 1+3, 2+2
    const int split = kind == 0 ? 1 : 2;
    const int block = o / (2 * R), part = (o / R) % 2, slot = o % R;
    const long long start = tile * 64 + static_cast<long long>(block) * kBlockValuesR;
    const int from = part ? split : 0, to = part ? 4 : split;
    for (int v = from; v < to; ++v)
      put_value(csr, row, v - from, values, cols,
                start + offset_of_slot<R>(slot, v, column_major));
  } else if (kind == 1) {  // rows of 4
    const int block = o / R, slot = o % R;
    const long long start = tile * 128 + static_cast<long long>(block) * kBlockValuesR;
    for (int v = 0; v < 4; ++v)
      put_value(csr, row, v, values, cols, start + offset_of_slot<R>(slot, v, column_major));
  } else {  // single values
    put_value(csr, row, 0, values, cols, tile * kWarpSize + o);
  }
}

}  // namespace tcsparse::dasp::device
