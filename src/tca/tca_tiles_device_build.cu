// The tile layout built on the GPU (tca_tiles_device_build.hpp): the steps' kernels and their
// orchestration.
#include "tca/tca_tiles_device_build.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>

#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/device_csr.hpp"
#include "tca/tca.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

/// Where a nonzero at (row, column) sits in the layout: its (row block, segment) slot, its mask
/// word in the run (4 tile + register), its lane, and its half of the register pair.
struct TilePlace {
  std::int64_t slot;
  int word, lane, half;
};

__device__ __forceinline__ TilePlace place_of(std::int64_t row, std::int32_t column,
                                              std::int64_t segments) {
  const int r = static_cast<int>(row % kTileRows);
  const int in_segment = column % kTilesSegmentColumns, c = in_segment % kTileColumns;
  return {row / kTileRows * segments + column / kTilesSegmentColumns,
          kFragmentRegisters * (in_segment / kTileColumns) + fragment_register(r, c),
          fragment_lane(r, c), fragment_half(c)};
}

/// Whether nonzero k (of a row beginning at row_begin) is the second half of a pair whose first
/// half is stored: an odd column right after its left neighbour.
__device__ __forceinline__ bool completes_a_pair(const std::int32_t* col_idx, std::int32_t k,
                                                 std::int32_t row_begin, std::int32_t column) {
  return (column & 1) != 0 && k > row_begin && col_idx[k - 1] == column - 1;
}

/// Step 1, a warp a row: pairs[slot] += the row's pairs in each slot. The row's columns ascend
/// along the lanes, so its nonzeros of one slot are consecutive lanes: the last lane of each
/// such run adds the run's count (one atomic a slot and round, not one a nonzero).
__global__ void count_pairs_kernel(const std::int32_t* __restrict__ row_ptr,
                                   const std::int32_t* __restrict__ col_idx, std::int64_t rows,
                                   std::int64_t segments, std::int64_t* __restrict__ pairs) {
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
  if (row >= rows) return;  // the whole warp
  const int lane = arch::lane_id();
  const std::int32_t begin = row_ptr[row], end = row_ptr[row + 1];
  for (std::int32_t first = begin; first < end; first += arch::kWarpSize) {
    const std::int32_t k = first + lane;
    const bool present = k < end;
    std::int64_t slot = -1;
    unsigned counted = 0;
    if (present) {
      const std::int32_t column = col_idx[k];
      slot = place_of(row, column, segments).slot;
      counted = completes_a_pair(col_idx, k, begin, column) ? 0u : 1u;
    }
    // inclusive sum of `counted` over the lanes, and where each lane's run of equal slots starts
    const unsigned sum = arch::warp_inclusive_sum(counted);
    const std::int64_t previous_slot = __shfl_up_sync(arch::kFullMask, slot, 1);
    const std::int64_t next_slot = __shfl_down_sync(arch::kFullMask, slot, 1);
    const unsigned starts = __ballot_sync(arch::kFullMask, lane == 0 || slot != previous_slot);
    const int run_start = 31 - __clz(starts & (0xffffffffu >> (31 - lane)));
    const unsigned before_run = __shfl_sync(arch::kFullMask, sum - counted, run_start);
    const bool run_ends = lane == arch::kWarpSize - 1 || next_slot != slot;
    if (present && run_ends && sum > before_run)
      atomicAdd(reinterpret_cast<unsigned long long*>(pairs + slot),
                static_cast<unsigned long long>(sum - before_run));
  }
}

/// Step 2a: each slot's run in words, in place: 64 mask words and its pairs, to 16 bytes.
__global__ void run_words_kernel(std::int64_t* __restrict__ words, std::int64_t slots) {
  const std::int64_t slot = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (slot >= slots) return;
  const std::int64_t pairs = words[slot];
  words[slot] = pairs > 0 ? (kSegmentMaskWords + pairs + 3) / 4 * 4 : 0;
}

/// The counts a build downloads.
struct TileCounts {
  long long total_words = 0, longest_run = 0, stored_tiles = 0, pairs = 0;
};

/// Step 2b: the 32-bit run offsets from the 64-bit scan, the longest run and the total.
__global__ void finish_offsets_kernel(const std::int64_t* __restrict__ begin64,
                                      std::int32_t* __restrict__ begin32, std::int64_t slots,
                                      TileCounts* __restrict__ counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  long long longest = 0;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i <= slots; i += stride) {
    begin32[i] = static_cast<std::int32_t>(begin64[i]);  // checked on the host from the total
    if (i < slots) longest = max(longest, static_cast<long long>(begin64[i + 1] - begin64[i]));
  }
  longest = arch::warp_max(longest);
  if (arch::lane_id() == 0 && longest > 0) atomicMax(&counts->longest_run, longest);
  if (blockIdx.x == 0 && threadIdx.x == 0) counts->total_words = begin64[slots];
}

