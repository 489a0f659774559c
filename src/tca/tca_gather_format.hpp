// tca kernel=gather: B staged whole (or a few blocks' worth) in shared memory, and the nonzeros
// of 8-row windows multiplied on m16n8k16 with B's rows as the A operand, each MMA taking two
// nonzeros of every row of the window and gathering those nonzeros' rows of B from shared memory
// with one ldmatrix. Not in the TCA paper: issue 11's decode widths (n <= 64), where the rows
// kernel gathers B from L1 (a wavefront a lane) and the tiles kernel multiplies 16 x 16 tiles
// that are 90 % zeros. Host side: the shape, the layout, its builder and the host model of the
// kernel (tca_gather_kernel.cuh).
//
//   A (rows x cols) is cut into tiles of range_rows rows x chunk_columns columns, one a thread
//   block; the blocks of a range (its chunks) are a cluster where they are summed in one. A block
//   stages B's chunk_columns rows (the slice's columns, up to 128 KiB: all of B's rows at 16
//   columns and 4096 of them) once, and its 16 warps split the tile's groups evenly, a warp's
//   share a contiguous run that may start and end inside a window. The ranges are as many as the
//   GPU runs at once (one wave), so that each warp streams a long run of groups.
//
//   window: 8 rows of a tile (sorted by their nonzeros in the tile, longest first; windows
//   without nonzeros are not stored) and G = ceil(its longest row's nonzeros / 2) groups, rounded
//   up to whole quads (below); group j
//   holds nonzeros 2j and 2j + 1 of each of the 8 rows (zero values past a row's end) in its 16
//   slots, slot k = nonzero 2j + k % 2 of row k / 2:
//
//     group: 16 u16 offsets (where slot k's row of B starts in the block's stage, in units of
//            16 bytes, swizzled: below) and 16 u16 values (fp16 / bf16 bits of slot k), 64 bytes;
//            stored four groups at a time (a quad, 256 bytes; windows and warps' runs are whole
//            quads), interleaved so that a lane reads its slot's four offsets in one 8-byte load
//            and its row's four value pairs in one 16-byte load:
//
//       quad: [ offset[slot 0][group 0..3] | ... | offset[slot 15][0..3] ]   128 bytes
//             [ pair[row 0][group 0..3]    | ... | pair[row 7][0..3]     ]   128 bytes
//             (pair: u32, the values of slots 2r and 2r + 1 of row r)
//
//   one MMA a group and 16 columns of B, the product transposed (C^T = B^T A^T):
//     D (16 columns x 8 rows) += G (16 x 16, G[c][k] = B[column of slot k][c])
//                                * V (16 x 8, V[k][r] = value of slot k where r = k / 2, else 0)
//   so D[c][r] accumulates row r's products. G comes from shared memory by ldmatrix.trans (lane
//   i gives the address of B's row for slot i % 8 + 8 (i / 16), unit (i / 8) % 2); V holds each
//   row's pair of values in one lane's register (the diagonal of pairs). B's rows are stored in
//   swizzled 128-byte lines, the 16-byte unit h of row r at byte gather_row_offset(r) ^ 16 h, so
//   that 8 rows of different bank groups (gather_bank_group) are read in one wavefront; the
//   builder orders each row's nonzeros so that the slots 0-7 and 8-15 of a group (an ldmatrix
//   phase each) have columns of different bank groups where it can (`octet_conflicts` counts
//   where it cannot).
//
// Bytes: 4 a stored nonzero (a 16-bit offset and value), and the zeros that pad each window's
// rows to its longest (the windows group rows of like length), rounded up to whole quads.
#pragma once

#include <cstdint>
#include <vector>

#include "common/uninitialized_vector.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/plan.hpp"

#if defined(__CUDACC__)
#define TCSPARSE_TCA_GATHER_HD __host__ __device__
#else
#define TCSPARSE_TCA_GATHER_HD
#endif

