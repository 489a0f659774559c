// tca kernel=tiles (tca_tiles_format.hpp): 16 x 16 tiles of A loaded as (value, slot) entries,
// multiplied as dense m16n8k16 tiles. Included by tca.cu only.
//
// Grid: x = row group (8 row blocks) x chunk, y = slice of kSliceColumns columns of B and C.
//
//   for each window of stage_columns rows of B in the block's chunk:
//   1. the block stages B[window's k][slice's columns] in shared memory (zeros past K and n):
//        row-major B:    stage[k][j]  (row stride tiles_stage_stride(slice columns))
//        column-major B: stage[j][k]  (row stride tiles_stage_stride(stage columns))
//   2. warp w takes row block rb = 8 x group + w and walks on through its tiles of the window,
//      kTilesInFlight at a time:
//        the tiles' TileInfo (warp-uniform loads; a tile's entries end where the next begins),
//        then up to kTileEntryRounds x 32 entries a tile (lane l: entries l, l + 32, ...; all the
//        batch's loads in flight at once; longer tiles loop for the rest);
//        the warp's dense tiles zeroed, each entry stored at its slot, ldmatrix of each dense
//        tile gives the m16n8k16 A fragment (slots swizzled: conflict-free rows);
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
  const int2* tiles = nullptr;        ///< TileInfo: {entry_begin, column}, a sentinel last
  const unsigned* entries = nullptr;  ///< value bits | slot << 16
  const std::uint16_t* B = nullptr;
  Out* C = nullptr;
  float* partials = nullptr;  ///< split-K only
  unsigned* arrivals =
      nullptr;  ///< split-K only: row_blocks x slices counters, zero between applies
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t row_blocks = 0, chunks = 1, chunk_columns = 16, stage_columns = 16, slices = 0;
  std::int64_t stage_elements = 0;  ///< 16-bit elements of the stage (the dense tiles follow)
  bool vector_b = false;            ///< B's staged rows may be read as aligned 16-byte pieces
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
    const std::int64_t k = kRowMajor ? k0 + stage_row : k0 + first;  // the piece's first k
    const std::int64_t j = kRowMajor ? n0 + first : n0 + stage_row;  // and first column
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

/// Step 2: the TileInfo of tiles t .. t + kTilesInFlight (clamped to end_tile: the last one
/// read is where the batch's last tile ends; end_tile's own entry is the next tile's or the
/// sentinel).
__device__ __forceinline__ void load_tile_infos(int2 (&info)[kTilesInFlight + 1],
                                                const int2* __restrict__ tiles, int t,
                                                int end_tile) {
#pragma unroll
  for (int u = 0; u <= kTilesInFlight; ++u)
    info[u] = __ldg(tiles + (t + u < end_tile ? t + u : end_tile));
}

/// Step 2: entries 32 r + lane of each tile of the batch (0 where there is none).
__device__ __forceinline__ void load_tile_entries(
    unsigned (&entry)[kTilesInFlight][kTileEntryRounds], const int2 (&info)[kTilesInFlight + 1],
    const unsigned* __restrict__ entries, int t, int end_tile, int lane) {
#pragma unroll
  for (int u = 0; u < kTilesInFlight; ++u)
#pragma unroll
    for (int r = 0; r < kTileEntryRounds; ++r) {
      const int e = info[u].x + 32 * r + lane;
      entry[u][r] = t + u < end_tile && e < info[u + 1].x ? __ldg(entries + e) : 0u;
    }
}

/// Step 2: the A fragment of a dense 16 x 16 tile in shared memory (slots of tile_slot).
__device__ __forceinline__ void load_tile_fragment(unsigned (&a)[4], const std::uint16_t* tile,
                                                   int lane) {
  // matrices: rows 0-7 | rows 8-15 of columns 0-7, then of columns 8-15 (a0, a1, a2, a3)
  const int row = lane & 15, column = 8 * (lane >> 4);
  arch::load_matrix_x4<false>(a, tile + 16 * row + (column ^ (((row >> 2) & 1) << 3)));
}

