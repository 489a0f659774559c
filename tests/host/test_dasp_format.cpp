// The DASP host layout (SC'23 §3.2) and its host apply: the apply walks the layout exactly as the
// kernels do, so agreeing with the CPU reference on every matrix checks every block, padding,
// row order and piecing without a GPU. Then the layout's own promises: categories, order,
// padding, the 75 % threshold, piecing counts, warp units, parameters.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "common/test_matrices.hpp"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_layout_decisions.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::dasp {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
using test::NamedMatrix;

constexpr DaspBlockShape kFp64Shape{8, 4};
constexpr DaspBlockShape kFp16Shape{16, 4};

/// rows = lengths.size(), each row `lengths[r]` distinct random columns of [0, cols): the shared
/// catalogue's builder, taking the int lengths these tests write.
Matrix matrix_with_lengths(std::int32_t cols, const std::vector<int>& lengths,
                           std::uint64_t seed = 1) {
  return test::with_row_lengths(cols, {lengths.begin(), lengths.end()}, seed);
}

/// ||host apply - reference|| / ||reference|| for y = alpha A x + beta y0 (y poisoned with NaN
/// when beta == 0).
template <typename Value>
double host_apply_error(const CsrMatrix<Value, std::int32_t>& a, const DaspLayout<Value>& layout,
                        double alpha, double beta) {
  const auto x = random_vector<Value>(static_cast<std::size_t>(a.cols), 21);
  const auto y0 = random_vector<double>(static_cast<std::size_t>(a.rows), 22);
  std::vector<double> reference = y0;
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), alpha, beta);
  std::vector<double> y = beta == 0.0
                              ? std::vector<double>(y0.size(), std::numeric_limits<double>::quiet_NaN())
                              : y0;
  dasp_host_apply(layout, std::span<const Value>(x), std::span<double>(y), alpha, beta);
  return relative_error(std::span<const double>(y), std::span<const double>(reference));
}

template <typename Value>
double host_apply_error(const Matrix& a, DaspBlockShape shape, const DaspParameters& p = {},
                        double alpha = 1.0, double beta = 0.0) {
  const auto converted = test::with_values<Value>(a);
  const auto layout = build_dasp_layout(converted, p, shape);
  return host_apply_error(converted, layout, alpha, beta);
}

// ---- the host apply against the reference, on the shared catalogue -----------------------

class DaspHostApplyOnCatalogue : public ::testing::TestWithParam<NamedMatrix> {};

TEST_P(DaspHostApplyOnCatalogue, Fp64LayoutMatchesReferenceWithBetaZero) {
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, Fp64LayoutMatchesReferenceWithAlphaAndBeta) {
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, {}, -1.5, 0.75), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, Fp16ShapedLayoutMatchesReference) {
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, {}, 2.0, -0.5), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, HalfValuesInTheirDefaultLayoutMatchReference) {
  // half inputs, double accumulation on both sides: only the summation order differs
  EXPECT_LT(host_apply_error<half>(GetParam().matrix, default_block_shape<half>()), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, Bfloat16ValuesInTheirDefaultLayoutMatchReference) {
  EXPECT_LT(host_apply_error<bfloat16>(GetParam().matrix, default_block_shape<bfloat16>(), {},
                                       1.0, 1.0),
            1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, NonDefaultParametersStillMatchReference) {
  DaspParameters p;
  p.max_medium_row_length = 32;
  p.regular_block_min_fill = 0.5;
  p.medium_rows_per_warp = 32;
  p.long_groups_per_warp = 1;
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, p), 1e-12);
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, p), 1e-12);
  p.medium_row_window = 16;  // medium rows sorted within windows of 16 rows
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, p, 1.0, 0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, p), 1e-12);
  p.medium_min_row_length = 4;  // rows of 4 values as medium rows
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, p, 1.0, 0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, p), 1e-12);
  p.medium_rows_per_warp = 8;  // one row-block a warp: an explicit window applies there too
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, p, -1.0, 0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, p), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, MediumRowBlocksSplitOverWarpsMatchReference) {
  DaspParameters p;
  p.medium_rows_per_warp = 8;
  p.medium_blocks_per_warp = 1;  // every regular block its own warp
  p.long_groups_per_warp = 1;
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp64Shape, p, 1.0, -1.0), 1e-12);
  p.medium_blocks_per_warp = 3;
  EXPECT_LT(host_apply_error<double>(GetParam().matrix, kFp16Shape, p, 1.0, 0.0), 1e-12);
}

TEST_P(DaspHostApplyOnCatalogue, CountsWithoutFillingAgreeWithTheBuiltLayout) {
  const auto& a = GetParam().matrix;
  const auto built = build_dasp_layout(a, {}, kFp64Shape).counts;
  const auto counted = count_dasp_layout(a, {}, kFp64Shape);
  EXPECT_EQ(built.stored_values(), counted.stored_values());
  EXPECT_EQ(built.warps(), counted.warps());
  EXPECT_EQ(counted.nnz(), a.nnz());
  EXPECT_EQ(counted.rows_long + counted.rows_medium + counted.rows_short + counted.rows_empty,
            a.rows);
}

// ---- the plan's row order ("row_order=plan") --------------------------------------------------

/// The parameter sets whose warp orders differ: by default, short tiles by kind and by row, one
/// row-block a warp in pieces with long rows one group a warp.
std::vector<DaspParameters> row_order_parameter_sets() {
  std::vector<DaspParameters> sets(5);
  sets[1].short_tile_order = 1;
  sets[2].short_tile_order = 2;
  sets[3].medium_rows_per_warp = 8;
  sets[3].medium_blocks_per_warp = 1;
  sets[3].long_groups_per_warp = 1;
  sets[4].medium_rows_per_warp = 16;
  sets[4].medium_row_window = 24;  // medium rows sorted within windows
  sets[4].medium_min_row_length = 4;
  return sets;
}

/// The row ids of a layout in the order its warps write them (warp, then lane), -1 left out.
template <typename Value>
std::vector<std::int32_t> rows_in_warp_order(const DaspLayout<Value>& L) {
  std::vector<std::int32_t> rows;
  for (std::size_t l = 0; l < L.long_row_ids.size(); ++l) rows.push_back(L.long_row_ids[l]);
  for (const std::int32_t r : L.medium_row_ids)
    if (r >= 0) rows.push_back(r);
  const auto short_tile = [&](int kind, std::int64_t tile) {
    const auto first = L.short_parts[static_cast<std::size_t>(kind)].row_offset + tile * kWarpSize;
    for (int lane = 0; lane < kWarpSize; ++lane)
      if (const std::int32_t r = L.short_row_ids[static_cast<std::size_t>(first + lane)]; r >= 0)
        rows.push_back(r);
  };
  if (L.short_tile_order.empty()) {
    for (int kind = 0; kind < kDaspShortKinds; ++kind)
      for (std::int64_t t = 0; t < L.short_parts[static_cast<std::size_t>(kind)].tiles; ++t)
        short_tile(kind, t);
  } else {
    for (const std::int32_t code : L.short_tile_order) short_tile(code & 3, code >> 2);
  }
  for (const std::int32_t r : L.empty_row_ids)
    if (r >= 0) rows.push_back(r);
  return rows;
}

TEST_P(DaspHostApplyOnCatalogue, PlanRowOrderIsThePermutationTheWarpsWriteInOrder) {
  const auto& a = GetParam().matrix;
  for (const DaspParameters& p : row_order_parameter_sets()) {
    const auto layout = build_dasp_layout(a, p, kFp64Shape);
    const auto order = dasp_plan_row_order(layout);
    EXPECT_EQ(order, rows_in_warp_order(layout));
    std::vector<std::int32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::int32_t> identity(static_cast<std::size_t>(a.rows));
    std::iota(identity.begin(), identity.end(), 0);
    ASSERT_EQ(sorted, identity) << "not a permutation of the rows";
    // after the rewrite every warp writes plan positions 0, 1, 2, ... in turn
    const auto caller_to_plan = inverse_row_order(order);
    auto remapped = layout;
    remap_to_plan_order(remapped, caller_to_plan, a.rows == a.cols);
    EXPECT_EQ(rows_in_warp_order(remapped), identity);
  }
}

TEST(DaspLayout, ParallelBuildGivesTheSameLayoutAndRowOrderOnAnyThreadCount) {
  // large enough for every parallel loop (kItemsPerThread): short tiles by row, empty rows,
  // medium row-blocks, long rows
  const Matrix cases[] = {
      generate_short_rows(400000, 400000, 3),
      generate_random_rows(300000, 300000, RowLengthDistribution::power_law, 0, 5000, 4),
      generate_random_rows(300000, 300000, RowLengthDistribution::uniform, 1, 12, 5)};
  DaspParameters windowed;  // medium rows sorted within windows (auto from 1 M rows)
  windowed.medium_row_window = 4096;
  for (const Matrix& a : cases) {
    const DaspParameters p = &a == &cases[2] ? windowed : DaspParameters{};
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const auto one = build_dasp_layout(a, p, kFp64Shape, DaspFill::index_only);
    const auto one_order = dasp_plan_row_order(one);
    omp_set_num_threads(4);
    const auto four = build_dasp_layout(a, p, kFp64Shape, DaspFill::index_only);
    const auto four_order = dasp_plan_row_order(four);
    omp_set_num_threads(saved);
    EXPECT_EQ(one.short_tile_order, four.short_tile_order);
    EXPECT_EQ(one.short_row_ids, four.short_row_ids);
    EXPECT_EQ(one.medium_row_ids, four.medium_row_ids);
    EXPECT_EQ(one.medium_tail_widths, four.medium_tail_widths);
    EXPECT_EQ(one.empty_row_ids, four.empty_row_ids);
    EXPECT_EQ(one.counts.long_tasks, four.counts.long_tasks);
    EXPECT_EQ(one.counts.nnz_long, four.counts.nnz_long);
    EXPECT_EQ(one_order, four_order);
    EXPECT_EQ(one.counts.medium_row_window, four.counts.medium_row_window);
  }
}

/// The host walker on a layout rewritten to the plan's order computes P A P^T (square) or P A
/// (rectangular): y in plan order, x in plan order where the matrix is square.
TEST_P(DaspHostApplyOnCatalogue, LayoutInPlanOrderAppliesThePermutedMatrix) {
  const auto& a = GetParam().matrix;
  const bool square = a.rows == a.cols;
  for (const DaspParameters& p : row_order_parameter_sets()) {
    for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape}) {
      auto layout = build_dasp_layout(a, p, shape);
      const auto order = dasp_plan_row_order(layout);
      remap_to_plan_order(layout, inverse_row_order(order), square);
      const auto x = random_vector<double>(static_cast<std::size_t>(a.cols), 31);
      const auto y0 = random_vector<double>(static_cast<std::size_t>(a.rows), 32);
      std::vector<double> reference = y0;
      spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 1.5, -0.5);
      std::vector<double> x_plan = x, y_plan(y0.size()), expected(y0.size());
      for (std::size_t q = 0; q < order.size(); ++q) {
        const auto r = static_cast<std::size_t>(order[q]);
        if (square) x_plan[q] = x[r];
        y_plan[q] = y0[r];
        expected[q] = reference[r];
      }
      dasp_host_apply(layout, std::span<const double>(x_plan), std::span<double>(y_plan), 1.5,
                      -0.5);
      EXPECT_LT(relative_error(std::span<const double>(y_plan), std::span<const double>(expected)),
                1e-12)
          << "block rows " << shape.rows;
    }
  }
}

