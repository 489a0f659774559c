// tca kernel=tiles on the host: where a tile entry sits in the m16n8k16 fragment, how a product is
// cut into slices and chunks, the tile layout's promises, and the host model of the kernel
// (src/tca/tca_tiles_format.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::tca {
namespace {

TEST(TileSlot, IsRowMajorWithTheColumnHalvesOfRows4To7And12To15Swapped) {
  EXPECT_EQ(tile_slot(0, 0), 0);
  EXPECT_EQ(tile_slot(0, 9), 9);
  EXPECT_EQ(tile_slot(3, 15), 63);
  EXPECT_EQ(tile_slot(4, 0), 64 + 8);
  EXPECT_EQ(tile_slot(4, 8), 64);
  EXPECT_EQ(tile_slot(8, 1), 129);
  EXPECT_EQ(tile_slot(15, 15), 240 + 7);
}

TEST(TileSlot, IsOneToOneAndInvertedBySlotRowAndColumn) {
  std::set<int> seen;
  for (int r = 0; r < kTileRows; ++r)
    for (int c = 0; c < kTileColumns; ++c) {
      const int slot = tile_slot(r, c);
      ASSERT_TRUE(slot >= 0 && slot < 256);
      EXPECT_TRUE(seen.insert(slot).second) << r << "," << c;
      EXPECT_EQ(slot_row(slot), r);
      EXPECT_EQ(slot_column(slot), c);
    }
}

TEST(TileSlot, PutsTheEightRowsOfEachLdmatrixInEightBankGroups) {
  // ldmatrix reads 16 bytes at (row, column 0 or 8) for rows 0-7 or 8-15: 8 distinct 16-byte
  // units modulo 128 bytes, i.e. no bank conflict
  for (const int first_row : {0, 8})
    for (const int column : {0, 8}) {
      std::set<int> groups;
      for (int r = first_row; r < first_row + 8; ++r)
        groups.insert((tile_slot(r, column) * 2 / 16) % 8);
      EXPECT_EQ(groups.size(), 8u) << first_row << "," << column;
    }
}

TEST(TileEntry, HoldsTheValueBitsLowAndTheSlotHigh) {
  EXPECT_EQ(tile_entry(0x3c00, 0), 0x3c00u);
  EXPECT_EQ(tile_entry(0x8000, 255), 0x00ff8000u);
}

TEST(TilesShape, SliceWidthsAreTheSmallestOf8To64ThatHoldN) {
  EXPECT_EQ(tiles_slice_columns(1), 8);
  EXPECT_EQ(tiles_slice_columns(8), 8);
  EXPECT_EQ(tiles_slice_columns(9), 16);
  EXPECT_EQ(tiles_slice_columns(16), 16);
  EXPECT_EQ(tiles_slice_columns(17), 32);
  EXPECT_EQ(tiles_slice_columns(33), 64);
  EXPECT_EQ(tiles_slice_columns(65), 64);
  EXPECT_EQ(tiles_slice_columns(4096), 64);
}

TEST(TilesShape, StagedRowsAreAnOddNumberOf16ByteUnits) {
  EXPECT_EQ(tiles_stage_stride(8), 8);    // 1 unit
  EXPECT_EQ(tiles_stage_stride(16), 24);  // 2 -> 3 units
  EXPECT_EQ(tiles_stage_stride(64), 72);  // 8 -> 9
  EXPECT_EQ(tiles_stage_stride(256), 264);
  EXPECT_EQ(tiles_stage_bytes(256, 16, DenseLayout::row_major), 256 * 24 * 2);
  EXPECT_EQ(tiles_stage_bytes(256, 16, DenseLayout::column_major), 16 * 264 * 2);
}

TEST(TilesShape, SplitsKUntilTheGpuHasItsWarpsAndNoFurther) {
  // 4096 x 4096 at n = 16 on 132 SMs: 256 row blocks, one slice; 4224 warps wanted -> 17 chunks
  // of ceil(256 / 17) = 16 tiles = 256 columns -> 16 chunks
  const TilesShape decode = choose_tiles_shape(4096, 4096, 16, DenseLayout::row_major, 132);
  EXPECT_EQ(decode.row_blocks, 256);
  EXPECT_EQ(decode.slice_columns, 16);
  EXPECT_EQ(decode.slices, 1);
  EXPECT_EQ(decode.chunk_columns, 256);
  EXPECT_EQ(decode.chunks, 16);
  EXPECT_EQ(decode.partial_bytes, 16 * 4096 * 16 * 4);
  // decode widths on a tall weight: the warp target alone gives 5 chunks of 832 columns; at
  // most 32 tiles a warp makes 8 of 512
  const TilesShape tall = choose_tiles_shape(14336, 4096, 16, DenseLayout::row_major, 132);
  EXPECT_EQ(tall.chunk_columns, 512);
  EXPECT_EQ(tall.chunks, 8);
  // many row blocks and slices: one chunk, no partial sums, B staged in windows
  const TilesShape prefill = choose_tiles_shape(14336, 4096, 1024, DenseLayout::row_major, 132);
  EXPECT_EQ(prefill.chunks, 1);
  EXPECT_EQ(prefill.partial_bytes, 0);
  EXPECT_EQ(prefill.slices, 16);
  EXPECT_EQ(prefill.stage_columns, 560);
  // a chunk never exceeds what shared memory holds; chunks cover every column
  for (const std::int64_t cols : {1, 15, 16, 17, 4096, 11008, 100000})
    for (const std::int64_t n : {1, 16, 64, 300})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major}) {
        const TilesShape s = choose_tiles_shape(100, cols, n, dense, 132);
        EXPECT_LE(s.stage_bytes, kTilesMaxStageBytes);
        EXPECT_EQ(s.shared_bytes, s.stage_bytes + kTilesDenseBytes);
        EXPECT_EQ(s.chunk_columns % kTileColumns, 0);
        EXPECT_EQ(s.stage_columns % kTileColumns, 0);
        EXPECT_LE(s.stage_columns, s.chunk_columns);
        EXPECT_GE(s.chunks * s.chunk_columns, cols);
        EXPECT_LT((s.chunks - 1) * s.chunk_columns, cols);
      }
}

