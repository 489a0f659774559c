// CsrMatrix::validate, csr_from_coo, canonicalize, the conversions and row_length_stats.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/csr_assembly.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {
namespace {

/// 3 x 4:  [ 1 . 2 . ]
///         [ . . . . ]
///         [ 3 4 . 5 ]
CsrMatrix<double> small_matrix() {
  CsrMatrix<double> m;
  m.rows = 3;
  m.cols = 4;
  m.row_ptr = {0, 2, 2, 5};
  m.col_idx = {0, 2, 0, 1, 3};
  m.values = {1, 2, 3, 4, 5};
  return m;
}

void expect_validation_error(const CsrMatrix<double>& m, const std::string& fragment) {
  try {
    m.validate();
    ADD_FAILURE() << "validate() accepted a matrix that should fail with '" << fragment << "'";
  } catch (const ValidationError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos)
        << "message '" << error.what() << "' lacks '" << fragment << "'";
  }
}

/// Random COO entries with duplicates, values in [-1, -0.1] U [0.1, 1].
CooMatrix<double, std::int32_t> random_coo(std::int32_t rows, std::int32_t cols,
                                           std::size_t entries, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::int32_t> row(0, rows - 1), col(0, cols - 1);
  std::uniform_real_distribution<double> magnitude(0.1, 1.0);
  CooMatrix<double, std::int32_t> coo;
  coo.rows = rows;
  coo.cols = cols;
  for (std::size_t e = 0; e < entries; ++e) {
    coo.row_idx.push_back(row(random));
    coo.col_idx.push_back(col(random));
    coo.values.push_back(random() % 2 ? magnitude(random) : -magnitude(random));
  }
  return coo;
}

/// The obvious serial construction: a sorted map, duplicates summed in entry order.
CsrMatrix<double> reference_csr(const CooMatrix<double, std::int32_t>& coo) {
  std::map<std::pair<std::int32_t, std::int32_t>, double> entries;
  for (std::size_t e = 0; e < coo.size(); ++e) entries[{coo.row_idx[e], coo.col_idx[e]}] += coo.values[e];
  CsrMatrix<double> m;
  m.rows = coo.rows;
  m.cols = coo.cols;
  m.row_ptr.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
  for (const auto& [position, value] : entries) {
    ++m.row_ptr[static_cast<std::size_t>(position.first) + 1];
    m.col_idx.push_back(position.second);
    m.values.push_back(value);
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(coo.rows); ++r) m.row_ptr[r + 1] += m.row_ptr[r];
  return m;
}

template <typename A, typename B>
void expect_same_matrix(const A& a, const B& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);
}

// ---- validate -----------------------------------------------------------------------------------

TEST(CsrValidate, AcceptsAValidMatrix) { EXPECT_NO_THROW(small_matrix().validate()); }

TEST(CsrValidate, AcceptsEmptyShapes) {
  EXPECT_NO_THROW(CsrMatrix<double>{}.validate());
  CsrMatrix<double> no_entries;
  no_entries.rows = 3;
  no_entries.cols = 0;
  no_entries.row_ptr = {0, 0, 0, 0};
  EXPECT_NO_THROW(no_entries.validate());
}

TEST(CsrValidate, RefusesNegativeRows) {
  auto m = small_matrix();
  m.rows = -1;
  expect_validation_error(m, "negative number of rows: -1");
}

TEST(CsrValidate, RefusesNegativeColumns) {
  auto m = small_matrix();
  m.cols = -4;
  expect_validation_error(m, "negative number of columns: -4");
}

TEST(CsrValidate, RefusesRowPtrOfTheWrongSize) {
  auto m = small_matrix();
  m.row_ptr.pop_back();
  expect_validation_error(m, "row_ptr has 3 entries, expected rows + 1 = 4");
}

TEST(CsrValidate, RefusesRowPtrNotStartingAtZero) {
  auto m = small_matrix();
  m.row_ptr[0] = 1;
  expect_validation_error(m, "row_ptr[0] is 1, expected 0");
}

TEST(CsrValidate, RefusesDecreasingRowPtrNamingTheRow) {
  auto m = small_matrix();
  m.row_ptr = {0, 3, 2, 5};
  expect_validation_error(m, "row_ptr decreases at row 1: row_ptr[1] = 3 > row_ptr[2] = 2");
}

TEST(CsrValidate, RefusesRowPtrNotEndingAtNnz) {
  auto m = small_matrix();
  m.row_ptr.back() = 4;
  expect_validation_error(m, "row_ptr[rows] = 4, expected nnz = 5");
}

