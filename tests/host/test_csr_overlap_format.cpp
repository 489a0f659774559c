// CSR-Partial-Overlap (Electronics 2023 §4.1, §4.3): the host model of the batch table and of the
// kernels' walk. The table's promises (rows never split, at most max_batch_size nonzeros and
// max_batch_rows rows a batch, long rows apart, every row once), the vector-size rule at the
// paper's switch points, and the host apply against the reference on the shared catalogue in every
// precision with every vector size, small batches, long rows in several pieces and other block
// sizes. Merge-path tiles: their starts cover the path in tiles of equal items, the host walk over
// them gives the reference (empty rows, a row across many tiles, one row, one column), a walk over
// bad tiles is refused, and partition=auto's rule. Row vectors: the walk in the kernel's order
// gives the reference for every vector size, the shape table and parameters, and when
// partition=auto takes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::csr_overlap {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
using test::NamedMatrix;

Matrix matrix_with_lengths(std::int32_t cols, const std::vector<int>& lengths,
                           std::uint64_t seed = 1) {
  return test::with_row_lengths(cols, {lengths.begin(), lengths.end()}, seed);
}

/// The promises of a batch table of `row_ptr` under `rule`.
void expect_valid_table(const std::vector<std::int32_t>& row_ptr, const BatchTable& table,
                        PartitionRule rule, std::int32_t piece) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  std::vector<int> owner(static_cast<std::size_t>(rows), 0);
  std::int64_t previous_end = 0;
  for (const BatchRange& batch : table.batches) {
    ASSERT_LT(batch.begin_row, batch.end_row);
    ASSERT_GE(batch.begin_row, previous_end);  // in order, no overlap
    previous_end = batch.end_row;
    EXPECT_LE(row_ptr[static_cast<std::size_t>(batch.end_row)] -
                  row_ptr[static_cast<std::size_t>(batch.begin_row)],
              rule.max_batch_size);
    EXPECT_LE(batch.end_row - batch.begin_row, rule.max_batch_rows);
    for (std::int32_t r = batch.begin_row; r < batch.end_row; ++r) {
      EXPECT_LE(row_ptr[static_cast<std::size_t>(r) + 1] - row_ptr[static_cast<std::size_t>(r)],
                rule.max_batch_size);
      owner[static_cast<std::size_t>(r)] += 1;
    }
  }
  std::vector<std::int32_t> expected_long;
  for (std::int64_t r = 0; r < rows; ++r)
    if (row_ptr[static_cast<std::size_t>(r) + 1] - row_ptr[static_cast<std::size_t>(r)] >
        rule.max_batch_size)
      expected_long.push_back(static_cast<std::int32_t>(r));
  EXPECT_EQ(table.long_rows, expected_long);
  for (const std::int32_t r : expected_long) owner[static_cast<std::size_t>(r)] += 1;
  for (std::int64_t r = 0; r < rows; ++r)
    ASSERT_EQ(owner[static_cast<std::size_t>(r)], 1) << "row " << r;
  ASSERT_EQ(table.long_task_ptr.size(), table.long_rows.size() + 1);
  EXPECT_EQ(table.long_task_ptr[0], 0);
  for (std::size_t j = 0; j < table.long_rows.size(); ++j) {
    const std::int64_t length = row_ptr[static_cast<std::size_t>(table.long_rows[j]) + 1] -
                                row_ptr[static_cast<std::size_t>(table.long_rows[j])];
    // floor(length / piece) pieces, at least one: none shorter than `piece` (the last takes the
    // rest), unless the whole row is
    EXPECT_EQ(table.long_task_ptr[j + 1] - table.long_task_ptr[j],
              std::max<std::int64_t>(1, length / piece));
  }
}

/// ||host apply - reference|| / ||reference|| for y = alpha A x + beta y0 (y poisoned with NaN
/// when beta == 0), with the parameters `p` and `max_blocks` resident blocks.
template <typename Value>
double host_apply_error(const Matrix& a64, const CsrOverlapParameters& p, double alpha,
                        double beta, std::int64_t max_blocks = 264) {
  const auto a = test::with_values<Value>(a64);
  const BatchTable table = build_batch_table(a.row_ptr, p.partition_rule(), p.long_row_piece);
  KernelShape shape;
  shape.threads_per_block = p.threads_per_block;
  shape.long_row_threads = p.long_row_threads_for(sizeof(Value));
  shape.batch_unit = p.batch_unit;
  shape.vector_sizes = p.vector_size_rule();
  shape.long_row_piece = p.long_row_piece;
  const auto batches = static_cast<std::int64_t>(table.batches.size());
  shape.launch = p.batch_unit == BatchUnit::warp
                     ? warp_batch_launch(batches, max_blocks, p.threads_per_block / 32)
                     : batch_launch(batches, max_blocks);
  shape.long_row_blocks = long_row_blocks(table.long_tasks(), 132 * 16);
  const auto x = random_vector<Value>(static_cast<std::size_t>(a.cols), 21);
  const auto y0 = random_vector<double>(static_cast<std::size_t>(a.rows), 22);
  std::vector<double> reference = y0;
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), alpha, beta);
  std::vector<double> y =
      beta == 0.0 ? std::vector<double>(y0.size(), std::numeric_limits<double>::quiet_NaN()) : y0;
  host_apply(a, table, p.partition_rule(), shape, std::span<const Value>(x), std::span<double>(y),
             alpha, beta);
  return relative_error(std::span<const double>(y), std::span<const double>(reference));
}

CsrOverlapParameters with(std::vector<std::string> key_values) {
  return parse_parameters(key_values);
}

/// The promises of merge-path tile starts: from (0, 0) to (rows, nnz), each a point of the path
/// (row_ptr[row] <= nonzero <= row_ptr[row + 1]), every tile tile_items items but the last.
void expect_valid_merge_tiles(const std::vector<std::int32_t>& row_ptr,
                              const std::vector<MergeCoordinate>& starts, std::int64_t tile_items) {
  const auto rows = static_cast<std::int32_t>(row_ptr.size() - 1);
  ASSERT_EQ(static_cast<std::int64_t>(starts.size()),
            merge_tiles(rows, row_ptr.back(), tile_items) + 1);
  EXPECT_EQ(starts.front(), (MergeCoordinate{0, 0}));
  EXPECT_EQ(starts.back(), (MergeCoordinate{rows, row_ptr.back()}));
  for (std::size_t t = 0; t < starts.size(); ++t) {
    const MergeCoordinate at = starts[t];
    ASSERT_LE(at.row, rows);
    EXPECT_LE(row_ptr[static_cast<std::size_t>(at.row)], at.nonzero) << "tile " << t;
    if (at.row < rows) {
      EXPECT_LE(at.nonzero, row_ptr[static_cast<std::size_t>(at.row) + 1]);
    }
    if (t + 1 < starts.size()) {
      const std::int64_t items =
          (starts[t + 1].row - at.row) + (starts[t + 1].nonzero - at.nonzero);
      if (t + 2 < starts.size())
        EXPECT_EQ(items, tile_items) << "tile " << t;
      else
        EXPECT_TRUE(items > 0 && items <= tile_items) << "last tile " << items;
    }
  }
}

/// ||merge_host_apply - reference|| / ||reference|| with tiles of tile_items items (y poisoned with
/// NaN when beta == 0).
template <typename Value>
double merge_host_apply_error(const Matrix& a64, std::int64_t tile_items, double alpha,
                              double beta) {
  const auto a = test::with_values<Value>(a64);
  const std::vector<MergeCoordinate> starts = merge_tile_starts(a.row_ptr, tile_items);
  const auto x = random_vector<Value>(static_cast<std::size_t>(a.cols), 23);
  const auto y0 = random_vector<double>(static_cast<std::size_t>(a.rows), 24);
  std::vector<double> reference = y0;
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), alpha, beta);
  std::vector<double> y =
      beta == 0.0 ? std::vector<double>(y0.size(), std::numeric_limits<double>::quiet_NaN()) : y0;
  merge_host_apply(a, std::span<const MergeCoordinate>(starts), tile_items,
                   std::span<const Value>(x), std::span<double>(y), alpha, beta);
  return relative_error(std::span<const double>(y), std::span<const double>(reference));
}

// ---- the batch table ------------------------------------------------------------------------

TEST(CsrOverlapTable, PaperFigure5KeepsTheLongRowsApartAndTheBatchesSmall) {
  // Figure 5: max_batch_size 64; rows 6 (256) and 9 (130) are the extra-long rows
  const std::vector<int> lengths = {32, 15, 16, 11, 8, 38, 256, 25, 16, 130, 2, 22, 33};
  const Matrix a = matrix_with_lengths(300, lengths);
  const PartitionRule rule{64, 64};
  const BatchTable table = build_batch_table(a.row_ptr, rule, 100);
  EXPECT_EQ(table.long_rows, (std::vector<std::int32_t>{6, 9}));
  EXPECT_EQ(table.long_task_ptr, (std::vector<std::int32_t>{0, 2, 3}));
  // each piece described, pieces of 100 with the rest in the last: row 6's nonzeros [120, 376)
  // in two, row 9's [417, 547) (fewer than 200) whole
  const std::vector<LongRowTask> pieces = {{6, 120, 220, 2}, {6, 220, 376, 2}, {9, 417, 547, 1}};
  EXPECT_EQ(table.long_row_tasks, pieces);
  expect_valid_table(a.row_ptr, table, rule, 100);
  // window 32 (row_ptr 0 32 47 63 74 82 120 | 376 401 417 | 547 549 571 604): rows 1-3 start in
  // window 1, row 5 (38) is wide, rows 7 and 8 start in windows 11 and 12, row 12 (33) is wide.
  // The paper's sequential greedy makes 4 batches here; the parallel rule makes 8.
  EXPECT_EQ(table.batches, (std::vector<BatchRange>{
                               {0, 1}, {1, 4}, {4, 5}, {5, 6}, {7, 8}, {8, 9}, {10, 12}, {12, 13}}));
}

