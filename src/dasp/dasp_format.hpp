// The DASP layout (SC'23 §3.2) on the host: CSR -> long / medium / short / empty rows in
// mma-shaped blocks, and a host `apply` that walks the layout exactly as the kernels do.
//
// Rows are split by length (number of nonzeros):
//   long    > max_medium_row_length (256)  groups of 2 blocks, zero-padded, several warps a row
//   medium  5 .. 256                       sorted by length (descending, stable; from 1 M
//                                          rows within windows of 4096 caller rows), cut into
//                                          row-blocks of `shape.rows` rows; the leading 4-wide
//                                          column chunks of a row-block that are >= 75 % full
//                                          are regular (zero-padded) blocks, the rest of each
//                                          row goes to an irregular CSR part
//           (rows of 4 too in large matrices of mostly medium rows: medium_min_row_length)
//   short   1 .. 4                         pieced into 4-wide block rows: 1+3, 4 (3s and an odd
//                                          2 padded to 4), 2+2; leftover 1s one value a row
//   empty   0                              only written (beta * y or 0)
//
// A block is `shape.rows` x 4 values (DaspBlockShape); lane 4r+q of a warp holds its share of
// the mma A fragment (DaspBlockShape::offset gives where a value is stored):
//
//   fp64, 8x4, one mma.m8n8k4            fp16/bf16, 16x4, one mma.m16n8k8 (A is 16x8)
//   storage = row-major 8x4 [8r + k],    storage = 8 memory rows of 8 values:
//     or column-major [8k + r]              memory row r = [block row r (4) | block row r+8 (4)]
//     (DaspBlockShape::column_major)        lane 4r+q <- 2 values; q < 2: block row r  -> A rows 0-7,
//   lane 4r+k <- row r, value k                                  k 0-3; q >= 2: row r+8 -> A rows
//   A[r][k] = block row r, value k                               8-15, k 4-7 (zeros elsewhere)
//   B[k][r] = x[col of A[r][k]]          C[r][r], C[r+8][r] = block rows r and r+8
//   C[r][r] = dot product of block row r
//
// Column-major fp64 blocks put value k of the 8 rows in one aligned 64-byte piece, so the padded
// last values of a row-block's rows (a 27-value row's 28th) are not loaded
// (DaspLayout::medium_tail_widths); a half-warp then reads two lines instead of one, which costs
// where there is little padding to skip (resolve_fp64_column_major).
//
// Padding values are 0 with the column of a real value of the same row (its last), so a padded
// slot reads an x the row reads anyway; padding that belongs to no row has column 0.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "common/stopwatch.hpp"
#include "common/uninitialized_vector.hpp"
#include "dasp/dasp_parameters.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"

namespace tcsparse::dasp {

/// Threads of a warp; also the rows (outputs) of one short-row warp tile (§3.3.3).
inline constexpr int kWarpSize = 32;

/// The shape of one block, a property of the layout (fp64 and fp16 differ).
struct DaspBlockShape {
  /// Block rows: 8 = MMA_M of mma.m8n8k4 (fp64); 16 = the two 8-row halves of one
  /// mma.m16n8k8 (fp16, bf16), rows 0-7 on k 0-3 and rows 8-15 on k 4-7.
  int rows = 8;
  /// Values of one row in a block (kDaspBlockWidth).
  int width = kDaspBlockWidth;
  /// 8-row (fp64) blocks only: stored column-major (see the picture above).
  bool column_major = false;