TEST(CsrValidate, RefusesValuesAndColumnsOfDifferentLengths) {
  auto m = small_matrix();
  m.values.pop_back();
  expect_validation_error(m, "values has 4 entries but col_idx has 5");
}

TEST(CsrValidate, RefusesAColumnPastTheLastNamingTheRow) {
  auto m = small_matrix();
  m.col_idx[4] = 4;
  expect_validation_error(m, "row 2: column 4 is out of range [0, 4)");
}

TEST(CsrValidate, RefusesANegativeColumn) {
  auto m = small_matrix();
  m.col_idx[0] = -1;
  expect_validation_error(m, "row 0: column -1 is out of range [0, 4)");
}

TEST(CsrValidate, RefusesUnsortedColumnsNamingTheRow) {
  auto m = small_matrix();
  m.col_idx = {0, 2, 1, 0, 3};
  expect_validation_error(m, "row 2: column 0 follows column 1 (columns must be sorted within a row)");
}

TEST(CsrValidate, RefusesDuplicateColumnsNamingTheRow) {
  auto m = small_matrix();
  m.col_idx = {0, 2, 0, 1, 1};
  expect_validation_error(m, "row 2: column 1 appears twice");
}

TEST(CsrValidate, FindsTheFirstBrokenRowOfALargeMatrix) {
  CsrMatrix<double> m;
  m.rows = 200000;
  m.cols = 10;
  for (std::int32_t r = 0; r < m.rows; ++r) {
    m.col_idx.push_back(1);
    m.col_idx.push_back(5);
    m.row_ptr.push_back(static_cast<std::int32_t>(m.col_idx.size()));
  }
  m.values.assign(m.col_idx.size(), 0.5);
  ASSERT_NO_THROW(m.validate());
  m.col_idx[2 * 150001 + 1] = 0;
  m.col_idx[2 * 190000 + 1] = 0;
  expect_validation_error(m, "row 150001: column 0 follows column 1");
}

// ---- csr_from_coo -------------------------------------------------------------------------------

TEST(CsrFromCoo, SortsEntriesByRowThenColumn) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 3;
  coo.cols = 4;
  coo.row_idx = {2, 0, 2, 2, 0};
  coo.col_idx = {3, 2, 0, 1, 0};
  coo.values = {5, 2, 3, 4, 1};
  expect_same_matrix(csr_from_coo(coo), small_matrix());
}

TEST(CsrFromCoo, SumsDuplicatesByDefault) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {1, 0, 1, 1};
  coo.col_idx = {1, 0, 1, 1};
  coo.values = {0.5, 7, 0.25, 2};
  const auto m = csr_from_coo(coo);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 1, 2}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{7, 2.75}));
}

TEST(CsrFromCoo, DuplicatePolicyErrorNamesThePosition) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 5;
  coo.cols = 5;
  coo.row_idx = {0, 3, 3};
  coo.col_idx = {1, 4, 4};
  coo.values = {1, 2, 3};
  try {
    csr_from_coo(coo, DuplicatePolicy::error);
    FAIL() << "no exception";
  } catch (const ValidationError& error) {
    EXPECT_NE(std::string(error.what()).find("duplicate entry at row 3, column 4"), std::string::npos)
        << error.what();
  }
}

TEST(CsrFromCoo, DuplicatePolicyErrorAcceptsDistinctEntries) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {1, 0};
  coo.col_idx = {0, 0};
  coo.values = {1, 2};
  EXPECT_EQ(csr_from_coo(coo, DuplicatePolicy::error).nnz(), 2);
}

TEST(CsrFromCoo, RefusesAnIndexOutOfRangeNamingTheEntry) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 3;
  coo.row_idx = {0, 1, 1};
  coo.col_idx = {0, 2, 3};
  coo.values = {1, 2, 3};
  try {
    csr_from_coo(coo);
    FAIL() << "no exception";
  } catch (const ValidationError& error) {
    EXPECT_NE(std::string(error.what()).find("entry 2 (row 1, column 3) is out of range for a 2 x 3"),
              std::string::npos)
        << error.what();
  }
  coo.col_idx[2] = 0;
  coo.row_idx[0] = -1;
  EXPECT_THROW(csr_from_coo(coo), ValidationError);
}

TEST(CsrFromCoo, RefusesArraysOfDifferentLengths) {
  CooMatrix<double, std::int32_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {0, 1};
  coo.col_idx = {0};
  coo.values = {1, 2};
  EXPECT_THROW(csr_from_coo(coo), ValidationError);
}

TEST(CsrFromCoo, KeepsEmptyRowsAndColumns) {
  CooMatrix<float, std::int64_t> coo;
  coo.rows = 4;
  coo.cols = 6;
  coo.row_idx = {3};
  coo.col_idx = {5};
  coo.values = {1.5f};
  const auto m = csr_from_coo(coo);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int64_t>{0, 0, 0, 0, 1}));
  EXPECT_NO_THROW(m.validate());
}

