// CSR-Partial-Overlap (Electronics 2023): the rules that the GPU kernels and the host model
// (csr_overlap_format.cpp) must apply identically, written once as inline functions that compile
// for both (plain C++ without CUDA, __host__ __device__ under nvcc).
//
// Batch partition (paper §4.1.1, made parallel). M = max_batch_size (a multiple of 32),
// W = M / 2 the "window", R = max_batch_rows.
//   - a row with more than M nonzeros is a long row (as in the paper): in no batch, handled by
//     the long-row kernel (§4.3);
//   - a row with more than W (and at most M) nonzeros is a "wide" row: a batch of its own;
//   - every other row r > 0 starts a new batch when the row before it is long or wide, or when
//     floor(row_ptr[r] / W) != floor(row_ptr[r-1] / W) (its first nonzero lies in another window
//     of W nonzeros), or when floor(r / R) != floor((r-1) / R); row 0 always starts one.
// Each row's decision reads only row_ptr[r-1..r+1], so one scan over the rows decides each row as
// it reads it and numbers the starts (row_kind, row_counts, scatter_writes). Guarantees: rows are
// never split; a batch is a run of consecutive non-long rows; a batch of several rows holds rows
// of <= W nonzeros whose first nonzeros lie in one window [kW, (k+1)W), so it has at most
// (k+1)W - 1 + W - kW = 2W - 1 = M - 1 nonzeros; a single-row batch at most M; every batch at
// most R rows. Unlike the paper's sequential greedy fill, batches are about W (not M) nonzeros on
// average: the price of a partition that needs no sequential pass.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define TCSPARSE_CSR_OVERLAP_HD __host__ __device__
#else
#define TCSPARSE_CSR_OVERLAP_HD
#endif

