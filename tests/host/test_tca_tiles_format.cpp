// tca kernel=tiles on the host: where a tile element sits in the m16n8k16 A fragment, how a
// product is cut into slices, segments and chunks, the tile layout's promises, and the host model
// of the kernel (src/tca/tca_tiles_format.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/parallel.hpp"
#include "common/test_matrices.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::tca {
namespace {

TEST(FragmentPosition, IsTheM16n8k16AFragmentOfThePtxIsa) {
  // lane = 4 g + q holds register 0 at (g, 2q), 1 at (g + 8, 2q), 2 at (g, 2q + 8), 3 at
  // (g + 8, 2q + 8), each with the next column in its high half
  EXPECT_EQ(fragment_lane(0, 0), 0);
  EXPECT_EQ(fragment_register(0, 0), 0);
  EXPECT_EQ(fragment_lane(0, 3), 1);
  EXPECT_EQ(fragment_half(3), 1);
  EXPECT_EQ(fragment_lane(9, 0), 4);
  EXPECT_EQ(fragment_register(9, 0), 1);
  EXPECT_EQ(fragment_register(2, 12), 2);
  EXPECT_EQ(fragment_lane(2, 12), 10);
  EXPECT_EQ(fragment_register(15, 15), 3);
  EXPECT_EQ(fragment_lane(15, 15), 31);
}

TEST(FragmentPosition, IsOneToOneAndInvertedByRowAndColumn) {
  std::set<std::tuple<int, int, int>> seen;
  for (int r = 0; r < kTileRows; ++r)
    for (int c = 0; c < kTileColumns; ++c) {
      const int lane = fragment_lane(r, c), reg = fragment_register(r, c), half = fragment_half(c);
      ASSERT_TRUE(lane >= 0 && lane < 32 && reg >= 0 && reg < kFragmentRegisters);
      EXPECT_TRUE(seen.insert({lane, reg, half}).second) << r << "," << c;
      EXPECT_EQ(fragment_row(lane, reg), r);
      EXPECT_EQ(fragment_column(lane, reg, half), c);
    }
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
  // a segment of B: 256 rows of k (row-major) or slice-columns rows of 256 k (column-major)
  EXPECT_EQ(tiles_stage_bytes(16, DenseLayout::row_major), 256 * 24 * 2);
  EXPECT_EQ(tiles_stage_bytes(16, DenseLayout::column_major), 16 * 264 * 2);
}

TEST(TilesShape, SplitsKAtDecodeWidthsInTheNarrowestChunksThatRunInOneWaveAndToTheWarpTargetAbove) {
  // 4096 x 4096 at n = 16: 256 row blocks, one slice, 16 segments in 8 chunks of two
  const TilesShape decode = choose_tiles_shape(4096, 4096, 16, DenseLayout::row_major, 132);
  EXPECT_EQ(decode.row_blocks, 256);
  EXPECT_EQ(decode.segments, 16);
  EXPECT_EQ(decode.slice_columns, 16);
  EXPECT_EQ(decode.slices, 1);
  EXPECT_EQ(decode.chunk_segments, 2);
  EXPECT_EQ(decode.chunk_columns(), 512);
  EXPECT_EQ(decode.chunks, 8);
  EXPECT_EQ(decode.partial_bytes, 8 * 4096 * 16 * 4);
  // the narrowest chunk whose blocks all run at once (264 on 132 SMs): 14336 x 4096 has 112
  // blocks of 8 row blocks a chunk; 8 segments (2 chunks: 224 blocks) is the first to fit
  const TilesShape tall = choose_tiles_shape(14336, 4096, 64, DenseLayout::row_major, 132);
  EXPECT_EQ(tall.chunk_columns(), 2048);
  EXPECT_EQ(tall.chunks, 2);
  EXPECT_EQ(tall.partial_bytes, 2 * 14336 * 64 * 4);
  // 11008 x 4096 (86 block rows): 2 .. 5 segments give 8, 6, 4, 4 chunks (688 .. 344 blocks),
  // 6 gives 3 chunks (258 blocks) of 6, 6 and 4 segments
  const TilesShape eleven = choose_tiles_shape(11008, 4096, 16, DenseLayout::row_major, 132);
  EXPECT_EQ(eleven.chunk_columns(), 1536);
  EXPECT_EQ(eleven.chunks, 3);
  // 4096 x 11008 (32 block rows, 43 segments): 6 segments, 8 chunks (256 blocks)
  const TilesShape wide = choose_tiles_shape(4096, 11008, 16, DenseLayout::row_major, 132);
  EXPECT_EQ(wide.chunk_columns(), 1536);
  EXPECT_EQ(wide.chunks, 8);
  // on a GPU of half the SMs (132 blocks at once) 4096 x 4096 (32 block rows, 16 segments) fits
  // at 4 segments (4 chunks)
  EXPECT_EQ(choose_tiles_shape(4096, 4096, 16, DenseLayout::row_major, 66).chunk_columns(), 1024);
  // where no chunk of up to 8 segments fits one wave (65536 x 4096: 512 block rows), the
  // 2-segment chunks are doubled while the last wave stays as full: 4096 blocks fill 15.5 of 16
  // waves, 2048 (4 segments) 7.76 of 8, 1024 (8) 3.88 of 4: all 0.97, 8 is taken
  EXPECT_EQ(choose_tiles_shape(65536, 4096, 16, DenseLayout::row_major, 132).chunk_segments, 8);
  // a slice width given: n = 256 in 16 slices of 16 columns, the warp target's chunks
  const TilesShape narrow = choose_tiles_shape(4096, 4096, 256, DenseLayout::row_major, 132, 0, 16);
  EXPECT_EQ(narrow.slice_columns, 16);
  EXPECT_EQ(narrow.slices, 16);
  EXPECT_EQ(narrow.chunks, 1);  // 256 row blocks x 16 slices = 4096 units: 1584 warps wanted
  // above 64 columns: 4096 x 4096 at n = 128 has 512 (row block, slice) units; 1584 warps wanted
  // (12 an SM) -> 4 chunks of 4 segments
  const TilesShape wider = choose_tiles_shape(4096, 4096, 128, DenseLayout::row_major, 132);
  EXPECT_EQ(wider.slices, 2);
  EXPECT_EQ(wider.chunk_segments, 4);
  EXPECT_EQ(wider.chunks, 4);
  // many row blocks and slices: one chunk, no partial sums
  const TilesShape prefill = choose_tiles_shape(14336, 4096, 1024, DenseLayout::row_major, 132);
  EXPECT_EQ(prefill.chunks, 1);
  EXPECT_EQ(prefill.partial_bytes, 0);
  EXPECT_EQ(prefill.slices, 16);
  // the staged segment of B leaves room for several blocks an SM; chunks cover every segment
  for (const std::int64_t cols : {1, 15, 16, 17, 256, 257, 4096, 11008, 100000})
    for (const std::int64_t n : {1, 16, 64, 300})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major}) {
        const TilesShape s = choose_tiles_shape(100, cols, n, dense, 132);
        EXPECT_LE(s.stage_bytes, 256 * 72 * 2);
        EXPECT_EQ(s.segments, (cols + 255) / 256);
        EXPECT_GE(s.chunks * s.chunk_segments, s.segments);
        EXPECT_LT((s.chunks - 1) * s.chunk_segments, s.segments);
      }
}

