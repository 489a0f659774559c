// partition=merge_path (not in the paper): SpMV over tiles of the merge path of the row ends and
// the nonzeros (defined in csr_overlap_rules.hpp), rows cut at any nonzero. Included by
// csr_overlap.cu only. A tile is kThreads x kItems consecutive items, a block a tile, a thread
// kItems of them:
//
//   items     n n n E n n E E n n n n n n n E n n ...     (n: a nonzero, E: a row ends)
//   tiles     |-- tile 0 -------|-- tile 1 --------|-- ...
//   threads   |t0 |t1 |t2 |...  |t0 |t1 |...
//
// So every tile and every thread has the same work whatever the row lengths: long rows need no
// kernel of their own. A row cut by a tile boundary is added up by merge_fixup_kernel (partial
// sums in a fixed order: repeated applies are bitwise equal).
//
// A tile's shared memory, from its start (first_row, first_nonzero):
//
//   products     [kThreads * kItems] (Acc)   products[k] = values[first_nonzero + k]
//                                                          * x[col_idx[first_nonzero + k]]
//   row_offsets  [kThreads * kItems + 2]      row_offsets[k] = row_ptr[first_row + k] for the
//                                             rows that end in the tile and the one it ends in
//   row_sums     [kThreads] (Acc)             row_sums[k]: the sum of row first_row + k, for a
//                                             tile in which at most kThreads rows end (RowSink)
#pragma once

#include <cub/block/block_scan.cuh>

#include <climits>
#include <cstdint>

#include "arch/dependent_launch.cuh"
#include "arch/load.cuh"
#include "csr_overlap/csr_overlap_kernels.cuh"

namespace tcsparse::csr_overlap::device {

template <typename V>
struct MergeArguments {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;
  const V* values;
  std::int32_t rows;
  std::int32_t tiles;
  std::int32_t tile_items;             ///< kThreads x kItems of the tile kernel
  const MergeCoordinate* tile_starts;  ///< tiles + 1: the last is (rows, nnz)
  Acc<V>* carry_out;     ///< [tiles]: a tile's sum of the row it ends inside
  Acc<V>* head_partial;  ///< [tiles]: a tile's sum of the row it starts inside and ends
};

/// tile_starts[t] = merge_tile_start(t) for t in [0, tiles] (one binary search a thread).
__global__ void merge_tile_starts_kernel(const std::int32_t* __restrict__ row_ptr,
                                         std::int32_t rows, std::int64_t nnz,
                                         std::int64_t tile_items, std::int32_t tiles,
                                         MergeCoordinate* __restrict__ tile_starts) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t <= tiles) tile_starts[t] = merge_tile_start(row_ptr, rows, nnz, tile_items, t);
}

/// A thread's share of the carry scan: whether it ended a row, and its sum of the row it ends
/// inside (the nonzeros after its last row end).
template <typename T>
struct RowCarry {
  int ended;
  T sum;
};

/// Reduce-by-key as a scan operator: a later part that ended a row restarts the sum.
struct AddRowCarries {
  template <typename T>
  __device__ __forceinline__ RowCarry<T> operator()(const RowCarry<T>& earlier,
                                                    const RowCarry<T>& later) const {
    return {earlier.ended | later.ended, later.ended ? later.sum : earlier.sum + later.sum};
  }
};

/// A tile: where it starts on the merge path and what it holds.
struct MergeTile {
  MergeCoordinate start;
  std::int32_t rows;      ///< rows that end in the tile
  std::int32_t nonzeros;
  __device__ std::int32_t items() const { return rows + nonzeros; }
};

__device__ __forceinline__ MergeTile merge_tile(const MergeCoordinate* tile_starts,
                                                std::int64_t tile) {
  const MergeCoordinate start = tile_starts[tile], end = tile_starts[tile + 1];
  return {start, end.row - start.row, end.nonzero - start.nonzero};
}

/// Loads of the tile's values and columns start at a multiple of this many nonzeros, so that a
/// warp's load of 32 consecutive ones covers whole 128-byte lines (one line of columns, two of
/// fp64 values) instead of one more, partly: L2 serves a line a request, and its tag lookups
/// bound the gathers' kernel (Nsight Compute on R-MAT scale 20, fp64, H200: 90 % of their peak;
/// loads from the tile's first nonzero took 16.7 M requests against cuSPARSE's 15.8 M).
inline constexpr std::int32_t kMergeLoadAlignment = 32;

