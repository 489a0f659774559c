// DASP layout plan (SC'23 §3.2): rows classified long / medium / short / empty and sorted by
// length in linear time, medium row-blocks' regular blocks, long groups, short piecing, the
// resolved work split; the counts of count_dasp_layout. See dasp_format_internal.hpp.
#include "dasp/dasp_format_internal.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "common/parallel.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

/// Stable counting sort of the rows by key descending, where key = length for lengths up to
/// max_medium and max_medium + 1 for long rows: linear in rows, parallel over row ranges (each
/// thread counts its range, then scatters it from offsets ordered by key, then thread). Rows of
/// shortest_medium .. max_medium values are medium rows (shortest_medium 4 or 5), shorter ones
/// short rows.
RowOrder sort_rows_by_length(const std::vector<int32_t>& row_ptr, int64_t rows, int max_medium,
                             int shortest_medium) {
  const int key_count = max_medium + 2;
  const int long_key = max_medium + 1;
  auto key_of = [&](int64_t r) {
    const int64_t len = row_ptr[sz(r) + 1] - row_ptr[sz(r)];
    return len > max_medium ? long_key : static_cast<int>(len);
  };
  RowOrder order;
  order.rows.resize(sz(rows));
  const int team = threads_for(rows, 0);
  std::vector<int64_t> offsets(sz(team) * sz(key_count), 0);
  std::vector<int64_t> bucket_begin;
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const int64_t b = rows * t / nt, e = rows * (t + 1) / nt;
    int64_t* mine = offsets.data() + sz(t) * sz(key_count);
    for (int64_t r = b; r < e; ++r) ++mine[key_of(r)];
#pragma omp barrier
#pragma omp single
    {
      std::vector<int64_t> rows_of_key(sz(key_count), 0);
      for (int u = 0; u < nt; ++u)
        for (int key = 0; key < key_count; ++key)
          rows_of_key[sz(key)] += offsets[sz(u) * sz(key_count) + sz(key)];
      bucket_begin = descending_bucket_starts(rows_of_key);
      for (int key = 0; key < key_count; ++key) {
        int64_t position = bucket_begin[sz(key)];
        for (int u = 0; u < nt; ++u) {
          int64_t& slot = offsets[sz(u) * sz(key_count) + sz(key)];
          const int64_t count = slot;
          slot = position;
          position += count;
        }
      }
    }
    for (int64_t r = b; r < e; ++r) order.rows[sz(mine[key_of(r)]++)] = static_cast<int32_t>(r);
  }
  static_cast<CategoryBounds&>(order) = category_bounds(bucket_begin, max_medium, shortest_medium);
  return order;
}

/// 1+3 pairs within windows of `window` caller rows: the order's 1-rows and 3-rows rearranged
/// as windowed_pair_position says (dasp_layout_decisions.hpp); returns the number of pairs.
int64_t pair_short_rows_in_windows(RowOrder& order, int64_t rows, int64_t window) {
  int32_t* const ones = order.rows.data() + order.short_begin_of[1];
  int32_t* const threes = order.rows.data() + order.short_begin_of[3];
  const int64_t n1 = order.short_count_of[1], n3 = order.short_count_of[3];
  const int64_t windows = ceil_div(rows, window);
  // first1[w] / first3[w]: the window's first row in each list (both are in caller order)
  std::vector<int64_t> first1(sz(windows) + 1), first3(sz(windows) + 1);
  const int team = threads_for(windows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t w = 0; w <= windows; ++w) {
    const auto start = static_cast<int32_t>(std::min(w * window, rows));
    first1[sz(w)] = std::lower_bound(ones, ones + n1, start) - ones;
    first3[sz(w)] = std::lower_bound(threes, threes + n3, start) - threes;
  }
  std::vector<int64_t> pairs_before(sz(windows) + 1, 0);
  for (int64_t w = 0; w < windows; ++w)
    pairs_before[sz(w) + 1] =
        pairs_before[sz(w)] + std::min(first1[sz(w) + 1] - first1[sz(w)],
                                       first3[sz(w) + 1] - first3[sz(w)]);
  const int64_t pairs = pairs_before[sz(windows)];
  detail::UninitializedVector<int32_t> rearranged(sz(n1 + n3));  // every entry written below
  int32_t* const new_ones = rearranged.data();
  int32_t* const new_threes = rearranged.data() + n1;
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t w = 0; w < windows; ++w) {
    const int64_t here = pairs_before[sz(w) + 1] - pairs_before[sz(w)];
    for (int64_t i = first1[sz(w)]; i < first1[sz(w) + 1]; ++i)
      new_ones[windowed_pair_position(i - first1[sz(w)], first1[sz(w)], pairs_before[sz(w)],
                                      here, pairs)] = ones[i];
    for (int64_t i = first3[sz(w)]; i < first3[sz(w) + 1]; ++i)
      new_threes[windowed_pair_position(i - first3[sz(w)], first3[sz(w)], pairs_before[sz(w)],
                                        here, pairs)] = threes[i];
  }
  std::copy(new_ones, new_ones + n1, ones);
  std::copy(new_threes, new_threes + n3, threes);
  return pairs;
}

