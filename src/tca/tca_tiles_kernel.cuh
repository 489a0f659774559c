// tca kernel=tiles (tca_tiles_format.hpp): 16 x 16 tiles of A loaded as bitmap + nonzeros,
// multiplied as dense m16n8k16 tiles. Included by tca.cu only.
//
// Grid: x = row group (8 row blocks) x chunk, y = slice of kSliceColumns columns of B and C.
//
//   for each window of stage_columns rows of B in the block's chunk:
//   1. the block stages B[window's k][slice's columns] in shared memory (zeros past K and n):
//        row-major B:    stage[k][j]  (row stride tiles_stage_stride(slice columns))
//        column-major B: stage[j][k]  (row stride tiles_stage_stride(stage columns))
//   2. warp w takes row block rb = 8 x group + w and walks on through its tiles of the window,
//      kTilesInFlight at a time (all their loads issued before the first MMA):
//        lane l: TileInfo (16 bytes, the same for the warp) and bitmap word l / 4; its 8
//                elements are byte l % 4 of the word, its nonzeros start at value_begin +
//                word_prefix[l / 4] + the set bits of the word's bytes below; a0..a3 assembled
//                from up to 8 two-byte loads, zero where a bit is clear
//        ldmatrix (.trans for row-major B) gives the B fragments of the tile's 16 rows of k;
//        one m16n8k16 an n-tile of 8 columns into fp32 accumulators (4 a lane an n-tile)
//   3. one chunk: C = alpha acc + beta C. Several chunks (split-K): each warp writes its
//      accumulators to partials[rb][slice][chunk] in fragment order (a float4 a lane an n-tile),
//      and the warp that arrives last at its (rb, slice) counter sums the chunks in chunk order
//      (bitwise-repeatable) and writes C, then re-arms the counter for the next apply.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "tca/tca_tiles_format.hpp"

namespace tcsparse::tca::device {

inline constexpr int kTilesThreadsPerBlock = kTilesWarpsPerBlock * 32;

template <typename Out>
struct TilesArguments {
  const std::int32_t* chunk_tile_begin = nullptr;
  const unsigned* bitmaps = nullptr;  ///< kTileBitmapWords a tile
  const int4* tiles = nullptr;        ///< TileInfo: {value_begin, column, word prefixes}
  const std::uint16_t* values = nullptr;
  const std::uint16_t* B = nullptr;
  Out* C = nullptr;
  float* partials = nullptr;       ///< split-K only
  unsigned* arrivals = nullptr;    ///< split-K only: row_blocks x slices counters, zero between applies
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t row_blocks = 0, chunks = 1, chunk_columns = 16, stage_columns = 16, slices = 0;
  bool vector_b = false;  ///< B's staged rows may be read as aligned 16-byte pieces
  float alpha = 1.0f, beta = 0.0f;
};

__device__ __forceinline__ std::int64_t stage_stride(std::int64_t row_elements) {
  std::int64_t units = (row_elements + 7) / 8;
  return (units % 2 == 0 ? units + 1 : units) * 8;
}

/// Step 1: B's window [k0, k0 + stage_columns) x slice [n0, n0 + kSliceColumns) into `stage`.
template <int kSliceColumns, bool kRowMajor, typename Out>
__device__ __forceinline__ void stage_b(std::uint16_t* stage, const TilesArguments<Out>& args,
                                        std::int64_t k0, std::int64_t n0, std::int64_t stride) {
  // A staged row: kSliceColumns of n (row-major) or stage_columns of k (column-major).
  const std::int64_t row_length = kRowMajor ? kSliceColumns : args.stage_columns;
  const std::int64_t stage_rows = kRowMajor ? args.stage_columns : kSliceColumns;
  const std::int64_t pieces_per_row = row_length / 8;
  for (std::int64_t piece = threadIdx.x; piece < stage_rows * pieces_per_row;
       piece += kTilesThreadsPerBlock) {
    const std::int64_t stage_row = piece / pieces_per_row, first = 8 * (piece % pieces_per_row);
    const std::int64_t k = kRowMajor ? k0 + stage_row : k0 + first;      // the piece's first k
    const std::int64_t j = kRowMajor ? n0 + first : n0 + stage_row;      // and first column
    uint4 raw = make_uint4(0, 0, 0, 0);
    if (args.vector_b) {  // n % 8 == 0 (row-major) or K % 8 == 0 (column-major), B aligned
      if (k < args.cols && j < args.n)
        raw = __ldg(reinterpret_cast<const uint4*>(kRowMajor ? args.B + k * args.n + j
                                                             : args.B + j * args.cols + k));
    } else {
      auto* parts = reinterpret_cast<std::uint16_t*>(&raw);
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const std::int64_t ke = kRowMajor ? k : k + e, je = kRowMajor ? j + e : j;
        if (ke < args.cols && je < args.n)
          parts[e] = __ldg(kRowMajor ? args.B + ke * args.n + je : args.B + je * args.cols + ke);
      }
    }
    *reinterpret_cast<uint4*>(stage + stage_row * stride + first) = raw;
  }
}

