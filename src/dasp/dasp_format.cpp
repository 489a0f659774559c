// DASP host layout (SC'23 §3.2): classification, linear-time sort, parallel fills, host apply.
//
// The build runs in two phases that share one plan:
//   plan  row lengths -> one stable counting sort of all rows by category key (long rows keep
//         their order, medium rows by length descending, short rows 4, 3, 2, 1, then empty
//         rows); regular chunk count of every medium row-block; long groups; short piecing counts.
//   fill  prefix sums for the offsets, then every array filled in parallel (each thread writes
//         its own rows / groups / row-blocks; no synchronisation).
// count_dasp_layout stops after the plan.
#include "dasp/dasp_format.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "dasp/dasp.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

using std::int32_t;
using std::int64_t;

using detail::threads_for;

std::size_t sz(int64_t v) { return static_cast<std::size_t>(v); }

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Longest row the dense-long-rows rule makes medium: the row sort keeps one counter per
/// length (as the parser's limit on max_medium_row_length).
constexpr int64_t kLargestDenseRowLength = 1 << 16;

/// All rows in category order (see the file comment) and where each category starts.
struct RowOrder {
  std::vector<int32_t> rows;
  int64_t medium_begin = 0, short_begin = 0, empty_begin = 0;
  /// short rows of length k are [short_begin_of[k], short_begin_of[k] + count)
  std::array<int64_t, 5> short_begin_of{};
  std::array<int64_t, 5> short_count_of{};
};

/// Stable counting sort of the rows by key descending, where key = length for lengths up to
/// max_medium and max_medium + 1 for long rows: linear in rows, parallel over row ranges (each
/// thread counts its range, then scatters it from offsets ordered by key, then thread).
RowOrder sort_rows_by_length(const std::vector<int32_t>& row_ptr, int64_t rows, int max_medium) {
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
  std::vector<int64_t> bucket_begin(sz(key_count) + 1, 0);
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
      int64_t position = 0;
      for (int key = key_count - 1; key >= 0; --key) {
        bucket_begin[sz(key)] = position;
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
  order.medium_begin = bucket_begin[sz(max_medium)];
  order.short_begin = bucket_begin[sz(kDaspMaxShortRowLength)];
  order.empty_begin = bucket_begin[0];
  for (int k = 1; k <= kDaspMaxShortRowLength; ++k) {
    order.short_begin_of[sz(k)] = bucket_begin[sz(k)];
    // keys descend, so the bucket of length k ends where the bucket of k - 1 begins
    order.short_count_of[sz(k)] = bucket_begin[sz(k - 1)] - bucket_begin[sz(k)];
  }
  return order;
}

/// The decisions of the layout, shared by count_dasp_layout and build_dasp_layout.
struct LayoutPlan {
  DaspBlockShape shape;
  DaspParameters parameters;
  int medium_rows_per_warp = 8;
  RowOrder order;
  std::vector<int32_t> regular_chunks;  ///< per medium row-block: its regular blocks
  DaspWorkSplit split;
  DaspCounts counts;
  bool fill_values = true;  ///< false: index arrays only (the GPU fills the values)

  int64_t long_rows() const { return order.medium_begin; }
  int64_t medium_rows() const { return order.short_begin - order.medium_begin; }
  int64_t group_values() const { return int64_t{kDaspBlocksPerLongGroup} * shape.values(); }
};

}  // namespace

bool resolve_fp64_column_major(const DaspParameters& parameters, DaspBlockShape shape,
                               const DaspCounts& counts) {
  if (shape.rows != 8) return false;
  if (parameters.fp64_block_order) return parameters.fp64_block_order == 2;
  return static_cast<double>(counts.padded_tail_blocks) >=
         kDaspColumnMajorMinTailBlockShare * static_cast<double>(counts.regular_blocks) &&
         counts.padded_tail_blocks > 0;
}

