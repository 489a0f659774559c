// HBP kernels (paper III.C, Algorithm 3): the SpMV part (a warp per warp group) in two ways of
// handing the groups out, and the combine part (partial sums of a row added in column-block
// order). The arrays are those of hbp_format.hpp; hbp_format.cpp's host_apply walks them the same
// way.
//
//   kernel=groups (spmv_groups_kernel): warp w of W takes groups [t*R, (t+1)*R) for each of
//     its tickets (R = groups_per_ticket): t = r*W + w in the fixed rounds r < F (fixed_rounds,
//     from fixed_group_share; none by default), then t = F*W + atomicAdd(ticket, 1); reading x
//     at group_col[g] * block_cols
//
//   kernel=tasks (spmv_kernel), the paper's: thread block k (warps_per_block warps), persistent:
//     tasks [k*F/G, (k+1)*F/G)  fixed part (F = fixed tasks, G = grid)
//     then task F + atomicAdd(ticket, 1) until >= tasks   (competitive part)
//
//   the ticket resets itself (no memset an apply): every taker (a warp of kernel=groups, a thread
//   block of kernel=tasks) stops at the first ticket past the work, so a launch hands out exactly
//   T + takers tickets (T = tickets with work); the taker that draws the last one, T + takers - 1,
//   is the launch's last to touch the counter and zeroes it for the next launch (release_ticket)
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
//        lane l: last = slot_last_round[group_slot_begin[g] + l] (length - 1; -1 for l >= n)
//        rounds = warp max of last + 1; for t in rounds, U at a time (walk_unroll):
//          alive(t) = ballot(last >= t)
//          position = begin_nnz[g] + offset(t) + popc(alive(t) & lanes below l)
//          offset(t + 1) = offset(t) + popc(alive(t))
//        the U positions first (ballots only), then U loads of word and value (independent: a
//        lane has U of them in flight), then U products in round order; word = col_add_sign[j]:
//          bits 0..24  column in the block   -> segment[column]
//          bits 25..31 add_sign + 1          -> not read (the paper's walk; host test HbpRoundWalk)
//      a warp group (one slot, >= warp_row_length nonzeros, contiguous, at most max_slot_length):
//      lanes stride by 32, kWarpGroupUnroll strides loaded at once, then warp_sum
//   segment: the x segment in shared memory (blocks of at most kLargestSharedSegmentBytes whose
//   task pays for it, task_shared_x) or x itself from the column block's origin (wide blocks:
//   L2 stripes, read through L1/L2; tickets in task order keep the grid on one stripe at a time)
//   a slot's sum goes to output_hash[s] >= 0: partials[output_hash[s]]
//                                       < 0: y[~output_hash[s]] = alpha*sum + beta*y (only slot)
//   or, with slot_output=partial (output_hash == nullptr; hbp_slot_partials.hpp), to partials[s]:
//   every slot has its partial sum at its own index, and the combine writes every row
//   partial sums are numbered in slot order: a group's lanes write one coalesced run
//   combine: thread per k: y[combine_rows[k]] = alpha * sum(partials[combine_partials[i]] for i
//            in [combine_begin[k], combine_begin[k+1]) in order) + beta * y
//            (no float atomics: bitwise repeatable); or, when the combine rows are few
//            (combine_warp_rows), a warp per k (combine_by_warps_kernel). Either is a
//            programmatic dependent launch where the GPU runs sm_90 code: its launch overlaps the
//            SpMV kernel's last blocks, and it waits for that kernel before reading partials
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "arch/dependent_launch.cuh"
#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "hbp/hbp_format.hpp"

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
  const std::int32_t* group_col = nullptr;  ///< kernel=groups: each group's column block
  std::int64_t group_count = 0;
  std::int32_t groups_per_ticket = 1;       ///< kernel=groups
  /// kernel=groups: rounds in which warp w of W takes ticket round * W + w without drawing it
  /// (each of these tickets has work); the counter's tickets follow them
  std::int32_t fixed_rounds = 0;
  const std::int64_t* begin_nnz = nullptr;
  const std::uint32_t* col_add_sign = nullptr;
  const V* data = nullptr;
  const std::int32_t* output_hash = nullptr;  ///< nullptr: slot s writes partials[s]
  const std::uint16_t* slot_last_round = nullptr;
  Acc<V>* partials = nullptr;
  unsigned* ticket = nullptr;  ///< 0 at every launch's start (release_ticket)
  unsigned last_ticket = 0;    ///< the launch's last ticket: tickets with work + takers - 1
  std::int64_t cols = 0;
  std::int32_t block_cols = 0;
  std::int32_t warp_row_length = 0;  ///< 0: off
};

