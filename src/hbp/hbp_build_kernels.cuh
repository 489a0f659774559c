// HBP preprocessing on the GPU (paper Algorithm 2: a thread a row), the kernels of the five
// steps of hbp_device_build.cu. They give exactly the host builder's arrays (hbp_format.cpp
// build_layout); every position is decided by a scan, a stable radix sort or a fixed lane order,
// never by the order in which atomics land (the one atomic, the shift histogram, only counts).
//
//   rows r (CSR: row_ptr, col_idx, values), a warp 32 rows: a lane a row of <= 32 nonzeros, the
//     whole warp a longer one (paper Algorithm 2 has a thread a row); a row of more than 1024
//     nonzeros is cut into chunks of 1024, a warp a chunk:
//       row_chunks[r] = chunks of r (0 for the others); chunk_begin = exclusive scan
//       chunk c of row r: nonzeros row_ptr[r] + (c - chunk_begin[r]) * 1024 ...; its segments
//       chunk_segments[c]; chunk_segment_begin = exclusive scan (a chunk's first segment is
//       segment_begin[r] + chunk_segment_begin[c] - chunk_segment_begin[chunk_begin[r]])
//     a segment = a run of a row's nonzeros in one column block (cb = col / block_cols);
//     row_segments[r] = its segments, single_rows[r] = 1 where that is one; their exclusive
//     scans (one scan, packed) segment_begin (segments in row order) and single_before, from
//     which a combine row's index and first partial sum follow (RowSlotSums)
//   segments s (row order)            seg_column_block[s] = cb (several column blocks only),
//                                     seg_row_block[s] = row / block_rows
//                                     seg_first[s] = CSR index of its first nonzero
//                                     seg_length[s], seg_destination[s] (output_hash: partial
//                                     index partial_begin(r) + rank in row, or ~r)
//   slots i (block order: stable radix sort by seg_column_block, the segments being in row
//     order; a block = a run of equal (column block, row block))
//     slot_segment[i]  the segment of slot i, in row order inside its block
//     block_of_slot[i], block_slot_begin[b] (blocks + 1)
//   ordered slots i (the reorder inside each block): ordered[i] = segment; output_hash[i],
//     slot_last_round[i] = seg_length - 1 gathered from it
//     groups start at: a long slot (>= warp_row_length), or every 32nd slot of a run of short
//     slots (a run starts at the block's first slot and after a long slot)
//   nonzeros: a warp a group writes its rounds (hbp_format.hpp's picture)
//   tasks: every blocks_per_task-th block of a run of one column block
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "arch/warp.cuh"
#include "hbp/hbp_format.hpp"

namespace tcsparse::hbp::build {

/// max, for cub's inclusive scans (run anchors: the latest index <= i that starts a run).
struct MaxOf {
  __device__ __forceinline__ std::int32_t operator()(std::int32_t a, std::int32_t b) const {
    return a > b ? a : b;
  }
};

/// Step 1's two counts a row, scanned: `segment_begin` (the segments before row r) and
/// `single_before` (the rows before r of exactly one segment). Every other row, empty rows
/// included, is a combine row and has a partial sum a segment, so the combine rows and their
/// partial sums before r follow without scans of their own.
struct RowSlotSums {
  const std::int32_t* segment_begin;
  const std::int32_t* single_before;

  /// Whether row r (< rows) is a combine row (0 or >= 2 segments).
  __device__ bool is_combine(std::int64_t r) const {
    return single_before[r + 1] == single_before[r];
  }
  /// The combine rows before row r.
  __device__ std::int32_t combine_index(std::int64_t r) const {
    return static_cast<std::int32_t>(r) - single_before[r];
  }
  /// The partial sums of the rows before row r.
  __device__ std::int32_t partial_begin(std::int64_t r) const {
    return segment_begin[r] - single_before[r];
  }
};

/// Whether step 1 marks a row of `count` segments as single (row `rows` is not: the scans' totals).
__device__ __forceinline__ std::int32_t single_slot_row(std::int64_t r, std::int64_t rows,
                                                        std::int32_t count) {
  return r < rows && count == 1 ? 1 : 0;
}

/// The column block of nonzero k.
__device__ __forceinline__ std::int32_t column_block(const std::int32_t* col_idx, std::int64_t k,
                                                     std::int32_t block_cols) {
  return col_idx[k] / block_cols;
}

/// The row a warp takes in the warp-a-row kernels (8 warps a thread block, warp-uniform).
__device__ __forceinline__ std::int64_t warp_row() {
  return static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / arch::kWarpSize) +
         arch::warp_id_in_block();
}

/// A row's nonzeros [begin, end) in windows of 32, lane l at k = window + l (every lane calls it,
/// window by window): whether k starts a segment (a slot): a run of one column block starts there
/// (k == begin or its column block differs from k - 1's), or max_slot_length nonzeros of its run
/// lie before it (the host's pieces of a long run). `run_first` (warp-uniform) is the first
/// nonzero of the run in progress at the window's start, and is moved on to the next window's.
/// `cb`: k's column block.
__device__ __forceinline__ bool starts_segment(const std::int32_t* col_idx, std::int64_t begin,
                                               std::int64_t end, std::int64_t window,
                                               std::int32_t block_cols,
                                               std::int32_t max_slot_length,
                                               std::int64_t& run_first, std::int32_t& cb) {
  const std::int32_t lane = arch::lane_id();
  const std::int64_t k = window + lane;
  bool starts_run = false;
  cb = 0;
  if (k < end) {
    cb = column_block(col_idx, k, block_cols);
    starts_run = k == begin || cb != column_block(col_idx, k - 1, block_cols);
  }
  const std::uint32_t runs = __ballot_sync(arch::kFullMask, starts_run);
  const std::uint32_t runs_up_to_lane = runs & (lane == 31 ? ~0u : (2u << lane) - 1u);
  const std::int64_t own_run_first =
      runs_up_to_lane ? window + (31 - __clz(runs_up_to_lane)) : run_first;
  if (runs) run_first = window + (31 - __clz(runs));
  // (a run lies in one row, of fewer than 2^31 nonzeros: its positions fit 32 bits)
  return k < end && (starts_run || static_cast<std::uint32_t>(k - own_run_first) %
                                           static_cast<std::uint32_t>(max_slot_length) ==
                                       0u);
}

/// Rows of at most this many nonzeros are walked by one lane in the row-tile kernels of steps 1
/// and 2 (a warp a row would leave 28-31 lanes idle on the 1-4 nonzeros of a circuit or road row);
/// longer rows by the whole warp, in windows of 32.
inline constexpr std::int64_t kLaneRowMaxLength = 32;