namespace tcsparse::tca {

/// Rows of a window (the N of the transposed m16n8k16) and nonzeros of a group (its K): two a
/// row, slot k of a group holding nonzero 2j + k % 2 of row k / 2 (gather_slot_row).
inline constexpr int kGatherWindowRows = 8;
inline constexpr int kGatherGroupNonzeros = 16;
inline constexpr int kGatherRowNonzerosPerGroup = kGatherGroupNonzeros / kGatherWindowRows;
/// 16 columns and 16 values of 16 bits.
inline constexpr int kGatherGroupBytes = 64;
inline constexpr int kGatherGroupHalfwords = kGatherGroupBytes / 2;
/// Groups stored interleaved (a quad), so that a lane loads the next quad's offsets and values
/// in two loads while it multiplies the current one (H200, run 321, against one group at a time:
/// n = 16 at 90 % 1.60x -> 1.70x dense cuBLAS, at 95 % 2.23x -> 2.30x; n = 8 within 3 %).
inline constexpr int kGatherQuadGroups = 4;
inline constexpr int kGatherQuadBytes = kGatherQuadGroups * kGatherGroupBytes;
/// Where slot `slot`'s offset and value of group `group` (counted from a quad's start) lie in
/// the groups array, in halfwords.
TCSPARSE_TCA_GATHER_HD constexpr std::int64_t gather_offset_at(std::int64_t group, int slot) {
  return group / kGatherQuadGroups * (kGatherQuadBytes / 2) + slot * kGatherQuadGroups +
         group % kGatherQuadGroups;
}
TCSPARSE_TCA_GATHER_HD constexpr std::int64_t gather_value_at(std::int64_t group, int slot) {
  return group / kGatherQuadGroups * (kGatherQuadBytes / 2) + kGatherQuadBytes / 4 +
         slot / 2 * (2 * kGatherQuadGroups) + group % kGatherQuadGroups * 2 + slot % 2;
}
/// Warps a thread block; they split its tile's groups evenly. 16: 8 warps left the kernel waiting
/// on its latencies (run 312, Nsight Compute: 0.31 eligible warps a scheduler); 32 warps with
/// stages of 16 groups ran slower (H200, run 321, speedup over dense cuBLAS at n = 8 / 16, 90 %:
/// 1.87x / 1.53x against 2.10x / 1.70x).
inline constexpr int kGatherWarpsPerBlock = 16;
/// A warp's run streams through shared memory in stages of this many groups (2 KiB), this
/// many stages in its ring (one read while the next is copied): 64 KiB a block, which with
/// 128 KiB of B and the output rows fills the 227 KiB of sm_90. (Measured before B was resident,
/// with two blocks an SM: H200, run 314, against 4 x 32 and 3 x 16, speedup over dense cuBLAS at
/// n = 8 / 16, 90 %: 1.84x / 1.35x against 1.70x / 1.28x and 1.72x / 1.35x; run 306: with
/// 16-group stages the pipeline's own instructions were a third of the kernel's.) The groups
/// array ends with a stage of zeros, so that a warp copies whole stages.
inline constexpr int kGatherStageGroups = 32;
inline constexpr int kGatherStages = 2;
static_assert(kGatherStageGroups % kGatherQuadGroups == 0, "stages of whole quads");
inline constexpr std::int64_t kGatherRingBytes =
    std::int64_t{kGatherWarpsPerBlock} * kGatherStages * kGatherStageGroups * kGatherGroupBytes;
/// MMAs of a group: one for each 16 columns of the slice (an 8-column slice fills half of one).
TCSPARSE_TCA_GATHER_HD constexpr int gather_mmas_per_group(int slice_columns) {
  return slice_columns <= 16 ? 1 : slice_columns / 16;
}
/// MMAs the kernel keeps independent: at up to 16 columns a group takes one MMA into the same
/// accumulators as the group before, so each would wait for the one before it; consecutive
/// groups take gather_accumulator_sets(slice) sets of accumulators in turn (summed at the window's
/// end) until this many MMAs run side by side. H200, runs 312-313 (builds with 1, 2, 4 and 8):
/// the diagonal kernel of 9a4465c at 90 %, n = 8, 1.37x -> 1.74x dense cuBLAS from 1 to 4; the
/// transposed kernel with 16 warps a block within 1 % at 2, 4 and 8.
inline constexpr int kGatherIndependentMmas = 4;
TCSPARSE_TCA_GATHER_HD constexpr int gather_accumulator_sets(int slice_columns) {
  const int mmas = gather_mmas_per_group(slice_columns);
  return mmas >= kGatherIndependentMmas ? 1 : kGatherIndependentMmas / mmas;
}
/// The block's output rows (fp32, a slice wide) are summed in shared memory; at most this much.
inline constexpr std::int64_t kGatherMaxOutputBytes = 32 << 10;
/// The staged rows of B (chunk_columns rows x slice columns x 2 bytes) at most: with the rings
/// and the output rows, what a block's shared memory holds (227 KiB on sm_90). The groups hold
/// offsets into it in units of kGatherOffsetUnit bytes (16 bits reach 1 MiB).
inline constexpr std::int64_t kGatherMaxStageBytes = 128 << 10;
inline constexpr std::uint32_t kGatherOffsetUnit = 16;
/// chunk_columns=auto: a range takes the fewest blocks whose chunks' rows of B fit this stage,
/// rounded up to a power of two up to kGatherAutoPowerOfTwoBlocks (4096 columns of A at 16
/// columns of B: one block, all of B; 11008: 4 blocks of 2752, not 3; at 32 columns 6 of 1840,
/// not 8), so that each block stages its B once for one long run of groups a warp. H200, run
/// 320, against chunks of 1024 columns (32 KiB of B a block, two blocks an SM, two waves of
/// ranges), speedup over dense cuBLAS at n = 8 / 16: 1.83x / 1.33x -> 2.13x / 1.61x at 90 %,
/// 2.48x / 1.84x -> 2.91x / 2.27x at 95 %. Runs 329-330 (4096 x 11008, the fewest against the
/// power of two): at n = 16 3 blocks 1.87x / 2.51x against 4 blocks' 1.98x / 2.67x at 90 / 95 %
/// (each stages less B), at n = 32 6 blocks 1.08x / 1.60x against 8 blocks' 0.68x / 0.97x (16
/// clusters of 8 run on 128 of the 132 SMs, and sum 8 partials).
inline constexpr std::int64_t kGatherAutoStageBytes = 128 << 10;
inline constexpr std::int64_t kGatherAutoPowerOfTwoBlocks = 4;
/// A block's stage of B is in lines of 128 bytes (1, 2, 4 or 8 rows of B), the 16-byte unit u
/// of line L at u ^ (L % 8): the TMA's 128-byte swizzle, so that tensor copies of whole lines
/// stage B's rows where the builder expects them (and a period of 8 consecutive lines spreads
/// each unit over the 8 bank groups; a tensor copy starts at a whole period).
inline constexpr std::int64_t kGatherLineBytes = 128;
inline constexpr std::int64_t kGatherSwizzleLines = 8;
/// The blocks of a range summed in one thread-block cluster (sm_90) at most; more go through
/// global memory.
inline constexpr std::int64_t kGatherMaxClusterBlocks = 8;
/// Split-K partial sums the plan may hold (fp32, one a chunk a C element).
inline constexpr std::int64_t kGatherMaxPartialBytes = std::int64_t{256} << 20;
/// The mbarrier on which B's tensor copies complete, after the output rows.
inline constexpr std::int64_t kGatherBarrierBytes = 16;
/// 128-byte lines of B's stage a tensor copy brings at most (the TMA's box limit).
inline constexpr std::int64_t kGatherTensorBoxLines = 256;
/// Column-major B (its transpose row-major) arrives by tensor copies of B^T, this many of its
/// rows (128 bytes) a box: a box of the slice's columns lands in the bytes of as many staged rows
/// of B, which a warp then rewrites in place as those rows (ldmatrix.trans, 8 x 8 at a time).
/// Needs chunk_columns a multiple of it, so that no box passes the stage, and slices of at most
/// kGatherMaxTransposedSlice columns (a warp holds a region's tiles in 32 registers a lane
/// there); elsewhere the threads stage B (gather_transposed_copies_fit). H200, run 350
/// (bench/results/2026-11-30-1730-h200-tca-gather-column-major), against the threads' 16-byte
/// loads transposed in registers: n = 16 at 90 % 1.13x -> 1.40x dense cuBLAS (14336 x 4096
/// 23.8 -> 19.7 us; row-major B 16.3 us), at 95 % 1.36x -> 1.79x.
inline constexpr std::int64_t kGatherTransposeRows = kGatherLineBytes / 2;
inline constexpr int kGatherMaxTransposedSlice = 32;
/// A tensor copy's box has at most 256 elements in each dimension (the TMA's limit).
inline constexpr int kGatherMaxBoxGroups = 256;
/// The "no row" entry of a window's row list.
inline constexpr std::uint16_t kGatherNoRow = 0xffff;

/// The row of its window whose nonzero slot `slot` of a group holds.
TCSPARSE_TCA_GATHER_HD constexpr int gather_slot_row(int slot) {
  return slot / kGatherRowNonzerosPerGroup;
}

struct GatherShape {
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t chunk_columns = 8;  ///< columns of A of a tile (rows of B a block stages), a multiple of 8
  std::int64_t chunks = 1;         ///< ceil(cols / chunk_columns), at least 1: the blocks of a range
  std::int64_t range_rows = 1;     ///< rows of a tile
  std::int64_t ranges = 1;         ///< ceil(rows / range_rows), at least 1
  int slice_columns = 8;           ///< 8, 16, 32 or 64: columns of B and C a block computes
  std::int64_t slices = 1;         ///< ceil(n / slice_columns), at least 1
  std::int64_t tiles() const { return ranges * chunks; }
  /// Windows of a tile's rows (the last one's rows past range_rows are none).
  std::int64_t windows_per_tile() const {
    return (range_rows + kGatherWindowRows - 1) / kGatherWindowRows;
  }
  /// Blocks of a range (a cluster where they are summed so): one a chunk.
  std::int64_t range_blocks() const { return chunks; }
  std::int64_t row_bytes() const { return std::int64_t{slice_columns} * 2; }
  std::int64_t stage_bytes() const { return chunk_columns * row_bytes(); }
  /// The stage's 128-byte lines (chunk_columns is a multiple of 8: whole lines).
  std::int64_t stage_lines() const { return stage_bytes() / kGatherLineBytes; }
  std::int64_t output_bytes() const { return range_rows * slice_columns * 4; }
  /// Dynamic shared memory of a block: B's stage, the warps' rings, the output rows, the
  /// mbarrier of B's tensor copies.
  std::int64_t shared_bytes() const {
    return stage_bytes() + kGatherRingBytes + output_bytes() + kGatherBarrierBytes;
  }
  /// Thread blocks of a slice: ranges x range_blocks.
  std::int64_t layout_blocks() const { return ranges * range_blocks(); }
  std::int64_t blocks() const { return layout_blocks() * slices; }
  /// Split-K partial sums in global memory (the blocks of a range not summed in a cluster).
  std::int64_t partial_bytes() const { return blocks() * output_bytes(); }
};

/// The slices and chunks for a rows x cols matrix at width n: slices of the narrowest of 8, 16,
/// 32, 64 columns that holds n (64 above), or `slice_columns`; chunks of `chunk_columns` (rounded
/// up to 8), or the fewest chunks whose rows of B fit kGatherAutoStageBytes, a power of two up to
/// kGatherAutoPowerOfTwoBlocks. The ranges are the widest the output bytes allow: the caller
/// narrows them with gather_with_ranges once it knows how many blocks run at once.
/// ParameterError where a chunk's stage exceeds kGatherMaxStageBytes.
GatherShape choose_gather_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                                std::int64_t chunk_columns = 0, int slice_columns = 0);
/// `shape` with its rows cut into about `wanted_ranges` ranges of equal rows (never wider than
/// the output bytes allow).
GatherShape gather_with_ranges(GatherShape shape, std::int64_t wanted_ranges);

