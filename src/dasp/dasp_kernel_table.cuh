// The DASP kernel instantiations (dasp_kernels.cuh) and the choice among them: one per loop shape
// (row-blocks a warp, blocks in flight, pipelined loads), for fp64 block storage order, and
// whether the layout has irregular medium values. The shape is a template argument so that each
// instantiation keeps its loops unrolled and its registers few; the plan picks one at build time.
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

template <typename V, bool kColumnMajor, bool kIrregular>
DaspKernel<V> pick_of_order(int rowblocks_per_unit, int in_flight, bool pipelined) {
#define TCSPARSE_DASP_KERNEL(L, U)                                                          \
  if (rowblocks_per_unit == L && in_flight == U)                                            \
    return pipelined ? &device::dasp_spmv_kernel<V, L, U, true, kColumnMajor, kIrregular>   \
                     : &device::dasp_spmv_kernel<V, L, U, false, kColumnMajor, kIrregular>;
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

}  // namespace kernel_table

/// The kernel instantiation of a loop shape; fp64 blocks stored column-major get their own
/// (the block order is a template argument, so that row-major blocks pay nothing for it), and so
/// does an fp64 layout without irregular medium values (`irregular` false: no registers held for
/// them). fp16 / bf16 always take the kernel with the irregular part: without it banded_2m ran
/// 0.91x as fast on the same layout (H200, run 265).
template <typename V>
DaspKernel<V> pick_kernel(int rowblocks_per_unit, int in_flight, bool pipelined,
                          bool column_major, bool irregular) {
  using kernel_table::pick_of_order;
  if constexpr (device::Traits<V>::kBlockRows == 8) {
    if (column_major)
      return irregular ? pick_of_order<V, true, true>(rowblocks_per_unit, in_flight, pipelined)
                       : pick_of_order<V, true, false>(rowblocks_per_unit, in_flight, pipelined);
    return irregular ? pick_of_order<V, false, true>(rowblocks_per_unit, in_flight, pipelined)
                     : pick_of_order<V, false, false>(rowblocks_per_unit, in_flight, pipelined);
  } else {
    return pick_of_order<V, false, true>(rowblocks_per_unit, in_flight, pipelined);
  }
}

/// Whether a layout runs the kernel with the irregular part (pick_kernel's `irregular`): all but
/// fp64 layouts without irregular values whose regular medium values are at least half the
/// nonzeros. Where long rows or short tiles carry the work the kernel without it measured slower
/// (H200, run 266: pruned_2k 0.88x, long_rows_20k 0.96x, short_rows_200k 0.97x); where medium
/// rows do, faster (cage11 x 35 1.09x, banded_2m 1.13x, stencil3d_100 1.07x on the same layout).
inline bool kernel_has_irregular_part(bool fp64_blocks, const DaspCounts& counts, bool always) {
  return always || !fp64_blocks || counts.nnz_medium_irregular > 0 ||
         2 * counts.nnz_medium_regular < counts.nnz();
}

}  // namespace tcsparse::dasp