/// Rows of more than this many nonzeros are cut into chunks of this many, a warp a chunk, in
/// steps 1 and 2: one warp walking a circuit row of 10^5-10^6 nonzeros 32 at a time was 80 % of
/// the build (src/hbp/README.md). A multiple of 32 (a chunk is whole windows).
inline constexpr std::int64_t kRowChunkLength = 1024;

/// The chunks of a row of `length` nonzeros (0 for a row the row-tile kernels walk).
__host__ __device__ __forceinline__ std::int64_t row_chunk_count(std::int64_t length) {
  return length > kRowChunkLength ? (length + kRowChunkLength - 1) / kRowChunkLength : 0;
}

/// The first of the 32 consecutive rows a warp takes in the row-tile kernels (lane l: first + l).
__device__ __forceinline__ std::int64_t warp_row_tile() { return warp_row() * arch::kWarpSize; }

/// A lane's row in a row-tile kernel: its nonzeros [begin, end) (empty for r >= rows), whether
/// the whole warp walks it (more than kLaneRowMaxLength nonzeros, at most kRowChunkLength) and
/// whether it is left to the chunk kernels (more than kRowChunkLength).
struct TileRow {
  std::int64_t r = 0, begin = 0, end = 0;
  bool walked_by_warp = false, chunked = false;
};

__device__ __forceinline__ TileRow tile_row(std::int64_t tile, const std::int32_t* row_ptr,
                                            std::int64_t rows) {
  TileRow row;
  row.r = tile + arch::lane_id();
  if (row.r < rows) {
    row.begin = row_ptr[row.r];
    row.end = row_ptr[row.r + 1];
  }
  const std::int64_t length = row.end - row.begin;
  row.chunked = row_chunk_count(length) > 0;
  row.walked_by_warp = length > kLaneRowMaxLength && !row.chunked;
  return row;
}

/// A warp's chunk of a long row: nonzeros [first, end) of row `row` ([row_begin, row_end)), the
/// row's first chunk `row_first_chunk`.
struct RowChunk {
  std::int64_t row = 0, row_begin = 0, row_end = 0, first = 0, end = 0, row_first_chunk = 0;
};

/// Chunk c (< chunk_begin[rows], the chunk count): its row is the r with chunk_begin[r] <= c <
/// chunk_begin[r + 1] (a binary search: chunk_begin is non-decreasing, chunk_begin[0] = 0).
/// The same loads on every lane.
__device__ __forceinline__ RowChunk row_chunk(std::int64_t c, const std::int32_t* chunk_begin,
                                              const std::int32_t* row_ptr, std::int64_t rows) {
  std::int64_t low = 0, high = rows;  // chunk_begin[low] <= c < chunk_begin[high]
  while (high - low > 1) {
    const std::int64_t middle = low + (high - low) / 2;
    if (chunk_begin[middle] <= c) low = middle; else high = middle;
  }
  RowChunk chunk;
  chunk.row = low;
  chunk.row_first_chunk = chunk_begin[low];
  chunk.row_begin = row_ptr[low];
  chunk.row_end = row_ptr[low + 1];
  chunk.first = chunk.row_begin + (c - chunk.row_first_chunk) * kRowChunkLength;
  chunk.end = chunk.first + kRowChunkLength < chunk.row_end ? chunk.first + kRowChunkLength
                                                            : chunk.row_end;
  return chunk;
}

/// The first nonzero of the run (of one column block) that nonzero k of a row beginning at
/// row_begin lies in: the first k' in [row_begin, k] whose column is in k's column block (a
/// binary search: columns are sorted within a row). starts_segment's `run_first` for a walk that
/// starts at k inside a row.
__device__ __forceinline__ std::int64_t run_first_of(const std::int32_t* col_idx,
                                                     std::int64_t row_begin, std::int64_t k,
                                                     std::int32_t block_cols) {
  const std::int64_t block_first_col =
      static_cast<std::int64_t>(column_block(col_idx, k, block_cols)) * block_cols;
  std::int64_t low = row_begin, high = k;  // the answer is in [low, high]
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    if (col_idx[middle] >= block_first_col) high = middle; else low = middle + 1;
  }
  return low;
}

/// The segments starting in nonzeros [first, end) of a row that begins at row_begin, walked by the
/// whole warp in windows of 32 (starts_segment, from `run_first`, the first nonzero of the run
/// `first` lies in): calls start(k, cb, rank) on each lane whose nonzero k starts one (rank:
/// segments started before it in [first, end)); returns how many started (on every lane).
template <typename Start>
__device__ std::int32_t for_each_segment_start_by_warp(const std::int32_t* col_idx,
                                                       std::int64_t row_begin, std::int64_t first,
                                                       std::int64_t end, std::int64_t run_first,
                                                       std::int32_t block_cols,
                                                       std::int32_t max_slot_length,
                                                       Start&& start) {
  const std::uint32_t lanes_below = (1u << arch::lane_id()) - 1u;
  std::int32_t running = 0;
  // 64-bit windows: window + 32 must not wrap when nnz is near 2^31
  for (std::int64_t window = first; window < end; window += arch::kWarpSize) {
    std::int32_t cb = 0;
    const bool starts = starts_segment(col_idx, row_begin, end, window, block_cols,
                                       max_slot_length, run_first, cb);
    const std::uint32_t started = __ballot_sync(arch::kFullMask, starts);
    if (starts) start(window + arch::lane_id(), cb, running + __popc(started & lanes_below));
    running += __popc(started);
  }
  return running;
}

/// A row's segments walked by one lane, in column order: starts_segment's rule sequentially (a
/// segment starts where a run of one column block starts, and every max_slot_length-th nonzero
/// of a run). Calls segment(first nonzero, length, column block) for each. No division a nonzero:
/// a column in the run's column block [block_first, block_end) continues the run (the column
/// block is divided out only where a run starts), and the nonzero's position in its run is
/// counted modulo max_slot_length.
template <typename Segment>
__device__ void for_each_segment_by_lane(const std::int32_t* col_idx, std::int64_t begin,
                                         std::int64_t end, std::int32_t block_cols,
                                         std::int32_t max_slot_length, Segment&& segment) {
  if (begin >= end) return;
  std::int32_t cb = column_block(col_idx, begin, block_cols);
  std::int64_t block_first = std::int64_t{cb} * block_cols, block_end = block_first + block_cols;
  std::int64_t segment_first = begin;
  std::int32_t segment_cb = cb;
  std::int32_t position = 0;  // of nonzero k in its run, modulo max_slot_length
  for (std::int64_t k = begin + 1; k < end; ++k) {
    const std::int32_t col = col_idx[k];
    if (col < block_first || col >= block_end) {  // a run starts
      cb = col / block_cols;
      block_first = std::int64_t{cb} * block_cols;
      block_end = block_first + block_cols;
      position = 0;
    } else if (++position == max_slot_length) {
      position = 0;
    }
    if (position == 0) {
      segment(segment_first, k - segment_first, segment_cb);
      segment_first = k;
      segment_cb = cb;
    }
  }
  segment(segment_first, end - segment_first, segment_cb);
}

