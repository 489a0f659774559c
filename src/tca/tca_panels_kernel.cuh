// tca kernel=panels on the GPU: the layout's build from a CSR on the device and the product
// (tca_panels_format.hpp for the layout). Included by tca.cu only.
//
// Product. A thread block takes panel (row group g, chunk c) and slice s of B's columns
// (kSlice = 8 or 16 columns):
//
//   shared memory:  [ B stage: panel_columns rows x kSlice columns (16-bit)     ]
//                   [ offsets: the panel's panel_rows + 1 word offsets          ]
//                   [ words:   the panel's words (when they fit the stage)      ]
//
//   1. cp.async: B[c * panel_columns + k][s * kSlice + j] -> stage[k][j] (row-major B, n % 8 == 0,
//      16-byte aligned: 16-byte copies; otherwise element by element, zeros past n), the panel's
//      words (or, when they do not fit, none: the warps read them from global memory)
//   2. warp w takes rows w, w + 8, ... of the panel. With kParts = kSlice / 8 lanes a nonzero:
//        lane l: nonzeros i = l / kParts, + 32 / kParts, ...; part p = l % kParts
//        acc[j] += value_i * stage[column_i][8 p + j]      (j < 8, fp32; one 16-byte shared load)
//      then a reduce-scatter over the lanes of one part (3 halving steps and one or two adds):
//      one lane ends holding each of the row's kSlice sums.
//   3. one chunk: C = alpha sum + beta C. Several: the sums go to partials[s][c][row][kSlice], and
//      the block that arrives last at its (g, s) counter adds the chunks in chunk order (bitwise
//      repeatable), writes C and re-arms the counter (graph-capturable; one plan must not run on
//      two streams at once).
//
// Per nonzero a 16-bit slice costs 32 bytes of shared loads (a 16-byte load by each of 2 lanes)
// and 16 fp32 FMAs; B's rows are staged once a panel, not gathered through L1 a nonzero at a time.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/async_copy.cuh"
#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "tca/tca_panels_format.hpp"
#include "tca/tca_write_c.cuh"

namespace tcsparse::tca::device {

inline constexpr int kPanelsThreadsPerBlock = kPanelsWarpsPerBlock * 32;

// ---- the layout's build (plan time) ----------------------------------------------------------

/// Thread i = c * rows + r: where row r's nonzeros in chunk c begin (the first column >= c *
/// panel_columns, found by binary search in the row's sorted columns) and how many there are.
static __global__ void panels_count_kernel(const std::int32_t* __restrict__ row_ptr,
                                           const std::int32_t* __restrict__ col_idx,
                                           std::int64_t rows, std::int64_t chunks,
                                           std::int64_t panel_columns,
                                           std::int32_t* __restrict__ counts,
                                           std::int32_t* __restrict__ row_chunk_begin) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * chunks) return;
  const std::int64_t chunk = i / rows, row = i % rows;
  const auto first_at_or_after = [&](std::int64_t column) {
    std::int32_t low = row_ptr[row], high = row_ptr[row + 1];
    while (low < high) {
      const std::int32_t middle = low + (high - low) / 2;
      if (col_idx[middle] < column) low = middle + 1;
      else high = middle;
    }
    return low;
  };
  const std::int32_t begin = first_at_or_after(chunk * panel_columns);
  const std::int32_t end =
      chunk + 1 == chunks ? row_ptr[row + 1] : first_at_or_after((chunk + 1) * panel_columns);
  counts[i] = end - begin;
  row_chunk_begin[i] = begin;
}

/// A warp a row: each nonzero k of chunk c to words[offsets[c * rows + r] + k - row_chunk_begin].
template <typename V>
__global__ void panels_scatter_kernel(const std::int32_t* __restrict__ row_ptr,
                                      const std::int32_t* __restrict__ col_idx,
                                      const std::uint16_t* __restrict__ values, std::int64_t rows,
                                      std::int64_t panel_columns,
                                      const std::int32_t* __restrict__ offsets,
                                      const std::int32_t* __restrict__ row_chunk_begin,
                                      std::uint32_t* __restrict__ words) {
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
  if (row >= rows) return;
  for (std::int32_t k = row_ptr[row] + arch::lane_id(); k < row_ptr[row + 1];
       k += arch::kWarpSize) {
    const std::int64_t column = col_idx[k], chunk = column / panel_columns;
    const std::int64_t at = chunk * rows + row;
    words[offsets[at] + (k - row_chunk_begin[at])] =
        static_cast<std::uint32_t>(column - chunk * panel_columns) << 16 | values[k];
  }
}

/// Thread p = g * chunks + c: the words of panel (g, c).
static __global__ void panels_words_kernel(const std::int32_t* __restrict__ offsets,
                                           std::int64_t rows, std::int64_t chunks,
                                           std::int64_t panel_rows,
                                           std::int32_t* __restrict__ panel_words) {
  const std::int64_t groups = (rows + panel_rows - 1) / panel_rows;
  const std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= groups * chunks) return;
  const std::int64_t group = p / chunks, chunk = p % chunks;
  const std::int64_t first = group * panel_rows;
  const std::int64_t last = first + panel_rows < rows ? first + panel_rows : rows;
  panel_words[p] = offsets[chunk * rows + last] - offsets[chunk * rows + first];
}

