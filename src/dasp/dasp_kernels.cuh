// DASP SpMV kernels (SC'23 §3.3): one launch per apply. The launch's warps are partitioned among
// the categories of the layout (dasp_format.hpp), in this order of the global warp index:
//
//   [ long-row tasks | medium units | 1+3 tiles | 4 tiles | 2+2 tiles | 1 tiles | empty tiles ]
//
// (for large matrices the short tiles run in row order instead, through short_tile_order) and
// each warp runs the __device__ function of its category. No warp waits for another, so no
// block-wide barrier exists; a long row (or, when asked for, a medium row-block) spread over
// several warps is finished by whichever of its warps arrives last (atomic ticket), which sums
// the partial sums in order: the result does not depend on the schedule.
//
// mma shapes.
//   fp64: mma.sync.aligned.m8n8k4.row.col.f64 — the only f64 shape on sm_80 (the paper's).
//   fp16 / bf16: mma.sync.aligned.m16n8k8.row.col.f32.{f16,bf16} with f32 accumulators — a
//     native shape on sm_80 and sm_90 (m8n8k4.f16 is optimised for sm_70 only and the PTX ISA
//     warns it may be much slower elsewhere), and its 16x8 A lets one instruction take two 8x4
//     halves: A rows 0-7 on k 0-3 and A rows 8-15 on k 4-7 (zeros elsewhere), so a block is
//     16 rows x 4 and keeps the paper's 4-wide row granularity (m16n8k16 would take 8-wide rows
//     and pad medium rows twice as much). SpMV is memory-bound: one mma per 64 values (384 bytes
//     of values and indices) is far below the tensor-core rate, so the shape is chosen for the
//     layout, not for throughput.
//
// What one lane holds of a block (lane = 4 * g + q, g = lane / 4, q = lane % 4):
//
//   fp64 8x4 block, 32 values            fp16 16x4 block, 64 values
//     value [4g + q] (or [8q + g] when      values [2 lane, 2 lane + 1] = memory row g, k 2q, 2q+1
//     column-major) = block row g, k q
//     A[g][q] = value, B[q][g] = x[col]     q < 2:  block row g    -> A[g][2q..],   a0 a1
//     C[r][r] (lane 4r + r/2, c[r&1])       q >= 2: block row g+8  -> A[g+8][2q..], a2 a3
//       = dot product of block row r        B[2q..][g] = x of the lane's two values, b0 b1
//                                           C[r][r]   (lane 4r + r/2, c[r&1])   = block row r
//                                           C[r+8][r] (same lane,   c[2+r&1]) = block row r+8
//
// Loads. Matrix data is read once: streaming loads (ld.global.cs, __ldcs) so that it does not
// evict x from the caches; x through the read-only path (__ldg). A block is read coalesced (lane
// l reads its own 8 or 4 contiguous bytes of values and 4 or 8 bytes of column indices), and a
// warp keeps `kInFlight` blocks of loads in flight (optionally software-pipelined one batch
// ahead, kPipelined).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "dasp/dasp_parameters.hpp"

namespace tcsparse::dasp::device {

inline constexpr int kWarpSize = 32;
inline constexpr unsigned kFullMask = 0xffffffffu;
inline constexpr int kThreadsPerBlock = 256;
inline constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// ---- value types ---------------------------------------------------------------------------

template <typename V>
struct Traits;

template <>
struct Traits<double> {
  using Acc = double;
  static constexpr int kBlockRows = 8;
  static constexpr int kAccRegs = 2;
  __device__ static double to_acc(double v) { return v; }
  __device__ static double from_acc(double v) { return v; }
};

template <>
struct Traits<__half> {
  using Acc = float;
  static constexpr int kBlockRows = 16;
  static constexpr int kAccRegs = 4;
  __device__ static float to_acc(__half v) { return __half2float(v); }
  __device__ static __half from_acc(float v) { return __float2half_rn(v); }
};

template <>
struct Traits<__nv_bfloat16> {
  using Acc = float;
  static constexpr int kBlockRows = 16;
  static constexpr int kAccRegs = 4;
  __device__ static float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 from_acc(float v) { return __float2bfloat16_rn(v); }
};

template <typename V>
using Acc = typename Traits<V>::Acc;
template <typename V>
inline constexpr int kBlockValues = Traits<V>::kBlockRows * 4;

/// The C fragment of one mma (2 doubles or 4 floats a lane).
template <typename V>
struct Accumulator {
  Acc<V> c[Traits<V>::kAccRegs] = {};
};

// ---- mma -----------------------------------------------------------------------------------

__device__ __forceinline__ void mma_m8n8k4(Accumulator<double>& acc, double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+d"(acc.c[0]), "+d"(acc.c[1])
      : "d"(a), "d"(b));
}