/// Sorts each row-block of `block_rows` consecutive rows of rows[0, count) by length,
/// descending and stable, where it is not already.
template <typename Length>
void sort_row_blocks_by_length(int32_t* rows, int64_t count, int block_rows, int team,
                               Length length) {
  const int64_t row_blocks = ceil_div(count, block_rows);
  const auto longer = [&](int32_t a, int32_t b) { return length(a) > length(b); };
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t rb = 0; rb < row_blocks; ++rb) {
    int32_t* const first = rows + rb * block_rows;
    int32_t* const last = rows + std::min(count, (rb + 1) * block_rows);
    if (!std::is_sorted(first, last, longer)) std::stable_sort(first, last, longer);
  }
}

/// Regroups the medium rows, sorted by length (descending, stable), by windows of `window`
/// consecutive caller rows: (window, length descending, row), a stable counting sort by window,
/// parallel as sort_rows_by_length. A row-block that straddles two windows is sorted by length
/// again, so that every row-block still starts with its longest row (the regular blocks of a
/// row-block are a prefix of its chunks). See kDaspMediumRowWindow.
template <typename Length>
void window_medium_rows(RowOrder& order, int64_t rows, int64_t window, int block_rows,
                        Length length) {
  int32_t* medium = order.rows.data() + order.medium_begin;
  const int64_t count = order.short_begin - order.medium_begin;
  const int64_t windows = ceil_div(rows, window);
  // one counter a window a thread: at most 2^24 counters in all
  const int team = std::max(1, std::min<int>(threads_for(count, 0),
                                             static_cast<int>((int64_t{1} << 24) / windows)));
  std::vector<int64_t> offsets(sz(team) * sz(windows), 0);
  detail::UninitializedVector<int32_t> windowed(sz(count));  // every entry written below
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    const int64_t b = count * t / nt, e = count * (t + 1) / nt;
    int64_t* mine = offsets.data() + sz(t) * sz(windows);
    for (int64_t m = b; m < e; ++m) ++mine[medium[m] / window];
#pragma omp barrier
#pragma omp single
    {
      int64_t position = 0;
      for (int64_t w = 0; w < windows; ++w)
        for (int u = 0; u < nt; ++u) {
          int64_t& slot = offsets[sz(u) * sz(windows) + sz(w)];
          const int64_t here = slot;
          slot = position;
          position += here;
        }
    }
    for (int64_t m = b; m < e; ++m) windowed[sz(mine[medium[m] / window]++)] = medium[m];
  }
  sort_row_blocks_by_length(windowed.data(), count, block_rows, team, length);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t m = 0; m < count; ++m) medium[m] = windowed[sz(m)];
}

