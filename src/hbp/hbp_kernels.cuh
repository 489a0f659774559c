// HBP kernels (paper III.C, Algorithm 3): the SpMV part (a warp per warp group, the x segment
// of the task's column block in shared memory, fixed tasks then tickets) and the combine part
// (partial sums of a row added in column-block order). The arrays are those of hbp_format.hpp;
// hbp_format.cpp's host_apply walks them the same way.
//
//   thread block k (warps_per_block warps), persistent:
//     tasks [k*F/G, (k+1)*F/G)  fixed part (F = fixed tasks, G = grid)
//     then task F + atomicAdd(ticket, 1) until >= tasks   (competitive part; ticket zeroed by a
//                                                           cudaMemsetAsync before the launch)
//   a task: blocks [task_block_begin[t], task_block_begin[t+1]) of column block task_col[t]
//     shared memory:  segment[0 .. block_cols)  = x[task_col * block_cols + i]  (as V; reloaded
//                                                  only when the column block changes; a task with
//                                                  too few nonzeros for it, task_shared_x[t] == 0,
//                                                  reads x from global memory instead)
//     warps take the groups of its blocks by a shared counter, one group a warp at a time:
//     groups [block_group_begin[first block], block_group_begin[last block + 1])  (the paper
//     gives a warp a whole block; a group a warp keeps every warp busy when the blocks are few
//     and dense: 128 blocks of 256 rows x 800 nonzeros ran 30x slower than cuSPARSE a block a warp)
//   a group g, one warp:
//
//      begin_nnz[g]                                                   begin_nnz[g+1]
//      | round 0: slot 0 1 2 3 ... n-1 | round 1: slots still alive | ... |
//        lane l starts at begin_nnz[g] + l; word = col_add_sign[j]:
//          bits 0..15  column in the block   -> segment[column]
//          bits 16..31 add_sign (int16)      -> j += add_sign, stop after -1
//      a warp group (one slot, >= warp_row_length nonzeros, contiguous): lanes stride by 32,
//      then warp_sum
//   a slot's sum goes to output_hash[s] >= 0: partials[output_hash[s]]
//                                       < 0: y[~output_hash[s]] = alpha*sum + beta*y (only slot)
//   combine: thread per k: y[combine_rows[k]] = alpha * sum(partials[combine_begin[k] ..
//            combine_begin[k+1]) in order) + beta * y      (no float atomics: bitwise repeatable)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"

namespace tcsparse::hbp::device {

template <typename V>
using Acc = arch::acc_t<V>;

template <typename V>
struct SpmvArguments {
  const std::int32_t* task_block_begin = nullptr;
  const std::int32_t* task_col = nullptr;
  const std::int32_t* task_shared_x = nullptr;
  std::int32_t task_count = 0;
  std::int32_t fixed_tasks = 0;
  const std::int32_t* block_group_begin = nullptr;
  const std::int32_t* group_slot_begin = nullptr;
  const std::int64_t* begin_nnz = nullptr;
  const std::uint32_t* col_add_sign = nullptr;
  const V* data = nullptr;
  const std::int32_t* output_hash = nullptr;
  Acc<V>* partials = nullptr;
  unsigned* ticket = nullptr;
  std::int64_t cols = 0;
  std::int32_t block_cols = 0;
  std::int32_t warp_row_length = 0;  ///< 0: off
};

template <typename V>
struct CombineArguments {
  const std::int32_t* combine_rows = nullptr;
  const std::int32_t* combine_begin = nullptr;
  const Acc<V>* partials = nullptr;
  std::int32_t count = 0;
};

/// alpha * sum + beta * y[row] into y[row] (beta == 0: y not read).
template <typename V>
__device__ __forceinline__ void write_row(V* y, std::int64_t row, Acc<V> sum, Acc<V> alpha,
                                          Acc<V> beta) {
  using Traits = arch::ValueTraits<V>;
  Acc<V> value = alpha * sum;
  if (beta != Acc<V>(0)) value += beta * Traits::to_acc(y[row]);
  y[row] = Traits::from_acc(value);
}

template <typename V>
__device__ __forceinline__ void write_slot(const SpmvArguments<V>& args, std::int32_t destination,
                                           Acc<V> sum, V* y, Acc<V> alpha, Acc<V> beta) {
  if (destination >= 0)
    args.partials[destination] = sum;
  else
    write_row(y, static_cast<std::int64_t>(~destination), sum, alpha, beta);
}

/// One warp computes warp group `g` against `segment`: the x values of its column block, in
/// shared memory or straight in global memory (a generic pointer either way). Every lane calls it;
/// the branch on the group is warp-uniform, the lane loop of a lane group is not and holds no
/// warp-wide operation.
template <typename V>
__device__ void spmv_group(const SpmvArguments<V>& args, std::int32_t g, const V* segment, V* y,
                           Acc<V> alpha, Acc<V> beta, int lane) {
  using Traits = arch::ValueTraits<V>;
  const std::int32_t slot0 = args.group_slot_begin[g];
  const std::int32_t group_rows = args.group_slot_begin[g + 1] - slot0;
  const std::int64_t begin = args.begin_nnz[g];
  const std::int64_t end = args.begin_nnz[g + 1];
  if (args.warp_row_length > 0 && group_rows == 1 && end - begin >= args.warp_row_length) {
    Acc<V> sum = 0;
    for (std::int64_t j = begin + lane; j < end; j += arch::kWarpSize) {
      const std::uint32_t word = arch::load_streaming(args.col_add_sign + j);
      sum += Traits::to_acc(arch::load_streaming(args.data + j)) *
             Traits::to_acc(segment[word & 0xffffu]);
    }
    sum = arch::warp_sum(sum);
    if (lane == 0) write_slot(args, args.output_hash[slot0], sum, y, alpha, beta);
  } else if (lane < group_rows) {
    Acc<V> sum = 0;
    std::int64_t j = begin + lane;
    int step = 0;
    do {
      const std::uint32_t word = arch::load_streaming(args.col_add_sign + j);
      sum += Traits::to_acc(arch::load_streaming(args.data + j)) *
             Traits::to_acc(segment[word & 0xffffu]);
      step = static_cast<std::int16_t>(static_cast<std::uint16_t>(word >> 16));
      j += step;
    } while (step > 0);
    write_slot(args, args.output_hash[slot0 + lane], sum, y, alpha, beta);
  }
}

/// The SpMV part. Dynamic shared memory: the x segment, min(block_cols, cols) values of V,
/// rounded up to 16 bytes. Launched with a grid of at most task_count blocks of whole warps.
template <typename V>
__global__ void __launch_bounds__(1024) spmv_kernel(SpmvArguments<V> args, const V* __restrict__ x,
                                                    V* __restrict__ y, Acc<V> alpha, Acc<V> beta) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  V* segment = reinterpret_cast<V*>(shared_bytes);
  __shared__ std::int32_t task_shared;
  __shared__ std::int32_t next_group_shared;