template <typename V>
__device__ __forceinline__ void mma_m16n8k8(Accumulator<V>& acc, unsigned a01, unsigned a23,
                                            unsigned b) {
  if constexpr (std::is_same_v<V, __half>) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc.c[0]), "+f"(acc.c[1]), "+f"(acc.c[2]), "+f"(acc.c[3])
        : "r"(a01), "r"(a23), "r"(b));
  } else {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(acc.c[0]), "+f"(acc.c[1]), "+f"(acc.c[2]), "+f"(acc.c[3])
        : "r"(a01), "r"(a23), "r"(b));
  }
}

// ---- x ------------------------------------------------------------------------------------------

/// A gathered x value: through the read-only (non-coherent) path, or with
/// TCSPARSE_DASP_X_PLAIN_LOADS an ordinary cached load (for comparisons).
template <typename T>
__device__ __forceinline__ T load_x(const T* x, int col) {
#ifdef TCSPARSE_DASP_X_PLAIN_LOADS
  return x[col];
#else
  return __ldg(x + col);
#endif
}

// ---- one lane's share of a block -----------------------------------------------------------

/// fp64: one value, its column, its x. Lane 4g + q takes value q of block row g, stored at
/// 4g + q (row-major block) or 8q + g (column-major, DaspBlockShape::column_major). `skip`:
/// value q is padding in every row of the block (q at or past a row-block's tail width,
/// DaspLayout::medium_tail_widths); it is not loaded (0), which in a column-major block saves
/// the aligned 64 bytes of value q of the 8 rows. The column is loaded anyway (a padding column
/// is one the row reads), so that the x gather needs no test.
struct Fragment64 {
  double a = 0.0;
  int col = 0;
  double x = 0.0;

  __device__ void load(const double* values, const int* cols, long long block, int lane,
                       bool column_major, bool skip) {
    const long long at =
        block * kBlockValues<double> + (column_major ? (lane & 3) * 8 + (lane >> 2) : lane);
    a = skip ? 0.0 : __ldcs(values + at);
    col = __ldcs(cols + at);
  }
  __device__ void gather(const double* xs) { x = load_x(xs, col); }
  __device__ void mma(Accumulator<double>& acc) const { mma_m8n8k4(acc, a, x); }
  /// mma with x kept only for the lane's values at positions [from, to) of its block row.
  __device__ void mma_masked(Accumulator<double>& acc, int from, int to, int lane) const {
    const int position = lane & 3;
    mma_m8n8k4(acc, a, position >= from && position < to ? x : 0.0);
  }
};

/// fp16 / bf16: two values (one 32-bit word), their columns, their x (one 32-bit word).
template <typename V>
struct Fragment16 {
  unsigned a = 0;
  int2 col = {0, 0};
  unsigned x = 0;

  /// 16x4 blocks have one storage order, and a lane's two values may be a real one and a padded
  /// one: `column_major` and `skip` are not used.
  __device__ void load(const V* values, const int* cols, long long block, int lane,
                       bool /*column_major*/, bool /*skip*/) {
    const long long at = block * (kBlockValues<V> / 2) + lane;  // in pairs
    a = __ldcs(reinterpret_cast<const unsigned*>(values) + at);
    col = __ldcs(reinterpret_cast<const int2*>(cols) + at);
  }
  __device__ void gather(const V* xs) {
    const auto* bits = reinterpret_cast<const unsigned short*>(xs);
    x = unsigned{load_x(bits, col.x)} | (unsigned{load_x(bits, col.y)} << 16);
  }
  /// q < 2: block row g (A rows 0-7, k 0-3); q >= 2: block row g + 8 (A rows 8-15, k 4-7).
  __device__ void mma_with_x(Accumulator<V>& acc, unsigned xs, int lane) const {
    const bool upper = (lane & 3) >= 2;
    mma_m16n8k8<V>(acc, upper ? 0u : a, upper ? a : 0u, xs);
  }
  __device__ void mma(Accumulator<V>& acc, int lane) const { mma_with_x(acc, x, lane); }
  /// The lane's two values sit at positions 2 (q & 1) and 2 (q & 1) + 1 of their block row.
  __device__ void mma_masked(Accumulator<V>& acc, int from, int to, int lane) const {
    const int position = 2 * (lane & 1);
    const unsigned low = position >= from && position < to ? 0x0000ffffu : 0u;
    const unsigned high = position + 1 >= from && position + 1 < to ? 0xffff0000u : 0u;
    mma_with_x(acc, x & (low | high), lane);
  }
};

