// The plan's row order of a DASP layout ("row_order=plan", dasp_format.hpp): the order in which
// the kernel's warps write y (dasp_kernels.cuh: long tasks, medium units, short tiles, empty
// tiles), and the host rewrite of a layout to that order.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "common/parallel.hpp"
#include "dasp/dasp_format_internal.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

/// The layout's row-id arrays in the order the kernel's warps write them, cut into pieces of at
/// most one warp's outputs (kWarpSize ids, -1 where no row is).
template <typename Value>
std::vector<std::span<const int32_t>> row_ids_in_warp_order(const DaspLayout<Value>& L) {
  std::vector<std::span<const int32_t>> pieces;
  auto add = [&](std::span<const int32_t> ids) {
    for (std::size_t at = 0; at < ids.size(); at += kWarpSize)
      pieces.push_back(ids.subspan(at, std::min<std::size_t>(kWarpSize, ids.size() - at)));
  };
  // long rows: the tasks of a row are consecutive warps; the row is written once
  add(L.long_row_ids);
  // medium rows: unit u (or row-block u and its pieces) writes medium_row_ids of its rows
  add(L.medium_row_ids);
  // short rows: tile by tile in the warps' order (short_tile_order, else kind by kind)
  if (L.short_tile_order.empty()) {
    add(L.short_row_ids);
  } else {
    for (const int32_t code : L.short_tile_order) {
      const DaspShortPart& part = L.short_parts[sz(code & 3)];
      const int64_t first = part.row_offset + int64_t{code >> 2} * kWarpSize;
      add(std::span<const int32_t>(L.short_row_ids).subspan(sz(first), kWarpSize));
    }
  }
  add(L.empty_row_ids);
  return pieces;
}

/// ids[i] = map[ids[i]] for every id that names a row (>= 0), in parallel.
void remap_ids(std::span<int32_t> ids, std::span<const int32_t> map) {
  const auto count = static_cast<int64_t>(ids.size());
  const int team = threads_for(count, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t i = 0; i < count; ++i)
    if (ids[sz(i)] >= 0) ids[sz(i)] = map[sz(ids[sz(i)])];
}

}  // namespace

template <typename Value>
std::vector<int32_t> dasp_plan_row_order(const DaspLayout<Value>& L) {
  // a parallel compaction: the rows of each piece go after the rows of the pieces before it
  const auto pieces = row_ids_in_warp_order(L);
  const auto count = static_cast<int64_t>(pieces.size());
  auto rows_in = [&](int64_t i) {
    return std::count_if(pieces[sz(i)].begin(), pieces[sz(i)].end(),
                         [](int32_t row) { return row >= 0; });
  };
  std::vector<int64_t> first(sz(count) + 1);
  const int64_t rows = detail::blocked_exclusive_scan<int64_t>(
      count, 0, rows_in, [&](int64_t i, int64_t offset) { first[sz(i)] = offset; },
      [&](int64_t total) {
        if (total != L.rows)
          throw Error("DASP plan row order: " + std::to_string(total) + " rows listed for " +
                      std::to_string(L.rows) + " (a layout bug)");
      });
  std::vector<int32_t> order(sz(rows));
  const int team = threads_for(rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = first[sz(i)];
    for (const int32_t row : pieces[sz(i)])
      if (row >= 0) order[sz(at++)] = row;
  }
  return order;
}

std::vector<int32_t> inverse_row_order(std::span<const int32_t> order) {
  return detail::inverse_order(order.data(), static_cast<int64_t>(order.size()));
}

template <typename Value>
void remap_to_plan_order(DaspLayout<Value>& L, std::span<const int32_t> caller_to_plan,
                         bool columns) {
  for (DaspLongTask& task : L.long_tasks) task.row = caller_to_plan[sz(task.row)];
  remap_ids(L.long_row_ids, caller_to_plan);
  remap_ids(L.medium_row_ids, caller_to_plan);
  remap_ids(L.short_row_ids, caller_to_plan);
  remap_ids(L.empty_row_ids, caller_to_plan);
  if (!columns) return;
  for (HostArray<int32_t>* cols : {&L.long_cols, &L.regular_cols, &L.irregular_cols, &L.short_cols})
    remap_ids(cols->span(), caller_to_plan);
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template std::vector<int32_t> dasp_plan_row_order(const DaspLayout<Value>&);                    \
  template void remap_to_plan_order(DaspLayout<Value>&, std::span<const int32_t>, bool);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