/// row_order=internal_y: the layout's rows in the plan's order, its columns not. The rows with
/// values lead the plan's order (counts.rows_empty of them trail it), so the plan's own y holds
/// only those; the walker into it (x as given, beta 0) and the pass back to the caller's order
/// (y[c] = plan_y[p] + beta y[c] for p below the rows with values, beta y[c] after) give y.
TEST_P(DaspHostApplyOnCatalogue, InternalYOrderComputesTheRowsWithValuesFirstAndPassesThemBack) {
  const auto& a = GetParam().matrix;
  for (const DaspParameters& p : row_order_parameter_sets()) {
    for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape}) {
      auto layout = build_dasp_layout(a, p, shape);
      const auto order = dasp_plan_row_order(layout);
      const std::int64_t with_values = a.rows - layout.counts.rows_empty;
      for (std::int64_t q = 0; q < a.rows; ++q) {
        const auto r = static_cast<std::size_t>(order[static_cast<std::size_t>(q)]);
        ASSERT_EQ(a.row_ptr[r + 1] > a.row_ptr[r], q < with_values)
            << "plan position " << q << " (row " << r << ") of " << with_values
            << " rows with values, block rows " << shape.rows;
      }
      const auto caller_to_plan = inverse_row_order(order);
      remap_to_plan_order(layout, caller_to_plan, false);
      const auto x = random_vector<double>(static_cast<std::size_t>(a.cols), 41);
      const auto y0 = random_vector<double>(static_cast<std::size_t>(a.rows), 42);
      std::vector<double> reference = y0;
      spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 1.5, -0.5);
      std::vector<double> plan_y(static_cast<std::size_t>(a.rows), 0.0);  // empty rows' part unread
      dasp_host_apply(layout, std::span<const double>(x), std::span<double>(plan_y), 1.5, 0.0);
      std::vector<double> y = y0;
      for (std::size_t c = 0; c < y.size(); ++c) {
        const std::int32_t at = caller_to_plan[c];
        y[c] = at < with_values ? plan_y[static_cast<std::size_t>(at)] - 0.5 * y[c] : -0.5 * y[c];
      }
      EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)),
                1e-12)
          << "block rows " << shape.rows;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllSynthetic, DaspHostApplyOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

// ---- every category alone and mixed, and row counts that do not fill a block --------------

class DaspHostApplyOnRowCounts : public ::testing::TestWithParam<int> {};

TEST_P(DaspHostApplyOnRowCounts, EveryLengthCategoryAloneMatchesReference) {
  const int rows = GetParam();
  for (int len : {0, 1, 2, 3, 4, 5, 7, 8, 27, 256, 257, 700}) {
    const Matrix a = matrix_with_lengths(800, std::vector<int>(rows, len), rows * 1000 + len);
    EXPECT_LT(host_apply_error<double>(a, kFp64Shape, {}, 1.0, 0.5), 1e-12) << "length " << len;
    EXPECT_LT(host_apply_error<double>(a, kFp16Shape, {}, 1.0, 0.5), 1e-12) << "length " << len;
  }
}

TEST_P(DaspHostApplyOnRowCounts, AllCategoriesMixedMatchesReference) {
  const int rows = GetParam();
  std::vector<int> lengths;
  const int cycle[] = {3, 0, 260, 1, 5, 2, 17, 4, 1, 2, 3, 90, 1};
  for (int r = 0; r < rows; ++r) lengths.push_back(cycle[r % 13]);
  const Matrix a = matrix_with_lengths(600, lengths, static_cast<std::uint64_t>(rows));
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp16Shape, {}, 0.5, 2.0), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(RowCounts, DaspHostApplyOnRowCounts,
                         ::testing::Values(1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 100));

TEST(DaspHostApply, LargeGeneratedMatricesMatchReference) {
  const Matrix cases[] = {generate_stencil_3d_27pt(30, 30, 30, 1),
                          generate_stencil_2d_5pt(200, 150, 2), generate_rmat(14, 8, 3),
                          generate_random_rows(20000, 5000, RowLengthDistribution::power_law, 1,
                                               2000, 4)};
  for (const Matrix& a : cases) {
    EXPECT_LT(host_apply_error<double>(a, kFp64Shape, {}, 1.0, 0.0), 1e-12);
    EXPECT_LT(host_apply_error<double>(a, kFp16Shape, {}, 1.0, 0.0), 1e-12);
  }
}

TEST(DaspHostApply, ZeroByZeroMatrixIsANoOp) {
  const Matrix a;  // 0 x 0
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  EXPECT_EQ(layout.counts.warps(), 0);
  std::vector<double> x, y;
  dasp_host_apply(layout, std::span<const double>(x), std::span<double>(y), 1.0, 0.0);
}

TEST(DaspHostApply, EmptyRowsAreWrittenAsBetaTimesY) {
  const Matrix a = matrix_with_lengths(5, std::vector<int>(40, 0));
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  std::vector<double> x(5, 1.0), y(40, 2.0);
  dasp_host_apply(layout, std::span<const double>(x), std::span<double>(y), 1.0, 0.25);
  for (double v : y) EXPECT_EQ(v, 0.5);
  std::fill(y.begin(), y.end(), std::numeric_limits<double>::quiet_NaN());
  dasp_host_apply(layout, std::span<const double>(x), std::span<double>(y), 1.0, 0.0);
  for (double v : y) EXPECT_EQ(v, 0.0);
}

TEST(DaspHostApply, RejectsVectorsOfTheWrongSize) {
  const Matrix a = matrix_with_lengths(5, {1, 2});
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  std::vector<double> x(4), y(2);
  EXPECT_THROW(
      dasp_host_apply(layout, std::span<const double>(x), std::span<double>(y), 1.0, 0.0),
      Error);
}

// ---- the layout itself ----------------------------------------------------------------------

/// The paper's MAX_LEN (the default for small matrices is kDaspSmallMatrixMaxMediumRowLength).
DaspParameters paper_max_medium() {
  DaspParameters p;
  p.max_medium_row_length = kDaspMaxMediumRowLength;
  return p;
}

TEST(DaspLayout, BlockOffsetsArePermutations) {
  const DaspBlockShape fp64_column_major{8, kDaspBlockWidth, true};
  for (const DaspBlockShape shape : {kFp64Shape, fp64_column_major, kFp16Shape}) {
    std::vector<int> seen(static_cast<std::size_t>(shape.values()), 0);
    for (int slot = 0; slot < shape.rows; ++slot)
      for (int value = 0; value < shape.width; ++value)
        ++seen[static_cast<std::size_t>(shape.offset(slot, value))];
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
  }
  // column-major fp64: value k of the 8 rows is one aligned 64-byte piece (8 doubles), which
  // the kernel may skip whole; row-major: a row's 4 values are one 32-byte sector
  for (int slot = 0; slot < 8; ++slot) {
    for (int value = 0; value < 4; ++value) {
      EXPECT_EQ(fp64_column_major.offset(slot, value) / 8, value);
      EXPECT_EQ(kFp64Shape.offset(slot, value) / 4, slot);
    }
  }
}

TEST(DaspLayout, Fp64BlocksAreColumnMajorWhereManyRowBlocksEndInPadding) {
  // rows of 27: every row-block's last block is 3/4 full in every row
  const auto stencil = build_dasp_layout(matrix_with_lengths(100, std::vector<int>(800, 27)),
                                         paper_max_medium(), kFp64Shape);
  EXPECT_EQ(stencil.counts.padded_tail_blocks, 100);
  EXPECT_TRUE(stencil.shape.column_major);
  EXPECT_TRUE(stencil.counts.column_major_blocks);
  // rows of 28 end in full blocks; fp16 blocks have one order
  EXPECT_FALSE(build_dasp_layout(matrix_with_lengths(100, std::vector<int>(800, 28)),
                                 paper_max_medium(), kFp64Shape).shape.column_major);
  EXPECT_FALSE(build_dasp_layout(matrix_with_lengths(100, std::vector<int>(800, 27)),
                                 paper_max_medium(), kFp16Shape).shape.column_major);
  // the parameter decides when given
  DaspParameters row = paper_max_medium(), column = paper_max_medium();
  row.fp64_block_order = 1;
  column.fp64_block_order = 2;
  EXPECT_FALSE(build_dasp_layout(matrix_with_lengths(100, std::vector<int>(800, 27)), row,
                                 kFp64Shape).shape.column_major);
  const Matrix rows_of_28 = matrix_with_lengths(100, std::vector<int>(800, 28));
  EXPECT_TRUE(build_dasp_layout(rows_of_28, column, kFp64Shape).shape.column_major);
  EXPECT_LT(host_apply_error<double>(rows_of_28, kFp64Shape, column, 1.0, 0.0), 1e-12);
}

TEST(DaspLayout, RowsAreClassifiedByLength) {
  // §3.2: long > 256, medium 5..256, short 1..4, empty 0
  const Matrix a = matrix_with_lengths(1000, {0, 1, 2, 3, 4, 5, 256, 257, 0});
  const auto c = build_dasp_layout(a, paper_max_medium(), kFp64Shape).counts;
  EXPECT_EQ(c.rows_long, 1);
  EXPECT_EQ(c.rows_medium, 2);
  EXPECT_EQ(c.rows_short, 4);
  EXPECT_EQ(c.rows_empty, 2);
  EXPECT_EQ(c.nnz_long, 257);
  EXPECT_EQ(c.nnz_short, 10);
  EXPECT_EQ(c.nnz_medium_regular + c.nnz_medium_irregular, 261);
}

TEST(DaspLayout, SmallMatricesTakeRowsLongerThan16AsLongRows) {
  const Matrix a = matrix_with_lengths(1000, {16, 17, 256});
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.max_medium_row_length, kDaspSmallMatrixMaxMediumRowLengths[0]);
  EXPECT_EQ(c.rows_medium, 1);
  EXPECT_EQ(c.rows_long, 2);
  EXPECT_EQ(resolve_max_medium_row_length(a, paper_max_medium(), kFp64Shape),
            kDaspMaxMediumRowLength);
}

TEST(DaspLayout, SmallMatricesWhosePaddedLayoutIsLargeKeepThePapersMaxLen) {
  // 8 000 rows of 65: with MAX_LEN 16, 32 or 64 each is a long row padded to 128 values
  // (8000 * 128 * 12 bytes > 4 MiB, 0.97 of the nonzeros in padding) -> the paper's 256
  const Matrix rows_of_65 = generate_random_rows(8000, 5000, RowLengthDistribution::uniform,
                                                 65, 65, 3);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_65, {}, kFp64Shape), kDaspMaxMediumRowLength);
  // 8 000 rows of 33 are medium rows with 64: 8000 * 33 * 12 bytes fit 4 MiB
  const Matrix rows_of_33 = generate_random_rows(8000, 5000, RowLengthDistribution::uniform,
                                                 33, 33, 3);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_33, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[2]);
  // 2 000 rows of 17 fit with 16
  const Matrix few = generate_random_rows(2000, 5000, RowLengthDistribution::uniform, 17, 17, 3);
  EXPECT_EQ(resolve_max_medium_row_length(few, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[0]);
  // 12 000 rows of 17: 16 pads past the budget (12000 * 64 * 12 > 4 MiB), 32 fits
  const Matrix middle = generate_random_rows(12000, 5000, RowLengthDistribution::uniform, 17, 17, 3);
  EXPECT_EQ(resolve_max_medium_row_length(middle, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[1]);
  // large matrices take the paper's in fp16 / bf16, and in fp64 from kDaspMidMatrixNnz
  const Matrix mid = generate_banded(200000, 3, 1);  // 1.4 M nonzeros
  EXPECT_EQ(resolve_max_medium_row_length(mid, {}, kFp16Shape), kDaspMaxMediumRowLength);
  const Matrix large = generate_banded(600000, 3, 1);  // 4.2 M nonzeros
  ASSERT_GE(large.nnz(), kDaspMidMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(large, {}, kFp64Shape), kDaspMaxMediumRowLength);
}

TEST(DaspLayout, MidSizeFp64MatricesTakeRowsUpTo64AsMediumRowsWhereTheirLongRowsPadLittle) {
  // 1.4 M nonzeros (>= kDaspSmallMatrixNnz, < kDaspMidMatrixNnz): 60 000 rows of 20 and 100 of
  // 1 000 (padded to 1 024: 0.2 % of the nonzeros) -> 64 in fp64, the paper's 256 in fp16
  std::vector<int> tail(60100, 20);
  for (int r = 0; r < 100; ++r) tail[static_cast<std::size_t>(r) * 601] = 1000;
  const Matrix with_tail = matrix_with_lengths(60100, tail);
  ASSERT_GE(with_tail.nnz(), kDaspSmallMatrixNnz);
  ASSERT_LT(with_tail.nnz(), kDaspMidMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(with_tail, {}, kFp64Shape),
            kDaspMidMatrixMaxMediumRowLength);
  EXPECT_EQ(resolve_max_medium_row_length(with_tail, {}, kFp16Shape), kDaspMaxMediumRowLength);
  EXPECT_LT(host_apply_error<double>(with_tail, kFp64Shape, {}, 1.0, 0.5), 1e-12);
  // 20 000 rows of 65 would pad each to 128 values (0.97 of the nonzeros) -> 256
  const Matrix rows_of_65 = matrix_with_lengths(20000, std::vector<int>(20000, 65));
  ASSERT_GE(rows_of_65.nnz(), kDaspSmallMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_65, {}, kFp64Shape), kDaspMaxMediumRowLength);
}