namespace {

/// Values of a row-block's longest row (its first: rows are sorted by length) in the last of its
/// `blocks` regular blocks, 1..width; no other row of the row-block has more there.
int64_t tail_width(int64_t longest_row, int64_t blocks, int width) {
  return std::clamp<int64_t>(longest_row - (blocks - 1) * width, 1, width);
}

/// The fewest values a medium block must hold to be kept as a regular block (§3.2 threshold),
/// at least 1 (an empty chunk is never a block).
int min_regular_fill(const DaspParameters& parameters, DaspBlockShape shape) {
  const double needed = parameters.regular_block_min_fill * shape.values();
  return std::max(1, static_cast<int>(std::ceil(needed - 1e-9)));
}

template <typename Value>
LayoutPlan plan_layout(const CsrMatrix<Value, int32_t>& matrix, const DaspParameters& parameters,
                       DaspBlockShape shape) {
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
  plan.order = sort_rows_by_length(row_ptr, rows, max_medium);
  const RowOrder& order = plan.order;
  DaspCounts& c = plan.counts;

  // Long rows: groups of 2 blocks (§3.2); warp tasks of long_groups_per_warp groups.
  c.rows_long = plan.long_rows();
  int64_t longest_row = 0;
  for (int64_t l = 0; l < c.rows_long; ++l) {
    const int64_t len = length(order.rows[sz(l)]);
    const int64_t groups = ceil_div(len, plan.group_values());
    c.nnz_long += len;
    c.long_groups += groups;
    longest_row = std::max(longest_row, len);
  }
  c.stored_long = c.long_groups * plan.group_values();
  detail::require_offsets_fit<int32_t>(c.stored_long, "DASP layout: the long-row values");

  // Medium rows: row-blocks of shape.rows sorted rows; the leading chunks of 4 columns that
  // hold at least min_fill values are regular blocks (a prefix, since lengths descend).
  c.rows_medium = plan.medium_rows();
  const int block_rows = shape.rows;
  c.row_blocks = ceil_div(c.rows_medium, block_rows);
  plan.regular_chunks.assign(sz(c.row_blocks), 0);
  const int min_fill = min_regular_fill(parameters, shape);
  const int64_t medium_begin = order.medium_begin;
  int64_t regular_blocks = 0, regular_nnz = 0, medium_nnz = 0, padded_tail_blocks = 0;
  const int team = threads_for(c.rows_medium, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static) \
    reduction(+ : regular_blocks, regular_nnz, medium_nnz, padded_tail_blocks)
  for (int64_t rb = 0; rb < c.row_blocks; ++rb) {
    const int64_t first = rb * block_rows;
    const int rows_here = static_cast<int>(std::min<int64_t>(block_rows, c.rows_medium - first));
    int64_t lengths[16];
    for (int s = 0; s < rows_here; ++s) {
      lengths[s] = length(order.rows[sz(medium_begin + first + s)]);
      medium_nnz += lengths[s];
    }
    int64_t chunks = 0;
    for (;; ++chunks) {
      int64_t fill = 0;
      for (int s = 0; s < rows_here; ++s)
        fill += std::clamp<int64_t>(lengths[s] - chunks * shape.width, 0, shape.width);
      if (fill < min_fill) break;
    }
    plan.regular_chunks[sz(rb)] = static_cast<int32_t>(chunks);
    regular_blocks += chunks;
    if (chunks > 0 && tail_width(lengths[0], chunks, shape.width) < shape.width)
      ++padded_tail_blocks;
    for (int s = 0; s < rows_here; ++s) regular_nnz += std::min(lengths[s], chunks * shape.width);
  }
  c.regular_blocks = regular_blocks;
  c.padded_tail_blocks = padded_tail_blocks;
  plan.shape.column_major = resolve_fp64_column_major(parameters, shape, c);
  c.column_major_blocks = plan.shape.column_major;
  c.nnz_medium_regular = regular_nnz;
  c.nnz_medium_irregular = medium_nnz - regular_nnz;
  c.stored_medium_regular = regular_blocks * shape.values();
  detail::require_offsets_fit<int32_t>(c.stored_medium_regular,
                                       "DASP layout: the regular medium-row values");
  plan.medium_rows_per_warp = resolve_medium_rows_per_warp(
      parameters, c.rows_medium, block_rows, c.row_blocks, regular_blocks,
      c.row_blocks > 0 ? plan.regular_chunks[0] : 0);  // row-blocks shrink: the first is largest

  // Warps: long tasks of split.long_groups_per_warp groups; medium units of rowblocks_per_unit
  // row-blocks, or, one row-block a warp, pieces of split.medium_blocks_per_warp blocks.
  plan.split = resolve_work_split(parameters);
  if (!parameters.long_groups_per_warp && matrix.nnz() < kDaspSmallMatrixNnz && rows > 0 &&
      static_cast<double>(longest_row) >
          kDaspVeryLongRowRatio * static_cast<double>(matrix.nnz()) / static_cast<double>(rows))
    plan.split.long_groups_per_warp = kDaspSmallMatrixLongGroupsPerWarp;  // few, very long rows
  if (is_dense_long_rows_layout(parameters, max_medium)) {
    // dense long rows: one row-block a warp, in pieces (kDaspDenseRowsBlocksPerPiece)
    if (!parameters.medium_rows_per_warp) plan.medium_rows_per_warp = block_rows;
    if (!parameters.medium_blocks_per_warp)
      plan.split.medium_blocks_per_warp = kDaspDenseRowsBlocksPerPiece;
  }
  const int64_t rowblocks_per_unit = plan.medium_rows_per_warp / block_rows;
  c.split = plan.split;
  c.max_medium_row_length = max_medium;
  c.medium_rows_per_warp = plan.medium_rows_per_warp;
  for (int64_t l = 0; l < c.rows_long; ++l)
    c.long_tasks += ceil_div(ceil_div(length(order.rows[sz(l)]), plan.group_values()),
                             plan.split.long_groups_per_warp);
  if (rowblocks_per_unit == 1) {
    int64_t pieces = 0;
    const int64_t per_piece = plan.split.medium_blocks_per_warp;
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static) reduction(+ : pieces)
    for (int64_t rb = 0; rb < c.row_blocks; ++rb)
      pieces += std::max<int64_t>(1, ceil_div(plan.regular_chunks[sz(rb)], per_piece));
    c.medium_units = pieces;
  } else {
    c.medium_units = ceil_div(c.row_blocks, rowblocks_per_unit);
  }

  // Short rows (§3.2): 1+3 pairs, rows of 4 (with the 3s left over and an odd 2 padded),
  // 2+2 pairs, and the 1s left over one value a row.
  for (int k = 1; k <= kDaspMaxShortRowLength; ++k) {
    c.short_rows_of_length[sz(k)] = order.short_count_of[sz(k)];
    c.rows_short += order.short_count_of[sz(k)];
    c.nnz_short += k * order.short_count_of[sz(k)];
  }
  const auto& n = c.short_rows_of_length;
  c.pairs_1_3 = std::min(n[1], n[3]);
  c.padded_3 = n[3] - c.pairs_1_3;
  c.single_1 = n[1] - c.pairs_1_3;
  c.pairs_2_2 = n[2] / 2;
  c.padded_2 = n[2] % 2;
  c.rows_4 = n[4] + c.padded_3 + c.padded_2;
  constexpr int kPairsPerTile = kWarpSize / 2;
  c.short_tiles[0] = ceil_div(c.pairs_1_3, kPairsPerTile);
  c.short_tiles[1] = ceil_div(c.rows_4, kWarpSize);
  c.short_tiles[2] = ceil_div(c.pairs_2_2, kPairsPerTile);
  c.short_tiles[3] = ceil_div(c.single_1, kWarpSize);
  std::int64_t short_tiles = 0;
  for (int kind = 0; kind < kDaspShortKinds; ++kind) {
    c.stored_short += c.short_tiles[sz(kind)] * kDaspShortTileValues[sz(kind)];
    short_tiles += c.short_tiles[sz(kind)];
  }
  c.short_tiles_by_row = parameters.short_tile_order == 2 ||
                         (parameters.short_tile_order == 0 && short_tiles >= kDaspShortTilesByRowMin);