struct GatherLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  GatherShape shape;
  /// Block b = range * range_blocks + block of the range, warp w: its groups are
  /// [warp_group_begin[16 b + w], warp_group_begin[16 b + w + 1]), an even share of the block's
  /// quads (layout_blocks * 16 + 1 entries).
  std::vector<std::uint32_t> warp_group_begin;
  /// The window that holds warp 16 b + w's first group (layout_blocks * 16 entries); the warp's
  /// run may start inside it and end inside a later one.
  std::vector<std::uint32_t> warp_first_window;
  /// Window i's groups are [window_group_begin[i], window_group_begin[i + 1]): whole quads,
  /// never empty.
  std::vector<std::uint32_t> window_group_begin;
  /// Window i's 8 rows of its range (kGatherNoRow past the range or the matrix).
  std::vector<std::uint16_t> window_rows;
  /// The groups, kGatherGroupHalfwords each, in quads (gather_offset_at, gather_value_at), then
  /// a stage of zero groups.
  detail::UninitializedVector<std::uint16_t> groups;
  std::int64_t octet_conflicts = 0;  ///< 8-slot halves of groups with a bank group repeated
  std::int64_t windows() const {
    return static_cast<std::int64_t>(window_group_begin.size()) - 1;
  }
  std::int64_t group_count() const {
    return static_cast<std::int64_t>(groups.size()) / kGatherGroupHalfwords - kGatherStageGroups;
  }
  /// Device bytes of the arrays above.
  std::int64_t bytes() const;
};

