// The decisions of a DASP layout that both builders take from counts (the host plan in
// dasp_classify.cpp, the device build in dasp_device_build.cu), so that a layout built on the GPU
// is the host's bit for bit: MAX_LEN from a summary of the row lengths, the category bounds from
// the number of rows of each length, the windows, the fp64 block order, the warps' work, the
// short rows' piecing. Free of OpenMP and CUDA: both sides include it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

#include "dasp/dasp_format.hpp"

namespace tcsparse::dasp::internal {

using std::int32_t;
using std::int64_t;

inline std::size_t sz(int64_t v) { return static_cast<std::size_t>(v); }

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Values of a row-block's longest row (its first: rows are sorted by length) in the last of its
/// `blocks` regular blocks, 1..width; no other row of the row-block has more there.
constexpr int64_t tail_width(int64_t longest_row, int64_t blocks, int width) {
  return std::clamp<int64_t>(longest_row - (blocks - 1) * width, 1, width);
}

/// Where each category starts in the rows sorted by key descending (key = length; long rows
/// max_medium + 1): long, medium, short (by length), empty.
struct CategoryBounds {
  int64_t medium_begin = 0, short_begin = 0, empty_begin = 0;
  /// short rows of length k are [short_begin_of[k], short_begin_of[k] + count)
  std::array<int64_t, 5> short_begin_of{};
  std::array<int64_t, 5> short_count_of{};
};

/// The start of each key's bucket when rows are sorted by key descending: [key] for keys
/// 0 .. key_count - 1, from the number of rows of each key.
std::vector<int64_t> descending_bucket_starts(std::span<const int64_t> rows_of_key);

/// The categories' bounds from the bucket starts of the sort by key (descending_bucket_starts):
/// rows of shortest_medium .. max_medium values are medium rows, shorter ones short rows.
CategoryBounds category_bounds(std::span<const int64_t> bucket_begin, int max_medium,
                               int shortest_medium);

/// The row lengths a layout's MAX_LEN depends on (choose_max_medium_row_length).
struct RowLengthSummary {
  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t shortest = 0, longest = 0;
  /// [k]: the zeros that rows longer than kDaspSmallMatrixMaxMediumRowLengths[k] get when padded
  /// to whole long-row groups
  std::array<int64_t, std::size(kDaspSmallMatrixMaxMediumRowLengths)> candidate_padding{};
  /// rows longer than kDaspMaxMediumRowLength, and rows of kDaspMaxShortRowLength + 1 up to it
  int64_t rows_above_paper_max = 0, rows_medium_at_paper_max = 0;
};

/// Values of one long-row group (kDaspBlocksPerLongGroup blocks).
int64_t long_row_group_values(DaspBlockShape shape);

/// MAX_LEN from the summary (resolve_max_medium_row_length says how), for values of
/// `value_bytes` bytes.
int choose_max_medium_row_length(const RowLengthSummary& summary, const DaspParameters& parameters,
                                 DaspBlockShape shape, int value_bytes);

/// The fewest values a medium block must hold to be kept as a regular block (§3.2 threshold;
/// regular_block_min_fill=auto: the paper's kDaspRegularBlockMinFill), at least 1 (an empty chunk
/// is never a block).
int min_regular_fill(const DaspParameters& parameters, DaspBlockShape shape);

/// What the regular blocks of the medium row-blocks add up to (host: count_regular_blocks in
/// dasp_classify.cpp; device: the count kernel of dasp_build_kernels.cuh).
struct RegularBlockCounts {
  int64_t regular_blocks = 0, regular_nnz = 0, medium_nnz = 0, padded_tail_blocks = 0;
  int64_t largest_row_block = 0;  ///< regular blocks of the largest row-block
  /// Blocks that would cover every medium value: per row-block, its first (longest) row's
  /// chunks, the regular blocks of fill 0.
  int64_t covering_blocks = 0;
};

/// regular_block_min_fill=auto: whether every medium value goes into a regular block (fill 0:
/// the recount's min_regular_fill is 1) instead of the paper's fill, from the counts at the
/// paper's fill: 8x4 (fp64) blocks, at least kDaspAllRegularMinNnz nonzeros, not a layout of
/// dense long rows, some irregular values, and at most kDaspAllRegularMaxGrowth x nnz more values
/// stored.
bool all_medium_values_regular(const DaspParameters& parameters, DaspBlockShape shape, int64_t nnz,
                               int max_medium, const RegularBlockCounts& at_paper_fill);

/// Whether the windowed medium rows of a layout whose medium values are all regular are ordered
/// by block width and caller row (DaspParameters::medium_row_order: auto or width).
inline bool medium_rows_by_width(const DaspParameters& parameters) {
  return parameters.medium_row_order != 1;
}

/// The sort key of medium row `row` of `length` values in order_windows_by_width: its window,
/// then its block width (length rounded up to block_width, at most max_medium's) descending,
/// then the row. Below 2^31 x (max_medium / block_width + 2), so 64 bits hold it.
constexpr uint64_t window_width_key(int32_t row, int64_t length, int64_t window, int block_width,
                                    int max_medium) {
  const auto widths = static_cast<uint64_t>(max_medium / block_width + 2);
  const auto width = static_cast<uint64_t>((length + block_width - 1) / block_width);
  const auto r = static_cast<uint64_t>(row), w = static_cast<uint64_t>(window);
  return ((r / w) * widths + (widths - 1 - width)) * w + r % w;
}

/// The row of a window_width_key.
constexpr int32_t row_of_window_width_key(uint64_t key, int64_t window, int block_width,
                                          int max_medium) {
  const auto widths = static_cast<uint64_t>(max_medium / block_width + 2);
  const auto w = static_cast<uint64_t>(window);
  return static_cast<int32_t>((key / w / widths) * w + key % w);
}

/// Whether medium rows are regrouped by windows of `window` caller rows (kDaspMediumRowWindow):
/// only where warps take several row-blocks and the layout is not of dense long rows.
bool windows_apply(int64_t window, int64_t rows, int medium_rows_per_warp, int block_rows,
                   const DaspParameters& parameters, int max_medium, int64_t rows_medium);

/// Sets the medium counts from the regular blocks and decides the fp64 block order
/// (shape.column_major). Throws IndexOverflowError when the regular values do not fit 32-bit
/// offsets.
void set_medium_counts(DaspCounts& c, DaspBlockShape& shape, const DaspParameters& parameters,
                       const RegularBlockCounts& blocks);

/// Sets the long counts; throws IndexOverflowError when the padded long values do not fit
/// 32-bit offsets.
void set_long_counts(DaspCounts& c, int64_t nnz_long, int64_t long_groups, int64_t group_values);

/// The warps' work: the split (explicit, the small-matrix heavy-tail rules from the longest long
/// row: kDaspVeryLongRowRatio, or kDaspSkewedRowRatio with kDaspSplitRowMinLength; the fp64
/// mid-size rule, kDaspMidMatrixLongGroupsPerWarp; the dense-long-rows pieces), and medium_rows_per_warp set to one row-block for dense long
/// rows when not explicit.
DaspWorkSplit resolve_layout_work(const DaspParameters& parameters, int64_t nnz, int64_t rows,
                                  int64_t longest_long_row, int max_medium, int block_rows,
                                  int& medium_rows_per_warp);

/// The short rows' piecing (1+3, 4, 2+2, 1), their tiles and order, and the empty rows, from the
/// category bounds and the number of 1+3 pairs: min(1-rows, 3-rows) over the whole matrix, or
/// fewer where they are paired within windows (pair_short_rows_in_windows).
void piece_short_and_empty_rows(DaspCounts& c, const CategoryBounds& bounds, int64_t rows,
                                const DaspParameters& parameters, int64_t pairs_1_3);

/// The 1+3 pairs of the paper's piecing: the k-th 1-row with the k-th 3-row of the whole matrix.
inline int64_t pairs_over_whole_matrix(const CategoryBounds& bounds) {
  return std::min(bounds.short_count_of[1], bounds.short_count_of[3]);
}

/// 1+3 pairs within windows of caller rows (DaspParameters::short_pair_window): the rows of 1
/// value and those of 3, each in caller order after the sort, are rearranged in place so that
/// the k-th of each still make pair k. Window w holds n1 1-rows and n3 3-rows and makes
/// p = min(n1, n3) pairs; in each list the windows' first p rows come first, window by window,
/// then the rest (the unpaired rows), window by window:
///
///   ones:    | w0: pairs | w1: pairs | ... || w0: unpaired 1s | w1: unpaired 1s | ...
///   threes:  | w0: pairs | w1: pairs | ... || w0: unpaired 3s | w1: unpaired 3s | ...
///             <------------ pairs ----------->
///
/// The unpaired 3s become rows of 4 (padded_3) and the unpaired 1s single values, as before.
/// The position of the j-th row (caller order) of a window whose rows start at `first` in the
/// sorted list, with `pairs_before` pairs in the windows before it, `pairs_here` in it and
/// `pairs` in all:
constexpr int64_t windowed_pair_position(int64_t j, int64_t first, int64_t pairs_before,
                                         int64_t pairs_here, int64_t pairs) {
  return j < pairs_here ? pairs_before + j : pairs + (first - pairs_before) + (j - pairs_here);
}

/// Where each short kind's tiles, values and row ids start (DaspLayoutInfo::short_parts).
std::array<DaspShortPart, kDaspShortKinds> short_parts_of(const DaspCounts& c);

/// Pairs of short rows (1+3 or 2+2) in one warp tile of 32 outputs.
inline constexpr int kShortPairsPerTile = kWarpSize / 2;

/// Output index inside a pair tile of the first (part 0) or second (part 1) row of pair `k`
/// (0..15): the tile's mma m = 2 * block + part computes block rows 0..R-1 into outputs
/// m * R + slot.
constexpr int pair_output(int k, int part, int block_rows) {
  const int block = k / block_rows, slot = k % block_rows;
  return (2 * block + part) * block_rows + slot;
}

/// phases->lap(name) where phases is given.
inline void lap(detail::PhaseTimes* phases, const char* name) {
  if (phases) phases->lap(name);
}

}  // namespace tcsparse::dasp::internal