/// Reorders the windowed medium rows (window_medium_rows) of a layout whose medium values are
/// all in regular blocks: inside each window by block width (length rounded up to block_width),
/// widest first, then by caller row; then each row-block by length again (descending, stable),
/// so that it starts with its longest row. The row-blocks store as many values as in length
/// order (a block of rows of one width is padded to that width either way), but a warp's rows
/// lie closer together in caller order, so that its y stores touch fewer sectors. One sort of
/// 64-bit keys (window_width_key, which the GPU build sorts by too).
template <typename Length>
void order_windows_by_width(RowOrder& order, int64_t window, int block_rows, int block_width,
                            int max_medium, Length length) {
  int32_t* medium = order.rows.data() + order.medium_begin;
  const int64_t count = order.short_begin - order.medium_begin;
  const int team = threads_for(count, 0);
  detail::UninitializedVector<uint64_t> keys(sz(count));
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t m = 0; m < count; ++m)
    keys[sz(m)] = window_width_key(medium[m], length(medium[m]), window, block_width, max_medium);
  sort_in_parallel(keys.begin(), keys.end(), team);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t m = 0; m < count; ++m)
    medium[m] = row_of_window_width_key(keys[sz(m)], window, block_width, max_medium);
  sort_row_blocks_by_length(medium, count, block_rows, team, length);
}

/// Per medium row-block of shape.rows consecutive rows of the order, its regular blocks: the
/// leading chunks of 4 columns that hold at least min_fill values (a prefix, since each
/// row-block's lengths descend), into regular_chunks; and their totals.
template <typename Length>
RegularBlockCounts count_regular_blocks(const RowOrder& order, int64_t rows_medium,
                                        DaspBlockShape shape, int min_fill, Length length,
                                        std::vector<int32_t>& regular_chunks) {
  const int block_rows = shape.rows;
  const int64_t row_blocks = ceil_div(rows_medium, block_rows);
  regular_chunks.assign(sz(row_blocks), 0);
  RegularBlockCounts c;
  int64_t regular_blocks = 0, regular_nnz = 0, medium_nnz = 0, padded_tail_blocks = 0;
  int64_t largest_row_block = 0, covering_blocks = 0;
  const int team = threads_for(rows_medium, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)                          \
    reduction(+ : regular_blocks, regular_nnz, medium_nnz, padded_tail_blocks, covering_blocks)  \
    reduction(max : largest_row_block)
  for (int64_t rb = 0; rb < row_blocks; ++rb) {
    const int64_t first = rb * block_rows;
    const int rows_here = static_cast<int>(std::min<int64_t>(block_rows, rows_medium - first));
    int64_t lengths[16];
    for (int s = 0; s < rows_here; ++s) {
      lengths[s] = length(order.rows[sz(order.medium_begin + first + s)]);
      medium_nnz += lengths[s];
    }
    int64_t chunks = 0;
    for (;; ++chunks) {
      int64_t fill = 0;
      for (int s = 0; s < rows_here; ++s)
        fill += std::clamp<int64_t>(lengths[s] - chunks * shape.width, 0, shape.width);
      if (fill < min_fill) break;
    }
    regular_chunks[sz(rb)] = static_cast<int32_t>(chunks);
    regular_blocks += chunks;
    covering_blocks += ceil_div(lengths[0], int64_t{shape.width});  // rows_here >= 1
    largest_row_block = std::max(largest_row_block, chunks);
    if (chunks > 0 && tail_width(lengths[0], chunks, shape.width) < shape.width)
      ++padded_tail_blocks;
    for (int s = 0; s < rows_here; ++s) regular_nnz += std::min(lengths[s], chunks * shape.width);
  }
  c.regular_blocks = regular_blocks;
  c.regular_nnz = regular_nnz;
  c.medium_nnz = medium_nnz;
  c.padded_tail_blocks = padded_tail_blocks;
  c.largest_row_block = largest_row_block;
  c.covering_blocks = covering_blocks;
  return c;
}

}  // namespace

bool resolve_fp64_column_major(const DaspParameters& parameters, DaspBlockShape shape,
                               const DaspCounts& counts) {
  if (shape.rows != 8) return false;
  if (parameters.fp64_block_order) return parameters.fp64_block_order == 2;
  return static_cast<double>(counts.padded_tail_blocks) >=
         kDaspColumnMajorMinTailBlockShare * static_cast<double>(counts.regular_blocks) &&
         counts.padded_tail_blocks > 0;
}

// ---- decisions shared with the device build -----------------------------------------------

std::vector<int64_t> internal::descending_bucket_starts(std::span<const int64_t> rows_of_key) {
  std::vector<int64_t> begin(rows_of_key.size(), 0);
  int64_t position = 0;
  for (auto key = static_cast<int64_t>(rows_of_key.size()) - 1; key >= 0; --key) {
    begin[sz(key)] = position;
    position += rows_of_key[sz(key)];
  }
  return begin;
}