TEST(CsrOverlapTable, BatchesEndExactlyAtAWindowBoundary) {
  // max_batch_size 64, window 32: rows of 8 start at 0, 8, 16, 24 | 32, ... : batches of exactly
  // 4 rows and 32 nonzeros, each ending at a row boundary that is a window boundary
  const Matrix a = matrix_with_lengths(100, std::vector<int>(16, 8));
  const BatchTable table = build_batch_table(a.row_ptr, {64, 64}, 1000);
  EXPECT_EQ(table.batches, (std::vector<BatchRange>{{0, 4}, {4, 8}, {8, 12}, {12, 16}}));
  EXPECT_TRUE(table.long_rows.empty());
  // rows of 31 and one of 1: 32 nonzeros then a new window
  const Matrix b = matrix_with_lengths(100, {31, 1, 31, 1, 20});
  const BatchTable tb = build_batch_table(b.row_ptr, {64, 64}, 1000);
  EXPECT_EQ(tb.batches, (std::vector<BatchRange>{{0, 2}, {2, 4}, {4, 5}}));
}

TEST(CsrOverlapTable, RowsOfExactlyMaxBatchSizeAreBatchesAndOneMoreIsLong) {
  const Matrix a = matrix_with_lengths(200, {64, 65, 64, 33, 32, 1});
  const BatchTable table = build_batch_table(a.row_ptr, {64, 64}, 16);
  EXPECT_EQ(table.long_rows, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(table.long_task_ptr, (std::vector<std::int32_t>{0, 4}));  // floor(65 / 16) pieces
  // 64, 64 and 33 are wide (> 32): a batch each; 32 ends at 258, so the 1 starts in window 8
  EXPECT_EQ(table.batches, (std::vector<BatchRange>{{0, 1}, {2, 3}, {3, 4}, {4, 5}, {5, 6}}));
}

TEST(CsrOverlapTable, EmptyRowsAreCappedByMaxBatchRows) {
  const Matrix a = test::with_row_lengths(3, std::vector<std::int64_t>(10000, 0), 5);
  const BatchTable table = build_batch_table(a.row_ptr, {4096, 4096}, 8192);
  EXPECT_EQ(table.batches, (std::vector<BatchRange>{{0, 4096}, {4096, 8192}, {8192, 10000}}));
  const BatchTable small = build_batch_table(a.row_ptr, {4096, 1000}, 8192);
  EXPECT_EQ(small.batches.size(), 10u);
}

TEST(CsrOverlapTable, EmptyShapesHaveNoBatchesOrOnlyEmptyRows) {
  const Matrix none = test::with_row_lengths(5, {}, 1);
  EXPECT_TRUE(build_batch_table(none.row_ptr, {64, 64}, 64).batches.empty());
  const Matrix five_by_zero = test::with_row_lengths(0, {0, 0, 0, 0, 0}, 1);
  EXPECT_EQ(build_batch_table(five_by_zero.row_ptr, {64, 64}, 64).batches,
            (std::vector<BatchRange>{{0, 5}}));
}

TEST(CsrOverlapTable, IsValidWhereEveryRowStartsABatch) {
  // wide rows (W + 1 nonzeros) between empty or short rows: every row starts a batch; and rows of
  // exactly W, each starting in another window
  const PartitionRule rule{64, 1000};
  const int wide = rule.max_batch_size / 2 + 1;
  for (const std::vector<int>& lengths :
       {std::vector<int>{wide, 0, wide, 0, wide, 0, wide}, std::vector<int>{0, wide, 1, wide, 1},
        std::vector<int>(50, wide), std::vector<int>(50, wide - 1),
        std::vector<int>{65, 0, 65, 1, 64, 65}}) {
    const Matrix a = matrix_with_lengths(200, lengths);
    const BatchTable table = build_batch_table(a.row_ptr, rule, 300);
    expect_valid_table(a.row_ptr, table, rule, 300);
  }
  // long rows cut into pieces of 1, 16 and 33 nonzeros: each row's tasks within its share
  const Matrix long_rows = matrix_with_lengths(200, {33, 33, 100, 0, 65, 199});
  for (const std::int32_t piece : {1, 16, 33}) {
    const BatchTable table = build_batch_table(long_rows.row_ptr, PartitionRule{32, 32}, piece);
    expect_valid_table(long_rows.row_ptr, table, PartitionRule{32, 32}, piece);
  }
  // no nonzeros: row 0 and every R-th row start a batch
  EXPECT_EQ(build_batch_table(test::with_row_lengths(7, {0, 0, 0, 0, 0, 0, 0}, 1).row_ptr,
                              PartitionRule{64, 3}, 300)
                .batches,
            (std::vector<BatchRange>{{0, 3}, {3, 6}, {6, 7}}));
}

class CsrOverlapOnCatalogue : public ::testing::TestWithParam<NamedMatrix> {};

TEST_P(CsrOverlapOnCatalogue, TablesKeepTheirPromisesForEverySize) {
  const Matrix& a = GetParam().matrix;
  for (const PartitionRule rule : {PartitionRule{32, 32}, PartitionRule{64, 7}, PartitionRule{256, 256},
                                   PartitionRule{4096, 4096}, PartitionRule{4096, 100000}}) {
    const BatchTable table = build_batch_table(a.row_ptr, rule, 300);
    expect_valid_table(a.row_ptr, table, rule, 300);
  }
}

TEST_P(CsrOverlapOnCatalogue, HostApplyMatchesTheReferenceWithTheDefaults) {
  const Matrix& a = GetParam().matrix;
  const CsrOverlapParameters p;
  EXPECT_LT(host_apply_error<double>(a, p, 1.0, 0.0), 1e-12);
  EXPECT_LT(host_apply_error<double>(a, p, -1.5, 0.75), 1e-12);
  // the 16-bit and fp32 values, double accumulation on both sides: only the order differs
  EXPECT_LT(host_apply_error<float>(a, p, 0.5, 1.0), 1e-12);
  EXPECT_LT(host_apply_error<half>(a, p, 1.0, 0.0), 1e-12);
  EXPECT_LT(host_apply_error<bfloat16>(a, p, 2.0, -0.5), 1e-12);
}

TEST_P(CsrOverlapOnCatalogue, HostApplyMatchesTheReferenceWithEveryVectorSize) {
  const Matrix& a = GetParam().matrix;
  for (const char* size : {"1", "2", "4", "8", "16", "32"}) {
    const auto p = with({std::string("vector_size=") + size, "max_batch_size=64"});
    EXPECT_LT(host_apply_error<double>(a, p, 1.0, 0.5), 1e-12) << "vector size " << size;
  }
}

TEST_P(CsrOverlapOnCatalogue, HostApplyMatchesTheReferenceWithSmallBatchesAndPieces) {
  const Matrix& a = GetParam().matrix;
  EXPECT_LT(host_apply_error<double>(
                a, with({"max_batch_size=32", "long_row_piece=256", "threads_per_block=128"}), 1.0,
                0.0, 3),
            1e-12);
  EXPECT_LT(host_apply_error<double>(
                a, with({"max_batch_size=256", "max_batch_rows=5", "threads_per_block=1024"}), 1.0,
                -1.0, 1),
            1e-12);
  EXPECT_LT(host_apply_error<double>(a, with({"row_threads_max=off", "warp_row_factor=off"}), 1.0,
                                     0.5),
            1e-12);
  EXPECT_LT(host_apply_error<double>(
                a, with({"max_batch_size=128", "warp_row_factor=2", "row_threads_max=64"}), 1.0,
                0.0, 5),
            1e-12);
  EXPECT_LT(host_apply_error<double>(a, with({"switch_point_1=0", "switch_point_2=0", "switch_point_4=3",
                                              "switch_point_8=5", "switch_point_16=9"}),
                                     1.0, 0.0),
            1e-12);
}

TEST_P(CsrOverlapOnCatalogue, HostApplyMatchesTheReferenceWithEveryLongRowBlock) {
  // pieces of 256 walked by blocks of one warp up to 1024 threads (most threads idle)
  const Matrix& a = GetParam().matrix;
  for (const char* threads : {"32", "64", "256", "1024"}) {
    const auto p = with({"max_batch_size=32", "long_row_piece=256",
                         std::string("long_row_threads=") + threads});
    EXPECT_LT(host_apply_error<double>(a, p, 1.0, 0.0), 1e-12) << threads;
    EXPECT_LT(host_apply_error<half>(a, p, -1.5, 0.5), 1e-12) << threads;
  }
}

TEST_P(CsrOverlapOnCatalogue, EveryBatchCopyKeepsTheBulkCopyAlignmentInEveryPrecision) {
  // copy=bulk (sm_90): both addresses 16-byte aligned and sizes multiples of 16 bytes, for fp16 /
  // bf16 (2 bytes), fp32 and fp64 values and the 4-byte columns, in every stage of 1..4
  const Matrix& a = GetParam().matrix;
  for (const std::int32_t max_batch_size : {32, 64, 96, 1024, 4096}) {
    const PartitionRule rule{max_batch_size, max_batch_size};
    const BatchTable table = build_batch_table(a.row_ptr, rule, 300);
    const std::int64_t capacity = stage_capacity(max_batch_size);
    for (const BatchRange& batch : table.batches)
      for (const std::int64_t value_bytes : {2, 4, 8})
        for (int stages = 1; stages <= kLargestPipelineStages; ++stages)
          for (int stage = 0; stage < stages; ++stage)
            ASSERT_TRUE(bulk_copy_layout_is_aligned(a.row_ptr[batch.begin_row],
                                                    a.row_ptr[batch.end_row], stage, stages,
                                                    capacity, value_bytes))
                << "rows [" << batch.begin_row << ", " << batch.end_row << ") M "
                << max_batch_size << " value bytes " << value_bytes << " stage " << stage << "/"
                << stages;
  }
}

INSTANTIATE_TEST_SUITE_P(AllSynthetic, CsrOverlapOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

// ---- the vector-size rule, the grid and the parameters ----------------------------------------

// ---- merge-path tiles (partition=merge_path) --------------------------------------------------

TEST_P(CsrOverlapOnCatalogue, MergeTilesCoverThePathInTilesOfEqualItems) {
  const Matrix& a = GetParam().matrix;
  for (const std::int64_t tile_items : {1, 2, 7, 1280, 1792})
    expect_valid_merge_tiles(a.row_ptr, merge_tile_starts(a.row_ptr, tile_items), tile_items);
}

TEST_P(CsrOverlapOnCatalogue, MergeTileWalkMatchesTheReference) {
  const Matrix& a = GetParam().matrix;
  for (const std::int64_t tile_items : {1, 3, 1280}) {
    EXPECT_LT(merge_host_apply_error<double>(a, tile_items, 1.0, 0.0), 1e-12) << tile_items;
    EXPECT_LT(merge_host_apply_error<float>(a, tile_items, -1.5, 0.75), 1e-12) << tile_items;
    EXPECT_LT(merge_host_apply_error<half>(a, tile_items, 2.0, -0.5), 1e-12) << tile_items;
  }
}

TEST_P(CsrOverlapOnCatalogue, RowVectorWalkMatchesTheReferenceForEveryVectorSize) {
  const Matrix& a = GetParam().matrix;
  const auto x = test::make_x<double>(a);
  std::vector<double> reference = test::to_double_vector(test::make_y<double>(a));
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), -1.5, 0.75);
  for (const std::int32_t size : {1, 2, 4, 8, 16, 32}) {
    std::vector<double> y = test::to_double_vector(test::make_y<double>(a));
    row_vector_host_apply(a, RowVectorShape{size, 1, 1}, std::span<const double>(x),
                          std::span<double>(y), -1.5, 0.75);
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)), 1e-12)
        << "vector size " << size;
  }
}

