// The value and column arrays of a DASP layout, filled on the GPU from the uploaded CSR.
//
// The host builds the index arrays (sorted row ids, offsets, tasks; build_dasp_layout with
// DaspFill::index_only), which is linear in the rows; the O(nnz) part, scattering every value
// into its block, runs here. The result is bit for bit what the host fill (dasp_format.cpp)
// writes: the same padding (0 with the row's last column; 0 with column 0 where no row is) and
// the same positions (DaspBlockShape::offset). A GPU test compares the two.
//
// The same kernels refill the values alone (no col_idx: the columns stay as they are) from new
// values of the same pattern (SpmvPlan::update_values), also after the layout's row ids were
// renumbered to the plan's row order (csr_row_of).
#pragma once

#include <cuda_runtime.h>

#include "dasp/dasp_format.hpp"
#include "dasp/dasp_fragments.cuh"

namespace tcsparse::dasp::device {

/// The CSR matrix the values come from (device arrays).
template <typename V>
struct CsrArrays {
  const int* row_ptr;
  const int* col_idx;  ///< null: write the values only, the stored columns stay
  const V* values;
  /// null: the layout's row ids are the CSR's rows; else csr_row_of[id] is the CSR row of layout
  /// row id (a layout in the plan's row order: its plan_to_caller)
  const int* csr_row_of = nullptr;

  /// The CSR row of layout row id `id` (-1, a padding row, stays -1).
  __device__ __forceinline__ int row(int id) const {
    return id < 0 || csr_row_of == nullptr ? id : csr_row_of[id];
  }
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

/// What position `at` of the layout holds: a value and its column.
template <typename V>
struct StoredValue {
  V value;
  int col;
};

/// Value i of CSR row `row`, for a row whose CSR values are [begin, begin + length): the row's
/// value when i < length, else padding, 0 with the row's last column; 0 with column 0 where
/// row < 0. The column is read only where csr.col_idx is given.
template <typename V>
__device__ __forceinline__ StoredValue<V> row_value(const CsrArrays<V>& csr, int row,
                                                    long long begin, long long length,
                                                    long long i) {
  const bool columns = csr.col_idx != nullptr;
  if (row < 0) return {V{}, 0};
  if (i < length) return {csr.values[begin + i], columns ? csr.col_idx[begin + i] : 0};
  return {V{}, columns ? csr.col_idx[begin + length - 1] : 0};
}

/// Writes `stored` to position `at` (its column only where csr.col_idx is given).
template <typename V>
__device__ __forceinline__ void store_value(const CsrArrays<V>& csr, const StoredValue<V>& stored,
                                            V* out_values, int* out_cols, long long at) {
  out_values[at] = stored.value;
  if (csr.col_idx) out_cols[at] = stored.col;
}

/// Where CSR row `row` lies: its values are [begin, begin + length) (empty where row < 0).
struct RowExtent {
  long long begin = 0, length = 0;
};
template <typename V>
__device__ __forceinline__ RowExtent row_extent(const CsrArrays<V>& csr, int row) {
  if (row < 0) return {};
  const long long begin = csr.row_ptr[row];
  return {begin, csr.row_ptr[row + 1] - begin};
}

/// Positions a lane reads before it writes them, in the walks over long rows and row-blocks:
/// the stores may alias the loads as far as the compiler knows, so without this each position
/// is a round trip to memory (a dense long row-block of 8 x 1,600 values took 400 of them).
inline constexpr int kFillStepsInFlight = 4;

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
  const int row = csr.row(task.x);
  const RowExtent extent = row_extent(csr, row);
  const long long end = task.z * kValuesPerBlock;
  for (long long first = task.y * kValuesPerBlock + lane; first < end;
       first += kFillStepsInFlight * kWarpSize) {
    StoredValue<V> stored[kFillStepsInFlight];
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      const long long at = first + u * kWarpSize;
      if (at < end) stored[u] = row_value(csr, row, extent.begin, extent.length, at - row_first);
    }
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      const long long at = first + u * kWarpSize;
      if (at < end) store_value(csr, stored[u], out_values, out_cols, at);
    }
  }
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
    lane_row = csr.row(medium_row_ids[m]);
    const RowExtent extent = row_extent(csr, lane_row);  // CSR offsets fit 32 bits
    lane_begin = static_cast<int>(extent.begin);
    lane_length = static_cast<int>(extent.length);
    if (lane_row >= 0) lane_to = irregular_ptr[m];
  }
  for (long long first = base; first < end; first += kFillStepsInFlight * kWarpSize) {
    StoredValue<V> stored[kFillStepsInFlight];
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      if (first + u * kWarpSize >= end) break;  // warp-uniform: the shuffles have all lanes
      const long long at = first + u * kWarpSize + lane, within = at - base;
      int slot, value;
      slot_of_offset<R>(static_cast<int>(within % kBlockValuesR), column_major, slot, value);
      const int row = __shfl_sync(kAllLanes, lane_row, slot);
      const long long begin = __shfl_sync(kAllLanes, lane_begin, slot);
      const long long length = __shfl_sync(kAllLanes, lane_length, slot);
      if (at < end)
        stored[u] = row_value(csr, row, begin, length, within / kBlockValuesR * 4 + value);
    }
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      const long long at = first + u * kWarpSize + lane;
      if (at < end) store_value(csr, stored[u], regular_values, regular_cols, at);
    }
  }
  // the irregular part: lane l takes block row l % R, its values regular_per_row + l / R,
  // + kLanesPerRow, ... (most rows have a few irregular values: one round for all R rows)
  constexpr int kLanesPerRow = kWarpSize / R;
  const int slot = lane % R;
  const long long regular_per_row = (end - base) / kBlockValuesR * 4;
  const long long begin = __shfl_sync(kAllLanes, lane_begin, slot);
  const long long length = __shfl_sync(kAllLanes, lane_length, slot);
  const long long to = __shfl_sync(kAllLanes, lane_to, slot);
  for (long long first = regular_per_row + lane / R; first < length;
       first += kFillStepsInFlight * kLanesPerRow) {
    StoredValue<V> stored[kFillStepsInFlight];
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      const long long i = first + u * kLanesPerRow;
      if (i < length)
        stored[u] = {csr.values[begin + i], csr.col_idx ? csr.col_idx[begin + i] : 0};
    }
