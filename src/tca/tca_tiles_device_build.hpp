// tca kernel=tiles: the tile layout (tca_tiles_format.hpp) built on the GPU from a CSR on the
// device, word for word the host builder's (build_tile_layout; GPU test
// SpmmLayouts.TcaTilesLayoutBuiltOnTheGpuIsTheHostBuilders). Five steps on one stream:
//
//   1. a warp a row: the register pairs of each (row block, segment) slot, counted once a pair
//      (a nonzero at an odd column whose left neighbour is stored is its pair's second half)
//   2. each slot's run in words (64 mask words and its pairs, to 16 bytes; 0 when empty), their
//      scan, the total and the longest run downloaded (the words' allocation needs them)
//   3. a warp a row: each nonzero sets its lane's bit in its mask word (atomicOr into zeros)
//   4. a warp a run: where each mask word's pairs begin (a scan of the 64 words' popcounts), the
//      stored tiles and the pairs counted
//   5. a warp a row: each nonzero ORs its 16 bits into its half of its pair, at
//      begin + first pair of its word + the set bits of the mask below its lane
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/device_buffer.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::tca {

struct DeviceTileLayout {
  detail::DeviceBuffer<std::int32_t> segment_word_begin;  ///< row_blocks * segments + 1
  detail::DeviceBuffer<std::uint32_t> words;              ///< the runs (16-byte aligned)
  std::int64_t stored_tiles = 0, pairs = 0, longest_run_words = 0;
  std::int64_t bytes() const {
    return static_cast<std::int64_t>(segment_word_begin.bytes() + words.bytes());
  }
};

/// The layout of a valid device CSR (sorted, unique columns; 16-bit values) for `shape`, its
/// arrays from the plan's pool for a small build, else from cudaMalloc (DeviceBuffer::for_plan,
/// detail::is_small_build). Synchronises the stream twice (the total to allocate, the counts at
/// the end). IndexOverflowError when the runs exceed 32-bit word offsets.
template <typename Value>
DeviceTileLayout build_tile_layout_on_device(const DeviceCsrView<Value>& csr,
                                             const TilesShape& shape, cudaStream_t stream);

}  // namespace tcsparse::tca