TEST(CsrOverlapRowVectors, ALanesSumsAreAddedByTheButterflyInTheKernelsOrder) {
  // one row of 5 nonzeros, vector size 4: lane sums {p0 + p4, p1, p2, p3}, then
  // (lane0 + lane2) + (lane1 + lane3)
  const Matrix a = matrix_with_lengths(5, {5});
  const std::vector<double> x = {1.0, 1e16, 1.0, -1e16, 1.0};
  std::vector<double> y = {0.0};
  Matrix ones = a;
  for (double& v : ones.values) v = 1.0;
  row_vector_host_apply(ones, RowVectorShape{4, 1, 1}, std::span<const double>(x),
                        std::span<double>(y), 1.0, 0.0);
  const double p[5] = {1.0, 1e16, 1.0, -1e16, 1.0};
  EXPECT_EQ(y[0], ((p[0] + p[4]) + p[2]) + (p[1] + p[3]));
  EXPECT_THROW(row_vector_host_apply(ones, RowVectorShape{3, 1, 1}, std::span<const double>(x),
                                     std::span<double>(y), 1.0, 0.0),
               Error);
}

TEST(CsrOverlapRowVectors, FpThirtyTwoSumsFoldEverySixtyFourTripsOfALane) {
  // one row of 66 products at vector size 1, one step: 1e16, 63 zeros, 1, 1. In order the
  // two ones are each lost against 1e16 (ties to even); folded after trip 63, they are added
  // together first and then to 1e16 (exact: its neighbours are 2 apart)
  const Matrix a = matrix_with_lengths(66, {66});
  Matrix ones = a;
  for (double& v : ones.values) v = 1.0;
  std::vector<double> x(66, 0.0);
  x[0] = 1e16;
  x[64] = x[65] = 1.0;
  const auto walk = [&](auto value) {
    using Value = decltype(value);
    const auto converted = test::with_values<Value>(ones);
    std::vector<Value> xv(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) xv[i] = static_cast<Value>(x[i]);
    std::vector<double> y = {0.0};
    row_vector_host_apply(converted, RowVectorShape{1, 1, 1}, std::span<const Value>(xv),
                          std::span<double>(y), 1.0, 0.0);
    return y[0];
  };
  EXPECT_EQ(walk(double{}), 1e16);  // fp64: no fold
  const double big = static_cast<double>(static_cast<float>(1e16));
  EXPECT_EQ(walk(float{}), big + 2.0);
  EXPECT_EQ(kRowVectorFoldTrips, 64u);
}

TEST(CsrOverlapRowVectors, AutoTakesThemForEvenRowsOfAMillionNonzerosOrMore) {
  constexpr std::int64_t kMillion = kRowVectorsMinNonzeros;  // 2^20
  // rows, nnz, longest row
  EXPECT_TRUE(row_vectors_suit(100000, kMillion, 4 * kMillion / 100000));
  EXPECT_FALSE(row_vectors_suit(100000, kMillion, 4 * kMillion / 100000 + 1));  // uneven
  EXPECT_FALSE(row_vectors_suit(100000, kMillion - 1, 11));                      // small
  EXPECT_TRUE(row_vectors_suit(2000, 1024 * 2000, 1024));    // rows of 1024 on average
  EXPECT_FALSE(row_vectors_suit(2000, 1025 * 2000, 1025));   // longer: the long-row kernel's
  EXPECT_FALSE(row_vectors_suit(0, 0, 0));
  // as partition=auto sees it: even rows of 2^20 nonzeros on a band, the same rows of random
  // columns (scattered: merge tiles), then a single long row among them
  const Matrix band = generate_banded(100000, 5, 3);  // rows of 11 (6 at the ends)
  const CsrOverlapParameters automatic = parse_parameters({});
  EXPECT_EQ(longest_row(band.row_ptr), 11);
  const Json statistics = host_layout_statistics(band, automatic.for_matrix(band.rows, band.nnz()));
  EXPECT_EQ(statistics["partition"], "row_vectors");
  EXPECT_EQ(statistics["longest_row"].get<std::int64_t>(), 11);
  EXPECT_FALSE(statistics["scattered_columns"].get<bool>());
  EXPECT_EQ(statistics["row_vector_size"].get<std::int32_t>(),
            automatic.row_vector_shape(band.rows, band.nnz(), sizeof(double)).vector_size);
  std::vector<int> lengths(std::size_t{1} << 17, 8);
  const Matrix even = matrix_with_lengths(4000, lengths);
  EXPECT_EQ(longest_row(even.row_ptr), 8);
  const Json random_columns =
      host_layout_statistics(even, automatic.for_matrix(even.rows, even.nnz()));
  EXPECT_EQ(random_columns["partition"], "merge_path");
  EXPECT_TRUE(random_columns["scattered_columns"].get<bool>());
  lengths[5] = 40;  // longest 40 > 4 x 8
  const Matrix uneven = matrix_with_lengths(4000, lengths);
  EXPECT_EQ(host_layout_statistics(uneven, automatic.for_matrix(uneven.rows, uneven.nnz()))
                ["partition"],
            "rows");
  EXPECT_EQ(longest_row(std::vector<std::int32_t>{0}), 0);
}

