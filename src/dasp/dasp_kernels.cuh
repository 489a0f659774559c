// DASP SpMV kernels (SC'23 §3.3): one launch per apply. The launch's warps are partitioned among
// the categories of the layout (dasp_format.hpp), in this order of the global warp index:
//
//   [ long-row tasks | medium units | 1+3 tiles | 4 tiles | 2+2 tiles | 1 tiles | empty tiles ]
//
// (for large matrices the short tiles run in row order instead, through short_tile_order; large
// fp64 layouts of short rows only then stage y a thread block at a time, StagedShortY) and
// each warp runs the __device__ function of its category. No warp waits for another (but in
// those staged blocks, whose 8 warps all hold short tiles and meet at block barriers); a long
// row (or, when asked for, a medium row-block) spread over several warps is finished by
// whichever of its warps arrives last (atomic ticket), which sums the partial sums in order: the
// result does not depend on the schedule.
//
// The blocks, what one lane holds of them, the mma shapes and the loads: dasp_fragments.cuh.
// Here: the block loop (kInFlight blocks of loads in flight, optionally software-pipelined one
// batch ahead, kPipelined), the per-category warp functions and the kernel.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <type_traits>

#include "arch/load.cuh"
#include "arch/warp.cuh"
#include "dasp/dasp_fragments.cuh"
#include "dasp/dasp_parameters.hpp"

namespace tcsparse::dasp::device {

// ---- the block loop ------------------------------------------------------------------------

/// Calls consume(fragment, block) for blocks [begin, end) in order, with the loads of kInFlight
/// blocks issued together; kPipelined: the next batch's values and columns are loaded while the
/// current batch's x is gathered. `column_major` and skip_of(block) (whether this lane's value
/// of the block is padding not to be loaded) go to Fragment::load. after_loads() runs once
/// right after the first batch's loads are issued and after_gathers() right after its x gathers
/// (also when there are no blocks), so that a caller's own dependent loads overlap them.
/// `begin`, `end` are warp-uniform, so consume may use mma.
template <typename V, int kInFlight, bool kPipelined, typename SkipOf, typename Consume,
          typename AfterLoads, typename AfterGathers>
__device__ __forceinline__ void for_each_block(const V* values, const int* cols, int begin,
                                               int end, const V* x, int lane, bool column_major,
                                               SkipOf skip_of, Consume consume,
                                               AfterLoads after_loads,
                                               AfterGathers after_gathers) {
  if (begin >= end) {
    after_loads();
    after_gathers();
    return;
  }
  Fragment<V> current[kInFlight];
#pragma unroll
  for (int u = 0; u < kInFlight; ++u)
    if (begin + u < end)
      current[u].load(values, cols, begin + u, lane, column_major, skip_of(begin + u));
  after_loads();
  bool first = true;
  for (int b = begin; b < end; b += kInFlight) {
    if (!kPipelined && !first) {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (b + u < end)
          current[u].load(values, cols, b + u, lane, column_major, skip_of(b + u));
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (b + u < end) current[u].gather(x);
    if (first) after_gathers();
    first = false;
    if constexpr (kPipelined) {
      Fragment<V> next[kInFlight];
      const int nb = b + kInFlight;
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (nb + u < end)
          next[u].load(values, cols, nb + u, lane, column_major, skip_of(nb + u));
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (b + u < end) consume(current[u], b + u);
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) current[u] = next[u];
    } else {
#pragma unroll
      for (int u = 0; u < kInFlight; ++u)
        if (b + u < end) consume(current[u], b + u);
    }
  }
}

/// The irregular (CSR) part of one medium row, one lane a row (§3.3.2). The first value is
/// loaded with the regular blocks and its x gathered with theirs (prefetch_value after the
/// block loads, prefetch_x after their gathers), so a row with one irregular value (a 5-point
/// stencil's) costs no extra round trip; the rest are walked after the regular part.
template <typename V>
struct IrregularPart {
  int begin = 0, end = 0;
  V first_value{};
  int first_col = 0;
  Acc<V> first_x = 0;

