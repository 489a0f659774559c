// CSR-Partial-Overlap (Electronics 2023) kernels: the batch-table build (§4.1.1, made parallel:
// csr_overlap_rules.hpp), the two-stage batch kernel (§4.1.2, §4.1.3) and the long-row kernels
// (§4.3). Included by csr_overlap.cu only.
//
// The matrix is the caller's CSR as it is: uploaded, with the value and column arrays allocated
// to a multiple of kCopyAlignElements (zeros after nnz), or borrowed from a DeviceCsrView
// (device_csr=borrow: exactly nnz elements). A copy rounded up to 16 elements stops at
// copy_limit (nnz for borrowed arrays; the cp.async path copies the last piece's tail with
// plain loads and zero-fills it), so that it never reads past the arrays:
//
//   row_ptr  [rows + 1]            col_idx / values [round_up(nnz, 16)] or [nnz] borrowed
//   batches  [B] int2 {begin_row, end_row}
//   long_rows [L], long_task_ptr [L + 1], long_row_tasks [T] (LongRowTask, 16 bytes),
//   long_partials [T] (Acc), T = long_task_ptr[L]
//
// Dynamic shared memory of the batch kernel, C = stage_capacity(M) = M + 32 elements a stage:
//
//   | values stage 0 (C x V) | values stage 1 (C x V) | cols stage 0 (C x int) | cols stage 1 |
//
// A batch of nonzeros [s, e) is copied from element s0 = s rounded down to 16 to e rounded up to
// 16; nonzero i of the batch sits at stage[i - s0]. Every piece is 16-byte aligned at both ends,
// in global and in shared memory, for every value type (16 elements are 32 bytes or more; C is a
// multiple of 32 elements; the arrays start at cudaMalloc or 256-byte slot boundaries), as the
// bulk copy needs (bulk_copy_layout_is_aligned, csr_overlap_rules.hpp, checks it on the host).
#pragma once

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdint>
#include <type_traits>

#include "arch/async_copy.cuh"
#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "csr_overlap/csr_overlap_rules.hpp"