TEST(CsrOverlapRowVectors, TheShapeFollowsTheValueSizesTableUnlessGiven) {
  const CsrOverlapParameters automatic = parse_parameters({});
  // mean row length 27 (3D stencil), 5 (2D stencil), 2.5 (rows of 1-4), 1000
  for (const auto& [table, bytes] :
       {std::pair{&kRowVectorShapes8Byte, 8}, std::pair{&kRowVectorShapes4Byte, 4},
        std::pair{&kRowVectorShapes2Byte, 2}}) {
    for (const double mean : {2.5, 5.0, 27.0, 1000.0}) {
      const auto expected = std::find_if(table->begin(), table->end(), [&](const auto& c) {
                              return mean < c.below_mean;
                            })->shape;
      const auto rows = std::int64_t{1000};
      EXPECT_EQ(automatic.row_vector_shape(rows, static_cast<std::int64_t>(mean * rows),
                                           static_cast<std::size_t>(bytes)),
                expected)
          << bytes << " bytes, mean " << mean;
    }
  }
  EXPECT_EQ(automatic.row_vector_shape(1000, 27000, 8), (RowVectorShape{16, 2, 1}));
  EXPECT_EQ(automatic.row_vector_shape(1000, 5000, 2), (RowVectorShape{1, 1, 1}));
  // given parameters win; an automatic partner is lowered to at most 8 products in flight
  const CsrOverlapParameters given =
      parse_parameters({"row_vector_size=2", "row_vector_rows=1", "row_vector_steps=4"});
  EXPECT_EQ(given.row_vector_shape(1000, 27000, 8), (RowVectorShape{2, 1, 4}));
  EXPECT_EQ(parse_parameters({"row_vector_steps=4"}).row_vector_shape(1000, 27000, 8),
            (RowVectorShape{16, 2, 4}));
  EXPECT_EQ(parse_parameters({"row_vector_rows=4"}).row_vector_shape(1000, 27000, 8),
            (RowVectorShape{16, 4, 1}));
  EXPECT_EQ(parse_parameters({"row_vector_steps=4"}).row_vector_shape(1000, 1000000, 8),
            (RowVectorShape{32, 2, 4}));  // 4 automatic rows x 4 steps lowered to 2 x 4
}

TEST(CsrOverlapRowVectors, EvenRowsOfScatteredColumnsHoldingFourToSixtyFourTakeMergeTiles) {
  const ColumnLocality scattered{10, 4}, local{10, 5}, unknown{-1, 0};
  EXPECT_TRUE(scattered_rows_suit_merge_tiles(1000, 20000, scattered));
  EXPECT_TRUE(scattered_rows_suit_merge_tiles(1000, 4000, scattered));    // mean 4
  EXPECT_FALSE(scattered_rows_suit_merge_tiles(1000, 3999, scattered));   // rows of 1-4
  EXPECT_TRUE(scattered_rows_suit_merge_tiles(1000, 63999, scattered));
  EXPECT_FALSE(scattered_rows_suit_merge_tiles(1000, 64000, scattered));  // long rows
  EXPECT_FALSE(scattered_rows_suit_merge_tiles(1000, 20000, local));      // half near
  EXPECT_FALSE(scattered_rows_suit_merge_tiles(1000, 20000, unknown));
}

TEST(CsrOverlapRowVectors, ColumnLocalityComparesTheFirstColumnsOfEverySixtyFourthRow) {
  // 200 rows of one nonzero on the diagonal of 2000 columns, but row 128's at column 1000:
  // samples 64 (63 -> 64, near), 128 (127 -> 1000, far), 192 (191 -> 192, near)
  CsrMatrix<double, std::int32_t> a;
  a.rows = 200;
  a.cols = 2000;
  for (std::int32_t r = 0; r < 200; ++r) {
    a.col_idx.push_back(r == 128 ? 1000 : r);
    a.values.push_back(1.0);
    a.row_ptr.push_back(static_cast<std::int32_t>(a.col_idx.size()));
  }
  a.validate();
  ColumnLocality locality = column_locality(a.row_ptr, a.col_idx);
  EXPECT_EQ(locality.samples, 3);
  EXPECT_EQ(locality.near, 2);
  EXPECT_FALSE(locality.scattered());
  // a sample needs its row and the one before non-empty: row 191 emptied, row 64 too
  CsrMatrix<double, std::int32_t> b;
  b.rows = 200;
  b.cols = 2000;
  for (std::int32_t r = 0; r < 200; ++r) {
    if (r != 191 && r != 64) {
      b.col_idx.push_back(r == 128 ? 1000 : r);
      b.values.push_back(1.0);
    }
    b.row_ptr.push_back(static_cast<std::int32_t>(b.col_idx.size()));
  }
  b.validate();
  locality = column_locality(b.row_ptr, b.col_idx);
  EXPECT_EQ(locality.samples, 1);  // row 128 only
  EXPECT_EQ(locality.near, 0);
  EXPECT_TRUE(locality.scattered());
  // 32 columns apart is near, 33 is not
  EXPECT_TRUE(first_columns_near(100, 132));
  EXPECT_TRUE(first_columns_near(132, 100));
  EXPECT_FALSE(first_columns_near(100, 133));
  EXPECT_FALSE((ColumnLocality{0, 0}.scattered()));
}

TEST(CsrOverlapRowVectors, ParametersAreCheckedAndLeavePartitionAuto) {
  const CsrOverlapParameters p = parse_parameters({"partition=row_vectors"});
  EXPECT_EQ(p.partition, Partition::row_vectors);
  EXPECT_FALSE(p.partition_automatic);
  EXPECT_TRUE(parse_parameters({"row_vector_size=8", "row_vector_rows=2"}).partition_automatic);
  try {
    parse_parameters({"row_vector_rows=4", "row_vector_steps=4"});
    ADD_FAILURE() << "rows x steps = 16 accepted";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("rows x steps at most 8"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(parse_parameters({"row_vector_size=3"}), ParameterError);
  EXPECT_THROW(parse_parameters({"row_vector_steps=8"}), ParameterError);
  // statistics of an explicit choice: the shape and the grid, no longest row
  const Matrix a = matrix_with_lengths(100, std::vector<int>(1000, 5));
  const Json statistics = host_layout_statistics(
      a, parse_parameters({"partition=row_vectors", "row_vector_size=4", "row_vector_rows=2"}));
  EXPECT_EQ(statistics["partition"], "row_vectors");
  EXPECT_EQ(statistics["row_vector_rows"].get<std::int32_t>(), 2);
  EXPECT_EQ(statistics["blocks"].get<std::int64_t>(), (1000 + 127) / 128);  // 64 vectors x 2 rows
  EXPECT_FALSE(statistics.contains("longest_row"));
}

TEST(CsrOverlapMergePath, ARowEndIsTheItemAfterItsLastNonzero) {
  // rows of 2, 0, 3 nonzeros: items n n E E n n n E (row i's end is item row_ptr[i + 1] + i),
  // in tiles of three: n n E | E n n | n E
  const Matrix a = matrix_with_lengths(10, {2, 0, 3});
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 0), 0);
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 2), 0);  // after n n: row 0 not ended yet
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 3), 1);  // n n E
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 4), 2);  // the empty row's end follows
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 7), 2);
  EXPECT_EQ(merge_path_rows(a.row_ptr.data(), 3, 5, 8), 3);
  EXPECT_EQ(merge_tile_starts(a.row_ptr, 3),
            (std::vector<MergeCoordinate>{{0, 0}, {1, 2}, {2, 4}, {3, 5}}));
}

TEST(CsrOverlapMergePath, ARowAcrossManyTilesAndRunsOfEmptyRowsMatchTheReference) {
  std::vector<int> lengths(3000, 0);  // empty rows, a row of 50 000 nonzeros, single nonzeros
  lengths[1500] = 50000;
  for (int r = 2000; r < 3000; r += 3) lengths[static_cast<std::size_t>(r)] = 1;
  const Matrix a = matrix_with_lengths(60000, lengths, 5);
  for (const std::int64_t tile_items : {5, 1280, 1792}) {
    expect_valid_merge_tiles(a.row_ptr, merge_tile_starts(a.row_ptr, tile_items), tile_items);
    EXPECT_LT(merge_host_apply_error<double>(a, tile_items, 1.0, 0.5), 1e-12) << tile_items;
  }
  const Matrix one_row = matrix_with_lengths(9000, {9000});
  EXPECT_LT(merge_host_apply_error<double>(one_row, 7, 1.0, 0.0), 1e-12);
  const Matrix one_column = matrix_with_lengths(1, std::vector<int>(5000, 1));
  EXPECT_LT(merge_host_apply_error<double>(one_column, 7, 1.0, 0.0), 1e-12);
  const Matrix no_nonzeros = matrix_with_lengths(4, {0, 0, 0});
  EXPECT_LT(merge_host_apply_error<double>(no_nonzeros, 7, 1.0, 0.5), 1e-12);
}

TEST(CsrOverlapMergePath, AWalkOverTilesThatSkipOrRepeatItemsIsRefused) {
  const Matrix a = matrix_with_lengths(10, {2, 0, 3, 4});
  const std::vector<double> x(10, 1.0);
  std::vector<double> y(4);
  std::vector<MergeCoordinate> starts = merge_tile_starts(a.row_ptr, 3);
  std::vector<MergeCoordinate> skipping = starts;
  skipping.erase(skipping.begin() + 1);  // a tile of 6 items
  EXPECT_THROW(merge_host_apply(a, std::span<const MergeCoordinate>(skipping), 3,
                                std::span<const double>(x), std::span<double>(y), 1.0, 0.0),
               Error);
  std::vector<MergeCoordinate> short_of_the_end = starts;
  short_of_the_end.pop_back();
  EXPECT_THROW(merge_host_apply(a, std::span<const MergeCoordinate>(short_of_the_end), 3,
                                std::span<const double>(x), std::span<double>(y), 1.0, 0.0),
               Error);
}