template <typename V>
struct CombineArguments {
  const std::int32_t* combine_rows = nullptr;  ///< nullptr: every row, combine row k is row k
  const std::int32_t* combine_begin = nullptr;
  const std::int32_t* combine_partials = nullptr;
  const Acc<V>* partials = nullptr;
  std::int32_t count = 0;
  /// Rows of more partial sums than this are added by the whole warp; 0: none.
  std::int32_t warp_partials = 0;
};

/// alpha * sum + beta * before into y[row], `before` being y[row] loaded earlier (not used when
/// beta == 0).
template <typename V>
__device__ __forceinline__ void write_row_over(V* y, std::int64_t row, Acc<V> sum, Acc<V> alpha,
                                               Acc<V> beta, Acc<V> before) {
  Acc<V> value = alpha * sum;
  if (beta != Acc<V>(0)) value += beta * before;
  y[row] = arch::ValueTraits<V>::from_acc(value);
}

/// alpha * sum + beta * y[row] into y[row] (beta == 0: y not read).
template <typename V>
__device__ __forceinline__ void write_row(V* y, std::int64_t row, Acc<V> sum, Acc<V> alpha,
                                          Acc<V> beta) {
  const Acc<V> before = beta != Acc<V>(0) ? arch::ValueTraits<V>::to_acc(y[row]) : Acc<V>(0);
  write_row_over(y, row, sum, alpha, beta, before);
}

template <typename V>
__device__ __forceinline__ void write_slot(const SpmvArguments<V>& args, std::int32_t destination,
                                           Acc<V> sum, V* y, Acc<V> alpha, Acc<V> beta) {
  if (destination >= 0)
    args.partials[destination] = sum;
  else
    write_row(y, static_cast<std::int64_t>(~destination), sum, alpha, beta);
}

/// A taker's ticket past the work: the launch's last ticket (`last`) zeroes the counter, which no
/// taker of this launch reads again, so the next launch on the stream starts at 0.
__device__ __forceinline__ void release_ticket(unsigned* ticket, unsigned drawn, unsigned last) {
  if (drawn == last) atomicExch(ticket, 0u);
}

/// Strides of a warp group loaded at once (warp_group_sum): at 4 the groups kernel kept 40-48
/// bytes a thread in local memory under its register cap (kSpmvMaxRegisters), at 2 none.
inline constexpr int kWarpGroupUnroll = 2;

