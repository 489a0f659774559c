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

TEST(GatherShape, AutoChunksAreTheFewestBlocksWhoseRowsOfBFit128KiBAPowerOfTwoUpToFour) {
  // n = 16: a row of B is 32 bytes, so 4096 rows are 128 KiB: one block stages all of B
  const GatherShape square = choose_gather_shape(4096, 4096, 16);
  EXPECT_EQ(square.chunk_columns, 4096);
  EXPECT_EQ(square.chunks, 1);
  EXPECT_EQ(square.range_blocks(), 1);
  EXPECT_EQ(square.stage_bytes(), 128 << 10);
  EXPECT_EQ(choose_gather_shape(4096, 4096, 8).stage_bytes(), 64 << 10);  // 16 bytes a row
  // n = 32: 256 KiB of B, two blocks of 2048 rows
  const GatherShape wide = choose_gather_shape(4096, 4096, 32);
  EXPECT_EQ(wide.chunk_columns, 2048);
  EXPECT_EQ(wide.range_blocks(), 2);
  // 11008 columns at n = 16: 344 KiB would take 3 blocks; a range takes a power of two, so 4 of
  // 2752 columns (86 KiB of B)
  const GatherShape long_k = choose_gather_shape(4096, 11008, 16);
  EXPECT_EQ(long_k.chunk_columns, 2752);
  EXPECT_EQ(long_k.chunks, 4);
  // 6000 columns at n = 32 (64 bytes a row): 3 blocks become 4 of 1504 columns
  const GatherShape three = choose_gather_shape(4096, 6000, 32);
  EXPECT_EQ(three.chunk_columns, 1504);
  EXPECT_EQ(three.range_blocks(), 4);
  // 11008 columns at n = 32: 688 KiB, 6 blocks of 1840 columns (a power of two up to 4 only)
  const GatherShape six = choose_gather_shape(4096, 11008, 32);
  EXPECT_EQ(six.chunk_columns, 1840);
  EXPECT_EQ(six.range_blocks(), 6);
  // chunks given are kept: 3 blocks a range
  EXPECT_EQ(choose_gather_shape(4096, 3000, 16, 1024).range_blocks(), 3);
  // 60000 columns at n = 16: 15 blocks, past a cluster (not rounded to a power of two)
  const GatherShape longer = choose_gather_shape(64, 60000, 16);
  EXPECT_EQ(longer.chunk_columns, 4000);
  EXPECT_EQ(longer.range_blocks(), 15);
  // a narrow matrix: one chunk of its columns rounded up to 8
  const GatherShape narrow = choose_gather_shape(50, 13, 16);
  EXPECT_EQ(narrow.chunk_columns, 16);
  EXPECT_EQ(narrow.chunks, 1);
}

TEST(GatherShape, GivenChunksRoundUpTo8AndAStagePast128KiBIsAParameterError) {
  const GatherShape given = choose_gather_shape(100, 1000, 16, 250);
  EXPECT_EQ(given.chunk_columns, 256);
  EXPECT_EQ(given.chunks, 4);
  EXPECT_EQ(choose_gather_shape(100, 5000, 16, 4096).stage_bytes(), kGatherMaxStageBytes);
  EXPECT_THROW(choose_gather_shape(100, 5000, 16, 4104), ParameterError);
  EXPECT_THROW(choose_gather_shape(100, 100000, 32, 100000), ParameterError);
}

TEST(GatherShape, RangesAreAsManyAsWantedOfEqualRowsWithinTheOutputBytes) {
  const GatherShape shape = choose_gather_shape(4096, 4096, 16);
  // 32 KiB of fp32 output rows, 16 columns: at most 512 rows
  EXPECT_EQ(shape.range_rows, 512);
  EXPECT_EQ(shape.ranges, 8);
  const GatherShape wave = gather_with_ranges(shape, 132);  // ceil(4096 / 132) = 32 rows
  EXPECT_EQ(wave.range_rows, 32);
  EXPECT_EQ(wave.ranges, 128);
  const GatherShape uneven = gather_with_ranges(shape, 100);  // not whole windows: 41 rows
  EXPECT_EQ(uneven.range_rows, 41);
  EXPECT_EQ(uneven.ranges, 100);
  EXPECT_EQ(uneven.windows_per_tile(), 6);
  EXPECT_EQ(gather_with_ranges(shape, 1).range_rows, 512);
  EXPECT_EQ(gather_with_ranges(choose_gather_shape(5, 5, 16), 100).range_rows, 1);
}