TEST(CsrOverlapParameters, DirectWarpsOfFourByteProductsTakeTwiceTheBatchOnRowsOfFourToSixtyFour) {
  constexpr std::int64_t kLarge = kDirectWarpMinNonzeros;
  const CsrOverlapParameters automatic = parse_parameters({});
  for (const std::int64_t rows : {kLarge / 4, kLarge / 16, kLarge / 64}) {
    const CsrOverlapParameters fp32 = automatic.for_matrix(rows, kLarge, sizeof(float));
    EXPECT_EQ(fp32.copy, CopyMechanism::direct) << rows;
    EXPECT_EQ(fp32.max_batch_size, kDirectWideMaxBatchSize) << rows;
    EXPECT_EQ(fp32.partition_rule().max_batch_rows, kDirectWideMaxBatchRows) << rows;
    // fp64's products keep 512 / 128 (8-byte products: an occupancy cliff at 1024)
    const CsrOverlapParameters fp64 = automatic.for_matrix(rows, kLarge, sizeof(double));
    EXPECT_EQ(fp64.max_batch_size, kWarpDefaultMaxBatchSize) << rows;
    EXPECT_EQ(fp64.partition_rule().max_batch_rows, kDirectDefaultMaxBatchRows) << rows;
  }
  // rows of fewer than 4 or more than 64 on average keep 512 / 128, and so do given sizes
  for (const std::int64_t rows : {kLarge / 4 + 1, kLarge / 64 - 1})
    EXPECT_EQ(automatic.for_matrix(rows, kLarge, sizeof(float)).max_batch_size,
              kWarpDefaultMaxBatchSize)
        << rows;
  EXPECT_EQ(with({"max_batch_rows=64"}).for_matrix(kLarge / 8, kLarge, 4).max_batch_size,
            kWarpDefaultMaxBatchSize);
  EXPECT_EQ(with({"max_batch_size=256"}).for_matrix(kLarge / 8, kLarge, 4).max_batch_size, 256);
  // below 2^20 nonzeros: blocks, whatever the products
  EXPECT_EQ(automatic.for_matrix(kLarge / 8, kLarge - 1, 4).max_batch_size, kDefaultMaxBatchSize);
}

TEST(CsrOverlapParameters, AutoTakesMergeTilesWhereAFewRowsAreLongAndRowsElsewhere) {
  EXPECT_TRUE(merge_path_suits(16, 1));
  EXPECT_FALSE(merge_path_suits(15, 1));  // more than one long row in 16
  EXPECT_FALSE(merge_path_suits(1000, 0));
  const CsrOverlapParameters automatic = parse_parameters({});
  EXPECT_TRUE(automatic.partition_automatic);
  EXPECT_EQ(automatic.merge_items, kDefaultMergeItems);
  // one row of 5000 nonzeros among 99 of 10 (blocks of max_batch_size 1024): merge tiles
  std::vector<int> lengths(100, 10);
  lengths[50] = 5000;
  const Matrix few_long = matrix_with_lengths(6000, lengths);
  const Json tiles = host_layout_statistics(few_long, automatic.for_matrix(100, few_long.nnz()));
  EXPECT_EQ(tiles["partition"], "merge_path");
  EXPECT_EQ(tiles["long_rows"].get<std::int64_t>(), 1);
  EXPECT_EQ(tiles["merge_tiles"].get<std::int64_t>(),
            merge_tiles(100, few_long.nnz(), kMergeTileThreads * kDefaultMergeItems));
  // no long row, or every row long: rows
  const Matrix none_long = matrix_with_lengths(6000, std::vector<int>(100, 10));
  const Matrix all_long = matrix_with_lengths(6000, std::vector<int>(100, 2000));
  for (const Matrix* a : {&none_long, &all_long})
    EXPECT_EQ(host_layout_statistics(*a, automatic.for_matrix(a->rows, a->nnz()))["partition"],
              "rows");
  // a parameter of the rows partition given: rows, whatever the matrix
  for (const char* given : {"batch_unit=block", "max_batch_size=2048", "long_row_piece=512",
                            "blocks_per_sm=1", "copy=cp_async"}) {
    const CsrOverlapParameters p = parse_parameters({given});
    EXPECT_FALSE(p.partition_automatic) << given;
    EXPECT_EQ(host_layout_statistics(few_long, p.for_matrix(100, few_long.nnz()))["partition"],
              "rows")
        << given;
  }
  // but not merge_items or device_csr; and partition=merge_path on any matrix
  EXPECT_TRUE(parse_parameters({"merge_items=7", "device_csr=copy"}).partition_automatic);
  const CsrOverlapParameters merge = parse_parameters({"partition=merge_path", "merge_items=7"});
  EXPECT_EQ(merge.partition, Partition::merge_path);
  EXPECT_EQ(host_layout_statistics(none_long, merge)["merge_items"].get<std::int64_t>(), 7);
  EXPECT_FALSE(parse_parameters({"partition=rows"}).partition_automatic);
  EXPECT_THROW(parse_parameters({"merge_items=6"}), ParameterError);
}

TEST(CsrOverlapParameters, LongRowBlocksAreSixtyFourThreadsForSixteenBitValues) {
  const CsrOverlapParameters automatic = with({});
  EXPECT_EQ(automatic.long_row_threads_for(2), kSixteenBitLongRowThreads);
  EXPECT_EQ(automatic.long_row_threads_for(4), automatic.threads_per_block);
  EXPECT_EQ(automatic.long_row_threads_for(8), automatic.threads_per_block);
  EXPECT_EQ(with({"threads_per_block=256"}).long_row_threads_for(8), 256);
  for (const std::size_t bytes : {2, 4, 8})
    EXPECT_EQ(with({"long_row_threads=32"}).long_row_threads_for(bytes), 32);
  // it leaves partition=auto to choose (merge tiles and row vectors have no long-row kernel)
  EXPECT_TRUE(with({"long_row_threads=64"}).partition_automatic);
  EXPECT_THROW(with({"long_row_threads=96"}), ParameterError);
}

TEST(CsrOverlapVectorSize, PaperSwitchPointsMapMeanRowLengthsAsTable2) {
  const CsrOverlapParameters p;
  const VectorSizeRule rule = p.vector_size_rule();
  // mean = nnz / rows; [0,17) 1, [17,34) 2, [34,64) 4, [64,122) 8, [122,216) 16, [216,inf) 32
  const std::pair<std::int64_t, int> cases[] = {{0, 1},    {1699, 1},  {1700, 2},  {3399, 2},
                                                {3400, 4}, {6399, 4},  {6400, 8},  {12199, 8},
                                                {12200, 16}, {21599, 16}, {21600, 32}, {100000, 32}};
  for (const auto& [nnz, size] : cases) EXPECT_EQ(vector_size_for(nnz, 100, rule), size) << nnz;
  VectorSizeRule fixed = rule;
  fixed.fixed = 8;
  EXPECT_EQ(vector_size_for(0, 100, fixed), 8);
}