namespace tcsparse::csr_overlap::device {

// ---- value types (src/arch/types.cuh) -------------------------------------------------------

template <typename V>
using Acc = arch::acc_t<V>;

template <typename V>
__device__ __forceinline__ Acc<V> to_acc(V v) {
  return arch::ValueTraits<V>::to_acc(v);
}

template <typename V>
__device__ __forceinline__ V from_acc(Acc<V> v) {
  return arch::ValueTraits<V>::from_acc(v);
}

/// y = alpha * sum + beta * y; y not read when beta == 0.
template <typename V>
__device__ __forceinline__ void store_result(V* y, std::int64_t row, Acc<V> sum, Acc<V> alpha,
                                             Acc<V> beta) {
  const Acc<V> result = beta == Acc<V>(0) ? alpha * sum : alpha * sum + beta * to_acc(y[row]);
  y[row] = from_acc<V>(result);
}

// ---- batch table build ------------------------------------------------------------------------
// (templates only: this header is included by csr_overlap.cu and csr_full_overlap.cu)
//
// The table is built in two kernels over the positions p in [0, rows] (a position a row, and
// p == rows past the last one: csr_overlap_rules.hpp says what each position adds), in tiles of
// kTableTileThreads threads x kTablePositionsPerThread positions, the host model's passes
// (csr_overlap_format.cpp build_batch_table) made parallel:
//
//   classify_rows_kernel     thread t of a tile takes positions base + j * 4 * kTableTileThreads +
//                            4t .. + 3 (j < 4: coalesced row_ptr reads): kinds[p] = row_kind(p),
//                            one byte, and the tile's TableCounts (with its longest row and its
//                            column-locality samples) into tile_counts[tile]; the last block to
//                            finish replaces tile_counts by its exclusive scan and the totals
//   (the host reads the totals, and for the rows partition allocates the table at their size)
//   scatter_table_kernel     thread t takes positions base + 16t .. base + 16t + 15 (one 16-byte
//                            load of kinds): a block scan of the threads' counts, plus the tile's
//                            prefix, numbers every position, and scatter_writes places it
//
//   kinds        [tiles x 4096] bytes (past rows: inside_batch)
//   tile_counts  [tiles + 1] TableCounts (the last: the totals, written by the scan)
//   tiles_done   one counter, zero before classify_rows_kernel
//
// A row's kind is computed once (its two 32-bit modulos are most of the work); the second pass
// reads 1 byte a position instead of the offsets. A write past the table's arrays (impossible:
// they are allocated at the totals, and the matrix is checked before the scatter) is dropped.

inline constexpr int kTableTileThreads = 256;
inline constexpr int kTablePositionsPerThread = 16;  ///< one 16-byte load of kinds
inline constexpr int kTableTilePositions = kTableTileThreads * kTablePositionsPerThread;
/// classify_rows_kernel: a thread's group of consecutive positions (their kinds one 4-byte
/// store), and the groups it takes in a tile.
inline constexpr int kTableGroupPositions = 4;
inline constexpr int kTableGroupsPerThread = kTablePositionsPerThread / kTableGroupPositions;
/// classify_rows_kernel: its launch bound, blocks an SM (at most 64 registers a thread, what the
/// classification takes; its last block's scan must not raise them), and the tile counts a
/// thread of that last block scans a round.
inline constexpr int kClassifyBlocksPerSm = 4;
inline constexpr int kTileScanCountsPerThread = 1;

static_assert(static_cast<int>(RowKind::long_row) < 256, "kinds are stored as bytes");
static_assert(kTableGroupPositions == sizeof(std::uint32_t), "a group's kinds: one 4-byte store");

/// The table's arrays as allocated (`capacity`: the totals of classify_rows_kernel, elements
/// each; long_task_ptr one more).
struct TableArrays {
  int2* batches;
  std::int32_t* long_rows;
  std::int32_t* long_task_ptr;
  LongRowTask* long_row_tasks;
  TableCapacity capacity;
};

/// What the table build reads: the offsets and the rule, and for the column-locality samples
/// the column indices (read only at offsets in [0, nnz): classify_rows_kernel may run on a CSR
/// still being checked).
struct TableInput {
  const std::int32_t* row_ptr;
  std::int64_t rows;
  PartitionRule rule;
  std::int32_t piece;  ///< long_row_piece
  const std::int32_t* col_idx;
  std::int64_t nnz;
};

struct AddTableCounts {
  __device__ TableCounts operator()(const TableCounts& a, const TableCounts& b) const {
    return a + b;
  }
};

/// tile_counts[tile] as another block of the same launch wrote it (before its __threadfence):
/// each field through L2, past this SM's L1.
__device__ __forceinline__ TableCounts load_tile_counts(const TableCounts* tile_counts,
                                                        std::int64_t tile) {
  const TableCounts* counts = tile_counts + tile;
  TableCounts loaded;
  loaded.batches = arch::load_bypassing_l1(&counts->batches);
  loaded.long_rows = arch::load_bypassing_l1(&counts->long_rows);
  loaded.long_tasks = arch::load_bypassing_l1(&counts->long_tasks);
  loaded.longest_row = arch::load_bypassing_l1(&counts->longest_row);
  loaded.locality_samples = arch::load_bypassing_l1(&counts->locality_samples);
  loaded.near_samples = arch::load_bypassing_l1(&counts->near_samples);
  return loaded;
}

/// By the last classify block, all kThreads threads: tile_counts[0, tiles) replaced by its
/// exclusive scan, kTileScanCountsPerThread consecutive counts a thread, a round at a time, and
/// tile_counts[tiles] set to their total: the table's totals (positions from rows on add
/// nothing) with the longest row and the column-locality samples.
/// Not inlined: a scan of 32-byte counts needs more registers than the classification, and
/// inlined it raised the whole kernel's from 62 to 108 (two blocks an SM instead of four, and
/// twice the waves); called, only the last block pays, with a few spills.
template <int kThreads>
__device__ __noinline__ void scan_tile_counts(
    TableCounts* tile_counts, std::int64_t tiles,
    typename cub::BlockScan<TableCounts, kThreads>::TempStorage& scan_storage) {
  using BlockScan = cub::BlockScan<TableCounts, kThreads>;
  constexpr int kCounts = kTileScanCountsPerThread;
  TableCounts carried;
  for (std::int64_t round = 0; round < tiles; round += kThreads * kCounts) {
    const std::int64_t first = round + static_cast<std::int64_t>(threadIdx.x) * kCounts;
    TableCounts counts[kCounts], mine;
#pragma unroll
    for (int k = 0; k < kCounts; ++k) {
      counts[k] = first + k < tiles ? load_tile_counts(tile_counts, first + k) : TableCounts{};
      mine = mine + counts[k];
    }
    TableCounts before, round_total;
    BlockScan(scan_storage).ExclusiveScan(mine, before, TableCounts{}, AddTableCounts{},
                                          round_total);
    before = before + carried;
#pragma unroll
    for (int k = 0; k < kCounts; ++k) {
      if (first + k < tiles) tile_counts[first + k] = before;
      before = before + counts[k];
    }
    carried = carried + round_total;
    __syncthreads();  // scan_storage is reused by the next round
  }
  if (threadIdx.x == 0) tile_counts[tiles] = carried;
}

/// Pass 1: a tile a block, thread t taking kTableGroupsPerThread groups of 4 consecutive
/// positions, group j at base + j * 4 * kThreads + 4t (a warp's group: 128 consecutive positions,
/// their kinds one 4-byte store a lane). Every offset the groups need is loaded before the first
/// is classified: row_ptr[p .. p + 3] by the lane, row_ptr[p - 1] and row_ptr[p + 4] from the
/// lanes beside it (lanes 0 and 31 load their own). The block that finishes last (its ticket
/// from *tiles_done, zero before the launch) then scans every block's counts (scan_tile_counts):
/// one launch for the whole pass, whose totals the host reads.
template <int kThreads = kTableTileThreads>
__global__ void __launch_bounds__(kThreads, kClassifyBlocksPerSm)
    classify_rows_kernel(TableInput in, std::uint8_t* __restrict__ kinds,
                         TableCounts* __restrict__ tile_counts, unsigned* __restrict__ tiles_done) {
  using BlockReduce = cub::BlockReduce<TableCounts, kThreads>;
  using BlockScan = cub::BlockScan<TableCounts, kThreads>;
  __shared__ union {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } storage;
  __shared__ bool last_block;
  constexpr int kGroups = kTableGroupsPerThread;
  // 32-bit positions (rows < 2^31 - 2048, kTableTilePositions-aligned): fewer instructions
  const int lane = static_cast<int>(threadIdx.x % arch::kWarpSize);
  const std::uint32_t row_count = static_cast<std::uint32_t>(in.rows);
  constexpr int kGroup = kTableGroupPositions;
  const std::uint32_t first = blockIdx.x * kTableTilePositions + kGroup * threadIdx.x;
  // row_ptr[r] for r <= rows, else 0 (r = 0 - 1 wraps past rows)
  const auto offset_at = [&](std::uint32_t r) { return r <= row_count ? in.row_ptr[r] : 0; };
  std::int32_t offset[kGroups][kGroup + 2];  // row_ptr[p - 1 .. p + kGroup] of group p
#pragma unroll
  for (int j = 0; j < kGroups; ++j) {
    const std::uint32_t p = first + j * kGroup * kThreads;
#pragma unroll
    for (int i = 0; i < kGroup; ++i) offset[j][i + 1] = offset_at(p + i);
    offset[j][0] = lane == 0 ? offset_at(p - 1) : 0;
    offset[j][kGroup + 1] = lane == arch::kWarpSize - 1 ? offset_at(p + kGroup) : 0;
  }
  TableCounts mine;
#pragma unroll
  for (int j = 0; j < kGroups; ++j) {
    const std::uint32_t p = first + j * kGroup * kThreads;
    const std::int32_t before = __shfl_up_sync(arch::kFullMask, offset[j][kGroup], 1);
    const std::int32_t after = __shfl_down_sync(arch::kFullMask, offset[j][1], 1);
    if (lane != 0) offset[j][0] = before;
    if (lane != arch::kWarpSize - 1) offset[j][kGroup + 1] = after;
    std::uint32_t packed_kinds = 0;
#pragma unroll
    for (int i = 0; i < kGroup; ++i) {
      const RowOffsets o{offset[j][i], offset[j][i + 1], offset[j][i + 2]};
      const RowKind kind = row_kind(p + i, in.rows, o, in.rule);  // past rows: inside_batch
      packed_kinds |= static_cast<std::uint32_t>(kind) << (8 * i);
      if (kind != RowKind::inside_batch) mine = mine + row_counts(kind, o.end - o.start, in.piece);
      if (p + i < row_count) mine.longest_row = max(mine.longest_row, o.end - o.start);
    }
    // samples are multiples of kLocalitySampleRows: the first position of a group, if any
    const RowOffsets o{offset[j][0], offset[j][1], offset[j][2]};
    if (is_locality_sample(p, in.rows, o) && o.previous_start >= 0 && o.start < in.nnz) {
      ++mine.locality_samples;
      if (first_columns_near(in.col_idx[o.previous_start], in.col_idx[o.start]))
        ++mine.near_samples;
    }
    *reinterpret_cast<std::uint32_t*>(kinds + p) = packed_kinds;  // little-endian: kinds[p + i]
  }
  const TableCounts tile = BlockReduce(storage.reduce).Reduce(mine, AddTableCounts{});
  if (threadIdx.x == 0) {
    tile_counts[blockIdx.x] = tile;
    __threadfence();  // the counts before the ticket
    last_block = atomicAdd(tiles_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last_block) return;
  __threadfence();  // every block's counts, seen through L2 (load_tile_counts)
  scan_tile_counts<kThreads>(tile_counts, gridDim.x, storage.scan);
}

/// Pass 2: a tile a block. Writes the batches' ends and starts, the long rows, their first tasks
/// and their tasks, and at p == rows the end of long_task_ptr. Its three loads
/// (the thread's kinds, the kind before them, the tile's prefix) are issued together, then the
/// offsets of its long rows, all at once: the writes that follow load nothing (pruned_16k's four
/// tiles of long rows, H200 under Nsight Compute: 20 us with each row's offsets loaded where
/// used, 17 us now; its threads write one long row after another).
template <int kThreads = kTableTileThreads>
__global__ void __launch_bounds__(kThreads)
    scatter_table_kernel(TableInput in, const std::uint8_t* __restrict__ kinds,
                         const TableCounts* __restrict__ tile_prefix, TableArrays out) {
  using BlockScan = cub::BlockScan<TableCounts, kThreads>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  constexpr int kPositions = kTablePositionsPerThread;
  // 32-bit positions, as in classify_rows_kernel
  const std::uint32_t row_count = static_cast<std::uint32_t>(in.rows);
  const std::uint32_t first = blockIdx.x * kTableTilePositions + threadIdx.x * kPositions;
  union {
    uint4 vector;
    std::uint8_t bytes[kPositions];
  } mine_kinds;
  mine_kinds.vector = *reinterpret_cast<const uint4*>(kinds + first);
  RowKind previous = first > 0 ? static_cast<RowKind>(kinds[first - 1]) : RowKind::inside_batch;
  const TableCounts tile_before = tile_prefix[blockIdx.x];
  RowKind kind[kPositions];
  std::int32_t row_begin[kPositions], row_end[kPositions];  // of the long rows
#pragma unroll
  for (int k = 0; k < kPositions; ++k) {
    kind[k] = static_cast<RowKind>(mine_kinds.bytes[k]);
    const bool long_row = kind[k] == RowKind::long_row;
    row_begin[k] = long_row ? in.row_ptr[first + k] : 0;
    row_end[k] = long_row ? in.row_ptr[first + k + 1] : 0;
  }
  // position k's counts (past rows: none), computed where needed rather than kept
  const auto counts_at = [&](int k) {
    return row_counts(kind[k], row_end[k] - row_begin[k], in.piece);
  };
  TableCounts mine;
#pragma unroll
  for (int k = 0; k < kPositions; ++k) mine = mine + counts_at(k);
  TableCounts before;
  BlockScan(scan_storage).ExclusiveScan(mine, before, TableCounts{}, AddTableCounts{});
  before = before + tile_before;
  const TableCapacity& capacity = out.capacity;
#pragma unroll
  for (int k = 0; k < kPositions; ++k) {
    const std::uint32_t p = first + k;
    if (kind[k] == RowKind::inside_batch && p != row_count) {  // most rows: nothing to write
      previous = kind[k];
      continue;
    }
    if (p > row_count) break;
    if (p == row_count && before.long_rows <= capacity.long_rows)
      out.long_task_ptr[before.long_rows] = static_cast<std::int32_t>(before.long_tasks);
    const ScatterWrites w = scatter_writes(p, in.rows, kind[k], previous, before);
    const auto row = static_cast<std::int32_t>(p);
    if (w.begin_index >= 0 && w.begin_index < capacity.batches) out.batches[w.begin_index].x = row;
    if (w.end_index >= 0 && w.end_index < capacity.batches) out.batches[w.end_index].y = row;
    if (w.long_index >= 0 && w.long_index < capacity.long_rows) {
      out.long_rows[w.long_index] = row;
      out.long_task_ptr[w.long_index] = static_cast<std::int32_t>(w.long_first_task);
      const auto pieces = static_cast<std::int32_t>(counts_at(k).long_tasks);
      // (bounded by the capacity too, as every write here)
      for (std::int32_t index = 0;
           index < pieces && w.long_first_task + index < capacity.long_tasks; ++index)
        out.long_row_tasks[w.long_first_task + index] =
            long_row_task(row, row_begin[k], row_end[k], index, pieces, in.piece);
    }
    before = before + counts_at(k);
    previous = kind[k];
  }
}

// ---- the batch kernel -------------------------------------------------------------------------

/// Products a thread has in flight in the dot-product loops (the column indices, then the x
/// gathers, then the values of kUnroll nonzeros before the first multiply-add). The sum is added
/// in the same order as a plain loop, so the host model does not see it.
inline constexpr int kUnroll = 4;

/// sum over i = first, first + stride, ... < end of values[i] * x[cols[i]] in this order; values
/// and cols in shared memory (a stage), x through the read-only path.
template <typename V>
__device__ __forceinline__ Acc<V> dot_from_stage(const V* __restrict__ values,
                                                 const std::int32_t* __restrict__ cols,
                                                 std::int32_t first, std::int32_t end, int stride,
                                                 const V* __restrict__ x) {
  Acc<V> sum = 0;
  std::int32_t i = first;
  for (; i + (kUnroll - 1) * stride < end; i += kUnroll * stride) {
    std::int32_t c[kUnroll];
    V xv[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) c[u] = cols[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) xv[u] = arch::load_read_only(x + c[u]);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += to_acc(values[i + u * stride]) * to_acc(xv[u]);
  }
  for (; i < end; i += stride)
    sum += to_acc(values[i]) * to_acc(arch::load_read_only(x + cols[i]));
  return sum;
}

/// BatchArguments::copy_limit of arrays padded wherever a copy may end.
inline constexpr std::int64_t kPaddedArrays = INT64_MAX;

template <typename V>
struct BatchArguments {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;  ///< copy_limit elements readable
  const V* values;              ///< copy_limit elements readable
  /// Elements of col_idx and values a copy may read: round_up(nnz, 16) where the plan allocated
  /// them (kPaddedArrays where each piece is padded, as csr_full_overlap's slots), nnz where it
  /// borrows the caller's (cp_async copies only).
  std::int64_t copy_limit;
  const int2* batches;
  std::int32_t batch_count;
  std::int32_t batches_per_block;
  std::int32_t stage_capacity;  ///< C, elements a stage
  std::int32_t stages;          ///< S, 2..kLargestPipelineStages
  std::int32_t warp_row_capacity;  ///< entries of the warp-pass list (warp_row_capacity())
  /// batch_unit=warp: ints of a warp stage's row offsets and header (warp_stage_offsets()).
  std::int32_t stage_offsets;
  VectorSizeRule vector_sizes;
};

/// What the batch kernel keeps in static shared memory besides the stages.
template <typename V>
struct BatchShared {
  Acc<V> warp_sums[32];  ///< group mode: one a warp
  int warp_row_count[2];  ///< the warp-pass list's length, by the parity of the batch
};

/// One batch from shared memory (paper Alg. 5), vector size kVector: vector v = threadIdx.x /
/// kVector takes rows begin + v, begin + v + vectors, ...; lane l of it the row's nonzeros l,
/// l + kVector, ... . The row loop runs per warp (its condition is the same for every lane of a
/// warp), so every lane reaches the shuffles. A row longer than warp_row_length (> 0) is not
/// computed here: lane 0 of its vector appends it to warp_rows (the warp pass takes it). Returns
/// whether this thread appended a row.
template <int kVector, typename V>
__device__ __forceinline__ bool compute_batch(const std::int32_t* __restrict__ row_ptr,
                                              std::int32_t begin_row, std::int32_t end_row,
                                              std::int32_t copy_first,
                                              const V* __restrict__ stage_values,
                                              const std::int32_t* __restrict__ stage_cols,
                                              const V* __restrict__ x, V* __restrict__ y,
                                              Acc<V> alpha, Acc<V> beta,
                                              std::int32_t warp_row_length,
                                              std::int32_t* __restrict__ warp_rows,
                                              int* warp_row_count, std::int32_t capacity) {
  constexpr int kVectorsPerWarp = 32 / kVector;
  const int vectors = static_cast<int>(blockDim.x) / kVector;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane_in_warp = static_cast<int>(threadIdx.x) % 32;
  const int lane = lane_in_warp % kVector;
  const int vector_in_warp = lane_in_warp / kVector;
  bool appended = false;
  for (std::int32_t first = begin_row + warp * kVectorsPerWarp; first < end_row;
       first += vectors) {
    const std::int32_t row = first + vector_in_warp;
    Acc<V> sum = 0;
    bool mine = false;
    if (row < end_row) {
      const std::int32_t start = arch::load_read_only(row_ptr + row) - copy_first;
      const std::int32_t end = arch::load_read_only(row_ptr + row + 1) - copy_first;
      if (warp_row_length > 0 && end - start > warp_row_length) {
        if (lane == 0) {
          const int slot = atomicAdd(warp_row_count, 1);
          if (slot >= capacity) __trap();  // cannot happen: warp_row_capacity() bounds it
          warp_rows[slot] = row;
          appended = true;
        }
      } else {
        mine = true;
        sum = dot_from_stage(stage_values, stage_cols, start + lane, end, kVector, x);
      }
    }
    sum = arch::group_sum<kVector>(sum);
    if (mine && lane == 0) store_result(y, row, sum, alpha, beta);
  }
  return appended;
}

/// The warp pass: warp w takes the listed rows w, w + warps, ...; lane l the row's nonzeros l,
/// l + 32, ... (the vector-size-32 walk).
template <typename V>
__device__ __forceinline__ void compute_warp_rows(const std::int32_t* __restrict__ row_ptr,
                                                  const std::int32_t* warp_rows, int count,
                                                  std::int32_t copy_first,
                                                  const V* __restrict__ stage_values,
                                                  const std::int32_t* __restrict__ stage_cols,
                                                  const V* __restrict__ x, V* __restrict__ y,
                                                  Acc<V> alpha, Acc<V> beta) {
  const int warps = static_cast<int>(blockDim.x) / 32;
  const int lane = arch::lane_id();
  for (int j = arch::warp_id_in_block(); j < count; j += warps) {
    const std::int32_t row = warp_rows[j];
    const std::int32_t start = arch::load_read_only(row_ptr + row) - copy_first;
    const std::int32_t end = arch::load_read_only(row_ptr + row + 1) - copy_first;
    Acc<V> sum = dot_from_stage(stage_values, stage_cols, start + lane, end, 32, x);
    sum = arch::warp_sum(sum);
    if (lane == 0) store_result(y, row, sum, alpha, beta);
  }
}

/// Group mode (width > 32 threads a row): group g = threadIdx.x / width takes row begin + g (the
/// batch has at most blockDim.x / width rows); thread t of the group the row's nonzeros t,
/// t + width, ...; warp sums; then the group's first thread adds its warps' sums in order.
/// Contains a __syncthreads: called by the whole block.
template <typename V>
__device__ __forceinline__ void compute_batch_groups(const std::int32_t* __restrict__ row_ptr,
                                                     std::int32_t begin_row, std::int32_t end_row,
                                                     std::int32_t copy_first, int width,
                                                     const V* __restrict__ stage_values,
                                                     const std::int32_t* __restrict__ stage_cols,
                                                     const V* __restrict__ x, V* __restrict__ y,
                                                     Acc<V> alpha, Acc<V> beta,
                                                     Acc<V>* warp_sums) {
  const int group = static_cast<int>(threadIdx.x) / width;
  const int thread = static_cast<int>(threadIdx.x) % width;
  const std::int32_t row = begin_row + group;
  Acc<V> sum = 0;
  if (row < end_row) {
    const std::int32_t start = arch::load_read_only(row_ptr + row) - copy_first;
    const std::int32_t end = arch::load_read_only(row_ptr + row + 1) - copy_first;
    sum = dot_from_stage(stage_values, stage_cols, start + thread, end, width, x);
  }
  sum = arch::warp_sum(sum);
  if (arch::lane_id() == 0) warp_sums[arch::warp_id_in_block()] = sum;
  __syncthreads();
  if (thread == 0 && row < end_row) {
    const int first_warp = group * (width / 32);
    Acc<V> total = 0;
    for (int w = 0; w < width / 32; ++w) total += warp_sums[first_warp + w];
    store_result(y, row, total, alpha, beta);
  }
}

extern __shared__ __align__(16) unsigned char csr_overlap_shared[];

/// copy=cp_async. Starts the copies of batch `index` of this block into `stage` (the whole block takes part) and
/// commits them as this thread's next group (an empty group past the block's batches, so that
/// every thread commits the same number of groups).
template <typename V>
__device__ __forceinline__ void fetch_batch_cp_async(const BatchArguments<V>& a, std::int64_t first_batch,
                                            int index, int count, int stage, V* shared_values,
                                            std::int32_t* shared_cols) {
  if (index < count) {
    const int2 batch = a.batches[first_batch + index];
    const std::int64_t begin = copy_begin(arch::load_read_only(a.row_ptr + batch.x));
    const std::int64_t end = copy_end(arch::load_read_only(a.row_ptr + batch.y));
    const std::int64_t elements = (end < a.copy_limit ? end : a.copy_limit) - begin;
    if (elements > a.stage_capacity) __trap();  // a partition bug: never overrun the stage
    const std::size_t offset = static_cast<std::size_t>(stage) * a.stage_capacity;
    const int thread = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
    arch::async_copy_bytes(shared_values + offset, a.values + begin,
                           static_cast<int>(elements * static_cast<std::int64_t>(sizeof(V))),
                           thread, threads);
    arch::async_copy_bytes(shared_cols + offset, a.col_idx + begin,
                           static_cast<int>(elements * static_cast<std::int64_t>(sizeof(std::int32_t))),
                           thread, threads);
  }
  arch::async_copy_commit();
}

/// The bulk copy's mbarriers, one a stage: a phase of barrier s completes when the copies of
/// the batch fetched into stage s have landed. Static shared memory of the bulk build only (the
/// cp_async build never calls this, so it does not hold them).
__device__ __forceinline__ std::uint64_t* stage_full_barriers() {
  __shared__ std::uint64_t barriers[kLargestPipelineStages];
  return barriers;
}

/// copy=bulk (sm_90). Thread 0 announces the bytes of batch `index` on the stage's barrier
/// (its one arrival of the phase) and starts the two bulk copies, values and columns, that
/// complete them; the other threads do nothing here. Past the block's batches nothing happens
/// (no thread will wait for that phase). A batch of empty rows only (nothing to copy) completes
/// its phase by the arrival alone.
template <typename V>
__device__ __forceinline__ void fetch_batch_bulk(const BatchArguments<V>& a,
                                                 std::int64_t first_batch, int index, int count,
                                                 int stage, V* shared_values,
                                                 std::int32_t* shared_cols) {
  if (threadIdx.x != 0 || index >= count) return;
  const int2 batch = a.batches[first_batch + index];
  const std::int64_t begin = copy_begin(arch::load_read_only(a.row_ptr + batch.x));
  const std::int64_t end = copy_end(arch::load_read_only(a.row_ptr + batch.y));
  const std::int64_t elements = end - begin;
  if (elements > a.stage_capacity) __trap();  // a partition bug: never overrun the stage
  if (end > a.copy_limit) __trap();  // borrowed arrays are never bulk-copied (device_csr)
  const std::size_t offset = static_cast<std::size_t>(stage) * a.stage_capacity;
  const auto value_bytes = static_cast<unsigned>(elements * static_cast<std::int64_t>(sizeof(V)));
  const auto col_bytes =
      static_cast<unsigned>(elements * static_cast<std::int64_t>(sizeof(std::int32_t)));
  std::uint64_t* const barrier = stage_full_barriers() + stage;
  arch::barrier_arrive_expect_bytes(barrier, value_bytes + col_bytes);
  if (elements > 0) {
    // the block's reads of the stage's previous batch (ordered before this by the kernel's
    // __syncthreads) come before the bulk copies overwrite it
    arch::fence_shared_before_bulk_copy();
    arch::bulk_copy_to_shared(shared_values + offset, a.values + begin, value_bytes, barrier);
    arch::bulk_copy_to_shared(shared_cols + offset, a.col_idx + begin, col_bytes, barrier);
  }
}

template <CopyMechanism kCopy, typename V>
__device__ __forceinline__ void fetch_batch(const BatchArguments<V>& a, std::int64_t first_batch,
                                            int index, int count, int stage, V* shared_values,
                                            std::int32_t* shared_cols) {
  if constexpr (kCopy == CopyMechanism::bulk)
    fetch_batch_bulk(a, first_batch, index, count, stage, shared_values, shared_cols);
  else
    fetch_batch_cp_async(a, first_batch, index, count, stage, shared_values, shared_cols);
}

/// The largest block the batch kernel takes.
inline constexpr int kLargestBatchBlock = 1024;

/// Paper Alg. 4 with S = a.stages shared-memory stages: block k takes batches
/// [k * batches_per_block, ...) in order; the values and columns of batches n + 1 .. n + S - 1
/// are being copied (kCopy: cp.async, 16-byte pieces, L2 only; or bulk copies on a barrier a
/// stage, see below) while batch n is computed. One
/// __syncthreads a batch: it makes batch n's stage visible to every thread and tells that every
/// thread is done with batch n - 1, whose stage then takes batch n + S - 1. With S = 1 a batch is
/// copied, waited for and computed in turn (a second barrier before the next copy); the copies
/// then overlap only the other resident blocks' work. Built for blocks of at most kMaxThreads
/// threads with kMinBlocks of them resident an SM (which bounds its registers:
/// csr_overlap_launch.cuh picks the build). Launched with
/// blockDim.x a multiple of 32 and S * C * (sizeof(V) + 4) + 4 * warp_row_capacity bytes of dynamic
/// shared memory.
///
/// Bulk copies (kCopy == bulk): batch n goes to stage n % S, and stage s holds batches s, s + S,
/// s + 2S, ... in this order, each completing one phase of barrier s. So batch n is phase n / S
/// of its barrier and its waiters ask for parity (n / S) & 1; no per-stage state is kept. The
/// parity alone is unambiguous because a barrier is never two phases ahead of a waiter: batch
/// n + S is fetched into the stage only after the barrier at the top of iteration n + 1, which
/// every thread passes after its wait for batch n. Time line for S = 2 ("|": the loop's
/// __syncthreads; fN: thread 0 arrives on the stage's barrier with batch N's bytes and starts its
/// copies, whose landing completes the phase):
///
///   iteration   all threads wait for       |  thread 0 then fetches      all compute
///   prologue                               |  f0 -> stage 0, phase 0
///   n = 0       barrier 0, parity 0 (f0)   |  f1 -> stage 1, phase 0     batch 0
///   n = 1       barrier 1, parity 0 (f1)   |  f2 -> stage 0, phase 1     batch 1
///   n = 2       barrier 0, parity 1 (f2)   |  f3 -> stage 1, phase 1     batch 2
///   n = 3       barrier 1, parity 1 (f3)   |  f4 -> stage 0, phase 2     batch 3
///   n = 4       barrier 0, parity 0 (f4)   |  ...
///
/// f2 overwrites stage 0 only after the "|" of n = 1, when every thread is done with batch 0.
/// With S = 1 every batch is fetched at the top of its own iteration (after the closing barrier
/// of the previous one) into stage 0 and waited for with parity n & 1.
template <typename V, int kMaxThreads, int kMinBlocks, CopyMechanism kCopy>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks)
    batch_kernel(const BatchArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                 Acc<V> alpha, Acc<V> beta) {
  const std::int64_t first_batch = static_cast<std::int64_t>(blockIdx.x) * a.batches_per_block;
  const std::int64_t remaining = static_cast<std::int64_t>(a.batch_count) - first_batch;
  if (remaining <= 0) return;  // the whole block: before any barrier
  const int count = static_cast<int>(remaining < a.batches_per_block ? remaining
                                                                     : a.batches_per_block);
  const std::int32_t capacity = a.stage_capacity;
  const int stages = a.stages;
  V* const shared_values = reinterpret_cast<V*>(csr_overlap_shared);
  std::int32_t* const shared_cols = reinterpret_cast<std::int32_t*>(
      csr_overlap_shared + static_cast<std::size_t>(stages) * capacity * sizeof(V));
  std::int32_t* const warp_rows = shared_cols + static_cast<std::size_t>(stages) * capacity;
  __shared__ BatchShared<V> shared;

  if (threadIdx.x == 0) shared.warp_row_count[0] = 0;  // ordered by the first loop barrier
  if constexpr (kCopy == CopyMechanism::bulk) {
    // one arrival a phase (thread 0's, with the bytes); every thread sees them initialised
    if (threadIdx.x == 0)
      for (int s = 0; s < stages; ++s) arch::barrier_init(stage_full_barriers() + s, 1);
    __syncthreads();
  }
  for (int n = 0; n < stages - 1; ++n)
    fetch_batch<kCopy>(a, first_batch, n, count, n, shared_values, shared_cols);

  for (int n = 0; n < count; ++n) {
    // one stage: batch n is copied only now (the previous batch's closing barrier freed it)
    if (stages == 1) fetch_batch<kCopy>(a, first_batch, n, count, 0, shared_values, shared_cols);
    if constexpr (kCopy == CopyMechanism::bulk) {
      // batch n is phase n / S of its stage's barrier (the time line above)
      arch::barrier_wait(stage_full_barriers() + n % stages, static_cast<unsigned>(n / stages) & 1u);
    } else {
      // batch n's group is done when at most S - 2 newer ones are in flight
      switch (stages) {
        case 1:
        case 2: arch::async_copy_wait<0>(); break;
        case 3: arch::async_copy_wait<1>(); break;
        default: arch::async_copy_wait<2>(); break;
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) shared.warp_row_count[(n + 1) & 1] = 0;  // batch n + 1's list
    if (stages > 1)
      fetch_batch<kCopy>(a, first_batch, n + stages - 1, count, (n + stages - 1) % stages, shared_values,
                  shared_cols);

    const int2 batch = a.batches[first_batch + n];
    const std::int32_t first_nonzero = arch::load_read_only(a.row_ptr + batch.x);
    const auto copy_first = static_cast<std::int32_t>(copy_begin(first_nonzero));
    const int stage = n % stages;
    const V* values = shared_values + static_cast<std::size_t>(stage) * capacity;
    const std::int32_t* cols = shared_cols + static_cast<std::size_t>(stage) * capacity;
    const BatchMode mode =
        batch_mode(arch::load_read_only(a.row_ptr + batch.y) - first_nonzero, batch.y - batch.x,
                   a.vector_sizes, static_cast<int>(blockDim.x));
    int* const list_count = &shared.warp_row_count[n & 1];
    bool appended = false;
    switch (mode.width) {
      case 1: appended = compute_batch<1>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, mode.warp_row_length, warp_rows, list_count, a.warp_row_capacity); break;
      case 2: appended = compute_batch<2>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, mode.warp_row_length, warp_rows, list_count, a.warp_row_capacity); break;
      case 4: appended = compute_batch<4>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, mode.warp_row_length, warp_rows, list_count, a.warp_row_capacity); break;
      case 8: appended = compute_batch<8>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, mode.warp_row_length, warp_rows, list_count, a.warp_row_capacity); break;
      case 16: appended = compute_batch<16>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, mode.warp_row_length, warp_rows, list_count, a.warp_row_capacity); break;
      case 32: compute_batch<32>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta, 0, warp_rows, list_count, a.warp_row_capacity); break;
      default:
        compute_batch_groups(a.row_ptr, batch.x, batch.y, copy_first, mode.width, values, cols, x,
                             y, alpha, beta, shared.warp_sums);
        break;
    }
    // the warp pass, only in batches that may have left rows to it (a block-uniform condition)
    if (mode.warp_row_length > 0 && __syncthreads_or(appended ? 1 : 0))
      compute_warp_rows(a.row_ptr, warp_rows, *list_count, copy_first, values, cols, x, y, alpha,
                        beta);
    if (stages == 1 && n + 1 < count) __syncthreads();  // every thread done with the one stage
  }
  // no copy outlives the block: the empty tail groups of cp.async (every bulk copy was a batch's,
  // and every batch was waited for)
  if constexpr (kCopy == CopyMechanism::cp_async) arch::async_copy_wait<0>();
}

