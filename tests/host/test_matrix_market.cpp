// The Matrix Market reader and writer: what they accept, what they refuse (with file and line),
// round trips for every value type, and real files from the matrix directory.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/matrix_market_parser.hpp"
#include "host/io_test_support.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse {
namespace {

using test::expect_parse_error;
using test::ScratchDir;

template <typename Value>
std::vector<std::uint64_t> value_bits(const std::vector<Value>& values) {
  std::vector<std::uint64_t> bits;
  for (const Value& v : values) {
    if constexpr (std::is_same_v<Value, half> || std::is_same_v<Value, bfloat16>) bits.push_back(v.bits);
    else if constexpr (std::is_same_v<Value, float>) bits.push_back(std::bit_cast<std::uint32_t>(v));
    else bits.push_back(std::bit_cast<std::uint64_t>(v));
  }
  return bits;
}

template <typename A, typename B>
void expect_same_matrix(const A& a, const B& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(value_bits(a.values), value_bits(b.values));
}

/// A random valid matrix with values of every magnitude (tiny, huge, negative, fractional).
template <typename Value, typename Index>
CsrMatrix<Value, Index> random_matrix(Index rows, Index cols, std::size_t entries, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int64_t> row(0, rows - 1), col(0, cols - 1);
  std::uniform_real_distribution<double> mantissa(0.1, 1.0);
  std::uniform_int_distribution<int> exponent(-12, 12);
  CooMatrix<Value, Index> coo;
  coo.rows = rows;
  coo.cols = cols;
  for (std::size_t e = 0; e < entries; ++e) {
    coo.row_idx.push_back(static_cast<Index>(row(random)));
    coo.col_idx.push_back(static_cast<Index>(col(random)));
    const double magnitude = std::ldexp(mantissa(random), exponent(random));
    coo.values.push_back(from_double<Value>(random() % 2 ? magnitude : -magnitude));
  }
  return csr_from_coo(coo);
}

/// Reads text as a .mtx file written to a scratch directory.
template <typename Value = double, typename Index = std::int32_t>
CsrMatrix<Value, Index> read_text(const std::string& text, const ReadOptions& options = {},
                                  ReadReport* report = nullptr) {
  ScratchDir dir;
  return read_matrix_market<Value, Index>(dir.write("m.mtx", text), options, report);
}

/// Checks that text, as a file, fails at `line` with `fragment` in the message.
void expect_text_error(const std::string& text, std::int64_t line, const std::string& fragment) {
  ScratchDir dir;
  const auto path = dir.write("bad.mtx", text);
  expect_parse_error([&] { read_matrix_market<double>(path); }, path.string(), line, fragment);
}

const std::string kGeneral =
    "%%MatrixMarket matrix coordinate real general\n"
    "% a comment\n"
    "3 4 5\n"
    "3 4 5.0\n"
    "1 1 1\n"
    "3 1 3e0\n"
    "1 3 2\n"
    "3 2 4\n";

/// kGeneral as CSR: [1 . 2 .; . . . .; 3 4 . 5]
CsrMatrix<double> general_matrix() {
  CsrMatrix<double> m;
  m.rows = 3;
  m.cols = 4;
  m.row_ptr = {0, 2, 2, 5};
  m.col_idx = {0, 2, 0, 1, 3};
  m.values = {1, 2, 3, 4, 5};
  return m;
}

// ---- what the reader accepts --------------------------------------------------------------------

TEST(MatrixMarketRead, ReadsAGeneralRealFile) {
  expect_same_matrix(read_text(kGeneral), general_matrix());
}

TEST(MatrixMarketRead, ReadsWith64BitIndicesAndEveryValueType) {
  const auto wide = read_text<double, std::int64_t>(kGeneral);
  EXPECT_EQ(wide.row_ptr, (std::vector<std::int64_t>{0, 2, 2, 5}));
  const auto f = read_text<float>(kGeneral);
  EXPECT_EQ(f.values, (std::vector<float>{1, 2, 3, 4, 5}));
  const auto h = read_text<half>(kGeneral);
  EXPECT_EQ(static_cast<float>(h.values[4]), 5.0f);
  const auto b = read_text<bfloat16, std::int64_t>(kGeneral);
  EXPECT_EQ(static_cast<float>(b.values[1]), 2.0f);
}

TEST(MatrixMarketRead, ExpandsASymmetricFileToBothTriangles) {
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "2 1 -1\n"
      "3 2 0.5\n"
      "3 3 7\n");
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 2, 4, 6}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1, 0, 2, 1, 2}));
  EXPECT_EQ(m.values, (std::vector<double>{2, -1, -1, 0.5, 0.5, 7}));
}

TEST(MatrixMarketRead, NegatesTheMirrorOfASkewSymmetricFile) {
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n"
      "3 3 2\n"
      "2 1 1.5\n"
      "3 1 -2\n");
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{1, 2, 0, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{-1.5, 2, 1.5, -2}));
}

TEST(MatrixMarketRead, RefusesADiagonalEntryInASkewSymmetricFile) {
  expect_text_error(
      "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n2 2 1\n", 4,
      "entry on the diagonal (row 2, column 2) in a skew-symmetric file");
}

TEST(MatrixMarketRead, ReadsARealHermitianFileAsSymmetric) {
  ReadReport report;
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real hermitian\n2 2 2\n1 1 3\n2 1 4\n", {}, &report);
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1, 0}));
  EXPECT_EQ(m.values, (std::vector<double>{3, 4, 4}));
  EXPECT_EQ(report.symmetry, "hermitian");
}