TEST(CsrOverlapBatchMode, FewRowsSpreadOverTheBlockAndLongRowsGoToTheWarpPass) {
  // row_threads_max=block, warp_row_factor=32, blocks of 256 threads
  const VectorSizeRule rule = with({"threads_per_block=256"}).vector_size_rule();
  EXPECT_EQ(rule.spread_max, 256);
  // many short rows: the paper's vector size, rows over 32 x vs to the warp pass
  EXPECT_EQ(batch_mode(1000, 200, rule, 256).width, 1);
  EXPECT_EQ(batch_mode(1000, 200, rule, 256).warp_row_length, 32);
  // 100 rows of mean 10: two lanes a row fill 200 of the 256 threads
  EXPECT_EQ(batch_mode(1000, 100, rule, 256).width, 2);
  EXPECT_EQ(batch_mode(1000, 100, rule, 256).warp_row_length, 64);
  EXPECT_EQ(batch_mode(2700, 100, rule, 256).width, 2);  // stencil-like mean 27
  EXPECT_EQ(batch_mode(2700, 100, rule, 256).warp_row_length, 64);
  // the threshold applies only when the batch can hold such a row
  EXPECT_EQ(batch_mode(32, 200, rule, 256).warp_row_length, 0);
  EXPECT_EQ(batch_mode(33, 200, rule, 256).warp_row_length, 32);
  // one row of 1500: the whole block; one of 100: 64 threads (never more threads than nonzeros)
  EXPECT_EQ(batch_mode(1500, 1, rule, 256).width, 256);
  EXPECT_EQ(batch_mode(1500, 1, rule, 256).warp_row_length, 0);
  EXPECT_EQ(batch_mode(100, 1, rule, 256).width, 64);
  EXPECT_EQ(batch_mode(3, 1, rule, 256).width, 2);
  EXPECT_EQ(batch_mode(1, 1, rule, 256).width, 1);
  EXPECT_EQ(batch_mode(0, 1, rule, 256).width, 1);
  // 4 rows of 500: 64 threads a row; 8 rows of 40: a warp a row; 9 rows: 16 lanes
  EXPECT_EQ(batch_mode(2000, 4, rule, 256).width, 64);
  EXPECT_EQ(batch_mode(320, 8, rule, 256).width, 32);
  EXPECT_EQ(batch_mode(360, 9, rule, 256).width, 16);
  EXPECT_EQ(batch_mode(360, 9, rule, 256).warp_row_length, 0);  // no row of 16 x 32 fits
  // off: the paper's vector size
  const VectorSizeRule paper = with({"row_threads_max=off", "warp_row_factor=off"}).vector_size_rule();
  EXPECT_EQ(batch_mode(1500, 1, paper, 256).width, 32);
  EXPECT_EQ(batch_mode(1000, 100, paper, 256).width, 1);
  EXPECT_EQ(batch_mode(1000, 100, paper, 256).warp_row_length, 0);
  // capped: at most 32 threads, or 128
  EXPECT_EQ(batch_mode(1500, 1, with({"row_threads_max=32"}).vector_size_rule(), 256).width, 32);
  EXPECT_EQ(batch_mode(1500, 1, with({"row_threads_max=128"}).vector_size_rule(), 256).width, 128);
  // the cap is the block
  EXPECT_EQ(with({"threads_per_block=128"}).vector_size_rule().spread_max, 128);
  EXPECT_EQ(batch_mode(5000, 1, with({"threads_per_block=1024"}).vector_size_rule(), 1024).width,
            1024);
  // a fixed vector size is fixed (paper §5.2)
  EXPECT_EQ(batch_mode(1500, 1, with({"vector_size=4"}).vector_size_rule(), 256).width, 4);
  EXPECT_EQ(batch_mode(1500, 1, with({"vector_size=4"}).vector_size_rule(), 256).warp_row_length,
            128);
  // the warp-pass list holds every row a batch can leave to it
  EXPECT_EQ(warp_row_capacity(2048, 32), 2048 / 33 + 1);
  EXPECT_EQ(warp_row_capacity(2048, 0), 0);
  EXPECT_EQ(batch_shared_bytes(with({"max_batch_size=2048", "pipeline_stages=2"}), 8),
            2u * 2080u * 12u + 4u * (2048u / 33u + 1u));
}

TEST(CsrOverlapBatchMode, RowsAtAndAroundTheThresholdsMatchTheReference) {
  // K = 4, M = 256 (window 128): vector size 1 batches with rows of 3..6 (threshold 4); vs 2
  // (threshold 8) with rows of 7..9 among 20s; one-row batches of 129..256 (groups of 64..256
  // threads); few-row batches of 100 (spread); and a long row
  std::vector<int> lengths;
  for (int i = 0; i < 300; ++i) lengths.push_back(i % 7 == 0 ? 3 + i % 4 : 1 + i % 3);
  for (int i = 0; i < 100; ++i) lengths.push_back(i % 5 == 0 ? 7 + i % 3 : 20 + i % 4);
  for (const int n : {129, 130, 200, 255, 256, 257, 100, 100, 100, 64, 63, 65, 1, 0, 2})
    lengths.push_back(n);
  for (int i = 0; i < 200; ++i) lengths.push_back(i % 40 == 0 ? 120 : i % 3);
  const Matrix a = matrix_with_lengths(3000, lengths, 6);
  for (const char* threads : {"128", "256", "1024"})
    for (const char* spread : {"block", "off", "64"})
      for (const char* factor : {"4", "1", "off"}) {
        const auto p = with({"max_batch_size=256", "long_row_piece=256",
                             std::string("threads_per_block=") + threads,
                             std::string("row_threads_max=") + spread,
                             std::string("warp_row_factor=") + factor});
        EXPECT_LT(host_apply_error<double>(a, p, 1.0, 0.0), 1e-12) << threads << spread << factor;
        EXPECT_LT(host_apply_error<float>(a, p, -1.0, 0.5), 1e-12) << threads << spread << factor;
        EXPECT_LT(host_apply_error<half>(a, p, 2.0, 0.0), 1e-12) << threads << spread << factor;
        EXPECT_LT(host_apply_error<bfloat16>(a, p, 1.0, 1.0), 1e-12) << threads << spread << factor;
      }
  const Json s = host_layout_statistics(
      a, with({"max_batch_size=256", "warp_row_factor=4", "long_row_piece=256"}));
  EXPECT_GT(s["group_batches"].get<std::int64_t>(), 0);
  EXPECT_GT(s["warp_pass_rows"].get<std::int64_t>(), 0);
}

TEST(CsrOverlapLaunch, EveryBatchHasABlockAndNoBlockIsEmpty) {
  for (const std::int64_t batches : {1, 2, 7, 263, 264, 265, 1000, 100000})
    for (const std::int64_t max_blocks : {1, 3, 264, 528}) {
      const BatchLaunch launch = batch_launch(batches, max_blocks);
      EXPECT_LE(launch.blocks, max_blocks);
      EXPECT_GE(launch.blocks * launch.batches_per_block, batches);
      EXPECT_LT((launch.blocks - 1) * launch.batches_per_block, batches);
    }
  EXPECT_EQ(batch_launch(0, 264).blocks, 0);
}

TEST(CsrOverlapLaunch, EveryBatchHasAWarpAndNoBlockIsWithoutOne) {
  for (const std::int64_t batches : {1, 2, 3, 4, 5, 7, 263, 1056, 1057, 100000})
    for (const std::int64_t max_blocks : {1, 3, 264})
      for (const std::int64_t warps_per_block : {1, 4, 32}) {
        const BatchLaunch launch = warp_batch_launch(batches, max_blocks, warps_per_block);
        EXPECT_EQ(launch.warps_per_block, warps_per_block);
        EXPECT_LE(launch.blocks, max_blocks);
        EXPECT_TRUE(launch.covers(batches));
        // a warp a batch while they fit one wave, else the whole wave
        EXPECT_EQ(launch.blocks,
                  std::min(max_blocks, (batches + warps_per_block - 1) / warps_per_block));
      }
  EXPECT_EQ(warp_batch_launch(0, 264, 4).blocks, 0);
}

TEST(CsrOverlapLaunch, AWarpsStagesHoldTheBatchAndItsRowOffsets) {
  // fp64, M = 256 (C = 288), R = 64 (O = 72 ints: header, 65 offsets, rounded to 4), 2 stages,
  // 4 warps: 4 x 2 x (288 x 12 + 72 x 4)
  const CsrOverlapParameters p =
      with({"batch_unit=warp", "max_batch_size=256", "max_batch_rows=64", "pipeline_stages=2"});
  EXPECT_EQ(warp_stage_offsets(64), 72);
  EXPECT_EQ(batch_shared_bytes(p, 8), std::size_t{4 * 2 * (288 * 12 + 72 * 4)});
  EXPECT_EQ(warp_stage_offsets(3) % 4, 0);
}

TEST(CsrOverlapHostModel, WarpBatchesMatchTheReferenceWithEveryDeviationAndDepth) {
  std::vector<int> lengths;
  for (int i = 0; i < 3000; ++i) lengths.push_back((i * 7919) % 97 == 0 ? 400 + i % 900 : i % 23);
  const Matrix a = matrix_with_lengths(5000, lengths);
  for (const char* size : {"32", "256", "1024"})
    for (const char* factor : {"off", "1", "32"})
      for (const char* spread : {"off", "block"}) {
        const CsrOverlapParameters p =
            with({"batch_unit=warp", std::string("max_batch_size=") + size,
                  std::string("warp_row_factor=") + factor,
                  std::string("row_threads_max=") + spread, "long_row_piece=256"});
        EXPECT_EQ(p.vector_size_rule().spread_max, spread[0] == 'o' ? 0 : 32);
        EXPECT_LT(host_apply_error<double>(a, p, 1.5, -0.5), 1e-12) << size << factor << spread;
        EXPECT_LT(host_apply_error<half>(a, p, 2.0, 0.0, 3), 1e-12) << size << factor << spread;
      }
}

TEST(CsrOverlapLaunch, AFixedChunkOfBatchesIgnoresTheResidentBlocks) {
  for (const std::int64_t batches : {1, 2, 7, 265, 100000})
    for (const std::int64_t per_block : {1, 2, 3, 1000}) {
      const BatchLaunch launch = batch_launch(batches, 264, per_block);
      EXPECT_EQ(launch.batches_per_block, per_block);
      EXPECT_EQ(launch.blocks, (batches + per_block - 1) / per_block);
    }
}