// ---- the product ---------------------------------------------------------------------------

template <typename Out>
struct PanelsArguments {
  const std::int32_t* offsets = nullptr;  ///< chunks * rows + 1
  const std::uint32_t* words = nullptr;   ///< 16-byte aligned
  const std::uint16_t* B = nullptr;
  Out* C = nullptr;
  float* partials = nullptr;     ///< split-K only: slices x chunks x rows x kSlice
  unsigned* arrivals = nullptr;  ///< split-K only: slices x row groups, zero between applies
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t chunks = 1, panel_columns = 0, panel_rows = 0, row_groups = 0;
  std::int64_t stage_rows = 0;  ///< rows of B's stage: min(panel_columns, cols), at least 1
  int word_stage = 0;  ///< words of a panel the block's shared memory holds (a multiple of 4)
  bool vector_b = false;  ///< row-major B, n % 8 == 0, 16-byte aligned: 16-byte copies
  float alpha = 1.0f, beta = 0.0f;
};

/// Eight fp32 values from 16 bytes of V.
template <typename V>
__device__ __forceinline__ void eight_floats(const uint4& raw, float (&out)[8]) {
  const unsigned parts[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float2 pair;
    if constexpr (std::is_same_v<V, __half>)
      pair = __half22float2(*reinterpret_cast<const __half2*>(&parts[i]));
    else
      pair = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&parts[i]));
    out[2 * i] = pair.x;
    out[2 * i + 1] = pair.y;
  }
}

template <typename V>
__device__ __forceinline__ float value_of_word(std::uint32_t word) {
  const auto bits = static_cast<unsigned short>(word & 0xffffu);
  if constexpr (std::is_same_v<V, __half>) return __half2float(__ushort_as_half(bits));
  else return __bfloat162float(__ushort_as_bfloat16(bits));
}

/// acc[j] (j < 8) = sum over the row's words i = first, first + step, ... of value_i *
/// stage[column_i][part]; `words` in shared or global memory.
template <typename V, int kParts>
__device__ __forceinline__ void multiply_row(float (&acc)[8], const std::uint32_t* words,
                                             int count, const uint4* stage, int lane) {
  constexpr int kStep = arch::kWarpSize / kParts;
  const int part = lane % kParts;
#pragma unroll 4
  for (int i = lane / kParts; i < count; i += kStep) {
    const std::uint32_t word = words[i];
    const float a = value_of_word<V>(word);
    float b[8];
    eight_floats<V>(stage[(word >> 16) * kParts + part], b);
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[j] += a * b[j];
  }
}

