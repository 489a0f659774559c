// The DLMC .smtx reader and writer.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/smtx_parser.hpp"
#include "host/io_test_support.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse {
namespace {

using test::expect_parse_error;
using test::ScratchDir;

/// 3 x 5 with rows {0, 3}, {}, {1, 2, 4}, as DLMC writes it (trailing blanks included).
const std::string kSmall = "3, 5, 5\n0 2 2 5 \n0 3 1 2 4 \n";

template <typename Value = double, typename Index = std::int32_t>
CsrMatrix<Value, Index> read_text(const std::string& text, const ReadOptions& options = {},
                                  const std::string& name = "m.smtx") {
  ScratchDir dir;
  return read_smtx<Value, Index>(dir.write(name, text), options);
}

void expect_text_error(const std::string& text, std::int64_t line, const std::string& fragment) {
  ScratchDir dir;
  const auto path = dir.write("bad.smtx", text);
  expect_parse_error([&] { read_smtx<double>(path); }, path.string(), line, fragment);
}

TEST(SmtxRead, ReadsTheTopology) {
  const auto m = read_text(kSmall);
  EXPECT_EQ(m.rows, 3);
  EXPECT_EQ(m.cols, 5);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 2, 2, 5}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 3, 1, 2, 4}));
  EXPECT_NO_THROW(m.validate());
}

TEST(SmtxRead, GeneratesNonZeroValuesInTheDocumentedBand) {
  const auto m = read_text(kSmall);
  ASSERT_EQ(m.values.size(), 5u);
  for (const double v : m.values) {
    EXPECT_GE(std::abs(v), 0.1) << v;
    EXPECT_LE(std::abs(v), 1.0) << v;
  }
}

TEST(SmtxRead, ValuesAreDeterministicForASeedAndDifferForAnother) {
  ReadOptions a, b;
  a.pattern_seed = 10;
  b.pattern_seed = 11;
  EXPECT_EQ(read_text(kSmall, a).values, read_text(kSmall, a).values);
  EXPECT_NE(read_text(kSmall, a).values, read_text(kSmall, b).values);
}

TEST(SmtxRead, ReadsEveryValueAndIndexType) {
  EXPECT_EQ((read_text<float, std::int64_t>(kSmall).row_ptr), (std::vector<std::int64_t>{0, 2, 2, 5}));
  EXPECT_EQ(read_text<half>(kSmall).nnz(), 5);
  EXPECT_EQ((read_text<bfloat16, std::int64_t>(kSmall).nnz()), 5);
}

TEST(SmtxRead, SortsUnsortedRowsAndTheirValuesFollow) {
  const auto sorted = read_text("1, 5, 3\n0 3\n1 3 4\n");
  const auto unsorted = read_text("1, 5, 3\n0 3\n4 1 3\n");
  EXPECT_EQ(unsorted.col_idx, (std::vector<std::int32_t>{1, 3, 4}));
  // Entry k of the file keeps its value: the first stored entry (column 4) now comes last.
  ASSERT_EQ(unsorted.values.size(), 3u);
  EXPECT_EQ(unsorted.values[2], sorted.values[0]);
  EXPECT_EQ(unsorted.values[0], sorted.values[1]);
  EXPECT_EQ(unsorted.values[1], sorted.values[2]);
}

TEST(SmtxRead, AcceptsCommasSpacesTabsAndCrlf) {
  const auto m = read_text("3,5,5\r\n0,2,2,5\r\n0\t3 , 1,2,4\r\n");
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 3, 1, 2, 4}));
}

TEST(SmtxRead, AcceptsAnEmptyMatrixWithoutAColumnLine) {
  const auto m = read_text("2, 7, 0\n0 0 0\n");
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 0, 0}));
  EXPECT_EQ(m.nnz(), 0);
}

TEST(SmtxRead, ReadsGzipFiles) {
  EXPECT_EQ(read_text(kSmall, {}, "m.smtx.gz").col_idx, (std::vector<std::int32_t>{0, 3, 1, 2, 4}));
}

TEST(SmtxRead, FillsTheReport) {
  ScratchDir dir;
  ReadReport report;
  read_smtx<double>(dir.write("m.smtx", kSmall), {}, &report);
  EXPECT_EQ(report.file_bytes, kSmall.size());
  EXPECT_EQ(report.text_bytes, kSmall.size());
  EXPECT_EQ(report.entries_in_file, 5);
  EXPECT_EQ(report.field, "pattern");
}

// ---- errors -------------------------------------------------------------------------------------

TEST(SmtxErrors, EmptyFile) { expect_text_error("", 0, "empty file"); }

