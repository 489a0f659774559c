// tca kernel=tiles (tca_tiles_format.hpp): A as the m16n8k16 fragments' non-empty register
// pairs, by segments of 16 tiles, loaded by each lane straight into its fragment registers and
// multiplied as dense m16n8k16 tiles. Included by tca.cu only.
//
// Grid: x = row group (8 row blocks) x chunk, y = slice of kSliceColumns columns of B and C.
//
//   for each segment (256 columns of A, rows of B) of the block's chunk:
//   1. the block stages B[segment's k][slice's columns] in shared memory (zeros past K and n),
//      by cp.async into one of two stages (segment s + 1's copies fly while segment s
//      multiplies; one __syncthreads a segment):
//        row-major B:    stage[k][j]  (row stride tiles_stage_stride(slice columns))
//        column-major B: stage[j][k]  (row stride tiles_stage_stride(256))
//   2. warp w (row block rb = 8 x group + w) has the 64 mask words of its run (lane l: words
//      2 l, 2 l + 1, loaded a segment ahead) and scans their pair counts into a table in shared
//      memory: each word and where its pairs start;
//   3. 4 tiles at a time (the next 4 tiles' loads in flight during these MMAs): lane l's register
//      p of tile t is run[start(4 t + p) + popc(mask & lanes below l)] where its mask bit is set,
//      else 0; ldmatrix (.trans for row-major B) gives the B fragments of the tile's 16 rows of
//      k, one m16n8k16 an n-tile of 8 columns into fp32 accumulators (4 a lane an n-tile)
//   4. one chunk: C = alpha acc + beta C. Several chunks (split-K): each warp writes its
//      accumulators to partials[rb][slice][chunk] in fragment order (a float4 a lane an n-tile),
//      and the warp that arrives last at its (rb, slice) counter sums the chunks in chunk order
//      (bitwise-repeatable) and writes C, then re-arms the counter for the next apply.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/async_copy.cuh"
#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "tca/tca_tiles_format.hpp"

namespace tcsparse::tca::device {

inline constexpr int kTilesThreadsPerBlock = kTilesWarpsPerBlock * 32;

template <typename Out>
struct TilesArguments {
  const std::int32_t* segment_word_begin = nullptr;  ///< row_blocks x segments + 1
  const unsigned* words = nullptr;                   ///< the segments' runs (16-byte aligned)
  const std::uint16_t* B = nullptr;
  Out* C = nullptr;
  float* partials = nullptr;  ///< split-K only
  unsigned* arrivals =
      nullptr;  ///< split-K only: row_blocks x slices counters, zero between applies
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t row_blocks = 0, segments = 0, chunks = 1, chunk_segments = 1, slices = 0;
  std::int64_t stage_elements = 0;  ///< 16-bit elements of one stage (two follow each other)
  bool vector_b = false;            ///< B's staged rows may be read as aligned 16-byte pieces
  float alpha = 1.0f, beta = 0.0f;
};

__device__ __forceinline__ std::int64_t stage_stride(std::int64_t row_elements) {
  std::int64_t units = (row_elements + 7) / 8;
  return (units % 2 == 0 ? units + 1 : units) * 8;
}

/// Step 1: B's segment [k0, k0 + 256) x slice [n0, n0 + kSliceColumns) into `stage`: aligned
/// 16-byte pieces by cp.async (wait, then __syncthreads before reading), the rest directly.
template <int kSliceColumns, bool kRowMajor, typename Out>
__device__ __forceinline__ void stage_b(std::uint16_t* stage, const TilesArguments<Out>& args,
                                        std::int64_t k0, std::int64_t n0, std::int64_t stride) {
  // A staged row: kSliceColumns of n (row-major) or the segment's 256 of k (column-major).
  const std::int64_t row_length = kRowMajor ? kSliceColumns : kTilesSegmentColumns;
  const std::int64_t stage_rows = kRowMajor ? kTilesSegmentColumns : kSliceColumns;
  const std::int64_t pieces_per_row = row_length / 8;
  for (std::int64_t piece = threadIdx.x; piece < stage_rows * pieces_per_row;
       piece += kTilesThreadsPerBlock) {
    const std::int64_t stage_row = piece / pieces_per_row, first = 8 * (piece % pieces_per_row);
    const std::int64_t k = kRowMajor ? k0 + stage_row : k0 + first;  // the piece's first k
    const std::int64_t j = kRowMajor ? n0 + first : n0 + stage_row;  // and first column
    std::uint16_t* destination = stage + stage_row * stride + first;
    uint4 raw = make_uint4(0, 0, 0, 0);
    if (args.vector_b) {  // n % 8 == 0 (row-major) or K % 8 == 0 (column-major), B aligned
      if (k < args.cols && j < args.n) {  // asynchronous: joins the thread's cp.async group
        arch::async_copy<16>(destination, kRowMajor ? args.B + k * args.n + j
                                                    : args.B + j * args.cols + k);
        continue;
      }
    } else {
      auto* parts = reinterpret_cast<std::uint16_t*>(&raw);
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        const std::int64_t ke = kRowMajor ? k : k + e, je = kRowMajor ? j + e : j;
        if (ke < args.cols && je < args.n)
          parts[e] = __ldg(kRowMajor ? args.B + ke * args.n + je : args.B + je * args.cols + ke);
      }
    }
    *reinterpret_cast<uint4*>(destination) = raw;
  }
}