template <typename V, typename Out, int kSlice, bool kRowMajor>
__global__ void __launch_bounds__(kPanelsThreadsPerBlock)
    tca_panels_kernel(PanelsArguments<Out> args) {
  static_assert(kSlice == 8 || kSlice == 16, "slices of 8 or 16 columns");
  constexpr int kParts = kSlice / 8;  // lanes a nonzero: each holds 8 columns
  extern __shared__ uint4 shared[];
  const std::int64_t group = blockIdx.x / args.chunks, chunk = blockIdx.x % args.chunks;
  const std::int64_t slice = blockIdx.y;
  const std::int64_t first_row = group * args.panel_rows;
  const int panel_rows = static_cast<int>(
      args.rows - first_row < args.panel_rows ? args.rows - first_row : args.panel_rows);
  const std::int64_t k0 = chunk * args.panel_columns, n0 = slice * kSlice;
  const int k_count = static_cast<int>(
      args.cols - k0 < args.panel_columns ? args.cols - k0 : args.panel_columns);
  const int thread = static_cast<int>(threadIdx.x);

  uint4* stage = shared;  // stage_rows x kParts
  auto* offsets = reinterpret_cast<std::int32_t*>(stage + args.stage_rows * kParts);
  auto* staged_words = reinterpret_cast<std::uint32_t*>(
      offsets + (args.panel_rows + 1 + 3) / 4 * 4);  // 16-byte aligned

  // 1. Stage B's rows of the chunk, the panel's offsets and (if they fit) its words.
  const std::int32_t* panel_offsets = args.offsets + chunk * args.rows + first_row;
  const std::int32_t word_begin = panel_offsets[0], word_end = panel_offsets[panel_rows];
  const std::int32_t aligned_begin = word_begin & ~3;  // 16 bytes: the copies' alignment
  const bool words_staged = word_end - aligned_begin <= args.word_stage;
  if (words_staged)
    arch::async_copy_bytes(staged_words, args.words + aligned_begin,
                           (word_end - aligned_begin) * 4, thread, kPanelsThreadsPerBlock);
  for (int r = thread; r <= panel_rows; r += kPanelsThreadsPerBlock)
    offsets[r] = panel_offsets[r] - aligned_begin;
  if (kRowMajor && args.vector_b) {
    for (int unit = thread; unit < k_count * kParts; unit += kPanelsThreadsPerBlock) {
      const int k = unit / kParts, part = unit % kParts;
      const std::int64_t column = n0 + 8 * part;
      if (column < args.n)
        arch::async_copy<16>(stage + unit, args.B + (k0 + k) * args.n + column);
      else
        stage[unit] = make_uint4(0u, 0u, 0u, 0u);
    }
  } else {
    auto* elements = reinterpret_cast<std::uint16_t*>(stage);
    if (kRowMajor) {
      for (int e = thread; e < k_count * kSlice; e += kPanelsThreadsPerBlock) {
        const int k = e / kSlice, j = e % kSlice;
        elements[e] = n0 + j < args.n ? arch::load_read_only(args.B + (k0 + k) * args.n + n0 + j)
                                      : std::uint16_t{0};
      }
    } else {
      for (int j = 0; j < kSlice; ++j)
        for (int k = thread; k < k_count; k += kPanelsThreadsPerBlock)
          elements[k * kSlice + j] =
              n0 + j < args.n ? arch::load_read_only(args.B + (n0 + j) * args.cols + k0 + k)
                              : std::uint16_t{0};
    }
  }
  arch::async_copy_commit();
  arch::async_copy_wait_all();
  __syncthreads();

  // 2. A warp a row: kParts lanes a nonzero, then the reduce-scatter of the row's kSlice sums.
  const int warp = thread / arch::kWarpSize, lane = thread % arch::kWarpSize;
  const std::uint32_t* words = words_staged ? staged_words : args.words + aligned_begin;
  const bool split = args.chunks > 1;
  for (int r = warp; r < panel_rows; r += kPanelsWarpsPerBlock) {
    float acc[8] = {};
    const int begin = offsets[r];
    if (words_staged)
      multiply_row<V, kParts>(acc, staged_words + begin, offsets[r + 1] - begin, stage, lane);
    else
      multiply_row<V, kParts>(acc, words + begin, offsets[r + 1] - begin, stage, lane);
    arch::halve_across_lanes<8, 16>(acc, lane);
    arch::halve_across_lanes<4, 8>(acc, lane);
    arch::halve_across_lanes<2, 4>(acc, lane);
    // lane bits 4, 3, 2 name the column j in the part; bit 1 (and, one lane a nonzero, bit 0)
    // still to add
    float sum = acc[0] + __shfl_xor_sync(arch::kFullMask, acc[0], 2);
    if constexpr (kParts == 1) sum += __shfl_xor_sync(arch::kFullMask, sum, 1);
    constexpr int kHolderMask = kParts == 1 ? 3 : 2;
    if ((lane & kHolderMask) != 0) continue;
    const int j = 8 * (lane % kParts) + 4 * ((lane >> 4) & 1) + 2 * ((lane >> 3) & 1) +
                  ((lane >> 2) & 1);
    const std::int64_t row = first_row + r;
    if (split)
      args.partials[((slice * args.chunks + chunk) * args.rows + row) * kSlice + j] = sum;
    else
      write_c<V>(args.C, row, n0 + j, args, kRowMajor, sum);
  }
  if (!split) return;

  // 3. Split-K: the last block of (group, slice) adds the chunks in order.
  __shared__ unsigned is_last;
  __threadfence();
  __syncthreads();
  unsigned* counter = args.arrivals + slice * args.row_groups + group;
  if (thread == 0) is_last = atomicAdd(counter, 1u) == static_cast<unsigned>(args.chunks - 1);
  __syncthreads();
  if (!is_last) return;
  __threadfence();
  // float4 units of 4 columns of a row; kChunksInFlight chunks' loads issued together, then
  // added in chunk order
  constexpr int kUnitsPerRow = kSlice / 4, kChunksInFlight = 8;
  for (int unit = thread; unit < panel_rows * kUnitsPerRow; unit += kPanelsThreadsPerBlock) {
    const int r = unit / kUnitsPerRow, j = 4 * (unit % kUnitsPerRow);
    const std::int64_t row = first_row + r;
    const auto* partial = reinterpret_cast<const float4*>(
        args.partials + (slice * args.chunks * args.rows + row) * kSlice + j);
    const std::int64_t chunk_stride = args.rows * kSlice / 4;  // in float4
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (std::int64_t c0 = 0; c0 < args.chunks; c0 += kChunksInFlight) {
      float4 p[kChunksInFlight];
#pragma unroll
      for (int c = 0; c < kChunksInFlight; ++c)
        p[c] = c0 + c < args.chunks ? __ldcg(partial + (c0 + c) * chunk_stride)
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int c = 0; c < kChunksInFlight; ++c) {
        sum.x += p[c].x;
        sum.y += p[c].y;
        sum.z += p[c].z;
        sum.w += p[c].w;
      }
    }
    write_c<V>(args.C, row, n0 + j, args, kRowMajor, sum.x);
    write_c<V>(args.C, row, n0 + j + 1, args, kRowMajor, sum.y);
    write_c<V>(args.C, row, n0 + j + 2, args, kRowMajor, sum.z);
    write_c<V>(args.C, row, n0 + j + 3, args, kRowMajor, sum.w);
  }
  if (thread == 0) *counter = 0;  // re-armed for the next apply
}

}  // namespace tcsparse::tca::device