  constexpr int values() const { return rows * width; }
  constexpr int values_per_lane() const { return values() / kWarpSize; }
  /// Storage position inside a block of value `value` (0..width-1) of block row `slot` (see
  /// the picture above).
  constexpr int offset(int slot, int value) const {
    if (rows == 8 && column_major) return value * 8 + slot;
    return (slot % 8) * (rows / 8) * width + (slot / 8) * width + value;
  }
  friend constexpr bool operator==(const DaspBlockShape&, const DaspBlockShape&) = default;
};

/// The block shape the kernels use for a value type: 8x4 for double, 16x4 for half / bfloat16.
template <typename Value>
constexpr DaspBlockShape default_block_shape() {
  if constexpr (std::is_same_v<Value, double>) return {8, kDaspBlockWidth};
  else return {16, kDaspBlockWidth};
}

/// The layout's value and column arrays: not zero-filled on allocation (the builder fills them
/// in parallel); the library's one uninitialised host buffer (common/uninitialized_vector.hpp).
template <typename T>
using HostArray = detail::UninitializedVector<T>;

/// One warp's share of a long row: blocks [block_begin, block_end) of the long arrays.
/// Same layout as the kernels' int4.
struct DaspLongTask {
  std::int32_t row = 0;          ///< the row in the caller's order
  std::int32_t block_begin = 0;
  std::int32_t block_end = 0;
  std::int32_t long_row = 0;     ///< index among the long rows (tickets, task pointers)
  friend bool operator==(const DaspLongTask&, const DaspLongTask&) = default;
};
static_assert(sizeof(DaspLongTask) == 16);

/// A piece of a medium row-block after its first, when a warp takes one row-block
/// (medium_rows_per_warp = shape.rows) and the row-block has more regular blocks than
/// medium_blocks_per_piece: piece k takes blocks [k * per_piece, (k + 1) * per_piece) of the
/// row-block. Piece 0 of every row-block is the warp of the same index (no table); only the
/// further pieces are listed. Same layout as the kernels' int2.
struct DaspMediumPiece {
  std::int32_t row_block = 0;
  std::int32_t piece = 0;
  friend bool operator==(const DaspMediumPiece&, const DaspMediumPiece&) = default;
};
static_assert(sizeof(DaspMediumPiece) == 8);

/// The four short-row piecings (§3.2, §3.3.3), in storage order.
enum class DaspShortKind { pairs_1_3 = 0, rows_4 = 1, pairs_2_2 = 2, single_1 = 3 };
inline constexpr int kDaspShortKinds = 4;

/// Values of one warp tile (32 outputs) of each short kind: 16 pairs or 32 rows of 4, 32 ones.
inline constexpr std::array<int, kDaspShortKinds> kDaspShortTileValues = {64, 128, 64, 32};

/// Where one short kind lives in the short arrays.
struct DaspShortPart {
  std::int64_t tiles = 0;         ///< warp tiles of 32 outputs
  std::int64_t value_offset = 0;  ///< first value in short_values / short_cols
  std::int64_t row_offset = 0;    ///< first entry in short_row_ids (= 32 * tiles before it)
  friend bool operator==(const DaspShortPart&, const DaspShortPart&) = default;
};

/// What the layout holds, for statistics and tests. "stored" counts padding.
struct DaspCounts {
  std::int64_t rows_long = 0, rows_medium = 0, rows_short = 0, rows_empty = 0;
  std::int64_t nnz_long = 0, nnz_medium_regular = 0, nnz_medium_irregular = 0, nnz_short = 0;
  std::int64_t stored_long = 0, stored_medium_regular = 0, stored_short = 0;
  std::int64_t long_groups = 0, long_tasks = 0;
  std::int64_t row_blocks = 0, regular_blocks = 0;
  /// warps of the medium part: units of several row-blocks, or pieces of one (medium tasks)
  std::int64_t medium_units = 0;
  /// short rows by length 1..4 (index 0 unused)
  std::array<std::int64_t, 5> short_rows_of_length{};
  std::int64_t pairs_1_3 = 0, pairs_2_2 = 0, rows_4 = 0, padded_3 = 0, padded_2 = 0, single_1 = 0;
  std::array<std::int64_t, kDaspShortKinds> short_tiles{};
  std::int64_t empty_tiles = 0;
  /// Resolved work division (reported with the counts).
  int max_medium_row_length = kDaspMaxMediumRowLength;
  int medium_rows_per_warp = 8;
  /// Medium rows sorted by length within windows of this many caller rows; 0: over the whole
  /// matrix (resolve_medium_row_window).
  std::int64_t medium_row_window = 0;
  /// Rows of 1 and of 3 values paired within windows of this many caller rows; 0: over the
  /// whole matrix (resolve_short_pair_window, pair_short_rows_in_windows).
  std::int64_t short_pair_window = 0;
  /// Windowed medium rows ordered by block width and caller row (order_windows_by_width), not by
  /// length.
  bool medium_rows_by_width = false;
  /// The shortest medium row: 5 (the paper's) or 4 (resolve_medium_min_row_length).
  int medium_min_row_length = kDaspMaxShortRowLength + 1;
  DaspWorkSplit split;
  bool short_tiles_by_row = false;
  /// Medium row-blocks whose last block holds fewer than 4 values of every row.
  std::int64_t padded_tail_blocks = 0;
  bool column_major_blocks = false;  ///< resolve_fp64_column_major