TEST(MatrixMarketRead, ReadsAnIntegerFile) {
  ReadReport report;
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 2 -7\n2 1 12\n2 2 +3\n", {}, &report);
  EXPECT_EQ(m.values, (std::vector<double>{-7, 12, 3}));
  EXPECT_EQ(report.field, "integer");
}

const std::string kPattern =
    "%%MatrixMarket matrix coordinate pattern general\n"
    "4 4 6\n1 1\n2 3\n4 4\n3 1\n1 4\n2 2\n";

TEST(MatrixMarketRead, GivesPatternEntriesNonZeroValuesInTheDocumentedBand) {
  const auto m = read_text(kPattern);
  ASSERT_EQ(m.nnz(), 6);
  for (const double v : m.values) {
    EXPECT_GE(std::abs(v), 0.1) << v;
    EXPECT_LE(std::abs(v), 1.0) << v;
  }
  EXPECT_NE(std::set<double>(m.values.begin(), m.values.end()).size(), 1u) << "all values equal";
}

TEST(MatrixMarketRead, PatternValuesAreDeterministicForASeed) {
  ReadOptions options;
  options.pattern_seed = 5;
  EXPECT_EQ(read_text(kPattern, options).values, read_text(kPattern, options).values);
}

TEST(MatrixMarketRead, PatternValuesDependOnTheSeed) {
  ReadOptions one, other;
  one.pattern_seed = 1;
  other.pattern_seed = 2;
  EXPECT_NE(read_text(kPattern, one).values, read_text(kPattern, other).values);
}

TEST(MatrixMarketRead, PatternValuesDoNotDependOnTheThreadCount) {
  std::string text = "%%MatrixMarket matrix coordinate pattern general\n300 300 3000\n";
  std::mt19937 random(3);
  for (int e = 0; e < 3000; ++e)
    text += std::to_string(random() % 300 + 1) + " " + std::to_string(random() % 300 + 1) + "\n";
  ReadOptions one_thread, three_threads;
  one_thread.threads = 1;
  three_threads.threads = 3;
  detail::MatrixMarketTuning many_chunks;
  many_chunks.min_chunk_bytes = 64;
  const auto serial = detail::parse_matrix_market_text<double, std::int32_t>(text, "t", one_thread);
  const auto parallel =
      detail::parse_matrix_market_text<double, std::int32_t>(text, "t", three_threads, nullptr, many_chunks);
  expect_same_matrix(serial, parallel);
}

TEST(MatrixMarketRead, SymmetricPatternMirrorsGetTheSameValue) {
  const auto m = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n");
  ASSERT_EQ(m.nnz(), 2);
  EXPECT_EQ(m.values[0], m.values[1]);
}

TEST(MatrixMarketRead, SumsDuplicateEntries) {
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n2 2 5\n1 1 0.5\n1 1 0.25\n");
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{1.75, 5}));
}

TEST(MatrixMarketRead, AcceptsCommentsAndBlankLinesAnywhereAfterTheBanner) {
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real general\n"
      "\n% comment\n   \n%another\n"
      "3 4 5\n"
      "% between size line and entries\n\n"
      "3 4 5.0\n"
      "1 1 1\n"
      "   % indented comment\n"
      "\n"
      "3 1 3e0\n1 3 2\n3 2 4\n"
      "% trailing comment\n\n");
  expect_same_matrix(m, general_matrix());
}

TEST(MatrixMarketRead, AcceptsCrlfLineEndings) {
  std::string crlf;
  for (const char c : kGeneral) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  expect_same_matrix(read_text(crlf), general_matrix());
}

TEST(MatrixMarketRead, AcceptsExtraSpacesAndTabs) {
  const auto m = read_text(
      "%%MatrixMarket   matrix\tcoordinate  real general  \n"
      "  3\t4   5  \n"
      "\t3  4\t5.0\n"
      "1 1 1   \n"
      "  3   1   3e0\t\n"
      "1\t3\t2\n"
      "3 2 4");
  expect_same_matrix(m, general_matrix());
}

TEST(MatrixMarketRead, AcceptsAMissingFinalNewline) {
  std::string text = kGeneral;
  text.pop_back();
  expect_same_matrix(read_text(text), general_matrix());
}

TEST(MatrixMarketRead, AcceptsBannerWordsInAnyCase) {
  const auto m = read_text("%%MatrixMarket MATRIX Coordinate Real General\n1 1 1\n1 1 2\n");
  EXPECT_EQ(m.values, (std::vector<double>{2}));
}

TEST(MatrixMarketRead, AcceptsSignedAndExponentValues) {
  const auto m = read_text(
      "%%MatrixMarket matrix coordinate real general\n1 5 5\n1 1 +1.5\n1 2 -2E-3\n1 3 .5\n"
      "1 4 1e-400\n1 5 6.02214076e+23\n");
  EXPECT_EQ(m.values, (std::vector<double>{1.5, -2e-3, 0.5, 0.0, 6.02214076e23}));
}