// ---- the warp-batch kernel (batch_unit=warp) -------------------------------------------------
//
// A warp owns S = a.stages stages of its own; dynamic shared memory, warp after warp:
//
//   warp 0: | values: S x C x V | columns: S x C x int | offsets: S x O x int | warp 1: ...
//
// with C = stage_capacity(M) and O = warp_stage_offsets(R). A stage's offsets are a header
// {begin_row, end_row, copy_first, -} and then row_ptr[begin_row .. end_row] of its batch, so the
// warp reads every row's extent from shared memory too. Warp g of the grid (one wave) takes
// batches g, g + warps, ...: at the top of its n-th batch it starts the copies of its batch
// n + S - 1 into the stage that batch n - 1 freed, waits for batch n's copies (cp.async groups:
// one a batch, empty past the warp's last) and computes batch n in two steps: every product
// values[i] * x[cols[i]], nonzero-parallel with all its gathers in flight, written in place into
// the stage (stage_products), then the row sums from the products; only __syncwarp orders the
// lanes, so no warp waits for another.

/// A warp's view of one of its stages.
template <typename V>
struct WarpStage {
  V* values;
  std::int32_t* cols;
  std::int32_t* offsets;  ///< kWarpStageHeader ints, then the batch's row offsets
};

/// Where a batch lies: its rows and its nonzeros.
struct BatchExtent {
  std::int32_t begin_row, end_row, first_nonzero, end_nonzero;
};