/// Steps 2 and 3: a lane's view of one (row block, segment) run.
struct SegmentRun {
  const unsigned* run = nullptr;
  bool empty = true;               ///< warp-uniform: the segment has no nonzeros
  uint2 masks = make_uint2(0, 0);  ///< mask words 2 lane and 2 lane + 1

  /// Step 2, issued a segment ahead: the run [begin, end) and its mask words.
  __device__ __forceinline__ void load(const unsigned* words, int begin, int end, int lane) {
    run = words + begin;
    empty = begin == end;
    masks = empty ? make_uint2(0, 0) : __ldg(reinterpret_cast<const uint2*>(run) + lane);
  }
  /// Step 2: the warp's table in shared memory (kSegmentMaskWords masks, then as many starts:
  /// where each mask word's pairs begin in the run, a warp scan of the words' counts), read by
  /// every lane as 16-byte broadcasts.
  __device__ __forceinline__ void fill_table(unsigned* table, int lane) const {
    const int first = __popc(masks.x), count = first + __popc(masks.y);
    int inclusive = count;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const int below = __shfl_up_sync(0xffffffffu, inclusive, offset);
      if (lane >= offset) inclusive += below;
    }
    const int start = kSegmentMaskWords + inclusive - count;
    __syncwarp();  // every lane is done reading the previous segment's table
    reinterpret_cast<uint2*>(table)[lane] = masks;
    reinterpret_cast<uint2*>(table + kSegmentMaskWords)[lane] =
        make_uint2(static_cast<unsigned>(start), static_cast<unsigned>(start + first));
    __syncwarp();
  }
  /// Step 3: the A fragments of tiles first_tile .. + kTiles (0 where a pair is empty).
  template <int kTiles>
  __device__ __forceinline__ void load_fragments(unsigned (&a)[kTiles][kFragmentRegisters],
                                                 const unsigned* table, int first_tile, int lane,
                                                 unsigned lanes_below) const {
#pragma unroll
    for (int u = 0; u < kTiles; ++u) {
      const int word = kFragmentRegisters * (first_tile + u);
      const uint4 mask = *reinterpret_cast<const uint4*>(table + word);
      const uint4 start = *reinterpret_cast<const uint4*>(table + kSegmentMaskWords + word);
      const unsigned masks[kFragmentRegisters] = {mask.x, mask.y, mask.z, mask.w};
      const unsigned starts[kFragmentRegisters] = {start.x, start.y, start.z, start.w};
#pragma unroll
      for (int p = 0; p < kFragmentRegisters; ++p)
        a[u][p] = (masks[p] >> lane) & 1u
                      ? __ldg(run + starts[p] + __popc(masks[p] & lanes_below))
                      : 0u;
    }
  }
};

/// Shared memory of the warps' tables (SegmentRun::fill_table).
inline constexpr std::int64_t kTilesTableBytes =
    std::int64_t{kTilesWarpsPerBlock} * 2 * kSegmentMaskWords * sizeof(unsigned);

/// Step 3 for one tile whose fragment is loaded: its B fragments from the stage, its MMAs.
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

/// Tiles whose fragments a lane loads at once (16 registers; the next group's in flight during
/// this group's MMAs). Measured against 2 (H200, run 125): the same within 6 %.
inline constexpr int kTilesPerLoad = 4;
/// Blocks an SM the registers are budgeted for: 3 at up to 16 columns (80 registers a thread,
/// a few spilled), 2 wider (128: 32 accumulators a lane at 64 columns). At up to 16 columns 3
/// ran 1.18-1.21x faster than 2 (H200, LLM weights at 70 and 90 %, run 124).
template <int kNTiles>
inline constexpr int kTilesBlocksPerSm = kNTiles <= 2 ? 3 : 2;

