// tca kernel=gather (tca_gather_format.hpp): B's rows staged in shared memory, the nonzeros of
// 8-row windows multiplied by m16n8k16 in the transposed product (B's gathered rows the A operand,
// the window's values a diagonal of pairs), those rows of B gathered by ldmatrix. Included by
// tca.cu only.
//
// Grid: x = block of the range (its chunk of A's columns; the range's blocks are one cluster
// when they are summed in clusters), y = range of rows, z = slice of kSliceColumns columns of B
// and C. Shared memory:
//
//   [ B stage: chunk_columns rows x kSliceColumns (128-byte lines swizzled; 1024-byte aligned) |
//     ring: 16 warps x kGatherStages x kGatherStageGroups groups |
//     output: range_rows x kSliceColumns fp32 | mbarrier of B's tensor copies ]
//
//   1. each warp starts copying the first kGatherStages - 1 stages of its run of groups (an even
//      share of the block's, contiguous; whole stages, the groups array ends with one of zeros)
//      by cp.async and loads its first two windows' ends and rows; the block zeroes the output
//      rows and stages B[its rows][slice] (after griddepcontrol.wait: B belongs to the caller),
//      by tensor copies of up to 256 lines of 128 bytes (thread 0) or by every thread's
//      cp.async (column-major B: tensor copies of B^T, each box then rewritten in place as rows
//      of B by ldmatrix.trans, or the threads' loads transposed in registers), and waits for
//      both;
//   2. each warp, quad after quad (the next quad's offsets and values loaded while one
//      multiplies, a quad's ldmatrix issued before its MMAs, the next stages' copies in
//      flight), group after group:
//        lane i: the address of B's row for slot i % 8 + 8 (i / 16), unit (i / 8) % 2 of an
//        m-tile: the group's offset ^ that unit; ldmatrix.x4.trans -> G (16 columns x 16 slots;
//        x2 and 8 columns at a slice of 8)
//        V fragment: lane 4r + r % 4 holds row r's two values (slots 2r, 2r + 1), zeros elsewhere
//        D[m-tile] += G * V  (D: 16 columns x 8 rows, fp32, 4 a lane); consecutive groups take
//        gather_accumulator_sets accumulator sets in turn
//      at a window's end the sets are summed and D is stored to the window's output rows; where
//      the run ends inside a window, D is kept in the warp's ring instead (its carry), and once
//      every warp is done the carries are added to their rows in warp order (a window's sum
//      keeps one order: its last warp's part, then the earlier warps' from first to last);
//   3. the output rows become C = alpha sum + beta C, the blocks of a range summed in order:
//      with one block a range from the block's own, with a cluster's the block of rank r sums its
//      share of the rows over the cluster's blocks (distributed shared memory), else they go to
//      partials in global memory, which tca_gather_sum_kernel sums.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include <cuda.h>

#include "arch/async_copy.cuh"
#include "arch/cluster.cuh"
#include "arch/dependent_launch.cuh"
#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "tca/tca_gather_format.hpp"
#include "tca/tca_output.cuh"