/// The stage is in 128-byte lines swizzled as the TMA's 128-byte mode places a box of whole lines
/// (unit u of line L at u ^ (L % 8)): every row's units stay in its own 16-byte units of its line,
/// the rows fill the stage without gaps, each unit lies where that swizzle puts it, 8 consecutive
/// lines spread each unit over the 8 bank groups, and so do rows 0-7.
TEST(GatherShape, StagedRowsLieInLinesSwizzledAsTheTensorCopiesPlaceThem) {
  for (const std::int64_t row_bytes : {16, 32, 64, 128}) {
    SCOPED_TRACE(row_bytes);
    const std::int64_t rows_a_line = 128 / row_bytes, rows = 8 * 8 * rows_a_line;
    std::set<std::uint32_t> units;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t h = 0; h < row_bytes / 16; ++h) {
        const std::uint32_t at = gather_row_offset(r, row_bytes) ^ static_cast<std::uint32_t>(16 * h);
        const std::int64_t line = r / rows_a_line, unit = r % rows_a_line * (row_bytes / 16) + h;
        EXPECT_EQ(at, 128 * line + 16 * (unit ^ (line % 8))) << "row " << r << ", unit " << h;
        if (h == 0) {
          EXPECT_EQ(gather_stage_row(at, row_bytes), r) << "the inverse";
        }
        units.insert(at);
      }
    EXPECT_EQ(units.size(), static_cast<std::size_t>(rows * row_bytes / 16)) << "no gaps";
    EXPECT_EQ(*units.rbegin(), static_cast<std::uint32_t>(rows * row_bytes - 16));
    std::set<int> first_rows;
    for (std::int64_t r = 0; r < 8; ++r) first_rows.insert(gather_bank_group(r, row_bytes));
    EXPECT_EQ(first_rows.size(), 8u);
    for (std::int64_t h = 0; h < row_bytes / 16; ++h) {  // rows rows_a_line apart: one a line
      std::set<std::uint32_t> bank_groups;
      for (std::int64_t line = 40; line < 48; ++line)
        bank_groups.insert(
            (gather_row_offset(line * rows_a_line, row_bytes) ^ static_cast<std::uint32_t>(16 * h)) /
            16 % 8);
      EXPECT_EQ(bank_groups.size(), 8u) << "unit " << h;
    }
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
  ASSERT_EQ(layout.warp_group_begin.size(),
            static_cast<std::size_t>(blocks * kGatherWarpsPerBlock + 1));
  ASSERT_EQ(layout.warp_first_window.size(), static_cast<std::size_t>(blocks * kGatherWarpsPerBlock));
  EXPECT_EQ(layout.window_group_begin.back(), layout.group_count());
  EXPECT_EQ(layout.warp_group_begin.back(), layout.group_count());
  for (std::int64_t g = layout.group_count() * kGatherGroupHalfwords;
       g < static_cast<std::int64_t>(layout.groups.size()); ++g)
    ASSERT_EQ(layout.groups[g], 0) << "the groups end with a stage of zeros";
  std::map<std::pair<std::int64_t, std::int64_t>, int> hits;
  std::int64_t stored = 0;
  for (std::int64_t block = 0; block < blocks; ++block) {
    const std::int64_t range = block / s.range_blocks(), kb = block % s.range_blocks();
    const std::uint32_t* begin = layout.warp_group_begin.data() + block * kGatherWarpsPerBlock;
    const std::uint32_t block_groups = begin[kGatherWarpsPerBlock] - begin[0];
    for (int w = 0; w < kGatherWarpsPerBlock; ++w) {
      const std::uint32_t share = begin[w + 1] - begin[w];
      const std::uint32_t quads = block_groups / kGatherQuadGroups;
      EXPECT_EQ(share % kGatherQuadGroups, 0u) << "whole quads";
      EXPECT_LE(share / kGatherQuadGroups, quads / kGatherWarpsPerBlock + 1) << "even shares";
      EXPECT_GE(share / kGatherQuadGroups, quads / kGatherWarpsPerBlock) << "even shares";
      if (share == 0) continue;
      const std::uint32_t first = layout.warp_first_window[block * kGatherWarpsPerBlock + w];
      ASSERT_LT(first, layout.windows());
      EXPECT_LE(layout.window_group_begin[first], begin[w]) << "the warp's first window holds";
      EXPECT_GT(layout.window_group_begin[first + 1], begin[w]) << "its first group";
    }
    if (block_groups == 0) continue;
    std::set<std::uint16_t> rows_seen;  // rows of the range
    for (std::uint32_t window = layout.warp_first_window[block * kGatherWarpsPerBlock];
         window < layout.windows() && layout.window_group_begin[window] < begin[kGatherWarpsPerBlock];
         ++window) {
      ASSERT_GT(layout.window_group_begin[window + 1], layout.window_group_begin[window])
          << "windows are never empty";
      ASSERT_EQ(layout.window_group_begin[window] % kGatherQuadGroups, 0u) << "whole quads";
      std::int64_t previous_length = -1;
      for (int row_of_window = 0; row_of_window < kGatherWindowRows; ++row_of_window) {
        const std::uint16_t out = layout.window_rows[window * kGatherWindowRows + row_of_window];
        if (out == kGatherNoRow) continue;
        ASSERT_LT(out, s.range_rows);
        const std::int64_t row = range * s.range_rows + out;
        ASSERT_LT(row, matrix.rows) << "a row past the matrix";
        EXPECT_TRUE(rows_seen.insert(out).second) << "row " << row << " twice in a tile";
        std::int64_t length = 0;  // its nonzeros in the chunk
        for (std::int32_t k = matrix.row_ptr[row]; k < matrix.row_ptr[row + 1]; ++k)
          length += matrix.col_idx[k] / s.chunk_columns == kb ? 1 : 0;
        if (row_of_window == 0) {
          EXPECT_EQ(layout.window_group_begin[window + 1] - layout.window_group_begin[window],
                    ((length + 1) / 2 + kGatherQuadGroups - 1) / kGatherQuadGroups *
                        kGatherQuadGroups)
              << "a window has a group for each two nonzeros of its first (longest) row, in "
                 "whole quads";
        }
        if (previous_length >= 0) {
          EXPECT_LE(length, previous_length) << "longest rows first";
        }
        previous_length = length;
      }
      for (std::uint32_t group = layout.window_group_begin[window];
           group < layout.window_group_begin[window + 1]; ++group) {
        for (int slot = 0; slot < kGatherGroupNonzeros; ++slot) {
          const std::uint16_t out = layout.window_rows[window * kGatherWindowRows + slot / 2];
          const std::uint16_t bits = layout.groups[gather_value_at(group, slot)];
          const std::int64_t offset =
              std::int64_t{layout.groups[gather_offset_at(group, slot)]} * kGatherOffsetUnit;
          const std::int64_t stage_row = gather_stage_row(offset, s.row_bytes());
          ASSERT_EQ(offset, gather_row_offset(stage_row, s.row_bytes())) << "a swizzled row start";
          ASSERT_LT(stage_row, s.chunk_columns) << "in the block's stage";
          const std::int64_t column = kb * s.chunk_columns + stage_row;
          ASSERT_LT(column, std::max<std::int64_t>(matrix.cols, 1)) << "a row of B past its end";
          if (out == kGatherNoRow || bits == 0) continue;  // padding (or a stored zero)
          const std::int64_t row = range * s.range_rows + out;
          ++stored;
          const auto first = matrix.col_idx.begin() + matrix.row_ptr[row];
          const auto last = matrix.col_idx.begin() + matrix.row_ptr[row + 1];
          const auto found = std::lower_bound(first, last, static_cast<std::int32_t>(column));
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

TEST(GatherLayout, StoresEveryNonzeroOnceInWindowsOfRowsLongestFirstSplitEvenlyOverTheWarps) {
  for (const test::NamedMatrix& named : gather_matrices()) {
    if (named.matrix.nnz() > 100000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::with_values<half>(test::scaled_for_16_bit(named.matrix));
    for (const std::int64_t chunk_columns : {0, 8, 40, 256, 1000})
      for (const std::int64_t ranges : {1, 3, 7, 1000}) {
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
  EXPECT_EQ(repeated.group_count(), kGatherQuadGroups);  // one group and a quad's padding
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

TEST(GatherLayout, WarpsShareAWindowLongerThanTheirRunsAndShareFewQuadsOneEach) {
  // one window of 8 rows x 4000 nonzeros: 2000 groups, 500 quads, 31 or 32 a warp, every warp
  // inside it
  const auto dense = window_of_rows(4000, 4000, [](std::int32_t, std::int32_t j) { return j; });
  const GatherLayout one = build_gather_layout(dense, choose_gather_shape(dense.rows, dense.cols, 16));
  ASSERT_EQ(one.windows(), 1);
  for (int w = 0; w < kGatherWarpsPerBlock; ++w) {
    EXPECT_EQ(one.warp_first_window[w], 0u);
    EXPECT_EQ(one.warp_group_begin[w], 500u * w / kGatherWarpsPerBlock * kGatherQuadGroups);
  }
  // 12 groups (3 quads) for 16 warps: 13 warps have none (the kernel reads nothing for them)
  const auto short_rows =
      window_of_rows(256, 24, [](std::int32_t row, std::int32_t j) { return row + 8 * j; });
  const GatherLayout few =
      build_gather_layout(short_rows, choose_gather_shape(short_rows.rows, short_rows.cols, 16));
  ASSERT_EQ(few.group_count(), 3 * kGatherQuadGroups);
  int without = 0;
  for (int w = 0; w < kGatherWarpsPerBlock; ++w)
    without += few.warp_group_begin[w + 1] == few.warp_group_begin[w] ? 1 : 0;
  EXPECT_EQ(without, kGatherWarpsPerBlock - 3);
  // a block without groups (no nonzeros in its chunk): its warps point past the windows
  const auto empty_chunk = window_of_rows(64, 1, [](std::int32_t, std::int32_t) { return 0; });
  const GatherLayout split = build_gather_layout(
      empty_chunk, choose_gather_shape(empty_chunk.rows, empty_chunk.cols, 16, 32));
  ASSERT_EQ(split.shape.chunks, 2);
  ASSERT_EQ(split.windows(), 1);
  for (int w = 0; w < kGatherWarpsPerBlock; ++w)
    EXPECT_EQ(split.warp_first_window[kGatherWarpsPerBlock + w], 1u) << "the second block's";
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