TEST(DaspLayout, SmallMatricesBeyondTheBudgetTakeAShortMaxLenWhenItPadsLittle) {
  // 2 048 rows of 220 (a pruned weight matrix): 16 pads each row to 256 values (0.16 of the
  // nonzeros, within kDaspSmallMatrixMaxLongRowPadding) although the layout exceeds 4 MiB
  const Matrix rows_of_220 = matrix_with_lengths(2048, std::vector<int>(2048, 220));
  ASSERT_GT(2048 * 256 * 12, kDaspLatencyBoundLayoutBytes);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_220, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[0]);
  // 27 000 rows of 27 (a 27-point stencil): 16 would pad 27 to 64, 32 pads nothing
  const Matrix rows_of_27 = matrix_with_lengths(30000, std::vector<int>(27000, 27));
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_27, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[1]);
}

TEST(DaspLayout, SmallMatricesWhoseTailsPadTooMuchAt16And32TakeRowsUpTo64AsMediumRows) {
  // 10 000 rows of 40 (an R-MAT-like tail just past 32): 16 and 32 pad each row to a whole
  // long-row group (64 values in fp64, 128 in fp16: past 4 MiB and past the padding budget);
  // 64 pads nothing: its layout fits 4 MiB in fp16 (400 000 * 6 bytes) and pads within the
  // budget in fp64 (400 000 * 12 bytes > 4 MiB)
  const Matrix rows_of_40 = matrix_with_lengths(20000, std::vector<int>(10000, 40));
  ASSERT_GT(10000 * 64 * 12, kDaspLatencyBoundLayoutBytes);
  ASSERT_GT(10000 * 128 * 6, kDaspLatencyBoundLayoutBytes);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_40, {}, kFp64Shape),
            kDaspSmallMatrixMaxMediumRowLengths[2]);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_40, {}, kFp16Shape),
            kDaspSmallMatrixMaxMediumRowLengths[2]);
  const auto c = build_dasp_layout(rows_of_40, {}, kFp16Shape).counts;
  EXPECT_EQ(c.max_medium_row_length, 64);
  EXPECT_EQ(c.rows_long, 0);
  EXPECT_EQ(c.rows_medium, 10000);
}

TEST(DaspLayout, SixteenRowBlocksAllowLongRowPaddingInProportionToTheirLongerGroups) {
  // 6 000 rows of 100: long rows with 16 or 32 are padded to 128 values, 0.28 of the nonzeros:
  // beyond the budget of 64-value groups (fp64), within that of 128-value groups (fp16 / bf16)
  const Matrix rows_of_100 = matrix_with_lengths(4000, std::vector<int>(6000, 100));
  ASSERT_GT(6000 * 128 * 12, kDaspLatencyBoundLayoutBytes);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_100, {}, kFp64Shape), kDaspMaxMediumRowLength);
  EXPECT_EQ(resolve_max_medium_row_length(rows_of_100, {}, kFp16Shape),
            kDaspSmallMatrixMaxMediumRowLengths[0]);
}

TEST(DaspLayout, TailWidthIsTheLongestRowsValuesInTheLastRegularBlock) {
  // blocks kept regular from half full: sorted, the row-blocks are 8 x 28 (7 full blocks),
  // 8 x 27 (the 7th block 3/4 full), 27 over 7 x 26 (7th block 17/32 full, 3 values of the
  // 27), 4 x 26 over 4 x 25 (7th chunk 12/32: irregular, so 6 full blocks)
  std::vector<int> lengths(9, 27);
  lengths.insert(lengths.end(), 8, 28);
  lengths.insert(lengths.end(), 11, 26);
  lengths.insert(lengths.end(), 4, 25);
  DaspParameters half_full = paper_max_medium();
  half_full.regular_block_min_fill = 0.5;
  const Matrix a = matrix_with_lengths(100, lengths);
  const auto layout = build_dasp_layout(a, half_full, kFp64Shape);
  ASSERT_EQ(layout.medium_tail_widths.size(), 4u);
  EXPECT_EQ(layout.medium_tail_widths[0], 4);
  EXPECT_EQ(layout.medium_tail_widths[1], 3);
  EXPECT_EQ(layout.medium_tail_widths[2], 3);
  EXPECT_EQ(layout.medium_tail_widths[3], 4);
  for (std::size_t rb = 0; rb < 4; ++rb) {
    // the longest row (the first) fills exactly the tail width of the last block, no row more
    const std::int64_t blocks = (layout.rowblock_ptr[rb + 1] - layout.rowblock_ptr[rb]) / 32;
    for (std::size_t slot = 0; slot < 8; ++slot) {
      const auto row = static_cast<std::size_t>(layout.medium_row_ids[rb * 8 + slot]);
      const std::int64_t in_last = std::clamp<std::int64_t>(lengths[row] - 4 * (blocks - 1), 0, 4);
      if (slot == 0) {
        EXPECT_EQ(in_last, layout.medium_tail_widths[rb]) << "row-block " << rb;
      }
      EXPECT_LE(in_last, layout.medium_tail_widths[rb]) << "row-block " << rb << " slot " << slot;
    }
  }
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, half_full, 1.0, 0.0), 1e-12);
}

TEST(DaspLayout, SmallMatricesWithSkewedLongRowsSpreadThemOverMoreWarps) {
  // 8 000 rows of 50 and one of 3 000: 3000 / 50.4 = 60 times the mean (below
  // kDaspVeryLongRowRatio, above kDaspSkewedRowRatio), longer than kDaspSplitRowMinLength
  std::vector<int> lengths(8000, 50);
  lengths[123] = 3000;
  const Matrix skewed = matrix_with_lengths(8000, lengths);
  for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape})
    EXPECT_EQ(build_dasp_layout(skewed, {}, shape).counts.split.long_groups_per_warp,
              kDaspSmallMatrixLongGroupsPerWarp);
  EXPECT_LT(host_apply_error<double>(skewed, kFp16Shape, {}, 1.0, 0.5), 1e-12);
  // the same skew with a longest row of 1 000 values stays one warp a row (39 times the mean)
  std::vector<int> shorter(2000, 25);
  shorter[7] = 1000;
  const Matrix one_warp = matrix_with_lengths(2000, shorter);
  for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape})
    EXPECT_EQ(build_dasp_layout(one_warp, {}, shape).counts.split.long_groups_per_warp,
              kDaspLongGroupsPerWarp);
}

TEST(DaspLayout, SmallMatricesWithAFewVeryLongRowsSpreadThemOverMoreWarps) {
  // 20 000 rows of 8 and one of 3 000 (> kDaspVeryLongRowRatio x the mean)
  std::vector<int> lengths(20000, 8);
  lengths[777] = 3000;
  const Matrix tail = matrix_with_lengths(20000, lengths);
  const auto c = build_dasp_layout(tail, {}, kFp64Shape).counts;
  EXPECT_EQ(c.split.long_groups_per_warp, kDaspSmallMatrixLongGroupsPerWarp);
  EXPECT_EQ(c.long_tasks, (3000 + 255) / 256);  // 4 groups of 64 values a task
  EXPECT_LT(host_apply_error<double>(tail, kFp64Shape, {}, 1.0, 0.0), 1e-12);
  EXPECT_LT(host_apply_error<double>(tail, kFp64Shape, {}, -0.5, 2.0), 1e-12);
  // an explicit setting wins
  DaspParameters explicit_split;
  explicit_split.long_groups_per_warp = 8;
  EXPECT_EQ(build_dasp_layout(tail, explicit_split, kFp64Shape).counts.split.long_groups_per_warp,
            8);
  // rows that are all long (weights) are not a tail: whole tasks
  const Matrix all_long = matrix_with_lengths(2048, std::vector<int>(512, 600));
  EXPECT_EQ(build_dasp_layout(all_long, {}, kFp64Shape).counts.split.long_groups_per_warp,
            kDaspLongGroupsPerWarp);
  // nor is a large matrix split: bandwidth, not its longest warp, sets its time
  std::vector<int> large_lengths(530000, 8);
  large_lengths[5] = 3000;
  const Matrix large = matrix_with_lengths(530000, large_lengths);
  ASSERT_GE(large.nnz(), kDaspMidMatrixNnz);
  EXPECT_EQ(count_dasp_layout(large, {}, kFp64Shape).split.long_groups_per_warp,
            kDaspLongGroupsPerWarp);
}

TEST(DaspLayout, MidSizeFp16MatricesOfSparseRowsTakeRowsUpTo64AsMediumRows) {
  // 300 000 rows of 5 and 1 000 of 300 (1.8 M nonzeros, 6 a row on average, long rows padded
  // by 5 %): fp16 / bf16 take 64 (kDaspMidMatrixSparseRowsMaxMean), as fp64 does
  std::vector<int> lengths(301000, 5);
  for (std::size_t r = 0; r < 1000; ++r) lengths[r * 301] = 300;
  const Matrix sparse = matrix_with_lengths(301000, lengths);
  ASSERT_GE(sparse.nnz(), kDaspSmallMatrixNnz);
  ASSERT_LE(row_length_stats(sparse).mean_length, kDaspMidMatrixSparseRowsMaxMean);
  for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape})
    EXPECT_EQ(resolve_max_medium_row_length(sparse, {}, shape), kDaspMidMatrixMaxMediumRowLength);
  EXPECT_LT(host_apply_error<double>(sparse, kFp16Shape, {}, 1.0, 0.5), 1e-12);
  // rows of 8 instead of 5 (2.7 M nonzeros, 9 a row): fp16 keeps the paper's 256
  for (int& len : lengths) len = len == 5 ? 8 : len;
  const Matrix denser = matrix_with_lengths(301000, lengths);
  ASSERT_GT(row_length_stats(denser).mean_length, kDaspMidMatrixSparseRowsMaxMean);
  EXPECT_EQ(resolve_max_medium_row_length(denser, {}, kFp16Shape), kDaspMaxMediumRowLength);
  EXPECT_EQ(resolve_max_medium_row_length(denser, {}, kFp64Shape),
            kDaspMidMatrixMaxMediumRowLength);
}

TEST(DaspLayout, MidSizeFp64MatricesTakeShorterLongRowTasksWhereARowOutgrowsOne) {
  // 150 000 rows of 8 and one of 3 000 (1.2 M nonzeros): the row spans 47 groups of 64 values,
  // more than one task of kDaspLongGroupsPerWarp, so fp64 takes tasks of
  // kDaspMidMatrixLongGroupsPerWarp; fp16 / bf16 keep kDaspLongGroupsPerWarp
  std::vector<int> lengths(150000, 8);
  lengths[5] = 3000;
  const Matrix hub = matrix_with_lengths(150000, lengths);
  ASSERT_GE(hub.nnz(), kDaspSmallMatrixNnz);
  ASSERT_LT(hub.nnz(), kDaspMidMatrixNnz);
  const auto c = count_dasp_layout(hub, {}, kFp64Shape);
  EXPECT_EQ(c.split.long_groups_per_warp, kDaspMidMatrixLongGroupsPerWarp);
  EXPECT_EQ(c.long_tasks, (3000 + 1023) / 1024);  // 16 groups of 64 values a task
  EXPECT_EQ(count_dasp_layout(hub, {}, kFp16Shape).split.long_groups_per_warp,
            kDaspLongGroupsPerWarp);
  EXPECT_LT(host_apply_error<double>(hub, kFp64Shape, {}, -0.5, 2.0), 1e-12);
  // a longest row of one task's 2 048 values stays whole
  lengths[5] = 2048;
  const Matrix one_task = matrix_with_lengths(150000, lengths);
  EXPECT_EQ(count_dasp_layout(one_task, {}, kFp64Shape).split.long_groups_per_warp,
            kDaspLongGroupsPerWarp);
  // and an explicit setting wins
  DaspParameters explicit_split;
  explicit_split.long_groups_per_warp = 32;
  EXPECT_EQ(count_dasp_layout(hub, explicit_split, kFp64Shape).split.long_groups_per_warp, 32);
}

