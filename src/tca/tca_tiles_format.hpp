// tca kernel=tiles: the matrix as 16 x 16 tiles stored as the m16n8k16 A fragments' nonzero
// register pairs, loaded by each lane straight into its fragment registers and multiplied as dense
// tiles ("load as sparse, compute as dense"). Not in the TCA paper: issue 11's tile-compressed
// variant for the sparsities where CSR cannot beat the dense GEMM, after the bitmap encodings of
// Flash-LLM (VLDB 2024) and SpInfer (EuroSys 2025). Host side: the layout, its shape rules, its
// builder and the host model of the kernel (tca_tiles_kernel.cuh).
//
//   A (rows x cols) in row blocks of 16 rows and segments of 256 columns (16 tiles); a chunk
//   (the split-K unit) is a run of segments. A thread block takes one chunk of 8 row blocks,
//   stages B's 256 rows of each of its segments in shared memory in turn, and each warp
//   multiplies one row block's segment.
//
//                 segment 0 (tiles 0-15)   segment 1            ...
//     rb 0   [ T T . T T . T T ... ]   [ T . T T T T . T ... ]     T: a tile with nonzeros
//     rb 1   [ T T T . T T T T ... ]   [ . T T T . T T T ... ]     .: an empty tile
//
//   In the m16n8k16 A fragment, lane l (g = l / 4, q = l % 4) holds 4 registers of 2 elements:
//   register p at row g + 8 (p % 2), columns 2 q + 8 (p / 2) and the next (low half first).
//
//   words[segment_word_begin[rb * segments + s] ..]: the run of (rb, s), 16-byte aligned, empty
//   when the segment has no nonzeros:
//     [0, 64)   masks: word 4 t + p, bit l: lane l's register p of tile t holds a nonzero
//     then      for t = 0 .. 15, p = 0 .. 3: the register pairs of the lanes whose bit is set,
//               by lane (fp16/bf16 bits, low half = the even column), then zeros to 16 bytes
//
// A lane finds its pair at 64 + (pairs of the words before 4 t + p) + popc(mask & lanes below):
// no per-element decoding (the kernel copies a whole run into shared memory where it fits).
// Bytes: 256 a non-empty segment of a row block and 4 a non-empty pair (4096 x 4096 at 70 %
// sparsity, half the pairs non-empty: 1.1 bytes a weight; at 90 %: 0.45; dense fp16: 2; CSR with
// 32-bit indices: 1.8 and 0.6).
#pragma once

#include <cstdint>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::tca {

