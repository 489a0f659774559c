// tca kernel=tiles: the matrix as 16 x 16 tiles, each a bitmap and its nonzeros, multiplied as
// dense m16n8k16 tiles ("load as sparse, compute as dense"). Not in the TCA paper: issue 11's
// tile-compressed variant for the sparsities where CSR cannot beat the dense GEMM, after the
// tile encodings of Flash-LLM (VLDB 2024) and SpInfer (EuroSys 2025). Host side: the layout, its
// shape rules, its builder and the host model of the kernel (tca_tiles_kernel.cuh).
//
//   A (rows x cols) in row blocks of 16 rows; each row block cut into column chunks of
//   chunk_columns (a multiple of 16) columns, the split-K unit; a thread block takes one chunk of
//   8 row blocks, stages B's rows of it in shared memory stage_columns at a time, and each of its
//   warps multiplies one row block's tiles of the staged window.
//
//                 chunk 0                 chunk 1                 ...
//     rb 0   [ T T . T T . T T ]   [ T . T T T T . T ]          T: a stored (non-empty) tile
//     rb 1   [ T T T . T T T T ]   [ . T T T . T T T ]          .: an empty tile, not stored
//
//   chunk_tile_begin[rb * chunks + c] .. [rb * chunks + c + 1]: the tiles of (rb, c), by column
//
// A tile holds the m16n8k16 A operand of 32 lanes x 8 elements. Lane l = 4 g + t holds
// (PTX ISA, "Matrix fragments for mma.m16n8k16"):
//
//   element  0       1         2         3           4         5          6          7
//   (r, c)   (g,2t)  (g,2t+1)  (g+8,2t)  (g+8,2t+1)  (g,2t+8)  (g,2t+9)   (g+8,2t+8) (g+8,2t+9)
//
// bitmap (8 x uint32): bit i of byte l (bits 8 (l % 4) .. of word l / 4) is set when lane l's
// element i is a nonzero. The tile's nonzeros are stored in (lane, element) order from
// value_begin, so lane l's first one is at value_begin + (set bits of the bytes below l).
//
// Bytes a stored tile costs: 32 (bitmap) + 16 (TileInfo) + 2 a nonzero. A 4096 x 4096 weight
// at 70 % sparsity: 0.79 bytes a weight; at 90 %: 0.39 (dense fp16: 2; CSR with 32-bit indices:
// 1.8 and 0.6).
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
/// Elements a lane holds of one tile (one byte of its bitmap).
inline constexpr int kTileElementsPerLane = 8;
inline constexpr int kTileBitmapWords = 8;
/// Warps a thread block; each takes one row block of the block's chunk (so B's chunk, staged once,
/// serves 8 row blocks = 128 rows).
inline constexpr int kTilesWarpsPerBlock = 8;
/// Columns of B and C one thread block computes: 8 (n <= 8), 16, 32 or 64 (m16n8k16 n-tiles of 8;
/// a lane holds 4 fp32 accumulators an n-tile, 32 at 64 columns). Wider n runs as several slices.
inline constexpr int kTilesMaxSliceColumns = 64;
/// Warps the shape rule aims at a streaming multiprocessor (split-K over column chunks until the
/// row blocks x slices x chunks reach it): enough loads in flight to stream the tiles.
inline constexpr int kTilesTargetWarpsPerSm = 32;
/// Shared memory one block's staged window of B may take (two blocks an SM on Hopper and Ampere).
inline constexpr std::int64_t kTilesMaxStageBytes = 96 * 1024;
/// Split-K partial sums the plan may hold (fp32, one a chunk a C element).
inline constexpr std::int64_t kTilesMaxPartialBytes = std::int64_t{256} << 20;

/// A stored tile: where its nonzeros start in `values`, its first column, and for each bitmap
/// word w the set bits of the words before it (so a lane finds its first nonzero from its own
/// word: value_begin + word_prefix[lane / 4] + set bits of its word below its byte).
struct TileInfo {
  std::int32_t value_begin = 0;
  std::int32_t column = 0;
  std::uint8_t word_prefix[kTileBitmapWords] = {};
};
static_assert(sizeof(TileInfo) == 16);

/// (lane, element) of the tile entry at row r, column c (0 .. 15 each).
struct TilePosition {
  int lane = 0;
  int element = 0;
};
constexpr TilePosition tile_position(int r, int c) {
  return {4 * (r % 8) + (c % 8) / 2, c % 2 + 2 * (r / 8) + 4 * (c / 8)};
}
/// The inverse: row and column of lane l's element i.
constexpr int tile_row(int lane, int element) { return lane / 4 + 8 * ((element / 2) % 2); }
constexpr int tile_column(int lane, int element) {
  return 2 * (lane % 4) + element % 2 + 8 * (element / 4);
}