/// Calls walk(row, begin, end, owner lane) for each row of the warp's tile longer than
/// kLaneRowMaxLength, one after the other with the whole warp (every lane calls it; `row`,
/// `begin`, `end` are the lane's own row and its bounds, `walked_by_warp` whether it is long).
template <typename Walk>
__device__ void for_each_long_row_of_tile(std::int64_t row, std::int64_t begin, std::int64_t end,
                                          bool walked_by_warp, Walk&& walk) {
  for (std::uint32_t long_rows = __ballot_sync(arch::kFullMask, walked_by_warp); long_rows != 0u;
       long_rows &= long_rows - 1u) {
    const int owner = __ffs(static_cast<int>(long_rows)) - 1;
    walk(__shfl_sync(arch::kFullMask, row, owner), __shfl_sync(arch::kFullMask, begin, owner),
         __shfl_sync(arch::kFullMask, end, owner), owner);
  }
}

/// Step 1, a warp 32 rows (Algorithm 2's thread a row: a lane a row of at most
/// kLaneRowMaxLength nonzeros, the whole warp one of at most kRowChunkLength): a row's segments
/// (starts_segment, counted by ballots in windows of 32) and whether it has exactly one
/// (single_slot_row; RowSlotSums); row_chunks[r], the chunks of a longer row, whose two counts
/// chunked_row_segments_kernel writes later; row `rows` writes zeros (the scans' totals).
__global__ void count_row_segments_kernel(const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                          std::int64_t rows, std::int32_t block_cols,
                                          std::int32_t max_slot_length,
                                          std::int32_t* row_segments, std::int32_t* single_rows,
                                          std::int32_t* row_chunks) {
  const std::int64_t tile = warp_row_tile();
  if (tile > rows) return;  // warp-uniform
  const std::int32_t lane = arch::lane_id();
  const auto [r, begin, end, walked_by_warp, chunked] = tile_row(tile, row_ptr, rows);
  std::int32_t count = 0;
  if (r < rows && !walked_by_warp && !chunked)
    for_each_segment_by_lane(col_idx, begin, end, block_cols, max_slot_length,
                             [&](std::int64_t, std::int64_t, std::int32_t) { ++count; });
  for_each_long_row_of_tile(r, begin, end, walked_by_warp,
                            [&](std::int64_t, std::int64_t row_begin, std::int64_t row_end,
                                int owner) {
    const std::int32_t segments = for_each_segment_start_by_warp(
        col_idx, row_begin, row_begin, row_end, row_begin, block_cols, max_slot_length,
        [](std::int64_t, std::int32_t, std::int32_t) {});
    if (lane == owner) count = segments;
  });
  if (r > rows) return;
  row_chunks[r] = static_cast<std::int32_t>(row_chunk_count(end - begin));
  if (chunked) return;
  row_segments[r] = count;
  single_rows[r] = single_slot_row(r, rows, count);
}

/// Step 1, a warp a chunk of a row longer than kRowChunkLength (grid-stride over the chunk count
/// chunk_begin[rows], read here: the host does not wait for it): chunk_segments[c], the segments
/// that start in the chunk.
__global__ void count_chunk_segments_kernel(const std::int32_t* row_ptr,
                                            const std::int32_t* col_idx, std::int64_t rows,
                                            const std::int32_t* chunk_begin,
                                            std::int32_t block_cols, std::int32_t max_slot_length,
                                            std::int32_t* chunk_segments) {
  const std::int64_t chunks = chunk_begin[rows];
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / arch::kWarpSize);
  for (std::int64_t c = warp_row(); c < chunks; c += warps) {  // warp-uniform
    const RowChunk chunk = row_chunk(c, chunk_begin, row_ptr, rows);
    const std::int32_t segments = for_each_segment_start_by_warp(
        col_idx, chunk.row_begin, chunk.first, chunk.end,
        run_first_of(col_idx, chunk.row_begin, chunk.first, block_cols), block_cols,
        max_slot_length, [](std::int64_t, std::int32_t, std::int32_t) {});
    if (arch::lane_id() == 0) chunk_segments[c] = segments;
  }
}

/// Step 1, a thread a chunk (grid-stride over the chunk count chunk_begin[rows]), acting on its
/// row's first chunk only: a chunked row's segments (the sum of its chunks', from their scan) and
/// whether it has exactly one, as count_row_segments_kernel writes them for the other rows. (A
/// thread a chunk, not a row: no pass over every row for a few long ones.)
__global__ void chunked_row_segments_kernel(const std::int32_t* row_ptr,
                                            const std::int32_t* chunk_begin,
                                            const std::int32_t* chunk_segment_begin,
                                            std::int64_t rows, std::int32_t* row_segments,
                                            std::int32_t* single_rows) {
  const std::int64_t chunks = chunk_begin[rows];
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       c < chunks; c += stride) {
    const RowChunk chunk = row_chunk(c, chunk_begin, row_ptr, rows);
    if (c != chunk.row_first_chunk) continue;
    const std::int32_t count = chunk_segment_begin[chunk_begin[chunk.row + 1]] -
                               chunk_segment_begin[chunk.row_first_chunk];
    row_segments[chunk.row] = count;
    single_rows[chunk.row] = single_slot_row(chunk.row, rows, count);
  }
}

/// Where count_one_block_row_segments_kernel counts what x in one column block lets step 1 know:
/// the hash's histogram, then the blocks.
constexpr int kOneBlockCountsBlocks = kLargestAggregationShift + 1;
constexpr int kOneBlockCounts = kOneBlockCountsBlocks + 1;

