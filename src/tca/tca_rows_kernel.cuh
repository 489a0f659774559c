// tca kernel=rows (not in the paper; issue 11's decode widths): a warp a row of A, C built 16
// columns at a time in fp32 registers. Included by tca.cu only.
//
//   A, CSR as given:  row_ptr[rows + 1], columns[nnz] (uint16 when cols <= 65536, else int32),
//                     values[nnz] (fp16 / bf16)
//   warp w of block b takes row r = 8 b + w; lane l its nonzeros row_begin + l, + 32, ...
//   (consecutive lanes on consecutive nonzeros: the row streams in coalesced loads)
//
//   for each tile of kRowsTileColumns = 16 columns [t, t + 16) of B and C:
//     lane l:  acc[j] = sum over its nonzeros k of value_k * B[column_k][t + j]     (j < 16, fp32)
//              row-major B, n % 8 == 0, B 16-byte aligned: B[column_k][t .. t + 15] is two
//              16-byte loads (a last tile of 8 columns: one); otherwise 16 two-byte loads
//     warp reduce-scatter of acc (8 + 4 + 2 + 1 + 1 shuffles): lanes 2j and 2j + 1 end holding
//              column t + j of the row; lane 2j writes C[r][t + j] = alpha sum + beta C[r][t + j]
//              (C not read when beta == 0)
//
// B, the n-column right-hand side, is gathered through the read-only cache: a decode-width B
// (K x 16 fp16: 128 KiB for K = 4096) stays in L1 / L2 while the matrix streams past it once a
// tile; so the kernel's traffic is about nnz x (2 + index bytes) x ceil(n / 16).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"

namespace tcsparse::tca::device {

inline constexpr int kRowsWarpsPerBlock = 8;
inline constexpr int kRowsThreadsPerBlock = kRowsWarpsPerBlock * 32;
/// Columns of C a warp holds in registers at once: 16 fp32 accumulators a lane.
inline constexpr int kRowsTileColumns = 16;

/// How the rows kernel reads B.
enum class BAccess { row_major_vector, row_major, column_major };

template <typename V>
__device__ __forceinline__ float to_float(V v) {
  return arch::ValueTraits<V>::to_acc(v);
}

/// acc[j] += a * B[column][tile + j] for the tile's columns below n.
template <BAccess kAccess, typename V>
__device__ __forceinline__ void accumulate_b_row(float (&acc)[kRowsTileColumns], float a,
                                                 const V* __restrict__ B, std::int64_t column,
                                                 std::int64_t tile, std::int64_t n,
                                                 std::int64_t cols) {
  if constexpr (kAccess == BAccess::row_major_vector) {
    const V* row = B + column * n + tile;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      if (half == 1 && tile + 8 >= n) break;  // n % 8 == 0: a last tile of 8 columns
      const uint4 raw = arch::load_read_only(reinterpret_cast<const uint4*>(row + 8 * half));
      const V* parts = reinterpret_cast<const V*>(&raw);
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[8 * half + j] += a * to_float(parts[j]);
    }
  } else {
#pragma unroll
    for (int j = 0; j < kRowsTileColumns; ++j) {
      if (tile + j < n) {
        const V* address = kAccess == BAccess::row_major ? B + column * n + tile + j
                                                         : B + (tile + j) * cols + column;
        const V b = arch::load_read_only(address);
        acc[j] += a * to_float(b);
      }
    }
  }
}

/// C = alpha A B + beta C; V the 16-bit type, Out V or float, Column uint16_t or int32_t.
template <typename V, typename Out, typename Column, BAccess kAccess>
__global__ void __launch_bounds__(kRowsThreadsPerBlock)
    tca_rows_kernel(const std::int32_t* __restrict__ row_ptr, const Column* __restrict__ columns,
                    const V* __restrict__ values, const V* __restrict__ B, Out* __restrict__ C,
                    std::int64_t rows, std::int64_t cols, std::int64_t n, float alpha,
                    float beta) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsWarpsPerBlock +
                           static_cast<int>(threadIdx.x) / 32;
  if (row >= rows) return;  // the whole warp: the shuffles below see all 32 lanes
  const std::int32_t begin = row_ptr[row], end = row_ptr[row + 1];
  constexpr bool kColumnMajorC = kAccess == BAccess::column_major;

  for (std::int64_t tile = 0; tile < n; tile += kRowsTileColumns) {
    float acc[kRowsTileColumns] = {};
#pragma unroll 2
    for (std::int32_t k = begin + lane; k < end; k += 32) {
      const float a = to_float(arch::load_streaming(values + k));
      const auto column = static_cast<std::int64_t>(arch::load_streaming(columns + k));
      accumulate_b_row<kAccess>(acc, a, B, column, tile, n, cols);
    }
    arch::halve_across_lanes<16, 16>(acc, lane);
    arch::halve_across_lanes<8, 8>(acc, lane);
    arch::halve_across_lanes<4, 4>(acc, lane);
    arch::halve_across_lanes<2, 2>(acc, lane);
    acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], 1);
    const std::int64_t column = tile + (lane >> 1);
    if ((lane & 1) == 0 && column < n) {
      Out& out = kColumnMajorC ? C[column * rows + row] : C[row * n + column];
      float result = alpha * acc[0];
      if (beta != 0.0f) {
        if constexpr (std::is_same_v<Out, float>) result += beta * out;
        else result += beta * to_float(out);
      }
      if constexpr (std::is_same_v<Out, float>) out = result;
      else out = arch::ValueTraits<V>::from_acc(result);
    }
  }
}