TEST(CsrOverlapParameters, DefaultsAreThePapersAndChecksRefuseWhatTheSchemaCannotSay) {
  const CsrOverlapParameters p = parse_parameters({});
  EXPECT_EQ(p.max_batch_size, kDefaultMaxBatchSize);
  EXPECT_EQ(p.partition_rule().max_batch_rows, kDefaultMaxBatchSize);
  EXPECT_EQ(p.switch_points, kPaperSwitchPoints);
  EXPECT_EQ(p.vector_size, 0);
  EXPECT_EQ(p.threads_per_block, kDefaultThreadsPerBlock);
  EXPECT_THROW(parse_parameters({"max_batch_size=100"}), ParameterError);
  EXPECT_THROW(parse_parameters({"max_batch_size=16"}), ParameterError);
  EXPECT_THROW(parse_parameters({"switch_point_4=20"}), ParameterError);  // below switch_point_2
  EXPECT_THROW(parse_parameters({"vector_size=3"}), ParameterError);
  EXPECT_THROW(parse_parameters({"threads_per_block=96"}), ParameterError);
  EXPECT_THROW(parse_parameters({"no_such_key=1"}), ParameterError);
  EXPECT_EQ(parse_parameters({"max_batch_rows=12"}).partition_rule().max_batch_rows, 12);
  EXPECT_EQ(p.pipeline_stages, kDefaultPipelineStages);
  EXPECT_EQ(p.row_threads_max, kRowThreadsBlock);
  EXPECT_EQ(p.warp_row_factor, kDefaultWarpRowFactor);
  EXPECT_EQ(parse_parameters({"row_threads_max=off"}).row_threads_max, 0);
  EXPECT_EQ(parse_parameters({"row_threads_max=64"}).row_threads_max, 64);
  EXPECT_EQ(parse_parameters({"warp_row_factor=off"}).warp_row_factor, 0);
  EXPECT_EQ(parse_parameters({"pipeline_stages=4"}).pipeline_stages, 4);
  EXPECT_EQ(parse_parameters({"pipeline_stages=1"}).pipeline_stages, 1);
  EXPECT_THROW(parse_parameters({"pipeline_stages=0"}), ParameterError);
  EXPECT_EQ(parse_parameters({}).batches_per_block, kDefaultBatchesPerBlock);
  EXPECT_EQ(parse_parameters({"batches_per_block=auto"}).batches_per_block, 0);
  EXPECT_EQ(parse_parameters({"batches_per_block=3"}).batches_per_block, 3);
  EXPECT_FALSE(parse_parameters({}).register_bound);
  EXPECT_TRUE(parse_parameters({"register_bound=on"}).register_bound);
  EXPECT_THROW(parse_parameters({"batches_per_block=0"}), ParameterError);
  EXPECT_THROW(parse_parameters({"pipeline_stages=5"}), ParameterError);
  EXPECT_THROW(parse_parameters({"row_threads_max=48"}), ParameterError);
  EXPECT_THROW(parse_parameters({"warp_row_factor=0"}), ParameterError);
}

TEST(CsrOverlapParameters, AutoTakesDirectWarpsForMatricesOfAMillionNonzerosOrMore) {
  constexpr std::int64_t kLarge = kDirectWarpMinNonzeros;
  const CsrOverlapParameters automatic = parse_parameters({});
  EXPECT_TRUE(automatic.copy_automatic);
  EXPECT_EQ(automatic.copy, CopyMechanism::cp_async);  // without a matrix
  for (const std::int64_t rows : {std::int64_t{1}, kLarge / 2, kLarge}) {  // any mean row length
    const CsrOverlapParameters large = automatic.for_matrix(rows, kLarge);
    EXPECT_EQ(large.batch_unit, BatchUnit::warp) << rows;
    EXPECT_EQ(large.copy, CopyMechanism::direct) << rows;
    EXPECT_EQ(large.max_batch_size, kWarpDefaultMaxBatchSize) << rows;
  }
  // smaller matrices keep blocks and cp_async
  EXPECT_EQ(automatic.for_matrix(kLarge / 8, kLarge - 1).batch_unit, BatchUnit::block);
  EXPECT_EQ(automatic.for_matrix(kLarge / 8, kLarge - 1).copy, CopyMechanism::cp_async);
  // a copy, a unit or a pipeline that was given stays
  EXPECT_EQ(with({"copy=cp_async"}).for_matrix(1000, kLarge).copy, CopyMechanism::cp_async);
  EXPECT_EQ(with({"batch_unit=warp"}).for_matrix(1000, kLarge).copy, CopyMechanism::cp_async);
  EXPECT_EQ(with({"batch_unit=block"}).for_matrix(1000, kLarge).copy, CopyMechanism::cp_async);
  EXPECT_EQ(with({"pipeline_stages=2"}).for_matrix(1000, kLarge).copy, CopyMechanism::cp_async);
  // warps whose direct stages would not fit kWarpUnitMaxBlockSharedBytes: the rule below
  EXPECT_EQ(with({"threads_per_block=1024"}).for_matrix(1000, kLarge).batch_unit, BatchUnit::block);
}

TEST(CsrOverlapParameters, AutoCutsTheLongRowsOfLargeMatricesInSmallerPieces) {
  constexpr std::int64_t kLarge = kLargeMatrixLongRowPieceMinNonzeros;
  const CsrOverlapParameters automatic = parse_parameters({});
  EXPECT_TRUE(automatic.long_row_piece_automatic);
  EXPECT_EQ(automatic.long_row_piece, kDefaultLongRowPiece);  // without a matrix
  EXPECT_EQ(automatic.for_matrix(kLarge / 16, kLarge).long_row_piece, kLargeMatrixLongRowPiece);
  EXPECT_EQ(automatic.for_matrix(kLarge / 16, kLarge - 1).long_row_piece, kDefaultLongRowPiece);
  EXPECT_FALSE(automatic.for_matrix(kLarge / 16, kLarge).long_row_piece_automatic);
  // rows averaging more than max_batch_size (512 for the direct warps a large matrix takes) are
  // mostly long rows, whose pieces fill many waves whole
  const CsrOverlapParameters direct = automatic.for_matrix(kLarge / 512, kLarge);
  EXPECT_EQ(direct.max_batch_size, kWarpDefaultMaxBatchSize);
  EXPECT_EQ(direct.long_row_piece, kLargeMatrixLongRowPiece);  // mean exactly 512
  EXPECT_EQ(automatic.for_matrix(kLarge / 512 - 1, kLarge).long_row_piece, kDefaultLongRowPiece);
  // with every other parameter given (no batch_unit=auto to resolve) and a piece that was given
  EXPECT_EQ(
      with({"batch_unit=warp", "copy=direct"}).for_matrix(kLarge / 16, kLarge).long_row_piece,
      kLargeMatrixLongRowPiece);
  EXPECT_EQ(with({"long_row_piece=4096"}).for_matrix(kLarge / 16, kLarge).long_row_piece, 4096);
  EXPECT_THROW(parse_parameters({"long_row_piece=255"}), ParameterError);
}