/// Lane i of the warp reads the extent of its batch number window_start + i (of the warp's
/// batches g, g + warps, ...) in one go, so that a fetch needs no dependent global load: every
/// 32 batches, two round trips (the table, then the row offsets) instead of two a batch.
__device__ __forceinline__ BatchExtent load_extent_window(const int2* __restrict__ batches,
                                                         const std::int32_t* __restrict__ row_ptr,
                                                         std::int64_t first, std::int64_t warps,
                                                         int count, int window_start) {
  BatchExtent extent{0, 0, 0, 0};
  const int k = window_start + arch::lane_id();
  if (k < count) {
    const int2 batch = arch::load_read_only(batches + first + k * warps);
    extent = {batch.x, batch.y, arch::load_read_only(row_ptr + batch.x),
              arch::load_read_only(row_ptr + batch.y)};
  }
  return extent;
}

__device__ __forceinline__ BatchExtent extent_from_lane(const BatchExtent& e, int lane) {
  return {__shfl_sync(arch::kFullMask, e.begin_row, lane),
          __shfl_sync(arch::kFullMask, e.end_row, lane),
          __shfl_sync(arch::kFullMask, e.first_nonzero, lane),
          __shfl_sync(arch::kFullMask, e.end_nonzero, lane)};
}

/// The whole warp starts the copies of one batch into `stage` (values and columns in 16-byte
/// pieces, row offsets 4 bytes each; lane 0 writes the header) and commits them as each lane's
/// next group; with no batch (past the warp's last) only an empty group.
template <typename V>
__device__ __forceinline__ void fetch_warp_batch(const BatchArguments<V>& a, bool has_batch,
                                                 const BatchExtent& e, const WarpStage<V>& stage) {
  if (has_batch) {
    const int lane = arch::lane_id();
    const std::int64_t begin = copy_begin(e.first_nonzero);
    const std::int64_t end = copy_end(e.end_nonzero);
    const std::int64_t elements = (end < a.copy_limit ? end : a.copy_limit) - begin;
    if (elements > a.stage_capacity) __trap();  // a partition bug: never overrun the stage
    const int rows = e.end_row - e.begin_row;
    if (rows + 1 + kWarpStageHeader > a.stage_offsets) __trap();  // more rows than max_batch_rows
    const auto count = static_cast<int>(elements);
    arch::async_copy_bytes(stage.values, a.values + begin, count * static_cast<int>(sizeof(V)),
                           lane, arch::kWarpSize);
    arch::async_copy_bytes(stage.cols, a.col_idx + begin,
                           count * static_cast<int>(sizeof(std::int32_t)), lane, arch::kWarpSize);
    for (int i = lane; i <= rows; i += arch::kWarpSize)
      arch::async_copy<4>(stage.offsets + kWarpStageHeader + i, a.row_ptr + e.begin_row + i);
    if (lane == 0) {
      stage.offsets[0] = e.begin_row;
      stage.offsets[1] = e.end_row;
      stage.offsets[2] = static_cast<std::int32_t>(begin);
    }
  }
  arch::async_copy_commit();
}