namespace tcsparse::tca::device {

inline constexpr int kGatherThreadsPerBlock = kGatherWarpsPerBlock * 32;

/// How a gather block's output rows reach C.
enum class GatherSum : int {
  own,      ///< one block a range: the block writes C
  cluster,  ///< the range's blocks are one cluster (sm_90): summed through distributed shared memory
  global,   ///< partials in global memory, summed by tca_gather_sum_kernel
};

template <typename Out>
struct GatherArguments {
  const std::uint32_t* warp_group_begin = nullptr;
  const std::uint32_t* warp_first_window = nullptr;
  const std::uint32_t* window_group_begin = nullptr;
  const std::uint16_t* window_rows = nullptr;
  const uint4* groups = nullptr;  ///< in quads of kGatherQuadBytes (tca_gather_format.hpp)
  const std::uint16_t* B = nullptr;
  Out* C = nullptr;
  float* partials = nullptr;  ///< GatherSum::global only
  std::int64_t rows = 0, cols = 0, n = 0;
  std::int64_t chunk_columns = 0;  ///< rows of B a block stages
  std::int64_t windows = 0;        ///< of the layout
  int range_rows = 0;
  std::int64_t ranges = 0;
  /// B's rows (row-major) or columns (column-major) may be read as aligned 16-byte pieces
  bool vector_b = false;
  GatherSum sum = GatherSum::own;
  float alpha = 1.0f, beta = 0.0f;
  /// B staged by tensor copies of b_map (B's slice as lines of 128 bytes: its rows where they are
  /// 128 bytes, else B itself, whose rows are then the slice's, cut into lines; boxes of 64
  /// elements x box_lines, 128-byte swizzle: gather_row_offset): `boxes` boxes a stage, the last
  /// one ending at the chunk's end; else by cp.async.
  bool stage_by_tensor = false;
  int box_lines = 0, boxes = 0;
  /// column-major B whose rows are whole boxes: b_map is B^T in groups of kGatherTransposeRows
  /// columns (arch::encode_column_groups_16bit), a stage's `boxes` boxes in one copy; else b_map
  /// is B^T as it is, a copy a box
  bool boxes_in_one_copy = false;
  CUtensorMap b_map{};
};

/// Stages B[chunk rows][slice columns] as rows of kSliceColumns 16-bit elements (zeros past B's
/// columns; rows past its end are not staged and never read).
template <int kSliceColumns, bool kRowMajor, typename Out>
__device__ __forceinline__ void gather_stage_b(std::uint16_t* stage, const GatherArguments<Out>& a,
                                               std::int64_t first_row, int valid_rows,
                                               std::int64_t first_column) {
  constexpr int kUnits = kSliceColumns / 8, kRowBytes = kSliceColumns * 2;
  const int thread = static_cast<int>(threadIdx.x);
  const int valid_columns = static_cast<int>(
      a.n - first_column < kSliceColumns ? a.n - first_column : kSliceColumns);
  if (kRowMajor && a.vector_b && valid_columns == kSliceColumns) {
    for (int i = thread; i < valid_rows * kUnits; i += kGatherThreadsPerBlock) {
      const int r = i / kUnits, h = i % kUnits;
      arch::async_copy<16, arch::AsyncCopyCache::l2_only>(
          stage + (gather_row_offset(r, kRowBytes) ^ (16u * h)) / 2,
          a.B + (first_row + r) * a.n + first_column + h * 8);
    }
    return;
  }
  if (!kRowMajor && a.vector_b) {
    // column-major B whose columns start 16-byte aligned (its rows a multiple of 8, as are
    // first_row and valid_rows), transposed 8 x 8 at a time in registers: a warp takes 32 rows
    // x 8 columns of the stage, lane 4c + q loading rows 8q .. 8q + 7 of column c (16 bytes:
    // the warp reads two whole sectors of each column). Its register m then holds row c,
    // elements 2q and 2q + 1 of the 8 x 8 matrix M_m[c][2q + e] = B[8q + 2m + e][c], so after
    // arch::transpose_matrix lane 4j + p holds B[8(j / 2) + 2m + j % 2][2p, 2p + 1]: one 4-byte
    // store into that staged row. kPieces pieces a lane are loaded before any is stored (one
    // round trip to the L2 for them all). (A thread a column's 8 rows stored element by element
    // took 12 us of a 19 us product at 16 columns and 4096 rows of B, H200, run 348; this, n = 16
    // at 90 % 1.12x dense cuBLAS against 1.05x, run 349.)
    constexpr int kPieces = 8, kPieceRows = 32, kPieceColumns = 8;
    const int warp = thread / 32, lane = thread % 32;
    const int column_pieces = kSliceColumns / kPieceColumns;
    const int pieces = (valid_rows + kPieceRows - 1) / kPieceRows * column_pieces;
    auto* stage_bytes = reinterpret_cast<unsigned char*>(stage);
    for (int first_piece = warp; first_piece < pieces;
         first_piece += kPieces * kGatherWarpsPerBlock) {
      uint4 loaded[kPieces];
#pragma unroll
      for (int p = 0; p < kPieces; ++p) {
        const int piece = first_piece + p * kGatherWarpsPerBlock;
        const int c = piece % column_pieces * kPieceColumns + lane / 4;
        const int row = piece / column_pieces * kPieceRows + 8 * (lane % 4);
        loaded[p] = uint4{0u, 0u, 0u, 0u};  // (zeros past B's columns)
        if (piece < pieces && c < valid_columns && row < valid_rows)
          loaded[p] = *reinterpret_cast<const uint4*>(a.B + (first_column + c) * a.cols +
                                                      first_row + row);
      }
#pragma unroll
      for (int p = 0; p < kPieces; ++p) {
        const int piece = first_piece + p * kGatherWarpsPerBlock;
        if (piece >= pieces) break;
        const unsigned unit = 16u * (piece % column_pieces);  // of the staged row's columns
        const unsigned words[4] = {loaded[p].x, loaded[p].y, loaded[p].z, loaded[p].w};
        const int j = lane / 4;
#pragma unroll
        for (int m = 0; m < 4; ++m) {
          const unsigned transposed = arch::transpose_matrix(words[m]);
          const int row = piece / column_pieces * kPieceRows + 8 * (j / 2) + 2 * m + j % 2;
          if (row < valid_rows)
            *reinterpret_cast<unsigned*>(stage_bytes + (gather_row_offset(row, kRowBytes) ^ unit) +
                                         4 * (lane % 4)) = transposed;
        }
      }
    }
    return;
  }
  // any other layout or width: element by element, consecutive threads on B's contiguous index
  for (int i = thread; i < valid_rows * kSliceColumns; i += kGatherThreadsPerBlock) {
    const int r = kRowMajor ? i / kSliceColumns : i % valid_rows;
    const int c = kRowMajor ? i % kSliceColumns : i / valid_rows;
    std::uint16_t value = 0;
    if (c < valid_columns)
      value = kRowMajor ? a.B[(first_row + r) * a.n + first_column + c]
                        : a.B[(first_column + c) * a.cols + first_row + r];
    stage[(gather_row_offset(r, kRowBytes) ^ (16u * (c / 8))) / 2 + c % 8] = value;
  }
}

/// Starts staging B[chunk rows][slice columns] by tensor copies (GatherArguments::
/// stage_by_tensor), in lines of 128 bytes: `boxes` boxes of box_lines lines, box k from line
/// k x box_lines, the last from the chunk's end (so that no box passes it), all completing on
/// `barrier`. Thread 0 only.
template <int kSliceColumns, typename Out>
__device__ __forceinline__ void gather_issue_b_copies(std::uint16_t* stage, std::uint64_t* barrier,
                                                      const GatherArguments<Out>& a,
                                                      std::int64_t first_row,
                                                      std::int64_t first_column) {
  constexpr int kRowBytes = kSliceColumns * 2;
  arch::barrier_arrive_expect_bytes(
      barrier, static_cast<unsigned>(a.boxes * a.box_lines * kGatherLineBytes));
  const std::int64_t chunk_lines = a.chunk_columns * kRowBytes / kGatherLineBytes;
  const std::int64_t first_line = first_row * kRowBytes / kGatherLineBytes;
  for (int box = 0; box < a.boxes; ++box) {
    const std::int64_t line =
        box == a.boxes - 1 ? chunk_lines - a.box_lines : std::int64_t{box} * a.box_lines;
    arch::tensor_copy_to_shared(stage + line * kGatherLineBytes / 2, &a.b_map,
                                static_cast<int>(first_column), static_cast<int>(first_line + line),
                                barrier);
  }
}

/// Starts staging column-major B by tensor copies of its transpose (GatherArguments::
/// stage_by_tensor with column-major B): box r brings B^T[the slice's columns][first_row +
/// kGatherTransposeRows r, + kGatherTransposeRows) (rows of 128 bytes in the 128-byte swizzle:
/// unit u of row c at u ^ (c % 8); zeros past B) into the bytes of staged rows
/// kGatherTransposeRows r, + kGatherTransposeRows, all `boxes` completing on `barrier` (in one
/// copy where boxes_in_one_copy: run 352, 7-17 % faster at n = 8 on the large LLM weights);
/// gather_transpose_b then rewrites them as those rows of B. Thread 0 only.
template <int kSliceColumns, typename Out>
__device__ __forceinline__ void gather_issue_b_column_copies(std::uint16_t* stage,
                                                             std::uint64_t* barrier,
                                                             const GatherArguments<Out>& a,
                                                             std::int64_t first_row,
                                                             std::int64_t first_column) {
  constexpr int kRegionBytes = static_cast<int>(kGatherTransposeRows) * kSliceColumns * 2;
  arch::barrier_arrive_expect_bytes(barrier, static_cast<unsigned>(a.boxes * kRegionBytes));
  if (a.boxes_in_one_copy) {  // the box of groups first_row / kGatherTransposeRows, + boxes
    arch::tensor_copy_to_shared(stage, &a.b_map, 0, static_cast<int>(first_column),
                                static_cast<int>(first_row / kGatherTransposeRows), barrier);
    return;
  }
  for (int box = 0; box < a.boxes; ++box)
    arch::tensor_copy_to_shared(stage + box * kRegionBytes / 2, &a.b_map,
                                static_cast<int>(first_row + box * kGatherTransposeRows),
                                static_cast<int>(first_column), barrier);
}

/// Rewrites the `regions` regions that gather_issue_b_column_copies filled as staged rows of B
/// (gather_row_offset), a warp a region at a time, in place: every 8 x 8 tile of the region
/// (8 columns of B x 8 of its rows) loaded by ldmatrix.trans, which gives lane 4g + t row g of
/// the tile as B's rows, columns 2t and 2t + 1 (one 4-byte store), before any is stored.
template <int kSliceColumns>
__device__ __forceinline__ void gather_transpose_b(std::uint16_t* stage, int regions) {
  constexpr int kRowBlocks = static_cast<int>(kGatherTransposeRows) / 8;
  constexpr int kTiles = kSliceColumns / 8 * kRowBlocks;  // tile t: columns 8 (t / kRowBlocks)
  constexpr int kRowBytes = kSliceColumns * 2;            // rows 8 (t % kRowBlocks)
  static_assert(kTiles % 4 == 0, "ldmatrix.x4");
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  auto* bytes = reinterpret_cast<unsigned char*>(stage);
  for (int region = warp; region < regions; region += kGatherWarpsPerBlock) {
    unsigned char* base = bytes + region * kGatherTransposeRows * kRowBytes;
    unsigned tiles[kTiles];
#pragma unroll
    for (int t = 0; t < kTiles; t += 4) {  // lanes 8j .. 8j + 7: tile t + j's 8 columns of B
      const int tile = t + lane / 8, column = 8 * (tile / kRowBlocks) + lane % 8;
      unsigned four[4];
      arch::load_matrix_x4<true>(
          four, base + column * kGatherLineBytes + 16 * ((tile % kRowBlocks) ^ (column % 8)));
#pragma unroll
      for (int j = 0; j < 4; ++j) tiles[t + j] = four[j];
    }
    __syncwarp();  // the region read whole before it is rewritten
#pragma unroll
    for (int t = 0; t < kTiles; ++t) {  // (unsigned: gather_row_offset narrows to 32 bits)
      const unsigned row = region * static_cast<unsigned>(kGatherTransposeRows) +
                           8u * (t % kRowBlocks) + lane / 4u;
      *reinterpret_cast<unsigned*>(bytes +
                                   (gather_row_offset(row, kRowBytes) ^ (16u * (t / kRowBlocks))) +
                                   4 * (lane % 4)) = tiles[t];
    }
  }
}

template <typename V, typename Out, int kSliceColumns, bool kRowMajor>
__global__ void __launch_bounds__(kGatherThreadsPerBlock, 1)
    tca_gather_kernel(const __grid_constant__ GatherArguments<Out> a) {
  constexpr int kStageUnits = kGatherStageGroups * kGatherGroupBytes / 16;
  extern __shared__ __align__(1024) uint4 shared_words[];
  auto* b_stage = reinterpret_cast<std::uint16_t*>(shared_words);
  const int block_of_range = static_cast<int>(blockIdx.x), range_blocks = static_cast<int>(gridDim.x);
  const std::int64_t range = blockIdx.y, slice = blockIdx.z;
  uint4* ring = shared_words + a.chunk_columns * kSliceColumns / 8;
  auto* output = reinterpret_cast<float*>(ring + kGatherWarpsPerBlock * kGatherStages * kStageUnits);
  auto* b_barrier = reinterpret_cast<std::uint64_t*>(output + a.range_rows * kSliceColumns);
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  uint4* warp_ring = ring + warp * kGatherStages * kStageUnits;
  if (a.stage_by_tensor) {
    if (threadIdx.x == 0) {
      if (arch::shared_address(b_stage) % 1024 != 0) __trap();  // the swizzle's period
      arch::barrier_init(b_barrier, 1);
    }
    __syncthreads();  // before anyone waits on it
  }

  // 1. the first stages of this warp's run of groups, then B
  const std::int64_t block_warp =
      (range * range_blocks + block_of_range) * kGatherWarpsPerBlock + warp;
  const std::uint32_t first_group = a.warp_group_begin[block_warp];
  const std::uint32_t end_group = a.warp_group_begin[block_warp + 1];
  const int stages = static_cast<int>((end_group - first_group + kGatherStageGroups - 1) /
                                      kGatherStageGroups);
  const uint4* source = a.groups + std::int64_t{first_group} * (kGatherGroupBytes / 16) + lane;
  const auto copy_stage = [&](int s) {
    if (s < stages) {
      uint4* to = warp_ring + (s % kGatherStages) * kStageUnits + lane;
      const uint4* from = source + s * kStageUnits;
#pragma unroll
      for (int unit = 0; unit < kStageUnits; unit += 32)
        arch::async_copy<16, arch::AsyncCopyCache::l2_only>(to + unit, from + unit);
    }
    arch::async_copy_commit();  // (empty groups keep the count of groups in flight uniform)
  };
  for (int s = 0; s < kGatherStages - 1; ++s) copy_stage(s);
  const int g = lane / 4, q = lane % 4;
  // the current window's end and rows, and the next one's, loaded a window ahead (a window of
  // 20-200 groups hides their latency; the first ones while B and the first stage are copied)
  struct WindowFacts {
    std::uint32_t end = 0;
    std::uint16_t row_even = kGatherNoRow, row_odd = kGatherNoRow;  // rows 2q, 2q + 1
  };
  const auto facts_of = [&](std::uint32_t w) {
    WindowFacts f;
    if (w < a.windows) {
      f.end = a.window_group_begin[w + 1];
      f.row_even = a.window_rows[std::int64_t{w} * kGatherWindowRows + 2 * q];
      f.row_odd = a.window_rows[std::int64_t{w} * kGatherWindowRows + 2 * q + 1];
    }
    return f;
  };
  std::uint32_t window = a.warp_first_window[block_warp];
  WindowFacts current = facts_of(window), next = facts_of(window + 1);
  const int output_floats = a.range_rows * kSliceColumns;
  for (int i = static_cast<int>(threadIdx.x); i < output_floats; i += kGatherThreadsPerBlock)
    output[i] = 0.0f;  // (rows without nonzeros in the chunk have no window)
  arch::wait_for_prior_grids();  // B, C and the partials belong to the grids before
  const std::int64_t first_row = block_of_range * a.chunk_columns;
  if (a.stage_by_tensor) {
    if (threadIdx.x == 0) {
      if constexpr (kRowMajor)
        gather_issue_b_copies<kSliceColumns>(b_stage, b_barrier, a, first_row,
                                             slice * kSliceColumns);
      else if constexpr (kSliceColumns <= kGatherMaxTransposedSlice)
        gather_issue_b_column_copies<kSliceColumns>(b_stage, b_barrier, a, first_row,
                                                    slice * kSliceColumns);
    }
  } else {
    const int valid_rows = static_cast<int>(
        a.cols - first_row < a.chunk_columns ? a.cols - first_row : a.chunk_columns);
    gather_stage_b<kSliceColumns, kRowMajor>(b_stage, a, first_row, valid_rows,
                                             slice * kSliceColumns);
  }
  arch::async_copy_commit();
  arch::async_copy_wait<0>();
  if (a.stage_by_tensor) {
    arch::barrier_wait(b_barrier, 0);
    if constexpr (!kRowMajor && kSliceColumns <= kGatherMaxTransposedSlice)
      gather_transpose_b<kSliceColumns>(b_stage, a.boxes);
  }
  __syncthreads();

  // 2. the run, group by group
  constexpr int kMmas = gather_mmas_per_group(kSliceColumns);  // one an m-tile of 16 columns
  constexpr int kSets = gather_accumulator_sets(kSliceColumns);
  static_assert(kGatherQuadGroups % kSets == 0 && kGatherStageGroups % kGatherQuadGroups == 0);
  // ldmatrix: lane i gives the address of slot i % 8 + 8 (i / 16)'s row, unit (i / 8) % 2 of the
  // m-tile (x4: matrices k 0-7 x m 0-7, k 0-7 x m 8-15, k 8-15 x m 0-7, k 8-15 x m 8-15); at 8
  // columns (x2) lanes 0-15 give slots 0-15, unit 0 (matrices k 0-7 and k 8-15 of m 0-7)
  const int slot_of_lane = kSliceColumns == 8 ? lane % 16 : lane % 8 + 8 * (lane / 16);
  const unsigned unit_of_lane = kSliceColumns == 8 ? 0u : 16u * ((lane / 8) % 2);
  // V: row r's two values (its pair, slots k = 2r, 2r + 1) in lane
  // 4 r + r % 4, in its first register (k = 2q, 2q + 1) for rows 0-3 and its second
  // (k = 8 + 2q, 9 + 2q) for rows 4-7; zeros elsewhere
  const bool holds_pair = q == g % 4;
  const unsigned first_mask = holds_pair && g < 4 ? ~0u : 0u;
  const unsigned second_mask = holds_pair && g >= 4 ? ~0u : 0u;
  const auto* stage_bytes = reinterpret_cast<const unsigned char*>(b_stage);
  // kSets accumulator sets taken by consecutive groups in turn, summed at the window's end: the
  // MMAs of one set form a chain of dependent accumulations, kSets chains run side by side
  // (kSets divides a quad's groups).
  // D (16 columns x 8 rows of an m-tile): lane holds columns g, g + 8 of rows 2q, 2q + 1.
  float d[kSets][kMmas][arch::kM16n8k8AccumulatorsPerLane] = {};
  // D summed over the sets (and zeroed) to rows of kSliceColumns floats at `rows_at`: the
  // window's output rows, or the carry's rows 0-7 in the warp's ring
  const auto store_window = [&](float* rows_at, int even, int odd) {
#pragma unroll
    for (int t = 0; t < kMmas; ++t) {
      float sum[arch::kM16n8k8AccumulatorsPerLane];
#pragma unroll
      for (int i = 0; i < arch::kM16n8k8AccumulatorsPerLane; ++i) {
        sum[i] = d[0][t][i];
#pragma unroll
        for (int set = 1; set < kSets; ++set) sum[i] += d[set][t][i];
#pragma unroll
        for (int set = 0; set < kSets; ++set) d[set][t][i] = 0.0f;
      }
      const int column = 16 * t + g;
      if (even != kGatherNoRow) {
        rows_at[even * kSliceColumns + column] = sum[0];
        if constexpr (kSliceColumns > 8) rows_at[even * kSliceColumns + column + 8] = sum[2];
      }
      if (odd != kGatherNoRow) {
        rows_at[odd * kSliceColumns + column] = sum[1];
        if constexpr (kSliceColumns > 8) rows_at[odd * kSliceColumns + column + 8] = sum[3];
      }
    }
  };
  // one group: its 16 nonzeros' rows of B by ldmatrix (G, an x4 an m-tile; `offset`: the
  // lane's slot's, in kGatherOffsetUnit), then one MMA an m-tile into `set` (`pair`: the values
  // of row g). The ldmatrix of kBatch groups are written before their MMAs, so that kBatch x
  // kMmas reads of shared memory may be in flight; ptxas keeps them so only with registers to
  // spare, hence __launch_bounds__(..., 1) (one block an SM: shared memory holds no more), 80
  // registers at 16 columns instead of 64 (H200, runs 321-323: the MMAs waiting on their
  // ldmatrix were a third of the stall samples; n = 16 at 90 % 1.71x -> 1.73x dense cuBLAS).
  constexpr int kFragmentRegisters = kSliceColumns == 8 ? 2 : 4;
  constexpr int kBatch = kMmas >= kGatherQuadGroups ? 1 : kGatherQuadGroups / kMmas;
  using Fragments = unsigned[kMmas][kFragmentRegisters];
  const auto load_group = [&](unsigned offset, Fragments& fragments) {
    const unsigned at = offset * kGatherOffsetUnit;
    if constexpr (kSliceColumns == 8) {
      arch::load_matrix_x2<true>(fragments[0], stage_bytes + at);
    } else {
#pragma unroll
      for (int t = 0; t < kMmas; ++t)
        arch::load_matrix_x4<true>(fragments[t], stage_bytes + (at ^ (unit_of_lane + 32u * t)));
    }
  };
  const auto multiply_group = [&](const Fragments& fragments, unsigned pair,
                                  float (&set)[kMmas][arch::kM16n8k8AccumulatorsPerLane]) {
    const unsigned v0 = pair & first_mask, v1 = pair & second_mask;
    if constexpr (kSliceColumns == 8) {
      const unsigned columns[4] = {fragments[0][0], 0u, fragments[0][1], 0u};  // m 8-15: none
      arch::mma_m16n8k16<V>(set[0], columns, v0, v1);
    } else {
#pragma unroll
      for (int t = 0; t < kMmas; ++t) arch::mma_m16n8k16<V>(set[t], fragments[t], v0, v1);
    }
  };
  // a quad's part for this lane: its slot's four offsets and row g's four value pairs
  struct QuadPart {
    uint2 offsets;
    uint4 pairs;
  };
  const auto quad_part = [&](const unsigned char* quad) {
    return QuadPart{*reinterpret_cast<const uint2*>(quad + 8 * slot_of_lane),
                    *reinterpret_cast<const uint4*>(quad + kGatherQuadBytes / 2 + 16 * g)};
  };
  std::uint32_t stored_through = first_group;  // groups before it are in the output rows
  for (int s = 0; s < stages; ++s) {
    __syncwarp();  // the stage about to be refilled was read by every lane
    copy_stage(s + kGatherStages - 1);
    arch::async_copy_wait<kGatherStages - 1>();
    __syncwarp();
    const auto* stage =
        reinterpret_cast<const unsigned char*>(warp_ring + (s % kGatherStages) * kStageUnits);
    const std::uint32_t stage_first = first_group + s * kGatherStageGroups;
    const std::uint32_t stage_end =
        end_group - stage_first < kGatherStageGroups ? end_group : stage_first + kGatherStageGroups;
    for (std::uint32_t group = stage_first; group < stage_end;) {  // whole quads throughout
      const std::uint32_t run_end = current.end < stage_end ? current.end : stage_end;
      const unsigned char* quad = stage + (group - stage_first) * kGatherGroupBytes;
      QuadPart next_part = quad_part(quad);
      for (; group < run_end; group += kGatherQuadGroups) {
        const QuadPart part = next_part;
        if (group + kGatherQuadGroups < run_end) {  // the next quad's, while this one multiplies
          quad += kGatherQuadBytes;
          next_part = quad_part(quad);
        }
        const unsigned offsets[kGatherQuadGroups] = {part.offsets.x & 0xffffu,
                                                      part.offsets.x >> 16,
                                                      part.offsets.y & 0xffffu,
                                                      part.offsets.y >> 16};
        const unsigned pairs[kGatherQuadGroups] = {part.pairs.x, part.pairs.y, part.pairs.z,
                                                   part.pairs.w};
#pragma unroll
        for (int first = 0; first < kGatherQuadGroups; first += kBatch) {
          Fragments fragments[kBatch];
#pragma unroll
          for (int i = 0; i < kBatch; ++i) load_group(offsets[first + i], fragments[i]);
#pragma unroll
          for (int i = 0; i < kBatch; ++i)  // consecutive groups into the kSets sets in turn
            multiply_group(fragments[i], pairs[first + i], d[(first + i) % kSets]);
        }
      }
      if (group == current.end) {  // the window's last group (windows are never empty)
        store_window(output, current.row_even, current.row_odd);
        stored_through = group;
        ++window;
        current = next;
        next = facts_of(window + 1);
      }
    }
  }
  arch::async_copy_wait<0>();
  arch::allow_dependent_grids();
  // the carry: a run that ends inside a window keeps its part in its ring (its copies are done)
  auto* carry = reinterpret_cast<float*>(warp_ring);
  auto* carry_rows = reinterpret_cast<std::uint16_t*>(carry + kGatherWindowRows * kSliceColumns);
  static_assert(kGatherStages * kStageUnits * 16 >=
                    kGatherWindowRows * (kSliceColumns * 4 + 2),
                "a warp's ring holds its carry");
  const bool carries = stored_through < end_group;
  __syncwarp();
  if (carries) store_window(carry, 2 * q, 2 * q + 1);
  if (lane < kGatherWindowRows / 2) {
    carry_rows[2 * lane] = carries ? current.row_even : kGatherNoRow;  // (q = lane here)
    carry_rows[2 * lane + 1] = carries ? current.row_odd : kGatherNoRow;
  }
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < kGatherWindowRows * kSliceColumns;
       i += kGatherThreadsPerBlock)
    for (int w = 0; w < kGatherWarpsPerBlock; ++w) {  // in warp order
      const auto* other = reinterpret_cast<const float*>(ring + w * kGatherStages * kStageUnits);
      const std::uint16_t row = reinterpret_cast<const std::uint16_t*>(
          other + kGatherWindowRows * kSliceColumns)[i / kSliceColumns];
      if (row != kGatherNoRow) output[row * kSliceColumns + i % kSliceColumns] += other[i];
    }