  c.rows_empty = rows - order.empty_begin;
  c.empty_tiles = ceil_div(c.rows_empty, kWarpSize);
  return plan;
}

// ---- fills ---------------------------------------------------------------------------------

template <typename Value>
void fill_long(const CsrMatrix<Value, int32_t>& matrix, const LayoutPlan& plan,
               DaspLayout<Value>& layout) {
  const DaspCounts& c = plan.counts;
  const int64_t long_rows = c.rows_long;
  const auto& row_ptr = matrix.row_ptr;
  const int64_t group_values = plan.group_values();
  layout.long_row_ids.assign(plan.order.rows.begin(), plan.order.rows.begin() + long_rows);
  layout.long_group_ptr.resize(sz(long_rows) + 1);
  layout.long_task_ptr.resize(sz(long_rows) + 1);
  layout.long_tasks.resize(sz(c.long_tasks));
  const int per_task = plan.split.long_groups_per_warp;
  int64_t groups = 0, tasks = 0;
  for (int64_t l = 0; l < long_rows; ++l) {
    const int32_t row = layout.long_row_ids[sz(l)];
    const int64_t row_groups = ceil_div(row_ptr[sz(row) + 1] - row_ptr[sz(row)], group_values);
    layout.long_group_ptr[sz(l)] = static_cast<int32_t>(groups);
    layout.long_task_ptr[sz(l)] = static_cast<int32_t>(tasks);
    for (int64_t g = 0; g < row_groups; g += per_task) {
      DaspLongTask& task = layout.long_tasks[sz(tasks++)];
      task.row = row;
      task.block_begin = static_cast<int32_t>((groups + g) * kDaspBlocksPerLongGroup);
      task.block_end = static_cast<int32_t>(
          (groups + std::min<int64_t>(g + per_task, row_groups)) * kDaspBlocksPerLongGroup);
      task.long_row = static_cast<int32_t>(l);
    }
    groups += row_groups;
  }
  layout.long_group_ptr[sz(long_rows)] = static_cast<int32_t>(groups);
  layout.long_task_ptr[sz(long_rows)] = static_cast<int32_t>(tasks);

  // Values: each row's values in order, then zeros (column: the row's last) to whole groups.
  // Parallel over groups, so that one very long row is spread over all threads.
  if (!plan.fill_values) return;
  layout.long_values = HostArray<Value>(sz(c.stored_long));
  layout.long_cols = HostArray<int32_t>(sz(c.stored_long));
  const int team = threads_for(c.stored_long, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t g = 0; g < groups; ++g) {
    const auto& gp = layout.long_group_ptr;
    const int64_t l = std::upper_bound(gp.begin(), gp.end(), static_cast<int32_t>(g)) - gp.begin() - 1;
    const int32_t row = layout.long_row_ids[sz(l)];
    const int64_t begin = row_ptr[sz(row)], len = row_ptr[sz(row) + 1] - begin;
    const int32_t last_col = matrix.col_idx[sz(begin + len - 1)];
    const int64_t first = (g - gp[sz(l)]) * group_values;
    for (int64_t v = 0; v < group_values; ++v) {
      const int64_t i = first + v, at = g * group_values + v;
      if (i < len) {
        layout.long_values[sz(at)] = matrix.values[sz(begin + i)];
        layout.long_cols[sz(at)] = matrix.col_idx[sz(begin + i)];
      } else {
        layout.long_values[sz(at)] = Value{};
        layout.long_cols[sz(at)] = last_col;
      }
    }
  }
}