/// Products a lane of a warp batch has in flight: its x gathers of a whole batch of up to
/// 8 x 32 nonzeros are issued together, so that a batch costs one gather latency, not one a
/// loop trip of a row's walk (stencil rows of 27 nonzeros took four such trips a batch).
inline constexpr int kWarpProductsInFlight = 8;

/// Where a warp stage's products go, in place: over the values when the accumulator has their
/// size (fp64, fp32), over the column indices otherwise (fp16 / bf16 with fp32 products). Each
/// element is read and then overwritten by one lane only.
template <typename V>
__device__ __forceinline__ Acc<V>* stage_products(const WarpStage<V>& stage) {
  if constexpr (sizeof(Acc<V>) == sizeof(V)) {
    return reinterpret_cast<Acc<V>*>(stage.values);
  } else {
    static_assert(sizeof(Acc<V>) == sizeof(std::int32_t), "products replace the columns");
    return reinterpret_cast<Acc<V>*>(stage.cols);
  }
}

/// The first step of a warp batch, nonzero-parallel: products[i] = values[i] * x[cols[i]] for
/// the stage elements [first, end) of the batch's nonzeros, lane l taking l, l + 32, ..., with
/// kWarpProductsInFlight gathers in flight (a lane past `end` reads x[0], a batch with nonzeros
/// has columns, and writes nothing).
template <typename V>
__device__ __forceinline__ void multiply_stage(const WarpStage<V>& stage, std::int32_t first,
                                               std::int32_t end, const V* __restrict__ x) {
  constexpr int kStep = kWarpProductsInFlight * arch::kWarpSize;
  Acc<V>* const products = stage_products(stage);
  for (std::int32_t base = first + arch::lane_id(); base < end; base += kStep) {
    std::int32_t c[kWarpProductsInFlight];
    V xv[kWarpProductsInFlight], v[kWarpProductsInFlight];
#pragma unroll
    for (int u = 0; u < kWarpProductsInFlight; ++u) {
      const std::int32_t i = base + u * arch::kWarpSize;
      c[u] = i < end ? stage.cols[i] : 0;
      v[u] = i < end ? stage.values[i] : V(0);
    }
#pragma unroll
    for (int u = 0; u < kWarpProductsInFlight; ++u) xv[u] = arch::load_read_only(x + c[u]);
#pragma unroll
    for (int u = 0; u < kWarpProductsInFlight; ++u) {
      const std::int32_t i = base + u * arch::kWarpSize;
      if (i < end) products[i] = to_acc(v[u]) * to_acc(xv[u]);
    }
  }
}