/// Rows and columns of one tile: the m16n8k16 A operand.
inline constexpr int kTileRows = 16;
inline constexpr int kTileColumns = 16;
/// Tiles and columns of a segment: a warp takes one (row block, segment) at a time, and B is
/// staged a segment at a time.
inline constexpr int kTilesSegmentTiles = 16;
inline constexpr int kTilesSegmentColumns = kTilesSegmentTiles * kTileColumns;
/// Registers of an m16n8k16 A fragment a lane holds, and the mask words of a segment's run.
inline constexpr int kFragmentRegisters = 4;
inline constexpr int kSegmentMaskWords = kTilesSegmentTiles * kFragmentRegisters;
/// Warps a thread block; each takes one row block of the block's chunk (so B's segment, staged
/// once, serves 8 row blocks = 128 rows).
inline constexpr int kTilesWarpsPerBlock = 8;
/// Columns of B and C one thread block computes: 8 (n <= 8), 16, 32 or 64 (m16n8k16 n-tiles of 8;
/// a lane holds 4 fp32 accumulators an n-tile, 32 at 64 columns). Wider n runs as several slices.
inline constexpr int kTilesMaxSliceColumns = 64;
/// Blocks an SM the tiles kernel's registers (128 a thread) and shared memory are budgeted for;
/// the host sizes the warps' run stages to fit. At up to 16 columns 2 blocks (whole runs of
/// 70 %-sparse weights staged) ran 1.10x faster than 3 (runs over 784 words read from global
/// memory, and 80 registers spilling) at 70 % sparsity and n = 16, 1.07x at 90 % (H200, run 132).
inline constexpr int kTilesBlocksPerSm = 2;
/// Warps the shape rule aims at a streaming multiprocessor above 64 columns of B (split-K over
/// chunks until the row blocks x slices x chunks reach it). H200, runs 229-231
/// (bench/results/2026-11-29-1130-h200-tca-wave-chunks), against 32, the value before: on the 150
/// DLMC matrices at 90 % (column-major) 12 ran 1.004x as fast at n = 256 (0.959-1.076) and 1.072x
/// at n = 2048 (up to 1.42x: 2048 x 512, one chunk instead of 2); on the 4 LLM shapes at 90 / 95 %
/// (row-major) 1.120x at n = 128, 1.052x at n = 256 (11008 x 4096 and 14336 x 4096 0.94-0.95x,
/// one chunk instead of 2) and 1.021x at n = 1024. 8 warps (one block's worth) lost at n = 256 on
/// DLMC (0.978x) and at n = 128 on the LLM weights (0.943x); run 229's one-chunk variant showed
/// the few-row DLMC weights (64-512 rows, 576-4608 columns) at n = 256 need their split (0.56x
/// without it).
inline constexpr int kTilesTargetWarpsPerSm = 12;
/// Segments a chunk spans at up to 64 columns of B (one slice): 512 columns. Measured (H200,
/// run 126, `sweep-chunks`, 8 LLM weights at 70 and 90 %, n = 8 / 16 / 64) against the warp
/// target's chunks: on 4096 x 4096 (where the target gave one segment) 512 ran 1.2-1.4x faster;
/// chunks of 1024 ran 0.87-1.08x as fast as 512 at n <= 16, 256 0.84-1.0x, 4096 0.3-0.7x.
inline constexpr int kTilesDecodeChunkSegments = 2;
/// At up to 64 columns the decode chunks are widened to the narrowest of 2 .. 8 segments whose
/// blocks (8 row blocks x a chunk) all run at once, 2 an SM: a block's start (its first copies,
/// the split-K sum) is paid once an SM pair, not once a wave, and no wave runs part-full. H200, run
/// 224 (bench/results/2026-11-29-1130-h200-tca-wave-chunks), 8 LLM weights at 70 and 90 %,
/// n = 8-64, chunks of 3-8 segments against the previous rule's: 11008 x 4096 and 4096 x 11008
/// take 6 segments (258 / 256 blocks of 264, against 688 / 704 at 2), 1.10-1.28x faster (n = 16,
/// 70 %: 30.6 -> 25.3-25.7 us and 31.7 -> 25.6-25.9, dense cuBLAS 26.6-27.0 and 30.7-31.3); the
/// other widths there ran 0.86-1.17x as fast as 2; 14336 x 4096 keeps 8 (224 blocks) and
/// 4096 x 4096 2 (256): there every other width was slower (0.47-0.96x).
/// Where no chunk of up to 8 segments fits one wave, the 2-segment chunks are doubled while the
/// blocks still fill their last wave within this share (run 213, the rule before run 224).
inline constexpr double kTilesWaveFillTolerance = 0.02;
/// The widest decode chunk the wave rules take, in segments (2048 columns; 4096 never won).
inline constexpr int kTilesMaxDecodeChunkSegments = 8;
/// Above 64 columns of B the slices are narrowed to 32 and then 16 columns while the kernel has
/// fewer blocks than the GPU has SMs: a small weight multiplied by a wide B then runs on more
/// SMs, each with a shorter chain of MMAs and a smaller stage of B. H200, run 227
/// (bench/results/2026-11-29-1130-h200-tca-wave-chunks), the 150 DLMC matrices at 90 %, n = 256
/// and 2048, column-major, slices of 8 / 16 / 32 against 64: this rule ran 1.49x faster than
/// 64-column slices at n = 256 (never slower; 0.53x -> 0.79x dense cuBLAS, against 0.80x for
/// the fastest width of each matrix) and 1.03x at n = 2048 (never slower). Narrowing to 8 as
/// well: 1.45x and 1.03x (0.98x at worst); narrowing while fewer than 2 blocks an SM: 1.38x
/// and 0.85x.
inline constexpr int kTilesNarrowestWideSliceColumns = 16;
/// Split-K partial sums the plan may hold (fp32, one a chunk a C element).
inline constexpr std::int64_t kTilesMaxPartialBytes = std::int64_t{256} << 20;