#pragma unroll
    for (int u = 0; u < kFillStepsInFlight; ++u) {
      const long long i = first + u * kLanesPerRow;
      if (i < length)
        store_value(csr, stored[u], irregular_values, irregular_cols, to + i - regular_per_row);
    }
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
  const int row = csr.row(row_ids[tile * kWarpSize + o]);
  const RowExtent extent = row_extent(csr, row);
  // the lane's positions v in [from, to) of block row `slot` from `start`: value v - from of
  // the row, all read before any is written
  int from = 0, to = 1, slot = 0;
  long long start = tile * kWarpSize + o;  // single values: position o of the tile
  if (kind == 0 || kind == 2) {  // pairs 1+3, 2+2
    const int split = kind == 0 ? 1 : 2;
    const int block = o / (2 * R), part = (o / R) % 2;
    slot = o % R;
    start = tile * 64 + static_cast<long long>(block) * kBlockValuesR;
    from = part ? split : 0;
    to = part ? 4 : split;
  } else if (kind == 1) {  // rows of 4
    const int block = o / R;
    slot = o % R;
    start = tile * 128 + static_cast<long long>(block) * kBlockValuesR;
    to = 4;
  }
  const bool in_block = kind != 3;
  StoredValue<V> stored[kDaspBlockWidth];
#pragma unroll
  for (int v = 0; v < kDaspBlockWidth; ++v)
    if (v >= from && v < to) stored[v] = row_value(csr, row, extent.begin, extent.length, v - from);
#pragma unroll
  for (int v = 0; v < kDaspBlockWidth; ++v)
    if (v >= from && v < to)
      store_value(csr, stored[v], values, cols,
                  in_block ? start + offset_of_slot<R>(slot, v, column_major) : start);
}

}  // namespace tcsparse::dasp::device