TEST(TilesShape, FixedChunkWidthsRoundUpTo16AndStageWhatSharedMemoryHolds) {
  const TilesShape fixed = choose_tiles_shape(64, 4096, 16, DenseLayout::row_major, 132, 100);
  EXPECT_EQ(fixed.chunk_columns, 112);
  EXPECT_EQ(fixed.chunks, 37);
  EXPECT_EQ(fixed.stage_columns, 112);  // the whole chunk at once
  // a chunk wider than the stage is staged in windows: 81920 / (72 x 2) -> 560 columns of k
  const TilesShape wide = choose_tiles_shape(64, 1 << 20, 64, DenseLayout::row_major, 132, 1 << 20);
  EXPECT_EQ(wide.chunks, 1);
  EXPECT_EQ(wide.stage_columns, 560);
  EXPECT_LE(wide.stage_bytes, kTilesMaxStageBytes);
}

TEST(TilesShape, NoColumnsStillMakesOneChunkThatWritesBetaC) {
  const TilesShape s = choose_tiles_shape(40, 0, 8, DenseLayout::row_major, 132);
  EXPECT_EQ(s.chunks, 1);
  EXPECT_EQ(s.row_blocks, 3);
}

/// Decodes every tile back to (row, column, value bits) and checks the layout's promises.
template <typename Value>
void expect_layout_holds_the_matrix(const CsrMatrix<Value, std::int32_t>& matrix,
                                    const TileLayout& layout) {
  const TilesShape& s = layout.shape;
  ASSERT_EQ(layout.chunk_tile_begin.size(), static_cast<std::size_t>(s.row_blocks * s.chunks + 1));
  EXPECT_EQ(layout.chunk_tile_begin.front(), 0);
  EXPECT_EQ(layout.chunk_tile_begin.back(), layout.tile_count());
  EXPECT_EQ(layout.tiles.back().entry_begin, matrix.nnz());  // the sentinel
  EXPECT_EQ(layout.tile_count(), count_stored_tiles(matrix.rows, matrix.cols, matrix.row_ptr.data(),
                                                    matrix.col_idx.data()));
  std::vector<int> hits(static_cast<std::size_t>(matrix.nnz()), 0);
  std::int64_t next_entry = 0;
  for (std::int64_t rb = 0; rb < s.row_blocks; ++rb)
    for (std::int64_t chunk = 0; chunk < s.chunks; ++chunk) {
      const std::int64_t begin = layout.chunk_tile_begin[rb * s.chunks + chunk];
      const std::int64_t end = layout.chunk_tile_begin[rb * s.chunks + chunk + 1];
      ASSERT_LE(begin, end);
      for (std::int64_t t = begin; t < end; ++t) {
        const TileInfo info = layout.tiles[t];
        ASSERT_EQ(info.column % kTileColumns, 0);
        ASSERT_GE(info.column, chunk * s.chunk_columns);  // inside its chunk, by column
        ASSERT_LT(info.column, (chunk + 1) * s.chunk_columns);
        if (t > begin) {
          ASSERT_LT(layout.tiles[t - 1].column, info.column);
        }
        ASSERT_EQ(info.entry_begin, next_entry);  // tiles' entries back to back
        std::set<int> slots;
        int count = 0;
        for (std::int64_t e = info.entry_begin; e < layout.tiles[t + 1].entry_begin; ++e) {
          const int slot = static_cast<int>(layout.entries[e] >> 16);
          ASSERT_LT(slot, 256);
          ASSERT_TRUE(slots.insert(slot).second) << "slot " << slot << " twice";
          const std::int64_t row = rb * kTileRows + slot_row(slot);
          const std::int64_t column = info.column + slot_column(slot);
          ASSERT_LT(row, matrix.rows);
          const auto first = matrix.col_idx.begin() + matrix.row_ptr[row];
          const auto last = matrix.col_idx.begin() + matrix.row_ptr[row + 1];
          const auto found = std::lower_bound(first, last, column);
          ASSERT_TRUE(found != last && *found == column) << "no entry at " << row << "," << column;
          const auto k = static_cast<std::size_t>(found - matrix.col_idx.begin());
          ++hits[k];
          EXPECT_EQ(layout.entries[e] & 0xffffu, matrix.values[k].bits);
          ++count;
        }
        ASSERT_GT(count, 0) << "an empty tile is stored";
        next_entry += count;
      }
    }
  EXPECT_EQ(next_entry, matrix.nnz());
  for (std::size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k], 1) << "nonzero " << k;
}