CategoryBounds internal::category_bounds(std::span<const int64_t> bucket_begin, int max_medium,
                                         int shortest_medium) {
  CategoryBounds b;
  b.medium_begin = bucket_begin[sz(max_medium)];
  const int longest_short = shortest_medium - 1;
  b.short_begin = bucket_begin[sz(longest_short)];
  b.empty_begin = bucket_begin[0];
  for (int k = 1; k <= kDaspMaxShortRowLength; ++k) {
    b.short_begin_of[sz(k)] = bucket_begin[sz(k)];
    // keys descend, so the bucket of length k ends where the bucket of k - 1 begins
    b.short_count_of[sz(k)] =
        k <= longest_short ? bucket_begin[sz(k - 1)] - bucket_begin[sz(k)] : 0;
  }
  return b;
}

int internal::min_regular_fill(const DaspParameters& parameters, DaspBlockShape shape) {
  const double fill = parameters.regular_block_min_fill >= 0.0 ? parameters.regular_block_min_fill
                                                                : kDaspRegularBlockMinFill;
  const double needed = fill * shape.values();
  return std::max(1, static_cast<int>(std::ceil(needed - 1e-9)));
}

bool internal::all_medium_values_regular(const DaspParameters& parameters, DaspBlockShape shape,
                                         int64_t nnz, int max_medium,
                                         const RegularBlockCounts& at_paper_fill) {
  if (parameters.regular_block_min_fill >= 0.0 || shape.rows != 8 ||
      nnz < kDaspAllRegularMinNnz || is_dense_long_rows_layout(parameters, max_medium))
    return false;
  const RegularBlockCounts& b = at_paper_fill;
  const int64_t irregular = b.medium_nnz - b.regular_nnz;
  const int64_t stored_now = b.regular_blocks * shape.values() + irregular;
  const int64_t stored_all_regular = b.covering_blocks * shape.values();
  return irregular > 0 && static_cast<double>(stored_all_regular - stored_now) <=
                              kDaspAllRegularMaxGrowth * static_cast<double>(nnz);
}

bool internal::windows_apply(int64_t window, int64_t rows, int medium_rows_per_warp,
                             int block_rows, const DaspParameters& parameters, int max_medium,
                             int64_t rows_medium) {
  // One row-block a warp (heavy tails, dense long rows) keeps the whole-matrix sort unless the
  // window is asked for: its row-blocks may be split over warps, and the split ones must lead
  // the order; and windows measured slower there (kDaspMediumRowWindow). An explicit window
  // applies there too, where no row-block is split (medium_blocks_per_warp not given).
  const bool unit_of_several_row_blocks = medium_rows_per_warp > block_rows;
  const bool asked_without_splits =
      parameters.medium_row_window > 0 && parameters.medium_blocks_per_warp == 0;
  return window > 0 && window < rows && (unit_of_several_row_blocks || asked_without_splits) &&
         !is_dense_long_rows_layout(parameters, max_medium) && rows_medium > block_rows;
}

void internal::set_medium_counts(DaspCounts& c, DaspBlockShape& shape,
                                 const DaspParameters& parameters,
                                 const RegularBlockCounts& blocks) {
  c.regular_blocks = blocks.regular_blocks;
  c.padded_tail_blocks = blocks.padded_tail_blocks;
  shape.column_major = resolve_fp64_column_major(parameters, shape, c);
  c.column_major_blocks = shape.column_major;
  c.nnz_medium_regular = blocks.regular_nnz;
  c.nnz_medium_irregular = blocks.medium_nnz - blocks.regular_nnz;
  c.stored_medium_regular = blocks.regular_blocks * shape.values();
  detail::require_offsets_fit<int32_t>(c.stored_medium_regular,
                                       "DASP layout: the regular medium-row values");
}

void internal::set_long_counts(DaspCounts& c, int64_t nnz_long, int64_t long_groups,
                               int64_t group_values) {
  c.nnz_long = nnz_long;
  c.long_groups = long_groups;
  c.stored_long = long_groups * group_values;
  detail::require_offsets_fit<int32_t>(c.stored_long, "DASP layout: the long-row values");
}

