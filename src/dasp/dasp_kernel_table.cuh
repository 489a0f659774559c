// The DASP kernel instantiations (dasp_kernels.cuh) and the choice among them: one per loop shape
// (row-blocks a warp, blocks in flight, pipelined loads) and, for fp64, block storage order. The
// shape is a template argument so that each instantiation keeps its loops unrolled and its
// registers few; the plan picks one at build time.
#pragma once

#include <string>

#include "dasp/dasp_kernels.cuh"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

template <typename V>
using DaspKernel = void (*)(const device::Arguments<V>, const V*, V*, device::Acc<V>,
                            device::Acc<V>);

namespace kernel_table {

template <typename V, bool kColumnMajor>
DaspKernel<V> pick_of_order(int rowblocks_per_unit, int in_flight, bool pipelined) {
#define TCSPARSE_DASP_KERNEL(L, U)                                                    \
  if (rowblocks_per_unit == L && in_flight == U)                                      \
    return pipelined ? &device::dasp_spmv_kernel<V, L, U, true, kColumnMajor>         \
                     : &device::dasp_spmv_kernel<V, L, U, false, kColumnMajor>;
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
/// (the block order is a template argument, so that row-major blocks pay nothing for it).
template <typename V>
DaspKernel<V> pick_kernel(int rowblocks_per_unit, int in_flight, bool pipelined,
                          bool column_major) {
  if constexpr (device::Traits<V>::kBlockRows == 8) {
    if (column_major)
      return kernel_table::pick_of_order<V, true>(rowblocks_per_unit, in_flight, pipelined);
  }
  return kernel_table::pick_of_order<V, false>(rowblocks_per_unit, in_flight, pipelined);
}

}  // namespace tcsparse::dasp
