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

/// One step of the warp's reduce-scatter: kCount values a lane become kCount / 2, the lanes with
/// bit `kCount` of their index keeping the upper half of the columns.
template <int kCount>
__device__ __forceinline__ void halve(float (&acc)[kRowsTileColumns], int lane) {
  constexpr int kHalf = kCount / 2;
  const bool upper = (lane & kCount) != 0;
#pragma unroll
  for (int i = 0; i < kHalf; ++i) {
    const float send = upper ? acc[i] : acc[i + kHalf];
    const float keep = upper ? acc[i + kHalf] : acc[i];
    acc[i] = keep + __shfl_xor_sync(0xffffffffu, send, kCount);
  }
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
    halve<16>(acc, lane);
    halve<8>(acc, lane);
    halve<4>(acc, lane);
    halve<2>(acc, lane);
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