std::vector<test::NamedMatrix> tiles_matrices() {
  std::vector<test::NamedMatrix> result = test::edge_case_matrices();
  result.push_back({"rows_not_a_multiple_of_16",
                    test::with_row_lengths(
                        37, {0, 5, 37, 1, 0, 0, 17, 3, 2, 9, 10, 11, 12, 1, 1, 1, 1, 36, 4}, 11)});
  result.push_back({"llm_70", generate_llm_weights(300, 200, 0.7, LlmRowProfile::uniform, 1)});
  result.push_back(
      {"llm_95_skewed", generate_llm_weights(300, 200, 0.95, LlmRowProfile::skewed, 2)});
  return result;
}

TEST(TileCensus, ListsEachRowBlocksNonEmptyTilesByColumnWithTheirNonzeros) {
  for (const test::NamedMatrix& named : tiles_matrices()) {
    if (named.matrix.nnz() > 300000) continue;
    SCOPED_TRACE(named.name);
    const auto& m = named.matrix;
    // the same, counted the plain way: nonzeros of each (row block, column tile)
    std::map<std::pair<std::int64_t, std::int32_t>, std::int32_t> expected;
    for (std::int64_t row = 0; row < m.rows; ++row)
      for (std::int64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k)
        ++expected[{row / kTileRows, m.col_idx[k] / kTileColumns}];
    const TileCensus census = census_tiles(m.rows, m.cols, m.row_ptr.data(), m.col_idx.data());
    const std::int64_t row_blocks = (m.rows + kTileRows - 1) / kTileRows;
    ASSERT_EQ(census.row_block_begin.size(), static_cast<std::size_t>(row_blocks + 1));
    EXPECT_EQ(census.stored_tiles(), static_cast<std::int64_t>(expected.size()));
    auto next = expected.begin();
    for (std::int64_t rb = 0; rb < row_blocks; ++rb)
      for (std::int64_t t = census.row_block_begin[rb]; t < census.row_block_begin[rb + 1]; ++t) {
        ASSERT_NE(next, expected.end());
        EXPECT_EQ(next->first, std::make_pair(rb, census.column_tiles[t]));  // in (rb, column) order
        EXPECT_EQ(next->second, census.nonzeros[t]);
        ++next;
      }
    EXPECT_EQ(next, expected.end());
    EXPECT_EQ(count_stored_tiles(m.rows, m.cols, m.row_ptr.data(), m.col_idx.data()),
              census.stored_tiles());
  }
}