TEST(MatrixMarketRead, AcceptsAnEmptyMatrix) {
  const auto m = read_text("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  EXPECT_EQ(m.rows, 0);
  EXPECT_EQ(m.nnz(), 0);
  const auto no_entries = read_text("%%MatrixMarket matrix coordinate real general\n5 3 0");
  EXPECT_EQ(no_entries.row_ptr, (std::vector<std::int32_t>(6, 0)));
}

TEST(MatrixMarketRead, ReadsGzipFilesByTheirMagicBytes) {
  ScratchDir dir;
  // Named .gz, and a gzip file with a plain .mtx name: both are inflated.
  const auto named = dir.write("m.mtx.gz", kGeneral);
  const auto disguised = dir.file("disguised.mtx");
  std::filesystem::copy_file(named, disguised);
  ASSERT_NE(test::read_bytes(named), kGeneral);  // really compressed
  expect_same_matrix(read_matrix_market<double>(named), general_matrix());
  expect_same_matrix(read_matrix_market<double>(disguised), general_matrix());
}

TEST(MatrixMarketRead, FillsTheReport) {
  ScratchDir dir;
  const auto path = dir.write("m.mtx.gz", kGeneral);
  ReadReport report;
  read_matrix_market<double>(path, {}, &report);
  EXPECT_EQ(report.file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(report.text_bytes, kGeneral.size());
  EXPECT_EQ(report.entries_in_file, 5);
  EXPECT_EQ(report.field, "real");
  EXPECT_EQ(report.symmetry, "general");
  EXPECT_GE(report.read_seconds, 0.0);
  EXPECT_GE(report.parse_seconds, 0.0);
  EXPECT_GE(report.assemble_seconds, 0.0);
}

TEST(MatrixMarketRead, ReportCountsStoredEntriesOfASymmetricFile) {
  ReadReport report;
  const auto m = read_text("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n2 1 2\n",
                           {}, &report);
  EXPECT_EQ(report.entries_in_file, 2);
  EXPECT_EQ(m.nnz(), 3);
  EXPECT_EQ(report.symmetry, "symmetric");
}

// ---- chunked parsing: the result must not depend on where the chunks start ---------------------

std::string random_file(int rows, int cols, int entries, std::uint64_t seed, bool comments) {
  std::mt19937_64 random(seed);
  std::string text = "%%MatrixMarket matrix coordinate real general\n% header comment\n" +
                     std::to_string(rows) + " " + std::to_string(cols) + " " +
                     std::to_string(entries) + "\n";
  for (int e = 0; e < entries; ++e) {
    if (comments && e % 7 == 3) text += "% comment between entries\n\n";
    text += std::to_string(random() % rows + 1) + " " + std::to_string(random() % cols + 1) + " " +
            std::to_string(static_cast<double>(random() % 20000) / 1000.0 - 10.0) + "\n";
  }
  return text;
}

TEST(MatrixMarketChunks, EveryChunkSizeGivesTheSameMatrix) {
  for (const bool comments : {false, true}) {
    const std::string text = random_file(50, 40, 800, 17, comments);
    ReadOptions serial;
    serial.threads = 1;
    const auto expected = detail::parse_matrix_market_text<double, std::int32_t>(text, "t", serial);
    for (const std::size_t chunk_bytes : {1, 2, 3, 5, 13, 100, 1000}) {
      for (const int threads : {1, 2, 4}) {
        ReadOptions options;
        options.threads = threads;
        detail::MatrixMarketTuning tuning;
        tuning.min_chunk_bytes = chunk_bytes;
        SCOPED_TRACE("chunk bytes " + std::to_string(chunk_bytes) + ", threads " +
                     std::to_string(threads) + ", comments " + std::to_string(comments));
        expect_same_matrix(
            detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options, nullptr, tuning),
            expected);
      }
    }
  }
}

TEST(MatrixMarketChunks, ErrorLineIsExactWhateverTheChunking) {
  std::string text = random_file(50, 40, 500, 23, true);
  // Corrupt one entry near the end and find its line.
  const std::size_t at = text.rfind("\n", text.size() - 40) + 1;
  text.insert(at, "x");
  const auto expected_line = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
  for (const std::size_t chunk_bytes : {1, 7, 64, 100000}) {
    ReadOptions options;
    options.threads = 3;
    detail::MatrixMarketTuning tuning;
    tuning.min_chunk_bytes = chunk_bytes;
    expect_parse_error(
        [&] { detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options, nullptr, tuning); },
        "t", expected_line, "expected an integer row index, found 'x");
  }
}

TEST(MatrixMarketChunks, TheEarliestOfSeveralErrorsIsReported) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n9 9 6\n";
  text += "1 1 1\n2 2 2\n3 3 oops\n4 4 4\n5 5 5\n6 6 bad\n";
  ReadOptions options;
  options.threads = 4;
  detail::MatrixMarketTuning tuning;
  tuning.min_chunk_bytes = 1;
  expect_parse_error(
      [&] { detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options, nullptr, tuning); },
      "t", 5, "malformed value 'oops'");
}

// ---- what the reader refuses (each names the file and the line) --------------------------------

TEST(MatrixMarketErrors, EmptyFile) { expect_text_error("", 0, "empty file"); }

TEST(MatrixMarketErrors, MissingBanner) {
  expect_text_error("3 3 1\n1 1 1\n", 1, "expected the banner '%%MatrixMarket matrix coordinate");
}

TEST(MatrixMarketErrors, IncompleteBanner) {
  expect_text_error("%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "incomplete banner");
}

TEST(MatrixMarketErrors, ComplexField) {
  expect_text_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
                    "complex values are not supported");
}

TEST(MatrixMarketErrors, ArrayFormat) {
  expect_text_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
                    "array (dense) format is not supported");
}

TEST(MatrixMarketErrors, UnknownObject) {
  expect_text_error("%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", 1,
                    "unsupported object 'vector'");
}