/// The layout of a valid CSR (sorted, unique columns) for `shape`; values as 16-bit patterns.
/// Throws IndexOverflowError past 32-bit group offsets.
GatherLayout build_gather_layout(std::int64_t rows, std::int64_t cols,
                                 const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                 const std::uint16_t* values, const GatherShape& shape);

template <typename Value>
GatherLayout build_gather_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                                 const GatherShape& shape) {
  static_assert(sizeof(Value) == 2, "the gather layout holds 16-bit values");
  return build_gather_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(),
                             matrix.col_idx.data(),
                             reinterpret_cast<const std::uint16_t*>(matrix.values.data()), shape);
}

/// {"chunks", "chunk_columns", "range_blocks", "ranges", "range_rows", "slices",
///  "slice_columns", "stage_bytes", "windows", "groups", "padding_ratio", "octet_conflicts",
///  "gather_bytes"}.
Json gather_details(const GatherLayout& layout);


/// Where row r of a block's stage of B (rows of `row_bytes` = 16, 32, 64 or 128) starts, in
/// bytes: its line L = r / (128 / row_bytes), its first unit u = (r % (128 / row_bytes)) x
/// row_bytes / 16, at 128 L + 16 (u ^ (L % 8)); its 16-byte unit h is at that ^ 16 h. The
/// builder stores it (divided by kGatherOffsetUnit); the kernel stages B's rows there. In
/// unsigned arithmetic (r >= 0), so that in a kernel, where row_bytes is a constant, the
/// divisions are shifts: a signed row cost gather_transpose_b 190 instructions a region against
/// 118 (H200, runs 357-358: n = 8 at 95 % 2.32x -> 2.51x dense with column-major B).
TCSPARSE_TCA_GATHER_HD constexpr std::uint32_t gather_row_offset(std::int64_t r,
                                                                 std::int64_t row_bytes) {
  const auto row = static_cast<std::uint64_t>(r);
  const auto rows_a_line = static_cast<std::uint64_t>(kGatherLineBytes / row_bytes);
  const std::uint64_t line = row / rows_a_line;
  const std::uint64_t first_unit = row % rows_a_line * static_cast<std::uint64_t>(row_bytes / 16);
  return static_cast<std::uint32_t>(
      static_cast<std::uint64_t>(kGatherLineBytes) * line +
      16 * (first_unit ^ (line % static_cast<std::uint64_t>(kGatherSwizzleLines))));
}