/// Where the element at row r, column c (0 .. 15 each) of a tile sits in the A fragment: its
/// lane, register and half (0: low), and back.
constexpr int fragment_lane(int r, int c) { return 4 * (r % 8) + (c % 8) / 2; }
constexpr int fragment_register(int r, int c) { return r / 8 + 2 * (c / 8); }
constexpr int fragment_half(int c) { return c % 2; }
constexpr int fragment_row(int lane, int reg) { return lane / 4 + 8 * (reg % 2); }
constexpr int fragment_column(int lane, int reg, int half) {
  return 2 * (lane % 4) + 8 * (reg / 2) + half;
}

/// How the kernel cuts a product of width n: shared-memory and grid shape.
struct TilesShape {
  std::int64_t row_blocks = 0;      ///< ceil(rows / 16)
  std::int64_t segments = 0;        ///< ceil(cols / 256)
  std::int64_t chunk_segments = 1;  ///< segments a chunk spans; the last chunk may span fewer
  std::int64_t chunks = 1;          ///< ceil(segments / chunk_segments), at least 1
  int slice_columns = 8;            ///< 8, 16, 32 or 64
  std::int64_t slices = 0;          ///< ceil(n / slice_columns)
  std::int64_t stage_bytes = 0;     ///< a staged segment of B (padded); a block holds two
  std::int64_t partial_bytes = 0;   ///< split-K partial sums (0 when chunks == 1)
  std::int64_t chunk_columns() const { return chunk_segments * kTilesSegmentColumns; }
  /// Row groups of kTilesWarpsPerBlock row blocks, one a thread block.
  std::int64_t row_groups() const {
    return (row_blocks + kTilesWarpsPerBlock - 1) / kTilesWarpsPerBlock;
  }
  /// Thread blocks of the kernel: a row group, chunk and slice each.
  std::int64_t blocks() const { return row_groups() * chunks * slices; }
};

/// Columns of a slice for width n: the smallest of 8, 16, 32, 64 that holds n (64 above).
int tiles_slice_columns(std::int64_t n);
/// Row stride (in 16-bit elements) of a staged segment of B: row-major B is staged as 256 rows
/// (k) of the slice's columns, column-major B as slice_columns rows of the segment's k; a row is
/// padded to an odd number of 16-byte units so that the 8 row addresses of one ldmatrix fall in 8
/// different bank groups.
std::int64_t tiles_stage_stride(std::int64_t row_elements);
std::int64_t tiles_stage_bytes(int slice_columns, DenseLayout dense);

/// The shape for a rows x cols matrix at width n on a GPU of `multiprocessors` SMs: at n <= 64
/// one slice of the narrowest width that holds n, in chunks of kTilesDecodeChunkSegments
/// segments or more (the wave rules above); wider n in slices of 64 columns (narrowed to 32 or
/// 16 while the blocks are fewer than the SMs, kTilesNarrowestWideSliceColumns) and chunks enough
/// to give the SMs kTilesTargetWarpsPerSm warps each (one warp a row block, slice and chunk);
/// both within the partial-sum bound. chunk_columns > 0 fixes the chunk width instead (rounded
/// up to a whole segment, 256), slice_columns > 0 (8, 16, 32 or 64) the slice width.
TilesShape choose_tiles_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                              DenseLayout dense, int multiprocessors,
                              std::int64_t chunk_columns = 0, int slice_columns = 0);