TEST(MatrixMarketErrors, UnknownFormat) {
  expect_text_error("%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1,
                    "unknown format 'sparse'");
}

TEST(MatrixMarketErrors, UnknownField) {
  expect_text_error("%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", 1,
                    "unknown field 'quaternion'");
}

TEST(MatrixMarketErrors, UnknownSymmetry) {
  expect_text_error("%%MatrixMarket matrix coordinate real upper\n1 1 1\n1 1 1\n", 1,
                    "unknown symmetry 'upper'");
}

TEST(MatrixMarketErrors, ExtraWordInTheBanner) {
  expect_text_error("%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", 1,
                    "unexpected 'extra' after the symmetry");
}

TEST(MatrixMarketErrors, MissingSizeLine) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n% only a comment\n", 2,
                    "missing size line");
}

TEST(MatrixMarketErrors, SizeLineWithTwoNumbers) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n%\n3 3\n1 1 1\n", 3,
                    "malformed size line '3 3': expected three integers");
}

TEST(MatrixMarketErrors, SizeLineWithText) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 three 1\n1 1 1\n", 2,
                    "the number of columns 'three' is not an integer");
}

TEST(MatrixMarketErrors, NegativeSize) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n-3 3 1\n1 1 1\n", 2,
                    "negative number of rows: -3");
}

TEST(MatrixMarketErrors, SizeBeyondInt64) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 99999999999999999999\n", 2,
                    "the number of entries '99999999999999999999' is too large");
}

TEST(MatrixMarketErrors, NonSquareSymmetricMatrix) {
  expect_text_error("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2,
                    "a symmetric matrix must be square, but the size line declares 3 x 4");
}

void expect_index_overflow(const std::string& text, const std::string& fragment) {
  ScratchDir dir;
  const auto path = dir.write("big.mtx", text);
  try {
    read_matrix_market<double, std::int32_t>(path);
    ADD_FAILURE() << "no exception";
  } catch (const IndexOverflowError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind(path.string() + ":2: ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

TEST(MatrixMarketErrors, RowsBeyond32BitIndicesAreAnIndexOverflowBeforeAllocating) {
  expect_index_overflow("%%MatrixMarket matrix coordinate real general\n3000000000 2 0\n",
                        "3000000000 rows do not fit 32-bit indices");
}

TEST(MatrixMarketErrors, EntriesBeyond32BitIndicesAreAnIndexOverflow) {
  expect_index_overflow("%%MatrixMarket matrix coordinate real general\n2 2 2147483648\n1 1 1\n",
                        "2147483648 entries do not fit 32-bit indices");
}

TEST(MatrixMarketRead, ColumnsBeyond32BitIndicesReadWith64BitIndices) {
  const auto m = read_text<double, std::int64_t>(
      "%%MatrixMarket matrix coordinate real general\n2 3000000000 1\n2 3000000000 1.5\n");
  EXPECT_EQ(m.cols, 3000000000);
  EXPECT_EQ(m.col_idx, (std::vector<std::int64_t>{2999999999}));
}

TEST(MatrixMarketErrors, TooFewEntries) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1\n2 2 2\n3 3 3\n", 5,
                    "expected 4 entries (size line, line 2), found 3");
}

TEST(MatrixMarketErrors, NoEntriesAtAll) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 4\n", 2,
                    "expected 4 entries (size line, line 2), found 0");
}

TEST(MatrixMarketErrors, TooManyEntriesNamesTheFirstSurplusLine) {
  expect_text_error(
      "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n% c\n2 2 2\n\n3 3 3\n1 2 4\n", 7,
      "more entries than the 2 declared on the size line (line 2)");
}

TEST(MatrixMarketErrors, RowIndexZero) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n0 2 2\n", 4,
                    "row index 0 is out of range [1, 3] (indices are 1-based)");
}

TEST(MatrixMarketErrors, RowIndexPastTheLastRow) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n4 1 1\n1 2 2\n", 3,
                    "row index 4 is out of range [1, 3]");
}

TEST(MatrixMarketErrors, ColumnIndexOutOfRange) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 -1 2\n", 4,
                    "column index -1 is out of range [1, 3]");
}

TEST(MatrixMarketErrors, NonNumericIndex) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 b 2\n", 4,
                    "expected an integer column index, found 'b'");
}

TEST(MatrixMarketErrors, FractionalIndex) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1.5 1 1\n", 3,
                    "expected an integer row index, found '1.5'");
}

TEST(MatrixMarketErrors, NonNumericValue) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 two\n", 4,
                    "malformed value 'two'");
}

TEST(MatrixMarketErrors, ValueWithTrailingJunk) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.5x\n", 3,
                    "malformed value '1.5x'");
}

TEST(MatrixMarketErrors, ValueBeyondDouble) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1e400\n", 3,
                    "value '1e400' is out of the range of double");
}

TEST(MatrixMarketErrors, MissingValueInARealFile) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2\n", 4,
                    "missing value: a real file needs 'row column value'");
}

TEST(MatrixMarketErrors, MissingColumnIndex) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2\n", 4,
                    "missing column index and value");
}

TEST(MatrixMarketErrors, ExtraTextAfterTheValue) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1 0\n2 2 2\n", 3,
                    "unexpected text '0' after the value");
}

TEST(MatrixMarketErrors, ValueInAPatternFile) {
  expect_text_error("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2 5\n", 4,
                    "unexpected text '5' after the column index (a pattern file has no values)");
}

TEST(MatrixMarketErrors, FractionInAnIntegerFile) {
  expect_text_error("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
                    "expected an integer value, found '1.5'");
}

