// tca kernel=tiles (tca_tiles_format.hpp): A as the m16n8k16 fragments' non-empty register
// pairs, by segments of 16 tiles, loaded by each lane straight into its fragment registers and
// multiplied as dense m16n8k16 tiles. Included by tca.cu only.
//
// Grid: x = row group (8 row blocks) x chunk, y = slice of kSliceColumns columns of B and C.
// Shared memory: [B stage 0 | B stage 1 | 8 warps' tables | 8 warps x 2 run stages].
//
//   for each segment (256 columns of A, rows of B) of the block's chunk:
//   1. the block stages B[segment's k][slice's columns] in one of two stages by cp.async:
//        row-major B:    stage[k][j]  (row stride tiles_stage_stride(slice columns))
//        column-major B: stage[j][k]  (row stride tiles_stage_stride(256))
//   2. warp w (row block rb = 8 x group + w) stages its run in one of its two run stages by
//      cp.async in the same group: the whole run where it is shorter than the stage and the slice
//      is at most 16 columns wide, else its 64 mask words only. Steps 1 and 2 run kAhead
//      segments before the segment's MMAs (2 at up to 16 columns: a decode chunk of 2 segments
//      has every copy in flight from the start; else 1). Then the warp scans the mask words' pair
//      counts into its table: each word's first pair as a byte offset (into shared memory for a
//      staged run, into the run in global memory otherwise);
//   3. 4 tiles at a time (the next 4 tiles' loads in flight during these MMAs): lane l's register
//      p of tile t is the word at table(4 t + p) + 4 popc(mask & lanes below l) where its mask
//      bit is set, else 0; ldmatrix (.trans for row-major B) gives the B fragments of the tile's
//      16 rows of k, one m16n8k16 an n-tile of 8 columns into fp32 accumulators (4 a lane an
//      n-tile)
//   4. one chunk: C = alpha acc + beta C. Several chunks (split-K), summed in chunk order
//      (bitwise-repeatable) either way:
//      - global: each warp writes its accumulators to partials[rb][slice][chunk] in fragment
//        order (a float4 a lane an n-tile), and the warp that arrives last at its (rb, slice)
//        counter sums the chunks and writes C, then re-arms the counter for the next apply;
//      - cluster (sm_90): the chunks of a row group are one cluster (block rank = chunk). Each
//        warp writes its accumulators into its block's B stages, the cluster syncs, and warp w of
//        block w % chunks reads row block w's partials from every block's shared memory, sums
//        them and writes C; a second cluster sync keeps every block's shared memory alive until
//        then. No global round trips (at n = 16 the fence and the ticket took ~14 % of the warps'
//        stall samples, H200, run 215), but every block waits for the cluster's slowest twice:
//        split_k=auto takes it for 2 chunks only (tca_parameters.hpp).
//
// Launched as a programmatic dependent launch (sm_90, parameter dependent_launch): a block copies
// its first segment's run (the plan's own data), and fetches its second's into the L2, before it
// waits for the grids ahead on the stream (griddepcontrol.wait), and B, C and the split-K scratch
// only after; once its segment loop is done it lets the next grid launch
// (griddepcontrol.launch_dependents).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "arch/async_copy.cuh"
#include "arch/cluster.cuh"
#include "arch/dependent_launch.cuh"
#include "arch/load.cuh"
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
  int run_stage_words = 0;  ///< words of a run a warp stages (a multiple of 4, at least 64)
  bool vector_b = false;            ///< B's staged rows may be read as aligned 16-byte pieces
  /// split-K in clusters of `chunks` blocks (launched so; sm_90), else through `partials`
  bool cluster_reduce = false;
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

/// Steps 2 and 3: a warp's view of one (row block, segment) run [run, run + words), words 0 when
/// the segment has no nonzeros (warp-uniform). A run shorter than the warp's stage is staged in
/// shared memory whole; of a longer one only the mask words are, and its pairs are read from
/// global memory.
struct SegmentRun {
  using Word = unsigned;
  const Word* run = nullptr;
  int words = 0;

