// tca kernel=tiles: the matrix as 16 x 16 tiles, each a list of (value, position) entries,
// expanded into a dense tile in shared memory and multiplied as dense m16n8k16 tiles ("load as
// sparse, compute as dense"). Not in the TCA paper: issue 11's tile-compressed variant for the
// sparsities where CSR cannot beat the dense GEMM, after the tiled encodings of Flash-LLM (VLDB
// 2024) and SpInfer (EuroSys 2025). Host side: the layout, its shape rules, its builder and the
// host model of the kernel (tca_tiles_kernel.cuh).
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
//   tiles[t] = {entry_begin, column}: the tile's entries are entries[entry_begin, next tile's)
//   entries[e] = value bits | slot << 16: slot = where the value goes in the warp's dense tile in
//                shared memory (16-bit elements, rows of 16):
//
//                  slot(r, c) = 16 r + (c ^ 8 [r % 8 >= 4])
//
//                the column halves of rows 4-7 and 12-15 swapped, so that the 8 rows one
//                ldmatrix reads (32 bytes apart) fall in 8 different 16-byte bank groups.
//
// Bytes a stored tile costs: 8 + 4 a nonzero (4096 x 4096 at 70 % sparsity: 1.23 bytes a weight;
// at 90 %: 0.43; dense fp16: 2; CSR with 32-bit indices: 1.8 and 0.6).
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
/// Warps a thread block; each takes one row block of the block's chunk (so B's chunk, staged once,
/// serves 8 row blocks = 128 rows).
inline constexpr int kTilesWarpsPerBlock = 8;
/// Columns of B and C one thread block computes: 8 (n <= 8), 16, 32 or 64 (m16n8k16 n-tiles of 8;
/// a lane holds 4 fp32 accumulators an n-tile, 32 at 64 columns). Wider n runs as several slices.
inline constexpr int kTilesMaxSliceColumns = 64;
/// Warps the shape rule aims at a streaming multiprocessor (split-K over column chunks until the
/// row blocks x slices x chunks reach it): enough loads in flight to stream the tiles.
inline constexpr int kTilesTargetWarpsPerSm = 32;
/// Column tiles a chunk spans at most (its warps walk at most this many tiles) at n <= 64: the
/// automatic chunk is 512 columns or narrower there. Measured (H200, n = 8 / 16 / 64, 8 LLM
/// weights): on the weights of 11008-14336 rows, chunks of 512 columns ran 1.1-1.3x faster than the
/// 832-4096 the warp target alone gave; on 4096 x 4096 the target's 256 stayed faster than 512.
inline constexpr int kTilesMaxChunkTiles = 32;
/// Tiles a warp expands into dense tiles in shared memory at once (their loads all in flight
/// before the first store), and the entries a lane loads of each before a loop takes the rest:
/// 4 x 32 = 128 entries, a tile of up to 50 % density in one go.
inline constexpr int kTilesInFlight = 4;
inline constexpr int kTileEntryRounds = 4;
/// Shared memory of the warps' dense tiles (16-bit elements) and the most the staged window of B
/// may take: two blocks an SM on Hopper (228 KB) with both.
inline constexpr std::int64_t kTilesDenseBytes =
    std::int64_t{kTilesWarpsPerBlock} * kTilesInFlight * kTileRows * kTileColumns * 2;
inline constexpr std::int64_t kTilesMaxStageBytes = 80 * 1024;
/// Split-K partial sums the plan may hold (fp32, one a chunk a C element).
inline constexpr std::int64_t kTilesMaxPartialBytes = std::int64_t{256} << 20;

/// A stored tile: where its entries start, and its first column.
struct TileInfo {
  std::int32_t entry_begin = 0;
  std::int32_t column = 0;
};
static_assert(sizeof(TileInfo) == 8);

/// The slot of the tile entry at row r, column c (0 .. 15 each): its element in the dense tile.
constexpr int tile_slot(int r, int c) { return 16 * r + (c ^ (((r >> 2) & 1) << 3)); }
/// The inverse: row and column of a slot.
constexpr int slot_row(int slot) { return slot / 16; }
constexpr int slot_column(int slot) { return (slot % 16) ^ (((slot / 16 >> 2) & 1) << 3); }