TEST(CsrFromCoo, LargeRandomInputMatchesTheSerialConstruction) {
  // Enough entries for the parallel path; about one in three positions repeats.
  const auto coo = random_coo(3000, 2000, 400000, 99);
  const auto m = csr_from_coo(coo);
  EXPECT_NO_THROW(m.validate());
  expect_same_matrix(m, reference_csr(coo));
}

TEST(CsrFromCoo, WorksWithEveryValueAndIndexType) {
  CooMatrix<bfloat16, std::int64_t> coo;
  coo.rows = 2;
  coo.cols = 2;
  coo.row_idx = {1, 1};
  coo.col_idx = {0, 0};
  coo.values = {bfloat16(1.0f), bfloat16(0.5f)};
  const auto m = csr_from_coo(coo);
  ASSERT_EQ(m.values.size(), 1u);
  EXPECT_EQ(static_cast<float>(m.values[0]), 1.5f);
}

// ---- symmetric assembly (used by the Matrix Market reader) --------------------------------------

TEST(AssembleCsr, SymmetricMirrorsOffDiagonalEntriesOnly) {
  const std::vector<std::int32_t> rows{0, 2, 2}, cols{0, 0, 1};
  const std::vector<double> values{4, 1.5, -2};
  detail::AssemblyOptions options;
  options.mirror = detail::Mirror::symmetric;
  const auto m = detail::assemble_csr<double, std::int32_t>(3, 3, rows, cols, values, options);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 2, 3, 5}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 2, 2, 0, 1}));
  EXPECT_EQ(m.values, (std::vector<double>{4, 1.5, -2, 1.5, -2}));
}

TEST(AssembleCsr, SkewSymmetricNegatesTheMirroredEntries) {
  const std::vector<std::int32_t> rows{1, 2}, cols{0, 1};
  const std::vector<half> values{half(0.5f), half(-3.0f)};
  detail::AssemblyOptions options;
  options.mirror = detail::Mirror::skew_symmetric;
  const auto m = detail::assemble_csr<half, std::int32_t>(3, 3, rows, cols, values, options);
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{1, 0, 2, 1}));
  ASSERT_EQ(m.values.size(), 4u);
  EXPECT_EQ(static_cast<float>(m.values[0]), -0.5f);
  EXPECT_EQ(static_cast<float>(m.values[1]), 0.5f);
  EXPECT_EQ(static_cast<float>(m.values[2]), 3.0f);
  EXPECT_EQ(static_cast<float>(m.values[3]), -3.0f);
}

// ---- canonicalize -------------------------------------------------------------------------------

TEST(Canonicalize, SortsRowsAndSumsDuplicates) {
  CsrMatrix<double> m;
  m.rows = 2;
  m.cols = 5;
  m.row_ptr = {0, 4, 6};
  m.col_idx = {3, 1, 3, 0, 4, 2};
  m.values = {1, 2, 10, 3, 4, 5};
  canonicalize(m);
  EXPECT_EQ(m.row_ptr, (std::vector<std::int32_t>{0, 3, 5}));
  EXPECT_EQ(m.col_idx, (std::vector<std::int32_t>{0, 1, 3, 2, 4}));
  EXPECT_EQ(m.values, (std::vector<double>{3, 2, 11, 5, 4}));
  EXPECT_NO_THROW(m.validate());
}

TEST(Canonicalize, LeavesACanonicalMatrixUnchanged) {
  auto m = small_matrix();
  canonicalize(m);
  expect_same_matrix(m, small_matrix());
}

TEST(Canonicalize, RefusesInconsistentRowPtr) {
  auto m = small_matrix();
  m.row_ptr = {0, 3, 2, 5};
  EXPECT_THROW(canonicalize(m), ValidationError);
}

TEST(Canonicalize, RefusesAColumnOutOfRange) {
  auto m = small_matrix();
  m.col_idx[1] = 9;
  EXPECT_THROW(canonicalize(m), ValidationError);
}

// ---- conversions --------------------------------------------------------------------------------

TEST(ConvertValues, RoundsToTheTargetType) {
  auto m = small_matrix();
  m.values[0] = 0.1;
  const auto f = convert_values<float>(m);
  EXPECT_EQ(f.values[0], 0.1f);
  const auto h = convert_values<half>(m);
  EXPECT_EQ(h.values[0].bits, half(0.1f).bits);
  const auto b = convert_values<bfloat16>(f);
  EXPECT_EQ(b.values[0].bits, bfloat16(0.1f).bits);
  EXPECT_EQ(f.row_ptr, m.row_ptr);
  EXPECT_EQ(f.col_idx, m.col_idx);
}