  __device__ void prefetch_value(const V* values, const int* cols) {
    if (begin < end) {
      first_value = arch::load_read_only(values + begin);
      first_col = arch::load_read_only(cols + begin);
    }
  }
  __device__ void prefetch_x(const V* x) {
    if (begin < end) first_x = Traits<V>::to_acc(load_x(x, first_col));
  }
  __device__ Acc<V> sum(const V* values, const int* cols, const V* x) const {
    if (begin >= end) return 0;
    Acc<V> s = Traits<V>::to_acc(first_value) * first_x;
    for (int k = begin + 1; k < end; ++k)
      s += Traits<V>::to_acc(arch::load_read_only(values + k)) * Traits<V>::to_acc(load_x(x, arch::load_read_only(cols + k)));
    return s;
  }
};

/// The irregular part of a layout that has none (DaspCounts::nnz_medium_irregular == 0, e.g.
/// regular_block_min_fill=0): nothing loaded, nothing held. The kernel instantiated with it keeps
/// the 7 registers IrregularPart holds across the block loop (ptxas, fp64 with 2 row-blocks and 2
/// blocks in flight: 40 -> 32, 48 -> 64 resident warps an SM).
template <typename V>
struct NoIrregularPart {
  int begin = 0, end = 0;
  __device__ void prefetch_value(const V*, const int*) {}
  __device__ void prefetch_x(const V*) {}
  __device__ Acc<V> sum(const V*, const int*, const V*) const { return 0; }
};

template <typename V, bool kIrregular>
using MediumIrregularPart = std::conditional_t<kIrregular, IrregularPart<V>, NoIrregularPart<V>>;

/// The parts of the layout a kernel instantiation has code for (the plan picks by its counts,
/// kernel_parts in dasp_kernel_table.cuh). Registers are those of the hungriest part, so a part
/// the layout lacks costs occupancy: all parts; medium rows without the irregular part
/// (NoIrregularPart); or short and empty rows only (no long or medium rows: the short tiles'
/// registers).
enum class KernelParts { kAll, kNoIrregular, kShortRowsOnly };

// ---- kernel arguments ----------------------------------------------------------------------

/// Device pointers and sizes of one DASP layout (dasp_format.hpp), and the warp partition.
template <typename V>
struct Arguments {
  // long rows
  const V* long_values;
  const int* long_cols;
  const int4* long_tasks;      // {row, block_begin, block_end, long_row}
  const int* long_task_ptr;
  Acc<V>* long_partials;       // one per task
  unsigned* long_tickets;      // one per long row, 0 between launches
  // medium rows
  const int2* medium_extra_pieces;  // {row_block, piece} of the pieces after the first
  Acc<V>* medium_partials;          // [split row-blocks][medium_max_pieces][block rows]
  unsigned* medium_tickets;         // one per split row-block, 0 between launches
  int medium_row_blocks;            // warps of piece 0 (one a row-block)
  int medium_blocks_per_piece;
  int medium_max_pieces;
  int medium_plain_units;           // leading units (row-blocks) without irregular values
  const V* regular_values;
  const int* regular_cols;
  const int* rowblock_ptr;
  const unsigned char* medium_tail_widths;  // per row-block: width of its last block (1..4)
  const int* medium_row_ids;
  const int* irregular_ptr;
  const V* irregular_values;
  const int* irregular_cols;
  // short rows: one base pointer per kind (value offset applied)
  const V* short_values[4];
  const int* short_cols[4];
  const int* short_row_ids[4];
  const int* short_tile_order;  // kind | tile << 2 per short warp, or null: by kind ranges
  int stage_short_y;            // blocks of short tiles stage y in shared memory (StagedShortY)
  // empty rows
  const int* empty_row_ids;
  // warp partition: category k takes warps [warp_end[k-1], warp_end[k])
  int warp_end[7];
};

enum Category { kLong = 0, kMedium, kPairs13, kRows4, kPairs22, kSingle1, kEmpty };

// ---- per-category warp functions -------------------------------------------------------------

/// A lane's row of y (-1: none) and its dot product, for the caller to store.
template <typename V>
struct RowSum {
  int row;
  Acc<V> sum;
};

/// y[row] = alpha * sum + beta * y[row] (y not read for beta == 0), rounded the same way
/// wherever it is inlined: alpha * sum rounded, then one fma (the compiler may not contract it
/// otherwise), so that y stored directly and staged (StagedShortY) agree bit for bit.
template <typename V>
__device__ __forceinline__ void write_y(V* y, int row, Acc<V> sum, Acc<V> alpha, Acc<V> beta) {
  Acc<V> result = arch::multiply_rounded(alpha, sum);
  if (beta != Acc<V>(0)) result = fma(beta, Traits<V>::to_acc(y[row]), result);
  y[row] = Traits<V>::from_acc(result);
}

/// Long rows (§3.3.1). A task is blocks [block_begin, block_end) of one row, all block rows of
/// which belong to that row: the mma accumulate over the task and the diagonal is summed. A row
/// of one task is written at once; otherwise each task leaves its sum in long_partials, takes a
/// ticket, and the task that takes the last ticket adds the partial sums in task order
/// (deterministic), writes y and resets the ticket for the next launch.
template <typename V, int kInFlight, bool kPipelined, bool kColumnMajor>
__device__ void long_task(const Arguments<V>& p, int task, int lane, const V* x, V* y,
                          Acc<V> alpha, Acc<V> beta) {
  const int4 t = arch::load_read_only(p.long_tasks + task);
  const int first_task = arch::load_read_only(p.long_task_ptr + t.w);
  const int task_count = arch::load_read_only(p.long_task_ptr + t.w + 1) - first_task;
  Accumulator<V> acc;
  for_each_block<V, kInFlight, kPipelined>(
      p.long_values, p.long_cols, t.y, t.z, x, lane, kColumnMajor,
      [](int) { return false; },
      [&](const Fragment<V>& f, int) { mma_block<V>(f, acc, lane); }, [] {}, [] {});
  const Acc<V> sum = diagonal_sum<V>(acc, lane);
  if (task_count == 1) {
    if (lane == 0) write_y<V>(y, t.x, sum, alpha, beta);
    return;
  }
  unsigned ticket = 0;
  if (lane == 0) {
    p.long_partials[task] = sum;
    __threadfence();
    ticket = atomicAdd(p.long_tickets + t.w, 1u);
  }
  ticket = __shfl_sync(kFullMask, ticket, 0);
  if (ticket != static_cast<unsigned>(task_count - 1)) return;
  __threadfence();
  Acc<V> total = 0;
  for (int k = lane; k < task_count; k += kWarpSize) total += arch::load_bypassing_l1(p.long_partials + first_task + k);
  total = warp_sum(total);
  if (lane == 0) {
    write_y<V>(y, t.x, total, alpha, beta);
    p.long_tickets[t.w] = 0;
  }
}

/// Units of more row-blocks than this (4: row-blocks of about one block, 5-point stencils) load
/// the padding of their last blocks: the test per block took 14 more registers there (ptxas,
/// fp64 with 2 blocks in flight: 48 -> 62), fewer resident warps.
inline constexpr int kMaxRowBlocksSkippingPadding = 2;

/// Medium rows (§3.3.2). A unit is kRowBlocks consecutive row-blocks (LOOP_NUM) = the rows of
/// lanes 0 .. kRowBlocks * R - 1:
///
///   rowblock_ptr[u*L .. u*L+L]   value offsets of the unit's row-blocks (regular part)
///   regular blocks of row-block i accumulate into acc[i]; block row s of acc[i] -> lane i*R + s
///   irregular_ptr[row], irregular_ptr[row+1]: the row's irregular (CSR) values, one lane a row
///
/// The unit's blocks are walked as one range, so a row-block of one block does not stall the
/// loads of the next.
template <typename V, int kRowBlocks, int kInFlight, bool kPipelined, bool kColumnMajor,
          bool kIrregular>
__device__ void medium_unit(const Arguments<V>& p, int unit, int lane, const V* x, V* y,
                            Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kUnitRows = R * kRowBlocks;
  static_assert(kUnitRows <= kWarpSize);
  const int first_row_block = unit * kRowBlocks;
  const int bound = lane <= kRowBlocks ? arch::load_read_only(p.rowblock_ptr + first_row_block + lane) : 0;
  const int tail = lane < kRowBlocks && kColumnMajor
                       ? arch::load_read_only(p.medium_tail_widths + first_row_block + lane)
                       : kDaspBlockWidth;
  const int m = unit * kUnitRows + lane;
  int row = -1;
  MediumIrregularPart<V, kIrregular> irregular;
  if (lane < kUnitRows) {
    row = arch::load_read_only(p.medium_row_ids + m);
    if (kIrregular && unit >= p.medium_plain_units) {
      irregular.begin = arch::load_read_only(p.irregular_ptr + m);
      irregular.end = arch::load_read_only(p.irregular_ptr + m + 1);
    }
  }
  int block_bound[kRowBlocks + 1];
#pragma unroll
  for (int i = 0; i <= kRowBlocks; ++i)
    block_bound[i] = __shfl_sync(kFullMask, bound, i) / kBlockValues<V>;
  unsigned beyond_tail = 0;  // bit i: this lane's value q lies past row-block i's tail width
#pragma unroll
  for (int i = 0; i < kRowBlocks; ++i)
    beyond_tail |= ((lane & 3) >= __shfl_sync(kFullMask, tail, i) ? 1u : 0u) << i;
  // the row-block of a block (warp-uniform)
  const auto row_block_of = [&](int block) {
    int i = 0;
#pragma unroll
    for (int j = 1; j < kRowBlocks; ++j) i += block >= block_bound[j] ? 1 : 0;
    return i;
  };

  Accumulator<V> acc[kRowBlocks];
  for_each_block<V, kInFlight, kPipelined>(
      p.regular_values, p.regular_cols, block_bound[0], block_bound[kRowBlocks], x, lane,
      kColumnMajor, [&](int block) {
        bool skip = false;
        if constexpr (kColumnMajor && kRowBlocks <= kMaxRowBlocksSkippingPadding) {
#pragma unroll
          for (int j = 0; j < kRowBlocks; ++j)
            skip = skip || (block == block_bound[j + 1] - 1 && ((beyond_tail >> j) & 1u));
        }
        return skip;
      },
      [&](const Fragment<V>& f, int block) {
        const int i = row_block_of(block);
#pragma unroll
        for (int j = 0; j < kRowBlocks; ++j)
          if (i == j) mma_block<V>(f, acc[j], lane);
      },
      [&] { irregular.prefetch_value(p.irregular_values, p.irregular_cols); },
      [&] { irregular.prefetch_x(x); });

  Acc<V> sum = 0;
#pragma unroll
  for (int j = 0; j < kRowBlocks; ++j) {
    const Acc<V> v = diagonal_of_slot<V>(acc[j], lane % R);
    if (lane / R == j) sum = v;
  }
  if (lane < kUnitRows) {
    sum += irregular.sum(p.irregular_values, p.irregular_cols, x);
    if (row >= 0) write_y<V>(y, row, sum, alpha, beta);
  }
}

/// Medium rows, one row-block a warp (LOOP_NUM 1, §3.3.2), a long row-block in pieces of
/// medium_blocks_per_piece blocks: warp w < medium_row_blocks takes piece 0 of row-block w (no
/// table to read first), a further warp takes medium_extra_pieces[w - medium_row_blocks].
/// Block row s -> lane s. Piece 0 adds the irregular part. A row-block of one piece writes y;
/// otherwise each piece leaves its R partial sums in medium_partials and takes a ticket, and
/// the piece that takes the last adds the pieces' sums in piece order (deterministic), writes y
/// and resets the ticket.
template <typename V, int kInFlight, bool kPipelined, bool kColumnMajor, bool kIrregular>
__device__ void medium_piece(const Arguments<V>& p, int warp_index, int lane, const V* x, V* y,
                             Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  int row_block = warp_index, piece = 0;
  if (warp_index >= p.medium_row_blocks) {
    const int2 extra = arch::load_read_only(p.medium_extra_pieces + (warp_index - p.medium_row_blocks));
    row_block = extra.x;
    piece = extra.y;
  }
  const int bound = lane < 2 ? arch::load_read_only(p.rowblock_ptr + row_block + lane) : 0;
  const int m = row_block * R + lane;
  int row = -1;
  MediumIrregularPart<V, kIrregular> irregular;
  if (lane < R) {
    row = arch::load_read_only(p.medium_row_ids + m);
    if (kIrregular && piece == 0 && row_block >= p.medium_plain_units) {
      irregular.begin = arch::load_read_only(p.irregular_ptr + m);
      irregular.end = arch::load_read_only(p.irregular_ptr + m + 1);
    }
  }
  const int first_block = __shfl_sync(kFullMask, bound, 0) / kBlockValues<V>;
  const int end_block = __shfl_sync(kFullMask, bound, 1) / kBlockValues<V>;
  const bool beyond_tail =
      kColumnMajor && (lane & 3) >= arch::load_read_only(p.medium_tail_widths + row_block);
  const int per_piece = p.medium_blocks_per_piece;
  const int blocks = end_block - first_block;
  const int pieces = blocks > per_piece ? (blocks + per_piece - 1) / per_piece : 1;
  const int begin = first_block + piece * per_piece;
  const int end = pieces == 1 ? end_block : min(end_block, begin + per_piece);
  Accumulator<V> acc;
  for_each_block<V, kInFlight, kPipelined>(
      p.regular_values, p.regular_cols, begin, end, x, lane, kColumnMajor,
      [&](int block) { return beyond_tail && block == end_block - 1; },
      [&](const Fragment<V>& f, int) { mma_block<V>(f, acc, lane); },
      [&] { irregular.prefetch_value(p.irregular_values, p.irregular_cols); },
      [&] { irregular.prefetch_x(x); });
  Acc<V> sum = diagonal_of_slot<V>(acc, lane % R);
  if (lane < R) sum += irregular.sum(p.irregular_values, p.irregular_cols, x);
  if (pieces == 1) {
    if (lane < R && row >= 0) write_y<V>(y, row, sum, alpha, beta);
    return;
  }
  const long long slots = static_cast<long long>(row_block) * p.medium_max_pieces * R + lane;
  if (lane < R) {
    p.medium_partials[slots + static_cast<long long>(piece) * R] = sum;
    __threadfence();
  }
  __syncwarp();
  unsigned ticket = 0;
  if (lane == 0) ticket = atomicAdd(p.medium_tickets + row_block, 1u);
  ticket = __shfl_sync(kFullMask, ticket, 0);
  if (ticket != static_cast<unsigned>(pieces - 1)) return;
  __threadfence();
  if (lane < R) {
    Acc<V> total = 0;
    for (int k = 0; k < pieces; ++k) total += arch::load_bypassing_l1(p.medium_partials + slots + k * R);
    if (row >= 0) write_y<V>(y, row, total, alpha, beta);
  }
  if (lane == 0) p.medium_tickets[row_block] = 0;
}

/// Short rows pieced in pairs (§3.3.3), 1+3 (kSplit = 1) or 2+2 (kSplit = 2): a tile is 16 pairs
/// = 64 values = 32 / (2R) blocks; block row s of block b holds pair b*R + s, its first row in
/// positions [0, kSplit) and its second in [kSplit, 4). Each block is multiplied twice, with x
/// masked to either row (§3.3.3: A loaded once, x twice); mma m = 2b + part -> lanes m*R + s.
template <typename V, int kKind, int kSplit, bool kColumnMajor>
__device__ RowSum<V> short_pair_tile(const Arguments<V>& p, long long tile, int lane, const V* x) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kBlocks = kWarpSize / (2 * R);
  const int row = arch::load_read_only(p.short_row_ids[kKind] + tile * kWarpSize + lane);
  Fragment<V> f[kBlocks];
#pragma unroll
  for (int b = 0; b < kBlocks; ++b)
    f[b].load(p.short_values[kKind], p.short_cols[kKind], tile * kBlocks + b, lane,
              kColumnMajor, false);
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) f[b].gather(x);
  Acc<V> out = 0;
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) {
#pragma unroll
    for (int part = 0; part < 2; ++part) {
      Accumulator<V> acc;
      f[b].mma_masked(acc, part ? kSplit : 0, part ? 4 : kSplit, lane);
      const Acc<V> v = diagonal_of_slot<V>(acc, lane % R);
      if (lane / R == 2 * b + part) out = v;
    }
  }
  return {row, out};
}