TEST(MatrixMarketErrors, TruncatedLastLine) {
  // The file was cut in the middle of its last entry.
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n3 3", 5,
                    "missing value");
}

TEST(MatrixMarketErrors, TruncatedFileMissingWholeLines) {
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 4,
                    "expected 3 entries (size line, line 2), found 2 (file truncated?)");
}

TEST(MatrixMarketErrors, MissingFile) {
  ScratchDir dir;
  const auto path = dir.file("absent.mtx");
  expect_parse_error([&] { read_matrix_market<double>(path); }, path.string(), 0, "cannot open");
}

TEST(MatrixMarketErrors, CorruptGzipData) {
  ScratchDir dir;
  std::string text = kGeneral;
  for (int i = 0; i < 200; ++i) text += "% padding so that the deflate stream is long enough\n";
  std::string bytes = test::read_bytes(dir.write("good.mtx.gz", text));
  for (std::size_t i = 20; i < bytes.size() - 12; i += 3) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  const auto path = dir.file("corrupt.mtx.gz");
  std::ofstream(path, std::ios::binary) << bytes;
  expect_parse_error([&] { read_matrix_market<double>(path); }, path.string(), 0, "corrupt gzip data");
}

TEST(MatrixMarketErrors, TruncatedGzipData) {
  ScratchDir dir;
  const std::string bytes = test::read_bytes(dir.write("good.mtx.gz", kGeneral));
  const auto path = dir.file("cut.mtx");
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  expect_parse_error([&] { read_matrix_market<double>(path); }, path.string(), 0,
                     "gzip data ends early");
}

// ---- writer and round trips ---------------------------------------------------------------------

TEST(MatrixMarketWrite, WritesAGeneralRealFile) {
  ScratchDir dir;
  const auto path = dir.file("out.mtx");
  write_matrix_market(path, general_matrix());
  EXPECT_EQ(test::read_bytes(path),
            "%%MatrixMarket matrix coordinate real general\n3 4 5\n"
            "1 1 1\n1 3 2\n3 1 3\n3 2 4\n3 4 5\n");
}

TEST(MatrixMarketWrite, RefusesAnInvalidMatrix) {
  ScratchDir dir;
  auto m = general_matrix();
  m.col_idx[1] = 0;  // unsorted
  EXPECT_THROW(write_matrix_market(dir.file("out.mtx"), m), ValidationError);
}

TEST(MatrixMarketWrite, CompressesWhenTheNameEndsInGz) {
  ScratchDir dir;
  const auto path = dir.file("out.mtx.gz");
  write_matrix_market(path, general_matrix());
  const std::string bytes = test::read_bytes(path);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  expect_same_matrix(read_matrix_market<double>(path), general_matrix());
}

template <typename T>
class MatrixMarketRoundTrip : public ::testing::Test {};
template <typename V, typename I>
struct Types {
  using Value = V;
  using Index = I;
};
using RoundTripTypes =
    ::testing::Types<Types<double, std::int32_t>, Types<float, std::int32_t>,
                     Types<half, std::int32_t>, Types<bfloat16, std::int32_t>,
                     Types<double, std::int64_t>, Types<float, std::int64_t>,
                     Types<half, std::int64_t>, Types<bfloat16, std::int64_t>>;
TYPED_TEST_SUITE(MatrixMarketRoundTrip, RoundTripTypes);

TYPED_TEST(MatrixMarketRoundTrip, WriteThenReadGivesTheSameMatrix) {
  using Value = typename TypeParam::Value;
  using Index = typename TypeParam::Index;
  const auto original = random_matrix<Value, Index>(300, 200, 5000, 31);
  ScratchDir dir;
  for (const char* name : {"m.mtx", "m.mtx.gz"}) {
    SCOPED_TRACE(name);
    write_matrix_market(dir.file(name), original);
    expect_same_matrix(read_matrix_market<Value, Index>(dir.file(name)), original);
  }
}

TEST(MatrixMarketRoundTripLarge, ManyWriterBlocksAndParserChunksGiveTheSameMatrix) {
  // More entries than one writer block (2^17), than one parser chunk (1 MiB of text) and than
  // the file size from which several threads read the file (4 MiB).
  const auto original = random_matrix<double, std::int32_t>(20000, 30000, 400000, 8);
  ScratchDir dir;
  write_matrix_market(dir.file("big.mtx"), original);
  ASSERT_GT(std::filesystem::file_size(dir.file("big.mtx")), std::uintmax_t{4} << 20);
  ReadOptions options;
  options.threads = 3;
  expect_same_matrix(read_matrix_market<double, std::int32_t>(dir.file("big.mtx"), options), original);
}

TEST(MatrixMarketWrite, AnyThreadCountWritesTheSameBytes) {
  // Several writer pieces (2^17 entries each), rows of every length including empty ones.
  const auto matrix = random_matrix<double, std::int32_t>(3000, 50000, 300000, 12);
  ScratchDir dir;
  const int threads_before = omp_get_max_threads();
  std::string expected_text;
  for (const int threads : {1, 2, 7}) {
    SCOPED_TRACE(threads);
    omp_set_num_threads(threads);
    write_matrix_market(dir.file("m.mtx"), matrix);
    write_matrix_market(dir.file("m.mtx.gz"), matrix);
    const std::string text = test::read_bytes(dir.file("m.mtx"));
    if (threads == 1) expected_text = text;
    EXPECT_TRUE(text == expected_text);
    // Gzip: one member per piece, whatever the threads; it reads back to the same matrix.
    expect_same_matrix(read_matrix_market<double, std::int32_t>(dir.file("m.mtx.gz")), matrix);
  }
  omp_set_num_threads(threads_before);
  EXPECT_TRUE(expected_text.starts_with("%%MatrixMarket matrix coordinate real general\n3000 50000 "));
  expect_same_matrix(read_matrix_market<double, std::int32_t>(dir.file("m.mtx")), matrix);
}