TEST(TilesShape, WideNRunsInSlicesOf64NarrowedTo32Or16WhileTheBlocksAreFewerThanTheSms) {
  // a 512 x 512 weight (4 row groups, 2 segments) at n = 256 has 32 blocks in slices of 64 (2
  // chunks), 64 in slices of 32, 128 in slices of 16: 16 is as narrow as it goes
  EXPECT_EQ(choose_tiles_shape(512, 512, 256, DenseLayout::column_major, 132).slice_columns, 16);
  // ... at n = 2048, 256 blocks in slices of 64 (32 slices x 2 chunks x 4 row groups)
  const TilesShape dlmc_prefill = choose_tiles_shape(512, 512, 2048, DenseLayout::column_major, 132);
  EXPECT_EQ(dlmc_prefill.slice_columns, 64);
  EXPECT_EQ(dlmc_prefill.blocks(), 256);
  // 1024 x 256 (one segment, 8 row groups) at n = 256: 32 blocks in slices of 64, 64 of 32, 128
  // of 16; on a GPU of 60 SMs 64 blocks are enough at 32
  EXPECT_EQ(choose_tiles_shape(1024, 256, 256, DenseLayout::row_major, 60).slice_columns, 32);
  EXPECT_EQ(choose_tiles_shape(4096, 4096, 256, DenseLayout::row_major, 132).slice_columns, 64);
}