/// Rows of 4 (with padded 3s and an odd 2), §3.3.3: a tile is 32 rows = 32 / R blocks, one mma
/// each; block row s of block b -> lane b*R + s.
template <typename V, bool kColumnMajor>
__device__ RowSum<V> short_four_tile(const Arguments<V>& p, long long tile, int lane, const V* x) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kBlocks = kWarpSize / R;
  const int row = arch::load_read_only(p.short_row_ids[1] + tile * kWarpSize + lane);
  Fragment<V> f[kBlocks];
#pragma unroll
  for (int b = 0; b < kBlocks; ++b)
    f[b].load(p.short_values[1], p.short_cols[1], tile * kBlocks + b, lane,
              kColumnMajor, false);
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) f[b].gather(x);
  Acc<V> out = 0;
#pragma unroll
  for (int b = 0; b < kBlocks; ++b) {
    Accumulator<V> acc;
    mma_block<V>(f[b], acc, lane);
    const Acc<V> v = diagonal_of_slot<V>(acc, lane % R);
    if (lane / R == b) out = v;
  }
  return {row, out};
}

/// Rows of one value left over from 1+3 piecing (Algorithm 5): one lane a row, no mma.
template <typename V>
__device__ RowSum<V> short_single_tile(const Arguments<V>& p, long long tile, int lane,
                                       const V* x) {
  const long long at = tile * kWarpSize + lane;
  const int row = arch::load_read_only(p.short_row_ids[3] + at);
  const Acc<V> a = Traits<V>::to_acc(arch::load_streaming(p.short_values[3] + at));
  const int col = arch::load_streaming(p.short_cols[3] + at);
  return {row, row >= 0 ? a * Traits<V>::to_acc(arch::load_read_only(x + col)) : Acc<V>(0)};
}