TEST(MatrixMarketRoundTripLarge, SpecialValuesSurvive) {
  CsrMatrix<double> m;
  m.rows = 1;
  m.cols = 6;
  m.row_ptr = {0, 6};
  m.col_idx = {0, 1, 2, 3, 4, 5};
  m.values = {std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
              -0.0, 0.1, 1.0 / 3.0, std::numeric_limits<double>::infinity()};
  ScratchDir dir;
  write_matrix_market(dir.file("s.mtx"), m);
  expect_same_matrix(read_matrix_market<double>(dir.file("s.mtx")), m);
}

// ---- read_matrix / write_matrix dispatch ---------------------------------------------------------

TEST(ReadMatrix, ChoosesTheReaderByExtension) {
  ScratchDir dir;
  const auto mtx = dir.write("a.MTX", kGeneral);
  expect_same_matrix(read_matrix<double>(mtx), general_matrix());
  write_matrix(dir.file("b.smtx"), general_matrix());
  const auto topology = read_matrix<double>(dir.file("b.smtx"));
  EXPECT_EQ(topology.row_ptr, general_matrix().row_ptr);
  EXPECT_EQ(topology.col_idx, general_matrix().col_idx);
}

TEST(ReadMatrix, UnknownExtensionNamesTheAcceptedOnes) {
  ScratchDir dir;
  const auto path = dir.write("m.txt", kGeneral);
  try {
    read_matrix<double>(path);
    FAIL() << "no exception";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find(".mtx, .mtx.gz, .smtx or .smtx.gz"), std::string::npos) << what;
  }
  EXPECT_THROW(write_matrix(dir.file("m.csv"), general_matrix()), Error);
}

// ---- test data files ----------------------------------------------------------------------------

const std::filesystem::path kDataDir = TCSPARSE_TEST_DATA_DIR;

TEST(MatrixMarketData, ReadsTheSmallValidFiles) {
  const auto general = read_matrix_market<double>(kDataDir / "general_3x4.mtx");
  expect_same_matrix(general, general_matrix());
  const auto crlf = read_matrix_market<double>(kDataDir / "general_3x4_crlf.mtx");
  expect_same_matrix(crlf, general_matrix());
  const auto gz = read_matrix_market<double>(kDataDir / "general_3x4.mtx.gz");
  expect_same_matrix(gz, general_matrix());
  const auto symmetric = read_matrix_market<double>(kDataDir / "symmetric_pattern_5x5.mtx");
  EXPECT_EQ(symmetric.nnz(), 13);
  EXPECT_NO_THROW(symmetric.validate());
}