template <typename Value>
void fill_medium(const CsrMatrix<Value, int32_t>& matrix, const LayoutPlan& plan,
                 DaspLayout<Value>& layout) {
  const DaspCounts& c = plan.counts;
  const DaspBlockShape shape = plan.shape;
  const int block_rows = shape.rows, width = shape.width, block_values = shape.values();
  const int64_t medium_rows = c.rows_medium;
  const int64_t rowblocks_per_unit = plan.medium_rows_per_warp / block_rows;
  const int64_t padded_row_blocks = ceil_div(c.row_blocks, rowblocks_per_unit) * rowblocks_per_unit;
  const int64_t padded_rows = padded_row_blocks * block_rows;
  const int32_t* order = plan.order.rows.data() + plan.order.medium_begin;
  const auto& row_ptr = matrix.row_ptr;
  auto length = [&](int64_t m) {
    return m < medium_rows ? int64_t{row_ptr[sz(order[m]) + 1]} - row_ptr[sz(order[m])] : 0;
  };

  layout.medium_row_ids.resize(sz(padded_rows));
  {
    const int team = threads_for(padded_rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
    for (int64_t m = 0; m < padded_rows; ++m)
      layout.medium_row_ids[sz(m)] = m < medium_rows ? order[m] : -1;
  }
  const auto& chunks = plan.regular_chunks;
  detail::exclusive_scan_checked(
      padded_row_blocks,
      [&](int64_t rb) { return rb < c.row_blocks ? int64_t{chunks[sz(rb)]} * block_values : 0; },
      layout.rowblock_ptr, "DASP layout: the regular medium-row values");
  detail::exclusive_scan_checked(
      padded_rows,
      [&](int64_t m) {
        if (m >= medium_rows) return int64_t{0};
        return std::max<int64_t>(0, length(m) - int64_t{chunks[sz(m / block_rows)]} * width);
      },
      layout.irregular_ptr, "DASP layout: the irregular medium-row values");
  layout.medium_tail_widths.assign(sz(padded_row_blocks), static_cast<std::uint8_t>(width));
  for (int64_t rb = 0; rb < c.row_blocks; ++rb) {
    const int64_t blocks = chunks[sz(rb)];
    if (blocks > 0)
      layout.medium_tail_widths[sz(rb)] =
          static_cast<std::uint8_t>(tail_width(length(rb * block_rows), blocks, width));
  }

  {
    const int64_t unit_rows = rowblocks_per_unit * block_rows;
    const int64_t units = padded_rows / unit_rows;
    int64_t plain = 0;
    while (plain < units && layout.irregular_ptr[sz((plain + 1) * unit_rows)] == 0) ++plain;
    layout.medium_plain_units = plain;
  }
  if (rowblocks_per_unit == 1) {  // pieces of at most medium_blocks_per_warp blocks
    const int64_t per_piece = plan.split.medium_blocks_per_warp;
    layout.medium_blocks_per_piece = static_cast<int32_t>(per_piece);
    layout.medium_extra_pieces.reserve(sz(c.medium_units - c.row_blocks));
    for (int64_t rb = 0; rb < c.row_blocks; ++rb) {
      const int64_t pieces = std::max<int64_t>(1, ceil_div(chunks[sz(rb)], per_piece));
      if (pieces == 1) break;  // split row-blocks are a prefix
      layout.medium_split_row_blocks = rb + 1;
      layout.medium_max_pieces =
          std::max(layout.medium_max_pieces, static_cast<int32_t>(pieces));
      for (int64_t k = 1; k < pieces; ++k)
        layout.medium_extra_pieces.push_back(
            {static_cast<int32_t>(rb), static_cast<int32_t>(k)});
    }
  }

  if (!plan.fill_values) return;
  layout.regular_values = HostArray<Value>(sz(c.stored_medium_regular));
  layout.regular_cols = HostArray<int32_t>(sz(c.stored_medium_regular));
  layout.irregular_values = HostArray<Value>(sz(c.nnz_medium_irregular));
  layout.irregular_cols = HostArray<int32_t>(sz(c.nnz_medium_irregular));
  Value* regular_values = layout.regular_values.data();
  int32_t* regular_cols = layout.regular_cols.data();
  const int team = threads_for(c.stored_medium_regular + c.nnz_medium_irregular, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(dynamic, 256)
  for (int64_t rb = 0; rb < c.row_blocks; ++rb) {
    const int64_t block_chunks = chunks[sz(rb)];
    const int64_t base = layout.rowblock_ptr[sz(rb)];
    for (int slot = 0; slot < block_rows; ++slot) {
      const int64_t m = rb * block_rows + slot;
      const int64_t len = length(m);
      const int64_t begin = m < medium_rows ? row_ptr[sz(order[m])] : 0;
      const Value* row_values = matrix.values.data() + begin;
      const int32_t* row_cols = matrix.col_idx.data() + begin;
      // padding in a row reads the row's last column; in a missing row, column 0
      const int32_t pad_col = len ? row_cols[len - 1] : 0;
      for (int64_t j = 0; j < block_chunks; ++j) {
        const int64_t block_start = base + j * block_values;
        for (int v = 0; v < width; ++v) {
          const int64_t i = j * width + v;
          const int64_t at = block_start + shape.offset(slot, v);
          regular_values[at] = i < len ? row_values[i] : Value{};
          regular_cols[at] = i < len ? row_cols[i] : pad_col;
        }
      }
      const int64_t irregular_from = std::min(len, block_chunks * width);
      const int64_t at = layout.irregular_ptr[sz(m)];
      std::copy(row_values + irregular_from, row_values + len, layout.irregular_values.data() + at);
      std::copy(row_cols + irregular_from, row_cols + len, layout.irregular_cols.data() + at);
    }
  }
}

/// Output index inside a pair tile of the first (part 0) or second (part 1) row of pair `k`
/// (0..15): the tile's mma m = 2 * block + part computes block rows 0..R-1 into outputs
/// m * R + slot.
int pair_output(int k, int part, int block_rows) {
  const int block = k / block_rows, slot = k % block_rows;
  return (2 * block + part) * block_rows + slot;
}

template <typename Value>
void fill_short(const CsrMatrix<Value, int32_t>& matrix, const LayoutPlan& plan,
                DaspLayout<Value>& layout) {
  const DaspCounts& c = plan.counts;
  const DaspBlockShape shape = plan.shape;
  const int block_rows = shape.rows, block_values = shape.values();
  const auto& row_ptr = matrix.row_ptr;
  const RowOrder& order = plan.order;
  auto rows_of = [&](int k) { return order.rows.data() + order.short_begin_of[sz(k)]; };
  const int32_t* ones = rows_of(1);
  const int32_t* twos = rows_of(2);
  const int32_t* threes = rows_of(3);
  const int32_t* fours = rows_of(4);

  int64_t values = 0, row_ids = 0;
  for (int kind = 0; kind < kDaspShortKinds; ++kind) {
    DaspShortPart& part = layout.short_parts[sz(kind)];
    part.tiles = c.short_tiles[sz(kind)];
    part.value_offset = values;
    part.row_offset = row_ids;
    values += part.tiles * kDaspShortTileValues[sz(kind)];
    row_ids += part.tiles * kWarpSize;
  }
  const bool fill_values = plan.fill_values;
  if (!fill_values) values = 0;
  layout.short_values = HostArray<Value>(sz(values));
  layout.short_cols = HostArray<int32_t>(sz(values));
  layout.short_row_ids.resize(sz(row_ids));
  // Unfilled slots: value 0, column 0, row id -1 (filled in parallel: first touch of the pages).
  {
    Value* short_values = layout.short_values.data();
    int32_t* short_cols = layout.short_cols.data();
    int32_t* short_ids = layout.short_row_ids.data();
    const int team = threads_for(values, 0);
#pragma omp parallel num_threads(team) if (team > 1)
    {
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < values; ++i) {
        short_values[i] = Value{};
        short_cols[i] = 0;
      }
#pragma omp for schedule(static) nowait
      for (int64_t i = 0; i < row_ids; ++i) short_ids[i] = -1;
    }
  }

  // Writes `count` values of `row` from position `first` of that row into block slot `slot`,
  // values [to, to + count) of the slot; the rest of [to, to + width) is padding if pad.
  auto put = [&](int64_t block_start, int slot, int to, int32_t row, int count, int pad_to) {
    const int64_t begin = row_ptr[sz(row)];
    for (int v = 0; v < pad_to; ++v) {
      const int64_t at = block_start + shape.offset(slot, to + v);
      const int64_t i = std::min(v, count - 1);
      layout.short_values[sz(at)] = v < count ? matrix.values[sz(begin + i)] : Value{};
      layout.short_cols[sz(at)] = matrix.col_idx[sz(begin + i)];
    }
  };
  const int team = threads_for(c.nnz_short, 0);
  {  // 1+3 and 2+2 pairs: pair k of tile t; first row in slot values 0..split-1
    struct Piecing {
      DaspShortKind kind;
      int64_t pairs;
      const int32_t* first;
      int first_length;
      const int32_t* second;
      int second_length;
      int64_t second_stride;  // 2+2 pairs take consecutive 2-rows
    };
    const Piecing piecings[] = {
        {DaspShortKind::pairs_1_3, c.pairs_1_3, ones, 1, threes, 3, 1},
        {DaspShortKind::pairs_2_2, c.pairs_2_2, twos, 2, twos + 1, 2, 2},
    };
    for (const Piecing& p : piecings) {
      const DaspShortPart& part = layout.short_parts[sz(static_cast<int>(p.kind))];
      const int64_t first_stride = p.kind == DaspShortKind::pairs_2_2 ? 2 : 1;
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
      for (int64_t pair = 0; pair < p.pairs; ++pair) {
        const int64_t tile = pair / (kWarpSize / 2);
        const int k = static_cast<int>(pair % (kWarpSize / 2));
        const int block = k / block_rows, slot = k % block_rows;
        const int64_t block_start = part.value_offset + tile * 64 + int64_t{block} * block_values;
        const int32_t a = p.first[pair * first_stride], b = p.second[pair * p.second_stride];
        if (fill_values) {
          put(block_start, slot, 0, a, p.first_length, p.first_length);
          put(block_start, slot, p.first_length, b, p.second_length, p.second_length);
        }
        const int64_t ids = part.row_offset + tile * kWarpSize;
        layout.short_row_ids[sz(ids + pair_output(k, 0, block_rows))] = a;
        layout.short_row_ids[sz(ids + pair_output(k, 1, block_rows))] = b;
      }
    }
  }
  {  // rows of 4: the 4s, then the 3s left over from 1+3, then an odd 2, each padded to 4
    const DaspShortPart& part = layout.short_parts[sz(static_cast<int>(DaspShortKind::rows_4))];
    const int64_t n4 = c.short_rows_of_length[4];
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
    for (int64_t i = 0; i < c.rows_4; ++i) {
      int32_t row;
      int len;
      if (i < n4) row = fours[i], len = 4;
      else if (i < n4 + c.padded_3) row = threes[c.pairs_1_3 + (i - n4)], len = 3;
      else row = twos[2 * c.pairs_2_2], len = 2;
      const int64_t tile = i / kWarpSize;
      const int k = static_cast<int>(i % kWarpSize);
      const int64_t block_start =
          part.value_offset + tile * 128 + int64_t{k / block_rows} * block_values;
      if (fill_values) put(block_start, k % block_rows, 0, row, len, kDaspBlockWidth);
      layout.short_row_ids[sz(part.row_offset + i)] = row;
    }
  }
  {  // single values: the 1s left over from 1+3, one lane a row
    const DaspShortPart& part =
        layout.short_parts[sz(static_cast<int>(DaspShortKind::single_1))];
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
    for (int64_t i = 0; i < c.single_1; ++i) {
      const int32_t row = ones[c.pairs_1_3 + i];
      if (fill_values) {
        layout.short_values[sz(part.value_offset + i)] = matrix.values[sz(row_ptr[sz(row)])];
        layout.short_cols[sz(part.value_offset + i)] = matrix.col_idx[sz(row_ptr[sz(row)])];
      }
      layout.short_row_ids[sz(part.row_offset + i)] = row;
    }
  }
  if (c.short_tiles_by_row) {
    // every tile as kind | tile << 2, ordered by its smallest row (stable: ties keep the kind
    // order), so that the warps running together write nearby rows of y
    std::vector<std::pair<int32_t, int32_t>> keyed;
    keyed.reserve(sz(row_ids / kWarpSize));
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = layout.short_parts[sz(kind)];
      for (int64_t tile = 0; tile < part.tiles; ++tile) {
        int32_t first = std::numeric_limits<int32_t>::max();
        for (int lane = 0; lane < kWarpSize; ++lane) {
          const int32_t id = layout.short_row_ids[sz(part.row_offset + tile * kWarpSize + lane)];
          if (id >= 0) first = std::min(first, id);
        }
        keyed.emplace_back(first, static_cast<int32_t>(kind | (tile << 2)));
      }
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    layout.short_tile_order.resize(keyed.size());
    for (std::size_t i = 0; i < keyed.size(); ++i) layout.short_tile_order[i] = keyed[i].second;
  }
}

// ---- host apply ----------------------------------------------------------------------------

template <typename Value>
class HostWalker {
 public:
  HostWalker(const DaspLayout<Value>& layout, std::span<const Value> x, std::span<double> y,
             double alpha, double beta)
      : layout_(layout), x_(x), y_(y), alpha_(alpha), beta_(beta) {}

  void write(int32_t row, double sum) const {
    if (row < 0) return;
    const double old = beta_ != 0.0 ? beta_ * y_[sz(row)] : 0.0;
    y_[sz(row)] = alpha_ * sum + old;
  }
  double product(const Value* values, const int32_t* cols, int64_t at) const {
    const int32_t col = cols[at];
    if (col < 0 || col >= layout_.cols)
      throw Error("DASP layout: stored column " + std::to_string(col) + " at " +
                  std::to_string(at) + " is outside [0, " + std::to_string(layout_.cols) + ")");
    return to_double(values[at]) * to_double(x_[sz(col)]);
  }
  /// The dot product of block row `slot`, values [from, to), of the block at `start` (one mma
  /// with x masked to those values).
  double block_row(const Value* values, const int32_t* cols, int64_t start, int slot, int from,
                   int to) const {
    double sum = 0.0;
    for (int v = from; v < to; ++v)
      sum += product(values, cols, start + layout_.shape.offset(slot, v));
    return sum;
  }

  void long_rows() const {
    const auto& L = layout_;
    const int block_values = L.shape.values();
    std::vector<double> partial(L.long_tasks.size());
    for (std::size_t t = 0; t < L.long_tasks.size(); ++t) {  // one warp each
      const DaspLongTask& task = L.long_tasks[t];
      double sum = 0.0;
      for (int64_t b = task.block_begin; b < task.block_end; ++b)
        for (int slot = 0; slot < L.shape.rows; ++slot)  // the diagonal of one mma
          sum += block_row(L.long_values.data(), L.long_cols.data(), b * block_values, slot, 0,
                           L.shape.width);
      partial[t] = sum;
    }
    for (std::size_t l = 0; l < L.long_row_ids.size(); ++l) {  // the last warp of the row
      double sum = 0.0;
      for (int32_t t = L.long_task_ptr[l]; t < L.long_task_ptr[l + 1]; ++t) sum += partial[sz(t)];
      write(L.long_row_ids[l], sum);
    }
  }

  /// Adds the regular blocks [block_begin, block_end) of a row-block to sums[offset + slot].
  void regular_blocks(int64_t block_begin, int64_t block_end, std::vector<double>& sums,
                      int offset) const {
    const auto& L = layout_;
    for (int64_t b = block_begin; b < block_end; ++b)
      for (int slot = 0; slot < L.shape.rows; ++slot)
        sums[sz(offset + slot)] += block_row(L.regular_values.data(), L.regular_cols.data(),
                                             b * L.shape.values(), slot, 0, L.shape.width);
  }
  double irregular_row(int64_t m) const {
    const auto& L = layout_;
    double sum = 0.0;
    for (int32_t p = L.irregular_ptr[sz(m)]; p < L.irregular_ptr[sz(m) + 1]; ++p)
      sum += product(L.irregular_values.data(), L.irregular_cols.data(), p);
    return sum;
  }

  void medium_rows() const {
    const auto& L = layout_;
    const int block_rows = L.shape.rows, block_values = L.shape.values();
    if (L.rowblocks_per_unit() == 1) {
      // a row-block in pieces: piece 0 adds the irregular part; the last warp to finish sums
      // the pieces' partial sums in piece order
      const int64_t per_piece = L.medium_blocks_per_piece;
      std::vector<double> piece_sums(sz(block_rows)), totals(sz(block_rows));
      for (int64_t rb = 0; rb + 1 < static_cast<int64_t>(L.rowblock_ptr.size()); ++rb) {
        const int64_t begin = L.rowblock_ptr[sz(rb)] / block_values;
        const int64_t end = L.rowblock_ptr[sz(rb) + 1] / block_values;
        const int64_t pieces = std::max<int64_t>(1, ceil_div(end - begin, per_piece));
        std::fill(totals.begin(), totals.end(), 0.0);
        for (int64_t k = 0; k < pieces; ++k) {
          std::fill(piece_sums.begin(), piece_sums.end(), 0.0);
          regular_blocks(begin + k * per_piece, std::min(end, begin + (k + 1) * per_piece),
                         piece_sums, 0);
          if (k == 0)
            for (int slot = 0; slot < block_rows; ++slot)
              piece_sums[sz(slot)] += irregular_row(rb * block_rows + slot);
          for (int slot = 0; slot < block_rows; ++slot) totals[sz(slot)] += piece_sums[sz(slot)];
        }
        for (int slot = 0; slot < block_rows; ++slot)
          write(L.medium_row_ids[sz(rb * block_rows + slot)], totals[sz(slot)]);
      }
      return;
    }
    const int unit_rows = L.medium_rows_per_warp;
    std::vector<double> sums(sz(unit_rows));
    const int64_t units = static_cast<int64_t>(L.rowblock_ptr.size() - 1) / L.rowblocks_per_unit();
    for (int64_t unit = 0; unit < units; ++unit) {
      std::fill(sums.begin(), sums.end(), 0.0);
      for (int i = 0; i < L.rowblocks_per_unit(); ++i) {  // row-blocks of the unit
        const int64_t rb = unit * L.rowblocks_per_unit() + i;
        regular_blocks(L.rowblock_ptr[sz(rb)] / block_values,
                       L.rowblock_ptr[sz(rb) + 1] / block_values, sums, i * block_rows);
      }
      for (int lane = 0; lane < unit_rows; ++lane) {  // irregular part, one lane a row
        const int64_t m = unit * unit_rows + lane;
        write(L.medium_row_ids[sz(m)], sums[sz(lane)] + irregular_row(m));
      }
    }
  }

  void short_rows() const {
    const auto& L = layout_;
    const int block_rows = L.shape.rows, block_values = L.shape.values();
    const Value* values = L.short_values.data();
    const int32_t* cols = L.short_cols.data();
    std::vector<double> out(kWarpSize);
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[sz(kind)];
      for (int64_t tile = 0; tile < part.tiles; ++tile) {
        const int64_t start = part.value_offset + tile * kDaspShortTileValues[sz(kind)];
        const auto k = static_cast<DaspShortKind>(kind);
        if (k == DaspShortKind::single_1) {
          for (int lane = 0; lane < kWarpSize; ++lane) out[sz(lane)] = product(values, cols, start + lane);
        } else if (k == DaspShortKind::rows_4) {
          for (int b = 0; b < kWarpSize / block_rows; ++b)  // one mma a block
            for (int slot = 0; slot < block_rows; ++slot)
              out[sz(b * block_rows + slot)] =
                  block_row(values, cols, start + b * block_values, slot, 0, L.shape.width);
        } else {  // two mma a block, x masked to the first / second row of each slot
          const int split = k == DaspShortKind::pairs_1_3 ? 1 : 2;
          for (int b = 0; b < kWarpSize / (2 * block_rows); ++b)
            for (int p = 0; p < 2; ++p)
              for (int slot = 0; slot < block_rows; ++slot)
                out[sz((2 * b + p) * block_rows + slot)] =
                    block_row(values, cols, start + b * block_values, slot, p ? split : 0,
                              p ? L.shape.width : split);
        }
        for (int lane = 0; lane < kWarpSize; ++lane)
          write(L.short_row_ids[sz(part.row_offset + tile * kWarpSize + lane)], out[sz(lane)]);
      }
    }
  }

  void empty_rows() const {
    for (int32_t row : layout_.empty_row_ids) write(row, 0.0);
  }

 private:
  const DaspLayout<Value>& layout_;
  std::span<const Value> x_;
  std::span<double> y_;
  double alpha_, beta_;
};