  /// Bytes of `count` words of a run.
  __device__ __forceinline__ static int bytes_of(int count) {
    return static_cast<int>(sizeof(Word)) * count;
  }
  /// Whether the run is staged whole in a stage of stage_words words (strictly shorter: a lane
  /// whose mask bit is clear may read one word past the run, see load_fragments).
  __device__ __forceinline__ bool staged_whole(int stage_words) const {
    return words < stage_words;
  }
  /// Step 2, issued kAhead segments ahead: the run (or its mask words) into `stage` by cp.async,
  /// joining each lane's open group.
  __device__ __forceinline__ void copy_to_stage(unsigned* stage, int stage_words, int lane) const {
    const int copied = staged_whole(stage_words) ? words : min(words, kSegmentMaskWords);
    arch::async_copy_bytes(stage, run, bytes_of(copied), lane, 32);
  }
  /// Step 2: the warp's table in shared memory: for each mask word, the byte offset of its first
  /// pair, from `base` (a warp scan of the words' counts; the mask words themselves are the
  /// staged run's first kSegmentMaskWords words), read by every lane as 16-byte broadcasts. base:
  /// the staged run's offset in the block's shared memory when it is staged whole, else 0 (the
  /// offsets are then from the run in global memory).
  __device__ __forceinline__ void fill_table(unsigned* table, const unsigned* staged,
                                             unsigned base, int lane) const {
    const uint2 masks = reinterpret_cast<const uint2*>(staged)[lane];
    const int first = __popc(masks.x), count = first + __popc(masks.y);
    int inclusive = count;
#pragma unroll
    for (int offset = 1; offset < 32; offset *= 2) {
      const int below = __shfl_up_sync(0xffffffffu, inclusive, offset);
      if (lane >= offset) inclusive += below;
    }
    const unsigned start = base + 4u * static_cast<unsigned>(kSegmentMaskWords + inclusive - count);
    __syncwarp();  // every lane is done reading the previous segment's table
    reinterpret_cast<uint2*>(table)[lane] = make_uint2(start, start + 4u * first);
    __syncwarp();
  }
  /// Step 3: the A fragments of tiles first_tile .. + kTiles (0 where a pair is empty), from the
  /// staged run (kFromStage: `shared` is the block's shared memory) or from global memory. From
  /// the stage every lane loads, without a branch: a lane whose bit is clear reads the word of the
  /// next lane with its bit set (or the word after the register's pairs, inside the stage: the
  /// run is shorter than it) and keeps 0.
  template <bool kFromStage, int kTiles>
  __device__ __forceinline__ void load_fragments(unsigned (&a)[kTiles][kFragmentRegisters],
                                                 const unsigned* staged, const unsigned* table,
                                                 const char* shared, int first_tile, int lane,
                                                 unsigned lanes_below) const {
    const char* source = kFromStage ? shared : reinterpret_cast<const char*>(run);
#pragma unroll
    for (int u = 0; u < kTiles; ++u) {
      const int word = kFragmentRegisters * (first_tile + u);
      const uint4 mask = *reinterpret_cast<const uint4*>(staged + word);
      const uint4 start = *reinterpret_cast<const uint4*>(table + word);
      const unsigned masks[kFragmentRegisters] = {mask.x, mask.y, mask.z, mask.w};
      const unsigned starts[kFragmentRegisters] = {start.x, start.y, start.z, start.w};
#pragma unroll
      for (int p = 0; p < kFragmentRegisters; ++p) {
        const auto* at = reinterpret_cast<const unsigned*>(
            source + starts[p] + 4u * static_cast<unsigned>(__popc(masks[p] & lanes_below)));
        const bool stored = (masks[p] >> lane) & 1u;
        if constexpr (kFromStage) a[u][p] = stored ? *at : 0u;  // load, then select
        else a[u][p] = stored ? __ldg(at) : 0u;                  // a predicated load
      }
    }
  }
};

/// Shared memory of the warps' tables (SegmentRun::fill_table).
inline constexpr std::int64_t kTilesTableBytes =
    std::int64_t{kTilesWarpsPerBlock} * kSegmentMaskWords * sizeof(unsigned);

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

/// Tiles whose fragments a lane loads at once (16 registers; the next group's in flight during
/// this group's MMAs): 4, measured against 2 with runs staged (H200, run 132, 2 blocks an SM):
/// the same within 2 % at n = 8 to 64; 2 at 64 columns, where 4 spill (32 accumulators a lane).
template <int kNTiles>
inline constexpr int kTilesPerLoad = kNTiles >= 8 ? 2 : 4;