/// Step 2 for one tile whose fragment is loaded: its B fragments from the stage, its MMAs.
template <typename V, int kNTiles, bool kRowMajor>
__device__ __forceinline__ void multiply_tile(
    float (&acc)[kNTiles][arch::kM16n8k8AccumulatorsPerLane], const unsigned (&a)[4],
    const std::uint16_t* stage, std::int64_t k, std::int64_t stride, int lane) {
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
/// kRowMajor: B and C row-major. Dynamic shared memory: TilesShape::shared_bytes (the stage,
/// then kTilesInFlight dense tiles a warp).
template <typename V, typename Out, int kNTiles, bool kRowMajor>
__global__ void __launch_bounds__(kTilesThreadsPerBlock)
    tca_tiles_kernel(const TilesArguments<Out> args) {
  extern __shared__ __align__(16) std::uint16_t shared[];
  constexpr int kSliceColumns = 8 * kNTiles;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const std::int64_t chunk = blockIdx.x % args.chunks;
  const std::int64_t row_block = (blockIdx.x / args.chunks) * kTilesWarpsPerBlock + warp;
  const std::int64_t slice = blockIdx.y;
  const std::int64_t k0 = chunk * args.chunk_columns, n0 = slice * kSliceColumns;
  const std::int64_t k_end =
      k0 + args.chunk_columns < args.cols ? k0 + args.chunk_columns : args.cols;
  const std::int64_t stride = stage_stride(kRowMajor ? kSliceColumns : args.stage_columns);
  std::uint16_t* stage = shared;  // then the warps' dense tiles
  std::uint16_t* dense =
      shared + args.stage_elements + warp * kTilesInFlight * kTileRows * kTileColumns;
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
    // kTilesInFlight tiles at a time: their TileInfo, then their entries (all loads of the
    // batch in flight at once), then the dense tiles and their MMAs; a warp waits two memory
    // latencies a batch rather than a tile. (Loading the next batch while this one computes was
    // measured no faster: more registers, fewer warps an SM.) Which tiles of a batch belong to
    // the window is warp-uniform (TileInfo is the warp's).
    const std::int64_t window_end = window + args.stage_columns;
    while (t < end_tile) {
      int2 info[kTilesInFlight + 1];
      unsigned entry[kTilesInFlight][kTileEntryRounds];
      load_tile_infos(info, args.tiles, t, end_tile);
      load_tile_entries(entry, info, args.entries, t, end_tile, lane);
      bool here[kTilesInFlight];
      int taken = 0;
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        here[u] = t + u < end_tile && info[u].y < window_end;  // a later window's tile waits
        taken += here[u] ? 1 : 0;
      }
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u)
        reinterpret_cast<uint4*>(dense + u * kTileRows * kTileColumns)[lane] =
            make_uint4(0, 0, 0, 0);
      __syncwarp();
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        if (!here[u]) continue;
#pragma unroll
        for (int r = 0; r < kTileEntryRounds; ++r)
          if (entry[u][r] != 0u)  // a zero word is no entry (a stored zero value changes nothing)
            dense[u * kTileRows * kTileColumns + (entry[u][r] >> 16)] =
                static_cast<std::uint16_t>(entry[u][r] & 0xffffu);
        // entries beyond the rounds (tiles denser than 50 %)
        for (int e = info[u].x + 32 * kTileEntryRounds + lane; e < info[u + 1].x; e += 32) {
          const unsigned word = __ldg(args.entries + e);
          dense[u * kTileRows * kTileColumns + (word >> 16)] =
              static_cast<std::uint16_t>(word & 0xffffu);
        }
      }
      __syncwarp();
#pragma unroll
      for (int u = 0; u < kTilesInFlight; ++u) {
        if (!here[u]) continue;
        unsigned a[4];
        load_tile_fragment(a, dense + u * kTileRows * kTileColumns, lane);
        multiply_tile<V, kNTiles, kRowMajor>(acc, a, stage, info[u].y - window, stride, lane);
      }
      __syncwarp();  // the dense tiles are read before the next batch clears them
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