/// Step 1 where x is one column block (block_cols >= cols), a thread a row r in [0, rows]: what
/// count_row_segments_kernel and the chunk kernels write together, from row_ptr alone (no column
/// is read, no row is chunked: the row is one run, its slots slots_of_run). Row `rows` writes
/// zeros (the scans' totals). From row_ptr alone too, into `counts` (kOneBlockCounts, zeroed by
/// the caller), what steps 2 and 3 would otherwise count before a wait of their own: the hash's
/// histogram over the sampled rows' segments (shift_histogram_kernel's: a row's segments are
/// pieces of max_slot_length and its remainder) and the blocks, which are the row blocks that
/// hold a nonzero (the keys are the row blocks).
__global__ void count_one_block_row_segments_kernel(const std::int32_t* row_ptr,
                                                    std::int64_t rows,
                                                    std::int32_t max_slot_length,
                                                    std::int32_t block_rows,
                                                    std::int64_t sample_step,
                                                    std::int32_t* row_segments,
                                                    std::int32_t* single_rows,
                                                    unsigned long long* counts) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  const std::int64_t length = r < rows ? row_ptr[r + 1] - row_ptr[r] : 0;
  const auto count = static_cast<std::int32_t>(slots_of_run(length, max_slot_length));
  row_segments[r] = count;
  single_rows[r] = single_slot_row(r, rows, count);
  if (r == rows) return;
  // (32-bit divisions: r < rows < 2^31, a row's length < 2^31)
  const auto row = static_cast<std::uint32_t>(r);
  if (row % static_cast<std::uint32_t>(sample_step) == 0u) {
    const auto run = static_cast<std::uint32_t>(length);
    const auto longest = static_cast<std::uint32_t>(max_slot_length);
    const std::uint32_t full_pieces = run / longest, rest = run % longest;
    if (full_pieces > 0)
      atomicAdd(&counts[aggregation_shift(max_slot_length)],
                static_cast<unsigned long long>(full_pieces));
    if (rest > 0) atomicAdd(&counts[aggregation_shift(rest)], 1ull);
  }
  if (row % static_cast<std::uint32_t>(block_rows) == 0u) {
    const std::int64_t block_end = r + block_rows < rows ? r + block_rows : rows;
    if (row_ptr[block_end] > row_ptr[r]) atomicAdd(&counts[kOneBlockCountsBlocks], 1ull);
  }
}

/// Step 2, a thread a row r in [0, rows]: combine_rows[k] = r and combine_begin[k] = its first
/// partial sum for the k-th combine row; row `rows` writes combine_begin[combine rows] = all.
__global__ void scatter_combine_rows_kernel(RowSlotSums sums, std::int64_t rows,
                                            std::int32_t* combine_rows,
                                            std::int32_t* combine_begin) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > rows) return;
  const std::int32_t k = sums.combine_index(r);
  if (r == rows) {
    combine_begin[k] = sums.partial_begin(r);
  } else if (sums.is_combine(r)) {
    combine_rows[k] = static_cast<std::int32_t>(r);
    combine_begin[k] = sums.partial_begin(r);
  }
}

/// Step 2, a warp a sampled row (rows 0, step, 2 step, ...): the histogram of aggregation_shift
/// over its segments' lengths (kLargestAggregationShift + 1 counters; the atomics only count, the
/// result does not depend on their order).
__global__ void shift_histogram_kernel(const std::int32_t* segment_begin,
                                       const std::int32_t* seg_length, std::int64_t rows,
                                       std::int64_t step, unsigned long long* shift_counts) {
  const std::int64_t r = warp_row() * step;
  if (r >= rows) return;  // warp-uniform
  for (std::int64_t s = segment_begin[r] + arch::lane_id(); s < segment_begin[r + 1];
       s += arch::kWarpSize)
    atomicAdd(&shift_counts[aggregation_shift(seg_length[s])], 1ull);
}

/// Where step 2 writes a segment: the segment s (the rank-th of row `row`) starting at nonzero k
/// of column block cb.
struct SegmentWriter {
  std::int32_t block_rows;
  RowSlotSums sums;                ///< a combine row's segments write partial sums
  std::uint32_t* seg_column_block;  ///< null where x is one column block
  std::int32_t* seg_row_block;
  std::int32_t* seg_first;
  std::int32_t* seg_destination;
  std::int32_t* seg_index;

  __device__ void write(std::int64_t row, std::int64_t s, std::int32_t rank, std::int64_t k,
                        std::int32_t cb) const {
    if (seg_column_block) seg_column_block[s] = static_cast<std::uint32_t>(cb);
    // (rows < 2^31: the row block by a 32-bit division)
    seg_row_block[s] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row) /
                                                 static_cast<std::uint32_t>(block_rows));
    seg_first[s] = static_cast<std::int32_t>(k);
    seg_destination[s] =
        sums.is_combine(row) ? sums.partial_begin(row) + rank : ~static_cast<std::int32_t>(row);
    seg_index[s] = static_cast<std::int32_t>(s);
  }
};

/// Segments [first_segment, end_segment) of a row ending at row_end, whose seg_first are written:
/// their lengths (the next segment's first nonzero, or the row's end), the whole warp striding.
__device__ __forceinline__ void write_segment_lengths_by_warp(const std::int32_t* seg_first,
                                                              std::int64_t first_segment,
                                                              std::int64_t end_segment,
                                                              std::int64_t next_first,
                                                              std::int32_t* seg_length) {
  for (std::int64_t s = first_segment + arch::lane_id(); s < end_segment; s += arch::kWarpSize)
    seg_length[s] = static_cast<std::int32_t>(
        (s + 1 < end_segment ? seg_first[s + 1] : next_first) - seg_first[s]);
}

/// Step 2, a warp 32 rows (a lane a short row, the whole warp one of at most kRowChunkLength
/// nonzeros, as step 1; chunked rows are left to write_chunk_segments_kernel): a row's segments
/// at [segment_begin[r], segment_begin[r + 1]), in column order. A warp's row in windows of 32
/// nonzeros: a lane whose nonzero starts a segment (starts_segment) takes the segment's index from
/// a ballot (running + starts on lower lanes); then the lanes stride over the row's segments for
/// their lengths. seg_index[s] = s (the radix sort's values).
__global__ void write_segments_kernel(const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                      std::int64_t rows, std::int32_t block_cols,
                                      std::int32_t max_slot_length,
                                      const std::int32_t* segment_begin, SegmentWriter writer,
                                      std::int32_t* seg_length) {
  const std::int64_t tile = warp_row_tile();
  if (tile >= rows) return;  // warp-uniform
  const auto [r, begin, end, walked_by_warp, chunked] = tile_row(tile, row_ptr, rows);
  if (r < rows && !walked_by_warp && !chunked) {
    const std::int64_t first_segment = segment_begin[r];
    std::int32_t rank = 0;
    for_each_segment_by_lane(col_idx, begin, end, block_cols, max_slot_length,
                             [&](std::int64_t first, std::int64_t length, std::int32_t cb) {
      writer.write(r, first_segment + rank, rank, first, cb);
      seg_length[first_segment + rank] = static_cast<std::int32_t>(length);
      ++rank;
    });
  }
  for_each_long_row_of_tile(r, begin, end, walked_by_warp,
                            [&](std::int64_t row, std::int64_t row_begin, std::int64_t row_end,
                                int) {
    const std::int64_t first_segment = segment_begin[row];  // 64-bit: s + 32 must not wrap
    const std::int32_t segments = for_each_segment_start_by_warp(
        col_idx, row_begin, row_begin, row_end, row_begin, block_cols, max_slot_length,
        [&](std::int64_t k, std::int32_t cb, std::int32_t rank) {
          writer.write(row, first_segment + rank, rank, k, cb);
        });
    __syncwarp();  // seg_first of the whole row written before the lengths read it
    write_segment_lengths_by_warp(writer.seg_first, first_segment, first_segment + segments,
                                  row_end, seg_length);
    __syncwarp();  // before the next long row's segments are written
  });
}