template <typename V>
struct FragmentOf {
  using type = Fragment16<V>;
};
template <>
struct FragmentOf<double> {
  using type = Fragment64;
};
template <typename V>
using Fragment = typename FragmentOf<V>::type;

template <typename V>
__device__ __forceinline__ void mma_block(const Fragment<V>& f, Accumulator<V>& acc, int lane) {
  if constexpr (std::is_same_v<V, double>) f.mma(acc);
  else f.mma(acc, lane);
}

// ---- results out of the C fragment ----------------------------------------------------------

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

/// On every lane, the dot product of block row `slot` (the lane's own choice, 0..rows-1) of the
/// mma whose C fragment is `acc`: C[r][r] (slot r < 8) or C[r+8][r] (slot r + 8), r = slot % 8,
/// held by lane 4r + r/2 = 9 (r/2) + 4 (r%2).
template <typename V>
__device__ __forceinline__ Acc<V> diagonal_of_slot(const Accumulator<V>& acc, int slot) {
  const int r = slot & 7;
  const int source = 9 * (r >> 1) + 4 * (r & 1);
  Acc<V> v[Traits<V>::kAccRegs];
#pragma unroll
  for (int k = 0; k < Traits<V>::kAccRegs; ++k) v[k] = __shfl_sync(kFullMask, acc.c[k], source);
  if constexpr (Traits<V>::kAccRegs == 2) {
    return (r & 1) ? v[1] : v[0];
  } else {
    const bool upper = slot >= 8;
    return (r & 1) ? (upper ? v[3] : v[1]) : (upper ? v[2] : v[0]);
  }
}

/// On every lane, the sum of the whole diagonal (every block row belongs to one long row).
template <typename V>
__device__ __forceinline__ Acc<V> diagonal_sum(const Accumulator<V>& acc, int lane) {
  const int r = lane >> 2;
  const bool on_diagonal = (lane & 3) == (r >> 1);
  // select, not acc.c[r & 1]: a run-time index would put the fragment in local memory
  Acc<V> v = (r & 1) ? acc.c[1] : acc.c[0];
  if constexpr (Traits<V>::kAccRegs == 4) v += (r & 1) ? acc.c[3] : acc.c[2];
  return warp_sum(on_diagonal ? v : Acc<V>(0));
}

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
      first_value = __ldg(values + begin);
      first_col = __ldg(cols + begin);
    }
  }
  __device__ void prefetch_x(const V* x) {
    if (begin < end) first_x = Traits<V>::to_acc(load_x(x, first_col));
  }
  __device__ Acc<V> sum(const V* values, const int* cols, const V* x) const {
    if (begin >= end) return 0;
    Acc<V> s = Traits<V>::to_acc(first_value) * first_x;
    for (int k = begin + 1; k < end; ++k)
      s += Traits<V>::to_acc(__ldg(values + k)) * Traits<V>::to_acc(load_x(x, __ldg(cols + k)));
    return s;
  }
};

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
  // empty rows
  const int* empty_row_ids;
  // warp partition: category k takes warps [warp_end[k-1], warp_end[k])
  int warp_end[7];
};

enum Category { kLong = 0, kMedium, kPairs13, kRows4, kPairs22, kSingle1, kEmpty };

// ---- per-category warp functions -------------------------------------------------------------