/// V: __half or __nv_bfloat16; Out: V or float; kNTiles: n-tiles of 8 a slice (1, 2, 4, 8);
/// kRowMajor: B and C row-major. Dynamic shared memory: 2 x TilesShape::stage_bytes (B's
/// segment s + 1 is staged while segment s multiplies) + kTilesTableBytes.
template <typename V, typename Out, int kNTiles, bool kRowMajor>
__global__ void __launch_bounds__(kTilesThreadsPerBlock, kTilesBlocksPerSm<kNTiles>)
    tca_tiles_kernel(const TilesArguments<Out> args) {
  extern __shared__ __align__(16) std::uint16_t stages[];  // then the warps' tables
  constexpr int kSliceColumns = 8 * kNTiles;
  constexpr int kLoads = kTilesSegmentTiles / kTilesPerLoad;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const unsigned lanes_below = (1u << lane) - 1u;
  const std::int64_t chunk = blockIdx.x % args.chunks;
  const std::int64_t row_block = (blockIdx.x / args.chunks) * kTilesWarpsPerBlock + warp;
  const std::int64_t slice = blockIdx.y;
  const std::int64_t n0 = slice * kSliceColumns;
  const std::int64_t first_segment = chunk * args.chunk_segments;
  const std::int64_t end_segment = first_segment + args.chunk_segments < args.segments
                                       ? first_segment + args.chunk_segments
                                       : args.segments;
  const std::int64_t stride = stage_stride(kRowMajor ? kSliceColumns : kTilesSegmentColumns);
  const bool has_row_block = row_block < args.row_blocks;  // warp-uniform
  unsigned* table = reinterpret_cast<unsigned*>(stages + 2 * args.stage_elements) +
                    warp * 2 * kSegmentMaskWords;
  const auto stage_of = [&](std::int64_t segment) {
    return stages + ((segment - first_segment) % 2) * args.stage_elements;
  };
  if (first_segment < end_segment)  // in flight while the first run's masks and pairs load
    stage_b<kSliceColumns, kRowMajor>(stage_of(first_segment), args,
                                      first_segment * kTilesSegmentColumns, n0, stride);

  // Where a segment's run begins: lane l holds that of segment window + l (a window of 32
  // segments; the next window is loaded when the warp reaches its last segment).
  const std::int32_t* word_begin =
      args.segment_word_begin + (has_row_block ? row_block * args.segments : 0);
  std::int64_t window = first_segment;
  const auto load_begins = [&] {
    return has_row_block && window + lane <= end_segment ? __ldg(word_begin + window + lane) : 0;
  };
  int begins = load_begins();
  const auto load_run = [&](std::int64_t segment, SegmentRun& run) {
    if (segment - window >= 31) {  // its end is in the next window
      window += 31;
      begins = load_begins();
    }
    const int at = static_cast<int>(segment - window);
    run.load(args.words, __shfl_sync(0xffffffffu, begins, at),
             __shfl_sync(0xffffffffu, begins, at + 1), lane);
  };

  float acc[kNTiles][arch::kM16n8k8AccumulatorsPerLane] = {};
  SegmentRun run;
  if (first_segment < end_segment) load_run(first_segment, run);
  // Block-uniform segment loop (every warp reaches the barrier; the chunk is the block's).
  for (std::int64_t segment = first_segment; segment < end_segment; ++segment) {
    run.fill_table(table, lane);  // the previous segment's reads of it are done (in order)
    unsigned a[2][kTilesPerLoad][kFragmentRegisters];
    if (!run.empty) run.load_fragments(a[0], table, 0, lane, lanes_below);
    arch::async_copy_wait_all();  // this thread's pieces of the segment's stage
    __syncthreads();  // every piece is in, and every warp is done with the other stage
    if (segment + 1 < end_segment)
      stage_b<kSliceColumns, kRowMajor>(stage_of(segment + 1), args,
                                        (segment + 1) * kTilesSegmentColumns, n0, stride);
    const SegmentRun current = run;
    if (segment + 1 < end_segment) load_run(segment + 1, run);  // the next segment's masks
    if (current.empty) continue;
    const std::uint16_t* stage = stage_of(segment);
#pragma unroll
    for (int load = 0; load < kLoads; ++load) {
      if (load + 1 < kLoads)
        current.load_fragments(a[(load + 1) % 2], table, kTilesPerLoad * (load + 1), lane,
                               lanes_below);
#pragma unroll
      for (int u = 0; u < kTilesPerLoad; ++u) {
        const std::int64_t k = std::int64_t{kTileColumns} * (kTilesPerLoad * load + u);
        multiply_tile<V, kNTiles, kRowMajor>(acc, a[load % 2][u], stage, k, stride, lane);
      }
    }
  }
  if (!has_row_block) return;

  if (args.chunks > 1) {  // step 4, split-K: the last warp of (rb, slice) sums the chunks
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