/// Step 2 where x is one column block, a thread a row: its segments, the pieces of
/// max_slot_length nonzeros of the row in order (what write_segments_kernel and the chunk kernels
/// write together for such a matrix).
__global__ void write_one_block_row_segments_kernel(const std::int32_t* row_ptr,
                                                    std::int64_t rows,
                                                    std::int32_t max_slot_length,
                                                    const std::int32_t* segment_begin,
                                                    SegmentWriter writer,
                                                    std::int32_t* seg_length) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const std::int64_t begin = row_ptr[r], end = row_ptr[r + 1];
  const std::int64_t first_segment = segment_begin[r];
  std::int32_t rank = 0;
  for (std::int64_t first = begin; first < end; first += max_slot_length, ++rank) {
    writer.write(r, first_segment + rank, rank, first, 0);
    seg_length[first_segment + rank] =
        static_cast<std::int32_t>(end - first < max_slot_length ? end - first : max_slot_length);
  }
}

/// Step 2, a warp a chunk of a row longer than kRowChunkLength (grid-stride over the chunk count,
/// as count_chunk_segments_kernel): the segments that start in the chunk, ranked from the row's
/// earlier chunks' (chunk_segment_begin). Their lengths need the next chunk's first segment:
/// chunk_segment_lengths_kernel, after this kernel.
__global__ void write_chunk_segments_kernel(const std::int32_t* row_ptr,
                                            const std::int32_t* col_idx, std::int64_t rows,
                                            const std::int32_t* chunk_begin,
                                            const std::int32_t* chunk_segment_begin,
                                            std::int32_t block_cols, std::int32_t max_slot_length,
                                            const std::int32_t* segment_begin,
                                            SegmentWriter writer) {
  const std::int64_t chunks = chunk_begin[rows];
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / arch::kWarpSize);
  for (std::int64_t c = warp_row(); c < chunks; c += warps) {  // warp-uniform
    const RowChunk chunk = row_chunk(c, chunk_begin, row_ptr, rows);
    const std::int32_t rank_before =
        chunk_segment_begin[c] - chunk_segment_begin[chunk.row_first_chunk];
    const std::int64_t first_segment = segment_begin[chunk.row];
    for_each_segment_start_by_warp(
        col_idx, chunk.row_begin, chunk.first, chunk.end,
        run_first_of(col_idx, chunk.row_begin, chunk.first, block_cols), block_cols,
        max_slot_length, [&](std::int64_t k, std::int32_t cb, std::int32_t rank) {
          writer.write(chunk.row, first_segment + rank_before + rank, rank_before + rank, k, cb);
        });
  }
}

/// Step 2, a warp a chunk (as write_chunk_segments_kernel, whose seg_first it reads): the lengths
/// of the segments that start in the chunk.
__global__ void chunk_segment_lengths_kernel(const std::int32_t* row_ptr, std::int64_t rows,
                                             const std::int32_t* chunk_begin,
                                             const std::int32_t* chunk_segment_begin,
                                             const std::int32_t* segment_begin,
                                             const std::int32_t* seg_first,
                                             std::int32_t* seg_length) {
  const std::int64_t chunks = chunk_begin[rows];
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / arch::kWarpSize);
  for (std::int64_t c = warp_row(); c < chunks; c += warps) {  // warp-uniform
    const RowChunk chunk = row_chunk(c, chunk_begin, row_ptr, rows);
    const std::int64_t row_first_segment =
        segment_begin[chunk.row] - chunk_segment_begin[chunk.row_first_chunk];
    const std::int64_t row_end_segment = segment_begin[chunk.row + 1];
    const std::int64_t first_segment = row_first_segment + chunk_segment_begin[c];
    const std::int64_t end_segment = row_first_segment + chunk_segment_begin[c + 1];
    // the chunk's last segment ends where the row's next one starts (in a later chunk), or at
    // the row's end
    const std::int64_t next_first = end_segment < row_end_segment ? seg_first[end_segment]
                                                                  : chunk.row_end;
    write_segment_lengths_by_warp(seg_first, first_segment, end_segment, next_first, seg_length);
  }
}

/// A slot's block, (column block, row block), in block order: the sorted column blocks and the
/// row block of the slot's segment. With one column block (no sort) sorted_column_block and
/// slot_segment are null: column block 0, slot i is segment i.
struct SlotBlockKeys {
  const std::uint32_t* sorted_column_block;
  const std::int32_t* seg_row_block;
  const std::int32_t* slot_segment;

  __device__ std::uint32_t column_block(std::int64_t i) const {
    return sorted_column_block ? sorted_column_block[i] : 0u;
  }
  __device__ std::int32_t row_block(std::int64_t i) const {
    return seg_row_block[slot_segment ? slot_segment[i] : i];
  }
};

/// Step 2, a thread a slot: 1 where a block starts (its block differs from the previous slot's).
__global__ void mark_block_starts_kernel(SlotBlockKeys keys, std::int64_t slots,
                                         std::int32_t* block_start) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots) return;
  block_start[i] = (i == 0 || keys.column_block(i) != keys.column_block(i - 1) ||
                    keys.row_block(i) != keys.row_block(i - 1))
                       ? 1
                       : 0;
}

/// Step 2, a thread a slot: block_of_slot = inclusive scan - 1; at a block's first slot, its
/// block_slot_begin, block_col and block_row; the last slot closes block_slot_begin (= slots).
__global__ void scatter_blocks_kernel(SlotBlockKeys keys, const std::int32_t* block_start,
                                      std::int32_t* block_of_slot, std::int64_t slots,
                                      std::int32_t* block_slot_begin, std::int32_t* block_col,
                                      std::int32_t* block_row) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots) return;
  const std::int32_t b = block_of_slot[i] - 1;
  block_of_slot[i] = b;
  if (i == slots - 1) block_slot_begin[b + 1] = static_cast<std::int32_t>(slots);
  if (!block_start[i]) return;
  block_slot_begin[b] = static_cast<std::int32_t>(i);
  block_col[b] = static_cast<std::int32_t>(keys.column_block(i));
  block_row[b] = keys.row_block(i);
}