TEST(DaspLayout, MatricesWhoseLongRowsOutnumberTheirMediumRowsTakeMaxLen64) {
  // 3 000 rows of 500 and 1 000 of 250 (1.75 M nonzeros, like pruned weights at 90 %): at 256
  // the 1 000 would be row-blocks of 63 blocks one warp walks; with 64 every row is a long row
  std::vector<int> lengths(4000, 500);
  for (std::size_t r = 0; r < lengths.size(); r += 4) lengths[r] = 250;
  const Matrix few_medium = matrix_with_lengths(4096, lengths);
  ASSERT_GE(few_medium.nnz(), kDaspSmallMatrixNnz);
  for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape}) {
    EXPECT_EQ(resolve_max_medium_row_length(few_medium, {}, shape),
              kDaspFewMediumRowsMaxMediumRowLength);
    EXPECT_EQ(count_dasp_layout(few_medium, {}, shape).rows_long, few_medium.rows);
  }
  EXPECT_LT(host_apply_error<double>(few_medium, kFp16Shape, {}, 1.0, 0.5), 1e-12);
  // the other way round (3 000 rows of 250, 1 000 of 500) fp16 keeps the paper's 256
  for (int& len : lengths) len = len == 250 ? 500 : 250;
  const Matrix many_medium = matrix_with_lengths(4096, lengths);
  ASSERT_GE(many_medium.nnz(), kDaspSmallMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(many_medium, {}, kFp16Shape), kDaspMaxMediumRowLength);
  // and an explicit MAX_LEN wins
  EXPECT_EQ(count_dasp_layout(few_medium, paper_max_medium(), kFp16Shape).max_medium_row_length,
            kDaspMaxMediumRowLength);
}

/// Pruned weights of 2048 x 18 000 at density 0.25 (9.2 M nonzeros, rows of about 4 500): dense
/// long rows, longer than kDaspDenseRowsMinMeanLength on average, at least kDaspDenseRowsMinNnz.
const Matrix& dense_long_rows() {
  static const Matrix a = generate_pruned_weights(2048, 18000, 0.75, 11);
  return a;
}

TEST(DaspLayout, LargeFp64MatricesOfDenseLongRowsTakeEveryRowAsAMediumRow) {
  // MAX_LEN = the longest row, no long rows, one row-block a warp in pieces of
  // kDaspDenseRowsBlocksPerPiece blocks
  const Matrix& a = dense_long_rows();
  ASSERT_GE(a.nnz(), kDaspDenseRowsMinNnz);
  const auto stats = row_length_stats(a);
  ASSERT_GE(stats.mean_length, kDaspDenseRowsMinMeanLength);
  EXPECT_EQ(resolve_max_medium_row_length(a, {}, kFp64Shape), stats.max_length);
  const auto c = count_dasp_layout(a, {}, kFp64Shape);
  EXPECT_EQ(c.rows_long, 0);
  EXPECT_EQ(c.rows_medium, a.rows);
  EXPECT_EQ(c.medium_rows_per_warp, kFp64Shape.rows);
  EXPECT_EQ(c.split.medium_blocks_per_warp, kDaspDenseRowsBlocksPerPiece);
  EXPECT_GT(c.medium_units, c.row_blocks);  // row-blocks are split
  EXPECT_TRUE(is_dense_long_rows_layout({}, c.max_medium_row_length));
}

TEST(DaspLayout, DenseLongRowsBelowTheBoundStayLongRows) {
  // 16384 x 4096 at density 0.2 (13.4 M nonzeros, rows of about 819, shorter than
  // kDaspDenseRowsMinMeanLength on average): every row a long row
  const Matrix a = generate_pruned_weights(16384, 4096, 0.8, 11);
  ASSERT_GE(a.nnz(), kDaspDenseRowsMinNnz);
  ASSERT_LT(row_length_stats(a).mean_length, kDaspDenseRowsMinMeanLength);
  // 1024 x 4096 at density 0.3 (rows of about 1 229, 1.26 M nonzeros: fewer than
  // kDaspDenseRowsMinNnz): every row a long row too
  const Matrix fewer = generate_pruned_weights(1024, 4096, 0.7, 11);
  ASSERT_GE(row_length_stats(fewer).mean_length, kDaspDenseRowsMinMeanLength);
  ASSERT_LT(fewer.nnz(), kDaspDenseRowsMinNnz);
  for (const Matrix* m : {&a, &fewer}) {
    for (const DaspBlockShape shape : {kFp64Shape, kFp16Shape}) {
      const auto c = count_dasp_layout(*m, {}, shape);
      EXPECT_EQ(c.rows_long, m->rows);
      EXPECT_FALSE(is_dense_long_rows_layout({}, c.max_medium_row_length));
    }
  }
}

TEST(DaspLayout, Fp16LayoutsOfDenseLongRowsKeepLongRows) {
  const Matrix& a = dense_long_rows();
  const auto c = count_dasp_layout(a, {}, kFp16Shape);
  EXPECT_LE(c.max_medium_row_length, kDaspMaxMediumRowLength);
  EXPECT_EQ(c.rows_long, a.rows);
  EXPECT_FALSE(is_dense_long_rows_layout({}, c.max_medium_row_length));
}

TEST(DaspLayout, DenseLongRowsLayoutsKeepMoreBlocksInFlightUnlessSet) {
  const std::int64_t nnz = 26797068, x_bytes = 16384 * 8;
  EXPECT_EQ(resolve_loop_shape({}, nnz, x_bytes, true, true).blocks_in_flight,
            kDaspDenseRowsBlocksInFlight);
  EXPECT_EQ(resolve_loop_shape({}, nnz, x_bytes, true, false).blocks_in_flight,
            kDaspBlocksInFlightLarge);
  DaspParameters two;
  two.blocks_in_flight = 2;
  EXPECT_EQ(resolve_loop_shape(two, nnz, x_bytes, true, true).blocks_in_flight, 2);
}

// Heavy-tailed rows with long rows in a mid-size matrix: the long-row warps are the last to
// finish, so the kernel keeps more blocks in flight, whatever the medium row-blocks a warp; a
// larger matrix or one without long rows keeps kDaspBlocksInFlightLarge.
TEST(DaspLayout, LongRowsOfMidSizeHeavyTailedMatricesKeepMoreBlocksInFlight) {
  const Matrix circuit_like =
      generate_random_rows(200000, 200000, RowLengthDistribution::power_law, 1, 20000, 21);
  ASSERT_GE(circuit_like.nnz(), kDaspSmallMatrixNnz);
  const auto heavy = count_dasp_layout(circuit_like, {}, kFp64Shape);
  ASSERT_GT(heavy.long_tasks, 0);
  ASSERT_EQ(heavy.medium_rows_per_warp, kFp64Shape.rows);
  EXPECT_TRUE(long_rows_are_critical(heavy, kFp64Shape, 8, true));
  EXPECT_TRUE(long_rows_are_critical(heavy, kFp64Shape, 8, false));  // any row order
  EXPECT_FALSE(long_rows_are_critical(heavy, kFp64Shape, 64, true));  // more bytes than the bound
  const std::int64_t nnz = circuit_like.nnz(), x_bytes = circuit_like.cols * 8;
  EXPECT_EQ(resolve_loop_shape({}, nnz, x_bytes, true, false, true).blocks_in_flight,
            kDaspLongRowsCriticalBlocksInFlight);
  DaspParameters two;
  two.blocks_in_flight = 2;
  EXPECT_EQ(resolve_loop_shape(two, nnz, x_bytes, true, false, true).blocks_in_flight, 2);

  const Matrix uniform =
      generate_random_rows(200000, 200000, RowLengthDistribution::uniform, 4, 12, 22);
  EXPECT_FALSE(
      long_rows_are_critical(count_dasp_layout(uniform, {}, kFp64Shape), kFp64Shape, 8, true));
  // warps of several medium row-blocks: the size bound alone (case9's replicas, run 452)
  DaspParameters two_row_blocks;
  two_row_blocks.medium_rows_per_warp = 2 * kFp64Shape.rows;
  const auto wide_warps = count_dasp_layout(circuit_like, two_row_blocks, kFp64Shape);
  EXPECT_TRUE(long_rows_are_critical(wide_warps, kFp64Shape, 8, true));
  EXPECT_FALSE(long_rows_are_critical(wide_warps, kFp64Shape, 64, true));
}

// A graph (a quarter of its rows or more empty) keeps its long rows critical up to
// kDaspGraphLongRowsCriticalMaxBytes, in fp64 and the caller's row order only; a heavy tail
// without empty rows stops at kDaspLongRowsCriticalMaxBytes.
TEST(DaspLayout, LongRowsOfFp64GraphsStayCriticalUpToTheGraphBound) {
  const Matrix graph = generate_rmat(17, 6, 3);
  const DaspCounts counts = count_dasp_layout(graph, {}, kFp64Shape);
  ASSERT_GT(counts.long_tasks, 0);
  ASSERT_EQ(counts.medium_rows_per_warp, kFp64Shape.rows);
  ASSERT_GE(static_cast<double>(counts.rows_empty),
            kDaspGraphMinEmptyRowShare * static_cast<double>(graph.rows));
  // the same counts with their medium values grown to a given size of fp64 values and columns
  const auto with_bytes = [&](std::int64_t bytes) {
    DaspCounts c = counts;
    c.stored_medium_regular += bytes / 12 - c.stored_values();
    EXPECT_EQ(c.stored_values() * 12, bytes / 12 * 12);
    return c;
  };
  const DaspCounts mid = with_bytes(kDaspLongRowsCriticalMaxBytes + (std::int64_t{12} << 20));
  const DaspCounts at_bound = with_bytes(kDaspGraphLongRowsCriticalMaxBytes);
  const DaspCounts above =
      with_bytes(kDaspGraphLongRowsCriticalMaxBytes + (std::int64_t{12} << 20));
  EXPECT_TRUE(long_rows_are_critical(mid, kFp64Shape, 8, true));
  EXPECT_TRUE(long_rows_are_critical(at_bound, kFp64Shape, 8, true));
  EXPECT_FALSE(long_rows_are_critical(above, kFp64Shape, 8, true));
  EXPECT_FALSE(long_rows_are_critical(mid, kFp64Shape, 8, false));  // y in the plan's order
  DaspCounts two_row_blocks = mid;  // the graphs' bound is for one medium row-block a warp
  two_row_blocks.medium_rows_per_warp = 2 * kFp64Shape.rows;
  EXPECT_FALSE(long_rows_are_critical(two_row_blocks, kFp64Shape, 8, true));
  // 2-byte values: the size bound alone (twice mid's values, 76 MiB with their columns)
  const DaspCounts twice_mid =
      with_bytes(2 * (kDaspLongRowsCriticalMaxBytes + (std::int64_t{12} << 20)));
  EXPECT_FALSE(long_rows_are_critical(twice_mid, kFp64Shape, 2, true));
  // fewer empty rows than the share: a heavy tail, not a graph
  DaspCounts few_empty = mid;
  few_empty.rows_medium += few_empty.rows_empty;
  few_empty.rows_empty = 0;
  EXPECT_FALSE(long_rows_are_critical(few_empty, kFp64Shape, 8, true));
}

TEST(DaspLayout, DenseLongRowsLayoutMatchesReference) {
  const Matrix& a = dense_long_rows();
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, {}, 1.0, 0.0), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, {}, -0.5, 2.0), 1e-12);
}