/// Step 2 for one tile: the lane's A fragment from its bitmap word and the tile's TileInfo
/// {value_begin, column, word_prefix[0..3], word_prefix[4..7]} (one byte a word).
__device__ __forceinline__ void load_tile_fragment(unsigned (&a)[4], unsigned word, const int4& info,
                                                   const std::uint16_t* __restrict__ values,
                                                   int lane) {
  const int my_word = lane / 4, my_shift = 8 * (lane % 4);
  const unsigned prefixes = my_word < 4 ? static_cast<unsigned>(info.z) : static_cast<unsigned>(info.w);
  const unsigned below = ((prefixes >> (8 * (my_word % 4))) & 0xffu) +  // lanes of earlier words
                         __popc(word & ((1u << my_shift) - 1u));          // lanes of this word
  const unsigned byte = (word >> my_shift) & 0xffu;
  const std::uint16_t* mine = values + info.x + below;
#pragma unroll
  for (int pair = 0; pair < 4; ++pair) {
    unsigned low_half = 0, high_half = 0;
    const unsigned e0 = 2 * pair, e1 = 2 * pair + 1;
    if ((byte >> e0) & 1u) low_half = __ldg(mine + __popc(byte & ((1u << e0) - 1u)));
    if ((byte >> e1) & 1u) high_half = __ldg(mine + __popc(byte & ((1u << e1) - 1u)));
    a[pair] = low_half | (high_half << 16);
  }
}

/// Step 2 for one tile whose fragment is loaded: its B fragments from the stage, its MMAs.
template <typename V, int kNTiles, bool kRowMajor>
__device__ __forceinline__ void multiply_tile(float (&acc)[kNTiles][arch::kM16n8k8AccumulatorsPerLane],
                                              const unsigned (&a)[4], const std::uint16_t* stage,
                                              std::int64_t k, std::int64_t stride, int lane) {
  if constexpr (kNTiles == 1) {
    unsigned b[2];
    const std::uint16_t* row = kRowMajor ? stage + (k + (lane & 15)) * stride
                                         : stage + (lane & 7) * stride + k + 8 * ((lane >> 3) & 1);
    arch::load_matrix_x2<kRowMajor>(b, row);
    arch::mma_m16n8k16<V>(acc[0], a, b[0], b[1]);
  } else {
#pragma unroll
    for (int pair = 0; pair < kNTiles / 2; ++pair) {
      // matrices: (k 0-7, n-tile 2p), (k 8-15, 2p), (k 0-7, 2p + 1), (k 8-15, 2p + 1)
      const int tile = 2 * pair + (lane >> 4);
      unsigned b[4];
      const std::uint16_t* row =
          kRowMajor ? stage + (k + (lane & 15)) * stride + 8 * tile
                    : stage + (8 * tile + (lane & 7)) * stride + k + 8 * ((lane >> 3) & 1);
      arch::load_matrix_x4<kRowMajor>(b, row);
      arch::mma_m16n8k16<V>(acc[2 * pair], a, b[0], b[1]);
      arch::mma_m16n8k16<V>(acc[2 * pair + 1], a, b[2], b[3]);
    }
  }
}

template <typename V, typename Out>
__device__ __forceinline__ void write_c(Out* C, std::int64_t row, std::int64_t column,
                                        const TilesArguments<Out>& args, bool row_major,
                                        float sum) {
  if (row >= args.rows || column >= args.n) return;
  Out& out = row_major ? C[row * args.n + column] : C[column * args.rows + row];
  float result = args.alpha * sum;
  if constexpr (std::is_same_v<Out, float>) {
    if (args.beta != 0.0f) result += args.beta * out;
    out = result;
  } else {
    if (args.beta != 0.0f) result += args.beta * arch::ValueTraits<V>::to_acc(out);
    out = arch::ValueTraits<V>::from_acc(result);
  }
}