TEST(TilesShape, FixedChunkWidthsRoundUpToWholeSegments) {
  const TilesShape fixed = choose_tiles_shape(64, 4096, 16, DenseLayout::row_major, 132, 100);
  EXPECT_EQ(fixed.chunk_columns(), 256);
  EXPECT_EQ(fixed.chunks, 16);
  const TilesShape three = choose_tiles_shape(64, 4096, 16, DenseLayout::row_major, 132, 513);
  EXPECT_EQ(three.chunk_segments, 3);
  EXPECT_EQ(three.chunks, 6);  // 16 segments: five chunks of 3 and one of 1
  const TilesShape wide = choose_tiles_shape(64, 1 << 20, 64, DenseLayout::row_major, 132, 1 << 20);
  EXPECT_EQ(wide.chunks, 1);
  EXPECT_EQ(wide.segments, 4096);
}

TEST(TilesShape, NoColumnsStillMakesOneChunkThatWritesBetaC) {
  const TilesShape s = choose_tiles_shape(40, 0, 8, DenseLayout::row_major, 132);
  EXPECT_EQ(s.chunks, 1);
  EXPECT_EQ(s.segments, 0);
  EXPECT_EQ(s.row_blocks, 3);
}

/// Decodes every run back to (row, column, value bits) and checks the layout's promises.
template <typename Value>
void expect_layout_holds_the_matrix(const CsrMatrix<Value, std::int32_t>& matrix,
                                    const TileLayout& layout) {
  const TilesShape& s = layout.shape;
  ASSERT_EQ(layout.segment_word_begin.size(),
            static_cast<std::size_t>(s.row_blocks * s.segments + 1));
  EXPECT_EQ(layout.segment_word_begin.front(), 0);
  EXPECT_EQ(layout.segment_word_begin.back(), static_cast<std::int64_t>(layout.words.size()));
  EXPECT_EQ(layout.stored_tiles, count_stored_tiles(matrix.rows, matrix.cols,
                                                    matrix.row_ptr.data(), matrix.col_idx.data()));
  std::vector<int> hits(static_cast<std::size_t>(matrix.nnz()), 0);
  std::int64_t pairs = 0;
  const auto nonzero_at = [&](std::int64_t row, std::int64_t column) -> std::int64_t {
    const auto first = matrix.col_idx.begin() + matrix.row_ptr[row];
    const auto last = matrix.col_idx.begin() + matrix.row_ptr[row + 1];
    const auto found = std::lower_bound(first, last, column);
    return found != last && *found == column ? found - matrix.col_idx.begin() : -1;
  };
  for (std::int64_t rb = 0; rb < s.row_blocks; ++rb)
    for (std::int64_t segment = 0; segment < s.segments; ++segment) {
      const std::int64_t slot = rb * s.segments + segment;
      const std::int64_t begin = layout.segment_word_begin[slot];
      const std::int64_t end = layout.segment_word_begin[slot + 1];
      ASSERT_EQ(begin % 4, 0);  // 16-byte runs
      ASSERT_EQ(end % 4, 0);
      if (begin == end) continue;  // no nonzeros in the segment
      std::int64_t next = begin + kSegmentMaskWords;
      for (int word = 0; word < kSegmentMaskWords; ++word) {
        const int tile = word / kFragmentRegisters, reg = word % kFragmentRegisters;
        for (int lane = 0; lane < 32; ++lane) {
          const bool present = (layout.words[begin + word] >> lane) & 1u;
          std::uint32_t pair = 0;
          if (present) {
            ASSERT_LT(next, end);
            pair = layout.words[next++];
            ++pairs;
          }
          for (int half = 0; half < 2; ++half) {
            const std::int64_t row = rb * kTileRows + fragment_row(lane, reg);
            const std::int64_t column = segment * kTilesSegmentColumns + tile * kTileColumns +
                                        fragment_column(lane, reg, half);
            const auto bits = static_cast<std::uint16_t>(pair >> (16 * half));
            const std::int64_t k =
                row < matrix.rows && column < matrix.cols ? nonzero_at(row, column) : -1;
            if (k < 0) {
              ASSERT_EQ(bits, 0u) << "a value where the matrix has none: " << row << "," << column;
              continue;
            }
            ASSERT_TRUE(present) << "nonzero " << k << " missing from the masks";
            ++hits[static_cast<std::size_t>(k)];
            EXPECT_EQ(bits, matrix.values[static_cast<std::size_t>(k)].bits);
          }
        }
      }
      ASSERT_LE(end - next, 3) << "a run pads to 16 bytes, no further";
      for (; next < end; ++next) EXPECT_EQ(layout.words[next], 0u);
    }
  EXPECT_EQ(pairs, layout.pairs);
  for (std::size_t k = 0; k < hits.size(); ++k) ASSERT_EQ(hits[k], 1) << "nonzero " << k;
}

