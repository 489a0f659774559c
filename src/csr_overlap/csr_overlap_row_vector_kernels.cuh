// partition=row_vectors (not in the paper): SpMV with no table, for matrices whose rows are of
// even length (row_vectors_suit). The kernel's builds live in csr_overlap_row_vectors.cu, one
// for each RowVectorShape the schema accepts; csr_overlap.cu takes one by row_vector_kernel_for.
//
// Vectors of kVector lanes (the paper's vector size, Alg. 6, without its batches). A warp takes
// kRows x (32 / kVector) consecutive rows; vector j the rows base + j + r * (32 / kVector),
// r < kRows, so that each of a lane's kRows loads covers consecutive rows across the warp:
//
//   kVector = 8, kRows = 2 (4 vectors a warp, 8 rows a warp):
//     lanes      0-7       8-15      16-23     24-31
//     r = 0      base      base + 1  base + 2  base + 3
//     r = 1      base + 4  base + 5  base + 6  base + 7
//
// Lane l of a vector takes each of its rows' nonzeros l, l + kVector, ... straight from global
// memory (streaming loads; x through the read-only path). A loop trip loads kSteps of them from
// each of its kRows rows before the first multiply-add (kRows x kSteps products in flight), as
// many trips as the warp's longest row (every lane runs them: the butterfly below needs them
// all). With fp32 sums, a lane's sum is folded into a second one every kRowVectorFoldTrips trips.
// Then each row's kVector partial sums are added by the butterfly of arch::group_sum, and
// lane r % kVector of the vector writes row r. Nothing is shared between warps: no shared
// memory, no barrier, no atomics (repeated applies are bitwise equal).
#pragma once

#include <cstdint>
#include <type_traits>

#include "arch/load.cuh"
#include "arch/warp.cuh"
#include "csr_overlap/csr_overlap_kernels.cuh"
#include "csr_overlap/csr_overlap_parameters.hpp"

namespace tcsparse::csr_overlap::device {

template <typename V>
struct RowVectorArguments {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;
  const V* values;
  std::int32_t rows;  ///< < 2^31 - 2048 (the plan checks): row indices in 32 bits
};

template <typename V>
using RowVectorKernel = void (*)(RowVectorArguments<V>, const V*, V*, Acc<V>, Acc<V>);

/// Rows a block of kRowVectorThreads takes.
constexpr std::int64_t row_vector_block_rows(const RowVectorShape& shape) {
  return std::int64_t{kRowVectorThreads} / shape.vector_size * shape.rows;
}

/// The build of row_vector_kernel for `shape` (a shape the schema accepts: vector size a power
/// of two in 1..32, rows and steps in {1, 2, 4}, rows x steps <= kRowVectorMaxProductsInFlight).
/// Throws Error for any other. Defined in csr_overlap_row_vectors.cu.
template <typename V>
RowVectorKernel<V> row_vector_kernel_for(const RowVectorShape& shape);

/// See above. Launched with kRowVectorThreads threads a block and ceil(rows /
/// row_vector_block_rows) blocks.
template <typename V, int kVector, int kRows, int kSteps>
__global__ void __launch_bounds__(kRowVectorThreads)
    row_vector_kernel(const RowVectorArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                      Acc<V> alpha, Acc<V> beta) {
  constexpr int kVectors = arch::kWarpSize / kVector;  // vectors a warp
  constexpr int kWarps = kRowVectorThreads / arch::kWarpSize;
  const int lane = arch::lane_id();
  const int in_vector = lane % kVector;
  const std::int32_t warp =
      static_cast<std::int32_t>(blockIdx.x) * kWarps + arch::warp_id_in_block();
  const std::int32_t first_row = warp * (kVectors * kRows) + lane / kVector;
  std::int32_t begin[kRows];
  std::uint32_t length[kRows];
  std::uint32_t longest = 0;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const std::int32_t row = first_row + r * kVectors;
    begin[r] = row < a.rows ? arch::load_read_only(a.row_ptr + row) : 0;
    const std::int32_t end = row < a.rows ? arch::load_read_only(a.row_ptr + row + 1) : 0;
    length[r] = static_cast<std::uint32_t>(end - begin[r]);
    longest = max(longest, length[r]);
  }
  longest = __reduce_max_sync(arch::kFullMask, longest);

  // fp32 sums (fp32, fp16, bf16 values) fold every kRowVectorFoldTrips trips: see there
  constexpr bool kFold = std::is_same_v<Acc<V>, float>;
  Acc<V> sum[kRows], folded[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) sum[r] = folded[r] = 0;
  // 32-bit unsigned positions in a row: k + offset < 2^31 + 128 never wraps
  std::uint32_t trip = 0;
  for (std::uint32_t k = 0; k < longest; k += kVector * kSteps, ++trip) {
    std::int32_t cols[kSteps][kRows];
    V values[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const std::uint32_t position = k + static_cast<std::uint32_t>(in_vector + s * kVector);
        const bool inside = position < length[r];
        const auto i = static_cast<std::int32_t>(static_cast<std::uint32_t>(begin[r]) + position);
        cols[s][r] = inside ? arch::load_streaming(a.col_idx + i) : 0;
        values[s][r] = inside ? arch::load_streaming(a.values + i) : V(0);
      }
    V xs[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const std::uint32_t position = k + static_cast<std::uint32_t>(in_vector + s * kVector);
        xs[s][r] = position < length[r] ? arch::load_read_only(x + cols[s][r]) : V(0);
      }
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] += to_acc(values[s][r]) * to_acc(xs[s][r]);
    if constexpr (kFold) {
      if (trip % kRowVectorFoldTrips == kRowVectorFoldTrips - 1) {  // the same on every lane
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          folded[r] += sum[r];
          sum[r] = 0;
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    if constexpr (kFold) sum[r] = folded[r] + sum[r];
    sum[r] = arch::group_sum<kVector>(sum[r]);
    const std::int32_t row = first_row + r * kVectors;
    if (r % kVector == in_vector && row < a.rows) store_result(y, row, sum[r], alpha, beta);
  }
}

}  // namespace tcsparse::csr_overlap::device