/// Step 3 for one segment: its 16 tiles' fragments kTilesPerLoad tiles at a time (the next
/// group's loads in flight during this group's MMAs), each multiplied by B's stage.
template <typename V, int kNTiles, bool kRowMajor, bool kFromStage>
__device__ __forceinline__ void multiply_segment(
    float (&acc)[kNTiles][arch::kM16n8k8AccumulatorsPerLane], const SegmentRun& run,
    const unsigned* staged, const unsigned* table, const char* shared,
    const std::uint16_t* stage, std::int64_t stride, int lane) {
  constexpr int kTiles = kTilesPerLoad<kNTiles>;
  constexpr int kLoads = kTilesSegmentTiles / kTiles;
  const unsigned lanes_below = (1u << lane) - 1u;
  unsigned a[2][kTiles][kFragmentRegisters];
  run.load_fragments<kFromStage>(a[0], staged, table, shared, 0, lane, lanes_below);
#pragma unroll
  for (int load = 0; load < kLoads; ++load) {
    if (load + 1 < kLoads)
      run.load_fragments<kFromStage>(a[(load + 1) % 2], staged, table, shared,
                                     kTiles * (load + 1), lane, lanes_below);
#pragma unroll
    for (int u = 0; u < kTiles; ++u) {
      const std::int64_t k = std::int64_t{kTileColumns} * (kTiles * load + u);
      multiply_tile<V, kNTiles, kRowMajor>(acc, a[load % 2][u], stage, k, stride, lane);
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

/// Whether the kernel stages whole runs in shared memory (else only their mask words): at up to
/// 16 columns, where the MMAs are few and the loads of the pairs bound a warp. Wider, B's stages
/// leave room for short runs only, and staging them ran no faster (H200, run 131: prefill within
/// 1 % at 95 % sparsity) while the second path cost registers (12 % slower at 70 %).
__host__ __device__ constexpr bool tiles_stages_whole_runs(int n_tiles) { return n_tiles <= 2; }
template <int kNTiles>
inline constexpr bool kTilesStagesWholeRuns = tiles_stages_whole_runs(kNTiles);
/// Segments whose B and runs are staged ahead of the MMAs: 2 where whole runs are staged (a
/// decode chunk of 2 segments has all its copies in flight from the start; a second barrier a
/// segment), else 1 (one barrier a segment: B's stages are large and the warps many).
template <int kNTiles>
inline constexpr int kTilesSegmentsAhead = kTilesStagesWholeRuns<kNTiles> ? 2 : 1;

/// acc = the sum over chunks 0 .. chunks - 1, in chunk order, of partial(c, i) (a lane's float4
/// of n-tile i of chunk c): kChunksInFlight chunks' loads issued together, then added in order,
/// so that every split-K path adds the same numbers in the same order.
template <int kNTiles, typename Partial>
__device__ __forceinline__ void sum_chunks_in_order(
    float (&acc)[kNTiles][arch::kM16n8k8AccumulatorsPerLane], std::int64_t chunks,
    const Partial& partial) {
#pragma unroll
  for (int i = 0; i < kNTiles; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
  constexpr int kChunksInFlight = kNTiles <= 2 ? 8 : 16 / kNTiles;
  for (std::int64_t c0 = 0; c0 < chunks; c0 += kChunksInFlight) {
    float4 p[kChunksInFlight][kNTiles];
#pragma unroll
    for (int c = 0; c < kChunksInFlight; ++c)
#pragma unroll
      for (int i = 0; i < kNTiles; ++i)
        p[c][i] = c0 + c < chunks ? partial(c0 + c, i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int c = 0; c < kChunksInFlight; ++c)
#pragma unroll
      for (int i = 0; i < kNTiles; ++i) {
        if (c0 + c >= chunks) break;
        acc[i][0] += p[c][i].x;
        acc[i][1] += p[c][i].y;
        acc[i][2] += p[c][i].z;
        acc[i][3] += p[c][i].w;
      }
  }
}

/// Step 4 in a cluster of `chunks` blocks (block rank = chunk; every warp of every block calls
/// it): the warps' accumulators into `partials` (the block's B stages, free once the segment loop
/// is done: 8 warps x kNTiles x 32 lanes x 16 bytes, at most one stage), then warp w of block
/// w % chunks sums row block w's partials of every block in chunk order and writes C through
/// `write_tile_c`.
template <int kNTiles, typename WriteC>
__device__ __forceinline__ void reduce_chunks_in_cluster(
    float (&acc)[kNTiles][arch::kM16n8k8AccumulatorsPerLane], float4* partials,
    std::int64_t chunks, bool has_row_block, int warp, int lane, const WriteC& write_tile_c) {
  float4* const own = partials + warp * kNTiles * 32;
  __syncthreads();  // every warp is done reading B's stages
#pragma unroll
  for (int i = 0; i < kNTiles; ++i)
    own[i * 32 + lane] = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
  arch::cluster_sync();
  if (has_row_block && warp % chunks == arch::cluster_block_rank()) {
    sum_chunks_in_order<kNTiles>(acc, chunks, [&](std::int64_t c, int i) {
      return arch::cluster_shared(own, static_cast<unsigned>(c))[i * 32 + lane];
    });
    write_tile_c();
  }
  arch::cluster_sync();  // no block leaves while another reads its shared memory
}

/// V: __half or __nv_bfloat16; Out: V or float; kNTiles: n-tiles of 8 a slice (1, 2, 4, 8);
/// kRowMajor: B and C row-major. Dynamic shared memory: 2 x TilesShape::stage_bytes (B's
/// segments s and s + 1), kTilesTableBytes, then each warp's 2 x run_stage_words words.
template <typename V, typename Out, int kNTiles, bool kRowMajor>
__global__ void __launch_bounds__(kTilesThreadsPerBlock, tca::kTilesBlocksPerSm)
    tca_tiles_kernel(const TilesArguments<Out> args) {
  extern __shared__ __align__(16) std::uint16_t stages[];  // then the tables, then the runs
  constexpr int kSliceColumns = 8 * kNTiles;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const auto chunks = static_cast<unsigned>(args.chunks);  // 32-bit division: a grid's x fits
  const std::int64_t chunk = blockIdx.x % chunks;
  const std::int64_t row_block = std::int64_t{blockIdx.x / chunks} * kTilesWarpsPerBlock + warp;
  const std::int64_t slice = blockIdx.y;
  const std::int64_t n0 = slice * kSliceColumns;
  const std::int64_t first_segment = chunk * args.chunk_segments;
  const std::int64_t end_segment = first_segment + args.chunk_segments < args.segments
                                       ? first_segment + args.chunk_segments
                                       : args.segments;
  const std::int64_t stride = stage_stride(kRowMajor ? kSliceColumns : kTilesSegmentColumns);
  const bool has_row_block = row_block < args.row_blocks;  // warp-uniform
  unsigned* const tables = reinterpret_cast<unsigned*>(stages + 2 * args.stage_elements);
  unsigned* const table = tables + warp * kSegmentMaskWords;
  unsigned* const run_stages = tables + kTilesWarpsPerBlock * kSegmentMaskWords +
                               warp * 2 * args.run_stage_words;
  const auto stage_of = [&](std::int64_t segment) {
    return stages + ((segment - first_segment) % 2) * args.stage_elements;
  };
  const auto run_stage_of = [&](std::int64_t segment) {
    return run_stages + ((segment - first_segment) % 2) * args.run_stage_words;
  };

  // Where a segment's run begins: lane l holds that of segment window + l (a window of 32
  // segments; the next window is loaded when the warp reaches its last segment). No row block:
  // every run is empty.
  const std::int32_t* word_begin =
      args.segment_word_begin + (has_row_block ? row_block * args.segments : 0);
  std::int64_t window = first_segment;
  const auto load_begins = [&] {
    return has_row_block && window + lane <= end_segment ? __ldg(word_begin + window + lane) : 0;
  };
  int begins = load_begins();
  // The warp's run of `segment` (segments are asked for in order).
  const auto run_of = [&](std::int64_t segment) {
    if (segment - window >= 31) {  // its end is in the next window
      window += 31;
      begins = load_begins();
    }
    const int at = static_cast<int>(segment - window);
    const int begin = __shfl_sync(0xffffffffu, begins, at);
    return SegmentRun{args.words + begin, __shfl_sync(0xffffffffu, begins, at + 1) - begin};
  };
  // Step 2 of `segment`, whose run is `run`: the run into the warp's run stage.
  const auto stage_run = [&](std::int64_t segment, const SegmentRun& run) {
    run.copy_to_stage(run_stage_of(segment), args.run_stage_words, lane);
    return run;
  };
  // Step 1 of `segment`: B's stage.
  const auto stage_b_of = [&](std::int64_t segment) {
    stage_b<kSliceColumns, kRowMajor>(stage_of(segment), args, segment * kTilesSegmentColumns, n0,
                                      stride);
  };
  // Steps 1 and 2 of `segment`, whose run is `run`, as one cp.async group of each thread.
  const auto stage_segment_with = [&](std::int64_t segment, const SegmentRun& run) {
    stage_b_of(segment);
    stage_run(segment, run);
    arch::async_copy_commit();
    return run;
  };
  const auto stage_segment = [&](std::int64_t segment) {
    return stage_segment_with(segment, run_of(segment));
  };

  float acc[kNTiles][arch::kM16n8k8AccumulatorsPerLane] = {};
  // Block-uniform segment loop (every warp reaches the barriers; the chunk is the block's),
  // kAhead segments staged ahead of the MMAs, one cp.async group a segment (B's stage and the
  // run). The runs are the plan's own (written when the plan was built), so in a dependent launch
  // the first segment's run is copied, and the second's fetched into the L2, before the grids
  // ahead on the stream have finished; B, C and the split-K scratch may be those grids', so
  // everything else waits for them (a no-op in a plain launch). The second run is not copied
  // before the wait: it would join the first group, which the first segment waits for whole
  // (1.02x slower at 70 % sparsity and n = 16, 11008 x 4096 1.03x; 1.01x faster at 90 %; H200,
  // run 223).
  constexpr int kAhead = kTilesSegmentsAhead<kNTiles>;
  const bool has_first = first_segment < end_segment;
  const bool has_second = kAhead == 2 && first_segment + 1 < end_segment;
  SegmentRun current, next;
  if (has_first) current = stage_run(first_segment, run_of(first_segment));
  if (has_second) {
    next = run_of(first_segment + 1);
    arch::prefetch_to_l2(next.run, SegmentRun::bytes_of(next.words), lane, 32);
  }
  arch::wait_for_prior_grids();
  if (has_first) {
    stage_b_of(first_segment);
    arch::async_copy_commit();
  }
  if (has_second) stage_segment_with(first_segment + 1, next);
  for (std::int64_t segment = first_segment; segment < end_segment; ++segment) {
    if (kAhead == 2 && segment + 1 < end_segment) arch::async_copy_wait<1>();  // not the next's
    else arch::async_copy_wait<0>();
    __syncthreads();  // every thread's pieces of this segment's B and runs are in, and (kAhead
                      // 1) every warp is done with the previous segment's stages
    if (kAhead == 1 && segment + 1 < end_segment) next = stage_segment(segment + 1);
    if (current.words > 0) {
      const unsigned* staged = run_stage_of(segment);
      const char* shared = reinterpret_cast<const char*>(stages);
      if (kTilesStagesWholeRuns<kNTiles> && current.staged_whole(args.run_stage_words)) {
        current.fill_table(table, staged,
                           static_cast<unsigned>(reinterpret_cast<const char*>(staged) - shared),
                           lane);
        multiply_segment<V, kNTiles, kRowMajor, kTilesStagesWholeRuns<kNTiles>>(
            acc, current, staged, table, shared, stage_of(segment), stride, lane);
      } else {
        current.fill_table(table, staged, 0u, lane);
        multiply_segment<V, kNTiles, kRowMajor, false>(acc, current, staged, table, shared,
                                                       stage_of(segment), stride, lane);
      }
    }
    current = next;
    if (kAhead == 2 && segment + 2 < end_segment) {
      __syncthreads();  // every warp is done with this segment's stages, which segment + 2 takes
      next = stage_segment(segment + 2);
    }
  }
  arch::allow_dependent_grids();  // the next grid may start its blocks' first runs' copies
  const auto write_tile_c = [&] {
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
  };
  if (args.cluster_reduce) {  // step 4, split-K in the cluster (block-uniform: every warp syncs)
    reduce_chunks_in_cluster<kNTiles>(acc, reinterpret_cast<float4*>(stages), args.chunks,
                                      has_row_block, warp, lane, write_tile_c);
    return;
  }
  if (!has_row_block) return;

  if (args.chunks > 1) {  // step 4, split-K through global memory: the last warp sums the chunks
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
    sum_chunks_in_order<kNTiles>(acc, args.chunks, [&](std::int64_t c, int i) {
      return __ldcg(partials + (c * kNTiles + i) * 32 + lane);
    });
    if (lane == 0) args.arrivals[group] = 0;  // re-armed for the next apply
  }
  write_tile_c();
}

}  // namespace tcsparse::tca::device