  const int lane = arch::lane_id();
  const auto grid = static_cast<std::int64_t>(gridDim.x);
  std::int64_t fixed_next = static_cast<std::int64_t>(args.fixed_tasks) * blockIdx.x / grid;
  const std::int64_t fixed_end = static_cast<std::int64_t>(args.fixed_tasks) * (blockIdx.x + 1) / grid;
  std::int32_t loaded_column_block = -1;

  for (;;) {
    if (threadIdx.x == 0) {
      std::int64_t task = 0;
      if (fixed_next < fixed_end)
        task = fixed_next++;
      else
        task = static_cast<std::int64_t>(args.fixed_tasks) + atomicAdd(args.ticket, 1u);
      task_shared = task < args.task_count ? static_cast<std::int32_t>(task) : args.task_count;
      next_group_shared = 0;
    }
    __syncthreads();
    const std::int32_t task = task_shared;
    if (task >= args.task_count) break;  // the same for every thread of the block

    // uniform over the thread block: every thread saw the same tasks
    const std::int32_t column_block = args.task_col[task];
    const std::int64_t origin = static_cast<std::int64_t>(column_block) * args.block_cols;
    const bool shared_x = column_block == loaded_column_block || args.task_shared_x[task] != 0;
    if (column_block != loaded_column_block && shared_x) {
      const std::int64_t remaining = args.cols - origin;
      const int width = static_cast<int>(remaining < args.block_cols ? remaining : args.block_cols);
      for (int i = static_cast<int>(threadIdx.x); i < width; i += static_cast<int>(blockDim.x))
        segment[i] = arch::load_read_only(x + origin + i);
      loaded_column_block = column_block;
      __syncthreads();
    }
    const V* task_x = shared_x ? segment : x + origin;  // a few nonzeros: x from global memory

    // the task's blocks are consecutive, so are their groups
    const std::int32_t first_group = args.block_group_begin[args.task_block_begin[task]];
    const std::int32_t group_count =
        args.block_group_begin[args.task_block_begin[task + 1]] - first_group;
    for (;;) {
      std::int32_t k = 0;
      if (lane == 0) k = atomicAdd(&next_group_shared, 1);
      k = __shfl_sync(arch::kFullMask, k, 0);
      if (k >= group_count) break;  // warp-uniform
      spmv_group(args, first_group + k, task_x, y, alpha, beta, lane);
    }
    __syncthreads();  // the segment and the shared task are reused
  }
}

/// The combine part: one thread a row with 0 or >= 2 slots (grid-stride).
template <typename V>
__global__ void combine_kernel(CombineArguments<V> args, V* __restrict__ y, Acc<V> alpha,
                               Acc<V> beta) {
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       k < args.count; k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    Acc<V> sum = 0;
    const std::int32_t end = args.combine_begin[k + 1];
    for (std::int32_t i = args.combine_begin[k]; i < end; ++i)
      sum += arch::load_streaming(args.partials + i);
    write_row(y, static_cast<std::int64_t>(args.combine_rows[k]), sum, alpha, beta);
  }
}

}  // namespace tcsparse::hbp::device