template <typename V>
__device__ __forceinline__ void write_y(V* y, int row, Acc<V> sum, Acc<V> alpha, Acc<V> beta) {
  Acc<V> result = alpha * sum;
  if (beta != Acc<V>(0)) result += beta * Traits<V>::to_acc(y[row]);
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
  const int4 t = __ldg(p.long_tasks + task);
  const int first_task = __ldg(p.long_task_ptr + t.w);
  const int task_count = __ldg(p.long_task_ptr + t.w + 1) - first_task;
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
  for (int k = lane; k < task_count; k += kWarpSize) total += __ldcg(p.long_partials + first_task + k);
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
template <typename V, int kRowBlocks, int kInFlight, bool kPipelined, bool kColumnMajor>
__device__ void medium_unit(const Arguments<V>& p, int unit, int lane, const V* x, V* y,
                            Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kUnitRows = R * kRowBlocks;
  static_assert(kUnitRows <= kWarpSize);
  const int first_row_block = unit * kRowBlocks;
  const int bound = lane <= kRowBlocks ? __ldg(p.rowblock_ptr + first_row_block + lane) : 0;
  const int tail = lane < kRowBlocks && kColumnMajor
                       ? __ldg(p.medium_tail_widths + first_row_block + lane)
                       : kDaspBlockWidth;
  const int m = unit * kUnitRows + lane;
  int row = -1;
  IrregularPart<V> irregular;
  if (lane < kUnitRows) {
    row = __ldg(p.medium_row_ids + m);
    if (unit >= p.medium_plain_units) {
      irregular.begin = __ldg(p.irregular_ptr + m);
      irregular.end = __ldg(p.irregular_ptr + m + 1);
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
template <typename V, int kInFlight, bool kPipelined, bool kColumnMajor>
__device__ void medium_piece(const Arguments<V>& p, int warp_index, int lane, const V* x, V* y,
                             Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  int row_block = warp_index, piece = 0;
  if (warp_index >= p.medium_row_blocks) {
    const int2 extra = __ldg(p.medium_extra_pieces + (warp_index - p.medium_row_blocks));
    row_block = extra.x;
    piece = extra.y;
  }
  const int bound = lane < 2 ? __ldg(p.rowblock_ptr + row_block + lane) : 0;
  const int m = row_block * R + lane;
  int row = -1;
  IrregularPart<V> irregular;
  if (lane < R) {
    row = __ldg(p.medium_row_ids + m);
    if (piece == 0 && row_block >= p.medium_plain_units) {
      irregular.begin = __ldg(p.irregular_ptr + m);
      irregular.end = __ldg(p.irregular_ptr + m + 1);
    }
  }
  const int first_block = __shfl_sync(kFullMask, bound, 0) / kBlockValues<V>;
  const int end_block = __shfl_sync(kFullMask, bound, 1) / kBlockValues<V>;
  const bool beyond_tail =
      kColumnMajor && (lane & 3) >= __ldg(p.medium_tail_widths + row_block);
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
    for (int k = 0; k < pieces; ++k) total += __ldcg(p.medium_partials + slots + k * R);
    if (row >= 0) write_y<V>(y, row, total, alpha, beta);
  }
  if (lane == 0) p.medium_tickets[row_block] = 0;
}

/// Short rows pieced in pairs (§3.3.3), 1+3 (kSplit = 1) or 2+2 (kSplit = 2): a tile is 16 pairs
/// = 64 values = 32 / (2R) blocks; block row s of block b holds pair b*R + s, its first row in
/// positions [0, kSplit) and its second in [kSplit, 4). Each block is multiplied twice, with x
/// masked to either row (§3.3.3: A loaded once, x twice); mma m = 2b + part -> lanes m*R + s.
template <typename V, int kKind, int kSplit, bool kColumnMajor>
__device__ void short_pair_tile(const Arguments<V>& p, long long tile, int lane,
                                const V* x, V* y, Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kBlocks = kWarpSize / (2 * R);
  const int row = __ldg(p.short_row_ids[kKind] + tile * kWarpSize + lane);
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
  if (row >= 0) write_y<V>(y, row, out, alpha, beta);
}

/// Rows of 4 (with padded 3s and an odd 2), §3.3.3: a tile is 32 rows = 32 / R blocks, one mma
/// each; block row s of block b -> lane b*R + s.
template <typename V, bool kColumnMajor>
__device__ void short_four_tile(const Arguments<V>& p, long long tile, int lane, const V* x, V* y,
                                Acc<V> alpha, Acc<V> beta) {
  constexpr int R = Traits<V>::kBlockRows;
  constexpr int kBlocks = kWarpSize / R;
  const int row = __ldg(p.short_row_ids[1] + tile * kWarpSize + lane);
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
  if (row >= 0) write_y<V>(y, row, out, alpha, beta);
}

/// Rows of one value left over from 1+3 piecing (Algorithm 5): one lane a row, no mma.
template <typename V>
__device__ void short_single_tile(const Arguments<V>& p, long long tile, int lane, const V* x,
                                  V* y, Acc<V> alpha, Acc<V> beta) {
  const long long at = tile * kWarpSize + lane;
  const int row = __ldg(p.short_row_ids[3] + at);
  const Acc<V> a = Traits<V>::to_acc(__ldcs(p.short_values[3] + at));
  const int col = __ldcs(p.short_cols[3] + at);
  if (row >= 0) write_y<V>(y, row, a * Traits<V>::to_acc(__ldg(x + col)), alpha, beta);
}

/// Empty rows: y = beta * y, or 0 when beta == 0 (y not read).
template <typename V>
__device__ void empty_tile(const Arguments<V>& p, long long tile, int lane, V* y, Acc<V> beta) {
  const int row = __ldg(p.empty_row_ids + tile * kWarpSize + lane);
  if (row < 0) return;
  y[row] = Traits<V>::from_acc(beta != Acc<V>(0) ? beta * Traits<V>::to_acc(y[row]) : Acc<V>(0));
}

/// The one kernel of an apply: warp w runs the category whose range holds w.
template <typename V, int kRowBlocks, int kInFlight, bool kPipelined, bool kColumnMajor>
__global__ void __launch_bounds__(kThreadsPerBlock)
    dasp_spmv_kernel(const Arguments<V> p, const V* __restrict__ x, V* __restrict__ y,
                     Acc<V> alpha, Acc<V> beta) {
  const int warp = static_cast<int>(blockIdx.x) * kWarpsPerBlock +
                   static_cast<int>(threadIdx.x) / kWarpSize;
  const int lane = static_cast<int>(threadIdx.x) % kWarpSize;
  const int(&end)[7] = p.warp_end;
  if (warp < end[kLong]) {
    long_task<V, kInFlight, kPipelined, kColumnMajor>(p, warp, lane, x, y, alpha, beta);
  } else if (warp < end[kMedium]) {
    if constexpr (kRowBlocks == 1)
      medium_piece<V, kInFlight, kPipelined, kColumnMajor>(p, warp - end[kLong], lane, x, y,
                                                           alpha, beta);
    else
      medium_unit<V, kRowBlocks, kInFlight, kPipelined, kColumnMajor>(p, warp - end[kLong], lane,
                                                                       x, y, alpha, beta);
  } else if (warp < end[kSingle1]) {
    int kind, tile;
    if (p.short_tile_order) {  // tiles ordered by row
      const int code = __ldg(p.short_tile_order + (warp - end[kMedium]));
      kind = code & 3;
      tile = code >> 2;
    } else {  // by kind: 1+3 tiles, then 4, 2+2, 1
      kind = warp < end[kPairs13] ? 0 : warp < end[kRows4] ? 1 : warp < end[kPairs22] ? 2 : 3;
      tile = warp - end[kMedium + kind];
    }
    switch (kind) {
      case 0: short_pair_tile<V, 0, 1, kColumnMajor>(p, tile, lane, x, y, alpha, beta); break;
      case 1: short_four_tile<V, kColumnMajor>(p, tile, lane, x, y, alpha, beta); break;
      case 2: short_pair_tile<V, 2, 2, kColumnMajor>(p, tile, lane, x, y, alpha, beta); break;
      default: short_single_tile<V>(p, tile, lane, x, y, alpha, beta); break;
    }
  } else if (warp < end[kEmpty]) {
    empty_tile<V>(p, warp - end[kSingle1], lane, y, beta);
  }
}

}  // namespace tcsparse::dasp::device
