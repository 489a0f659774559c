// tca kernel=gather on the host: how a product is cut into chunks, ranges and slices, the gather
// layout's promises (every nonzero once, windows of rows of like length, slots whose columns
// differ modulo 8), and the host model of the kernel (src/tca/tca_gather_format.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
#include "tca/tca_gather_format.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::tca {
namespace {

TEST(GatherShape, SlicesAreTheNarrowestOf8To64ThatHoldN) {
  EXPECT_EQ(choose_gather_shape(100, 100, 1).slice_columns, 8);
  EXPECT_EQ(choose_gather_shape(100, 100, 9).slice_columns, 16);
  EXPECT_EQ(choose_gather_shape(100, 100, 17).slice_columns, 32);
  const GatherShape wide = choose_gather_shape(100, 100, 65);
  EXPECT_EQ(wide.slice_columns, 64);
  EXPECT_EQ(wide.slices, 2);
}

TEST(GatherShape, AutoChunksSpan1024ColumnsABlockStages32KiBOfBAndARangeTakesAPowerOfTwoOfBlocks) {
  // n = 16: a row of B is 32 bytes, so a chunk of 1024 rows is 32 KiB, one a block
  const GatherShape square = choose_gather_shape(4096, 4096, 16);
  EXPECT_EQ(square.chunk_columns, 1024);
  EXPECT_EQ(square.chunks, 4);
  EXPECT_EQ(square.block_chunks, 1);
  EXPECT_EQ(square.range_blocks(), 4);
  EXPECT_EQ(square.stage_bytes(), 32 << 10);
  // n = 8: 16 bytes a row, two chunks a block
  EXPECT_EQ(choose_gather_shape(4096, 4096, 8).block_chunks, 2);
  // 11008 columns: 11 chunks would take 11 blocks a range and 2 a block 6; a range takes a power
  // of two of blocks, so 8 chunks of 1376 columns (43 KiB of B), one a block
  const GatherShape long_k = choose_gather_shape(4096, 11008, 16);
  EXPECT_EQ(long_k.chunk_columns, 1376);
  EXPECT_EQ(long_k.chunks, 8);
  EXPECT_EQ(long_k.block_chunks, 1);
  EXPECT_EQ(long_k.range_blocks(), 8);
  // 3000 columns: 3 chunks of 1024 become 4 of 752
  const GatherShape three = choose_gather_shape(4096, 3000, 16);
  EXPECT_EQ(three.chunk_columns, 752);
  EXPECT_EQ(three.range_blocks(), 4);
  // chunks given are kept: 3 blocks a range
  EXPECT_EQ(choose_gather_shape(4096, 3000, 16, 1024).range_blocks(), 3);
  // 60000 columns: 59 chunks; 8 a block would exceed 64 KiB, so one a block, past a cluster
  const GatherShape longer = choose_gather_shape(64, 60000, 16);
  EXPECT_EQ(longer.block_chunks, 1);
  EXPECT_GT(longer.range_blocks(), kGatherMaxClusterBlocks);
  // a narrow matrix: one chunk of its columns rounded up to 8
  const GatherShape narrow = choose_gather_shape(50, 13, 16);
  EXPECT_EQ(narrow.chunk_columns, 16);
  EXPECT_EQ(narrow.chunks, 1);
  EXPECT_EQ(narrow.block_chunks, 1);
}

TEST(GatherShape, GivenChunksRoundUpTo8AndAChunkPastTheOffsetsReachIsAParameterError) {
  const GatherShape given = choose_gather_shape(100, 1000, 16, 250);
  EXPECT_EQ(given.chunk_columns, 256);
  EXPECT_EQ(given.chunks, 4);
  EXPECT_EQ(given.block_chunks, 4);
  EXPECT_THROW(choose_gather_shape(100, 100000, 64, 100000), ParameterError);
}

TEST(GatherShape, RangesAreWholeWindowsAsManyAsWantedWithinTheOutputBytes) {
  const GatherShape shape = choose_gather_shape(4096, 4096, 16, 256);  // 4 chunks a block
  // 32 KiB of fp32 output rows, 4 tiles x 16 columns: at most 128 rows
  const GatherShape cut = gather_with_ranges(shape, 64);
  EXPECT_EQ(cut.range_rows, 64);
  EXPECT_EQ(cut.ranges, 64);
  EXPECT_EQ(gather_with_ranges(shape, 33).range_rows, 128);  // ceil(4096 / 33) = 125 -> 128
  EXPECT_EQ(gather_with_ranges(shape, 1).range_rows, 128);
  EXPECT_EQ(gather_with_ranges(choose_gather_shape(5, 5, 16), 100).range_rows, kGatherWindowRows);
}

TEST(GatherShape, StagedRowsAreSwizzledSoThatEightRowsOfDifferentResiduesFillEveryBankGroup) {
  for (const std::int64_t row_bytes : {16, 32, 64, 128})
    for (std::int64_t unit = 0; unit < row_bytes / 16; ++unit) {
      std::set<std::uint32_t> bank_groups;
      for (std::int64_t r = 40; r < 48; ++r) {
        const std::uint32_t at = gather_row_offset(r, row_bytes) ^ static_cast<std::uint32_t>(16 * unit);
        EXPECT_EQ(at / row_bytes, r) << "the unit stays in its row";
        bank_groups.insert((at / 16) % 8);
      }
      EXPECT_EQ(bank_groups.size(), 8u) << row_bytes << " bytes a row, unit " << unit;
    }
}

TEST(GatherShape, NoColumnsStillMakesOneChunkThatWritesBetaC) {
  const GatherShape s = choose_gather_shape(40, 0, 8);
  EXPECT_EQ(s.chunks, 1);
  EXPECT_EQ(s.ranges, 1);
}

/// Walks the layout back to (row, column, value bits) and checks its promises.
template <typename Value>
void expect_layout_holds_the_matrix(const CsrMatrix<Value, std::int32_t>& matrix,
                                    const GatherLayout& layout) {
  const GatherShape& s = layout.shape;
  const std::int64_t blocks = s.layout_blocks();
  ASSERT_EQ(layout.warp_window_begin.size(),
            static_cast<std::size_t>(blocks * kGatherWarpsPerBlock + 1));
  EXPECT_EQ(layout.window_group_begin.back(), layout.group_count());
  for (std::int64_t g = layout.group_count() * kGatherGroupHalfwords;
       g < static_cast<std::int64_t>(layout.groups.size()); ++g)
    ASSERT_EQ(layout.groups[g], 0) << "the groups end with a stage of zeros";
  std::map<std::pair<std::int64_t, std::int64_t>, int> hits;
  std::int64_t stored = 0;
  for (std::int64_t block = 0; block < blocks; ++block) {
    const std::int64_t range = block / s.range_blocks(), kb = block % s.range_blocks();
    const std::uint32_t first = layout.warp_window_begin[block * kGatherWarpsPerBlock];
    const std::uint32_t end = layout.warp_window_begin[(block + 1) * kGatherWarpsPerBlock];
    const std::int64_t tiles = std::min(s.block_chunks, s.chunks - kb * s.block_chunks);
    EXPECT_EQ(end - first, tiles * s.windows_per_tile()) << "every window of the block's tiles";
    std::set<std::uint16_t> rows_seen;  // tile x range_rows + row of the range
    for (std::uint32_t window = first; window < end; ++window) {
      std::int64_t previous_length = -1;
      for (int row_of_window = 0; row_of_window < kGatherWindowRows; ++row_of_window) {
        const std::uint16_t out = layout.window_rows[window * kGatherWindowRows + row_of_window];
        if (out == kGatherNoRow) continue;
        const std::int64_t tile = out / s.range_rows, row = range * s.range_rows + out % s.range_rows;
        ASSERT_LT(tile, tiles);
        ASSERT_LT(row, matrix.rows) << "a row past the matrix";
        EXPECT_TRUE(rows_seen.insert(out).second) << "row " << row << " twice in a tile";
        const std::int64_t chunk = kb * s.block_chunks + tile;
        std::int64_t length = 0;  // its nonzeros in the chunk
        for (std::int32_t k = matrix.row_ptr[row]; k < matrix.row_ptr[row + 1]; ++k)
          length += matrix.col_idx[k] / s.chunk_columns == chunk ? 1 : 0;
        if (row_of_window == 0) {
          EXPECT_EQ(layout.window_group_begin[window + 1] - layout.window_group_begin[window],
                    (length + 1) / 2)
              << "a window has a group for each two nonzeros of its first (longest) row";
        }
        if (previous_length >= 0) {
          EXPECT_LE(length, previous_length) << "longest rows first";
        }
        previous_length = length;
      }
      for (std::uint32_t group = layout.window_group_begin[window];
           group < layout.window_group_begin[window + 1]; ++group) {
        const std::uint16_t* g = layout.groups.data() + std::int64_t{group} * kGatherGroupHalfwords;
        for (int slot = 0; slot < kGatherGroupNonzeros; ++slot) {
          const std::uint16_t out = layout.window_rows[window * kGatherWindowRows + slot / 2];
          const std::uint16_t bits = g[kGatherGroupNonzeros + slot];
          const std::int64_t stage_row = g[slot] / s.row_bytes();
          ASSERT_EQ(g[slot], gather_row_offset(stage_row, s.row_bytes())) << "a swizzled row start";
          const std::int64_t column = kb * s.block_columns() + stage_row;
          ASSERT_LT(column, std::max<std::int64_t>(matrix.cols, 1)) << "a row of B past its end";
          if (out == kGatherNoRow || bits == 0) continue;  // padding (or a stored zero)
          const std::int64_t tile = out / s.range_rows, row = range * s.range_rows + out % s.range_rows;
          ASSERT_EQ(column / s.chunk_columns, kb * s.block_chunks + tile) << "in the window's tile";
          ++stored;
          const auto begin = matrix.col_idx.begin() + matrix.row_ptr[row];
          const auto last = matrix.col_idx.begin() + matrix.row_ptr[row + 1];
          const auto found = std::lower_bound(begin, last, static_cast<std::int32_t>(column));
          ASSERT_TRUE(found != last && *found == column) << row << "," << column;
          EXPECT_EQ(bits, matrix.values[found - matrix.col_idx.begin()].bits);
          ++hits[{row, column}];
        }
      }
    }
  }
  std::int64_t nonzero_values = 0;
  for (std::int64_t k = 0; k < matrix.nnz(); ++k)
    nonzero_values += matrix.values[k].bits != 0 ? 1 : 0;
  EXPECT_EQ(stored, nonzero_values);
  for (const auto& [where, count] : hits) ASSERT_EQ(count, 1) << where.first << "," << where.second;
}

std::vector<test::NamedMatrix> gather_matrices() {
  std::vector<test::NamedMatrix> result = test::edge_case_matrices();
  result.push_back({"rows_not_a_multiple_of_16",
                    test::with_row_lengths(
                        37, {0, 5, 37, 1, 0, 0, 17, 3, 2, 9, 10, 11, 12, 1, 1, 1, 1, 36, 4}, 11)});
  result.push_back({"llm_70", generate_llm_weights(300, 700, 0.7, LlmRowProfile::uniform, 1)});
  result.push_back(
      {"llm_95_skewed", generate_llm_weights(300, 1100, 0.95, LlmRowProfile::skewed, 2)});
  return result;
}

TEST(GatherLayout, StoresEveryNonzeroOnceInWindowsOfRowsLongestFirstInEveryCut) {
  for (const test::NamedMatrix& named : gather_matrices()) {
    if (named.matrix.nnz() > 100000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::with_values<half>(test::scaled_for_16_bit(named.matrix));
    for (const std::int64_t chunk_columns : {0, 8, 40, 256, 1000})
      for (const std::int64_t ranges : {1, 3, 1000}) {
        SCOPED_TRACE(chunk_columns);
        const GatherShape shape = gather_with_ranges(
            choose_gather_shape(matrix.rows, matrix.cols, 16, chunk_columns), ranges);
        expect_layout_holds_the_matrix(matrix, build_gather_layout(matrix, shape));
      }
  }
}

/// A window's rows whose nonzeros lie at columns `column(row, j)`, j < length.
template <typename Column>
CsrMatrix<half, std::int32_t> window_of_rows(std::int32_t cols, std::int32_t length,
                                             Column column) {
  CsrMatrix<double, std::int32_t> m;
  m.rows = kGatherWindowRows;
  m.cols = cols;
  for (std::int32_t row = 0; row < m.rows; ++row) {
    for (std::int32_t j = 0; j < length; ++j) {
      m.col_idx.push_back(column(row, j));
      m.values.push_back(1.0 + row + j);
    }
    m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
  }
  return test::with_values<half>(test::scaled_for_16_bit(m));
}

TEST(GatherLayout, GivesTheSlotsOfAnOctetColumnsOfDifferentResiduesWhereTheRowsAllowIt) {
  // dense rows: every residue as often in every row, so no octet needs to repeat one
  const auto dense = window_of_rows(128, 128, [](std::int32_t, std::int32_t j) { return j; });
  // (one chunk of 128 columns)
  const GatherLayout spread =
      build_gather_layout(dense, choose_gather_shape(dense.rows, dense.cols, 16));
  EXPECT_EQ(spread.group_count(), 64);  // two nonzeros of each row a group
  EXPECT_EQ(spread.octet_conflicts, 0);
  // one column for every row: every octet (four rows, one nonzero and one zero each) repeats it
  const auto same = window_of_rows(64, 1, [](std::int32_t, std::int32_t) { return 5; });
  const GatherLayout repeated =
      build_gather_layout(same, choose_gather_shape(same.rows, same.cols, 16));
  EXPECT_EQ(repeated.group_count(), 1);
  EXPECT_EQ(repeated.octet_conflicts, 2);
  // random rows at 50 % (about 16 nonzeros of each residue a row in a chunk of 256 columns):
  // most octets find 8 residues; the rest are the rows' last nonzeros, whose residues run out
  const auto random = test::with_values<half>(test::scaled_for_16_bit(
      generate_llm_weights(64, 1024, 0.5, LlmRowProfile::uniform, 3)));
  const GatherLayout mostly =
      build_gather_layout(random, choose_gather_shape(random.rows, random.cols, 16, 256));
  EXPECT_LT(static_cast<double>(mostly.octet_conflicts),
            0.25 * static_cast<double>(2 * mostly.group_count()));
}

TEST(GatherLayout, Costs64BytesAGroupOfSixteenSlots) {
  const auto matrix = test::with_values<half>(test::scaled_for_16_bit(
      generate_llm_weights(64, 512, 0.9, LlmRowProfile::uniform, 5)));
  const GatherLayout layout =
      build_gather_layout(matrix, choose_gather_shape(matrix.rows, matrix.cols, 8));
  EXPECT_EQ(static_cast<std::int64_t>(layout.groups.size()) * 2,
            (layout.group_count() + kGatherStageGroups) * kGatherGroupBytes);
  EXPECT_GE(layout.group_count() * kGatherGroupNonzeros, matrix.nnz());
  const Json details = gather_details(layout);
  EXPECT_EQ(details["groups"], layout.group_count());
  EXPECT_GE(details["padding_ratio"].get<double>(), 0.0);
  EXPECT_LT(details["padding_ratio"].get<double>(), 0.5);
}

template <typename Value>
void expect_host_model_matches_reference(const CsrMatrix<double, std::int32_t>& exact,
                                         std::int64_t n, DenseLayout dense, test::Scalars scalars,
                                         std::int64_t chunk_columns) {
  const double error = test::host_spmm_model_error<Value>(
      exact, n, dense, scalars,
      [&](const CsrMatrix<Value, std::int32_t>& matrix, const std::vector<Value>& B,
          std::vector<Value>& C) {
        const GatherShape shape = gather_with_ranges(
            choose_gather_shape(matrix.rows, matrix.cols, n, chunk_columns), 7);
        gather_host_apply(build_gather_layout(matrix, shape), B, C, n, dense,
                          static_cast<float>(scalars.alpha), static_cast<float>(scalars.beta));
      });
  EXPECT_LT(error, 1e-2) << "n = " << n << ", " << to_string(dense) << ", chunks of "
                         << chunk_columns;
}

TEST(GatherHostModel, MatchesTheReferenceInBothLayoutsWithAndWithoutSplitK) {
  for (const test::NamedMatrix& named : gather_matrices()) {
    if (named.matrix.nnz() > 100000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::scaled_for_16_bit(named.matrix);
    for (const std::int64_t n : {1, 9, 65})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
        for (const std::int64_t chunk_columns : {0, 64})
          for (const test::Scalars scalars : test::kScalarCases) {
            expect_host_model_matches_reference<half>(matrix, n, dense, scalars, chunk_columns);
            expect_host_model_matches_reference<bfloat16>(matrix, n, dense, scalars,
                                                          chunk_columns);
          }
  }
}

}  // namespace
}  // namespace tcsparse::tca
