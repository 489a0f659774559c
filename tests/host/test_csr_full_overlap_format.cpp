// CSR-Full-Overlap (Electronics 2023 §4.2): the big-batch partition and the host model of the
// streamed apply. Big batches never split a row and cover every row once; each fits its slot; a
// given device_memory_limit forces 1, 2 or many big batches; a row larger than a slot is a
// ParameterError naming the row and the limit; the streamed host apply (each big batch's rebased
// rows through csr_overlap's table walk) matches the reference on the catalogue.
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "csr_overlap/csr_full_overlap_format.hpp"
#include "plan/parameters.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::csr_overlap {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
constexpr std::size_t kPlentyOfMemory = std::numeric_limits<std::size_t>::max() / 4;

FullOverlapParameters with_limit(std::int64_t limit, int streams = 2, int big_batches = 2) {
  FullOverlapParameters p;
  p.device_memory_limit = limit;
  p.streams = streams;
  p.big_batches = big_batches;
  return p;
}

/// Every row in exactly one big batch, in order, no row split, each within its slot.
void expect_valid_partition(const Matrix& matrix, const BigBatchPartition& partition) {
  std::int64_t next_row = 0;
  for (const BigBatch& b : partition.batches) {
    EXPECT_EQ(b.begin_row, next_row);
    EXPECT_LT(b.begin_row, b.end_row);
    EXPECT_EQ(b.begin_nnz, matrix.row_ptr[static_cast<std::size_t>(b.begin_row)]);
    EXPECT_EQ(b.end_nnz, matrix.row_ptr[static_cast<std::size_t>(b.end_row)]);
    EXPECT_LE(b.bytes, partition.slot_bytes);
    EXPECT_EQ(b.col_offset % kSlotAlignBytes, 0u);
    EXPECT_EQ(b.value_offset % kSlotAlignBytes, 0u);
    next_row = b.end_row;
  }
  EXPECT_EQ(next_row, matrix.rows);
  EXPECT_LE(partition.slot_bytes * static_cast<std::size_t>(partition.slots),
            partition.device_memory_limit);
}

Matrix stencil() { return generate_stencil_2d_5pt(60, 50, 1); }

FullOverlapParameters parse(const std::vector<std::string>& key_values) {
  return full_overlap_parameters(detail::check_parameter_values(
      "csr_full_overlap", full_overlap_parameter_specs(), key_values));
}

TEST(CsrFullOverlapParameters, CopyReachesTheBatchKernelAsCsrOverlaps) {
  EXPECT_EQ(parse({}).batch.copy, CopyMechanism::cp_async);
  EXPECT_EQ(parse({"copy=auto"}).batch.copy, kDefaultCopy);
  EXPECT_EQ(parse({"copy=bulk"}).batch.copy, CopyMechanism::bulk);
  EXPECT_EQ(parse({"copy=cp_async", "streams=3"}).batch.copy, CopyMechanism::cp_async);
  EXPECT_THROW(parse({"copy=tma"}), ParameterError);
  EXPECT_THROW(parse({"copy=direct"}), ParameterError);  // csr_overlap's warp unit only
}

TEST(CsrFullOverlapParameters, CopiesAreChainedInOrderUnlessAskedPerStream) {
  EXPECT_EQ(parse({}).copy_order, CopyOrder::in_order);
  EXPECT_EQ(parse({"copy_order=per_stream"}).copy_order, CopyOrder::per_stream);
  EXPECT_EQ(parse({"copy_order=in_order", "streams=3"}).copy_order, CopyOrder::in_order);
  EXPECT_THROW(parse({"copy_order=parallel"}), ParameterError);
}

TEST(CsrFullOverlapPartition, DefaultCutsThePapersTwoBigBatches) {
  const Matrix matrix = stencil();
  const BigBatchPartition partition =
      partition_big_batches(matrix.row_ptr, sizeof(double), FullOverlapParameters{}, kPlentyOfMemory);
  expect_valid_partition(matrix, partition);
  EXPECT_GE(partition.batches.size(), 2u);
  EXPECT_LE(partition.batches.size(), 3u);  // row granularity may leave a small third
  EXPECT_EQ(partition.slots, 2);
}

TEST(CsrFullOverlapPartition, SmallLastBigBatchLeavesLittleComputationAfterTheTransfer) {
  const Matrix matrix = stencil();
  const auto cut_with = [&](const std::vector<std::string>& key_values) {
    const BigBatchPartition partition =
        partition_big_batches(matrix.row_ptr, sizeof(double), parse(key_values), kPlentyOfMemory);
    expect_valid_partition(matrix, partition);
    return partition;
  };
  const BigBatchPartition small = cut_with({"last_big_batch=small"});
  ASSERT_GE(small.batches.size(), 3u);
  const std::size_t first = small.batches.front().bytes, last = small.batches.back().bytes;
  EXPECT_LE(last, first / kLastBigBatchShareDivisor + 2 * kSlotAlignBytes + 64 * 12);
  EXPECT_GE(last * 2, first / kLastBigBatchShareDivisor);  // not a sliver either
  // equal: the paper's two halves; auto on a matrix this small: the same
  const std::size_t equal = cut_with({"last_big_batch=equal"}).batches.size();
  EXPECT_EQ(cut_with({}).batches.size(), equal);
  EXPECT_LT(equal, small.batches.size());
  // one stream cannot overlap anything: no small last big batch
  EXPECT_EQ(cut_with({"last_big_batch=small", "streams=1"}).batches.size(), equal);
}