/// The tile's products and row offsets into shared memory, by the kThreads threads of a group
/// (rank: this thread's place in it): from the aligned nonzero before the tile's first
/// (kMergeLoadAlignment), thread r takes nonzeros r, r + kThreads, ... (coalesced), all kItems
/// loads, then all kItems gathers, in flight; the few past kThreads x kItems (a tile of mostly
/// nonzeros starting late in its line) one at a time after them.
template <typename V, int kThreads, int kItems>
__device__ __forceinline__ void stage_tile(Acc<V>* products, std::int32_t* row_offsets,
                                           const MergeArguments<V>& a, const MergeTile& tile,
                                           std::int32_t rank, const V* __restrict__ x) {
  const std::int32_t shift = static_cast<std::int32_t>(tile.start.nonzero % kMergeLoadAlignment);
  const std::int32_t* cols_from = a.col_idx + (tile.start.nonzero - shift);
  const V* values_from = a.values + (tile.start.nonzero - shift);
  const auto inside = [&](std::int32_t k) { return k >= 0 && k < tile.nonzeros; };
  const auto row_offset = [&](std::int32_t k) {
    return tile.start.row + k <= a.rows ? arch::load_read_only(a.row_ptr + tile.start.row + k)
                                        : INT_MAX;
  };
  // the first of this thread's row offsets (all of them in a tile of at most kThreads - 2 rows)
  // loaded with the matrix, not after the gathers: a block's life is a chain of latencies
  const bool first_offset_needed = rank <= tile.rows + 1;
  const std::int32_t first_offset = first_offset_needed ? row_offset(rank) : 0;
  std::int32_t cols[kItems];
  V values[kItems];
#pragma unroll
  for (int u = 0; u < kItems; ++u) {
    const std::int32_t k = rank + u * kThreads - shift;  // from the tile's first nonzero
    cols[u] = inside(k) ? arch::load_streaming(cols_from + rank + u * kThreads) : 0;
    values[u] = inside(k) ? arch::load_streaming(values_from + rank + u * kThreads) : V(0);
  }
  V xv[kItems];
#pragma unroll
  for (int u = 0; u < kItems; ++u)
    xv[u] = inside(rank + u * kThreads - shift) ? arch::load_read_only(x + cols[u]) : V(0);
#pragma unroll
  for (int u = 0; u < kItems; ++u) {
    const std::int32_t k = rank + u * kThreads - shift;
    if (inside(k)) products[k] = to_acc(values[u]) * to_acc(xv[u]);
  }
  for (std::int32_t k = rank + kItems * kThreads - shift; k < tile.nonzeros; k += kThreads)
    products[k] = to_acc(arch::load_streaming(values_from + shift + k)) *
                  to_acc(arch::load_read_only(x + arch::load_streaming(cols_from + shift + k)));
  if (first_offset_needed) row_offsets[rank] = first_offset;
  for (std::int32_t k = rank + kThreads; k <= tile.rows + 1; k += kThreads)
    row_offsets[k] = row_offset(k);
}

/// What a thread's walk over its items leaves: the first row it ended (local; -1: none) with its
/// sum so far, and its sum of the row it ends inside.
template <typename T>
struct ItemWalk {
  std::int32_t first_row = -1;
  T first_sum = 0;
  T sum = 0;
};

/// Where a tile's finished rows go: y itself, or (tiles of at most kThreads rows) the tile's
/// row_sums in shared memory, written to y after a barrier by consecutive threads, so that a
/// warp's stores cover whole lines of y (L2 requests: 0.44 M against cuSPARSE's 0.17 M on R-MAT
/// scale 20, fp64, before).
template <typename V>
struct RowSink {
  V* y;
  Acc<V>* row_sums;  ///< null: straight to y
  std::int64_t first_row;
  Acc<V> alpha, beta;
  __device__ __forceinline__ void put(std::int32_t local_row, Acc<V> sum) const {
    if (row_sums)
      row_sums[local_row] = sum;
    else
      store_result(y, first_row + local_row, sum, alpha, beta);
  }
};

/// Items [first, first + kItems) of the tile (clipped to it) from the staged tile: finds where
/// they start (a binary search over the row offsets), adds the products, puts every row it ends
/// but the first.
template <typename V, int kItems>
__device__ __forceinline__ ItemWalk<Acc<V>> walk_items(const Acc<V>* products,
                                                       const std::int32_t* row_offsets,
                                                       const MergeTile& tile, std::int32_t first,
                                                       const RowSink<V>& sink) {
  std::int32_t low = max(first - tile.nonzeros, 0), high = min(first, tile.rows);
  while (low < high) {  // rows ended before item `first`
    const std::int32_t middle = (low + high + 1) / 2;
    if (row_offsets[middle] - tile.start.nonzero + middle <= first)
      low = middle;
    else
      high = middle - 1;
  }
  std::int32_t row = low, nonzero = first - low;
  ItemWalk<Acc<V>> walk;
  // unrolled, the tile's end a predicate (a loop of min(kItems, items left) trips was slower on
  // regular rows: H200, 256 x 5 items, fp64 stencil3d_100 0.81x cuSPARSE against 0.86x)
#pragma unroll
  for (int u = 0; u < kItems; ++u) {
    if (first + u >= tile.items()) break;
    if (nonzero < row_offsets[row + 1] - tile.start.nonzero) {
      walk.sum += products[nonzero++];
    } else {
      if (walk.first_row < 0) {
        walk.first_row = row;
        walk.first_sum = walk.sum;
      } else {
        sink.put(row, walk.sum);
      }
      walk.sum = 0;
      ++row;
    }
  }
  return walk;
}