std::string json_number(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

/// The longest row of a matrix of dense long rows (kDaspDenseRowsMinDensity, every row longer
/// than kDaspMaxMediumRowLength), else 0.
template <typename Value>
int dense_long_rows_length(const CsrMatrix<Value, int32_t>& matrix) {
  const int64_t rows = matrix.rows;
  if (rows == 0 || matrix.cols == 0) return 0;
  const double density = static_cast<double>(matrix.nnz()) /
                         (static_cast<double>(rows) * static_cast<double>(matrix.cols));
  if (density < kDaspDenseRowsMinDensity) return 0;
  int64_t shortest = std::numeric_limits<int64_t>::max(), longest = 0;
  const auto& row_ptr = matrix.row_ptr;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)];
    shortest = std::min(shortest, len);
    longest = std::max(longest, len);
  }
  if (shortest <= kDaspMaxMediumRowLength || longest > kLargestDenseRowLength) return 0;
  return static_cast<int>(longest);
}

}  // namespace

// ---- public --------------------------------------------------------------------------------

bool is_dense_long_rows_layout(const DaspParameters& parameters, int max_medium_row_length) {
  return !parameters.max_medium_row_length && max_medium_row_length > kDaspMaxMediumRowLength;
}

template <typename Value>
int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>& matrix,
                                  const DaspParameters& parameters, DaspBlockShape shape) {
  if (parameters.max_medium_row_length) return parameters.max_medium_row_length;
  const int64_t nnz = matrix.nnz();
  if (nnz >= kDaspSmallMatrixNnz) {
    const int dense = shape.rows == 8 ? dense_long_rows_length(matrix) : 0;  // fp64 blocks
    return dense ? dense : kDaspMaxMediumRowLength;
  }
  const int64_t group = int64_t{kDaspBlocksPerLongGroup} * shape.values();
  const int64_t bytes_per_value = static_cast<int64_t>(sizeof(Value)) + 4;
  const auto& row_ptr = matrix.row_ptr;
  // the first candidate whose layout fits the byte budget; failing that, the first whose
  // long-row padding is small
  int little_padding = 0;
  for (const int candidate : kDaspSmallMatrixMaxMediumRowLengths) {
    int64_t padding = 0;  // zeros that long rows (> candidate) get to whole groups
    const int64_t rows = matrix.rows;
    const int team = threads_for(rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static) reduction(+ : padding)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t len = int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)];
      if (len > candidate) padding += ceil_div(len, group) * group - len;
    }
    if ((nnz + padding) * bytes_per_value <= kDaspLatencyBoundLayoutBytes) return candidate;
    if (!little_padding && static_cast<double>(padding) <=
                               kDaspSmallMatrixMaxLongRowPadding * static_cast<double>(nnz))
      little_padding = candidate;
  }
  if (little_padding) return little_padding;
  return kDaspMaxMediumRowLength;
}