std::vector<test::NamedMatrix> tiles_matrices() {
  std::vector<test::NamedMatrix> result = test::edge_case_matrices();
  result.push_back({"rows_not_a_multiple_of_16",
                    test::with_row_lengths(
                        37, {0, 5, 37, 1, 0, 0, 17, 3, 2, 9, 10, 11, 12, 1, 1, 1, 1, 36, 4}, 11)});
  // three and five segments of 256 columns, the last one partial
  result.push_back({"llm_70", generate_llm_weights(300, 700, 0.7, LlmRowProfile::uniform, 1)});
  result.push_back(
      {"llm_95_skewed", generate_llm_weights(300, 1100, 0.95, LlmRowProfile::skewed, 2)});
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

TEST(TileCensus, CountsTheSameTilesOnSeveralThreads) {
  // 210 k nonzeros: count_stored_tiles splits the row blocks between threads
  const auto m = generate_llm_weights(1024, 2048, 0.9, LlmRowProfile::skewed, 4);
  ASSERT_GT(m.nnz(), 4 * detail::kItemsPerThread);
  EXPECT_EQ(count_stored_tiles(m.rows, m.cols, m.row_ptr.data(), m.col_idx.data()),
            census_tiles(m.rows, m.cols, m.row_ptr.data(), m.col_idx.data()).stored_tiles());
}

TEST(TileLayout, StoresEveryNonzeroOnceInItsFragmentPairInEveryChunkWidth) {
  for (const test::NamedMatrix& named : tiles_matrices()) {
    if (named.matrix.nnz() > 300000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::with_values<half>(named.matrix);
    for (const std::int64_t chunk_columns : {0, 16, 300, 1024})
      for (const std::int64_t n : {1, 16, 100}) {
        const TilesShape shape = choose_tiles_shape(matrix.rows, matrix.cols, n,
                                                    DenseLayout::row_major, 132, chunk_columns);
        expect_layout_holds_the_matrix(matrix, build_tile_layout(matrix, shape));
      }
  }
}

TEST(TileLayout, HoldsAMatrixBuiltByRowBlocksOnSeveralThreads) {
  // 210 k nonzeros: the builder's two passes run on several threads (detail::threads_for)
  const auto matrix =
      test::with_values<half>(generate_llm_weights(1024, 2048, 0.9, LlmRowProfile::skewed, 4));
  ASSERT_GT(matrix.nnz(), 4 * detail::kItemsPerThread);
  expect_layout_holds_the_matrix(
      matrix, build_tile_layout(matrix, choose_tiles_shape(1024, 2048, 16,
                                                           DenseLayout::row_major, 132)));
}

TEST(TileLayout, Costs256BytesANonEmptySegmentAnd4ANonEmptyPair) {
  const auto matrix =
      test::with_values<half>(generate_llm_weights(256, 600, 0.7, LlmRowProfile::uniform, 3));
  const TileLayout layout =
      build_tile_layout(matrix, choose_tiles_shape(256, 600, 16, DenseLayout::row_major, 132));
  EXPECT_EQ(layout.stored_tiles, 16 * 38);  // 30 % dense: every 16 x 16 tile has nonzeros
  // a pair holds one or two of the nonzeros
  EXPECT_GE(layout.pairs, (matrix.nnz() + 1) / 2);
  EXPECT_LE(layout.pairs, matrix.nnz());
  // 16 row blocks x 3 segments, every one with nonzeros; each run padded to 16 bytes
  EXPECT_GE(layout.bytes(), 16 * 3 * 256 + layout.pairs * 4 + (16 * 3 + 1) * 4);
  EXPECT_LE(layout.bytes(), 16 * 3 * (256 + 12) + layout.pairs * 4 + (16 * 3 + 1) * 4);
  EXPECT_EQ(tiles_segment_slots(256, 600), 16 * 3);
}

TEST(TileLayout, StoresNothingForASegmentWithoutNonzeros) {
  // nonzeros in columns 0-255 and 512-767 only: the middle segment's run is empty
  CsrMatrix<half, std::int32_t> matrix;
  matrix.rows = 3;
  matrix.cols = 800;
  matrix.row_ptr = {0, 2, 2, 3};
  matrix.col_idx = {1, 600, 255};
  matrix.values = {half(1.0f), half(2.0f), half(3.0f)};
  const TileLayout layout =
      build_tile_layout(matrix, choose_tiles_shape(3, 800, 8, DenseLayout::row_major, 132));
  ASSERT_EQ(layout.segment_word_begin.size(), 5u);  // 1 row block x 4 segments + 1
  EXPECT_EQ(layout.segment_word_begin[1] - layout.segment_word_begin[0], 68);  // 64 + 2 -> 68
  EXPECT_EQ(layout.segment_word_begin[2], layout.segment_word_begin[1]);
  EXPECT_EQ(layout.segment_word_begin[3] - layout.segment_word_begin[2], 68);  // 64 + 1 -> 68
  EXPECT_EQ(layout.segment_word_begin[4], layout.segment_word_begin[3]);
  EXPECT_EQ(layout.pairs, 3);
  expect_layout_holds_the_matrix(matrix, layout);
}

TEST(TileLayout, ItsLongestRunIsTheLargestGapBetweenRunBegins) {
  TileLayout layout;
  EXPECT_EQ(tiles_longest_run_words(layout), 0);  // no segments
  layout.segment_word_begin = {0, 68, 68, 200, 264};
  EXPECT_EQ(tiles_longest_run_words(layout), 132);
}

TEST(TileLayout, AWarpsStageHoldsItsLongestRunOrWhatTheBudgetHoldsButAlwaysTheMasks) {
  // 8 warps x 2 stages x 4 bytes: 64 bytes of budget a staged word
  EXPECT_EQ(tiles_run_stage_words(132, 1 << 20), 136);  // the longest run, strictly shorter
  EXPECT_EQ(tiles_run_stage_words(130, 1 << 20), 136);  // rounded up to 16 bytes first
  EXPECT_EQ(tiles_run_stage_words(2112, 64 * 784 + 63), 784);  // capped, whole 16 bytes
  EXPECT_EQ(tiles_run_stage_words(2112, 64 * 786), 784);
  EXPECT_EQ(tiles_run_stage_words(0, 1 << 20), kSegmentMaskWords);  // the masks at least
  EXPECT_EQ(tiles_run_stage_words(2112, 0), kSegmentMaskWords);
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
        for (const std::int64_t chunk_columns : {0, 256})
          for (const test::Scalars scalars : test::kScalarCases) {
            expect_host_model_matches_reference<half>(matrix, n, dense, scalars, chunk_columns);
            expect_host_model_matches_reference<bfloat16>(matrix, n, dense, scalars, chunk_columns);
          }
  }
}

}  // namespace
}  // namespace tcsparse::tca
