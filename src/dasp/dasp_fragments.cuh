// DASP's blocks as the tensor cores see them: the value types (Traits), the C fragment of one mma
// (Accumulator), one lane's share of a block (Fragment64 for fp64, Fragment16 for fp16 / bf16:
// its loads, its x gather, its mma) and the reads of the block rows' dot products out of the C
// fragment (diagonal_of_slot, diagonal_sum). The generic pieces (mma wrappers and their fragment
// layouts, loads, warp sums, value traits) are in src/arch/; this is how DASP uses them.
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
// Loads. Matrix data is read once: streaming loads (arch::load_streaming, ld.global.cs) so that
// it does not evict x from the caches; x through the read-only path (arch::load_read_only,
// __ldg). A block is read coalesced (lane l reads its own 8 or 4 contiguous bytes of values and
// 4 or 8 bytes of column indices).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "arch/load.cuh"
#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "dasp/dasp_parameters.hpp"

namespace tcsparse::dasp::device {

using arch::kFullMask;
using arch::kWarpSize;
using arch::warp_sum;

inline constexpr int kThreadsPerBlock = 256;
inline constexpr int kWarpsPerBlock = kThreadsPerBlock / kWarpSize;

// ---- value types ---------------------------------------------------------------------------

/// arch::ValueTraits<V> (accumulator type, conversions) and DASP's block shape for V: rows of a
/// block (one mma's A rows) and accumulators a lane holds of one mma.
template <typename V>
struct Traits;

template <>
struct Traits<double> : arch::ValueTraits<double> {
  static constexpr int kBlockRows = 8;
  static constexpr int kAccRegs = arch::kM8n8k4AccumulatorsPerLane;
};

template <>
struct Traits<__half> : arch::ValueTraits<__half> {
  static constexpr int kBlockRows = 16;
  static constexpr int kAccRegs = arch::kM16n8k8AccumulatorsPerLane;
};

template <>
struct Traits<__nv_bfloat16> : arch::ValueTraits<__nv_bfloat16> {
  static constexpr int kBlockRows = 16;
  static constexpr int kAccRegs = arch::kM16n8k8AccumulatorsPerLane;
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

// ---- x ------------------------------------------------------------------------------------------

/// A gathered x value: through the read-only (non-coherent) path, or with
/// TCSPARSE_DASP_X_PLAIN_LOADS an ordinary cached load (for comparisons).
template <typename T>
__device__ __forceinline__ T load_x(const T* x, int col) {
#ifdef TCSPARSE_DASP_X_PLAIN_LOADS
  return x[col];
#else
  return arch::load_read_only(x + col);
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
    a = skip ? 0.0 : arch::load_streaming(values + at);
    col = arch::load_streaming(cols + at);
  }
  __device__ void gather(const double* xs) { x = load_x(xs, col); }
  __device__ void mma(Accumulator<double>& acc) const { arch::mma_m8n8k4_f64(acc.c, a, x); }
  /// mma with x kept only for the lane's values at positions [from, to) of its block row.
  __device__ void mma_masked(Accumulator<double>& acc, int from, int to, int lane) const {
    const int position = lane & 3;
    arch::mma_m8n8k4_f64(acc.c, a, position >= from && position < to ? x : 0.0);
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
    a = arch::load_streaming(reinterpret_cast<const unsigned*>(values) + at);
    col = arch::load_streaming(reinterpret_cast<const int2*>(cols) + at);
  }
  __device__ void gather(const V* xs) {
    const auto* bits = reinterpret_cast<const unsigned short*>(xs);
    x = unsigned{load_x(bits, col.x)} | (unsigned{load_x(bits, col.y)} << 16);
  }
  /// q < 2: block row g (A rows 0-7, k 0-3); q >= 2: block row g + 8 (A rows 8-15, k 4-7).
  __device__ void mma_with_x(Accumulator<V>& acc, unsigned xs, int lane) const {
    const bool upper = (lane & 3) >= 2;
    arch::mma_m16n8k8<V>(acc.c, upper ? 0u : a, upper ? a : 0u, xs);
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

}  // namespace tcsparse::dasp::device