TEST(DaspLayout, SparseLongRowsAreNotDenseLongRows) {
  // rows of 1000 in 1 M columns (density 0.001): x is not shared between the rows of a block, so
  // the rows stay long rows (no medium rows: MAX_LEN 64 in every precision)
  const Matrix a = generate_long_rows(1200, 1000000, 1000, 8);
  ASSERT_GE(a.nnz(), kDaspSmallMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(a, {}, kFp64Shape), kDaspFewMediumRowsMaxMediumRowLength);
  EXPECT_EQ(resolve_max_medium_row_length(a, {}, kFp16Shape), kDaspFewMediumRowsMaxMediumRowLength);
}

TEST(DaspLayout, DenseRowsOfWhichSomeAreShortAreNotDenseLongRows) {
  // rows of 200 and 1300 in 2048 columns: not every row is longer than 256 (and as many are
  // longer as not: MAX_LEN 64 in every precision)
  std::vector<int> lengths(1600);
  for (std::size_t r = 0; r < lengths.size(); ++r) lengths[r] = (r % 2) ? 1300 : 200;
  const Matrix a = matrix_with_lengths(2048, lengths);
  ASSERT_GE(a.nnz(), kDaspSmallMatrixNnz);
  EXPECT_EQ(resolve_max_medium_row_length(a, {}, kFp64Shape), kDaspFewMediumRowsMaxMediumRowLength);
  EXPECT_EQ(resolve_max_medium_row_length(a, {}, kFp16Shape), kDaspFewMediumRowsMaxMediumRowLength);
}

TEST(DaspLayout, ExplicitMaxMediumRowLengthOverridesTheDenseLongRowsRule) {
  const Matrix& a = dense_long_rows();
  const auto c = count_dasp_layout(a, paper_max_medium(), kFp64Shape);
  EXPECT_EQ(c.max_medium_row_length, kDaspMaxMediumRowLength);
  EXPECT_EQ(c.rows_long, a.rows);
  EXPECT_EQ(c.split.medium_blocks_per_warp, DaspWorkSplit{}.medium_blocks_per_warp);
  EXPECT_FALSE(is_dense_long_rows_layout(paper_max_medium(), c.max_medium_row_length));
}

TEST(DaspLayout, MaxMediumRowLengthMovesTheLongRowBoundary) {
  DaspParameters p;
  p.max_medium_row_length = 100;
  const Matrix a = matrix_with_lengths(1000, {100, 101, 256});
  const auto c = build_dasp_layout(a, p, kFp64Shape).counts;
  EXPECT_EQ(c.rows_medium, 1);
  EXPECT_EQ(c.rows_long, 2);
}

TEST(DaspLayout, MediumRowsAreSortedByLengthDescendingAndStable) {
  const Matrix a = matrix_with_lengths(100, {5, 7, 5, 9, 7, 5, 2});
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  const std::vector<std::int32_t> expected = {3, 1, 4, 0, 2, 5};
  ASSERT_GE(layout.medium_row_ids.size(), expected.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), layout.medium_row_ids.begin()));
  // the rest of the warp unit is padding
  for (std::size_t i = expected.size(); i < layout.medium_row_ids.size(); ++i)
    EXPECT_EQ(layout.medium_row_ids[i], -1);
  EXPECT_EQ(layout.medium_row_ids.size() % static_cast<std::size_t>(layout.medium_rows_per_warp),
            0u);
}

/// 3000 medium rows of 5-16 random nonzeros, some short and empty rows between them.
Matrix mixed_medium_rows(std::uint64_t seed) {
  std::vector<int> lengths(3000);
  std::uint64_t state = seed;
  for (int& length : lengths) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const int pick = static_cast<int>((state >> 33) % 14);
    length = pick == 12 ? 2 : pick == 13 ? 0 : 5 + pick;  // 5..16, some 2s and 0s
  }
  return matrix_with_lengths(4000, lengths, seed);
}

TEST(DaspLayout, MediumRowsAreSortedByLengthWithinWindowsOfCallerRows) {
  const Matrix a = mixed_medium_rows(3);
  DaspParameters p;
  p.medium_rows_per_warp = 16;  // two row-blocks a warp: the windows apply
  p.medium_row_window = 64;
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  EXPECT_EQ(layout.counts.medium_row_window, 64);
  auto length = [&](std::int32_t r) { return a.row_ptr[r + 1] - a.row_ptr[r]; };
  const auto& ids = layout.medium_row_ids;
  const auto medium = static_cast<std::size_t>(layout.counts.rows_medium);
  // every medium row once
  std::vector<std::int32_t> seen(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(medium));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end());
  // windows in caller order; inside a window lengths descend and equal lengths keep row order,
  // except within a row-block that straddles two windows, which is sorted by length itself
  for (std::size_t i = 1; i < medium; ++i) {
    const std::int32_t before = ids[i - 1], here = ids[i];
    const bool same_block = i % 8 != 0;
    if (before / 64 == here / 64) {
      EXPECT_TRUE(length(before) > length(here) || (length(before) == length(here) && before < here))
          << "position " << i;
    } else if (!same_block) {
      EXPECT_LT(before / 64, here / 64) << "position " << i;
    }
    if (same_block) {
      EXPECT_GE(length(before), length(here)) << "row-block of position " << i;
    }
  }
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 2.0, -0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp16Shape, p), 1e-12);
}

TEST(DaspLayout, WindowsOfRegularMediumRowsAreOrderedByWidthThenCallerRow) {
  const Matrix a = mixed_medium_rows(3);  // rows of 5-16 values: widths 2, 3, 4
  DaspParameters p;
  p.medium_rows_per_warp = 16;
  p.medium_row_window = 1000;
  p.regular_block_min_fill = 0;  // every medium value regular
  p.medium_row_order = 2;
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  EXPECT_TRUE(layout.counts.medium_rows_by_width);
  EXPECT_EQ(layout.counts.nnz_medium_irregular, 0);
  auto length = [&](std::int32_t r) { return a.row_ptr[r + 1] - a.row_ptr[r]; };
  auto width = [&](std::int32_t r) { return (length(r) + 3) / 4; };
  const auto medium = static_cast<std::ptrdiff_t>(layout.counts.rows_medium);
  const std::vector<std::int32_t> ids(layout.medium_row_ids.begin(),
                                      layout.medium_row_ids.begin() + medium);
  // (window, width descending, row) ...
  std::vector<std::int32_t> expected = ids;
  std::sort(expected.begin(), expected.end(), [&](std::int32_t x, std::int32_t y) {
    return std::tuple(x / 1000, -width(x), x) < std::tuple(y / 1000, -width(y), y);
  });
  // ... and each row-block of 8 sorted by length again (descending, stable)
  for (std::ptrdiff_t first = 0; first < medium; first += 8) {
    const auto last = std::min(medium, first + 8);
    std::stable_sort(expected.begin() + first, expected.begin() + last,
                     [&](std::int32_t x, std::int32_t y) { return length(x) > length(y); });
  }
  EXPECT_EQ(ids, expected);
  // by length instead (the paper's sort in windows): about as many values stored, but a warp's
  // 16 rows spread over more caller rows (so its stores of y touch more sectors)
  DaspParameters by_length = p;
  by_length.medium_row_order = 1;
  const auto length_layout = build_dasp_layout(a, by_length, kFp64Shape);
  EXPECT_FALSE(length_layout.counts.medium_rows_by_width);
  EXPECT_LE(layout.counts.stored_values(), length_layout.counts.stored_values() * 21 / 20);
  auto mean_span = [&](const std::vector<std::int32_t>& rows) {
    double total = 0;
    std::int64_t units = 0;
    for (std::size_t first = 0; first < rows.size(); first += 16, ++units) {
      const auto unit =
          std::span(rows).subspan(first, std::min<std::size_t>(16, rows.size() - first));
      const auto [low, high] = std::minmax_element(unit.begin(), unit.end());
      total += *high - *low;
    }
    return total / static_cast<double>(units);
  };
  const std::vector<std::int32_t> length_ids(length_layout.medium_row_ids.begin(),
                                             length_layout.medium_row_ids.begin() + medium);
  EXPECT_LT(mean_span(ids), 0.5 * mean_span(length_ids));
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 2.0, -0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp16Shape, p), 1e-12);
  // the paper's fill keeps irregular values: the windows stay ordered by length
  p.regular_block_min_fill = 0.75;
  EXPECT_FALSE(build_dasp_layout(a, p, kFp64Shape).counts.medium_rows_by_width);
}

TEST(DaspLayout, MediumRowWindowIsAutoFromAMillionRowsAndOffAsked) {
  const Matrix small = mixed_medium_rows(4);
  EXPECT_EQ(count_dasp_layout(small, {}, kFp64Shape).medium_row_window, 0);
  EXPECT_EQ(resolve_medium_row_window({}, kDaspWindowedMinRows - 1), 0);
  EXPECT_EQ(resolve_medium_row_window({}, kDaspWindowedMinRows), kDaspMediumRowWindow);
  DaspParameters off;
  off.medium_row_window = -1;
  EXPECT_EQ(resolve_medium_row_window(off, kDaspWindowedMinRows * 8), 0);
  // one row-block a warp takes a window only when asked and no row-block is split (split
  // row-blocks must lead the order)
  DaspParameters one_block;
  one_block.medium_rows_per_warp = 8;
  one_block.medium_row_window = 64;
  EXPECT_EQ(count_dasp_layout(small, one_block, kFp64Shape).medium_row_window, 64);
  one_block.medium_blocks_per_warp = 2;
  EXPECT_EQ(count_dasp_layout(small, one_block, kFp64Shape).medium_row_window, 0);
}

TEST(DaspLayout, WindowedMediumRowsStillCountWhatTheLayoutHolds) {
  const Matrix a = mixed_medium_rows(5);
  for (const std::int64_t window : {8, 24, 64, 1000}) {
    DaspParameters p;
    p.medium_rows_per_warp = 32;
    p.medium_row_window = window;
    const auto layout = build_dasp_layout(a, p, kFp64Shape);
    const DaspCounts counted = count_dasp_layout(a, p, kFp64Shape);
    EXPECT_EQ(counted.regular_blocks, layout.counts.regular_blocks) << window;
    EXPECT_EQ(counted.nnz_medium_irregular, layout.counts.nnz_medium_irregular) << window;
    EXPECT_EQ(layout.counts.nnz(), a.nnz()) << window;
    EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 1.0, 1.0), 1e-12) << window;
  }
}

TEST(DaspLayout, RowsOfFourJoinTheMediumRowsWhenAsked) {
  const Matrix a = matrix_with_lengths(100, {4, 2, 5, 4, 0, 7, 4, 1, 3, 4, 6, 4});
  DaspParameters p;
  p.medium_min_row_length = 4;
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  EXPECT_EQ(layout.counts.medium_min_row_length, 4);
  EXPECT_EQ(layout.counts.rows_medium, 8);  // 7, 6, 5 and the five 4s
  EXPECT_EQ(layout.counts.short_rows_of_length[4], 0);
  EXPECT_EQ(layout.counts.rows_short, 3);  // 2, 1, 3
  const std::vector<std::int32_t> expected = {5, 10, 2, 0, 3, 6, 9, 11};
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), layout.medium_row_ids.begin()));
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 1.0, -2.0), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp16Shape, p), 1e-12);
  EXPECT_EQ(count_dasp_layout(a, {}, kFp64Shape).medium_min_row_length, 5);  // the paper's
}

TEST(DaspLayout, RowsOfFourAreMediumRowsOnlyInLargeWindowedMatricesOfMostlyMediumRows) {
  const std::int64_t large = kDaspWindowedMinRows;
  EXPECT_EQ(resolve_medium_min_row_length({}, large, 10, 1000), 4);
  EXPECT_EQ(resolve_medium_min_row_length({}, large, 1000, 1000), 5);  // many short rows
  EXPECT_EQ(resolve_medium_min_row_length({}, large - 1, 10, 1000), 5);  // no windows
  DaspParameters off;
  off.medium_row_window = -1;
  EXPECT_EQ(resolve_medium_min_row_length(off, large, 10, 1000), 5);
  DaspParameters paper;
  paper.medium_min_row_length = 5;
  EXPECT_EQ(resolve_medium_min_row_length(paper, large, 10, 1000), 5);
}