/// The short tile of warp `warp` (a warp of the short categories): its lane's row (-1: padding)
/// and dot product.
template <typename V, bool kColumnMajor>
__device__ RowSum<V> short_tile(const Arguments<V>& p, int warp, int lane, const V* x) {
  const int(&end)[7] = p.warp_end;
  int kind, tile;
  if (p.short_tile_order) {  // tiles ordered by row
    const int code = arch::load_read_only(p.short_tile_order + (warp - end[kMedium]));
    kind = code & 3;
    tile = code >> 2;
  } else {  // by kind: 1+3 tiles, then 4, 2+2, 1
    kind = warp < end[kPairs13] ? 0 : warp < end[kRows4] ? 1 : warp < end[kPairs22] ? 2 : 3;
    tile = warp - end[kMedium + kind];
  }
  switch (kind) {
    case 0: return short_pair_tile<V, 0, 1, kColumnMajor>(p, tile, lane, x);
    case 1: return short_four_tile<V, kColumnMajor>(p, tile, lane, x);
    case 2: return short_pair_tile<V, 2, 2, kColumnMajor>(p, tile, lane, x);
    default: return short_single_tile<V>(p, tile, lane, x);
  }
}

/// y of a thread block of short tiles, staged in shared memory so that it is stored in runs of
/// caller rows: the block's 8 tiles (ordered by their first row) hold rows spread over a few
/// hundred caller rows, each tile's 32 over about 4 x 32 (rows of 1-4 values, four kinds of
/// tile); stored one row a lane, each warp's store touches up to 32 sectors of y. Staged, the
/// rows in [first, first + kDaspStagedShortRows) (first: the block's smallest row) are stored in
/// order, 32 a warp (8 sectors in fp64), those of other blocks skipped:
///
///   value  [ r0 . r2 r3 . r5 ... ]   kDaspStagedShortRows slots, row first + i in slot i
///   present  1 0 1  1  0 1 ...       one bit a slot
///
/// Rows beyond (a 1+3 tile's rows of 3 when 1s and 3s are paired over the whole matrix, where
/// they drift thousands of rows from the 1s; with the pairs in windows of caller rows,
/// kDaspShortPairWindow, only the unpaired rows' tiles) are stored directly. Needs the whole
/// block in the short categories (the barriers).
template <typename V>
struct StagedShortY {
  Acc<V> value[kDaspStagedShortRows];
  unsigned present[kDaspStagedShortRows / 32];
  int first_row;  ///< the block's smallest row (slot 0)
  int last_slot;  ///< the largest slot written, -1 for none
};