/// Step 3 (reorder=sort), a thread a slot: key (block << 32) | length for a stable radix sort
/// (the host's stable sort by length inside each block).
__global__ void length_keys_kernel(const std::int32_t* block_of_slot,
                                   const std::int32_t* slot_segment,
                                   const std::int32_t* seg_length, std::int64_t slots,
                                   unsigned long long* key) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots) return;
  key[i] = (static_cast<unsigned long long>(block_of_slot[i]) << 32) |
           static_cast<unsigned long long>(static_cast<std::uint32_t>(seg_length[slot_segment[i]]));
}

/// Step 3 (reorder=hash), a thread a slot: its home position in its block's hash table (the
/// nonlinear hash of paper III.B, NonlinearHash::home), read by hash_order_kernel twice.
__global__ void slot_homes_kernel(const std::int32_t* slot_segment,
                                  const std::int32_t* seg_length, std::int64_t slots,
                                  NonlinearHash hash, std::int32_t* slot_home) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < slots) slot_home[i] = hash.home(seg_length[slot_segment[i]]);
}

/// Chunks of 32 slots whose homes (and segments) a lane of hash_order_kernel loads before it
/// uses the first of them: the count and place loops are chains of global loads otherwise.
constexpr int kHashChunksInFlight = 4;
/// Table positions the warp clears and scans a step in hash_order_kernel (4 a lane, one int4):
/// a block pays for its whole table whatever its slot count, and R-MAT's blocks hold 900 slots
/// of 4096 positions.
constexpr std::int32_t kHashTablePositionsPerStep = 4 * arch::kWarpSize;

/// Shared memory of hash_order_kernel for a table of `table_size` positions.
__host__ __device__ inline std::size_t hash_table_bytes(std::int32_t table_size) {
  const std::int64_t steps = (table_size + kHashTablePositionsPerStep - 1) / kHashTablePositionsPerStep;
  return static_cast<std::size_t>(steps * kHashTablePositionsPerStep) * sizeof(std::int32_t);
}

/// Step 3 (reorder=hash), one warp (the whole thread block) a matrix block at a time: the hash
/// table with chaining, read out in table order (slot_order's definition: by home, and in row
/// order among the slots of one home), as a counting sort in shared memory:
///
///   shared  chain[0 .. table_size)     slots a home holds, then where its chain starts
///           (padded with zeros to kHashTablePositionsPerStep: lane l holds 4 l .. 4 l + 3)
///
///   count   lane l adds slots l, l + 32, ... of the block to chain[home]
///   scan    chain[] -> exclusive prefix, 128 positions a step (the chains' starts in the table)
///   place   32 slots at a time in row order: the lanes holding one home (__match_any_sync) take
///           their places in lane order after the chain's earlier slots; the lowest of them
///           advances chain[home] for the next 32:
///             ordered[block begin + chain[home] + lanes below with that home] = the slot's segment
///
/// Every home is below table_size (NonlinearHash::home), whatever the block's slot count.
__global__ void hash_order_kernel(const std::int32_t* block_slot_begin, std::int64_t blocks,
                                  const std::int32_t* slot_segment,
                                  const std::int32_t* slot_home, std::int32_t table_size,
                                  std::int32_t* ordered) {
  extern __shared__ int4 chain_quads[];
  std::int32_t* chain = reinterpret_cast<std::int32_t*>(chain_quads);
  constexpr std::int32_t kBatch = arch::kWarpSize * kHashChunksInFlight;
  const std::int32_t quads = static_cast<std::int32_t>(hash_table_bytes(table_size) / sizeof(int4));
  const std::int32_t lane = arch::lane_id();
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  for (std::int64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const std::int32_t first = block_slot_begin[b];
    const std::int32_t n = block_slot_begin[b + 1] - first;
    for (std::int32_t q = lane; q < quads; q += arch::kWarpSize) chain_quads[q] = make_int4(0, 0, 0, 0);
    __syncwarp();
    for (std::int32_t batch = 0; batch < n; batch += kBatch) {
      std::int32_t home[kHashChunksInFlight];
#pragma unroll
      for (int c = 0; c < kHashChunksInFlight; ++c) {
        const std::int32_t i = batch + c * arch::kWarpSize + lane;
        home[c] = i < n ? slot_home[first + i] : -1;
      }
#pragma unroll
      for (int c = 0; c < kHashChunksInFlight; ++c)
        if (home[c] >= 0) atomicAdd(&chain[home[c]], 1);
    }
    __syncwarp();
    std::int32_t carry = 0;
    for (std::int32_t base = 0; base < quads; base += arch::kWarpSize) {
      const int4 count = chain_quads[base + lane];  // (quads is a multiple of the warp)
      const std::int32_t lane_count = count.x + count.y + count.z + count.w;
      std::int32_t inclusive = lane_count;
      for (int offset = 1; offset < arch::kWarpSize; offset <<= 1) {
        const std::int32_t below = __shfl_up_sync(arch::kFullMask, inclusive, offset);
        if (lane >= offset) inclusive += below;
      }
      const std::int32_t start = carry + inclusive - lane_count;
      chain_quads[base + lane] = make_int4(start, start + count.x, start + count.x + count.y,
                                           start + count.x + count.y + count.z);
      carry += __shfl_sync(arch::kFullMask, inclusive, arch::kWarpSize - 1);
    }
    __syncwarp();
    for (std::int32_t batch = 0; batch < n; batch += kBatch) {
      std::int32_t home[kHashChunksInFlight], segment[kHashChunksInFlight];
#pragma unroll
      for (int c = 0; c < kHashChunksInFlight; ++c) {
        const std::int32_t i = batch + c * arch::kWarpSize + lane;
        home[c] = i < n ? slot_home[first + i] : -1;
        segment[c] = i < n ? slot_segment[first + i] : 0;
      }
#pragma unroll
      for (int c = 0; c < kHashChunksInFlight; ++c) {
        const unsigned active = __ballot_sync(arch::kFullMask, home[c] >= 0);
        if (home[c] >= 0) {
          const unsigned same_home = __match_any_sync(active, home[c]);
          const std::int32_t place = chain[home[c]] + __popc(same_home & lanes_below);
          __syncwarp(active);  // every lane has read chain[home] before the lowest advances it
          if ((same_home & lanes_below) == 0u) chain[home[c]] += __popc(same_home);
          ordered[first + place] = segment[c];
        }
        __syncwarp();
      }
    }
    __syncwarp();  // before the next block clears the table
  }
}