struct TileLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  TilesShape shape;
  std::int64_t stored_tiles = 0;  ///< 16 x 16 tiles with nonzeros (a statistic)
  std::int64_t pairs = 0;         ///< non-empty register pairs stored
  std::vector<std::int32_t> segment_word_begin;  ///< row_blocks * segments + 1, multiples of 4
  std::vector<std::uint32_t> words;              ///< the segments' runs, by row block and segment
  /// Device bytes of the arrays above.
  std::int64_t bytes() const;
};

/// (row block, segment) index entries of a rows x cols matrix: the layout stores one each, so
/// it outweighs the nonzeros only when fewer than one weight in 4096 is nonzero.
std::int64_t tiles_segment_slots(std::int64_t rows, std::int64_t cols);

/// The non-empty 16 x 16 tiles of each row block, by column, with their nonzeros: one pass over
/// the nonzeros, which the auto rule counts.
struct TileCensus {
  std::vector<std::int64_t> row_block_begin;  ///< row blocks + 1: each one's tiles below
  std::vector<std::int32_t> column_tiles;     ///< column / 16 of each tile, ascending in a row block
  std::vector<std::int32_t> nonzeros;         ///< of each tile
  std::int64_t stored_tiles() const { return static_cast<std::int64_t>(column_tiles.size()); }
};
TileCensus census_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                        const std::int32_t* col_idx);

/// The longest run of `layout`, in words (a multiple of 4; 0 when every segment is empty).
std::int64_t tiles_longest_run_words(const TileLayout& layout);

/// Words of each of a warp's two run stages in shared memory: 16 bytes more than the longest run
/// (the kernel stages a run whole when it is strictly shorter than its stage), capped by what
/// `budget_bytes` holds for kTilesWarpsPerBlock warps x 2 stages (whole 16 bytes), and never below
/// the kSegmentMaskWords mask words, which are staged for every run.
int tiles_run_stage_words(std::int64_t longest_run_words, std::int64_t budget_bytes);

/// census_tiles(...).stored_tiles(), counted in one pass without the census's lists, the row
/// blocks split between threads (detail::threads_for the nonzeros).
std::int64_t count_stored_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                                const std::int32_t* col_idx);

/// The layout of a valid CSR (sorted, unique columns) for `shape`; values as 16-bit patterns.
/// Throws IndexOverflowError when the runs exceed 32-bit word offsets.
TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape);

template <typename Value>
TileLayout build_tile_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                             const TilesShape& shape) {
  static_assert(sizeof(Value) == 2, "tiles hold 16-bit values");
  return build_tile_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(), matrix.col_idx.data(),
                           reinterpret_cast<const std::uint16_t*>(matrix.values.data()), shape);
}

/// {"tiles": .., "nonzeros_per_tile": .., "pairs": .., "segments": .., "chunks": ..,
///  "chunk_columns": .., "slice_columns": .., "slices": .., "stage_bytes": .., "partial_bytes": ..,
///  "tile_bytes": ..} of a layout of `stored_tiles` tiles, `pairs` pairs and `tile_bytes` bytes.
Json tiles_details(const TilesShape& shape, std::int64_t nnz, std::int64_t stored_tiles,
                   std::int64_t pairs, std::int64_t tile_bytes);

/// The host model of the kernel: C = alpha A B + beta C walking the layout as the kernel does
/// (row block, chunk, segment, tile, register, lane; each pair's row and column from its
/// fragment position), fp32 products summed per chunk, the chunks summed in order. B: cols x n,
/// C: rows x n in `dense` layout. beta == 0 does not read C.
template <typename Value>
void tiles_host_apply(const TileLayout& layout, const std::vector<Value>& B, std::vector<Value>& C,
                      std::int64_t n, DenseLayout dense, float alpha, float beta);

}  // namespace tcsparse::tca
