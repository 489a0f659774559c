// DASP layout fill on the host: the long, medium and short arrays written in parallel from the
// plan (dasp_classify.cpp), and build_dasp_layout, which runs both phases.
#include "dasp/dasp_format_internal.hpp"

#include <omp.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "common/parallel.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

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
  layout.medium_tail_widths.resize(sz(padded_row_blocks));
  {
    const int team = threads_for(padded_row_blocks, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
    for (int64_t rb = 0; rb < padded_row_blocks; ++rb) {
      const int64_t blocks = rb < c.row_blocks ? chunks[sz(rb)] : 0;
      layout.medium_tail_widths[sz(rb)] = static_cast<std::uint8_t>(
          blocks > 0 ? tail_width(length(rb * block_rows), blocks, width) : width);
    }
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

  layout.short_parts = short_parts_of(c);
  int64_t values = c.stored_short;
  const int64_t row_ids = kWarpSize * (c.short_tiles[0] + c.short_tiles[1] + c.short_tiles[2] +
                                       c.short_tiles[3]);
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
    const int team = threads_for(std::max(values, row_ids), 0);
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
        const int64_t tile = pair / kShortPairsPerTile;
        const int k = static_cast<int>(pair % kShortPairsPerTile);
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
    // every tile as kind | tile << 2, ordered by its smallest row, so that the warps running
    // together write nearby rows of y (sorted in parallel: the same order as a stable sort by kind
    // order, which no tie can break: every tile holds a row, and no row is in two tiles).
    // Tiles are stored kind after kind (row_offset = 32 * tiles before), so tile t of the
    // whole array is tile t - row_offset / 32 of its kind.
    const int64_t tiles = row_ids / kWarpSize;
    std::vector<std::pair<int32_t, int32_t>> keyed(sz(tiles));
    const int tile_team = threads_for(row_ids, 0);
#pragma omp parallel for num_threads(tile_team) if (tile_team > 1) schedule(static)
    for (int64_t t = 0; t < tiles; ++t) {
      int kind = kDaspShortKinds - 1;
      while (layout.short_parts[sz(kind)].row_offset > t * kWarpSize) --kind;
      const int64_t tile = t - layout.short_parts[sz(kind)].row_offset / kWarpSize;
      int32_t first = std::numeric_limits<int32_t>::max();
      for (int lane = 0; lane < kWarpSize; ++lane) {
        const int32_t id = layout.short_row_ids[sz(t * kWarpSize + lane)];
        if (id >= 0) first = std::min(first, id);
      }
      keyed[sz(t)] = {first, static_cast<int32_t>(kind | (tile << 2))};
    }
    detail::sort_in_parallel(keyed.begin(), keyed.end(), 0);
    layout.short_tile_order.resize(keyed.size());
#pragma omp parallel for num_threads(tile_team) if (tile_team > 1) schedule(static)
    for (int64_t i = 0; i < tiles; ++i) layout.short_tile_order[sz(i)] = keyed[sz(i)].second;
  }
}

}  // namespace

template <typename Value>
DaspLayout<Value> build_dasp_layout(const CsrMatrix<Value, int32_t>& matrix,
                                    const DaspParameters& parameters,
                                    std::optional<DaspBlockShape> shape, DaspFill fill,
                                    detail::PhaseTimes* phases) {
  if (phases) phases->skip();
  LayoutPlan plan =
      plan_layout(matrix, parameters, shape.value_or(default_block_shape<Value>()), phases);
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
  lap(phases, "fill_long");
  fill_medium(matrix, plan, layout);
  lap(phases, "fill_medium");
  fill_short(matrix, plan, layout);
  lap(phases, "fill_short");
  const int64_t empty_rows = plan.counts.rows_empty;
  const int64_t empty_ids = plan.counts.empty_tiles * kWarpSize;
  layout.empty_row_ids.resize(sz(empty_ids));
  const int32_t* empty = plan.order.rows.data() + plan.order.empty_begin;
  const int team = threads_for(empty_ids, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t i = 0; i < empty_ids; ++i) layout.empty_row_ids[sz(i)] = i < empty_rows ? empty[i] : -1;
  lap(phases, "empty_rows");
  return layout;
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template DaspLayout<Value> build_dasp_layout(const CsrMatrix<Value, int32_t>&,                   \
                                               const DaspParameters&,                              \
                                               std::optional<DaspBlockShape>, DaspFill,        \
                                               detail::PhaseTimes*);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