  std::int64_t nnz() const {
    return nnz_long + nnz_medium_regular + nnz_medium_irregular + nnz_short;
  }
  /// Every value stored on the device, padding included.
  std::int64_t stored_values() const {
    return stored_long + stored_medium_regular + nnz_medium_irregular + stored_short;
  }
  double padding_ratio() const {
    const std::int64_t n = nnz();
    return n ? static_cast<double>(stored_values() - n) / static_cast<double>(n) : 0.0;
  }
  /// Warps of one launch: long tasks, medium units, short tiles, empty tiles.
  std::int64_t warps() const {
    std::int64_t w = long_tasks + medium_units + empty_tiles;
    for (auto t : short_tiles) w += t;
    return w;
  }
  friend bool operator==(const DaspCounts&, const DaspCounts&) = default;
};

/// The scalars of a DASP layout: its size, the decisions it was built with, what it holds and
/// where its parts start. The host layout (DaspLayout) and the device-built one
/// (dasp_device_build.hpp) share them, so that the kernels' arguments, the statistics and the
/// tests read one struct whichever side built the arrays.
struct DaspLayoutInfo {
  std::int32_t rows = 0, cols = 0;
  std::int64_t nnz = 0;
  DaspBlockShape shape;
  DaspParameters parameters;
  int medium_rows_per_warp = 8;  ///< resolved (§3.3.2); rows of one medium warp unit
  DaspWorkSplit split;           ///< resolved long groups / medium blocks a warp
  DaspCounts counts;

  /// With one row-block a warp (rowblocks_per_unit() == 1), a row-block of more than
  /// medium_blocks_per_piece regular blocks is split into pieces: warp rb takes piece 0 of
  /// row-block rb (and its irregular part), warp row_blocks + e takes medium_extra_pieces[e].
  /// Split row-blocks are a prefix (block counts do not grow along the sorted row-blocks), so
  /// their partial sums fit [split row-blocks][medium_max_pieces][shape.rows].
  std::int32_t medium_blocks_per_piece = 1 << 30;
  std::int32_t medium_max_pieces = 1;
  std::int64_t medium_split_row_blocks = 0;
  /// The leading medium warp units (row-blocks when one a warp) without irregular values:
  /// their warps skip reading irregular_ptr. Rows are sorted by length, so they are a prefix.
  std::int64_t medium_plain_units = 0;

  /// Where each short kind lives in the short arrays.
  std::array<DaspShortPart, kDaspShortKinds> short_parts{};

  int rowblocks_per_unit() const { return medium_rows_per_warp / shape.rows; }
  std::int64_t medium_units() const { return counts.medium_units; }
  /// Medium row-blocks padded to whole warp units (medium_row_ids holds their rows).
  std::int64_t padded_row_blocks() const {
    const std::int64_t per_unit = rowblocks_per_unit();
    return (counts.row_blocks + per_unit - 1) / per_unit * per_unit;
  }
};

/// The DASP layout of one matrix, built on the host: its scalars and every array.
template <typename Value>
struct DaspLayout : DaspLayoutInfo {
  // Long rows (§3.2 longVal, longCid, groupPtr). Row l holds groups
  // [long_group_ptr[l], long_group_ptr[l+1]) of 2 blocks; its values in order, then zeros.
  std::vector<std::int32_t> long_row_ids;
  std::vector<std::int32_t> long_group_ptr;
  HostArray<Value> long_values;
  HostArray<std::int32_t> long_cols;
  std::vector<DaspLongTask> long_tasks;      ///< one per warp, rows in order
  std::vector<std::int32_t> long_task_ptr;   ///< [long rows + 1]: tasks of each row