TEST(DaspLayout, LongRowsArePaddedToWholeGroupsOfTwoBlocks) {
  // fp64: a group is 2 x 8 x 4 = 64 values; 257 values take 5 groups (63 zeros)
  const Matrix a = matrix_with_lengths(1000, {257, 300});
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  EXPECT_EQ(layout.counts.long_groups, 10);
  EXPECT_EQ(layout.counts.stored_long, 640);
  EXPECT_EQ(layout.long_group_ptr, (std::vector<std::int32_t>{0, 5, 10}));
  EXPECT_EQ(layout.long_row_ids, (std::vector<std::int32_t>{0, 1}));
  // padding is a zero with the row's last column
  const std::int32_t last_col = a.col_idx[256];
  for (std::size_t i = 257; i < 320; ++i) {
    EXPECT_EQ(layout.long_values[i], 0.0);
    EXPECT_EQ(layout.long_cols[i], last_col);
  }
}

TEST(DaspLayout, Fp16LongGroupsHold128Values) {
  const Matrix a = matrix_with_lengths(1000, {257});
  const auto c = build_dasp_layout(test::with_values<half>(a)).counts;
  EXPECT_EQ(c.long_groups, 3);
  EXPECT_EQ(c.stored_long, 384);
}

TEST(DaspLayout, LongRowsAreSplitIntoWarpTasksOfGroupsPerWarp) {
  DaspParameters p;
  p.long_groups_per_warp = 8;
  const Matrix a = matrix_with_lengths(5000, {64 * 20, 300});
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  ASSERT_EQ(layout.long_tasks.size(), 4u);
  EXPECT_EQ(layout.long_task_ptr, (std::vector<std::int32_t>{0, 3, 4}));
  const int expected[][3] = {{0, 0, 16}, {0, 16, 32}, {0, 32, 40}, {1, 40, 50}};
  for (std::size_t t = 0; t < 4; ++t) {
    EXPECT_EQ(layout.long_tasks[t].row, expected[t][0]);
    EXPECT_EQ(layout.long_tasks[t].block_begin, expected[t][1]);
    EXPECT_EQ(layout.long_tasks[t].block_end, expected[t][2]);
    EXPECT_EQ(layout.long_tasks[t].long_row, expected[t][0]);
  }
}

TEST(DaspLayout, BlockOfExactlyThreeQuartersFilledIsRegular) {
  // 8 rows of 7: chunk 0 full, chunk 1 holds 8 x 3 = 24 of 32 values = 75 % -> regular
  const Matrix a = matrix_with_lengths(100, std::vector<int>(8, 7));
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.regular_blocks, 2);
  EXPECT_EQ(c.nnz_medium_irregular, 0);
  EXPECT_EQ(c.stored_medium_regular - c.nnz_medium_regular, 8);
}

TEST(DaspLayout, BlockJustBelowThreeQuartersGoesToTheIrregularPart) {
  // seven rows of 7 and one of 6: chunk 1 holds 7 x 3 + 2 = 23 of 32 -> irregular
  std::vector<int> lengths(7, 7);
  lengths.push_back(6);
  const Matrix a = matrix_with_lengths(100, lengths);
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.regular_blocks, 1);
  EXPECT_EQ(c.nnz_medium_regular, 32);
  EXPECT_EQ(c.nnz_medium_irregular, 23);
}

TEST(DaspLayout, Fp16BlockThresholdIsThreeQuartersOf64) {
  // 16 rows of 7: chunk 1 holds 48 of 64 -> regular; with one row of 6, 47 -> irregular
  std::vector<int> lengths(16, 7);
  EXPECT_EQ(build_dasp_layout(matrix_with_lengths(100, lengths), {}, kFp16Shape).counts.regular_blocks, 2);
  lengths.back() = 6;
  EXPECT_EQ(build_dasp_layout(matrix_with_lengths(100, lengths), {}, kFp16Shape).counts.regular_blocks, 1);
}

TEST(DaspLayout, RegularFillParameterMovesTheThreshold) {
  // rows of 5: chunk 1 holds 8 of 32 = 25 %
  const Matrix a = matrix_with_lengths(100, std::vector<int>(8, 5));
  DaspParameters p;
  p.regular_block_min_fill = 0.25;
  EXPECT_EQ(build_dasp_layout(a, p, kFp64Shape).counts.regular_blocks, 2);
  p.regular_block_min_fill = 0.26;
  EXPECT_EQ(build_dasp_layout(a, p, kFp64Shape).counts.regular_blocks, 1);
  p.regular_block_min_fill = 0.0;  // every non-empty chunk
  EXPECT_EQ(build_dasp_layout(a, p, kFp64Shape).counts.regular_blocks, 2);
}

TEST(DaspLayout, AutoFillPutsEveryMediumValueInRegularBlocksWhereFp64StoresAtMost40PercentMore) {
  // rows of 14: row-blocks of 8 rows fill chunks 1-3 and half of chunk 4 (16 of 32 values: below
  // the paper's 24, irregular). Covering them stores 128 values a row-block for 112, 14 % more
  std::vector<int> fourteen(75000, 14);  // 1.05 M nonzeros
  const Matrix a = matrix_with_lengths(100000, fourteen, 3);
  const DaspCounts automatic = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(automatic.nnz_medium_irregular, 0);
  EXPECT_EQ(automatic.regular_blocks, 4 * automatic.row_blocks);
  DaspParameters paper;
  paper.regular_block_min_fill = 0.75;
  const DaspCounts papers = build_dasp_layout(a, paper, kFp64Shape).counts;
  EXPECT_EQ(papers.nnz_medium_irregular, 2 * 75000);
  EXPECT_EQ(papers.regular_blocks, 3 * papers.row_blocks);
  // not for fp16 / bf16 blocks, nor below 1 M nonzeros
  EXPECT_GT(build_dasp_layout(a, {}, kFp16Shape).counts.nnz_medium_irregular, 0);
  fourteen.resize(70000);  // 0.98 M
  EXPECT_GT(build_dasp_layout(matrix_with_lengths(100000, fourteen, 3), {}, kFp64Shape)
                .counts.nnz_medium_irregular,
            0);
  // rows of 6: covering them stores 64 values a row-block for 48, a third more (within 0.4)
  const Matrix six = matrix_with_lengths(100000, std::vector<int>(180000, 6), 4);
  EXPECT_EQ(build_dasp_layout(six, {}, kFp64Shape).counts.nnz_medium_irregular, 0);
  EXPECT_EQ(build_dasp_layout(six, paper, kFp64Shape).counts.nnz_medium_irregular, 2 * 180000);
  // rows of 5: 64 values a row-block for 40 (32 regular, 8 irregular), 60 % more: the paper's
  const Matrix five = matrix_with_lengths(100000, std::vector<int>(210000, 5), 5);
  ASSERT_GE(five.nnz(), kDaspAllRegularMinNnz);
  EXPECT_EQ(build_dasp_layout(five, {}, kFp64Shape).counts.nnz_medium_irregular, 210000);
  // and the layout is right either way
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape), 1e-12);
  EXPECT_LT(host_apply_error<double>(six, kFp64Shape), 1e-12);
}

TEST(DaspLayout, AutoFillOfZeroLaysOutAsFillZeroAskedFor) {
  // 400 000 rows of 6 (2.4 M nonzeros, a third more values covered): at the paper's fill each
  // row-block holds one regular block, at which warps take 4 row-blocks; at fill 0 it holds two,
  // at which they take 2. The automatic fill 0 takes the warps of fill 0, not of the paper's fill
  const Matrix six = matrix_with_lengths(100000, std::vector<int>(400000, 6), 6);
  DaspParameters paper, zero;
  paper.regular_block_min_fill = 0.75;
  zero.regular_block_min_fill = 0;
  ASSERT_EQ(build_dasp_layout(six, paper, kFp64Shape).counts.medium_rows_per_warp, 32);
  const DaspCounts automatic = build_dasp_layout(six, {}, kFp64Shape).counts;
  const DaspCounts asked = build_dasp_layout(six, zero, kFp64Shape).counts;
  EXPECT_EQ(automatic.nnz_medium_irregular, 0);
  EXPECT_EQ(automatic.medium_rows_per_warp, 16);
  EXPECT_EQ(automatic.medium_rows_per_warp, asked.medium_rows_per_warp);
  EXPECT_EQ(automatic.regular_blocks, asked.regular_blocks);
  EXPECT_EQ(automatic.medium_units, asked.medium_units);
  EXPECT_EQ(automatic.warps(), asked.warps());
  EXPECT_LT(host_apply_error<double>(six, kFp64Shape), 1e-12);
}

TEST(DaspLayout, RegularPaddingReadsTheRowsLastColumn) {
  const Matrix a = matrix_with_lengths(100, std::vector<int>(8, 7));
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  // block 1 (values 32..63), block row r = medium row r = row r; its value 3 is padding
  for (int r = 0; r < 8; ++r) {
    const std::size_t at = 32 + static_cast<std::size_t>(layout.shape.offset(r, 3));
    EXPECT_EQ(layout.regular_values[at], 0.0);
    EXPECT_EQ(layout.regular_cols[at], a.col_idx[static_cast<std::size_t>(a.row_ptr[r] + 6)]);
  }
}

TEST(DaspLayout, ShortRowsArePiecedOneWithThreeAndTwoWithTwo) {
  // five 1s, three 2s, two 3s, one 4
  const Matrix a = matrix_with_lengths(50, {1, 2, 3, 4, 1, 1, 2, 3, 1, 2, 1});
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.pairs_1_3, 2);
  EXPECT_EQ(c.single_1, 3);
  EXPECT_EQ(c.pairs_2_2, 1);
  EXPECT_EQ(c.padded_2, 1);
  EXPECT_EQ(c.padded_3, 0);
  EXPECT_EQ(c.rows_4, 2);  // the 4 and the odd 2
}

TEST(DaspLayout, ThreesLeftOverFromPiecingArePaddedToFour) {
  const Matrix a = matrix_with_lengths(50, {3, 3, 1, 3, 3});
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.pairs_1_3, 1);
  EXPECT_EQ(c.padded_3, 3);
  EXPECT_EQ(c.rows_4, 3);
  EXPECT_EQ(c.single_1, 0);
}

/// Rows of 1, 3 and 4 values whose 1s and 3s drift apart: every 5 rows are 1, 3, 4 and then two
/// 1s in the first 200 rows, two 3s in the next 200, and so on. As many 1s as 3s in all (for
/// rows a multiple of 400), but three times as many of one as of the other in any 200 rows.
Matrix drifting_short_rows(int rows) {
  std::vector<int> lengths(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    const int extra = (r / 200) % 2 == 0 ? 1 : 3;
    lengths[static_cast<std::size_t>(r)] = std::array{1, 3, 4, extra, extra}[r % 5];
  }
  return matrix_with_lengths(300, lengths, 17);
}