template <typename V, bool kColumnMajor>
__device__ void short_tiles_staged(const Arguments<V>& p, int warp, int lane, const V* x, V* y,
                                   Acc<V> alpha, Acc<V> beta, StagedShortY<V>& staged) {
  constexpr int kWords = kDaspStagedShortRows / 32;
  if (threadIdx.x == 0) {
    staged.first_row = INT_MAX;
    staged.last_slot = -1;
  }
  for (int i = static_cast<int>(threadIdx.x); i < kWords; i += kThreadsPerBlock)
    staged.present[i] = 0;
  const RowSum<V> mine = short_tile<V, kColumnMajor>(p, warp, lane, x);
  const int warp_first_row = arch::warp_min(mine.row >= 0 ? mine.row : INT_MAX);
  __syncthreads();  // first_row, last_slot and present initialised
  if (lane == 0 && warp_first_row != INT_MAX) atomicMin(&staged.first_row, warp_first_row);
  __syncthreads();
  const int first_row = staged.first_row;  // INT_MAX: no row (all padding)
  if (mine.row >= 0 && mine.row - first_row < kDaspStagedShortRows) {
    const int slot = mine.row - first_row;
    staged.value[slot] = mine.sum;
    atomicOr(&staged.present[slot / 32], 1u << (slot % 32));
    atomicMax(&staged.last_slot, slot);
  } else if (mine.row >= 0) {
    write_y<V>(y, mine.row, mine.sum, alpha, beta);
  }
  __syncthreads();
  const int slots = staged.last_slot + 1;
  for (int slot = static_cast<int>(threadIdx.x); slot < slots; slot += kThreadsPerBlock)
    if ((staged.present[slot / 32] >> (slot % 32)) & 1u)
      write_y<V>(y, first_row + slot, staged.value[slot], alpha, beta);
}