  // 3. the output rows to C
  const std::int64_t first_c_row = range * a.range_rows;
  const std::int64_t first_column = slice * kSliceColumns;
  const int columns = static_cast<int>(
      a.n - first_column < kSliceColumns ? a.n - first_column : kSliceColumns);
  if (a.sum == GatherSum::global) {
    __syncthreads();
    float* partial = a.partials + ((block_of_range * gridDim.z + slice) * a.ranges + range) *
                                      std::int64_t{output_floats};
    for (int i = static_cast<int>(threadIdx.x) * 4; i < output_floats;
         i += kGatherThreadsPerBlock * 4)
      *reinterpret_cast<float4*>(partial + i) = *reinterpret_cast<const float4*>(output + i);
    return;
  }
  const bool in_cluster = a.sum == GatherSum::cluster;
  if (in_cluster) arch::cluster_sync();
  else __syncthreads();
  const int share = (a.range_rows + range_blocks - 1) / range_blocks;
  const int first_local = block_of_range * share;
  int my_rows = a.range_rows - first_local;
  my_rows = my_rows < share ? my_rows : share;
  if (first_c_row + first_local + my_rows > a.rows)
    my_rows = static_cast<int>(a.rows - first_c_row - first_local);
  for (int i = static_cast<int>(threadIdx.x); i < my_rows * columns;
       i += kGatherThreadsPerBlock) {
    const int local = first_local + (kRowMajor ? i / columns : i % my_rows);
    const int column = kRowMajor ? i % columns : i / my_rows;
    float sum = 0.0f;  // the range's blocks in order (unrolled: their reads side by side)
#pragma unroll 4
    for (int c = 0; c < range_blocks; ++c) {
      const float* block_output =
          in_cluster ? arch::cluster_shared(output, static_cast<unsigned>(c)) : output;
      sum += block_output[local * kSliceColumns + column];
    }
    const std::int64_t row = first_c_row + local, j = first_column + column;
    Out& out = kRowMajor ? a.C[row * a.n + j] : a.C[j * a.rows + row];
    float result = a.alpha * sum;
    if (a.beta != 0.0f) result += a.beta * to_fp32<V, Out>(out);
    out = from_fp32<V, Out>(result);
  }
  if (in_cluster) arch::cluster_sync();  // no block leaves while another reads its output rows
}

