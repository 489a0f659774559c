// The DASP kernel instantiations (dasp_kernels.cuh) and the choice among them: one per loop shape
// (row-blocks a warp, blocks in flight, pipelined loads), fp64 block storage order and the parts
// of the layout it has code for (all; no irregular medium values; short rows only). These are
// template arguments so that each instantiation keeps its loops unrolled and its registers few;
// the plan picks one at build time.
#pragma once

#include <string>

#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernels.cuh"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

template <typename V>
using DaspKernel = void (*)(const device::Arguments<V>, const V*, V*, device::Acc<V>,
                            device::Acc<V>);

namespace kernel_table {

template <typename V, bool kColumnMajor, device::KernelParts kParts>
DaspKernel<V> pick_of_order(int rowblocks_per_unit, int in_flight, bool pipelined) {
#define TCSPARSE_DASP_KERNEL(L, U)                                                        \
  if (rowblocks_per_unit == L && in_flight == U)                                          \
    return pipelined ? &device::dasp_spmv_kernel<V, L, U, true, kColumnMajor, kParts>     \
                     : &device::dasp_spmv_kernel<V, L, U, false, kColumnMajor, kParts>;
  TCSPARSE_DASP_KERNEL(1, 1)
  TCSPARSE_DASP_KERNEL(1, 2)
  TCSPARSE_DASP_KERNEL(1, 4)
  TCSPARSE_DASP_KERNEL(2, 1)
  TCSPARSE_DASP_KERNEL(2, 2)
  TCSPARSE_DASP_KERNEL(2, 4)
  if constexpr (device::Traits<V>::kBlockRows == 8) {
    TCSPARSE_DASP_KERNEL(4, 1)
    TCSPARSE_DASP_KERNEL(4, 2)
    TCSPARSE_DASP_KERNEL(4, 4)
  }
#undef TCSPARSE_DASP_KERNEL
  throw UnsupportedError("DASP: no kernel for " + std::to_string(rowblocks_per_unit) +
                         " row-blocks a warp and " + std::to_string(in_flight) +
                         " blocks in flight");
}

/// The short-rows-only kernel of a block order: one instantiation, the loop shape is unused.
template <typename V, bool kColumnMajor>
DaspKernel<V> short_rows_only() {
  return &device::dasp_spmv_kernel<V, 1, 1, false, kColumnMajor,
                                   device::KernelParts::kShortRowsOnly>;
}

}  // namespace kernel_table

/// The kernel instantiation of a loop shape, block order and parts: fp64 blocks stored
/// column-major get their own (the block order is a template argument, so that row-major blocks
/// pay nothing for it), and so does each KernelParts (kernel_parts, below).
template <typename V>
DaspKernel<V> pick_kernel(int rowblocks_per_unit, int in_flight, bool pipelined,
                          bool column_major, device::KernelParts parts) {
  using device::KernelParts;
  using kernel_table::pick_of_order;
  using kernel_table::short_rows_only;
  if constexpr (device::Traits<V>::kBlockRows == 8) {
    if (parts == KernelParts::kShortRowsOnly)
      return column_major ? short_rows_only<V, true>() : short_rows_only<V, false>();
    if (column_major)
      return parts == KernelParts::kAll
                 ? pick_of_order<V, true, KernelParts::kAll>(rowblocks_per_unit, in_flight,
                                                             pipelined)
                 : pick_of_order<V, true, KernelParts::kNoIrregular>(rowblocks_per_unit,
                                                                     in_flight, pipelined);
    return parts == KernelParts::kAll
               ? pick_of_order<V, false, KernelParts::kAll>(rowblocks_per_unit, in_flight,
                                                            pipelined)
               : pick_of_order<V, false, KernelParts::kNoIrregular>(rowblocks_per_unit,
                                                                    in_flight, pipelined);
  } else {
    if (parts == KernelParts::kShortRowsOnly) return short_rows_only<V, false>();
    return pick_of_order<V, false, KernelParts::kAll>(rowblocks_per_unit, in_flight, pipelined);
  }
}

/// The parts a layout's kernel has (pick_kernel's `parts`), unless `all` (kernel_parts=all):
/// - short rows only (kShortRowsOnly) where the layout has no long and no medium rows;
/// - kNoIrregular for fp64 layouts without irregular values whose regular medium values are at
///   least half the nonzeros. Where long rows or short tiles carry the work that kernel measured
///   slower (H200, run 266: pruned_2k 0.88x, long_rows_20k 0.96x, short_rows_200k 0.97x); where
///   medium rows do, faster (cage11 x 35 1.09x, banded_2m 1.13x, stencil3d_100 1.07x on the same
///   layout). fp16 / bf16 keep the irregular part: without it banded_2m ran 0.91x (run 265);
/// - every part (kAll) otherwise.
inline device::KernelParts kernel_parts(bool fp64_blocks, const DaspCounts& counts, bool all) {
  using device::KernelParts;
  if (all) return KernelParts::kAll;
  if (counts.rows_long == 0 && counts.rows_medium == 0) return KernelParts::kShortRowsOnly;
  if (fp64_blocks && counts.nnz_medium_irregular == 0 &&
      2 * counts.nnz_medium_regular >= counts.nnz())
    return KernelParts::kNoIrregular;
  return KernelParts::kAll;
}

/// Whether the short tiles' y is staged in shared memory (DaspParameters::short_y; the
/// short-rows-only kernel's StagedShortY): layouts of short rows only whose tiles are ordered by
/// row, when asked, or (auto) fp64 ones of at least kDaspStagedShortMinRows rows.
inline bool stage_short_y(const DaspParameters& parameters, device::KernelParts parts,
                          const DaspCounts& counts, DaspBlockShape shape, std::int64_t rows) {
  if (parts != device::KernelParts::kShortRowsOnly || !counts.short_tiles_by_row ||
      parameters.short_y == 1)
    return false;
  return parameters.short_y == 2 || (shape.rows == 8 && rows >= kDaspStagedShortMinRows);
}

/// The name of a KernelParts in the plan's statistics (details.kernel_parts).
inline const char* kernel_parts_name(device::KernelParts parts) {
  switch (parts) {
    case device::KernelParts::kShortRowsOnly: return "short_rows_only";
    case device::KernelParts::kNoIrregular: return "no_irregular";
    default: return "all";
  }
}

}  // namespace tcsparse::dasp