/// Completes a thread's first row with the carry of the threads before it: to the sink, or to
/// head_partial when it is the tile's first row and began in an earlier tile (`head_cut`).
template <typename V>
__device__ __forceinline__ void finish_first_row(const MergeArguments<V>& a,
                                                 std::int64_t tile_index, bool head_cut,
                                                 const ItemWalk<Acc<V>>& walk, Acc<V> carry_in,
                                                 const RowSink<V>& sink) {
  if (walk.first_row < 0) return;
  const Acc<V> row_sum = carry_in + walk.first_sum;
  if (walk.first_row == 0 && head_cut)
    a.head_partial[tile_index] = row_sum;
  else
    sink.put(walk.first_row, row_sum);
}

/// One tile a block (see above): the block stages the tile, each thread walks its kItems items,
/// and a block scan of the threads' carries completes their first rows; a tile of at most
/// kThreads rows then writes them from shared memory (RowSink). kBlocksPerSm: the
/// resident blocks the plan's shared-memory carveout is set for (0: the driver's choice); the
/// code is the same for every value.
template <typename V, int kThreads, int kItems, int kBlocksPerSm = 0>
__global__ void __launch_bounds__(kThreads)
    merge_tile_kernel(const MergeArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                      Acc<V> alpha, Acc<V> beta) {
  constexpr int kTileItems = kThreads * kItems;
  using Carry = RowCarry<Acc<V>>;
  using BlockScan = cub::BlockScan<Carry, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ Acc<V> products[kTileItems];
  __shared__ std::int32_t row_offsets[kTileItems + 2];
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ Acc<V> row_sums[kThreads];

  // merge_fixup_kernel, launched after this kernel, may be scheduled now (programmatic
  // dependent launch): it waits for this grid before it reads the carries
  arch::allow_dependent_grids();
  const MergeTile tile = merge_tile(a.tile_starts, blockIdx.x);
  const auto rank = static_cast<std::int32_t>(threadIdx.x);
  stage_tile<V, kThreads, kItems>(products, row_offsets, a, tile, rank, x);
  __syncthreads();
  const bool staged_rows = tile.rows <= kThreads;
  const RowSink<V> sink{y, staged_rows ? row_sums : nullptr, tile.start.row, alpha, beta};
  const bool head_cut = row_offsets[0] < tile.start.nonzero;
  const ItemWalk<Acc<V>> walk =
      walk_items<V, kItems>(products, row_offsets, tile, min(rank * kItems, tile.items()), sink);
  Carry before, tile_total;
  BlockScan(scan_storage)
      .ExclusiveScan(Carry{walk.first_row >= 0, walk.sum}, before, Carry{0, Acc<V>(0)},
                     AddRowCarries{}, tile_total);
  finish_first_row(a, blockIdx.x, head_cut, walk, before.sum, sink);
  if (threadIdx.x == 0) a.carry_out[blockIdx.x] = tile_total.sum;
  if (!staged_rows) return;
  __syncthreads();
  for (std::int32_t k = rank; k < tile.rows; k += kThreads)
    if (k > 0 || !head_cut) store_result(y, tile.start.row + k, row_sums[k], alpha, beta);
}

/// The rows cut by tile boundaries, one thread a tile: tile t whose first row began in an earlier
/// tile and ends in t adds that row's carries of the tiles before (from t - 1 back to where the
/// row began) and its own head_partial, then writes y. Launched as a programmatic dependent
/// launch of merge_tile_kernel where the GPU has it (arch/dependent_launch.cuh): it waits for
/// that kernel before reading anything (no y row it writes is one merge_tile_kernel writes).
///
/// The row's first nonzero is item start.row + row_begin of the merge path, so the tile it began
/// in is known before any carry is read: the carries' loads do not wait for each other (a row of
/// R-MAT scale 20 spans about 15 tiles). What it reads of the structure (tile starts, row
/// offsets) no kernel writes, so it reads that before it waits, while the tile kernel ends.
template <typename V>
__global__ void merge_fixup_kernel(const MergeArguments<V> a, V* __restrict__ y, Acc<V> alpha,
                                   Acc<V> beta) {
  const std::int64_t tile = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  bool cut = false;
  MergeCoordinate start{};
  std::int64_t first_tile = 0;
  if (tile < a.tiles) {
    start = a.tile_starts[tile];
    if (start.row < a.rows) {
      const std::int32_t row_begin = a.row_ptr[start.row];
      cut = row_begin != start.nonzero && a.tile_starts[tile + 1].row != start.row;
      first_tile = (std::int64_t{start.row} + row_begin) / a.tile_items;
    }
  }
  arch::wait_for_prior_grids();
  if (!cut) return;
  Acc<V> sum = a.head_partial[tile];
#pragma unroll 8
  for (std::int64_t earlier = tile - 1; earlier >= first_tile; --earlier)
    sum += a.carry_out[earlier];
  store_result(y, start.row, sum, alpha, beta);
}

}  // namespace tcsparse::csr_overlap::device