TEST(ConvertValues, WideningIsExact) {
  CsrMatrix<half> m;
  m.rows = 1;
  m.cols = 2;
  m.row_ptr = {0, 2};
  m.col_idx = {0, 1};
  m.values = {half(0.1f), half(-65504.0f)};
  const auto d = convert_values<double>(m);
  EXPECT_EQ(d.values[0], static_cast<double>(m.values[0]));
  EXPECT_EQ(d.values[1], -65504.0);
  const auto back = convert_values<half>(d);
  EXPECT_EQ(back.values[0].bits, m.values[0].bits);
}

TEST(ConvertIndices, WidensAndNarrowsWhenItFits) {
  const auto wide = convert_indices<std::int64_t>(small_matrix());
  EXPECT_EQ(wide.row_ptr, (std::vector<std::int64_t>{0, 2, 2, 5}));
  const auto narrow = convert_indices<std::int32_t>(wide);
  expect_same_matrix(narrow, small_matrix());
}

TEST(ConvertIndices, RefusesColumnsBeyondInt32) {
  CsrMatrix<double, std::int64_t> m;
  m.rows = 1;
  m.cols = std::int64_t{std::numeric_limits<std::int32_t>::max()} + 1;
  m.row_ptr = {0, 1};
  m.col_idx = {m.cols - 1};
  m.values = {1.0};
  ASSERT_NO_THROW(m.validate());
  try {
    convert_indices<std::int32_t>(m);
    FAIL() << "no exception";
  } catch (const IndexOverflowError& error) {
    EXPECT_NE(std::string(error.what()).find("2147483648 columns do not fit 32-bit indices"),
              std::string::npos)
        << error.what();
  }
}

TEST(ConvertIndices, RefusesRowsBeyondInt32) {
  CsrMatrix<float, std::int64_t> m;
  m.rows = std::int64_t{1} << 31;
  m.cols = 1;
  // row_ptr is not built (it would take 16 GiB): the check must come before any copying.
  EXPECT_THROW(convert_indices<std::int32_t>(m), IndexOverflowError);
}

// ---- row_length_stats ---------------------------------------------------------------------------

TEST(RowLengthStats, SummarisesRowLengths) {
  CsrMatrix<double> m;
  m.rows = 5;
  m.cols = 10;
  m.row_ptr = {0, 0, 1, 4, 8, 16};  // lengths 0, 1, 3, 4, 8
  m.col_idx.resize(16);
  for (std::size_t r = 0; r < 5; ++r)
    for (auto k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      m.col_idx[static_cast<std::size_t>(k)] = k - m.row_ptr[r];
  m.values.assign(16, 1.0);
  const auto stats = row_length_stats(m);
  EXPECT_EQ(stats.rows, 5);
  EXPECT_EQ(stats.cols, 10);
  EXPECT_EQ(stats.nnz, 16);
  EXPECT_EQ(stats.empty_rows, 1);
  EXPECT_EQ(stats.min_length, 0);
  EXPECT_EQ(stats.max_length, 8);
  EXPECT_DOUBLE_EQ(stats.mean_length, 3.2);
  // population variance: (0 + 1 + 9 + 16 + 64) / 5 - 3.2^2 = 18 - 10.24 = 7.76
  EXPECT_NEAR(stats.stddev_length, std::sqrt(7.76), 1e-12);
  // buckets: {0}, {1}, {2,3}, {4..7}, {8..15}
  EXPECT_EQ(stats.log2_histogram, (std::vector<std::int64_t>{1, 1, 1, 1, 1}));
}

TEST(RowLengthStats, EqualRowsHaveNoSpread) {
  const auto coo = [] {
    CooMatrix<double, std::int32_t> c;
    c.rows = 100000;
    c.cols = 3;
    for (std::int32_t r = 0; r < c.rows; ++r)
      for (std::int32_t k = 0; k < 3; ++k) {
        c.row_idx.push_back(r);
        c.col_idx.push_back(k);
        c.values.push_back(0.5);
      }
    return c;
  }();
  const auto stats = row_length_stats(csr_from_coo(coo));
  EXPECT_EQ(stats.min_length, 3);
  EXPECT_EQ(stats.max_length, 3);
  EXPECT_EQ(stats.empty_rows, 0);
  EXPECT_DOUBLE_EQ(stats.stddev_length, 0.0);
  EXPECT_EQ(stats.log2_histogram, (std::vector<std::int64_t>{0, 0, 100000}));
}

}  // namespace
}  // namespace tcsparse