TEST(MatrixMarketData, RefusesTheMalformedFiles) {
  const struct {
    const char* file;
    std::int64_t line;
    const char* fragment;
  } cases[] = {
      {"bad_complex.mtx", 1, "complex values are not supported"},
      {"bad_array.mtx", 1, "array (dense) format is not supported"},
      {"bad_index_zero.mtx", 5, "row index 0 is out of range"},
      {"bad_too_few.mtx", 6, "expected 5 entries"},
      {"bad_truncated.mtx", 6, "missing value"},
      {"bad_gzip.mtx.gz", 0, "gzip data"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const auto path = kDataDir / c.file;
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    expect_parse_error([&] { read_matrix_market<double>(path); }, path.string(), c.line, c.fragment);
  }
}

// ---- real matrices ------------------------------------------------------------------------------

TEST(MatrixMarketRealFiles, ShapeAndNonzerosMatchTheManifest) {
  const auto dir = test::real_matrix_dir();
  if (dir.empty()) GTEST_SKIP() << "no matrix directory (set TCSPARSE_MATRIX_DIR)";
  const auto manifest = test::read_manifest(dir);
  // Up to 4 files of every symmetry/field combination (complex excluded: refused below).
  std::map<std::string, int> taken;
  int checked = 0;
  for (const auto& entry : manifest) {
    if (entry.kind == "dlmc" || entry.symmetry.find("complex") != std::string::npos) continue;
    if (taken[entry.symmetry]++ >= 4) continue;
    SCOPED_TRACE(entry.file);
    ReadReport report;
    const auto m = read_matrix<double>(dir / entry.file, {}, &report);
    EXPECT_EQ(m.rows, entry.rows);
    EXPECT_EQ(m.cols, entry.cols);
    EXPECT_EQ(m.nnz(), entry.nnz_expanded);
    EXPECT_EQ(report.entries_in_file, entry.nnz_stored);
    EXPECT_EQ(entry.symmetry.rfind(report.symmetry, 0), 0u) << report.symmetry;
    EXPECT_NO_THROW(m.validate());
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(MatrixMarketRealFiles, ComplexFileIsRefused) {
  const auto dir = test::real_matrix_dir();
  if (dir.empty()) GTEST_SKIP() << "no matrix directory (set TCSPARSE_MATRIX_DIR)";
  for (const auto& entry : test::read_manifest(dir)) {
    if (entry.symmetry.find("complex") == std::string::npos) continue;
    const auto path = dir / entry.file;
    expect_parse_error([&] { read_matrix<double>(path); }, path.string(), 1, "complex");
    return;
  }
  GTEST_SKIP() << "no complex file in the manifest";
}

}  // namespace
}  // namespace tcsparse

// ---- hardening (issue 14): streaming reads, memory, gzip members, mirrored entries ----------

namespace tcsparse {
namespace {

std::string gzip_member(const std::string& text) {
  test::ScratchDir dir;
  return test::read_bytes(dir.write("member.gz", text));
}

TEST(MatrixMarketHardening, TwoMemberGzipWhoseTextIsManyTimesItsSizeReadsLikeThePlainFile) {
  // Member 1: the banner and a long comment (compresses > 100:1); member 2: the rest. The old
  // reader guessed 4x the compressed size and lost what it had inflated when growing.
  const std::string head = "%%MatrixMarket matrix coordinate real general\n%" +
                           std::string(200000, 'x') + "\n";
  const std::string body = "3 3 3\n1 1 1.5\n2 2 2.5\n3 1 -3\n";
  test::ScratchDir dir;
  const auto plain = dir.write("plain.mtx", head + body);
  const auto gz = dir.file("two.mtx.gz");
  {
    std::ofstream out(gz, std::ios::binary);
    out << gzip_member(head) << gzip_member(body);
  }
  const auto expected = read_matrix_market<double>(plain);
  expect_same_matrix(read_matrix_market<double>(gz), expected);
  // bgzip-like: many small members.
  const auto many = dir.file("many.mtx.gz");
  {
    std::ofstream out(many, std::ios::binary);
    const std::string text = head + body;
    for (std::size_t at = 0; at < text.size(); at += 1000) out << gzip_member(text.substr(at, 1000));
  }
  expect_same_matrix(read_matrix_market<double>(many), expected);
}

TEST(MatrixMarketHardening, SmallReadBufferGivesTheSameMatrixAndLineNumbers) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n% c\n\n40 30 200\n";
  for (int k = 0; k < 200; ++k) {
    text += std::to_string(k % 40 + 1) + " " + std::to_string(k * 7 % 30 + 1) + " " +
            std::to_string(k) + ".5\n";
    if (k % 13 == 0) text += "% a comment between entries\n";
  }
  ReadOptions options;
  options.threads = 3;
  const auto expected = detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options);
  for (const std::size_t buffer : {std::size_t{64}, std::size_t{100}, std::size_t{1000}}) {
    detail::MatrixMarketTuning tuning;
    tuning.read_buffer_bytes = buffer;
    tuning.min_chunk_bytes = 16;
    expect_same_matrix(
        detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options, nullptr, tuning),
        expected);
    // An error late in the text names its line, whatever the buffer.
    const std::string bad = text + "1 99 1\n";
    const auto bad_line = static_cast<std::int64_t>(std::count(bad.begin(), bad.end(), '\n'));
    expect_parse_error(
        [&] {
          detail::parse_matrix_market_text<double, std::int32_t>(bad, "t", options, nullptr, tuning);
        },
        "t", bad_line, "more entries than the 200 declared");
  }
}

TEST(MatrixMarketHardening, GzipTextGrowsTheEntryArraysInPiecesWithManyThreads) {
  // Gzip text has no size bound to reserve for up front: the arrays grow as pieces arrive (the
  // stored entries copied in parallel). A tiny buffer and many threads give the same matrix.
  const auto original = random_matrix<double, std::int32_t>(500, 700, 120000, 21);
  ScratchDir dir;
  write_matrix_market(dir.file("m.mtx"), original);
  write_matrix_market(dir.file("m.mtx.gz"), original);
  const std::string plain = test::read_bytes(dir.file("m.mtx"));
  const std::string gzip = test::read_bytes(dir.file("m.mtx.gz"));
  ReadOptions options;
  options.threads = 8;
  for (const std::size_t buffer : {std::size_t{4096}, std::size_t{1} << 20}) {
    SCOPED_TRACE(buffer);
    detail::MatrixMarketTuning tuning;
    tuning.read_buffer_bytes = buffer;
    tuning.min_chunk_bytes = 64;
    for (const std::string* text : {&plain, &gzip})
      expect_same_matrix(detail::parse_matrix_market_text<double, std::int32_t>(
                             *text, "t", options, nullptr, tuning),
                         original);
  }
}

TEST(MatrixMarketHardening, GzipCutAfterManyPiecesIsAClearErrorWithTheNextPieceInflatedAhead) {
  // The next piece is inflated on another thread while one is parsed: its failure surfaces as
  // the same ParseError, whatever the buffer.
  const auto original = random_matrix<double, std::int32_t>(300, 300, 20000, 5);
  ScratchDir dir;
  write_matrix_market(dir.file("m.mtx.gz"), original);
  const std::string gzip = test::read_bytes(dir.file("m.mtx.gz"));
  const std::string cut = gzip.substr(0, gzip.size() * 2 / 3);
  for (const std::size_t buffer : {std::size_t{256}, std::size_t{4096}, std::size_t{1} << 20}) {
    SCOPED_TRACE(buffer);
    detail::MatrixMarketTuning tuning;
    tuning.read_buffer_bytes = buffer;
    expect_same_matrix(
        detail::parse_matrix_market_text<double, std::int32_t>(gzip, "t", {}, nullptr, tuning),
        original);
    expect_parse_error(
        [&] { detail::parse_matrix_market_text<double, std::int32_t>(cut, "t", {}, nullptr, tuning); },
        "t", 0, "gzip data ends early");
  }
}