template <typename Value>
DaspCounts count_dasp_layout(const CsrMatrix<Value, int32_t>& matrix,
                             const DaspParameters& parameters, DaspBlockShape shape) {
  return plan_layout(matrix, parameters, shape).counts;
}

template <typename Value>
DaspLayout<Value> build_dasp_layout(const CsrMatrix<Value, int32_t>& matrix,
                                    const DaspParameters& parameters,
                                    std::optional<DaspBlockShape> shape, DaspFill fill) {
  LayoutPlan plan =
      plan_layout(matrix, parameters, shape.value_or(default_block_shape<Value>()));
  plan.fill_values = fill == DaspFill::values;
  DaspLayout<Value> layout;
  layout.rows = matrix.rows;
  layout.cols = matrix.cols;
  layout.nnz = matrix.nnz();
  layout.shape = plan.shape;
  layout.parameters = parameters;
  layout.medium_rows_per_warp = plan.medium_rows_per_warp;
  layout.split = plan.split;
  layout.counts = plan.counts;
  fill_long(matrix, plan, layout);
  fill_medium(matrix, plan, layout);
  fill_short(matrix, plan, layout);
  const int64_t empty_rows = plan.counts.rows_empty;
  layout.empty_row_ids.assign(sz(plan.counts.empty_tiles * kWarpSize), -1);
  std::copy_n(plan.order.rows.begin() + plan.order.empty_begin, empty_rows,
              layout.empty_row_ids.begin());
  return layout;
}

