// What the DASP layout builders share and nobody outside src/dasp includes (dasp_format.hpp is
// the public face). The host build runs in two phases that share one plan:
//   plan  row lengths -> one stable counting sort of all rows by category key (long rows keep
//         their order, medium rows by length descending, short rows 4, 3, 2, 1, then empty
//         rows); regular chunk count of every medium row-block; long groups; short piecing counts.
//         dasp_classify.cpp, with MAX_LEN from dasp_max_len.cpp.
//   fill  prefix sums for the offsets, then every array filled in parallel (each thread writes
//         its own rows / groups / row-blocks; no synchronisation). dasp_fill_host.cpp.
// count_dasp_layout stops after the plan. dasp_host_apply.cpp walks a built layout;
// dasp_stats.cpp writes the counts as JSON. The device build (dasp_device_build.cu) computes the
// same counts on the GPU; both take every decision through dasp_layout_decisions.hpp.
#pragma once

#include "common/for_each_value.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <vector>

#include "common/parallel.hpp"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_layout_decisions.hpp"

namespace tcsparse::dasp::internal {

using detail::threads_for;

/// All rows in category order (see the top of this file) and where each category starts.
struct RowOrder : CategoryBounds {
  detail::UninitializedVector<int32_t> rows;  ///< every entry written by the (parallel) sort
};

/// The summary of the row lengths of row_ptr (host, OpenMP).
RowLengthSummary summarize_row_lengths(std::span<const int32_t> row_ptr, int64_t cols,
                                       DaspBlockShape shape);

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
  int64_t group_values() const { return long_row_group_values(shape); }
};

/// The plan of a layout (classification, row sort, counts, work split): dasp_classify.cpp.
/// Throws UnsupportedError for a block shape other than 8x4 or 16x4, IndexOverflowError when the
/// padded long or regular values would not fit 32-bit offsets.
template <typename Value>
LayoutPlan plan_layout(const CsrMatrix<Value, int32_t>& matrix, const DaspParameters& parameters,
                       DaspBlockShape shape, detail::PhaseTimes* phases = nullptr);

}  // namespace tcsparse::dasp::internal

/// X(Value) for every value type the host layout is compiled for (explicit instantiations).
#define TCSPARSE_DASP_FOR_EACH_VALUE(X) TCSPARSE_FOR_EACH_VALUE(X)