  // Medium rows (§3.2 regVal, regCid, rowblockPtr, irregVal, irregCid, irregPtr), in sorted
  // order, padded with empty rows / row-blocks to whole warp units (row id -1).
  std::vector<std::int32_t> medium_row_ids;  ///< [padded row-blocks * shape.rows]
  std::vector<std::int32_t> rowblock_ptr;    ///< value offsets, [padded row-blocks + 1]
  /// The further pieces of split row-blocks (DaspLayoutInfo::medium_blocks_per_piece).
  std::vector<DaspMediumPiece> medium_extra_pieces;
  HostArray<Value> regular_values;
  HostArray<std::int32_t> regular_cols;
  /// [padded row-blocks]: values of its longest row (its first) in the row-block's last regular
  /// block, 1..4; the other block rows hold no more there, so values [width, 4) of that block
  /// are padding in every row, which the fp64 kernel does not load from column-major blocks.
  std::vector<std::uint8_t> medium_tail_widths;
  std::vector<std::int32_t> irregular_ptr;   ///< [padded row-blocks * shape.rows + 1]
  HostArray<Value> irregular_values;
  HostArray<std::int32_t> irregular_cols;

  // Short rows (§3.2 shortVal, shortCid): the four kinds one after another in warp tiles
  // (short_parts); row ids in output order (tile * 32 + lane), -1 where a tile is not full.
  HostArray<Value> short_values;
  HostArray<std::int32_t> short_cols;
  std::vector<std::int32_t> short_row_ids;
  /// When counts.short_tiles_by_row: the short warps' tiles in run order, each
  /// kind | tile << 2, sorted by the tile's smallest row; empty: by kind, as above.
  std::vector<std::int32_t> short_tile_order;

  // Empty rows, padded with -1 to whole tiles of 32.
  std::vector<std::int32_t> empty_row_ids;
};

/// What build_dasp_layout fills: every array, or the index arrays only (row ids, offsets, tasks,
/// pieces), leaving long/regular/irregular/short values and columns empty for the GPU to fill
/// from the CSR (dasp.cu); their sizes are in DaspCounts.
enum class DaspFill { values, index_only };

/// Builds the layout (OpenMP; linear time). `shape` defaults to default_block_shape<Value>().
/// Throws IndexOverflowError when a padded array would not fit 32-bit offsets. With `phases`,
/// the time of each phase is recorded there (max_len, row_sort, regular_blocks, windows,
/// work_split, fill_long, fill_medium, fill_short, empty_rows; PlanStats details).
template <typename Value>
DaspLayout<Value> build_dasp_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                                    const DaspParameters& parameters = {},
                                    std::optional<DaspBlockShape> shape = std::nullopt,
                                    DaspFill fill = DaspFill::values,
                                    detail::PhaseTimes* phases = nullptr);

/// Whether 8-row (fp64) blocks are stored column-major: the explicit fp64_block_order, else when
/// counts.padded_tail_blocks reach kDaspColumnMajorMinTailBlockShare of the regular blocks.
bool resolve_fp64_column_major(const DaspParameters& parameters, DaspBlockShape shape,
                               const DaspCounts& counts);