/// Empty rows: y = beta * y, or 0 when beta == 0 (y not read).
template <typename V>
__device__ void empty_tile(const Arguments<V>& p, long long tile, int lane, V* y, Acc<V> beta) {
  const int row = arch::load_read_only(p.empty_row_ids + tile * kWarpSize + lane);
  if (row < 0) return;
  y[row] = Traits<V>::from_acc(beta != Acc<V>(0) ? beta * Traits<V>::to_acc(y[row]) : Acc<V>(0));
}

/// The one kernel of an apply: warp w runs the category whose range holds w. kParts: the parts
/// of the layout it has code for (KernelParts; kShortRowsOnly ignores the loop shape).
template <typename V, int kRowBlocks, int kInFlight, bool kPipelined, bool kColumnMajor,
          KernelParts kParts>
__global__ void __launch_bounds__(kThreadsPerBlock)
    dasp_spmv_kernel(const Arguments<V> p, const V* __restrict__ x, V* __restrict__ y,
                     Acc<V> alpha, Acc<V> beta) {
  constexpr bool kIrregular = kParts == KernelParts::kAll;
  const int warp = static_cast<int>(blockIdx.x) * kWarpsPerBlock +
                   static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int(&end)[7] = p.warp_end;
  if constexpr (kParts != KernelParts::kShortRowsOnly) {
    if (warp < end[kLong]) {
      long_task<V, kInFlight, kPipelined, kColumnMajor>(p, warp, lane, x, y, alpha, beta);
      return;
    }
    if (warp < end[kMedium]) {
      if constexpr (kRowBlocks == 1)
        medium_piece<V, kInFlight, kPipelined, kColumnMajor, kIrregular>(p, warp - end[kLong],
                                                                         lane, x, y, alpha, beta);
      else
        medium_unit<V, kRowBlocks, kInFlight, kPipelined, kColumnMajor, kIrregular>(
            p, warp - end[kLong], lane, x, y, alpha, beta);
      return;
    }
  }
  if constexpr (kParts == KernelParts::kShortRowsOnly) {
    // y staged a block at a time where the whole block holds short tiles
    const int block_first = static_cast<int>(blockIdx.x) * kWarpsPerBlock;
    if (p.stage_short_y && block_first >= end[kMedium] &&
        block_first + kWarpsPerBlock <= end[kSingle1]) {
      __shared__ StagedShortY<V> staged;
      short_tiles_staged<V, kColumnMajor>(p, warp, lane, x, y, alpha, beta, staged);
      return;
    }
  }
  if (warp < end[kSingle1]) {
    const RowSum<V> mine = short_tile<V, kColumnMajor>(p, warp, lane, x);
    if (mine.row >= 0) write_y<V>(y, mine.row, mine.sum, alpha, beta);
  } else if (warp < end[kEmpty]) {
    empty_tile<V>(p, warp - end[kSingle1], lane, y, beta);
  }
}