TEST(CsrFullOverlapPartition, AutomaticLimitIsBoundedByFreeMemory) {
  const Matrix matrix = stencil();
  const std::size_t free_bytes = 64 * 1024;
  const BigBatchPartition partition =
      partition_big_batches(matrix.row_ptr, sizeof(double), FullOverlapParameters{}, free_bytes);
  expect_valid_partition(matrix, partition);
  EXPECT_LE(partition.device_memory_limit, free_bytes / 2);
  EXPECT_GT(partition.batches.size(), 2u);
}

TEST(CsrFullOverlapPartition, TinyMatricesGetTinySlots) {
  const Matrix matrix = test::with_row_lengths(5, {1, 0, 3}, 1);
  const BigBatchPartition partition =
      partition_big_batches(matrix.row_ptr, sizeof(double), FullOverlapParameters{}, kPlentyOfMemory);
  expect_valid_partition(matrix, partition);
  EXPECT_LE(partition.device_memory_limit, 4 * 1024u);
}

TEST(CsrFullOverlapPartition, LimitsForceOneTwoAndManyBigBatches) {
  const Matrix matrix = stencil();
  const std::size_t whole = slot_layout(0, matrix.rows, 0, matrix.nnz(), sizeof(double)).bytes;
  // one big batch: one stream whose slot holds the whole matrix
  const auto one = partition_big_batches(
      matrix.row_ptr, sizeof(double), with_limit(static_cast<std::int64_t>(whole), 1, 1),
      kPlentyOfMemory);
  expect_valid_partition(matrix, one);
  EXPECT_EQ(one.batches.size(), 1u);
  // two: two streams of half-matrix slots (with room for the row granularity)
  const auto two = partition_big_batches(
      matrix.row_ptr, sizeof(double), with_limit(static_cast<std::int64_t>(whole + 8192), 2, 2),
      kPlentyOfMemory);
  expect_valid_partition(matrix, two);
  EXPECT_EQ(two.batches.size(), 2u);
  // many: a limit ten times smaller than the matrix
  const auto many = partition_big_batches(
      matrix.row_ptr, sizeof(double), with_limit(static_cast<std::int64_t>(whole / 10)),
      kPlentyOfMemory);
  expect_valid_partition(matrix, many);
  EXPECT_GE(many.batches.size(), 20u);
  EXPECT_LE(many.device_memory_limit, whole / 10);
}

TEST(CsrFullOverlapPartition, RowLargerThanASlotIsAnErrorNamingTheRowAndTheLimit) {
  const Matrix matrix = test::with_row_lengths(5000, {3, 4000, 2}, 1);
  try {
    (void)partition_big_batches(matrix.row_ptr, sizeof(double), with_limit(16 * 1024),
                                kPlentyOfMemory);
    FAIL() << "expected a ParameterError";
  } catch (const ParameterError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("row 1"), std::string::npos) << message;
    EXPECT_NE(message.find("device_memory_limit=16384"), std::string::npos) << message;
  }
}

class CsrFullOverlapHostApply : public ::testing::TestWithParam<test::NamedMatrix> {};

TEST_P(CsrFullOverlapHostApply, StreamedWalkMatchesTheReference) {
  const Matrix& matrix = GetParam().matrix;
  const std::vector<double> x = test::make_x<double>(matrix);
  const std::size_t whole = slot_layout(0, matrix.rows, 0, matrix.nnz(), sizeof(double)).bytes;
  for (const FullOverlapParameters& p :
       {FullOverlapParameters{}, with_limit(0, 3, 7),
        with_limit(static_cast<std::int64_t>(std::max<std::size_t>(whole / 10, 1 << 20)), 2, 2)}) {
    BigBatchPartition partition;
    try {
      partition = partition_big_batches(matrix.row_ptr, sizeof(double), p, kPlentyOfMemory);
    } catch (const ParameterError&) {
      continue;  // a row longer than the slot: tested above
    }
    const std::vector<double> y0 = test::make_y<double>(matrix);
    std::vector<double> y = y0, expected = y0;
    full_overlap_host_apply<double>(matrix, partition, p.batch, x, y, 1.5, -0.5);
    spmv_reference<double, std::int32_t>(matrix, x, expected, 1.5, -0.5);
    EXPECT_LT(relative_error<double>(y, expected), 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, CsrFullOverlapHostApply,
                         ::testing::ValuesIn(test::edge_case_matrices()), test::NamedMatrixName{});

}  // namespace
}  // namespace tcsparse::csr_overlap