template <typename Value>
void dasp_host_apply(const DaspLayout<Value>& layout, std::span<const Value> x,
                     std::span<double> y, double alpha, double beta) {
  if (x.size() != sz(layout.cols) || y.size() != sz(layout.rows))
    throw Error("dasp_host_apply: x has " + std::to_string(x.size()) + " values and y " +
                std::to_string(y.size()) + "; the matrix is " + std::to_string(layout.rows) +
                " x " + std::to_string(layout.cols));
  const HostWalker<Value> walker(layout, x, y, alpha, beta);
  walker.long_rows();
  walker.medium_rows();
  walker.short_rows();
  walker.empty_rows();
}

std::string stats_json(const DaspCounts& c, DaspBlockShape shape,
                       const DaspParameters& parameters) {
  const int medium_rows_per_warp = c.medium_rows_per_warp;
  std::ostringstream o;
  o << "{\"block_shape\": [" << shape.rows << ", " << shape.width << "]"
    << ", \"rows\": {\"long\": " << c.rows_long << ", \"medium\": " << c.rows_medium
    << ", \"short\": " << c.rows_short << ", \"empty\": " << c.rows_empty << "}"
    << ", \"nnz\": {\"long\": " << c.nnz_long << ", \"medium_regular\": " << c.nnz_medium_regular
    << ", \"medium_irregular\": " << c.nnz_medium_irregular << ", \"short\": " << c.nnz_short
    << "}"
    << ", \"stored_values\": " << c.stored_values()
    << ", \"padding_ratio\": " << json_number(c.padding_ratio())
    << ", \"padding\": {\"long\": " << c.stored_long - c.nnz_long
    << ", \"medium_regular\": " << c.stored_medium_regular - c.nnz_medium_regular
    << ", \"short\": " << c.stored_short - c.nnz_short << "}"
    << ", \"long_groups\": " << c.long_groups << ", \"long_warp_tasks\": " << c.long_tasks
    << ", \"row_blocks\": " << c.row_blocks << ", \"regular_blocks\": " << c.regular_blocks
    << ", \"medium_units\": " << c.medium_units
    << ", \"loop_num\": " << medium_rows_per_warp / 8
    << ", \"medium_rows_per_warp\": " << medium_rows_per_warp
    << ", \"long_groups_per_warp\": " << c.split.long_groups_per_warp
    << ", \"medium_blocks_per_warp\": "
    << (c.split.medium_blocks_per_warp >= DaspWorkSplit{}.medium_blocks_per_warp
            ? std::string("null")  // never split
            : std::to_string(c.split.medium_blocks_per_warp))
    << ", \"short_pieces\": {\"pairs_1_3\": " << c.pairs_1_3 << ", \"rows_4\": " << c.rows_4
    << ", \"padded_3\": " << c.padded_3 << ", \"padded_2\": " << c.padded_2
    << ", \"pairs_2_2\": " << c.pairs_2_2 << ", \"single_1\": " << c.single_1 << "}"
    << ", \"max_medium_row_length\": " << c.max_medium_row_length
    << ", \"short_tiles_by_row\": " << (c.short_tiles_by_row ? "true" : "false")
    << ", \"padded_tail_blocks\": " << c.padded_tail_blocks
    << ", \"column_major_blocks\": " << (c.column_major_blocks ? "true" : "false")
    << ", \"warps\": " << c.warps() << ", \"parameters\": \"" << parameters.to_string() << "\"}";
  return o.str();
}

std::string format_stats_json(const CsrMatrix<double, std::int32_t>& matrix) {
  const DaspParameters parameters;
  const DaspBlockShape shape = default_block_shape<double>();
  const DaspCounts counts = count_dasp_layout(matrix, parameters, shape);
  return stats_json(counts, shape, parameters);
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                       \
  template int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>&,                \
                                             const DaspParameters&, DaspBlockShape);          \
  template DaspCounts count_dasp_layout(const CsrMatrix<Value, int32_t>&,                     \
                                        const DaspParameters&, DaspBlockShape);               \
  template DaspLayout<Value> build_dasp_layout(const CsrMatrix<Value, int32_t>&,              \
                                               const DaspParameters&,                         \
                                               std::optional<DaspBlockShape>, DaspFill);      \
  template void dasp_host_apply(const DaspLayout<Value>&, std::span<const Value>,             \
                                std::span<double>, double, double);
TCSPARSE_DASP_INSTANTIATE(double)
TCSPARSE_DASP_INSTANTIATE(float)
TCSPARSE_DASP_INSTANTIATE(half)
TCSPARSE_DASP_INSTANTIATE(bfloat16)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