/// sum over i = first, first + stride, ... < end of products[i], in this order.
template <typename T>
__device__ __forceinline__ T sum_strided(const T* products, std::int32_t first, std::int32_t end,
                                         int stride) {
  T sum = 0;
  for (std::int32_t i = first; i < end; i += stride) sum += products[i];
  return sum;
}

/// The second step, the row sums from the products, vector size kVector (<= 32): vector
/// v = lane / kVector takes rows begin + v, begin + v + 32 / kVector, ...; lane l of it the row's
/// products l, l + kVector, ... (the order of the block unit's walk). A row longer than
/// warp_row_length (> 0) is left by its vector and taken, in the same round of rows, by the whole
/// warp (the vectors' such rows in lane order).
template <int kVector, typename V>
__device__ __forceinline__ void sum_warp_batch_rows(const Acc<V>* products,
                                                    const std::int32_t* offsets,
                                                    V* __restrict__ y, Acc<V> alpha, Acc<V> beta,
                                                    std::int32_t warp_row_length) {
  constexpr int kVectorsPerWarp = arch::kWarpSize / kVector;
  const int lane_in_warp = arch::lane_id();
  const int lane = lane_in_warp % kVector;
  const std::int32_t begin_row = offsets[0], end_row = offsets[1];
  const std::int32_t copy_first = offsets[2];
  // row r of the batch starts at stage element row_start(r) and ends at row_start(r + 1)
  auto row_start = [&](std::int32_t r) {
    return offsets[kWarpStageHeader + r - begin_row] - copy_first;
  };
  for (std::int32_t first = begin_row; first < end_row; first += kVectorsPerWarp) {
    const std::int32_t row = first + lane_in_warp / kVector;
    Acc<V> sum = 0;
    bool mine = false, to_warp = false;
    if (row < end_row) {
      const std::int32_t start = row_start(row), end = row_start(row + 1);
      to_warp = warp_row_length > 0 && end - start > warp_row_length;
      mine = !to_warp;
      if (mine) sum = sum_strided(products, start + lane, end, kVector);
    }
    sum = arch::group_sum<kVector>(sum);
    if (mine && lane == 0) store_result(y, row, sum, alpha, beta);
    for (unsigned left = __ballot_sync(arch::kFullMask, to_warp && lane == 0); left != 0;
         left &= left - 1) {
      const std::int32_t long_row = __shfl_sync(arch::kFullMask, row, __ffs(left) - 1);
      Acc<V> long_sum = sum_strided(products, row_start(long_row) + lane_in_warp,
                                    row_start(long_row + 1), arch::kWarpSize);
      long_sum = arch::warp_sum(long_sum);
      if (lane_in_warp == 0) store_result(y, long_row, long_sum, alpha, beta);
    }
  }
}

/// The row sums of a warp batch whose products and offsets (header, then the row offsets) are
/// in shared memory, at the vector size and warp-pass length of its batch_mode.
template <typename V>
__device__ __forceinline__ void sum_warp_batch(const Acc<V>* products, const std::int32_t* offsets,
                                               std::int32_t nnz, const VectorSizeRule& rule,
                                               V* __restrict__ y, Acc<V> alpha, Acc<V> beta) {
  const std::int32_t rows = offsets[1] - offsets[0];
  const BatchMode mode = batch_mode(nnz, rows, rule, arch::kWarpSize);
  const std::int32_t warp_rows = mode.warp_row_length;
  switch (mode.width) {
    case 1: sum_warp_batch_rows<1>(products, offsets, y, alpha, beta, warp_rows); break;
    case 2: sum_warp_batch_rows<2>(products, offsets, y, alpha, beta, warp_rows); break;
    case 4: sum_warp_batch_rows<4>(products, offsets, y, alpha, beta, warp_rows); break;
    case 8: sum_warp_batch_rows<8>(products, offsets, y, alpha, beta, warp_rows); break;
    case 16: sum_warp_batch_rows<16>(products, offsets, y, alpha, beta, warp_rows); break;
    default: sum_warp_batch_rows<32>(products, offsets, y, alpha, beta, 0); break;
  }
}

/// batch_unit=warp: the batches of this warp, `first`, `first + warps`, ... (`count` of them,
/// 0 for a warp past the last batch), `warp` its index in the block.
struct WarpBatches {
  int warp;
  std::int64_t first;
  std::int64_t warps;
  int count;
};
__device__ __forceinline__ WarpBatches warp_batches(std::int64_t batch_count) {
  const int warps_per_block = static_cast<int>(blockDim.x) / arch::kWarpSize;
  const int warp = arch::warp_id_in_block();
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * warps_per_block;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + warp;
  const int count =
      first < batch_count ? static_cast<int>((batch_count - 1 - first) / warps + 1) : 0;
  return {warp, first, warps, count};
}

/// The extents of a warp's batches g, g + warps, ... in order, read 32 at a time
/// (load_extent_window): next() gives the extent of batch k, k = 0, 1, 2, ... from call to call.
class BatchExtentWindow {
 public:
  __device__ BatchExtentWindow(const int2* batches, const std::int32_t* row_ptr, std::int64_t first,
                               std::int64_t warps, int count)
      : batches_(batches), row_ptr_(row_ptr), first_(first), warps_(warps), count_(count),
        window_(load_extent_window(batches, row_ptr, first, warps, count, 0)) {}

  __device__ BatchExtent next() {
    if (k_ - window_start_ >= arch::kWarpSize) {
      window_start_ += arch::kWarpSize;
      window_ = load_extent_window(batches_, row_ptr_, first_, warps_, count_, window_start_);
    }
    return extent_from_lane(window_, k_++ - window_start_);
  }

 private:
  const int2* batches_;
  const std::int32_t* row_ptr_;
  std::int64_t first_, warps_;
  int count_;
  int k_ = 0, window_start_ = 0;
  BatchExtent window_;
};

/// batch_unit=warp (see the layout above). Launched with blockDim.x a multiple of 32 and
/// warps * S * (C * (sizeof(V) + 4) + 4 * O) bytes of dynamic shared memory
/// (batch_shared_bytes); built, as batch_kernel, for blocks of at most kMaxThreads threads with
/// kMinBlocks of them resident an SM. Every lane of a warp runs the same loop trips (the
/// batch count and the extents are warp-uniform).
template <typename V, int kMaxThreads, int kMinBlocks>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks)
    warp_batch_kernel(const BatchArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                      Acc<V> alpha, Acc<V> beta) {
  const auto [warp, first, warps, count] = warp_batches(a.batch_count);
  if (count == 0) return;  // the whole warp: it uses no block barrier
  const int stages = a.stages;
  const std::size_t capacity = static_cast<std::size_t>(a.stage_capacity);
  const std::size_t offsets = static_cast<std::size_t>(a.stage_offsets);
  unsigned char* const base =
      csr_overlap_shared +
      static_cast<std::size_t>(warp) * stages *
          (capacity * (sizeof(V) + sizeof(std::int32_t)) + offsets * sizeof(std::int32_t));
  auto stage_of = [&](int s) {
    V* const values = reinterpret_cast<V*>(base);
    auto* const cols = reinterpret_cast<std::int32_t*>(base + stages * capacity * sizeof(V));
    return WarpStage<V>{values + s * capacity, cols + s * capacity,
                        cols + stages * capacity + s * offsets};
  };

  BatchExtentWindow extents(a.batches, a.row_ptr, first, warps, count);
  for (int k = 0; k < stages - 1; ++k) fetch_warp_batch(a, k < count, extents.next(), stage_of(k));
  for (int n = 0; n < count; ++n) {
    const int ahead = n + stages - 1;  // its stage was freed by the __syncwarp closing batch n - 1
    fetch_warp_batch(a, ahead < count, extents.next(), stage_of(ahead % stages));
    // batch n's group is done when at most S - 1 newer ones are in flight
    switch (stages) {
      case 1: arch::async_copy_wait<0>(); break;
      case 2: arch::async_copy_wait<1>(); break;
      case 3: arch::async_copy_wait<2>(); break;
      default: arch::async_copy_wait<3>(); break;
    }
    __syncwarp();  // every lane's copies (and lane 0's header) visible to the warp
    const WarpStage<V> stage = stage_of(n % stages);
    const std::int32_t rows = stage.offsets[1] - stage.offsets[0];
    const std::int32_t first_nonzero = stage.offsets[kWarpStageHeader] - stage.offsets[2];
    const std::int32_t end_nonzero = stage.offsets[kWarpStageHeader + rows] - stage.offsets[2];
    multiply_stage(stage, first_nonzero, end_nonzero, x);
    __syncwarp();  // every product in place before the rows add them
    sum_warp_batch(stage_products(stage), stage.offsets, end_nonzero - first_nonzero,
                   a.vector_sizes, y, alpha, beta);
    __syncwarp();  // every lane done with the stage before a fetch refills it
  }
  arch::async_copy_wait<0>();  // the empty tail groups: no copy outlives the warp
}