TEST(MatrixMarketHardening, LineLongerThanTheReadBufferIsAClearError) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n1 1 1\n%" +
                           std::string(500, 'x') + "\n1 1 1\n";
  detail::MatrixMarketTuning tuning;
  tuning.read_buffer_bytes = 128;
  expect_parse_error(
      [&] { detail::parse_matrix_market_text<double, std::int32_t>(text, "t", {}, nullptr, tuning); },
      "t", 3, "longer than the");
}

TEST(MatrixMarketHardening, BinaryFileIsRefusedAtTheBanner) {
  test::ScratchDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.file("zero.mtx"));
  expect_parse_error([&] { read_matrix_market<double>(dir.file("zero.mtx")); },
                     dir.file("zero.mtx").string(), 1, "expected the banner");
}

TEST(MatrixMarketHardening, DeclaredShapeBeyondTheMemoryLimitIsRefusedBeforeAllocating) {
  test::ScratchDir dir;
  const auto path = dir.write("huge.mtx",
                              "%%MatrixMarket matrix coordinate real general\n"
                              "2000000000 2000000000 1\n1 1 1\n");
  ::setenv("TCSPARSE_MEMORY_LIMIT", "256M", 1);
  try {
    read_matrix_market<double>(path);
    ADD_FAILURE() << "expected HostMemoryError";
  } catch (const HostMemoryError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind(path.string() + ":2: ", 0), 0u) << what;
    EXPECT_NE(what.find("needs about 16.0 GB"), std::string::npos) << what;
    EXPECT_EQ(error.requested_bytes(), 2 * (std::uint64_t{2000000000} + 1) * 4 + 1 * 16 + 1 * 28);
    EXPECT_LE(error.available_bytes(), std::uint64_t{256} << 20);
  }
  ::unsetenv("TCSPARSE_MEMORY_LIMIT");
}

TEST(MatrixMarketHardening, LargeDeclaredShapeIsAnnouncedBeforeAllocation) {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n1000 1000 1\n1 1 1\n";
  std::vector<std::string> notices;
  ReadOptions options;
  options.on_notice = [&](const std::string& message) { notices.push_back(message); };
  detail::MatrixMarketTuning tuning;
  tuning.notice_bytes = 4096;  // 2 x 1001 x 4 bytes of row offsets exceed it
  detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options, nullptr, tuning);
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_NE(notices[0].find("t:2: the declared 1000 x 1000 matrix"), std::string::npos) << notices[0];
  notices.clear();
  detail::parse_matrix_market_text<double, std::int32_t>(text, "t", options);  // default: 1 GiB
  EXPECT_TRUE(notices.empty());
}

TEST(MatrixMarketHardening, DeclaredEntriesAreNotReservedBeyondWhatTheTextHolds) {
  // 2e9 declared entries in a few bytes: refused for the count, not for memory, and fast.
  const std::string text = "%%MatrixMarket matrix coordinate real general\n5 5 2000000000\n1 1 1\n";
  expect_text_error(text, 3, "expected 2000000000 entries");
}

TEST(MatrixMarketHardening, SymmetricFileStoringAnEntryAndItsMirrorIsRefusedNamingBothLines) {
  for (const char* symmetry : {"symmetric", "skew-symmetric", "hermitian"}) {
    const std::string text = std::string("%%MatrixMarket matrix coordinate real ") + symmetry +
                             "\n3 3 3\n2 1 5\n3 2 1\n% between\n1 2 5\n";
    expect_text_error(text, 6, "entry (2, 1) on line 3 and its mirror (1, 2) on line 6 are both stored");
  }
}

TEST(MatrixMarketHardening, UpperTriangleEntriesOfASymmetricFileAreMirroredAndAnnounced) {
  const std::string upper = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n1 3 5\n";
  const std::string lower = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 4\n3 1 5\n";
  std::vector<std::string> notices;
  ReadOptions options;
  options.on_notice = [&](const std::string& message) { notices.push_back(message); };
  const auto from_upper = detail::parse_matrix_market_text<double, std::int32_t>(upper, "t", options);
  expect_same_matrix(from_upper, detail::parse_matrix_market_text<double, std::int32_t>(lower, "t", options));
  ASSERT_EQ(notices.size(), 1u);  // only the upper file is announced
  EXPECT_NE(notices[0].find("t:4: 1 of the 2 entries"), std::string::npos) << notices[0];
  EXPECT_NE(notices[0].find("above the diagonal"), std::string::npos) << notices[0];
  // Duplicates within one triangle are still summed (the Matrix Market convention).
  const std::string duplicate = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n2 1 2\n";
  const auto summed = detail::parse_matrix_market_text<double, std::int32_t>(duplicate, "t", {});
  EXPECT_EQ(summed.values, (std::vector<double>{3.0, 3.0}));
}

TEST(MatrixMarketHardening, NonFiniteValuesAreReadAsTheyAre) {
  const std::string text =
      "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 nan\n1 2 -inf\n2 2 inf\n";
  const auto matrix = detail::parse_matrix_market_text<double, std::int32_t>(text, "t", {});
  ASSERT_EQ(matrix.values.size(), 3u);
  EXPECT_TRUE(std::isnan(matrix.values[0]));
  EXPECT_EQ(matrix.values[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(matrix.values[2], std::numeric_limits<double>::infinity());
}

}  // namespace
}  // namespace tcsparse
