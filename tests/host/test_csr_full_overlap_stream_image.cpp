// csr_full_overlap's stream images (csr_full_overlap_stream_image.hpp): what an apply copies for
// a big batch. csr is the slot layout as it is; compact takes the smallest encoding of each
// index array the big batch allows (8 / 16-bit row lengths, 16-bit column offsets from a base a
// 4096-nonzero chunk) and is never larger than the slot; decoding a written image gives the big
// batch's rebased row offsets and its columns exactly, on every catalogue matrix and cut, and
// the padding the batch kernel copies is zero.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <vector>

#include "common/test_matrices.hpp"
#include "csr_overlap/csr_full_overlap_format.hpp"
#include "csr_overlap/csr_full_overlap_stream_image.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"

namespace tcsparse::csr_overlap {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
constexpr std::size_t kPlentyOfMemory = std::numeric_limits<std::size_t>::max() / 4;

BigBatch whole_matrix(const Matrix& m) { return slot_layout(0, m.rows, 0, m.nnz(), sizeof(double)); }

StreamImage compact_image(const Matrix& m, const BigBatch& b) {
  return stream_image(m.row_ptr, m.col_idx, b, sizeof(double), StreamFormat::compact);
}

/// Writes the image of `b`, decodes it, and compares with the big batch's own arrays.
void expect_round_trip(const Matrix& m, const BigBatch& b, const StreamImage& image,
                       const std::string& what) {
  std::vector<std::byte> bytes(image.bytes, std::byte{0x5A});  // poisoned: padding must be written
  write_stream_image(m, b, image, bytes.data());
  std::vector<std::int32_t> row_ptr, col_idx;
  decode_stream_image(bytes.data(), image, b, row_ptr, col_idx);
  EXPECT_EQ(row_ptr, rebased_row_ptr(m.row_ptr, b)) << what;
  const std::vector<std::int32_t> columns(m.col_idx.begin() + b.begin_nnz,
                                          m.col_idx.begin() + b.end_nnz);
  EXPECT_EQ(col_idx, columns) << what;
  // the values follow as they are, padded with zeros to whole 16-element pieces
  const auto* values = reinterpret_cast<const double*>(bytes.data() + image.value_offset);
  for (std::int64_t i = 0; i < b.nnz(); ++i)
    ASSERT_EQ(values[i], m.values[static_cast<std::size_t>(b.begin_nnz + i)]) << what;
  // the padding the batch kernel copies (up to the next 16 elements) and the alignment are zero
  const std::size_t column_bytes = image.decodes_columns() ? 2 : 4;
  for (std::size_t at = image.column_offset + static_cast<std::size_t>(b.nnz()) * column_bytes;
       at < image.value_offset; ++at)
    ASSERT_EQ(bytes[at], std::byte{0}) << what << ": column padding at byte " << at;
  for (std::size_t at = image.value_offset + static_cast<std::size_t>(b.nnz()) * sizeof(double);
       at < image.bytes; ++at)
    ASSERT_EQ(bytes[at], std::byte{0}) << what << ": value padding at byte " << at;
  EXPECT_LE(image.bytes, b.bytes) << what;
  EXPECT_EQ(image.value_offset % kSlotAlignBytes, 0u) << what;
  EXPECT_EQ(image.column_offset % kSlotAlignBytes, 0u) << what;
}

TEST(CsrFullOverlapStreamImage, CsrIsTheSlotLayout) {
  const Matrix m = generate_stencil_2d_5pt(40, 30, 1);
  const BigBatch b = whole_matrix(m);
  const StreamImage csr = stream_image(m.row_ptr, m.col_idx, b, sizeof(double), StreamFormat::csr);
  EXPECT_FALSE(csr.decodes_rows());
  EXPECT_FALSE(csr.decodes_columns());
  EXPECT_EQ(csr.row_offset, b.row_ptr_offset);
  EXPECT_EQ(csr.column_offset, b.col_offset);
  EXPECT_EQ(csr.value_offset, b.value_offset);
  EXPECT_EQ(csr.bytes, b.bytes);
  expect_round_trip(m, b, csr, "csr");
}

TEST(CsrFullOverlapStreamImage, StencilRowsTakeAByteAndColumnsTwo) {
  const Matrix m = generate_stencil_2d_5pt(300, 200, 1);
  const BigBatch b = whole_matrix(m);
  const StreamImage image = compact_image(m, b);
  EXPECT_EQ(image.rows, RowEncoding::lengths8);
  EXPECT_EQ(image.columns, ColumnEncoding::offsets16);
  // 1 + 5 x (2 + 8) bytes a row against 4 + 5 x (4 + 8), with the anchors, bases and alignment
  EXPECT_LT(static_cast<double>(image.bytes), 0.82 * static_cast<double>(b.bytes));
  expect_round_trip(m, b, image, "stencil");
}

TEST(CsrFullOverlapStreamImage, EachArrayTakesTheEncodingItsRangeAllows) {
  // rows of 300 values: 16-bit lengths; columns spread over 10^6: 32-bit columns
  const Matrix wide = test::with_row_lengths(1'000'000, std::vector<std::int64_t>(2000, 300), 3);
  const StreamImage wide_image = compact_image(wide, whole_matrix(wide));
  EXPECT_EQ(wide_image.rows, RowEncoding::lengths16);
  EXPECT_EQ(wide_image.columns, ColumnEncoding::columns32);
  expect_round_trip(wide, whole_matrix(wide), wide_image, "wide");
  // a row of 70000 values: 32-bit offsets; 70000 columns in chunks of 4096: 16-bit offsets
  const Matrix long_row = test::with_row_lengths(70'000, {3, 70'000, 0, 5}, 4);
  const StreamImage long_image = compact_image(long_row, whole_matrix(long_row));
  EXPECT_EQ(long_image.rows, RowEncoding::offsets32);
  EXPECT_EQ(long_image.columns, ColumnEncoding::offsets16);
  expect_round_trip(long_row, whole_matrix(long_row), long_image, "long row");
}

