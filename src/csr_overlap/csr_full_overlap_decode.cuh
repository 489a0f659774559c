// The GPU side of csr_full_overlap's compact stream images (csr_full_overlap_stream_image.hpp):
// one kernel a big batch expands its 8 / 16-bit row lengths and column offsets, once they have
// landed in its slot, into the slot's decode area, where the batch kernel reads them as int32
// row offsets and columns. Included by csr_full_overlap.cu only.
//
//   blocks [0, row_blocks):          block k: rows [k * kRowChunk, (k + 1) * kRowChunk)
//       row_ptr[r] = anchors[k] + (lengths of the chunk's rows before r)    (a block scan)
//   blocks [row_blocks, +col_blocks): block j: nonzeros [j * kColumnChunk, (j + 1) * kColumnChunk)
//       col_idx[i] = bases[j] + offsets[i]
#pragma once

#include <cub/block/block_scan.cuh>

#include <cstdint>

#include "csr_overlap/csr_full_overlap_stream_image.hpp"

namespace tcsparse::csr_overlap::device {

inline constexpr int kDecodeThreads = 256;
inline constexpr int kRowsPerDecodeThread = static_cast<int>(kRowChunk) / kDecodeThreads;
inline constexpr int kColumnsPerDecodeThread = static_cast<int>(kColumnChunk) / kDecodeThreads;
static_assert(kRowsPerDecodeThread * kDecodeThreads == kRowChunk);
static_assert(kColumnsPerDecodeThread * kDecodeThreads == kColumnChunk);

/// One big batch's decode, fixed at plan time (pointers into its slot and the decode area).
struct DecodeArguments {
  // rows (row_blocks == 0: its offsets are streamed as they are)
  const std::int32_t* row_anchors;
  const void* row_lengths;
  int row_length_bytes;  ///< 1 or 2
  std::int64_t rows;
  std::int32_t nnz;  ///< the rebased offset after the last row
  std::int32_t* row_ptr;
  unsigned row_blocks;
  // columns (column_blocks == 0: streamed as they are)
  const std::int32_t* column_bases;
  const std::uint16_t* column_offsets;
  std::int32_t* col_idx;
  unsigned column_blocks;
};

__global__ void __launch_bounds__(kDecodeThreads) decode_big_batch_kernel(const DecodeArguments a) {
  const int t = static_cast<int>(threadIdx.x);
  if (blockIdx.x < a.row_blocks) {
    using Scan = cub::BlockScan<std::int32_t, kDecodeThreads>;
    __shared__ typename Scan::TempStorage scan_storage;
    const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kRowChunk +
                               static_cast<std::int64_t>(t) * kRowsPerDecodeThread;
    std::int32_t lengths[kRowsPerDecodeThread], starts[kRowsPerDecodeThread];
#pragma unroll
    for (int i = 0; i < kRowsPerDecodeThread; ++i) {
      const std::int64_t r = first + i;
      lengths[i] = r >= a.rows ? 0
                   : a.row_length_bytes == 1
                       ? static_cast<std::int32_t>(static_cast<const std::uint8_t*>(a.row_lengths)[r])
                       : static_cast<std::int32_t>(static_cast<const std::uint16_t*>(a.row_lengths)[r]);
    }
    Scan(scan_storage).ExclusiveSum(lengths, starts);
    const std::int32_t anchor = a.row_anchors[blockIdx.x];
#pragma unroll
    for (int i = 0; i < kRowsPerDecodeThread; ++i)
      if (first + i < a.rows) a.row_ptr[first + i] = anchor + starts[i];
    if (blockIdx.x == a.row_blocks - 1 && t == 0) a.row_ptr[a.rows] = a.nnz;
    return;
  }
  const std::int64_t chunk = blockIdx.x - a.row_blocks;
  const std::int32_t base = a.column_bases[chunk];
  const std::int64_t nnz = a.nnz;
#pragma unroll
  for (int u = 0; u < kColumnsPerDecodeThread; ++u) {
    const std::int64_t i = chunk * kColumnChunk + u * kDecodeThreads + t;
    if (i < nnz) a.col_idx[i] = base + a.column_offsets[i];
  }
}

}  // namespace tcsparse::csr_overlap::device