TEST(CsrOverlapTable, LongRowsAreCutInPiecesOfAtLeastThePieceSize) {
  // rows of 999, 1000, 1999, 2000 and 4999 nonzeros (long: more than M = 64), pieces of 1000
  const Matrix a = matrix_with_lengths(5000, {999, 1000, 1999, 2000, 4999, 3});
  const BatchTable table = build_batch_table(a.row_ptr, {64, 64}, 1000);
  EXPECT_EQ(table.long_rows, (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(table.long_task_ptr, (std::vector<std::int32_t>{0, 1, 2, 3, 5, 9}));
  // row 4 starts at 5998: three pieces of 1000 and a last one of 1999
  const std::vector<LongRowTask> row4 = {
      {4, 5998, 6998, 4}, {4, 6998, 7998, 4}, {4, 7998, 8998, 4}, {4, 8998, 10997, 4}};
  EXPECT_EQ(std::vector<LongRowTask>(table.long_row_tasks.begin() + 5, table.long_row_tasks.end()),
            row4);
  EXPECT_EQ(table.long_row_tasks[2], (LongRowTask{2, 1999, 3998, 1}));  // 1999: whole
}

TEST(CsrOverlapParameters, AutoWithCpAsyncTakesWarpsForLargeMatricesWhoseRowsAverageFourOrMore) {
  constexpr std::int64_t kRows = std::int64_t{1} << 18, kLarge = kWarpUnitMinNonzeros;
  const CsrOverlapParameters automatic = parse_parameters({"copy=cp_async"});
  EXPECT_TRUE(automatic.batch_unit_automatic);
  EXPECT_EQ(automatic.batch_unit, kDefaultBatchUnit);
  const CsrOverlapParameters warps = automatic.for_matrix(kRows, 4 * kRows);
  ASSERT_EQ(4 * kRows, kLarge);
  EXPECT_EQ(warps.batch_unit, BatchUnit::warp);
  EXPECT_FALSE(warps.batch_unit_automatic);
  EXPECT_EQ(warps.max_batch_size, kWarpDefaultMaxBatchSize);
  EXPECT_EQ(warps.partition_rule().max_batch_rows, kWarpDefaultMaxBatchRows);
  // shorter rows, or fewer nonzeros: blocks, with their batch size
  EXPECT_EQ(automatic.for_matrix(kRows, 4 * kRows - 1).batch_unit, BatchUnit::block);
  EXPECT_EQ(automatic.for_matrix(kRows, 4 * kRows - 1).max_batch_size, kDefaultMaxBatchSize);
  EXPECT_EQ(automatic.for_matrix(1000, kLarge - 1).batch_unit, BatchUnit::block);
  EXPECT_EQ(automatic.for_matrix(1000, kLarge).batch_unit, BatchUnit::warp);
  EXPECT_EQ(automatic.for_matrix(0, 0).batch_unit, BatchUnit::block);
  // what was given stays: the batch size, the row cap, the unit; the bulk copy keeps blocks
  EXPECT_EQ(with({"max_batch_size=256"}).for_matrix(1000, kLarge).max_batch_size, 256);
  EXPECT_EQ(with({"max_batch_rows=9"}).for_matrix(1000, kLarge).partition_rule().max_batch_rows, 9);
  EXPECT_EQ(with({"batch_unit=block"}).for_matrix(1000, kLarge).batch_unit, BatchUnit::block);
  EXPECT_EQ(with({"batch_unit=warp"}).for_matrix(10, 1).batch_unit, BatchUnit::warp);
  EXPECT_EQ(with({"copy=bulk"}).for_matrix(1000, kLarge).batch_unit, BatchUnit::block);
  // parameters made for blocks whose warp stages would not fit kWarpUnitMaxBlockSharedBytes
  EXPECT_EQ(with({"max_batch_size=4096", "pipeline_stages=2"}).for_matrix(1000, kLarge).batch_unit,
            BatchUnit::block);
  EXPECT_EQ(with({"threads_per_block=1024"}).for_matrix(1000, kLarge).batch_unit, BatchUnit::block);
  EXPECT_LE(batch_shared_bytes(warps, sizeof(double)), kWarpUnitMaxBlockSharedBytes);
  // a warp's row cap never exceeds its batch size
  EXPECT_EQ(with({"batch_unit=warp", "max_batch_size=64"}).partition_rule().max_batch_rows, 64);
}

TEST(CsrOverlapParameters, BatchUnitIsABlockOrAWarpAndTheWarpHasNoBulkCopy) {
  EXPECT_EQ(parse_parameters({}).batch_unit, kDefaultBatchUnit);
  EXPECT_EQ(parse_parameters({"batch_unit=warp"}).batch_unit, BatchUnit::warp);
  EXPECT_EQ(parse_parameters({"batch_unit=block"}).batch_unit, BatchUnit::block);
  EXPECT_EQ(parse_parameters({"batch_unit=warp"}).batch_threads(), 32);
  EXPECT_EQ(parse_parameters({"batch_unit=block", "threads_per_block=256"}).batch_threads(), 256);
  // an explicit warp with the bulk copy is refused, saying why
  try {
    parse_parameters({"batch_unit=warp", "copy=bulk"});
    ADD_FAILURE() << "batch_unit=warp with copy=bulk was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_unit=block"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_parameters({"batch_unit=thread"}), ParameterError);
}

TEST(CsrOverlapParameters, CopyIsCpAsyncUntilMeasuredAndBulkOnRequest) {
  EXPECT_EQ(parse_parameters({}).copy, CopyMechanism::cp_async);
  EXPECT_EQ(parse_parameters({"copy=auto"}).copy, kDefaultCopy);
  EXPECT_EQ(kDefaultCopy, CopyMechanism::cp_async);
  EXPECT_EQ(parse_parameters({"copy=cp_async"}).copy, CopyMechanism::cp_async);
  EXPECT_EQ(parse_parameters({"copy=bulk"}).copy, CopyMechanism::bulk);
  EXPECT_THROW(parse_parameters({"copy=tma"}), ParameterError);
  EXPECT_STREQ(copy_mechanism_name(CopyMechanism::bulk), "bulk");
  EXPECT_STREQ(copy_mechanism_name(CopyMechanism::cp_async), "cp_async");
  // the copy mechanism changes nothing of the partition or the host model
  EXPECT_EQ(parse_parameters({"copy=bulk"}).partition_rule().max_batch_size,
            parse_parameters({}).partition_rule().max_batch_size);
}

TEST(CsrOverlapParameters, DirectReadsAreAWarpsWithOneStageAndKeepOnlyProductsAndOffsets) {
  EXPECT_EQ(parse_parameters({"copy=direct"}).copy, CopyMechanism::direct);
  EXPECT_STREQ(copy_mechanism_name(CopyMechanism::direct), "direct");
  // copy=direct takes warps whatever the matrix: batch_unit=auto resolves at once
  const CsrOverlapParameters direct = parse_parameters({"copy=direct"});
  EXPECT_EQ(direct.batch_unit, BatchUnit::warp);
  EXPECT_EQ(direct.for_matrix(10, 1).batch_unit, BatchUnit::warp);
  EXPECT_EQ(direct.partition_rule().max_batch_size, kWarpDefaultMaxBatchSize);
  EXPECT_EQ(parse_parameters({"copy=direct", "batch_unit=warp"}).batch_unit, BatchUnit::warp);
  // a block unit or a pipeline is refused, naming the way out
  try {
    parse_parameters({"copy=direct", "batch_unit=block"});
    ADD_FAILURE() << "copy=direct with batch_unit=block was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_unit=warp"), std::string::npos) << e.what();
  }
  try {
    parse_parameters({"copy=direct", "pipeline_stages=2"});
    ADD_FAILURE() << "copy=direct with pipeline_stages=2 was accepted";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("pipeline_stages=1"), std::string::npos) << e.what();
  }
  // shared memory a warp: the products (accumulator type) and the offsets, no values or columns
  const CsrOverlapParameters staged = parse_parameters({"batch_unit=warp"});
  const auto capacity = static_cast<std::size_t>(stage_capacity(kWarpDefaultMaxBatchSize));
  const auto offsets = static_cast<std::size_t>(warp_stage_offsets(kDirectDefaultMaxBatchRows));
  const auto staged_offsets =
      static_cast<std::size_t>(warp_stage_offsets(kWarpDefaultMaxBatchRows));
  const auto warps = static_cast<std::size_t>(kDefaultThreadsPerBlock / 32);
  EXPECT_EQ(batch_shared_bytes(direct, 8), warps * (capacity * 8 + offsets * 4));
  EXPECT_EQ(batch_shared_bytes(direct, 4), warps * (capacity * 4 + offsets * 4));
  EXPECT_EQ(batch_shared_bytes(direct, 2), warps * (capacity * 4 + offsets * 4));  // fp32 products
  EXPECT_EQ(batch_shared_bytes(staged, 8), warps * (capacity * 12 + staged_offsets * 4));
  // the partition: the warp unit's batch size, with its own row cap unless one is given
  EXPECT_EQ(direct.partition_rule().max_batch_size, staged.partition_rule().max_batch_size);
  EXPECT_EQ(direct.partition_rule().max_batch_rows, kDirectDefaultMaxBatchRows);
  EXPECT_EQ(staged.partition_rule().max_batch_rows, kWarpDefaultMaxBatchRows);
  EXPECT_EQ(with({"copy=direct", "max_batch_rows=200"}).partition_rule().max_batch_rows, 200);
  EXPECT_EQ(with({"copy=direct", "max_batch_size=64"}).partition_rule().max_batch_rows, 64);
}

TEST(CsrOverlapBulkCopy, SixteenElementBoundariesAreSixteenByteBoundariesForEveryValueType) {
  // 16 elements of 2-byte values are 32 bytes: the narrowest case is still aligned
  static_assert(kCopyAlignElements * 2 % kBulkCopyAlignBytes == 0);
  EXPECT_TRUE(bulk_copy_layout_is_aligned(17, 18, 0, 1, stage_capacity(32), 2));
  EXPECT_TRUE(bulk_copy_layout_is_aligned(15, 16, 3, 4, stage_capacity(64), 2));
  EXPECT_TRUE(bulk_copy_layout_is_aligned(0, 0, 1, 2, stage_capacity(1024), 8));  // nothing to copy
  // a stage capacity that is not a multiple of 8 elements would misplace stage 1 of 2-byte values
  EXPECT_FALSE(bulk_copy_layout_is_aligned(0, 16, 1, 2, 36, 2));
}

TEST(CsrOverlapStatistics, CountEveryRowAndNonzeroOnce) {
  const Matrix a = matrix_with_lengths(10000, {0, 1, 2, 40, 5000, 3, 300, 2000, 17, 0, 9000, 1});
  const CsrOverlapParameters p = parse_parameters({"max_batch_size=1024"});
  const Json s = host_layout_statistics(a, p);
  std::int64_t rows = 0, nnz = 0;
  for (const auto& [size, entry] : s["by_vector_size"].items()) {
    rows += entry["rows"].get<std::int64_t>();
    nnz += entry["nnz"].get<std::int64_t>();
  }
  EXPECT_EQ(rows, s["batch_rows"].get<std::int64_t>());
  EXPECT_EQ(nnz, s["batch_nnz"].get<std::int64_t>());
  EXPECT_EQ(s["long_rows"].get<std::int64_t>(), 3);
  EXPECT_EQ(rows + 3, a.rows);
  EXPECT_EQ(nnz + s["long_row_nnz"].get<std::int64_t>(), a.nnz());
  // a small matrix: pieces of 8192, so each of the three long rows (fewer than 2 x 8192) is whole
  EXPECT_EQ(s["long_row_tasks"].get<std::int64_t>(), 3);
  EXPECT_EQ(s["max_batch_size"].get<std::int64_t>(), 1024);
  EXPECT_LE(s["batch_nnz_max"].get<std::int64_t>(), 1024);
}

}  // namespace
}  // namespace tcsparse::csr_overlap