TEST(SmtxErrors, MalformedHeader) {
  expect_text_error("3, 5\n0 2 2 5\n0 3 1 2 4\n", 1, "malformed header '3, 5'");
  expect_text_error("3, five, 5\n0 2 2 5\n0 3 1 2 4\n", 1, "malformed number of columns 'five'");
  expect_text_error("3, 5, 5, 1\n0 2 2 5\n0 3 1 2 4\n", 1, "expected exactly 'rows, columns, nonzeros'");
}

TEST(SmtxErrors, NegativeSize) { expect_text_error("-3, 5, 5\n", 1, "negative number of rows: -3"); }

TEST(SmtxErrors, SizeBeyond32BitIndices) {
  ScratchDir dir;
  const auto path = dir.write("big.smtx", "3, 3000000000, 0\n0 0 0 0\n");
  EXPECT_THROW(read_smtx<double>(path), IndexOverflowError);
  EXPECT_EQ((read_smtx<double, std::int64_t>(path).cols), 3000000000);
}

TEST(SmtxErrors, MissingOffsetLine) { expect_text_error("3, 5, 5\n", 1, "missing line 2"); }

TEST(SmtxErrors, WrongNumberOfOffsets) {
  expect_text_error("3, 5, 5\n0 2 5\n0 3 1 2 4\n", 2, "expected rows + 1 = 4 row offsets, found 3");
  expect_text_error("3, 5, 5\n0 2 2 5 5\n0 3 1 2 4\n", 2, "expected rows + 1 = 4 row offsets, found more");
}

TEST(SmtxErrors, FirstOffsetNotZero) {
  expect_text_error("3, 5, 5\n1 2 2 5\n0 3 1 2 4\n", 2, "the first row offset is 1, expected 0");
}

TEST(SmtxErrors, DecreasingOffsets) {
  expect_text_error("3, 5, 5\n0 3 2 5\n0 3 1 2 4\n", 2,
                    "row offset 2 is 2, less than the previous offset 3");
}

TEST(SmtxErrors, LastOffsetNotNnz) {
  expect_text_error("3, 5, 5\n0 2 2 4\n0 3 1 2 4\n", 2,
                    "the last row offset is 4, expected the number of nonzeros 5");
}

TEST(SmtxErrors, NegativeOffset) {
  expect_text_error("3, 5, 5\n0 -2 2 5\n0 3 1 2 4\n", 2, "negative row offset -2");
}

TEST(SmtxErrors, NonNumericOffset) {
  expect_text_error("3, 5, 5\n0 2 x 5\n0 3 1 2 4\n", 2, "malformed row offset 'x'");
}

TEST(SmtxErrors, MissingColumnLine) {
  expect_text_error("3, 5, 5\n0 2 2 5\n", 2, "missing line 3: expected 5 column indices");
}

TEST(SmtxErrors, WrongNumberOfColumns) {
  expect_text_error("3, 5, 5\n0 2 2 5\n0 3 1 2\n", 3, "expected 5 column indices, found 4");
  expect_text_error("3, 5, 5\n0 2 2 5\n0 3 1 2 4 0\n", 3, "expected 5 column indices, found more");
}

TEST(SmtxErrors, ColumnOutOfRange) {
  expect_text_error("3, 5, 5\n0 2 2 5\n0 3 1 5 4\n", 3,
                    "column index 5 (entry 3, row 2) is out of range [0, 5)");
}

TEST(SmtxErrors, DuplicateColumnInARow) {
  expect_text_error("3, 5, 5\n0 2 2 5\n0 3 4 1 4\n", 3,
                    "row 2 has column 4 twice (duplicate entries are not allowed");
}

TEST(SmtxErrors, TextAfterTheColumnLine) {
  expect_text_error(kSmall + "\n7\n", 5, "unexpected text after the column indices: '7'");
}

TEST(SmtxErrors, TruncatedColumnLine) {
  expect_text_error("3, 5, 5\n0 2 2 5\n0 3 1 2 4x", 3, "malformed column index '4x'");
}

// ---- writer -------------------------------------------------------------------------------------

TEST(SmtxWrite, WritesTheDlmcLayoutAndReadsBack) {
  const auto original = read_text(kSmall);
  ScratchDir dir;
  write_matrix(dir.file("out.smtx"), original);
  EXPECT_EQ(test::read_bytes(dir.file("out.smtx")), "3, 5, 5\n0 2 2 5\n0 3 1 2 4\n");
  const auto back = read_smtx<double>(dir.file("out.smtx"));
  EXPECT_EQ(back.row_ptr, original.row_ptr);
  EXPECT_EQ(back.col_idx, original.col_idx);
  EXPECT_EQ(back.values, original.values);  // same seed, same entry order: same values
}