/// GatherSum::global: C = alpha (sum of the blocks' partials, in chunk order) + beta C, a thread
/// an element (consecutive threads along C's contiguous index).
template <typename V, typename Out, int kSliceColumns, bool kRowMajor>
__global__ void tca_gather_sum_kernel(const GatherArguments<Out> a, std::int64_t range_blocks,
                                      std::int64_t slices) {
  const std::int64_t elements = a.rows * a.n;
  const std::int64_t output_floats = std::int64_t{a.range_rows} * kSliceColumns;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < elements;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t row = kRowMajor ? i / a.n : i % a.rows;
    const std::int64_t j = kRowMajor ? i % a.n : i / a.rows;
    const std::int64_t range = row / a.range_rows, local = row % a.range_rows;
    const std::int64_t slice = j / kSliceColumns, column = j % kSliceColumns;
    float sum = 0.0f;
    for (std::int64_t c = 0; c < range_blocks; ++c)  // the range's blocks in order
      sum += a.partials[((c * slices + slice) * a.ranges + range) * output_floats +
                        local * kSliceColumns + column];
    Out& out = a.C[i];
    float result = a.alpha * sum;
    if (a.beta != 0.0f) result += a.beta * to_fp32<V, Out>(out);
    out = from_fp32<V, Out>(result);
  }
}

}  // namespace tcsparse::tca::device