/// Whether column-major B is staged by tensor copies of B^T for `shape` (kGatherTransposeRows; on
/// sm_90, where the apply's B is 16-byte aligned).
inline bool gather_transposed_copies_fit(const GatherShape& shape) {
  return shape.cols > 0 && shape.cols % 8 == 0 &&
         shape.slice_columns <= kGatherMaxTransposedSlice &&
         shape.chunk_columns % kGatherTransposeRows == 0;
}

/// The row of the stage that starts at byte `offset` (a gather_row_offset).
TCSPARSE_TCA_GATHER_HD constexpr std::int64_t gather_stage_row(std::int64_t offset,
                                                               std::int64_t row_bytes) {
  const std::int64_t line = offset / kGatherLineBytes;
  const std::int64_t unit = (offset % kGatherLineBytes / 16) ^ (line % kGatherSwizzleLines);
  return line * (kGatherLineBytes / row_bytes) + unit / (row_bytes / 16);
}

/// The bank group (0-7: which 16 bytes of shared memory's 128-byte rows) of row r's unit 0 in
/// the stage (unit h: that ^ h). An ldmatrix phase reads 8 rows' units in one wavefront where
/// their bank groups differ; rows 0-7 have all 8.
TCSPARSE_TCA_GATHER_HD constexpr int gather_bank_group(std::int64_t r, std::int64_t row_bytes) {
  return static_cast<int>(gather_row_offset(r, row_bytes) / 16 % 8);
}

/// The host model of the kernel: C = alpha A B + beta C walking the layout as the kernel does
/// (block, warp, its run of groups window by window, slot), fp32 products summed per tile, the
/// tiles of a range summed in order. B: cols x n, C: rows x n in `dense` layout. beta == 0 does not read C.
template <typename Value>
void gather_host_apply(const GatherLayout& layout, const std::vector<Value>& B,
                       std::vector<Value>& C, std::int64_t n, DenseLayout dense, float alpha,
                       float beta);

}  // namespace tcsparse::tca