/// The rows kernel with a lane pair a nonzero (lanes_per_nonzero=2): row-major B, n % 8 == 0,
/// 16-byte aligned. Lanes 2i and 2i + 1 take nonzero i of each 16 of the row; lane 2i + p loads
/// B[column][tile + 8p .. + 7] (one 16-byte load, none past n) into 8 fp32 sums. A warp-wide
/// load then touches 16 cache lines (a 32-byte row of B each), where one lane a nonzero touches 32
/// in each of its two loads: half the L1 wavefronts a nonzero at 16 columns.
///
///   lane l = 2i + p:  acc[j] = sum over nonzeros k = i, i + 16, ... of value_k * B[col_k][t + 8p + j]
///   reduce-scatter over lane bits 16, 8, 4 (8 -> 4 -> 2 -> 1 sums), then add over bit 2:
///   lane l with bit 2 clear holds column t + 8p + 4 b4 + 2 b3 + b2 (b: the lane's bits 16, 8, 4)
template <typename V, typename Out, typename Column>
__global__ void __launch_bounds__(kRowsThreadsPerBlock)
    tca_rows_pairs_kernel(const std::int32_t* __restrict__ row_ptr,
                          const Column* __restrict__ columns, const V* __restrict__ values,
                          const V* __restrict__ B, Out* __restrict__ C, std::int64_t rows,
                          std::int64_t /*cols*/, std::int64_t n, float alpha, float beta) {
  const int lane = static_cast<int>(threadIdx.x) % 32, part = lane & 1;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * kRowsWarpsPerBlock +
                           static_cast<int>(threadIdx.x) / 32;
  if (row >= rows) return;  // the whole warp: the shuffles below see all 32 lanes
  const std::int32_t begin = row_ptr[row], end = row_ptr[row + 1];
  for (std::int64_t tile = 0; tile < n; tile += kRowsTileColumns) {
    const std::int64_t first_column = tile + 8 * part;
    const bool loads = first_column < n;  // n % 8 == 0: a last tile of 8 columns
    float acc[8] = {};
#pragma unroll 4
    for (std::int32_t k = begin + lane / 2; k < end; k += 16) {
      const float a = to_float(arch::load_streaming(values + k));
      const auto column = static_cast<std::int64_t>(arch::load_streaming(columns + k));
      if (loads) {
        const uint4 raw =
            arch::load_read_only(reinterpret_cast<const uint4*>(B + column * n + first_column));
        const V* parts = reinterpret_cast<const V*>(&raw);
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[j] += a * to_float(parts[j]);
      }
    }
    arch::halve_across_lanes<8, 16>(acc, lane);
    arch::halve_across_lanes<4, 8>(acc, lane);
    arch::halve_across_lanes<2, 4>(acc, lane);
    const float sum = acc[0] + __shfl_xor_sync(0xffffffffu, acc[0], 2);
    const std::int64_t column =
        first_column + 4 * ((lane >> 4) & 1) + 2 * ((lane >> 3) & 1) + ((lane >> 2) & 1);
    if ((lane & 2) == 0 && column < n) {
      Out& out = C[row * n + column];
      float result = alpha * sum;
      if (beta != 0.0f) {
        if constexpr (std::is_same_v<Out, float>) result += beta * out;
        else result += beta * to_float(out);
      }
      if constexpr (std::is_same_v<Out, float>) out = result;
      else out = arch::ValueTraits<V>::from_acc(result);
    }
  }
}

/// narrow[k] = wide[k] (every value below 65536: the plan checked cols <= 65536).
static __global__ void narrow_column_indices_kernel(const std::int32_t* __restrict__ wide,
                                                    std::uint16_t* __restrict__ narrow,
                                                    std::int64_t count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       k < count; k += stride)
    narrow[k] = static_cast<std::uint16_t>(wide[k]);
}

}  // namespace tcsparse::tca::device