/// An entry: the value's 16 bits and its slot.
constexpr std::uint32_t tile_entry(std::uint16_t value_bits, int slot) {
  return std::uint32_t{value_bits} | (static_cast<std::uint32_t>(slot) << 16);
}

/// How the kernel cuts a product of width n: shared-memory and grid shape.
struct TilesShape {
  std::int64_t row_blocks = 0;      ///< ceil(rows / 16)
  std::int64_t chunk_columns = 16;  ///< a multiple of 16; the last chunk may be shorter
  std::int64_t chunks = 1;          ///< ceil(cols / chunk_columns), at least 1
  std::int64_t stage_columns = 16;  ///< rows of B staged at once: a multiple of 16, <= chunk
  int slice_columns = 8;            ///< 8, 16, 32 or 64
  std::int64_t slices = 0;          ///< ceil(n / slice_columns)
  std::int64_t stage_bytes = 0;     ///< the staged window of B in shared memory (padded)
  std::int64_t shared_bytes = 0;    ///< a block's dynamic shared memory: stage + dense tiles
  std::int64_t partial_bytes = 0;   ///< split-K partial sums (0 when chunks == 1)
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
  std::vector<TileInfo> tiles;         ///< tile_count() + 1: the last {nnz, 0} ends the last tile
  std::vector<std::uint32_t> entries;  ///< tile_entry(value, slot), tile by tile
  std::int64_t tile_count() const { return static_cast<std::int64_t>(tiles.size()) - 1; }
  /// Device bytes of the arrays above.
  std::int64_t bytes() const;
};

/// The non-empty 16 x 16 tiles of each row block, by column, with their nonzeros: one pass over
/// the nonzeros, which the auto rule counts and the layout is built from (the chunk width does
/// not change which tiles are stored).
struct TileCensus {
  std::vector<std::int64_t> row_block_begin;  ///< row blocks + 1: each one's tiles below
  std::vector<std::int32_t> column_tiles;     ///< column / 16 of each tile, ascending in a row block
  std::vector<std::int32_t> nonzeros;         ///< of each tile
  std::int64_t stored_tiles() const { return static_cast<std::int64_t>(column_tiles.size()); }
};
TileCensus census_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                        const std::int32_t* col_idx);

/// census_tiles(...).stored_tiles().
std::int64_t count_stored_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                                const std::int32_t* col_idx);

/// The layout of a valid CSR (sorted, unique columns) for `shape`; values as 16-bit patterns.
/// Throws IndexOverflowError when tiles or nonzeros exceed 32-bit offsets.
TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape);
/// The same from the matrix's census (census_tiles), taken once for the auto rule too.
TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape, const TileCensus& census);

template <typename Value>
TileLayout build_tile_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                             const TilesShape& shape) {
  static_assert(sizeof(Value) == 2, "tiles hold 16-bit values");
  return build_tile_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(), matrix.col_idx.data(),
                           reinterpret_cast<const std::uint16_t*>(matrix.values.data()), shape);
}
template <typename Value>
TileLayout build_tile_layout(const CsrMatrix<Value, std::int32_t>& matrix, const TilesShape& shape,
                             const TileCensus& census) {
  static_assert(sizeof(Value) == 2, "tiles hold 16-bit values");
  return build_tile_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(), matrix.col_idx.data(),
                           reinterpret_cast<const std::uint16_t*>(matrix.values.data()), shape,
                           census);
}

/// {"tiles": .., "nonzeros_per_tile": .., "chunks": .., "chunk_columns": .., "slice_columns": ..,
///  "slices": .., "stage_bytes": .., "partial_bytes": .., "tile_bytes": ..}
Json tiles_details(const TileLayout& layout);

/// The host model of the kernel: C = alpha A B + beta C walking the tiles as the kernel does
/// (row block, chunk, tile in order; each entry's row and column from its slot), fp32 products
/// summed per chunk, the chunks summed in order. B: cols x n, C: rows x n in `dense` layout.
/// beta == 0 does not read C.
template <typename Value>
void tiles_host_apply(const TileLayout& layout, const std::vector<Value>& B, std::vector<Value>& C,
                      std::int64_t n, DenseLayout dense, float alpha, float beta);

}  // namespace tcsparse::tca