TEST(DaspLayout, OnesArePairedWithThreesOfTheirOwnWindowOfCallerRows) {
  const Matrix a = drifting_short_rows(2000);
  DaspParameters p;
  p.short_pair_window = 100;
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  const DaspCounts& c = layout.counts;
  EXPECT_EQ(c.short_pair_window, 100);
  // each window of 100 rows: its 1s and 3s counted, min(n1, n3) pairs
  std::int64_t pairs = 0;
  for (int w = 0; w < 20; ++w) {
    std::int64_t n1 = 0, n3 = 0;
    for (int r = 100 * w; r < 100 * (w + 1); ++r) {
      const int len = a.row_ptr[static_cast<std::size_t>(r) + 1] - a.row_ptr[static_cast<std::size_t>(r)];
      n1 += len == 1;
      n3 += len == 3;
    }
    pairs += std::min(n1, n3);
  }
  EXPECT_EQ(c.pairs_1_3, pairs);
  EXPECT_LT(c.pairs_1_3, std::min(c.short_rows_of_length[1], c.short_rows_of_length[3]));
  EXPECT_EQ(c.single_1, c.short_rows_of_length[1] - pairs);
  EXPECT_EQ(c.padded_3, c.short_rows_of_length[3] - pairs);
  // every pair's 1-row and 3-row lie in one window
  const auto& part = layout.short_parts[static_cast<std::size_t>(DaspShortKind::pairs_1_3)];
  for (std::int64_t pair = 0; pair < c.pairs_1_3; ++pair) {
    const std::int64_t ids = part.row_offset + pair / internal::kShortPairsPerTile * kWarpSize;
    const int k = static_cast<int>(pair % internal::kShortPairsPerTile);
    const std::int32_t one = layout.short_row_ids[static_cast<std::size_t>(ids + internal::pair_output(k, 0, 8))];
    const std::int32_t three = layout.short_row_ids[static_cast<std::size_t>(ids + internal::pair_output(k, 1, 8))];
    ASSERT_EQ(one / 100, three / 100) << "pair " << pair << ": rows " << one << " and " << three;
  }
  EXPECT_EQ(layout.counts.nnz(), a.nnz());
  EXPECT_EQ(count_dasp_layout(a, p, kFp64Shape), c);
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 1.0, 0.5), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, kFp16Shape, p), 1e-12);
  // over the whole matrix (the paper's): the k-th 1 with the k-th 3
  p.short_pair_window = -1;
  const DaspCounts whole = count_dasp_layout(a, p, kFp64Shape);
  EXPECT_EQ(whole.short_pair_window, 0);
  EXPECT_EQ(whole.pairs_1_3, std::min(whole.short_rows_of_length[1], whole.short_rows_of_length[3]));
}

TEST(DaspLayout, ShortPairWindowIsAutoFromAMillionRowsAndOffAsked) {
  EXPECT_EQ(count_dasp_layout(drifting_short_rows(2000), {}, kFp64Shape).short_pair_window, 0);
  EXPECT_EQ(resolve_short_pair_window({}, kDaspWindowedMinRows - 1), 0);
  EXPECT_EQ(resolve_short_pair_window({}, kDaspWindowedMinRows), kDaspShortPairWindow);
  DaspParameters off;
  off.short_pair_window = -1;
  EXPECT_EQ(resolve_short_pair_window(off, kDaspWindowedMinRows * 8), 0);
  DaspParameters asked;
  asked.short_pair_window = 64;
  EXPECT_EQ(resolve_short_pair_window(asked, 10), 64);
}

TEST(DaspLayout, WindowedPairsOfEveryWindowSizeMatchReference) {
  const Matrix a = drifting_short_rows(1500);
  for (const std::int64_t window : {8, 33, 100, 1499, 1500, 4096}) {
    DaspParameters p;
    p.short_pair_window = window;
    p.short_tile_order = 2;  // tiles by row, as from kDaspShortTilesByRowMin tiles
    const auto layout = build_dasp_layout(a, p, kFp64Shape);
    std::vector<std::int32_t> ids;
    for (auto id : layout.short_row_ids)
      if (id >= 0) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids.size(), 1500u) << window;
    EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << window;  // each row once
    EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p, 1.0, -1.0), 1e-12) << window;
  }
}

TEST(DaspLayout, ShortTilesHoldThirtyTwoOutputs) {
  // 40 pairs of 1+3 -> 3 tiles of 16 pairs; 33 fours -> 2 tiles; 33 ones -> 2 tiles
  std::vector<int> lengths;
  for (int i = 0; i < 40; ++i) lengths.insert(lengths.end(), {1, 3});
  for (int i = 0; i < 33; ++i) lengths.insert(lengths.end(), {4, 1});
  const Matrix a = matrix_with_lengths(50, lengths);
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  const auto& c = layout.counts;
  EXPECT_EQ(c.pairs_1_3, 40);
  EXPECT_EQ(c.single_1, 33);
  EXPECT_EQ(c.short_tiles[0], 3);
  EXPECT_EQ(c.short_tiles[1], 2);
  EXPECT_EQ(c.short_tiles[2], 0);
  EXPECT_EQ(c.short_tiles[3], 2);
  EXPECT_EQ(c.stored_short, 3 * 64 + 2 * 128 + 2 * 32);
  EXPECT_EQ(layout.short_row_ids.size(), 7u * 32u);
  // every short row appears once among the row ids
  std::vector<std::int32_t> ids;
  for (auto id : layout.short_row_ids)
    if (id >= 0) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  std::vector<std::int32_t> all(lengths.size());
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(ids, all);
}

TEST(DaspLayout, EmptyRowsArePaddedToWholeTiles) {
  const Matrix a = matrix_with_lengths(10, {0, 3, 0, 0});
  const auto layout = build_dasp_layout(a, {}, kFp64Shape);
  ASSERT_EQ(layout.empty_row_ids.size(), 32u);
  EXPECT_EQ(layout.empty_row_ids[0], 0);
  EXPECT_EQ(layout.empty_row_ids[1], 2);
  EXPECT_EQ(layout.empty_row_ids[2], 3);
  EXPECT_EQ(layout.empty_row_ids[3], -1);
}

TEST(DaspLayout, PaddingRatioCountsEveryStoredZero) {
  // one 1+3 pair in a tile of 16 pairs: 64 stored for 4 nonzeros
  const Matrix a = matrix_with_lengths(10, {1, 3});
  const auto c = build_dasp_layout(a, {}, kFp64Shape).counts;
  EXPECT_EQ(c.stored_values(), 64);
  EXPECT_DOUBLE_EQ(c.padding_ratio(), 15.0);
}

TEST(DaspLayout, MediumWarpUnitsFollowTheLoopNumThresholds) {
  // at most the paper's LOOP_NUM: 1 below 59990 medium rows, 2 below 400000, else 4
  DaspParameters p;
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 59989, 8, 7000, 7000), 8);
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 59990, 8, 7000, 7000), 16);
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 8, 50000, 50000), 32);
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 10, 16), 16);  // fp16 row-blocks are 16 rows
  p.medium_rows_per_warp = 32;
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 10, 8), 32);
}

TEST(DaspLayout, MediumWarpUnitsFollowTheBlocksOfTheRowBlocks) {
  const DaspParameters p;
  // one block a row-block (5-point stencil): the paper's 4
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 8, 50000, 50000, 1), 32);
  // several blocks (27-point stencil, banded): 2
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 8, 50000, 50000 * 7, 7), 16);
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 16, 25000, 25000 * 7, 7), 32);
  // heavy-tailed (largest row-block > 4x the average): 1
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 8, 50000, 50000 * 3, 64), 8);
  EXPECT_EQ(resolve_medium_rows_per_warp(p, 400000, 16, 25000, 25000 * 3, 64), 16);
}

TEST(DaspLayout, ShortTilesByRowListEveryTileOnceInRowOrder) {
  std::vector<int> lengths;
  for (int i = 0; i < 2000; ++i) lengths.push_back(1 + (i * 7) % 4);
  const Matrix a = matrix_with_lengths(5000, lengths, 5);
  DaspParameters p;
  p.short_tile_order = 2;
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  ASSERT_TRUE(layout.counts.short_tiles_by_row);
  std::int64_t tiles = 0;
  for (auto t : layout.counts.short_tiles) tiles += t;
  ASSERT_EQ(static_cast<std::int64_t>(layout.short_tile_order.size()), tiles);
  std::set<std::int32_t> codes(layout.short_tile_order.begin(), layout.short_tile_order.end());
  EXPECT_EQ(static_cast<std::int64_t>(codes.size()), tiles);
  std::int32_t previous_first_row = -1;
  for (std::int32_t code : layout.short_tile_order) {
    const DaspShortPart& part = layout.short_parts[static_cast<std::size_t>(code & 3)];
    ASSERT_LT(code >> 2, part.tiles);
    std::int32_t first = std::numeric_limits<std::int32_t>::max();
    for (int lane = 0; lane < 32; ++lane) {
      const auto id = layout.short_row_ids[static_cast<std::size_t>(part.row_offset + (code >> 2) * 32 + lane)];
      if (id >= 0) first = std::min(first, id);
    }
    EXPECT_GE(first, previous_first_row);
    previous_first_row = first;
  }
  EXPECT_LT(host_apply_error<double>(a, kFp64Shape, p), 1e-12);
  // small matrices keep the paper's order by kind
  EXPECT_TRUE(build_dasp_layout(a, {}, kFp64Shape).short_tile_order.empty());
}

TEST(DaspLayout, LeadingUnitsWithoutIrregularValuesAreCounted) {
  DaspParameters p;
  p.medium_rows_per_warp = 8;
  // 16 rows of 8 (two plain row-blocks), then 8 rows of 5 (one block + 1 irregular each)
  std::vector<int> lengths(16, 8);
  lengths.insert(lengths.end(), 8, 5);
  const auto layout = build_dasp_layout(matrix_with_lengths(100, lengths), p, kFp64Shape);
  EXPECT_EQ(layout.medium_plain_units, 2);
  EXPECT_EQ(build_dasp_layout(matrix_with_lengths(100, std::vector<int>(9, 5)), p, kFp64Shape)
                .medium_plain_units,
            0);
}

TEST(DaspLayout, MediumArraysArePaddedToWholeWarpUnits) {
  DaspParameters p;
  p.medium_rows_per_warp = 32;
  const Matrix a = matrix_with_lengths(100, std::vector<int>(40, 9));  // 5 row-blocks
  const auto layout = build_dasp_layout(a, p, kFp64Shape);
  EXPECT_EQ(layout.counts.row_blocks, 5);
  EXPECT_EQ(layout.counts.medium_units, 2);
  EXPECT_EQ(layout.medium_row_ids.size(), 64u);
  EXPECT_EQ(layout.rowblock_ptr.size(), 9u);
  EXPECT_EQ(layout.irregular_ptr.size(), 65u);
  EXPECT_EQ(layout.rowblock_ptr.back(), layout.rowblock_ptr[5]);
}

TEST(DaspLayout, LayoutDoesNotDependOnTheNumberOfThreads) {
  const Matrix a = generate_random_rows(120000, 4000, RowLengthDistribution::power_law, 0, 400, 9);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = build_dasp_layout(a, {}, kFp64Shape);
  omp_set_num_threads(std::max(4, threads));
  const auto many = build_dasp_layout(a, {}, kFp64Shape);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.medium_row_ids, many.medium_row_ids);
  EXPECT_EQ(one.rowblock_ptr, many.rowblock_ptr);
  EXPECT_EQ(one.irregular_ptr, many.irregular_ptr);
  EXPECT_EQ(one.short_row_ids, many.short_row_ids);
  EXPECT_EQ(one.empty_row_ids, many.empty_row_ids);
  ASSERT_EQ(one.regular_cols.size(), many.regular_cols.size());
  EXPECT_TRUE(std::equal(one.regular_cols.span().begin(), one.regular_cols.span().end(),
                         many.regular_cols.span().begin()));
  EXPECT_TRUE(std::equal(one.short_cols.span().begin(), one.short_cols.span().end(),
                         many.short_cols.span().begin()));
}

TEST(DaspLayout, RejectsABlockShapeTheKernelsDoNotHave) {
  const Matrix a = matrix_with_lengths(10, {3});
  EXPECT_THROW(build_dasp_layout(a, {}, DaspBlockShape{4, 4}), UnsupportedError);
}

TEST(DaspLayout, StatisticsCountEveryCategory) {
  // a small matrix: rows longer than 16 are long rows
  const Matrix a = matrix_with_lengths(1000, {0, 1, 2, 3, 4, 5, 256, 257});
  const Json stats = host_layout_statistics(a, {});
  EXPECT_EQ(stats["rows"], (Json{{"long", 2}, {"medium", 1}, {"short", 4}, {"empty", 1}}));
  EXPECT_EQ(stats["nnz"]["long"], 513);
  EXPECT_EQ(stats["nnz"]["short"], 10);
  EXPECT_EQ(stats["nnz"]["medium_regular"].get<int>() + stats["nnz"]["medium_irregular"].get<int>(), 5);
  EXPECT_EQ(stats["loop_num"], 1);
  EXPECT_EQ(stats["max_medium_row_length"], 16);
  EXPECT_GE(stats["stored_values"].get<std::int64_t>(), a.nnz());
  EXPECT_NEAR(stats["padding_ratio"].get<double>(),
              static_cast<double>(stats["stored_values"].get<std::int64_t>() - a.nnz()) /
                  static_cast<double>(a.nnz()),
              1e-12);
}