namespace tcsparse::csr_overlap {

/// Number of vector sizes (1, 2, 4, 8, 16, 32) and of switch points between them.
inline constexpr int kVectorSizes = 6;
inline constexpr int kSwitchPoints = kVectorSizes - 1;

/// Shared-memory copies start and end on multiples of this many elements (16 B or more for every
/// value type and for the 4-byte column indices), so that cp.async moves 16-byte pieces: the
/// stage holds up to 2 * kCopyAlignElements - 2 elements around a batch, and the device value
/// and column arrays are allocated to a multiple of it.
inline constexpr int kCopyAlignElements = 16;

struct PartitionRule {
  std::int32_t max_batch_size = 0;  ///< M: longer rows are long rows; a multiple of 32
  std::int32_t max_batch_rows = 0;  ///< R: rows of one batch at most
};

struct VectorSizeRule {
  /// switch_points[k]: a batch whose mean row length is below it (and not below the previous
  /// ones) takes vector size 2^k (paper Alg. 6, SWITCH_POINT_1 .. SWITCH_POINT_16).
  std::int32_t switch_points[kSwitchPoints] = {};
  std::int32_t fixed = 0;  ///< 0: by the mean; else this vector size for every batch
  /// Deviation 1 (row_threads_max): a batch of few rows gives each row more threads than its
  /// vector size, up to this many (a power of two, at most the block; above 32 a row is taken by
  /// a group of warps whose warp sums are added in order). 0 or 1: off (the paper's vector size).
  std::int32_t spread_max = 0;
  /// Deviation 2 (warp_row_factor, K): in a batch of vector size vs < 32, a row of more than
  /// K * vs nonzeros is skipped by its vector and computed by a whole warp after the vector pass
  /// (from the same shared-memory stage). 0: off.
  std::int32_t warp_row_factor = 0;
};

TCSPARSE_CSR_OVERLAP_HD inline std::int32_t row_length(const std::int32_t* row_ptr, std::int64_t r) {
  return row_ptr[r + 1] - row_ptr[r];
}

/// The offsets row_kind reads of row r: row_ptr[r - 1] (r > 0; else unused), row_ptr[r] and
/// row_ptr[r + 1] (r < rows). The GPU build loads them for many rows before it classifies any.
struct RowOffsets {
  std::int32_t previous_start = 0;
  std::int32_t start = 0;
  std::int32_t end = 0;
};

/// x % divisor for 0 <= x and 1 <= divisor: a mask where the divisor is a power of two (the
/// usual windows and row limits), else a 32-bit remainder (a 64-bit division is a hundred
/// instructions, a 32-bit one twenty, and the GPU build asks two of every row).
TCSPARSE_CSR_OVERLAP_HD inline std::int32_t remainder_of(std::int32_t x, std::int32_t divisor) {
  return (divisor & (divisor - 1)) == 0 ? x & (divisor - 1) : x % divisor;
}

/// Row r (0 <= r < rows, not long) starts a batch.
TCSPARSE_CSR_OVERLAP_HD inline bool is_batch_start(std::int64_t r, RowOffsets o,
                                                   PartitionRule rule) {
  if (r == 0) return true;
  const std::int32_t window = rule.max_batch_size / 2;
  const std::int32_t previous_length = o.start - o.previous_start;
  if (previous_length > window) return true;  // previous row long or wide
  if (o.end - o.start > window) return true;  // this row wide
  // floor(start / W) != floor(previous_start / W): with 0 <= previous_length <= W, a multiple of
  // W lies in (previous_start, start] exactly when start % W < previous_length
  if (remainder_of(o.start, window) < previous_length) return true;
  // floor(r / R) != floor((r - 1) / R) (rows < 2^31)
  return remainder_of(static_cast<std::int32_t>(r), rule.max_batch_rows) == 0;
}

/// What row r is to the table (r == rows, past the last row: inside_batch, nothing).
enum class RowKind : std::int32_t { inside_batch, batch_start, long_row };
TCSPARSE_CSR_OVERLAP_HD inline RowKind row_kind(std::int64_t r, std::int64_t rows, RowOffsets o,
                                               PartitionRule rule) {
  if (r >= rows) return RowKind::inside_batch;
  if (o.end - o.start > rule.max_batch_size) return RowKind::long_row;
  return is_batch_start(r, o, rule) ? RowKind::batch_start : RowKind::inside_batch;
}

/// The offsets of row r (0 <= r <= rows) that row_kind reads.
TCSPARSE_CSR_OVERLAP_HD inline RowOffsets row_offsets(const std::int32_t* row_ptr, std::int64_t r,
                                                     std::int64_t rows) {
  if (r >= rows) return {};
  return {r > 0 ? row_ptr[r - 1] : 0, row_ptr[r], row_ptr[r + 1]};
}

/// The sizes of a batch table's arrays (the GPU build allocates them at the totals of its
/// counting pass).
struct TableCapacity {
  std::int64_t batches = 0;
  std::int64_t long_rows = 0;
  std::int64_t long_tasks = 0;
};

/// Pieces (long-row tasks, one block each) of a long row of `length` nonzeros: floor(length /
/// piece), at least one. Piece k takes nonzeros [k * piece, (k + 1) * piece) of the row and the
/// last one the rest too, so no piece is shorter than `piece` unless the row is (a row of up to
/// 2 * piece - 1 nonzeros stays whole, and no row ends in a short piece of its own).
TCSPARSE_CSR_OVERLAP_HD inline std::int32_t long_row_pieces(std::int64_t length, std::int64_t piece) {
  return length < 2 * piece ? 1 : static_cast<std::int32_t>(length / piece);  // max(1, floor)
}

/// Column locality, sampled for partition=auto's row vectors: every kLocalitySampleRows-th row
/// r >= 1 that is non-empty, after a non-empty row, is a sample; it is near when the two rows'
/// first columns lie at most kNearColumnDistance apart (the x they read shares cache lines, as in
/// stencils, bands and block-diagonal matrices; random columns almost never are).
inline constexpr std::int64_t kLocalitySampleRows = 64;
inline constexpr std::int32_t kNearColumnDistance = 32;

/// Whether row r, with these offsets, is a locality sample.
TCSPARSE_CSR_OVERLAP_HD inline bool is_locality_sample(std::int64_t r, std::int64_t rows,
                                                      RowOffsets o) {
  return r >= 1 && r < rows && r % kLocalitySampleRows == 0 && o.previous_start < o.start &&
         o.start < o.end;
}

/// Whether a sample's first column and the first column of the row before are near.
TCSPARSE_CSR_OVERLAP_HD inline bool first_columns_near(std::int32_t previous_first,
                                                      std::int32_t first) {
  const std::int64_t distance = static_cast<std::int64_t>(first) - previous_first;
  return -kNearColumnDistance <= distance && distance <= kNearColumnDistance;
}

/// What a position adds to the table, and (an exclusive scan of them) the numbering before it:
/// batch starts, long rows and the long rows' pieces. At [rows], the totals. The other fields
/// only describe the matrix for partition=auto's row vectors, and the numbering does not use
/// them: longest_row is combined by max, not added (the totals carry the longest row,
/// row_vectors_suit); locality_samples and near_samples count the column-locality samples and
/// the near ones among them (scattered_columns).
struct TableCounts {
  std::int32_t batches = 0;
  std::int32_t long_rows = 0;
  std::int64_t long_tasks = 0;
  std::int32_t longest_row = 0;
  std::int32_t locality_samples = 0;
  std::int32_t near_samples = 0;
};
TCSPARSE_CSR_OVERLAP_HD inline TableCounts operator+(TableCounts a, TableCounts b) {
  return {a.batches + b.batches,
          a.long_rows + b.long_rows,
          a.long_tasks + b.long_tasks,
          a.longest_row > b.longest_row ? a.longest_row : b.longest_row,
          a.locality_samples + b.locality_samples,
          a.near_samples + b.near_samples};
}

/// Pass 1 of the table build, a row of kind `kind` and `length` nonzeros: one batch if it starts
/// one; one long row and its pieces if it is long; nothing otherwise (and at r == rows).
TCSPARSE_CSR_OVERLAP_HD inline TableCounts row_counts(RowKind kind, std::int64_t length,
                                                     std::int64_t piece) {
  switch (kind) {
    case RowKind::batch_start: return {1, 0, 0};
    case RowKind::long_row: return {0, 1, long_row_pieces(length, piece)};
    default: return {};
  }
}

/// Pass 2, position p in [0, rows] of kind `kind` after a position of kind `previous` (p == 0:
/// inside_batch), with `before` = the exclusive scan of the counts at p: where p is written (-1:
/// nowhere) as a long row (and from which task on its pieces), as the begin_row of a batch, as
/// the end_row of one.
struct ScatterWrites {
  std::int64_t long_index = -1;
  std::int64_t long_first_task = -1;
  std::int64_t begin_index = -1;
  std::int64_t end_index = -1;
};
TCSPARSE_CSR_OVERLAP_HD inline ScatterWrites scatter_writes(std::int64_t p, std::int64_t rows,
                                                           RowKind kind, RowKind previous,
                                                           TableCounts before) {
  ScatterWrites w;
  if (kind == RowKind::long_row) {
    w.long_index = before.long_rows;
    w.long_first_task = before.long_tasks;
  } else if (kind == RowKind::batch_start) {
    w.begin_index = before.batches;
  }
  // a batch ends just before p when row p - 1 is in one (not long) and row p is not in the same
  // one (p is the end, a long row or a batch start); it is the last batch started before p
  if (p >= 1 && previous != RowKind::long_row && (p == rows || kind != RowKind::inside_batch))
    w.end_index = before.batches - 1;
  return w;
}

/// The vector size of a batch of `rows` rows (>= 1) and `nnz` nonzeros (paper Alg. 6: the mean
/// row length against the switch points; nnz < point * rows is mean < point without a division).
TCSPARSE_CSR_OVERLAP_HD inline int vector_size_for(std::int64_t nnz, std::int64_t rows,
                                                   const VectorSizeRule& rule) {
  if (rule.fixed) return rule.fixed;
  int size = 1;
  for (int k = 0; k < kSwitchPoints; ++k) {
    if (nnz < static_cast<std::int64_t>(rule.switch_points[k]) * rows) return size;
    size *= 2;
  }
  return size;  // 32
}

/// How a batch of `rows` rows (>= 1) and `nnz` nonzeros is computed by a block of `threads`
/// threads: `width` threads a row (1..32: vectors of the paper; 64..threads: a group of
/// width / 32 warps a row, each row its own group), and `warp_row_length` (0: none): rows longer
/// than it are left by their vector to the warp pass.
struct BatchMode {
  int width = 1;
  std::int32_t warp_row_length = 0;
};
TCSPARSE_CSR_OVERLAP_HD inline BatchMode batch_mode(std::int64_t nnz, std::int64_t rows,
                                                   const VectorSizeRule& rule, int threads) {
  BatchMode mode;
  int width = vector_size_for(nnz, rows, rule);
  if (!rule.fixed) {
    // spread: the largest power of two that still gives every row its own threads, and no row
    // more threads than the batch's mean row length
    while (2 * width <= rule.spread_max && 2 * width <= threads &&
           rows * 2 * width <= static_cast<std::int64_t>(threads) && rows * 2 * width <= nnz)
      width *= 2;
  }
  mode.width = width;
  if (width < 32 && rule.warp_row_factor > 0 &&
      nnz > static_cast<std::int64_t>(rule.warp_row_factor) * width)
    mode.warp_row_length = rule.warp_row_factor * width;
  return mode;
}

/// Rows a batch of at most M nonzeros can leave to the warp pass (each has more than K
/// nonzeros): the shared-memory list of the batch kernel holds this many.
TCSPARSE_CSR_OVERLAP_HD inline std::int32_t warp_row_capacity(std::int32_t max_batch_size,
                                                             std::int32_t warp_row_factor) {
  return warp_row_factor > 0 ? max_batch_size / (warp_row_factor + 1) + 1 : 0;
}


/// One piece of a long row as a block of the long-row kernel takes it: the row, the piece's
/// nonzeros [begin, end) and the row's piece count (1: the block writes y; more: it writes a
/// partial sum that the combine kernel adds). Built at plan time, so that a block reads one
/// 16-byte entry where it searched long_task_ptr and then loaded the row and its offsets (three
/// dependent loads before the first nonzero).
struct alignas(16) LongRowTask {
  std::int32_t row = 0;
  std::int32_t begin = 0;
  std::int32_t end = 0;
  std::int32_t pieces = 0;
  friend bool operator==(const LongRowTask&, const LongRowTask&) = default;
};

/// Piece `index` of the long row `row`, nonzeros [row_begin, row_end), cut into `pieces` pieces
/// of `piece` nonzeros.
TCSPARSE_CSR_OVERLAP_HD inline LongRowTask long_row_task(std::int32_t row, std::int64_t row_begin,
                                                         std::int64_t row_end, std::int32_t index,
                                                         std::int32_t pieces, std::int64_t piece) {
  const std::int64_t begin = row_begin + index * piece;
  const std::int64_t end = index + 1 < pieces ? begin + piece : row_end;
  LongRowTask task;
  task.row = row;
  task.begin = static_cast<std::int32_t>(begin);
  task.end = static_cast<std::int32_t>(end);
  task.pieces = pieces;
  return task;
}

/// The first element of a batch's shared-memory copy (rounded down to kCopyAlignElements).
TCSPARSE_CSR_OVERLAP_HD constexpr std::int64_t copy_begin(std::int64_t first_nonzero) {
  return first_nonzero / kCopyAlignElements * kCopyAlignElements;
}
/// One past its last element (rounded up).
TCSPARSE_CSR_OVERLAP_HD constexpr std::int64_t copy_end(std::int64_t end_nonzero) {
  return (end_nonzero + kCopyAlignElements - 1) / kCopyAlignElements * kCopyAlignElements;
}

/// Elements one pipeline stage holds for batches of at most M nonzeros.
TCSPARSE_CSR_OVERLAP_HD constexpr std::int64_t stage_capacity(std::int32_t max_batch_size) {
  return static_cast<std::int64_t>(max_batch_size) + 2 * kCopyAlignElements;
}

/// batch_unit=warp: ints of a warp's stage that hold its batch's row offsets (row_ptr[begin_row]
/// .. row_ptr[end_row], at most max_batch_rows + 1) after a header {begin_row, end_row,
/// copy_first, unused}; a multiple of 4 (16 bytes), so that the stages stay 16-byte aligned.
inline constexpr int kWarpStageHeader = 4;
TCSPARSE_CSR_OVERLAP_HD constexpr std::int64_t warp_stage_offsets(std::int32_t max_batch_rows) {
  return (static_cast<std::int64_t>(max_batch_rows) + 1 + kWarpStageHeader + 3) / 4 * 4;
}

/// The bulk copy (sm_90, copy=bulk) moves pieces whose global and shared addresses are 16-byte
/// aligned and whose size is a multiple of 16 bytes (PTX ISA, cp.async.bulk).
inline constexpr int kBulkCopyAlignBytes = 16;

/// Whether the two bulk copies of a batch of nonzeros [first_nonzero, end_nonzero) into stage
/// `stage` of `stages` stages of `capacity` elements (the batch kernel's layout:
/// csr_overlap_kernels.cuh) keep that rule for values of `value_bytes` bytes, given arrays and a
/// dynamic shared memory that start 16-byte aligned: the source offsets, the sizes and the
/// destination offsets (values stage, then columns stage after all the values stages).
TCSPARSE_CSR_OVERLAP_HD constexpr bool bulk_copy_layout_is_aligned(std::int64_t first_nonzero,
                                                                   std::int64_t end_nonzero,
                                                                   int stage, int stages,
                                                                   std::int64_t capacity,
                                                                   std::int64_t value_bytes) {
  const std::int64_t begin = copy_begin(first_nonzero);
  const std::int64_t elements = copy_end(end_nonzero) - begin;
  const std::int64_t offsets[] = {
      begin * value_bytes,                                        // global values
      begin * 4,                                                  // global columns
      elements * value_bytes,                                     // values bytes
      elements * 4,                                               // columns bytes
      stage * capacity * value_bytes,                             // shared values stage
      stages * capacity * value_bytes + stage * capacity * 4};    // shared columns stage
  for (const std::int64_t offset : offsets)
    if (offset % kBulkCopyAlignBytes != 0) return false;
  return true;
}

// ---- partition=merge_path (not in the paper) ------------------------------------------------
// The merge path of a CSR of R rows and N nonzeros is the sequence of its R + N items, nonzero j
// and "row i ends", in the order in which a sequential CSR walk meets them: row i's end comes
// right after its last nonzero (an empty row's right after the previous row's end), so it is
// item row_ptr[i + 1] + i. A tile is tile_items consecutive items (the last fewer); where tile t
// starts is the merge path at diagonal t * tile_items: the rows ended before it and the
// nonzeros before it.

/// Where a tile starts on the merge path. Laid out as the device's int2.
struct MergeCoordinate {
  std::int32_t row = 0;      ///< rows ended before the tile
  std::int32_t nonzero = 0;  ///< nonzeros before the tile
  friend bool operator==(const MergeCoordinate&, const MergeCoordinate&) = default;
};

/// The rows ended among the first `diagonal` items of the merge path (0 <= diagonal <= rows +
/// nnz): the largest i in [max(0, diagonal - nnz), min(diagonal, rows)] with
/// row_ptr[i] + i <= diagonal (row_ptr[i] + i increases strictly with i; a binary search).
TCSPARSE_CSR_OVERLAP_HD inline std::int32_t merge_path_rows(const std::int32_t* row_ptr,
                                                            std::int64_t rows, std::int64_t nnz,
                                                            std::int64_t diagonal) {
  std::int64_t low = diagonal > nnz ? diagonal - nnz : 0;
  std::int64_t high = diagonal < rows ? diagonal : rows;
  while (low < high) {
    const std::int64_t middle = (low + high + 1) / 2;
    if (row_ptr[middle] + middle <= diagonal)
      low = middle;
    else
      high = middle - 1;
  }
  return static_cast<std::int32_t>(low);
}

/// Where tile `tile` starts (tile == tiles: the end, {rows, nnz}).
TCSPARSE_CSR_OVERLAP_HD inline MergeCoordinate merge_tile_start(const std::int32_t* row_ptr,
                                                                std::int64_t rows,
                                                                std::int64_t nnz,
                                                                std::int64_t tile_items,
                                                                std::int64_t tile) {
  const std::int64_t end = rows + nnz;
  const std::int64_t diagonal = tile * tile_items < end ? tile * tile_items : end;
  const std::int32_t row = merge_path_rows(row_ptr, rows, nnz, diagonal);
  return {row, static_cast<std::int32_t>(diagonal - row)};
}

/// Tiles of tile_items items for a matrix of `rows` rows and `nnz` nonzeros.
TCSPARSE_CSR_OVERLAP_HD constexpr std::int64_t merge_tiles(std::int64_t rows, std::int64_t nnz,
                                                           std::int64_t tile_items) {
  return (rows + nnz + tile_items - 1) / tile_items;
}

}  // namespace tcsparse::csr_overlap