/// Step 3, a thread an ordered slot: its length, whether it is long, and its run anchor (its own
/// index where a run of short slots starts, at the block's first slot or after a long slot;
/// else -1; an inclusive max scan then gives every slot its run's start).
__global__ void mark_runs_kernel(const std::int32_t* ordered, const std::int32_t* seg_length,
                                 const std::int32_t* block_of_slot,
                                 const std::int32_t* block_slot_begin, std::int64_t slots,
                                 std::int32_t warp_row_length, std::int32_t* slot_nnz,
                                 std::int32_t* run_anchor) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > slots) return;
  if (i == slots) {
    slot_nnz[i] = 0;
    return;
  }
  auto is_long = [&](std::int64_t k) { return is_long_slot(seg_length[ordered[k]], warp_row_length); };
  slot_nnz[i] = seg_length[ordered[i]];
  const bool block_first = block_slot_begin[block_of_slot[i]] == i;
  // i - 1 is read only when i is not its block's first slot
  run_anchor[i] = (block_first || starts_run(false, is_long(i), is_long(i - 1)))
                      ? static_cast<std::int32_t>(i)
                      : -1;
}

/// Step 3, a thread an ordered slot i in [0, slots]: 1 where a group starts (a long slot, or
/// every kGroupRows-th slot of its run); slot `slots` writes 0.
__global__ void mark_groups_kernel(const std::int32_t* ordered, const std::int32_t* seg_length,
                                   const std::int32_t* run_start, std::int64_t slots,
                                   std::int32_t warp_row_length, std::int32_t* group_start) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > slots) return;
  if (i == slots) {
    group_start[i] = 0;
    return;
  }
  group_start[i] =
      starts_group(i, run_start[i], is_long_slot(seg_length[ordered[i]], warp_row_length)) ? 1 : 0;
}

/// What step 3 writes at once, per slot and at the first slot of each group and block.
struct GroupArrays {
  std::int32_t* output_hash;        // a slot
  std::uint16_t* slot_last_round;   // a slot
  std::int32_t* group_slot_begin;   // a group + 1
  std::int64_t* begin_nnz;          // a group + 1
  std::int32_t* group_col;          // a group
  std::int32_t* block_group_begin;  // a block + 1
};

/// Step 3, a thread an ordered slot i in [0, slots]: output_hash and slot_last_round (length - 1;
/// a slot has 1..max_slot_length <= 65536 nonzeros: starts_segment cuts longer runs); at a
/// group's first slot its group_slot_begin, begin_nnz and column block, and where that slot is
/// also its block's first (a block's first slot starts a run, so a group: starts_group) the
/// block's first group. Slot `slots` closes group_slot_begin, begin_nnz and block_group_begin.
__global__ void scatter_groups_kernel(const std::int32_t* ordered,
                                      const std::int32_t* seg_destination,
                                      const std::int32_t* seg_length,
                                      const std::int32_t* group_index,
                                      const std::int32_t* slot_nnz_begin,
                                      const std::int32_t* block_of_slot,
                                      const std::int32_t* block_slot_begin,
                                      const std::int32_t* block_col, std::int64_t slots,
                                      std::int64_t blocks, GroupArrays out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i > slots) return;
  const std::int32_t g = group_index[i];
  if (i == slots) {
    out.group_slot_begin[g] = static_cast<std::int32_t>(slots);
    out.begin_nnz[g] = slot_nnz_begin[slots];
    out.block_group_begin[blocks] = g;
    return;
  }
  if (group_index[i + 1] != g) {  // group_index is the exclusive sum of the group starts
    const std::int32_t b = block_of_slot[i];
    out.group_slot_begin[g] = static_cast<std::int32_t>(i);
    out.begin_nnz[g] = slot_nnz_begin[i];
    out.group_col[g] = block_col[b];
    if (block_slot_begin[b] == i) out.block_group_begin[b] = g;
  }
  const std::int32_t segment = ordered[i];
  out.output_hash[i] = seg_destination[segment];
  out.slot_last_round[i] = static_cast<std::uint16_t>(seg_length[segment] - 1);
}

/// Step 3, a thread a slot: 1 where its sum is a partial sum (output_hash >= 0).
__global__ void mark_partial_slots_kernel(const std::int32_t* output_hash, std::int64_t slots,
                                          std::int32_t* has_partial) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots) return;
  has_partial[i] = output_hash[i] >= 0 ? 1 : 0;
}

/// Step 3, a thread a slot with a partial sum: its number in slot order (the exclusive scan of
/// mark_partial_slots_kernel) replaces its row-major destination p in output_hash, and
/// combine_partials[p] = that number (the combine's list, row by row).
__global__ void number_partials_kernel(const std::int32_t* partial_number, std::int64_t slots,
                                       std::int32_t* output_hash, std::int32_t* combine_partials) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= slots) return;
  const std::int32_t destination = output_hash[i];
  if (destination < 0) return;
  combine_partials[destination] = partial_number[i];
  output_hash[i] = partial_number[i];
}