TEST(SmtxWrite, AnyThreadCountWritesTheSameBytes) {
  // More numbers on line 3 than in one writer piece (2^19), and a line 2 of several pieces too.
  CsrMatrix<double> matrix;
  matrix.rows = 600000;
  matrix.cols = 40;
  matrix.row_ptr = {0};
  for (std::int32_t row = 0; row < matrix.rows; ++row) {
    const std::int32_t length = row % 3;  // 0, 1 or 2 entries
    for (std::int32_t k = 0; k < length; ++k) matrix.col_idx.push_back((row + 17 * k) % 40);
    std::sort(matrix.col_idx.end() - length, matrix.col_idx.end());
    matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
  }
  matrix.values.assign(matrix.col_idx.size(), 1.0);
  std::string expected = "600000, 40, " + std::to_string(matrix.col_idx.size()) + "\n";
  for (const auto* line : {&matrix.row_ptr, &matrix.col_idx}) {
    for (std::size_t i = 0; i < line->size(); ++i) {
      if (i > 0) expected += ' ';
      expected += std::to_string((*line)[i]);
    }
    expected += "\n";
  }
  ScratchDir dir;
  const int threads_before = omp_get_max_threads();
  for (const int threads : {1, 2, 7}) {
    SCOPED_TRACE(threads);
    omp_set_num_threads(threads);
    write_matrix(dir.file("out.smtx"), matrix);
    EXPECT_TRUE(test::read_bytes(dir.file("out.smtx")) == expected);
    write_matrix(dir.file("out.smtx.gz"), matrix);
    const auto back = read_matrix<double>(dir.file("out.smtx.gz"));
    EXPECT_EQ(back.row_ptr, matrix.row_ptr);
    EXPECT_EQ(back.col_idx, matrix.col_idx);
  }
  omp_set_num_threads(threads_before);
}

TEST(SmtxWrite, CompressesWhenTheNameEndsInGz) {
  const auto original = read_text<float, std::int64_t>(kSmall);
  ScratchDir dir;
  write_matrix(dir.file("out.smtx.gz"), original);
  EXPECT_EQ((read_matrix<float, std::int64_t>(dir.file("out.smtx.gz")).col_idx), original.col_idx);
}

// ---- test data and real files -------------------------------------------------------------------

TEST(SmtxData, ReadsTheSmallFilesAndRefusesTheBrokenOne) {
  const std::filesystem::path data = TCSPARSE_TEST_DATA_DIR;
  EXPECT_EQ(read_smtx<double>(data / "small_4x6.smtx").nnz(), 7);
  const auto bad = data / "bad_offsets.smtx";
  expect_parse_error([&] { read_smtx<double>(bad); }, bad.string(), 2, "less than the previous offset");
}

TEST(SmtxRealFiles, EveryFileOfOneDlmcFolderMatchesTheManifest) {
  const auto dir = test::real_matrix_dir();
  if (dir.empty()) GTEST_SKIP() << "no matrix directory (set TCSPARSE_MATRIX_DIR)";
  const std::string folder = "dlmc/rn50/magnitude_pruning/0.9/";
  int checked = 0;
  for (const auto& entry : test::read_manifest(dir)) {
    if (entry.file.rfind(folder, 0) != 0) continue;
    SCOPED_TRACE(entry.file);
    const auto m = read_matrix<float>(dir / entry.file);
    EXPECT_EQ(m.rows, entry.rows);
    EXPECT_EQ(m.cols, entry.cols);
    EXPECT_EQ(m.nnz(), entry.nnz_expanded);
    EXPECT_NO_THROW(m.validate());
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no file of " << folder << " in the matrix directory";
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace tcsparse

namespace tcsparse {
namespace {

TEST(SmtxHardening, DeviceOrEndlessFileIsRefusedAfterItsFirstBytes) {
  test::ScratchDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.file("zero.smtx"));
  test::expect_parse_error([&] { read_smtx<double>(dir.file("zero.smtx")); },
                           dir.file("zero.smtx").string(), 1, "does not end within");
}

TEST(SmtxHardening, TextLongerThanItsLineOneAllowsIsRefused) {
  test::ScratchDir dir;
  const auto path = dir.write("long.smtx", "2, 2, 1\n0 1 1\n" + std::string(10000, ' ') + "1\n");
  test::expect_parse_error([&] { read_smtx<double>(path); }, path.string(), 0,
                           "bytes its header allows");
}

TEST(SmtxHardening, GzipWithSeveralMembersReads) {
  test::ScratchDir dir;
  const auto first = test::read_bytes(dir.write("a.gz", "2, 3, 2\n0 1 2\n"));
  const auto second = test::read_bytes(dir.write("b.gz", "2 0\n"));
  const auto path = dir.file("two.smtx.gz");
  {
    std::ofstream out(path, std::ios::binary);
    out << first << second;
  }
  const auto matrix = read_smtx<double>(path);
  EXPECT_EQ(matrix.row_ptr, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(matrix.col_idx, (std::vector<std::int32_t>{2, 0}));
}

}  // namespace
}  // namespace tcsparse
