// What the DASP host-layout files share and nobody else includes (dasp_format.hpp is the public
// face). The build runs in two phases that share one plan:
//   plan  row lengths -> one stable counting sort of all rows by category key (long rows keep
//         their order, medium rows by length descending, short rows 4, 3, 2, 1, then empty
//         rows); regular chunk count of every medium row-block; long groups; short piecing counts.
//         dasp_classify.cpp, with MAX_LEN from dasp_max_len.cpp.
//   fill  prefix sums for the offsets, then every array filled in parallel (each thread writes
//         its own rows / groups / row-blocks; no synchronisation). dasp_fill_host.cpp.
// count_dasp_layout stops after the plan. dasp_host_apply.cpp walks a built layout;
// dasp_stats.cpp writes the counts as JSON.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/parallel.hpp"
#include "dasp/dasp_format.hpp"

namespace tcsparse::dasp::internal {

using std::int32_t;
using std::int64_t;
using detail::threads_for;

inline std::size_t sz(int64_t v) { return static_cast<std::size_t>(v); }

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Values of a row-block's longest row (its first: rows are sorted by length) in the last of its
/// `blocks` regular blocks, 1..width; no other row of the row-block has more there.
inline int64_t tail_width(int64_t longest_row, int64_t blocks, int width) {
  return std::clamp<int64_t>(longest_row - (blocks - 1) * width, 1, width);
}

/// All rows in category order (see the top of this file) and where each category starts.
struct RowOrder {
  detail::UninitializedVector<int32_t> rows;  ///< every entry written by the (parallel) sort
  int64_t medium_begin = 0, short_begin = 0, empty_begin = 0;
  /// short rows of length k are [short_begin_of[k], short_begin_of[k] + count)
  std::array<int64_t, 5> short_begin_of{};
  std::array<int64_t, 5> short_count_of{};
};

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

/// The plan of a layout (classification, row sort, counts, work split): dasp_classify.cpp.
/// Throws UnsupportedError for a block shape other than 8x4 or 16x4, IndexOverflowError when the
/// padded long or regular values would not fit 32-bit offsets.
template <typename Value>
LayoutPlan plan_layout(const CsrMatrix<Value, int32_t>& matrix, const DaspParameters& parameters,
                       DaspBlockShape shape, detail::PhaseTimes* phases = nullptr);

/// phases->lap(name) where phases is given.
inline void lap(detail::PhaseTimes* phases, const char* name) {
  if (phases) phases->lap(name);
}

}  // namespace tcsparse::dasp::internal

/// X(Value) for every value type the host layout is compiled for (explicit instantiations).
#define TCSPARSE_DASP_FOR_EACH_VALUE(X) X(double) X(float) X(half) X(bfloat16)