/// Step 4, a warp a group (grid-stride over warps): the rounds of hbp_format.hpp. Lane l holds
/// slot l (length 0 past the group); round t: alive = lanes with length > t, the lane's nonzero
/// at begin + (nonzeros of the earlier rounds) + (alive lanes below it); add_sign = its position
/// in round t + 1 minus this one, or -1 after its last nonzero. A group of one slot is
/// contiguous (add_sign 1, then -1): the lanes stride over it. value_source (nullptr: not kept,
/// update_values=off) gets each stored value's CSR index.
template <typename V>
__global__ void lay_out_groups_kernel(const std::int32_t* col_idx, const V* values,
                                      const std::int32_t* group_slot_begin,
                                      const std::int64_t* begin_nnz, std::int64_t groups,
                                      const std::int32_t* ordered, const std::int32_t* seg_first,
                                      const std::int32_t* seg_length,
                                      const std::int32_t* block_of_slot,
                                      const std::int32_t* block_col, std::int32_t block_cols,
                                      std::uint32_t* col_add_sign, V* data,
                                      std::int32_t* value_source) {
  const std::int32_t lane = arch::lane_id();
  const std::int64_t warps =
      static_cast<std::int64_t>(gridDim.x) * (blockDim.x / arch::kWarpSize);
  const std::int64_t warp =
      static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / arch::kWarpSize) + arch::warp_id_in_block();
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  for (std::int64_t g = warp; g < groups; g += warps) {
    const std::int32_t slot0 = group_slot_begin[g];
    const std::int32_t count = group_slot_begin[g + 1] - slot0;
    const std::int64_t begin = begin_nnz[g];
    const std::int32_t origin = block_col[block_of_slot[slot0]] * block_cols;
    if (count == 1) {
      const std::int32_t segment = ordered[slot0];
      const std::int32_t first = seg_first[segment], length = seg_length[segment];
      for (std::int32_t t = lane; t < length; t += arch::kWarpSize) {
        col_add_sign[begin + t] = col_add_sign_word(
            static_cast<std::uint32_t>(col_idx[first + t] - origin), t + 1 < length ? 1 : -1);
        data[begin + t] = values[first + t];
        if (value_source != nullptr) value_source[begin + t] = first + t;
      }
      continue;
    }
    std::int32_t first = 0, length = 0;
    if (lane < count) {
      const std::int32_t segment = ordered[slot0 + lane];
      first = seg_first[segment];
      length = seg_length[segment];
    }
    std::int32_t rounds = length;
    for (int offset = arch::kWarpSize / 2; offset > 0; offset >>= 1) {
      const std::int32_t other = __shfl_xor_sync(arch::kFullMask, rounds, offset);
      rounds = other > rounds ? other : rounds;
    }
    std::int64_t running = 0;  // nonzeros of the rounds before t
    std::uint32_t alive = __ballot_sync(arch::kFullMask, length > 0);
    for (std::int32_t t = 0; t < rounds; ++t) {  // uniform over the warp
      const std::uint32_t next_alive = __ballot_sync(arch::kFullMask, length > t + 1);
      const std::int64_t next_running = running + __popc(alive);
      if (length > t) {
        const std::int64_t position = begin + running + __popc(alive & lanes_below);
        std::int32_t step = -1;  // after the slot's last nonzero
        if (length > t + 1) {
          const std::int64_t next = begin + next_running + __popc(next_alive & lanes_below);
          step = static_cast<std::int32_t>(next - position);  // 1..32
        }
        col_add_sign[position] =
            col_add_sign_word(static_cast<std::uint32_t>(col_idx[first + t] - origin), step);
        data[position] = values[first + t];
        if (value_source != nullptr) value_source[position] = first + t;
      }
      running = next_running;
      alive = next_alive;
    }
  }
}

/// Step 5, a thread a block b: its task run anchor (b where the column block changes, else -1).
__global__ void mark_column_runs_kernel(const std::int32_t* block_col, std::int64_t blocks,
                                        std::int32_t* run_anchor) {
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= blocks) return;
  run_anchor[b] = (b == 0 || block_col[b] != block_col[b - 1]) ? static_cast<std::int32_t>(b) : -1;
}

/// Step 5, a thread a block b in [0, blocks]: 1 where a task starts (every per_task-th block of
/// a run of one column block); block `blocks` writes 0.
__global__ void mark_tasks_kernel(const std::int32_t* run_start, std::int64_t blocks,
                                  std::int32_t per_task, std::int32_t* task_start) {
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b > blocks) return;
  task_start[b] = b < blocks && starts_task(b, run_start[b], per_task) ? 1 : 0;
}

/// Step 5, a thread a block b in [0, blocks]: at a task's first block its task_block_begin and
/// task_col (block `blocks` closes task_block_begin).
__global__ void scatter_tasks_kernel(const std::int32_t* task_index, const std::int32_t* block_col,
                                     std::int64_t blocks, std::int32_t* task_block_begin,
                                     std::int32_t* task_col) {
  const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b > blocks) return;
  const std::int32_t t = task_index[b];
  if (b == blocks) {
    task_block_begin[t] = static_cast<std::int32_t>(blocks);
  } else if (task_index[b + 1] != t) {
    task_block_begin[t] = static_cast<std::int32_t>(b);
    task_col[t] = block_col[b];
  }
}

/// Whether a task of blocks [first_block, end_block) of column block `column` stages its x
/// segment in shared memory (task_shares_x).
__device__ inline bool task_stages_x(std::int64_t first_block, std::int64_t end_block,
                                     std::int32_t column, const std::int32_t* block_group_begin,
                                     const std::int64_t* begin_nnz, std::int64_t cols,
                                     std::int32_t block_cols, std::int64_t value_bytes) {
  const std::int64_t nnz =
      begin_nnz[block_group_begin[end_block]] - begin_nnz[block_group_begin[first_block]];
  const std::int64_t origin = static_cast<std::int64_t>(column) * block_cols;
  const std::int64_t width = cols - origin < block_cols ? cols - origin : block_cols;
  return task_shares_x(nnz, width, block_cols, static_cast<std::size_t>(value_bytes));
}

/// Step 5, a thread a task: whether it stages its x segment in shared memory.
__global__ void task_shared_x_kernel(const std::int32_t* task_block_begin,
                                     const std::int32_t* task_col,
                                     const std::int32_t* block_group_begin,
                                     const std::int64_t* begin_nnz, std::int64_t tasks,
                                     std::int64_t cols, std::int32_t block_cols,
                                     std::int64_t value_bytes, std::int32_t* task_shared_x) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= tasks) return;
  task_shared_x[t] = task_stages_x(task_block_begin[t], task_block_begin[t + 1], task_col[t],
                                   block_group_begin, begin_nnz, cols, block_cols, value_bytes)
                         ? 1
                         : 0;
}

/// Step 5 where x is one column block, a thread a task t in [0, tasks]: every block is in the
/// one column run that starts at block 0, so task t starts at block t * per_task (starts_task),
/// and what mark_tasks_kernel, a scan, scatter_tasks_kernel and task_shared_x_kernel write in
/// general follows without them: task_block_begin (task `tasks` closes it at `blocks`),
/// task_col and task_shared_x.
__global__ void one_column_run_tasks_kernel(std::int64_t blocks, std::int32_t per_task,
                                            std::int64_t tasks, const std::int32_t* block_col,
                                            const std::int32_t* block_group_begin,
                                            const std::int64_t* begin_nnz, std::int64_t cols,
                                            std::int32_t block_cols, std::int64_t value_bytes,
                                            std::int32_t* task_block_begin,
                                            std::int32_t* task_col, std::int32_t* task_shared_x) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t > tasks) return;
  const std::int64_t first = t * per_task;
  const std::int64_t end = first + per_task < blocks ? first + per_task : blocks;
  task_block_begin[t] = static_cast<std::int32_t>(first < blocks ? first : blocks);
  if (t == tasks) return;
  task_col[t] = block_col[first];
  task_shared_x[t] = task_stages_x(first, end, block_col[first], block_group_begin, begin_nnz,
                                   cols, block_cols, value_bytes)
                         ? 1
                         : 0;
}

}  // namespace tcsparse::hbp::build