// copy=direct: a warp's batch is not copied. The warp reads its values and columns from global
// memory (coalesced: lane l takes nonzeros first + l, first + l + 32, ...) straight into the
// products, and shared memory holds, a warp, only what the row sums read:
//
//   | products (C x Acc)                         | header | row_ptr[begin_row .. end_row] |
//     products[i - first_nonzero] = values[i] * x[cols[i]]     (O ints: warp_stage_offsets)
//
// The products and the order of the row sums are the cp_async kernel's, so with the same
// partition both give the same bits. No stage to refill, hence no pipeline: the SM's other warps
// hide each batch's load latency (fp64, H200: 8 blocks of 4 warps an SM, bound by registers).
// The batches are the warp unit's, with at most kDirectDefaultMaxBatchRows rows by default.

/// Row offsets a lane of a direct warp batch loads ahead of the products: 4 x 32, a batch of up
/// to 127 rows (the loop after the products loads any others).
inline constexpr int kDirectOffsetLoads = 4;

/// Products a lane of a direct warp batch has in flight: loads of values and columns, then as
/// many x gathers.
inline constexpr int kDirectProductsInFlight = 8;

/// One round of a lane's products: kDirectProductsInFlight values and columns, loaded
/// (load_round) before they are multiplied (multiply_round), so that a warp can start the
/// loads of its next batch's first round before the row sums of this one.
template <typename V>
struct DirectRound {
  std::int32_t cols[kDirectProductsInFlight];
  V values[kDirectProductsInFlight];
};

/// Loads elements base, base + 32, ... (< end) of the matrix into `round` (zeros past end).
template <typename V>
__device__ __forceinline__ void load_round(DirectRound<V>& round, const BatchArguments<V>& a,
                                           std::int32_t base, std::int32_t end) {
#pragma unroll
  for (int u = 0; u < kDirectProductsInFlight; ++u) {
    const std::int32_t i = base + u * arch::kWarpSize;
    round.cols[u] = i < end ? arch::load_streaming(a.col_idx + i) : 0;
    round.values[u] = i < end ? arch::load_streaming(a.values + i) : V(0);
  }
}

/// products[i - first] = values[i] * x[cols[i]] for the round's elements i = base, base + 32,
/// ... < end, with all its gathers in flight. A lane past `end` (or every lane, for a round
/// loaded ahead for a batch of empty rows) reads x[0] and writes nothing: x has an element 0,
/// since a plan runs its kernels only for a matrix with nonzeros (SpmvPlan::apply).
template <typename V>
__device__ __forceinline__ void multiply_round(const DirectRound<V>& round, Acc<V>* products,
                                               std::int32_t base, std::int32_t first,
                                               std::int32_t end, const V* __restrict__ x) {
  V xv[kDirectProductsInFlight];
#pragma unroll
  for (int u = 0; u < kDirectProductsInFlight; ++u)
    xv[u] = arch::load_read_only(x + round.cols[u]);
#pragma unroll
  for (int u = 0; u < kDirectProductsInFlight; ++u) {
    const std::int32_t i = base + u * arch::kWarpSize;
    if (i < end) products[i - first] = to_acc(round.values[u]) * to_acc(xv[u]);
  }
}

/// Whether a direct warp loads the first round of its next batch before the row sums of this
/// one: for 16-bit values, whose round takes few registers (default suite, H200, the nine
/// matrices of >= 10 M nonzeros: fp16 0.89x -> 0.93x cuSPARSE); fp32 and fp64 lose 4 % and
/// 10 % with it (their rounds stay live through the row sums; README "Direct reads").
template <typename V>
inline constexpr bool kDirectLoadsAhead = sizeof(V) == 2;

/// products[i - first] for i = begin + lane, begin + lane + 32, ... < end, a round at a time.
template <typename V>
__device__ __forceinline__ void multiply_global(Acc<V>* products, const BatchArguments<V>& a,
                                                std::int32_t first, std::int32_t begin,
                                                std::int32_t end, const V* __restrict__ x) {
  constexpr int kStep = kDirectProductsInFlight * arch::kWarpSize;
  for (std::int32_t i = begin + arch::lane_id(); i < end; i += kStep) {
    DirectRound<V> round;
    load_round(round, a, i, end);
    multiply_round(round, products, i, first, end, x);
  }
}

/// batch_unit=warp, copy=direct (see above). Launched as warp_batch_kernel, with
/// warps * (C * sizeof(Acc) + 4 * O) bytes of dynamic shared memory (batch_shared_bytes).
/// A warp's batches in turn:
///
///   batch n:  its row offsets loaded | round 0 loaded (unless loaded ahead) and multiplied
///             | rounds 1.. (load, multiply) | offsets and header stored
///             | kDirectLoadsAhead: round 0 of batch n + 1 loaded | row sums
template <typename V, int kMaxThreads, int kMinBlocks>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocks)
    warp_direct_batch_kernel(const BatchArguments<V> a, const V* __restrict__ x,
                             V* __restrict__ y, Acc<V> alpha, Acc<V> beta) {
  const auto [warp, first, warps, count] = warp_batches(a.batch_count);
  if (count == 0) return;  // the whole warp: it uses no block barrier
  const auto capacity = static_cast<std::size_t>(a.stage_capacity);
  unsigned char* const base =
      csr_overlap_shared + static_cast<std::size_t>(warp) *
                               (capacity * sizeof(Acc<V>) +
                                static_cast<std::size_t>(a.stage_offsets) * sizeof(std::int32_t));
  Acc<V>* const products = reinterpret_cast<Acc<V>*>(base);
  auto* const offsets = reinterpret_cast<std::int32_t*>(base + capacity * sizeof(Acc<V>));
  const int lane = arch::lane_id();
  constexpr int kStep = kDirectProductsInFlight * arch::kWarpSize;

  BatchExtentWindow extents(a.batches, a.row_ptr, first, warps, count);
  BatchExtent e{};
  DirectRound<V> round0;  // kDirectLoadsAhead: round 0 of batch e, loaded during the last one
  if constexpr (kDirectLoadsAhead<V>) {
    e = extents.next();
    load_round(round0, a, e.first_nonzero + lane, e.end_nonzero);
  }
  for (int n = 0; n < count; ++n) {
    if constexpr (!kDirectLoadsAhead<V>) e = extents.next();
    const std::int32_t rows = e.end_row - e.begin_row;
    const std::int32_t nnz = e.end_nonzero - e.first_nonzero;
    if (nnz > a.stage_capacity) __trap();  // a partition bug: never overrun the products
    if (rows + 1 + kWarpStageHeader > a.stage_offsets) __trap();  // more than max_batch_rows
    // the first kDirectOffsetLoads x 32 row offsets are loaded before, and stored after, the
    // products, so their load latency hides behind the products' (short rows: batches of 100+)
    const std::int32_t* const row_offsets = a.row_ptr + e.begin_row;
    std::int32_t first_offsets[kDirectOffsetLoads];
#pragma unroll
    for (int u = 0; u < kDirectOffsetLoads; ++u) {
      const std::int32_t i = lane + u * arch::kWarpSize;
      first_offsets[u] = i <= rows ? arch::load_read_only(row_offsets + i) : 0;
    }
    if constexpr (kDirectLoadsAhead<V>) {
      multiply_round(round0, products, e.first_nonzero + lane, e.first_nonzero, e.end_nonzero, x);
      multiply_global(products, a, e.first_nonzero, e.first_nonzero + kStep, e.end_nonzero, x);
    } else {
      multiply_global(products, a, e.first_nonzero, e.first_nonzero, e.end_nonzero, x);
    }
#pragma unroll
    for (int u = 0; u < kDirectOffsetLoads; ++u) {
      const std::int32_t i = lane + u * arch::kWarpSize;
      if (i <= rows) offsets[kWarpStageHeader + i] = first_offsets[u];
    }
    for (std::int32_t i = lane + kDirectOffsetLoads * arch::kWarpSize; i <= rows;
         i += arch::kWarpSize)
      offsets[kWarpStageHeader + i] = arch::load_read_only(row_offsets + i);
    if (lane == 0) {
      offsets[0] = e.begin_row;
      offsets[1] = e.end_row;
      offsets[2] = e.first_nonzero;
    }
    if constexpr (kDirectLoadsAhead<V>) {
      if (n + 1 < count) {  // the next batch's first loads run during this batch's row sums
        e = extents.next();
        load_round(round0, a, e.first_nonzero + lane, e.end_nonzero);
      }
    }
    __syncwarp();  // every product and offset in place before the rows add them
    sum_warp_batch(products, offsets, nnz, a.vector_sizes, y, alpha, beta);
    __syncwarp();  // every lane done with the batch before the next one overwrites it
  }
}