DaspWorkSplit internal::resolve_layout_work(const DaspParameters& parameters, int64_t nnz,
                                            int64_t rows, int64_t longest_long_row,
                                            int max_medium, int block_rows,
                                            int& medium_rows_per_warp) {
  DaspWorkSplit split = resolve_work_split(parameters);
  if (!parameters.long_groups_per_warp && nnz < kDaspSmallMatrixNnz && nnz > 0 && rows > 0) {
    // few, very long rows: the longest far above the mean, or above it and long
    const double over_mean = static_cast<double>(longest_long_row) * static_cast<double>(rows) /
                             static_cast<double>(nnz);
    if (over_mean > kDaspVeryLongRowRatio ||
        (over_mean > kDaspSkewedRowRatio && longest_long_row > kDaspSplitRowMinLength))
      split.long_groups_per_warp = kDaspSmallMatrixLongGroupsPerWarp;
  }
  const int64_t group_values = int64_t{kDaspBlocksPerLongGroup} * block_rows * kDaspBlockWidth;
  if (!parameters.long_groups_per_warp && block_rows == 8 && nnz >= kDaspSmallMatrixNnz &&
      nnz < kDaspMidMatrixNnz && longest_long_row > kDaspLongGroupsPerWarp * group_values)
    split.long_groups_per_warp = kDaspMidMatrixLongGroupsPerWarp;  // fp64, one wave of warps
  if (is_dense_long_rows_layout(parameters, max_medium)) {
    // dense long rows: one row-block a warp, in pieces (kDaspDenseRowsBlocksPerPiece)
    if (!parameters.medium_rows_per_warp) medium_rows_per_warp = block_rows;
    if (!parameters.medium_blocks_per_warp)
      split.medium_blocks_per_warp = kDaspDenseRowsBlocksPerPiece;
  }
  return split;
}

void internal::piece_short_and_empty_rows(DaspCounts& c, const CategoryBounds& bounds,
                                          int64_t rows, const DaspParameters& parameters,
                                          int64_t pairs_1_3) {
  // 1+3 pairs, rows of 4 (with the 3s left over and an odd 2 padded), 2+2 pairs, and the 1s
  // left over one value a row (§3.2)
  for (int k = 1; k <= kDaspMaxShortRowLength; ++k) {
    c.short_rows_of_length[sz(k)] = bounds.short_count_of[sz(k)];
    c.rows_short += bounds.short_count_of[sz(k)];
    c.nnz_short += k * bounds.short_count_of[sz(k)];
  }
  const auto& n = c.short_rows_of_length;
  c.pairs_1_3 = pairs_1_3;
  c.padded_3 = n[3] - c.pairs_1_3;
  c.single_1 = n[1] - c.pairs_1_3;
  c.pairs_2_2 = n[2] / 2;
  c.padded_2 = n[2] % 2;
  c.rows_4 = n[4] + c.padded_3 + c.padded_2;
  c.short_tiles[0] = ceil_div(c.pairs_1_3, kShortPairsPerTile);
  c.short_tiles[1] = ceil_div(c.rows_4, kWarpSize);
  c.short_tiles[2] = ceil_div(c.pairs_2_2, kShortPairsPerTile);
  c.short_tiles[3] = ceil_div(c.single_1, kWarpSize);
  int64_t short_tiles = 0;
  for (int kind = 0; kind < kDaspShortKinds; ++kind) {
    c.stored_short += c.short_tiles[sz(kind)] * kDaspShortTileValues[sz(kind)];
    short_tiles += c.short_tiles[sz(kind)];
  }
  c.short_tiles_by_row =
      parameters.short_tile_order == 2 ||
      (parameters.short_tile_order == 0 && short_tiles >= kDaspShortTilesByRowMin);
  c.rows_empty = rows - bounds.empty_begin;
  c.empty_tiles = ceil_div(c.rows_empty, kWarpSize);
}