/// How the kernel cuts a product of width n: shared-memory and grid shape.
struct TilesShape {
  std::int64_t row_blocks = 0;       ///< ceil(rows / 16)
  std::int64_t chunk_columns = 16;   ///< a multiple of 16; the last chunk may be shorter
  std::int64_t chunks = 1;           ///< ceil(cols / chunk_columns), at least 1
  std::int64_t stage_columns = 16;   ///< rows of B staged at once: a multiple of 16, <= chunk
  int slice_columns = 8;             ///< 8, 16, 32 or 64
  std::int64_t slices = 0;           ///< ceil(n / slice_columns)
  std::int64_t stage_bytes = 0;      ///< the staged window of B in shared memory (padded)
  std::int64_t partial_bytes = 0;    ///< split-K partial sums (0 when chunks == 1)
};

/// Columns of a slice for width n: the smallest of 8, 16, 32, 64 that holds n (64 above).
int tiles_slice_columns(std::int64_t n);
/// Row stride (in 16-bit elements) of a staged window of B: row-major B is staged as
/// stage_columns rows (k) of the slice's columns, column-major B as slice_columns rows of the
/// window's k; a row is padded to an odd number of 16-byte units so that the 8 row addresses of
/// one ldmatrix fall in 8 different bank groups.
std::int64_t tiles_stage_stride(std::int64_t row_elements);
std::int64_t tiles_stage_bytes(std::int64_t stage_columns, int slice_columns, DenseLayout dense);

/// The shape for a rows x cols matrix at width n on a GPU of `multiprocessors` SMs: chunks enough
/// to give the SMs kTilesTargetWarpsPerSm warps each (one warp a row block, slice and chunk),
/// within the partial-sum bound; the staged window the widest that fits kTilesMaxStageBytes, up
/// to the chunk. chunk_columns > 0 fixes the chunk width instead (rounded up to 16).
TilesShape choose_tiles_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                              DenseLayout dense, int multiprocessors,
                              std::int64_t chunk_columns = 0);

struct TileLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  TilesShape shape;
  std::vector<std::int32_t> chunk_tile_begin;  ///< row_blocks * chunks + 1
  std::vector<std::uint32_t> bitmaps;          ///< kTileBitmapWords a tile
  std::vector<TileInfo> tiles;
  std::vector<std::uint16_t> values;           ///< the nonzeros' bits, tile by tile
  std::int64_t tile_count() const { return static_cast<std::int64_t>(tiles.size()); }
  /// Device bytes of the arrays above.
  std::int64_t bytes() const;
};

/// Stored tiles of the matrix in chunks of `chunk_columns` (every non-empty 16 x 16 tile; the
/// chunk width does not change which tiles are stored). Used by the shape and auto rules.
std::int64_t count_stored_tiles(std::int64_t rows, std::int64_t cols,
                                const std::int32_t* row_ptr, const std::int32_t* col_idx);

/// The layout of a valid CSR (sorted, unique columns) for `shape`; values as 16-bit patterns.
/// Throws IndexOverflowError when tiles or nonzeros exceed 32-bit offsets.
TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape);

template <typename Value>
TileLayout build_tile_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                             const TilesShape& shape) {
  static_assert(sizeof(Value) == 2, "tiles hold 16-bit values");
  return build_tile_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(),
                           matrix.col_idx.data(),
                           reinterpret_cast<const std::uint16_t*>(matrix.values.data()), shape);
}

/// {"tiles": .., "nonzeros_per_tile": .., "chunks": .., "chunk_columns": .., "slice_columns": ..,
///  "slices": .., "stage_bytes": .., "partial_bytes": .., "tile_bytes": ..}
Json tiles_details(const TileLayout& layout);

/// The host model of the kernel: C = alpha A B + beta C walking the tiles as the kernel does
/// (row block, chunk, tile in order; each lane's elements found from its bitmap byte and the
/// set bits below it), fp32 products summed per chunk, the chunks summed in order. B: cols x n,
/// C: rows x n in `dense` layout. beta == 0 does not read C.
template <typename Value>
void tiles_host_apply(const TileLayout& layout, const std::vector<Value>& B,
                      std::vector<Value>& C, std::int64_t n, DenseLayout dense, float alpha,
                      float beta);

}  // namespace tcsparse::tca