// ---- parameters -----------------------------------------------------------------------------

TEST(DaspParameters, DefaultsAreThePapersOrAuto) {
  const DaspParameters p = parse_parameters({});
  EXPECT_EQ(p.max_medium_row_length, 0);  // auto: 256 (the paper's) for large matrices
  EXPECT_LT(p.regular_block_min_fill, 0.0);  // auto: the paper's 0.75, or 0 (next test)
  EXPECT_FALSE(p.kernel_parts_all);
  EXPECT_EQ(p.medium_row_order, 0);  // auto: by width where every medium value is regular
  EXPECT_EQ(p.medium_rows_per_warp, 0);
  EXPECT_EQ(p.long_groups_per_warp, 0);  // auto
  EXPECT_EQ(p.medium_blocks_per_warp, 0);  // auto
  EXPECT_EQ(p.blocks_in_flight, 0);   // auto
  EXPECT_EQ(p.pipelined_loads, -1);  // auto
  EXPECT_EQ(p.fp64_block_order, 0);  // auto
}

TEST(DaspParameters, ParsesEveryKey) {
  const DaspParameters p = parse_parameters(
      {"max_medium_row_length=128", "regular_block_min_fill=0.5", "medium_rows_per_warp=16",
       "long_groups_per_warp=3", "medium_blocks_per_warp=5", "blocks_in_flight=2",
       "pipelined_loads=0", "short_tile_order=row", "fill=host", "fp64_block_order=column",
       "build=host", "upload=overlapped"});
  EXPECT_EQ(p.max_medium_row_length, 128);
  EXPECT_DOUBLE_EQ(p.regular_block_min_fill, 0.5);
  EXPECT_EQ(p.medium_rows_per_warp, 16);
  EXPECT_EQ(p.long_groups_per_warp, 3);
  EXPECT_EQ(p.medium_blocks_per_warp, 5);
  EXPECT_EQ(p.blocks_in_flight, 2);
  EXPECT_EQ(p.pipelined_loads, 0);
  EXPECT_EQ(p.fp64_block_order, 2);
  EXPECT_FALSE(p.fill_on_device);
  EXPECT_FALSE(p.build_on_device);
  EXPECT_TRUE(p.overlapped_upload);
  EXPECT_EQ(parse_parameters({"fp64_block_order=row"}).fp64_block_order, 1);
  EXPECT_EQ(parse_parameters({"medium_rows_per_warp=auto"}).medium_rows_per_warp, 0);
  EXPECT_EQ(parse_parameters({"medium_row_window=4096"}).medium_row_window, 4096);
  EXPECT_EQ(parse_parameters({"medium_row_window=off"}).medium_row_window, -1);
  EXPECT_EQ(parse_parameters({"medium_row_window=auto"}).medium_row_window, 0);
  EXPECT_EQ(parse_parameters({"medium_min_row_length=4"}).medium_min_row_length, 4);
  EXPECT_EQ(parse_parameters({"medium_min_row_length=auto"}).medium_min_row_length, 0);
  EXPECT_EQ(parse_parameters({"medium_row_order=length"}).medium_row_order, 1);
  EXPECT_EQ(parse_parameters({"medium_row_order=width"}).medium_row_order, 2);
  EXPECT_EQ(parse_parameters({}).short_y, 0);
  EXPECT_EQ(parse_parameters({"short_y=direct"}).short_y, 1);
  EXPECT_EQ(parse_parameters({"short_y=staged"}).short_y, 2);
  EXPECT_EQ(parse_parameters({"short_pair_window=1024"}).short_pair_window, 1024);
  EXPECT_EQ(parse_parameters({"short_pair_window=off"}).short_pair_window, -1);
  EXPECT_EQ(parse_parameters({"short_pair_window=auto"}).short_pair_window, 0);
}

TEST(DaspParameters, TheLayoutIsBuiltOnTheGpuUnlessTheHostIsAsked) {
  EXPECT_TRUE(parse_parameters({}).build_on_device);
  EXPECT_TRUE(parse_parameters({"build=device"}).build_on_device);
  EXPECT_FALSE(parse_parameters({"build=host"}).build_on_device);
}

TEST(DaspParameters, HostFillAndOverlappedUploadNeedTheHostBuild) {
  // the device build uploads the CSR before it builds and fills the values on the GPU
  for (const char* host_only : {"fill=host", "upload=overlapped"}) {
    try {
      parse_parameters({host_only});
      ADD_FAILURE() << host_only << " was accepted with the device build";
    } catch (const ParameterError& error) {
      EXPECT_NE(std::string(error.what()).find(host_only), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("needs build=host"), std::string::npos)
          << error.what();
    }
    EXPECT_NO_THROW(parse_parameters({host_only, "build=host"}));
  }
}

TEST(DaspParameters, UnknownKeyIsAParameterErrorListingTheKnownKeys) {
  try {
    parse_parameters({"loop_numm=2"});
    FAIL() << "no exception";
  } catch (const ParameterError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("dasp"), std::string::npos) << message;
    EXPECT_NE(message.find("loop_numm"), std::string::npos) << message;
    for (const ParameterSpec& spec : parameter_specs())
      EXPECT_NE(message.find(std::string(spec.name)), std::string::npos) << message;
  }
}

TEST(DaspParameters, MalformedOrOutOfRangeValuesAreParameterErrors) {
  EXPECT_THROW(parse_parameters({"max_medium_row_length"}), ParameterError);
  EXPECT_THROW(parse_parameters({"max_medium_row_length=3"}), ParameterError);
  EXPECT_THROW(parse_parameters({"max_medium_row_length=12x"}), ParameterError);
  EXPECT_THROW(parse_parameters({"regular_block_min_fill=1.5"}), ParameterError);
  EXPECT_THROW(parse_parameters({"regular_block_min_fill=abc"}), ParameterError);
  EXPECT_THROW(parse_parameters({"fp64_block_order=diagonal"}), ParameterError);
  EXPECT_THROW(parse_parameters({"medium_rows_per_warp=12"}), ParameterError);
  EXPECT_THROW(parse_parameters({"long_groups_per_warp=0"}), ParameterError);
  EXPECT_THROW(parse_parameters({"blocks_in_flight=3"}), ParameterError);
  EXPECT_THROW(parse_parameters({"medium_blocks_per_warp=0"}), ParameterError);
  EXPECT_THROW(parse_parameters({"pipelined_loads=2"}), ParameterError);
  EXPECT_THROW(parse_parameters({"short_tile_order=diagonal"}), ParameterError);
  EXPECT_THROW(parse_parameters({"fill=gpu"}), ParameterError);
  EXPECT_THROW(parse_parameters({"row_order=sorted"}), ParameterError);
  EXPECT_THROW(parse_parameters({"medium_row_window=4"}), ParameterError);
  EXPECT_THROW(parse_parameters({"medium_row_window=global"}), ParameterError);
  EXPECT_THROW(parse_parameters({"medium_min_row_length=3"}), ParameterError);
}

TEST(DaspParameters, RowOrderIsTheCallersUnlessThePlansIsAsked) {
  EXPECT_FALSE(parse_parameters({}).plan_row_order);
  EXPECT_FALSE(parse_parameters({"row_order=caller"}).plan_row_order);
  EXPECT_TRUE(parse_parameters({"row_order=plan"}).plan_row_order);
  EXPECT_TRUE(parse_parameters({}).row_order_auto);
  EXPECT_FALSE(parse_parameters({"row_order=caller"}).row_order_auto);
  // internal: the plan's order inside the apply, the caller's outside
  const DaspParameters internal = parse_parameters({"row_order=internal"});
  EXPECT_TRUE(internal.internal_row_order);
  EXPECT_FALSE(internal.plan_row_order);
  EXPECT_FALSE(parse_parameters({"row_order=plan"}).internal_row_order);
  // internal_y: only y in the plan's order inside the apply
  const DaspParameters internal_y = parse_parameters({"row_order=internal_y"});
  EXPECT_TRUE(internal_y.internal_y_row_order);
  EXPECT_FALSE(internal_y.internal_row_order);
  EXPECT_FALSE(internal_y.plan_row_order);
  EXPECT_TRUE(internal_y_row_order_pays(internal_y, 2, 10, 0, 4096, 4));  // asked for: any matrix
  EXPECT_NE(internal_y.to_string().find("row_order=internal_y"), std::string::npos);
}

TEST(DaspParameters, AutoRowOrderIsInternalForLargeSquareMatricesWithHubColumns) {
  const DaspParameters automatic;
  const std::int64_t rows = kDaspInternalOrderMinRows, nnz = 16 * rows;
  EXPECT_TRUE(internal_row_order_considered(automatic, rows, rows, nnz));
  EXPECT_TRUE(internal_row_order_pays(automatic, rows, rows, nnz, 0.44));
  EXPECT_FALSE(internal_row_order_pays(automatic, rows, rows, nnz, 0.01));  // random columns
  // not considered: rectangular, fewer rows, fewer nonzeros a row, the order asked for
  EXPECT_FALSE(internal_row_order_considered(automatic, rows, rows + 1, nnz));
  EXPECT_FALSE(internal_row_order_considered(automatic, rows - 1, rows - 1, nnz));
  EXPECT_FALSE(internal_row_order_considered(automatic, rows, rows, 4 * rows));
  const DaspParameters caller = parse_parameters({"row_order=caller"});
  EXPECT_FALSE(internal_row_order_considered(caller, rows, rows, nnz));
  EXPECT_FALSE(internal_row_order_pays(caller, rows, rows, nnz, 0.9));
  // asked for: whatever the matrix
  EXPECT_TRUE(internal_row_order_pays(parse_parameters({"row_order=internal"}), 10, 7, 3, 0.0));
}

TEST(DaspParameters, AutoRowOrderIsInternalYForLargeFp64MatricesOfHeavyTailedRows) {
  const DaspParameters automatic;
  const std::int64_t rows = kDaspInternalYMinRows;
  // fp64, medium rows sorted over the whole matrix (window 0), one row-block a warp
  EXPECT_TRUE(internal_y_row_order_pays(automatic, 8, rows, 1000, 0, 1));
  // not taken: fewer rows, 16-bit values, no medium rows, medium rows in windows, several
  // row-blocks a warp (y already stored in runs), or another order asked for
  EXPECT_FALSE(internal_y_row_order_pays(automatic, 8, rows - 1, 1000, 0, 1));
  EXPECT_FALSE(internal_y_row_order_pays(automatic, 2, rows, 1000, 0, 1));
  EXPECT_FALSE(internal_y_row_order_pays(automatic, 8, rows, 0, 0, 1));
  EXPECT_FALSE(internal_y_row_order_pays(automatic, 8, rows, 1000, 4096, 1));
  EXPECT_FALSE(internal_y_row_order_pays(automatic, 8, rows, 1000, 0, 2));
  for (const char* order : {"row_order=caller", "row_order=plan", "row_order=internal"})
    EXPECT_FALSE(internal_y_row_order_pays(parse_parameters({order}), 8, rows, 1000, 0, 1))
        << order;
}

TEST(DaspParameters, ToStringRoundTrips) {
  DaspParameters p;
  p.max_medium_row_length = 64;
  p.medium_rows_per_warp = 32;
  p.plan_row_order = true;
  p.medium_row_window = 512;
  p.medium_min_row_length = 4;
  p.short_pair_window = 256;
  std::vector<std::string> items;
  const std::string text = p.to_string();
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    items.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  const DaspParameters q = parse_parameters(items);
  EXPECT_EQ(q.to_string(), text);
  EXPECT_NE(text.find("regular_block_min_fill=auto"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel_parts=auto"), std::string::npos) << text;
  EXPECT_TRUE(parse_parameters({"kernel_parts=all"}).kernel_parts_all);
  EXPECT_DOUBLE_EQ(parse_parameters({"regular_block_min_fill=0"}).regular_block_min_fill, 0.0);
}

}  // namespace
}  // namespace tcsparse::dasp