TEST(CsrFullOverlapStreamImage, NeverLargerThanTheSlot) {
  // one short row: anchors and bases would cost more than they save, so csr
  const Matrix tiny = test::with_row_lengths(10, {2}, 5);
  const BigBatch b = whole_matrix(tiny);
  EXPECT_LE(compact_image(tiny, b).bytes, b.bytes);
  expect_round_trip(tiny, b, compact_image(tiny, b), "tiny");
}

class CsrFullOverlapStreamImageCatalogue : public ::testing::TestWithParam<test::NamedMatrix> {};

TEST_P(CsrFullOverlapStreamImageCatalogue, EveryBigBatchDecodesExactly) {
  const Matrix& m = GetParam().matrix;
  const std::size_t whole = whole_matrix(m).bytes;
  for (const int big_batches : {1, 3, 7}) {
    FullOverlapParameters p;
    p.big_batches = big_batches;
    p.last_big_batch = LastBigBatch::small;
    if (big_batches == 7) p.device_memory_limit = static_cast<std::int64_t>(std::max<std::size_t>(whole / 3, 1 << 20));
    BigBatchPartition partition;
    try {
      partition = partition_big_batches(m.row_ptr, sizeof(double), p, kPlentyOfMemory);
    } catch (const ParameterError&) {
      continue;  // a row larger than a slot of that limit (test_csr_full_overlap_format.cpp)
    }
    for (const BigBatch& b : partition.batches)
      expect_round_trip(m, b, compact_image(m, b),
                        "big batch from row " + std::to_string(b.begin_row) + " of " +
                            std::to_string(big_batches));
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, CsrFullOverlapStreamImageCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

}  // namespace
}  // namespace tcsparse::csr_overlap