std::array<DaspShortPart, kDaspShortKinds> internal::short_parts_of(const DaspCounts& c) {
  std::array<DaspShortPart, kDaspShortKinds> parts{};
  int64_t values = 0, row_ids = 0;
  for (int kind = 0; kind < kDaspShortKinds; ++kind) {
    DaspShortPart& part = parts[sz(kind)];
    part.tiles = c.short_tiles[sz(kind)];
    part.value_offset = values;
    part.row_offset = row_ids;
    values += part.tiles * kDaspShortTileValues[sz(kind)];
    row_ids += part.tiles * kWarpSize;
  }
  return parts;
}

// ---- the host plan ----------------------------------------------------------------------------

template <typename Value>
LayoutPlan internal::plan_layout(const CsrMatrix<Value, int32_t>& matrix,
                                 const DaspParameters& parameters, DaspBlockShape shape,
                                 detail::PhaseTimes* phases) {
  if (shape.width != kDaspBlockWidth || (shape.rows != 8 && shape.rows != 16))
    throw UnsupportedError("DASP layout: block shape " + std::to_string(shape.rows) + "x" +
                           std::to_string(shape.width) + " is not 8x4 or 16x4");
  LayoutPlan plan;
  plan.shape = shape;
  plan.parameters = parameters;
  const int64_t rows = matrix.rows;
  const auto& row_ptr = matrix.row_ptr;
  auto length = [&](int32_t r) { return int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)]; };
  const int max_medium = resolve_max_medium_row_length(matrix, parameters, shape);
  lap(phases, "max_len");
  int64_t rows_1_to_3 = 0, rows_5_up = 0;  // only the automatic choice of rows of 4 needs them
  if (!parameters.medium_min_row_length && resolve_medium_row_window(parameters, rows) > 0) {
    const int team = threads_for(rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)                          \
    reduction(+ : rows_1_to_3, rows_5_up)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t len = length(static_cast<int32_t>(r));
      rows_1_to_3 += len >= 1 && len < kDaspMaxShortRowLength;
      rows_5_up += len > kDaspMaxShortRowLength && len <= max_medium;
    }
  }
  const int shortest_medium =
      resolve_medium_min_row_length(parameters, rows, rows_1_to_3, rows_5_up);
  plan.order = sort_rows_by_length(row_ptr, rows, max_medium, shortest_medium);
  lap(phases, "row_sort");
  plan.counts.medium_min_row_length = shortest_medium;
  const RowOrder& order = plan.order;  // its medium rows may be regrouped below
  DaspCounts& c = plan.counts;

  // Long rows: groups of 2 blocks (§3.2).
  c.rows_long = plan.long_rows();
  int64_t longest_long_row = 0, nnz_long = 0, long_groups = 0;
  const int64_t group_values = plan.group_values();
  {
    const int long_team = threads_for(c.rows_long, 0);
#pragma omp parallel for num_threads(long_team) if (long_team > 1) schedule(static)           \
    reduction(+ : nnz_long, long_groups) reduction(max : longest_long_row)
    for (int64_t l = 0; l < c.rows_long; ++l) {
      const int64_t len = length(order.rows[sz(l)]);
      nnz_long += len;
      long_groups += ceil_div(len, group_values);
      longest_long_row = std::max(longest_long_row, len);
    }
  }
  set_long_counts(c, nnz_long, long_groups, group_values);

  // Medium rows: row-blocks of shape.rows sorted rows and their regular blocks (§3.2).
  c.rows_medium = plan.medium_rows();
  const int block_rows = shape.rows;
  c.row_blocks = ceil_div(c.rows_medium, block_rows);
  const int min_fill = min_regular_fill(parameters, shape);
  RegularBlockCounts blocks = count_regular_blocks(plan.order, c.rows_medium, shape, min_fill,
                                                   length, plan.regular_chunks);
  lap(phases, "regular_blocks");
  plan.medium_rows_per_warp =
      resolve_medium_rows_per_warp(parameters, c.rows_medium, block_rows, c.row_blocks,
                                   blocks.regular_blocks, blocks.largest_row_block);
  // Sorted within windows of caller rows (kDaspMediumRowWindow) when warps take several
  // row-blocks.
  const int64_t window = resolve_medium_row_window(parameters, rows);
  if (windows_apply(window, rows, plan.medium_rows_per_warp, block_rows, parameters, max_medium,
                    c.rows_medium)) {
    window_medium_rows(plan.order, rows, window, block_rows, length);
    blocks = count_regular_blocks(plan.order, c.rows_medium, shape, min_fill, length,
                                  plan.regular_chunks);
    c.medium_row_window = window;
  }
  lap(phases, "windows");
  // Every medium value regular (min_fill 1, asked for or by the rule): counted at min_fill 1
  // again, after the windows are ordered by width where they are.
  const bool by_rule = all_medium_values_regular(parameters, shape, matrix.nnz(), max_medium,
                                                 blocks);
  if ((by_rule || min_fill == 1) && c.medium_row_window > 0 && medium_rows_by_width(parameters)) {
    order_windows_by_width(plan.order, c.medium_row_window, block_rows, shape.width, max_medium,
                           length);
    c.medium_rows_by_width = true;
  }
  if (by_rule || c.medium_rows_by_width)
    blocks = count_regular_blocks(plan.order, c.rows_medium, shape, 1, length,
                                  plan.regular_chunks);
  if (by_rule)  // row-blocks a warp as with fill 0 asked for: from the blocks that cover them
    plan.medium_rows_per_warp =
        resolve_medium_rows_per_warp(parameters, c.rows_medium, block_rows, c.row_blocks,
                                     blocks.regular_blocks, blocks.largest_row_block);
  set_medium_counts(c, plan.shape, parameters, blocks);

  // Warps: long tasks of split.long_groups_per_warp groups; medium units of rowblocks_per_unit
  // row-blocks, or, one row-block a warp, pieces of split.medium_blocks_per_warp blocks.
  plan.split = resolve_layout_work(parameters, matrix.nnz(), rows, longest_long_row, max_medium,
                                   block_rows, plan.medium_rows_per_warp);
  const int64_t rowblocks_per_unit = plan.medium_rows_per_warp / block_rows;
  c.split = plan.split;
  c.max_medium_row_length = max_medium;
  c.medium_rows_per_warp = plan.medium_rows_per_warp;
  {
    int64_t long_tasks = 0;
    const int64_t per_task = plan.split.long_groups_per_warp;
    const int long_team = threads_for(c.rows_long, 0);
#pragma omp parallel for num_threads(long_team) if (long_team > 1) schedule(static)           \
    reduction(+ : long_tasks)
    for (int64_t l = 0; l < c.rows_long; ++l)
      long_tasks += ceil_div(ceil_div(length(order.rows[sz(l)]), group_values), per_task);
    c.long_tasks = long_tasks;
  }
  if (rowblocks_per_unit == 1) {
    int64_t pieces = 0;
    const int64_t per_piece = plan.split.medium_blocks_per_warp;
    const int team = threads_for(c.row_blocks, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static) reduction(+ : pieces)
    for (int64_t rb = 0; rb < c.row_blocks; ++rb)
      pieces += std::max<int64_t>(1, ceil_div(plan.regular_chunks[sz(rb)], per_piece));
    c.medium_units = pieces;
  } else {
    c.medium_units = ceil_div(c.row_blocks, rowblocks_per_unit);
  }
  int64_t pairs_1_3 = pairs_over_whole_matrix(order);
  if (const int64_t pair_window = resolve_short_pair_window(parameters, rows); pair_window > 0) {
    pairs_1_3 = pair_short_rows_in_windows(plan.order, rows, pair_window);
    c.short_pair_window = pair_window;
  }
  piece_short_and_empty_rows(c, order, rows, parameters, pairs_1_3);
  lap(phases, "work_split");
  return plan;
}

template <typename Value>
DaspCounts count_dasp_layout(const CsrMatrix<Value, int32_t>& matrix,
                             const DaspParameters& parameters, DaspBlockShape shape) {
  return plan_layout(matrix, parameters, shape).counts;
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template LayoutPlan internal::plan_layout(const CsrMatrix<Value, int32_t>&,                      \
                                            const DaspParameters&, DaspBlockShape,                 \
                                            detail::PhaseTimes*);                                  \
  template DaspCounts count_dasp_layout(const CsrMatrix<Value, int32_t>&, const DaspParameters&,   \
                                        DaspBlockShape);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