/// MAX_LEN for `matrix` in a layout of `shape`: the explicit parameter; else, below
/// kDaspSmallMatrixNnz nonzeros, the first of kDaspSmallMatrixMaxMediumRowLengths whose layout
/// (values of sizeof(Value) and 4-byte columns, long rows padded to whole groups) takes at most
/// kDaspLatencyBoundLayoutBytes, or failing that pads its long rows by at most
/// kDaspSmallMatrixMaxLongRowPadding of its nonzeros; for an fp64 matrix of dense long rows
/// (kDaspDenseRowsMinDensity, kDaspDenseRowsMinMeanLength,
/// kDaspDenseRowsMinNnz) its longest row, so that every row is a
/// medium row (then one row-block a warp, in pieces of kDaspDenseRowsBlocksPerPiece blocks); for
/// a matrix whose rows above 256 values are at least as many as its medium rows
/// kDaspFewMediumRowsMaxMediumRowLength; for fp64 below kDaspMidMatrixNnz
/// kDaspMidMatrixMaxMediumRowLength where it pads little; else the paper's
/// kDaspMaxMediumRowLength.
template <typename Value>
int resolve_max_medium_row_length(const CsrMatrix<Value, std::int32_t>& matrix,
                                  const DaspParameters& parameters, DaspBlockShape shape);

/// The layout's MAX_LEN came from the dense-long-rows rule of resolve_max_medium_row_length (no
/// explicit MAX_LEN, and one above the paper's, which no other automatic choice gives): its
/// medium row-blocks are split in pieces and its kernel keeps kDaspDenseRowsBlocksInFlight.
bool is_dense_long_rows_layout(const DaspParameters& parameters, int max_medium_row_length);

/// Whether the long rows of a layout of `shape` set its kernel's time: it has long rows and at
/// most kDaspLongRowsCriticalMaxBytes of stored values (`value_bytes` each) and 4-byte columns;
/// or, an fp64 graph of one medium row-block a warp applied in the caller's row order
/// (`caller_row_order`) with kDaspGraphMinEmptyRowShare of its rows empty, at most
/// kDaspGraphLongRowsCriticalMaxBytes.
bool long_rows_are_critical(const DaspCounts& counts, DaspBlockShape shape, int value_bytes,
                            bool caller_row_order);

/// The counts build_dasp_layout would report, without filling any array.
template <typename Value>
DaspCounts count_dasp_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                             const DaspParameters& parameters, DaspBlockShape shape);

/// y = alpha * A * x + beta * y by walking the layout exactly as the kernels do (same blocks,
/// padding, row order and piecing), accumulating in double. beta == 0 ignores y's contents.
/// Throws Error if a stored column is outside [0, cols) (a layout bug).
template <typename Value>
void dasp_host_apply(const DaspLayout<Value>& layout, std::span<const Value> x,
                     std::span<double> y, double alpha, double beta);

/// The plan's row order ("row_order=plan"): the rows in the order the kernel's warps write them
/// (long rows, medium rows as sorted, short rows tile by tile in run order, empty rows), so that
/// the rows of one warp, and of consecutive warps, are consecutive. Element p is the caller's row
/// at plan position p: a permutation of [0, rows).
template <typename Value>
std::vector<std::int32_t> dasp_plan_row_order(const DaspLayout<Value>& layout);

/// The inverse of a row order: caller_to_plan[order[p]] = p.
std::vector<std::int32_t> inverse_row_order(std::span<const std::int32_t> order);

/// Rewrites a layout built in the caller's order to the plan's: every row id r (long tasks and
/// rows, medium, short and empty row ids) becomes caller_to_plan[r] and, with `columns`, every
/// stored column c (padding included) becomes caller_to_plan[c], which is the symmetric
/// permutation P A P^T of a square matrix. The kernels walk the result unchanged. The GPU does the
/// same to its copy (DeviceLayout::to_plan_order); this one is for the host walker and its tests.
template <typename Value>
void remap_to_plan_order(DaspLayout<Value>& layout, std::span<const std::int32_t> caller_to_plan,
                         bool columns);

/// The layout's statistics (PlanStats::details and `tcsparse info`): rows, nonzeros and padding
/// per category, work split, block order, the parameters as resolved.
Json layout_statistics(const DaspCounts& counts, DaspBlockShape shape,
                       const DaspParameters& parameters);

/// layout_statistics of the fp64 layout of `matrix`, counted on the host (no GPU, no arrays).
Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                            const DaspParameters& parameters);

}  // namespace tcsparse::dasp