// ---- the long-row kernels ---------------------------------------------------------------------

template <typename V>
struct LongRowArguments {
  const std::int32_t* col_idx;
  const V* values;
  const std::int32_t* long_rows;
  const std::int32_t* long_task_ptr;  ///< long_count + 1
  const LongRowTask* tasks;           ///< task_count
  std::int32_t long_count;
  std::int32_t task_count;
  Acc<V>* partials;  ///< one a task; written for rows of several pieces
  /// col_idx and values start at 16-byte boundaries: pieces are read in 16-byte loads
  /// (dot_from_global_in_chunks); else a nonzero at a time (dot_from_global).
  bool chunked_loads;
};

/// values[i] * x[cols[i]] of matrix data in global memory (streaming loads: read once; x
/// read-only).
template <typename V>
__device__ __forceinline__ Acc<V> product_from_global(const V* __restrict__ values,
                                                      const std::int32_t* __restrict__ cols,
                                                      std::int64_t i, const V* __restrict__ x) {
  return to_acc(arch::load_streaming(values + i)) *
         to_acc(arch::load_read_only(x + arch::load_streaming(cols + i)));
}

/// dot_from_stage for matrix data in global memory (streaming loads: read once; x read-only).
template <typename V>
__device__ __forceinline__ Acc<V> dot_from_global(const V* __restrict__ values,
                                                  const std::int32_t* __restrict__ cols,
                                                  std::int64_t first, std::int64_t end,
                                                  std::int64_t stride, const V* __restrict__ x) {
  Acc<V> sum = 0;
  std::int64_t i = first;
  for (; i + (kUnroll - 1) * stride < end; i += kUnroll * stride) {
    std::int32_t c[kUnroll];
    V v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      c[u] = arch::load_streaming(cols + i + u * stride);
      v[u] = arch::load_streaming(values + i + u * stride);
    }
    V xv[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) xv[u] = arch::load_read_only(x + c[u]);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) sum += to_acc(v[u]) * to_acc(xv[u]);
  }
  for (; i < end; i += stride) sum += product_from_global(values, cols, i, x);
  return sum;
}

/// Nonzeros a lane of the long-row kernel reads at a time with chunked_loads: one 16-byte load of
/// values and one of columns (fp32: four) or two (fp16 / bf16: eight); 1 for fp64: a nonzero at
/// a time. kLongRowChunksInFlight chunks a lane are loaded before their gathers: eight products
/// in flight. Measured on an H200 (README "Long rows in 16-byte chunks", runs 166-167,
/// pruned_16k, rows of 1640, against a nonzero at a time): fp32 1.05x -> 1.15x cuSPARSE, bf16
/// 0.96x -> 1.00x, fp16 0.99x either way; fp64 in chunks of four (two 16-byte loads of values)
/// lost, 1.23x -> 1.17x, and two chunks of eight in flight lost in fp16 / bf16 (0.99x -> 0.92x).
template <typename V>
inline constexpr int kLongRowChunk = sizeof(V) == 2 ? 8 : sizeof(V) == 4 ? 4 : 1;
template <typename V>
inline constexpr int kLongRowChunksInFlight = kLongRowChunk<V> == 8 ? 1 : 2;

/// A long-row piece [begin, end) read in chunks of kLongRowChunk<V> nonzeros at indices that are
/// multiples of the chunk (16-byte loads: the arrays start at 16-byte boundaries):
///
///   nonzeros   begin   | chunk | chunk | chunk | ... | chunk |   end
///              |-head-|                                      |-tail-|
///   thread t   head[t]  chunk t, t + threads, ...             tail[t]
///
/// A thread adds its head nonzero (if any), its chunks in order (each chunk's nonzeros in
/// order), then its tail nonzero (host_apply models it: KernelShape::long_row_chunk). Values
/// read a nonzero at a time (kLongRowChunk 1) go to dot_from_global.
template <typename V>
__device__ __forceinline__ Acc<V> dot_from_global_in_chunks(
    const V* __restrict__ values, const std::int32_t* __restrict__ cols, std::int64_t begin,
    std::int64_t end, int rank, int threads, const V* __restrict__ x) {
  constexpr int kChunk = kLongRowChunk<V>;
  if constexpr (kChunk == 1) {
    return dot_from_global(values, cols, begin + rank, end, threads, x);
  } else {
    constexpr int kInFlight = kLongRowChunksInFlight<V>;
    const std::int64_t first_chunk = (begin + kChunk - 1) / kChunk;
    const std::int64_t end_chunk = max(end / kChunk, first_chunk);
    const std::int64_t head_end = min(first_chunk * kChunk, end);
    Acc<V> sum = 0;
    if (begin + rank < head_end) sum += product_from_global(values, cols, begin + rank, x);
    std::int64_t chunk = first_chunk + rank;
    for (; chunk + (kInFlight - 1) * threads < end_chunk; chunk += kInFlight * threads) {
      std::int32_t c[kInFlight][kChunk];
      V v[kInFlight][kChunk];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        arch::load_streaming_16_bytes(cols + (chunk + u * threads) * kChunk, c[u]);
        arch::load_streaming_16_bytes(values + (chunk + u * threads) * kChunk, v[u]);
      }
      V xv[kInFlight][kChunk];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
#pragma unroll
        for (int k = 0; k < kChunk; ++k) xv[u][k] = arch::load_read_only(x + c[u][k]);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
#pragma unroll
        for (int k = 0; k < kChunk; ++k) sum += to_acc(v[u][k]) * to_acc(xv[u][k]);
    }
    for (; chunk < end_chunk; chunk += threads) {
      std::int32_t c[kChunk];
      V v[kChunk];
      arch::load_streaming_16_bytes(cols + chunk * kChunk, c);
      arch::load_streaming_16_bytes(values + chunk * kChunk, v);
#pragma unroll
      for (int k = 0; k < kChunk; ++k) sum += to_acc(v[k]) * to_acc(arch::load_read_only(x + c[k]));
    }
    const std::int64_t tail = max(end_chunk * kChunk, head_end) + rank;
    if (tail < end) sum += product_from_global(values, cols, tail, x);
    return sum;
  }
}

/// Paper Alg. 9 with rows cut in pieces: block-stride over the tasks; thread t of a block takes
/// nonzeros t, t + blockDim.x, ... of its piece (or, with chunked_loads, its head, chunks and
/// tail: dot_from_global_in_chunks); warp sums, then warp 0 sums the warp sums. A row of one
/// piece is written to y here; the pieces of a longer row go to partials and
/// combine_long_rows_kernel adds them in order (no atomics: repeated applies are bitwise equal).
template <typename V>
__global__ void __launch_bounds__(1024)
    long_row_kernel(const LongRowArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                    Acc<V> alpha, Acc<V> beta) {
  __shared__ Acc<V> warp_sums[32];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  for (std::int32_t t = blockIdx.x; t < a.task_count; t += gridDim.x) {
    const LongRowTask task = a.tasks[t];
    const std::int64_t start = task.begin, end = task.end;
    Acc<V> sum = a.chunked_loads
                     ? dot_from_global_in_chunks(a.values, a.col_idx, start, end,
                                                 static_cast<int>(threadIdx.x),
                                                 static_cast<int>(blockDim.x), x)
                     : dot_from_global(a.values, a.col_idx, start + threadIdx.x, end,
                                       static_cast<std::int64_t>(blockDim.x), x);
    sum = arch::group_sum<32>(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
      Acc<V> total = lane < warps ? warp_sums[lane] : Acc<V>(0);
      total = arch::group_sum<32>(total);
      if (lane == 0) {
        if (task.pieces == 1)
          store_result(y, task.row, total, alpha, beta);
        else
          a.partials[t] = total;
      }
    }
    __syncthreads();  // warp_sums free for the next task
  }
}

/// One thread a long row of several pieces: the pieces' partial sums in order, then y.
template <typename V>
__global__ void combine_long_rows_kernel(const LongRowArguments<V> a, V* __restrict__ y,
                                         Acc<V> alpha, Acc<V> beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < a.long_count; j += stride) {
    const std::int32_t begin = a.long_task_ptr[j], end = a.long_task_ptr[j + 1];
    if (end - begin < 2) continue;
    Acc<V> sum = 0;
    for (std::int32_t t = begin; t < end; ++t) sum += a.partials[t];
    store_result(y, a.long_rows[j], sum, alpha, beta);
  }
}

}  // namespace tcsparse::csr_overlap::device