/// row_order=internal_y: y from the plan's order into the caller's, one thread a caller row.
///
///   caller_to_plan [ p0 p1 p2 ... ]   row c of the caller -> its place in the plan's order
///   plan_y         [ the rows r with values, in the plan's order ]: the kernel's write_y of
///                    alpha * (A x)_r, with beta = 0 (fp64) or on y's rows gathered into plan_y
///                    beforehand (16-bit values with beta != 0); empty rows come last in the
///                    plan's order and have no entry
///   y[c] = plan_y[p_c] + beta_rows * y[c] (write_y's one fma; beta_rows = 0 where the kernel
///          has added beta * y), or beta_empty * y[c] (0 for beta = 0) where
///          p_c >= rows_with_values (empty_tile's)
///
/// caller_to_plan and y are read, and y written, in whole sectors; plan_y is gathered from the
/// L2, where the kernel has just written it.
template <typename V>
__global__ void __launch_bounds__(kThreadsPerBlock)
    internal_y_pass_kernel(const V* __restrict__ plan_y, const int* __restrict__ caller_to_plan,
                           long long rows, long long rows_with_values, V* __restrict__ y,
                           Acc<V> beta_rows, Acc<V> beta_empty) {
  const long long row = static_cast<long long>(blockIdx.x) * kThreadsPerBlock + threadIdx.x;
  if (row >= rows) return;
  const int at = arch::load_streaming(caller_to_plan + row);
  Acc<V> result;
  if (at < rows_with_values) {
    result = Traits<V>::to_acc(plan_y[at]);
    if (beta_rows != Acc<V>(0)) result = fma(beta_rows, Traits<V>::to_acc(y[row]), result);
  } else {
    result = beta_empty != Acc<V>(0) ? beta_empty * Traits<V>::to_acc(y[row]) : Acc<V>(0);
  }
  y[row] = Traits<V>::from_acc(result);
}

}  // namespace tcsparse::dasp::device