TEST(TileLayout, StoresEveryNonzeroOnceInEveryChunkWidth) {
  for (const test::NamedMatrix& named : tiles_matrices()) {
    if (named.matrix.nnz() > 300000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::with_values<half>(named.matrix);
    for (const std::int64_t chunk_columns : {0, 16, 48, 1024})
      for (const std::int64_t n : {1, 16, 100}) {
        const TilesShape shape = choose_tiles_shape(matrix.rows, matrix.cols, n,
                                                    DenseLayout::row_major, 132, chunk_columns);
        expect_layout_holds_the_matrix(matrix, build_tile_layout(matrix, shape));
      }
  }
}

TEST(TileLayout, CostsEightBytesATileAndFourANonzero) {
  const auto matrix =
      test::with_values<half>(generate_llm_weights(256, 256, 0.7, LlmRowProfile::uniform, 3));
  const TileLayout layout =
      build_tile_layout(matrix, choose_tiles_shape(256, 256, 16, DenseLayout::row_major, 132));
  EXPECT_EQ(layout.tile_count(), 256);  // 30 % dense: every 16 x 16 tile has nonzeros
  EXPECT_EQ(layout.bytes(), (layout.tile_count() + 1) * 8 + matrix.nnz() * 4 +
                                static_cast<std::int64_t>(layout.chunk_tile_begin.size()) * 4);
}

template <typename Value>
void expect_host_model_matches_reference(const CsrMatrix<double, std::int32_t>& exact,
                                         std::int64_t n, DenseLayout dense, test::Scalars scalars,
                                         std::int64_t chunk_columns) {
  const double error = test::host_spmm_model_error<Value>(
      exact, n, dense, scalars,
      [&](const CsrMatrix<Value, std::int32_t>& matrix, const std::vector<Value>& B,
          std::vector<Value>& C) {
        const TilesShape shape =
            choose_tiles_shape(matrix.rows, matrix.cols, n, dense, 132, chunk_columns);
        tiles_host_apply(build_tile_layout(matrix, shape), B, C, n, dense,
                         static_cast<float>(scalars.alpha), static_cast<float>(scalars.beta));
      });
  EXPECT_LT(error, 1e-2) << "n = " << n << ", " << to_string(dense) << ", chunks of "
                         << chunk_columns;
}

TEST(TilesHostModel, MatchesTheReferenceInBothLayoutsWithAndWithoutSplitK) {
  for (const test::NamedMatrix& named : tiles_matrices()) {
    if (named.matrix.nnz() > 100000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::scaled_for_16_bit(named.matrix);
    for (const std::int64_t n : {1, 9, 65})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
        for (const std::int64_t chunk_columns : {0, 32})
          for (const test::Scalars scalars : test::kScalarCases) {
            expect_host_model_matches_reference<half>(matrix, n, dense, scalars, chunk_columns);
            expect_host_model_matches_reference<bfloat16>(matrix, n, dense, scalars, chunk_columns);
          }
  }
}

}  // namespace
}  // namespace tcsparse::tca