/// The whole warp on a warp group (one slot of >= warp_row_length nonzeros, contiguous): lanes
/// stride by 32, kUnroll strides loaded at once, each lane adding its products in index order,
/// then the butterfly sum.
template <int kUnroll, typename V>
__device__ Acc<V> warp_group_sum(const SpmvArguments<V>& args, std::int64_t begin, std::int64_t end,
                                 const V* segment, int lane) {
  using Traits = arch::ValueTraits<V>;
  Acc<V> sum = 0;
  for (std::int64_t j0 = begin + lane; j0 < end; j0 += kUnroll * arch::kWarpSize) {
    std::uint32_t word[kUnroll];
    V value[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::int64_t j = j0 + u * arch::kWarpSize;
      if (j < end) {
        word[u] = arch::load_streaming(args.col_add_sign + j);
        value[u] = arch::load_streaming(args.data + j);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (j0 + u * arch::kWarpSize < end)
        sum += Traits::to_acc(value[u]) * Traits::to_acc(segment[column_in_block(word[u])]);
  }
  return arch::warp_sum(sum);
}

/// What a warp needs of warp group g before it walks it: its slots, its nonzeros and, for each
/// lane, its slot's length - 1 (-1 past the slots, and for every lane of a warp group, which the
/// lanes stride over instead) and its destination (output_hash).
struct GroupHead {
  std::int32_t slot0 = 0, slots = 0;
  std::int64_t begin = 0, end = 0;
  bool whole_warp = false;
  int last = -1;
  std::int32_t destination = 0;
};

/// The head of a group whose bounds are known: the lane's slot length and destination loaded.
template <typename V>
__device__ __forceinline__ GroupHead load_group_head(const SpmvArguments<V>& args,
                                                     std::int32_t slot0, std::int32_t slots,
                                                     std::int64_t begin, std::int64_t end,
                                                     int lane) {
  GroupHead head;
  head.slot0 = slot0;
  head.slots = slots;
  head.begin = begin;
  head.end = end;
  head.whole_warp = args.warp_row_length > 0 && slots == 1 && end - begin >= args.warp_row_length;
  if (lane < slots) {
    if (!head.whole_warp)
      head.last = static_cast<int>(arch::load_read_only(args.slot_last_round + slot0 + lane));
    head.destination = args.output_hash != nullptr
                           ? arch::load_read_only(args.output_hash + slot0 + lane)
                           : slot0 + lane;
  }
  return head;
}

/// One warp computes the group of `head` against `segment`: the x values of its column block, in
/// shared memory or straight in global memory (a generic pointer either way). Every lane calls it
/// and takes part in every ballot: the branch on the group and the round loop are warp-uniform.
///
/// A lane group is walked in rounds with positions from the slot lengths (hbp_format.hpp's
/// walk_rounds is the host model): kUnroll rounds at a time, the kUnroll positions from ballots,
/// then the kUnroll loads of (column word, value), then the gathers and the products. No load's
/// address depends on another load, so a lane has kUnroll loads of each array in flight (the
/// add_sign walk had one). Each lane adds its products in round order, whatever kUnroll: y does
/// not depend on it. (Four groups' first two rounds loaded at once, to share one chain of
/// latencies, measured 0.8-1.3x this walk on an H200 and spilled registers: not kept.)
template <int kUnroll, typename V>
__device__ void walk_group(const SpmvArguments<V>& args, const GroupHead& head, const V* segment,
                           V* y, Acc<V> alpha, Acc<V> beta, int lane) {
  static_assert(kUnroll >= 1 && kUnroll <= 8, "walk_unroll: 1..8 rounds at a time");
  using Traits = arch::ValueTraits<V>;
  if (head.whole_warp) {  // warp-uniform
    const Acc<V> sum = warp_group_sum<kWarpGroupUnroll>(args, head.begin, head.end, segment, lane);
    if (lane == 0) write_slot(args, head.destination, sum, y, alpha, beta);
    return;
  }
  // a lane a slot; lanes past the group's slots (last = -1) only take part in the ballots
  const int last = head.last;
  const int rounds =
      static_cast<int>(__reduce_max_sync(arch::kFullMask, static_cast<unsigned>(last + 1)));
  const std::uint32_t lanes_below = (1u << lane) - 1u;
  // offsets inside the group: at most 32 slots x 65536 nonzeros, 2^21
  const std::uint32_t* words = args.col_add_sign + head.begin;
  const V* values = args.data + head.begin;
  std::int32_t offset = 0;  // offset(t): nonzeros of the rounds before t
  Acc<V> sum = 0;
  for (int t = 0; t < rounds; t += kUnroll) {  // warp-uniform
    std::int32_t position[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const bool alive = last >= t + u;
      const std::uint32_t alive_lanes = __ballot_sync(arch::kFullMask, alive);
      position[u] = alive ? offset + __popc(alive_lanes & lanes_below) : -1;
      offset += __popc(alive_lanes);
    }
    std::uint32_t word[kUnroll];
    V value[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      if (position[u] >= 0) {
        word[u] = arch::load_streaming(words + position[u]);
        value[u] = arch::load_streaming(values + position[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (position[u] >= 0)
        sum += Traits::to_acc(value[u]) * Traits::to_acc(segment[column_in_block(word[u])]);
  }
  if (lane < head.slots) write_slot(args, head.destination, sum, y, alpha, beta);
}

/// One warp computes warp group `g` (walk_group after its head).
template <int kUnroll, typename V>
__device__ void spmv_group(const SpmvArguments<V>& args, std::int32_t g, const V* segment, V* y,
                           Acc<V> alpha, Acc<V> beta, int lane) {
  const std::int32_t slot0 = args.group_slot_begin[g];
  const GroupHead head = load_group_head(args, slot0, args.group_slot_begin[g + 1] - slot0,
                                         args.begin_nnz[g], args.begin_nnz[g + 1], lane);
  walk_group<kUnroll>(args, head, segment, y, alpha, beta, lane);
}

/// Registers a thread of the SpMV kernels may use (replaces __launch_bounds__(1024): both hold
/// 1024-thread blocks). 40 for kUnroll <= 4: three 16-warp thread blocks an SM (3 x 512 x 40 =
/// 61440 of 65536 registers). kUnroll = 8: 64 (two blocks an SM). At 40 the groups kernel keeps
/// nothing in local memory at kUnroll = 4, the tasks kernel 8-32 bytes a thread (cuobjdump
/// --dump-resource-usage, CUDA 13.0, sm_90; README).
template <int kUnroll>
inline constexpr int kSpmvMaxRegisters = kUnroll <= 4 ? 40 : 64;
/// The groups kernel's cap: two 16-warp thread blocks an SM at 56 or 64 (2 x 512 x 64 = 65536
/// registers). It holds the next group's head beside the walk: at caps of 40 / 48 / 56 / 64, fp64
/// kUnroll = 4 kept 128 / 80 / 48 / 0 bytes a thread in local memory (cuobjdump, CUDA 13.0,
/// sm_90). Measured (H200, fp64, `hbp` suite): caps 40 / 48 / 56 / 64 / 72 gave 0.66x / 0.77x /
/// 0.86-0.88x / 0.86x / 0.73x cuSPARSE (72: one 16-warp block an SM), against 0.81x for the walk
/// without the head loaded ahead at 40. Today (ptxas -v, CUDA 13.0): at 56 the 8-byte kernel
/// spills nothing at kUnroll <= 4, the 16- and 32-bit ones 24 bytes at kUnroll = 4; at 64 none of
/// them. At 64 the hbp suite ran 1.095x as fast in fp16 as at 56 (min 1.043x; H200, run 417
/// against run 406, cuSPARSE within 1 % in both), 0.98x in fp64 (the band 0.90x): 64 for 16- and
/// 32-bit values (fp32 and bf16 not measured), 56 for fp64. The round counter of the fixed rounds
/// (kFixedRounds) made fp64 spill 138 bytes at 56 (the whole hbp suite up to 1.8x slower, run
/// 415): 64 there (20 bytes).
template <typename V, int kUnroll, bool kFixedRounds>
inline constexpr int kGroupsMaxRegisters =
    sizeof(V) == 8 && kUnroll <= 4 && !kFixedRounds ? 56 : 64;

/// The SpMV part of kernel=tasks. Dynamic shared memory: the x segment, min(block_cols, cols)
/// values of V rounded up to 16 bytes, or none when no segment fits (task_shares_x). Launched
/// with a grid of at most task_count blocks of whole warps (at most 1024 threads). kUnroll: rounds of a lane group loaded at once (walk_unroll;
/// spmv_group).
template <typename V, int kUnroll>
__global__ void __maxnreg__(kSpmvMaxRegisters<kUnroll>)
    spmv_kernel(SpmvArguments<V> args, const V* __restrict__ x,
                V* __restrict__ y, Acc<V> alpha, Acc<V> beta) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  V* segment = reinterpret_cast<V*>(shared_bytes);
  __shared__ std::int32_t task_shared;
  __shared__ std::int32_t next_group_shared;
  arch::allow_dependent_grids();  // the combine may be scheduled as this grid's blocks retire

  const int lane = arch::lane_id();
  const auto grid = static_cast<std::int64_t>(gridDim.x);
  std::int64_t fixed_next = static_cast<std::int64_t>(args.fixed_tasks) * blockIdx.x / grid;
  const std::int64_t fixed_end = static_cast<std::int64_t>(args.fixed_tasks) * (blockIdx.x + 1) / grid;
  std::int32_t loaded_column_block = -1;

  for (;;) {
    if (threadIdx.x == 0) {
      std::int64_t task = 0;
      if (fixed_next < fixed_end) {
        task = fixed_next++;
      } else {
        const unsigned ticket = atomicAdd(args.ticket, 1u);
        task = static_cast<std::int64_t>(args.fixed_tasks) + ticket;
        if (task >= args.task_count) release_ticket(args.ticket, ticket, args.last_ticket);
      }
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
      spmv_group<kUnroll>(args, first_group + k, task_x, y, alpha, beta, lane);
    }
    __syncthreads();  // the segment and the shared task are reused
  }
}

/// The SpMV part of kernel=groups: every warp takes runs of groups_per_ticket (<= 31) consecutive
/// warp groups by ticket, in layout order, i.e. column block by column block, so that the grid
/// works on one stripe of x at a time and finds it in the L2; x is read from global memory at the
/// group's column block. The tickets of the first fixed_rounds rounds are handed out, warp w of W
/// ticket round * W + w (fixed_group_share; no atomic's round trip before the run's bounds); the
/// rest are drawn from a global counter (0 at the launch: release_ticket). No shared memory, no
/// barrier: a warp never waits for another (kernel=tasks waits at every task's end for the
/// task's slowest warp).
template <typename V, int kUnroll, bool kFixedRounds>
__global__ void __maxnreg__((kGroupsMaxRegisters<V, kUnroll, kFixedRounds>))
    spmv_groups_kernel(SpmvArguments<V> args, const V* __restrict__ x, V* __restrict__ y,
                       Acc<V> alpha, Acc<V> beta) {
  arch::allow_dependent_grids();  // the combine may be scheduled as this grid's blocks retire
  const int lane = arch::lane_id();
  for (int round = 0;; ++round) {
    // this round's ticket: in the fixed rounds warp w of W holds ticket round * W + w (drawn by no
    // one, each with a whole run); then the counter's, numbered after them
    const unsigned warps = gridDim.x * (blockDim.x / arch::kWarpSize);
    const bool fixed = kFixedRounds && round < args.fixed_rounds;  // warp-uniform
    unsigned ticket = 0;
    if (fixed) {
      ticket = round * warps + blockIdx.x * (blockDim.x / arch::kWarpSize) +
               static_cast<unsigned>(arch::warp_id_in_block());
    } else {
      if (lane == 0) ticket = atomicAdd(args.ticket, 1u);
      ticket = __shfl_sync(arch::kFullMask, ticket, 0);
    }
    const std::int64_t run =
        static_cast<std::int64_t>(ticket) +
        (fixed ? 0 : static_cast<std::int64_t>(args.fixed_rounds) * warps);
    const std::int64_t first = run * args.groups_per_ticket;
    if (first >= args.group_count) {  // warp-uniform; never in a fixed round
      if (lane == 0) release_ticket(args.ticket, ticket, args.last_ticket);
      return;
    }
    const std::int64_t left = args.group_count - first;
    const int count = static_cast<int>(left < args.groups_per_ticket ? left : args.groups_per_ticket);
    // the run's bounds in one load (lane q <= count: group first + q's), its columns likewise
    std::int32_t slot_bound = 0, column_block = 0;
    std::int64_t nnz_bound = 0;
    if (lane <= count) {
      slot_bound = arch::load_read_only(args.group_slot_begin + first + lane);
      nnz_bound = arch::load_read_only(args.begin_nnz + first + lane);
      if (lane < count) column_block = arch::load_read_only(args.group_col + first + lane);
    }
    const auto head_of = [&](int q) {
      const std::int32_t slot0 = __shfl_sync(arch::kFullMask, slot_bound, q);
      return load_group_head(args, slot0, __shfl_sync(arch::kFullMask, slot_bound, q + 1) - slot0,
                             __shfl_sync(arch::kFullMask, nnz_bound, q),
                             __shfl_sync(arch::kFullMask, nnz_bound, q + 1), lane);
    };
    // the next group's head is loaded before this one is walked: its latency hides behind the walk
    GroupHead head = head_of(0);
    for (int q = 0; q < count; ++q) {  // warp-uniform
      GroupHead next;
      if (q + 1 < count) next = head_of(q + 1);
      const std::int64_t origin =
          static_cast<std::int64_t>(__shfl_sync(arch::kFullMask, column_block, q)) * args.block_cols;
      walk_group<kUnroll>(args, head, x + origin, y, alpha, beta, lane);
      head = next;
    }
  }
}

/// The combine part: one thread a row with 0 or >= 2 slots, or every row (slot_output=partial;
/// grid-stride, a warp at a time). A row's partial sums are added by its own thread, from the
/// first (not 0 + it: a row of one slot, slot_output=partial, gets the sum the SpMV kernel would
/// have written itself, to the sign of a zero), except where they are more than
/// args.warp_partials (combine_warp_partials): then the whole warp adds them, lane l every 32nd
/// from the l-th, and the butterfly sum (the rows of such lists one after another, in lane order).
///
///   combine_begin  [ k0 | k1 | k2 ...]   combine_partials  [ p p p | p ... (> warp_partials) | ...]
///   lane 0: row k0's 3 alone;  row k1's list: lanes 0..31, then warp_sum, written by lane 1
template <typename V>
__global__ void combine_kernel(CombineArguments<V> args, V* __restrict__ y, Acc<V> alpha,
                               Acc<V> beta) {
  arch::wait_for_prior_grids();  // the SpMV kernel's partial sums (a dependent launch)
  const int lane = arch::lane_id();
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t warp_first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x +
                                 (threadIdx.x - lane);
       warp_first < args.count; warp_first += stride) {  // warp-uniform
    const std::int64_t k = warp_first + lane;
    const bool active = k < args.count;
    const std::int32_t begin = active ? args.combine_begin[k] : 0;
    const std::int32_t end = active ? args.combine_begin[k + 1] : 0;
    const bool by_warp = args.warp_partials > 0 && end - begin > args.warp_partials;
    const auto partial = [&](std::int32_t i) {
      return args.partials[arch::load_streaming(args.combine_partials + i)];
    };
    Acc<V> sum = begin < end && !by_warp ? partial(begin) : Acc<V>(0);
    if (!by_warp)
      for (std::int32_t i = begin + 1; i < end; ++i) sum += partial(i);
    for (unsigned owners = __ballot_sync(arch::kFullMask, by_warp); owners != 0u;
         owners &= owners - 1u) {
      const int owner = __ffs(owners) - 1;
      const std::int32_t owner_end = __shfl_sync(arch::kFullMask, end, owner);
      Acc<V> lane_sum(0);
      for (std::int32_t i = __shfl_sync(arch::kFullMask, begin, owner) + lane; i < owner_end;
           i += arch::kWarpSize)
        lane_sum += partial(i);
      lane_sum = arch::warp_sum(lane_sum);
      if (lane == owner) sum = lane_sum;
    }
    if (active)
      write_row(y, args.combine_rows != nullptr ? static_cast<std::int64_t>(args.combine_rows[k]) : k,
                sum, alpha, beta);
  }
}

/// The combine part when its rows are few (combine_warp_rows): warp k adds combine row k's list,
/// lane l every 32nd partial sum from the l-th, then the butterfly sum; a list of one partial sum
/// is written as it is (as combine_kernel writes it). A grid of ceil(count / warps a block)
/// blocks: the few rows of a circuit-like matrix (its long rows cut into hundreds of slots) run
/// on as many SMs instead of in one thread block. What the SpMV kernel does not write is loaded
/// before the wait for it (a dependent launch: while its last blocks run): the row's bounds, its
/// number, the numbers of the lanes' first partial sums, and y (a combine row's y is not the SpMV
/// kernel's to write), so that after the wait only the partial sums are read.
///
///   combine_begin  [ k0 | k1 | ... ]     warp 0: row k0's list, lanes 0..31 in strides of 32
template <typename V>
__global__ void combine_by_warps_kernel(CombineArguments<V> args, V* __restrict__ y, Acc<V> alpha,
                                        Acc<V> beta) {
  const int lane = arch::lane_id();
  const std::int64_t k =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
  const bool active = k < args.count;  // warp-uniform
  std::int32_t begin = 0, end = 0, first_partial = -1;
  std::int64_t row = 0;
  Acc<V> before(0);
  if (active) {
    begin = args.combine_begin[k];
    end = args.combine_begin[k + 1];
    if (begin + lane < end) first_partial = arch::load_streaming(args.combine_partials + begin + lane);
    row = args.combine_rows != nullptr ? static_cast<std::int64_t>(args.combine_rows[k]) : k;
    if (lane == 0 && beta != Acc<V>(0)) before = arch::ValueTraits<V>::to_acc(y[row]);
  }
  arch::wait_for_prior_grids();  // the SpMV kernel's partial sums (a dependent launch)
  if (!active) return;
  Acc<V> sum(0);
  if (end - begin == 1) {  // warp-uniform
    if (lane == 0) sum = args.partials[first_partial];
  } else {
    if (first_partial >= 0) sum += args.partials[first_partial];
    for (std::int32_t i = begin + lane + arch::kWarpSize; i < end; i += arch::kWarpSize)
      sum += args.partials[arch::load_streaming(args.combine_partials + i)];
    sum = arch::warp_sum(sum);
  }
  if (lane == 0) write_row_over(y, row, sum, alpha, beta, before);
}

}  // namespace tcsparse::hbp::device