/// Step 3, a warp a row: each nonzero's bit in its mask word (the words zeroed before).
__global__ void set_masks_kernel(const std::int32_t* __restrict__ row_ptr,
                                 const std::int32_t* __restrict__ col_idx, std::int64_t rows,
                                 std::int64_t segments,
                                 const std::int32_t* __restrict__ segment_word_begin,
                                 unsigned* __restrict__ words) {
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
  if (row >= rows) return;
  for (std::int32_t k = row_ptr[row] + arch::lane_id(); k < row_ptr[row + 1];
       k += arch::kWarpSize) {
    const TilePlace place = place_of(row, col_idx[k], segments);
    atomicOr(words + segment_word_begin[place.slot] + place.word, 1u << place.lane);
  }
}

/// Step 4, a warp a slot: first_pair[begin + w] = the run-relative word of mask word w's first
/// pair (64 + the popcounts of the words before it); the stored tiles (a mask word of theirs
/// non-zero) and the pairs counted. Lane l holds words 2l and 2l + 1, so tile t is lanes 2t, 2t+1.
__global__ void first_pairs_kernel(const std::int32_t* __restrict__ segment_word_begin,
                                   const unsigned* __restrict__ words, std::int64_t slots,
                                   std::int32_t* __restrict__ first_pair,
                                   TileCounts* __restrict__ counts) {
  static_assert(kSegmentMaskWords == 2 * arch::kWarpSize && kFragmentRegisters == 4,
                "two mask words a lane, a tile on two lanes");
  const std::int64_t warps =
      static_cast<std::int64_t>(gridDim.x) * blockDim.x / arch::kWarpSize;
  const int lane = arch::lane_id();
  long long tiles = 0, pairs = 0;
  for (std::int64_t slot =
           (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
       slot < slots; slot += warps) {
    const std::int32_t begin = segment_word_begin[slot];
    if (begin == segment_word_begin[slot + 1]) continue;  // the whole warp: an empty segment
    const unsigned low = words[begin + 2 * lane], high = words[begin + 2 * lane + 1];
    const int low_count = __popc(low), count = low_count + __popc(high);
    const int sum = arch::warp_inclusive_sum(count);
    const int before = kSegmentMaskWords + sum - count;
    first_pair[begin + 2 * lane] = before;
    first_pair[begin + 2 * lane + 1] = before + low_count;
    const bool any = (low | high | __shfl_xor_sync(arch::kFullMask, low | high, 1)) != 0;
    const unsigned tile_lanes = __ballot_sync(arch::kFullMask, any) & 0x55555555u;  // lanes 2t
    const int run_pairs = __shfl_sync(arch::kFullMask, sum, arch::kWarpSize - 1);
    if (lane == 0) {
      tiles += __popc(tile_lanes);
      pairs += run_pairs;
    }
  }
  if (lane == 0 && tiles > 0) {
    atomicAdd(reinterpret_cast<unsigned long long*>(&counts->stored_tiles),
              static_cast<unsigned long long>(tiles));
    atomicAdd(reinterpret_cast<unsigned long long*>(&counts->pairs),
              static_cast<unsigned long long>(pairs));
  }
}

/// Step 5, a warp a row: each nonzero's 16 bits into its half of its register pair.
__global__ void place_values_kernel(const std::int32_t* __restrict__ row_ptr,
                                    const std::int32_t* __restrict__ col_idx,
                                    const std::uint16_t* __restrict__ values, std::int64_t rows,
                                    std::int64_t segments,
                                    const std::int32_t* __restrict__ segment_word_begin,
                                    const std::int32_t* __restrict__ first_pair,
                                    unsigned* __restrict__ words) {
  const std::int64_t row =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / arch::kWarpSize;
  if (row >= rows) return;
  for (std::int32_t k = row_ptr[row] + arch::lane_id(); k < row_ptr[row + 1];
       k += arch::kWarpSize) {
    const TilePlace place = place_of(row, col_idx[k], segments);
    const std::int32_t begin = segment_word_begin[place.slot];
    const unsigned mask = words[begin + place.word];
    const std::int32_t at =
        begin + first_pair[begin + place.word] + __popc(mask & ((1u << place.lane) - 1u));
    atomicOr(words + at, static_cast<unsigned>(values[k]) << (16 * place.half));
  }
}

unsigned blocks_for(std::int64_t threads, int per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

}  // namespace

template <typename Value>
DeviceTileLayout build_tile_layout_on_device(const DeviceCsrView<Value>& csr,
                                             const TilesShape& shape, cudaStream_t stream) {
  static_assert(sizeof(Value) == 2, "tiles hold 16-bit values");
  using detail::DeviceBuffer;
  constexpr int kThreads = 256;
  const std::int64_t slots = shape.row_blocks * shape.segments;
  if (slots + 1 > std::numeric_limits<std::int32_t>::max())
    throw IndexOverflowError("tca kernel=tiles: " + std::to_string(slots + 1) +
                             " (row block, segment) slots exceed 32-bit offsets");
  const bool small_build = detail::is_small_build<Value>(csr.rows, csr.nnz);
  DeviceTileLayout layout;
  layout.segment_word_begin =
      DeviceBuffer<std::int32_t>::for_plan(static_cast<std::size_t>(slots + 1), small_build);
  detail::DeviceScratch scratch(stream);
  auto counts = DeviceBuffer<TileCounts>::on_stream(1, stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, sizeof(TileCounts), stream));
  const unsigned row_warps = blocks_for(csr.rows * arch::kWarpSize, kThreads);

  // 1-2. pairs a slot, words a run, their scan; the total and the longest run downloaded
  {
    auto run_words = DeviceBuffer<std::int64_t>::on_stream(static_cast<std::size_t>(slots + 1),
                                                           stream);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(run_words.data(), 0,
                                        static_cast<std::size_t>(slots + 1) * 8, stream));
    if (csr.rows > 0 && csr.nnz > 0) {
      count_pairs_kernel<<<row_warps, kThreads, 0, stream>>>(csr.row_ptr, csr.col_idx, csr.rows,
                                                             shape.segments, run_words.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    if (slots > 0) {
      run_words_kernel<<<blocks_for(slots, kThreads), kThreads, 0, stream>>>(run_words.data(),
                                                                            slots);
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    detail::exclusive_sum(scratch, run_words.data(), run_words.data(), slots + 1,
                          "(row block, segment) slots");
    finish_offsets_kernel<<<std::min(blocks_for(slots + 1, kThreads), 1024u), kThreads, 0,
                            stream>>>(run_words.data(), layout.segment_word_begin.data(), slots,
                                      counts.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  const TileCounts sizes = detail::download_one(counts.data(), stream);
  if (sizes.total_words > std::numeric_limits<std::int32_t>::max())
    throw IndexOverflowError("tca kernel=tiles: " + std::to_string(sizes.total_words) +
                             " tile words exceed 32-bit offsets");
  layout.longest_run_words = sizes.longest_run;
  layout.words = DeviceBuffer<std::uint32_t>::for_plan(
      static_cast<std::size_t>(sizes.total_words), small_build);
  if (sizes.total_words > 0) {
    // 3-5. masks, where each mask word's pairs begin, the values
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(layout.words.data(), 0,
                                        static_cast<std::size_t>(sizes.total_words) * 4, stream));
    set_masks_kernel<<<row_warps, kThreads, 0, stream>>>(csr.row_ptr, csr.col_idx, csr.rows,
                                                         shape.segments,
                                                         layout.segment_word_begin.data(),
                                                         layout.words.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    auto first_pair = DeviceBuffer<std::int32_t>::on_stream(
        static_cast<std::size_t>(sizes.total_words), stream);
    first_pairs_kernel<<<std::min(blocks_for(slots * arch::kWarpSize, kThreads), 4096u),
                         kThreads, 0, stream>>>(layout.segment_word_begin.data(),
                                                layout.words.data(), slots, first_pair.data(),
                                                counts.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    place_values_kernel<<<row_warps, kThreads, 0, stream>>>(
        csr.row_ptr, csr.col_idx, reinterpret_cast<const std::uint16_t*>(csr.values), csr.rows,
        shape.segments, layout.segment_word_begin.data(), first_pair.data(),
        layout.words.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    const TileCounts done = detail::download_one(counts.data(), stream);
    layout.stored_tiles = done.stored_tiles;
    layout.pairs = done.pairs;
  }
  return layout;
}

namespace testing {

template <typename Value>
TileLayout tile_layout_built_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                       const TilesShape& shape) {
  PlanStats stats;
  const detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats);
  const DeviceTileLayout built = build_tile_layout_on_device(csr.view(), shape, nullptr);
  TileLayout layout;
  layout.rows = matrix.rows;
  layout.cols = matrix.cols;
  layout.nnz = matrix.nnz();
  layout.shape = shape;
  layout.stored_tiles = built.stored_tiles;
  layout.pairs = built.pairs;
  layout.segment_word_begin = built.segment_word_begin.download();
  layout.words = built.words.download();
  return layout;
}

template TileLayout tile_layout_built_on_device<half>(const CsrMatrix<half, std::int32_t>&,
                                                      const TilesShape&);
template TileLayout tile_layout_built_on_device<bfloat16>(const CsrMatrix<bfloat16, std::int32_t>&,
                                                          const TilesShape&);

}  // namespace testing

template DeviceTileLayout build_tile_layout_on_device<half>(const DeviceCsrView<half>&,
                                                            const TilesShape&, cudaStream_t);
template DeviceTileLayout build_tile_layout_on_device<bfloat16>(const DeviceCsrView<bfloat16>&,
                                                                const TilesShape&, cudaStream_t);

}  // namespace tcsparse::tca