/// V: __half or __nv_bfloat16; Out: V or float; kNTiles: n-tiles of 8 a slice (1, 2, 4, 8);
/// kRowMajor: B and C row-major. Dynamic shared memory: the stage (TilesShape::stage_bytes).
template <typename V, typename Out, int kNTiles, bool kRowMajor>
__global__ void __launch_bounds__(kTilesThreadsPerBlock)
    tca_tiles_kernel(const TilesArguments<Out> args) {
  extern __shared__ __align__(16) std::uint16_t stage[];
  constexpr int kSliceColumns = 8 * kNTiles;
  // Tiles a warp has in flight: 8 while the accumulators are few, 4 at 32 and 64 columns.
  constexpr int kTilesInFlight = kNTiles <= 2 ? 8 : 4;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t chunk = blockIdx.x % args.chunks;
  const std::int64_t row_block = (blockIdx.x / args.chunks) * kTilesWarpsPerBlock + warp;
  const std::int64_t slice = blockIdx.y;
  const std::int64_t k0 = chunk * args.chunk_columns, n0 = slice * kSliceColumns;
  const std::int64_t k_end =
      k0 + args.chunk_columns < args.cols ? k0 + args.chunk_columns : args.cols;
  const std::int64_t stride = stage_stride(kRowMajor ? kSliceColumns : args.stage_columns);
  const bool has_row_block = row_block < args.row_blocks;  // warp-uniform

  const std::int64_t slot = row_block * args.chunks + chunk;
  int t = has_row_block ? args.chunk_tile_begin[slot] : 0;
  const int end_tile = has_row_block ? args.chunk_tile_begin[slot + 1] : 0;
  float acc[kNTiles][arch::kM16n8k8AccumulatorsPerLane] = {};
  // Block-uniform window loop (every warp reaches both barriers; k_end is the block's).
  for (std::int64_t window = k0; window < k_end || window == k0; window += args.stage_columns) {
    if (window > k0) __syncthreads();  // the previous window's ldmatrix are done
    stage_b<kSliceColumns, kRowMajor>(stage, args, window, n0, stride);
    __syncthreads();
    // kTilesInFlight tiles at a time: their metadata loads, then their nonzeros' loads, then
    // their MMAs, so that a warp waits two memory latencies a batch rather than a tile. Which
    // tiles of a batch belong to the window is warp-uniform (TileInfo is the warp's).
    const std::int64_t window_end = window + args.stage_columns;
    while (t < end_tile) {
      int4 info[kTilesInFlight];
      unsigned word[kTilesInFlight];
      bool here[kTilesInFlight];
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        here[u] = t + u < end_tile;
        info[u] = here[u] ? __ldg(args.tiles + t + u) : make_int4(0, 0, 0, 0);
        word[u] = here[u] ? __ldg(args.bitmaps + (t + u) * kTileBitmapWords + lane / 4) : 0u;
      }
      int taken = 0;
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        here[u] = here[u] && info[u].y < window_end;  // a later window's tile waits
        taken += here[u] ? 1 : 0;
      }
      unsigned a[kTilesInFlight][4];
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        if (here[u]) load_tile_fragment(a[u], word[u], info[u], args.values, lane);
      }
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        if (here[u])
          multiply_tile<V, kNTiles, kRowMajor>(acc, a[u], stage, info[u].y - window, stride, lane);
      }
      t += taken;
      if (taken < kTilesInFlight) break;  // the window or the tiles are done
    }
  }
  if (!has_row_block) return;

  if (args.chunks > 1) {  // step 3, split-K: the last warp of (rb, slice) sums the chunks
    const std::int64_t group = row_block * args.slices + slice;
    auto* partials = reinterpret_cast<float4*>(args.partials) + group * args.chunks * kNTiles * 32;
#pragma unroll
    for (int i = 0; i < kNTiles; ++i)
      partials[(chunk * kNTiles + i) * 32 + lane] =
          make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    __threadfence();
    __syncwarp();
    unsigned arrived = 0;
    if (lane == 0) arrived = atomicAdd(args.arrivals + group, 1u);
    arrived = __shfl_sync(0xffffffffu, arrived, 0);
    if (arrived != static_cast<unsigned>(args.chunks - 1)) return;
    __threadfence();
#pragma unroll
    for (int i = 0; i < kNTiles; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
    // kChunksInFlight chunks' loads issued together, then added in chunk order
    constexpr int kChunksInFlight = kNTiles <= 2 ? 8 : 16 / kNTiles;
    for (std::int64_t c0 = 0; c0 < args.chunks; c0 += kChunksInFlight) {
      float4 p[kChunksInFlight][kNTiles];
#pragma unroll
      for (int c = 0; c < kChunksInFlight; ++c)
#pragma unroll
        for (int i = 0; i < kNTiles; ++i)
          p[c][i] = c0 + c < args.chunks ? __ldcg(partials + ((c0 + c) * kNTiles + i) * 32 + lane)
                                         : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int c = 0; c < kChunksInFlight; ++c)
#pragma unroll
        for (int i = 0; i < kNTiles; ++i) {
          if (c0 + c >= args.chunks) break;
          acc[i][0] += p[c][i].x;
          acc[i][1] += p[c][i].y;
          acc[i][2] += p[c][i].z;
          acc[i][3] += p[c][i].w;
        }
    }
    if (lane == 0) args.arrivals[group] = 0;  // re-armed for the next apply
  }
  const int g = lane / 4, t2 = 2 * (lane % 4);
  const std::int64_t row = row_block * kTileRows + g;
#pragma unroll
  for (int i = 0; i < kNTiles; ++i) {
    const std::int64_t column = n0 + 8 * i + t2;
    write_c<V>(args.C, row, column, args, kRowMajor, acc[i][0]);
    write_c<V>(args.C, row, column + 1, args, kRowMajor, acc[i][1]);
    write_c<V>(args.C, row + 8, column, args, kRowMajor, acc[i][2]);
    write_c<V>(args.C, row + 8, column + 1, args, kRowMajor, acc[i][3]);
  }
}

}  // namespace tcsparse::tca::device
