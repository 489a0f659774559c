// The synthetic matrix generators, generate() by name, and the shared catalogue of test matrices
// (tests/common/test_matrices.hpp).
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"

namespace tcsparse {
namespace {

/// Whether `text` contains `part`, with both in the failure message.
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

std::vector<std::int64_t> lengths_of(const GeneratedMatrix& A) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(A.rows));
  for (std::int32_t i = 0; i < A.rows; ++i) lengths[i] = A.row_length(i);
  return lengths;
}

double mean_of(const std::vector<std::int64_t>& v) {
  double sum = 0.0;
  for (const auto x : v) sum += static_cast<double>(x);
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

double stddev_of(const std::vector<std::int64_t>& v) {
  const double mean = mean_of(v);
  double sum = 0.0;
  for (const auto x : v) sum += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  return v.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(v.size()));
}

bool same_matrix(const GeneratedMatrix& a, const GeneratedMatrix& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values == b.values;
}

/// Every generator with small parameters, as a function of the seed.
struct GeneratorCase {
  std::string name;
  std::function<GeneratedMatrix(std::uint64_t)> make;
};

std::vector<GeneratorCase> generator_cases() {
  return {
      {"stencil2d", [](std::uint64_t s) { return generate_stencil_2d_5pt(30, 20, s); }},
      {"stencil3d", [](std::uint64_t s) { return generate_stencil_3d_27pt(9, 8, 7, s); }},
      {"rmat", [](std::uint64_t s) { return generate_rmat(11, 8, s); }},
      {"random_uniform",
       [](std::uint64_t s) {
         return generate_random_rows(700, 900, RowLengthDistribution::uniform, 0, 60, s);
       }},
      {"random_normal",
       [](std::uint64_t s) {
         return generate_random_rows(700, 900, RowLengthDistribution::normal, 10, 150, s);
       }},
      {"random_power_law",
       [](std::uint64_t s) {
         return generate_random_rows(700, 900, RowLengthDistribution::power_law, 1, 900, s);
       }},
      {"banded", [](std::uint64_t s) { return generate_banded(500, 6, s); }},
      {"short", [](std::uint64_t s) { return generate_short_rows(800, 300, s); }},
      {"long", [](std::uint64_t s) { return generate_long_rows(40, 1000, 700, s); }},
      {"pruned", [](std::uint64_t s) { return generate_pruned_weights(128, 512, 0.8, s); }},
      {"replicate",
       [](std::uint64_t s) {
         return generate_block_diagonal_replica(generate_banded(30, 2, 99), 2000, s);
       }},
  };
}

class EveryGenerator : public ::testing::TestWithParam<GeneratorCase> {};
INSTANTIATE_TEST_SUITE_P(Generators, EveryGenerator, ::testing::ValuesIn(generator_cases()),
                         [](const auto& param_info) { return param_info.param.name; });

TEST_P(EveryGenerator, ProducesAValidMatrix) {
  const auto A = GetParam().make(1);
  EXPECT_NO_THROW(A.validate());
  EXPECT_GT(A.nnz(), 0);
}

TEST_P(EveryGenerator, IsDeterministicForASeed) {
  EXPECT_TRUE(same_matrix(GetParam().make(5), GetParam().make(5)));
}

TEST_P(EveryGenerator, DiffersBetweenSeeds) {
  const auto a = GetParam().make(5), b = GetParam().make(6);
  EXPECT_NE(a.values, b.values);
}

TEST_P(EveryGenerator, GivesTheSameMatrixForOneThreadAndMany) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = GetParam().make(3);
  omp_set_num_threads(std::max(threads, 4));
  const auto many = GetParam().make(3);
  omp_set_num_threads(threads);
  EXPECT_TRUE(same_matrix(one, many));
}

TEST_P(EveryGenerator, DrawsValuesInTheTwoIntervalsWithBothSigns) {
  const auto A = GetParam().make(2);
  std::int64_t negatives = 0;
  for (const double v : A.values) {
    ASSERT_GE(std::fabs(v), 0.1) << v;
    ASSERT_LE(std::fabs(v), 1.0) << v;
    negatives += v < 0;
  }
  EXPECT_GT(negatives, A.nnz() / 4);
  EXPECT_LT(negatives, 3 * A.nnz() / 4);
  EXPECT_GT(std::set<double>(A.values.begin(), A.values.end()).size(),
            static_cast<std::size_t>(A.nnz()) * 9 / 10);
}

// ---- stencils ------------------------------------------------------------------------------

TEST(Stencil2d, HasNnzFiveNxNyMinusTwoNxMinusTwoNy) {
  for (const auto& [nx, ny] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 1}, {1, 7}, {7, 1}, {2, 2}, {30, 20}, {101, 57}}) {
    const auto A = generate_stencil_2d_5pt(nx, ny, 1);
    EXPECT_EQ(A.rows, nx * ny);
    EXPECT_EQ(A.cols, nx * ny);
    EXPECT_EQ(A.nnz(), 5 * nx * ny - 2 * nx - 2 * ny) << nx << "x" << ny;
    EXPECT_NO_THROW(A.validate());
  }
}

TEST(Stencil2d, InteriorRowsHoldTheFiveNeighboursAndCornersThree) {
  const std::int64_t nx = 10, ny = 8;
  const auto A = generate_stencil_2d_5pt(nx, ny, 1);
  const std::int32_t interior = 3 + 4 * nx;  // x = 3, y = 4
  ASSERT_EQ(A.row_length(interior), 5);
  const std::vector<std::int32_t> expected = {interior - 10, interior - 1, interior, interior + 1,
                                              interior + 10};
  EXPECT_EQ(std::vector<std::int32_t>(A.col_idx.begin() + A.row_ptr[interior],
                                      A.col_idx.begin() + A.row_ptr[interior + 1]),
            expected);
  EXPECT_EQ(A.row_length(0), 3);
  EXPECT_EQ(A.row_length(static_cast<std::int32_t>(nx * ny - 1)), 3);
  EXPECT_EQ(A.row_length(5), 4);  // bottom edge
}

TEST(Stencil2d, OfAnEmptyGridIsEmpty) {
  const auto A = generate_stencil_2d_5pt(0, 5, 1);
  EXPECT_EQ(A.rows, 0);
  EXPECT_EQ(A.nnz(), 0);
  EXPECT_NO_THROW(A.validate());
}

TEST(Stencil3d, HasNnzProductOfThreeNMinusTwo) {
  for (const auto& dims : std::vector<std::vector<std::int64_t>>{
           {1, 1, 1}, {1, 1, 9}, {2, 3, 4}, {9, 8, 7}, {16, 16, 16}}) {
    const auto A = generate_stencil_3d_27pt(dims[0], dims[1], dims[2], 1);
    EXPECT_EQ(A.rows, dims[0] * dims[1] * dims[2]);
    EXPECT_EQ(A.nnz(), (3 * dims[0] - 2) * (3 * dims[1] - 2) * (3 * dims[2] - 2));
    EXPECT_NO_THROW(A.validate());
  }
}

TEST(Stencil3d, InteriorRowsHold27EntriesAndCorners8) {
  const std::int64_t nx = 6, ny = 5, nz = 4;
  const auto A = generate_stencil_3d_27pt(nx, ny, nz, 1);
  const auto interior = static_cast<std::int32_t>(2 + nx * (2 + ny * 1));
  EXPECT_EQ(A.row_length(interior), 27);
  EXPECT_EQ(A.col_idx[A.row_ptr[interior]], interior - 1 - nx - nx * ny);
  EXPECT_EQ(A.col_idx[A.row_ptr[interior + 1] - 1], interior + 1 + nx + nx * ny);
  EXPECT_EQ(A.row_length(0), 8);
  EXPECT_EQ(A.row_length(static_cast<std::int32_t>(nx * ny * nz - 1)), 8);
}

TEST(Stencils, HaveASymmetricPattern) {
  for (const auto& A : {generate_stencil_2d_5pt(13, 11, 1), generate_stencil_3d_27pt(5, 6, 7, 1)}) {
    std::set<std::pair<std::int32_t, std::int32_t>> entries;
    for (std::int32_t i = 0; i < A.rows; ++i)
      for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        entries.insert({i, A.col_idx[k]});
    for (const auto& [i, j] : entries) EXPECT_TRUE(entries.count({j, i})) << i << "," << j;
  }
}

// ---- 3D Poisson (7-point Laplacian) -----------------------------------------------------------

/// The entry (row, col) of A, 0 where none is stored.
double entry(const GeneratedMatrix& A, std::int32_t row, std::int32_t col) {
  for (std::int32_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
    if (A.col_idx[k] == col) return A.values[k];
  return 0.0;
}

TEST(Poisson3d, HasSevenPointRowsAndNnzOfTheStencil) {
  for (const auto& dims : std::vector<std::vector<std::int64_t>>{
           {1, 1, 1}, {1, 1, 9}, {2, 3, 4}, {9, 8, 7}, {16, 16, 16}}) {
    const auto A = generate_poisson_3d(dims[0], dims[1], dims[2]);
    const std::int64_t n = dims[0] * dims[1] * dims[2];
    EXPECT_EQ(A.rows, n);
    EXPECT_EQ(A.cols, n);
    // every row holds itself, and each of the 3 axes adds 2 entries per grid line less its ends
    EXPECT_EQ(A.nnz(), n + 2 * (n - n / dims[0]) + 2 * (n - n / dims[1]) + 2 * (n - n / dims[2]));
    EXPECT_NO_THROW(A.validate());
  }
  const std::int64_t nx = 6, ny = 5, nz = 4;
  const auto A = generate_poisson_3d(nx, ny, nz);
  const auto interior = static_cast<std::int32_t>(2 + nx * (2 + ny * 1));
  const std::vector<std::int32_t> expected = {
      static_cast<std::int32_t>(interior - nx * ny), static_cast<std::int32_t>(interior - nx),
      interior - 1, interior, interior + 1, static_cast<std::int32_t>(interior + nx),
      static_cast<std::int32_t>(interior + nx * ny)};
  EXPECT_EQ(std::vector<std::int32_t>(A.col_idx.begin() + A.row_ptr[interior],
                                      A.col_idx.begin() + A.row_ptr[interior + 1]),
            expected);
  EXPECT_EQ(A.row_length(0), 4);  // a corner: itself and 3 neighbours
}

TEST(Poisson3d, IsSymmetricWithSixOnTheDiagonalAndMinusOneOff) {
  const auto A = generate_poisson_3d(7, 5, 6);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const std::int32_t j = A.col_idx[k];
      EXPECT_EQ(A.values[k], i == j ? 6.0 : -1.0) << i << "," << j;
      EXPECT_EQ(entry(A, j, i), A.values[k]) << "A(" << i << "," << j << ") != A(" << j << ","
                                             << i << ")";
    }
}

TEST(Poisson3d, IsDiagonallyDominantStrictlyOnTheBoundary) {
  // Weak diagonal dominance everywhere, strict on boundary rows, and a connected grid: the
  // matrix is irreducibly diagonally dominant, hence (symmetric, positive diagonal) SPD.
  const std::int64_t nx = 5, ny = 4, nz = 3;
  const auto A = generate_poisson_3d(nx, ny, nz);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    double diagonal = 0.0, off_diagonal = 0.0;
    for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      (A.col_idx[k] == i ? diagonal : off_diagonal) += std::fabs(A.values[k]);
    EXPECT_GT(diagonal, 0.0) << i;
    EXPECT_GE(diagonal, off_diagonal) << i;
    const std::int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    const bool boundary =
        x == 0 || x == nx - 1 || y == 0 || y == ny - 1 || z == 0 || z == nz - 1;
    if (boundary) {
      EXPECT_GT(diagonal, off_diagonal) << i;
    }
  }
}

TEST(Poisson3d, HasPositiveEnergyForAnyVector) {
  // x^T A x = sum over grid edges (x_i - x_j)^2 + sum over boundary faces x_i^2 > 0 for x != 0.
  const auto A = generate_poisson_3d(4, 3, 5);
  for (std::uint64_t trial = 0; trial < 8; ++trial) {
    std::vector<double> x(static_cast<std::size_t>(A.rows));
    for (std::size_t i = 0; i < x.size(); ++i)
      x[i] = std::sin(static_cast<double>(i * (trial + 1)) + static_cast<double>(trial));
    double energy = 0.0;
    for (std::int32_t i = 0; i < A.rows; ++i)
      for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
        energy += x[i] * A.values[k] * x[A.col_idx[k]];
    EXPECT_GT(energy, 0.0) << trial;
  }
}

TEST(Poisson3d, ByNameDefaultsNyAndNzToNx) {
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("poisson3d:nx=5")),
                          generate_poisson_3d(5, 5, 5)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("poisson3d:nx=5,ny=3,nz=2")),
                          generate_poisson_3d(5, 3, 2)));
  EXPECT_EQ(generate_poisson_3d(0, 4, 4).nnz(), 0);
  EXPECT_THROW(generate_poisson_3d(3, -1, 5), Error);
  EXPECT_THROW(generate_poisson_3d(2000, 2000, 2000), IndexOverflowError);
}

// ---- R-MAT ---------------------------------------------------------------------------------

TEST(Rmat, IsSquareWithTwoToTheScaleRows) {
  const auto A = generate_rmat(10, 4, 1);
  EXPECT_EQ(A.rows, 1024);
  EXPECT_EQ(A.cols, 1024);
  EXPECT_NO_THROW(A.validate());
}

TEST(Rmat, MergesDuplicatesSoNnzIsAtMostEdgeFactorTimesRows) {
  const auto A = generate_rmat(12, 16, 1);
  EXPECT_LE(A.nnz(), 16 * 4096);
  EXPECT_GT(A.nnz(), 16 * 4096 / 2);  // most edges are distinct at this size
  EXPECT_LT(A.nnz(), 16 * 4096);      // but the heavy corner repeats some
}

TEST(Rmat, HasASkewedDegreeDistribution) {
  const auto A = generate_rmat(14, 16, 1);
  const auto lengths = lengths_of(A);
  const double mean = mean_of(lengths);
  const auto max_length = *std::max_element(lengths.begin(), lengths.end());
  EXPECT_GT(static_cast<double>(max_length), 20.0 * mean);
  const auto empty = std::count(lengths.begin(), lengths.end(), 0);
  EXPECT_GT(empty, A.rows / 20);  // R-MAT leaves many vertices isolated
}

TEST(Rmat, SpreadsTheHeavyRowsOverTheIndexRange) {
  // Vertex labels are scrambled as Graph500 does: the heaviest rows are not all at the start.
  const auto A = generate_rmat(14, 16, 1);
  std::vector<std::int32_t> rows(static_cast<std::size_t>(A.rows));
  for (std::int32_t i = 0; i < A.rows; ++i) rows[i] = i;
  std::partial_sort(rows.begin(), rows.begin() + 16, rows.end(),
                    [&](auto a, auto b) { return A.row_length(a) > A.row_length(b); });
  const auto in_first_eighth =
      std::count_if(rows.begin(), rows.begin() + 16, [&](auto r) { return r < A.rows / 8; });
  EXPECT_LT(in_first_eighth, 12);
}

TEST(Rmat, OfScaleZeroIsOneByOne) {
  const auto A = generate_rmat(0, 3, 1);
  EXPECT_EQ(A.rows, 1);
  EXPECT_EQ(A.nnz(), 1);
}

// ---- random rows ---------------------------------------------------------------------------

TEST(RandomRows, UniformLengthsCoverTheRangeWithTheMidpointMean) {
  const auto A = generate_random_rows(20000, 500, RowLengthDistribution::uniform, 3, 40, 1);
  const auto lengths = lengths_of(A);
  EXPECT_EQ(*std::min_element(lengths.begin(), lengths.end()), 3);
  EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), 40);
  EXPECT_NEAR(mean_of(lengths), 21.5, 0.3);
  EXPECT_NO_THROW(A.validate());
}

TEST(RandomRows, NormalLengthsHaveTheMidpointMeanAndASixthOfTheRangeAsDeviation) {
  const auto A = generate_random_rows(8000, 1000, RowLengthDistribution::normal, 100, 700, 1);
  const auto lengths = lengths_of(A);
  EXPECT_NEAR(mean_of(lengths), 400.0, 4.0);
  EXPECT_NEAR(stddev_of(lengths), 100.0, 4.0);  // clamping at 3 sigma trims a little
  EXPECT_GE(*std::min_element(lengths.begin(), lengths.end()), 100);
  EXPECT_LE(*std::max_element(lengths.begin(), lengths.end()), 700);
}

TEST(RandomRows, PowerLawLengthsAreSkewedTowardsTheMinimum) {
  const auto A =
      generate_random_rows(20000, 5000, RowLengthDistribution::power_law, 1, 5000, 1, 2.0);
  auto lengths = lengths_of(A);
  const double mean = mean_of(lengths);
  std::sort(lengths.begin(), lengths.end());
  EXPECT_EQ(lengths.front(), 1);
  EXPECT_LE(lengths[lengths.size() / 2], 2);  // median: P(len = 1) is about a half for exponent 2
  EXPECT_GT(static_cast<double>(lengths.back()), 50.0 * mean);
  EXPECT_LE(lengths.back(), 5000);
  const auto ones = std::count(lengths.begin(), lengths.end(), 1);
  EXPECT_NEAR(static_cast<double>(ones) / 20000.0, 0.5, 0.03);
}

TEST(RandomRows, PowerLawWithMinimumZeroHasEmptyRowsAsTheCommonestLength) {
  const auto A = generate_random_rows(10000, 300, RowLengthDistribution::power_law, 0, 300, 1, 1.5);
  const auto lengths = lengths_of(A);
  const auto empty = std::count(lengths.begin(), lengths.end(), 0);
  const auto ones = std::count(lengths.begin(), lengths.end(), 1);
  EXPECT_GT(empty, ones);
  EXPECT_NO_THROW(A.validate());
}

TEST(RandomRows, FullRowsHoldEveryColumn) {
  const auto A = generate_random_rows(5, 64, RowLengthDistribution::uniform, 64, 64, 1);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = 0; k < 64; ++k) EXPECT_EQ(A.col_idx[A.row_ptr[i] + k], k);
}

TEST(RandomRows, ColumnsAreSpreadOverTheWholeWidth) {
  const auto A = generate_random_rows(2000, 1000, RowLengthDistribution::uniform, 5, 5, 1);
  std::vector<int> hits(1000, 0);
  for (const auto c : A.col_idx) ++hits[c];
  // 10 000 columns drawn, 10 per column expected: every tenth of the width gets about a tenth.
  for (int part = 0; part < 10; ++part) {
    int sum = 0;
    for (int c = part * 100; c < (part + 1) * 100; ++c) sum += hits[c];
    EXPECT_NEAR(sum, 1000, 150) << "columns " << part * 100 << "..";
  }
}

TEST(RandomRows, RefusesLengthsLongerThanTheRowAndAnInvertedRange) {
  EXPECT_THROW(generate_random_rows(10, 10, RowLengthDistribution::uniform, 0, 11, 1), Error);
  EXPECT_THROW(generate_random_rows(10, 10, RowLengthDistribution::uniform, 5, 4, 1), Error);
  EXPECT_THROW(generate_random_rows(-1, 10, RowLengthDistribution::uniform, 0, 4, 1), Error);
  EXPECT_THROW(generate_random_rows(10, 10, RowLengthDistribution::power_law, 1, 4, 1, -1.0),
               Error);
}

// ---- banded, short, long -------------------------------------------------------------------

TEST(Banded, HasNnzOfTheFullBand) {
  for (const auto& [n, h] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 0}, {1, 5}, {10, 0}, {10, 3}, {10, 9}, {10, 50}, {1000, 17}}) {
    const auto A = generate_banded(n, h, 1);
    const std::int64_t band = std::min(h, n - 1);
    EXPECT_EQ(A.nnz(), n * (2 * band + 1) - band * (band + 1)) << n << " " << h;
    EXPECT_NO_THROW(A.validate());
  }
}

TEST(Banded, RowsAreTheContiguousBandAroundTheDiagonal) {
  const auto A = generate_banded(20, 3, 1);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const std::int32_t first = std::max(0, i - 3), last = std::min(19, i + 3);
    ASSERT_EQ(A.row_length(i), last - first + 1);
    for (std::int32_t k = 0; k <= last - first; ++k)
      EXPECT_EQ(A.col_idx[A.row_ptr[i] + k], first + k);
  }
}

TEST(ShortRows, HoldOneToFourEntriesEachAndEveryLengthOccurs) {
  const auto A = generate_short_rows(4000, 3000, 1);
  const auto lengths = lengths_of(A);
  std::vector<int> count(5, 0);
  for (const auto length : lengths) {
    ASSERT_GE(length, 1);
    ASSERT_LE(length, 4);
    ++count[length];
  }
  for (int length = 1; length <= 4; ++length) EXPECT_NEAR(count[length], 1000, 120) << length;
  EXPECT_NO_THROW(A.validate());
}

TEST(ShortRows, FitNarrowMatrices) {
  const auto A = generate_short_rows(100, 2, 1);
  for (const auto length : lengths_of(A)) EXPECT_TRUE(length == 1 || length == 2);
  EXPECT_THROW(generate_short_rows(3, 0, 1), Error);
}

TEST(LongRows, HoldExactlyTheRequestedLength) {
  const auto A = generate_long_rows(50, 3000, 1200, 1);
  for (const auto length : lengths_of(A)) EXPECT_EQ(length, 1200);
  EXPECT_NO_THROW(A.validate());
  EXPECT_THROW(generate_long_rows(5, 10, 11, 1), Error);
}

// ---- pruned weights ------------------------------------------------------------------------

TEST(PrunedWeights, HaveTheRequestedSparsityWithinOnePercent) {
  for (const double sparsity : {0.5, 0.7, 0.8, 0.9, 0.95, 0.98}) {
    const auto A = generate_pruned_weights(1024, 1024, sparsity, 1);
    const double measured = 1.0 - static_cast<double>(A.nnz()) / (1024.0 * 1024.0);
    EXPECT_NEAR(measured, sparsity, 0.01) << sparsity;
    EXPECT_NO_THROW(A.validate());
  }
}

TEST(PrunedWeights, RowDensityVariesMoreThanIndependentEntriesWould) {
  // Entries kept independently would give row lengths of standard deviation sqrt(n p (1-p));
  // magnitude pruning leaves rows of visibly unequal density.
  const auto A = generate_pruned_weights(2048, 1024, 0.9, 1);
  const double binomial_stddev = std::sqrt(1024 * 0.1 * 0.9);
  EXPECT_GT(stddev_of(lengths_of(A)), 2.0 * binomial_stddev);
}

TEST(PrunedWeights, OfSparsityZeroAndOneAreDenseAndEmpty) {
  EXPECT_EQ(generate_pruned_weights(16, 32, 0.0, 1).nnz(), 16 * 32);
  EXPECT_EQ(generate_pruned_weights(16, 32, 1.0, 1).nnz(), 0);
  EXPECT_THROW(generate_pruned_weights(16, 32, 1.5, 1), Error);
  EXPECT_THROW(generate_pruned_weights(16, 32, -0.1, 1), Error);
}

// ---- block-diagonal replica ----------------------------------------------------------------

TEST(BlockDiagonalReplica, RepeatsTheBlockPatternOnTheDiagonalUntilTheTargetNnz) {
  const auto block = generate_random_rows(30, 40, RowLengthDistribution::uniform, 0, 9, 7);
  const std::int64_t target = 1000;
  const auto A = generate_block_diagonal_replica(block, target, 1);
  const std::int64_t copies = (target + block.nnz() - 1) / block.nnz();
  EXPECT_EQ(A.rows, copies * 30);
  EXPECT_EQ(A.cols, copies * 40);
  EXPECT_EQ(A.nnz(), copies * block.nnz());
  EXPECT_GE(A.nnz(), target);
  EXPECT_LT(A.nnz(), target + block.nnz());
  for (std::int32_t i = 0; i < A.rows; ++i) {
    const std::int32_t copy = i / 30, local = i % 30;
    ASSERT_EQ(A.row_length(i), block.row_length(local));
    for (std::int32_t k = 0; k < block.row_length(local); ++k)
      EXPECT_EQ(A.col_idx[A.row_ptr[i] + k], block.col_idx[block.row_ptr[local] + k] + copy * 40);
  }
  EXPECT_NE(std::vector<double>(A.values.begin(), A.values.begin() + block.nnz()), block.values);
}

TEST(BlockDiagonalReplica, KeepsOneCopyWhenTheBlockAlreadyReachesTheTarget) {
  const auto block = generate_banded(50, 2, 1);
  const auto A = generate_block_diagonal_replica(block, 10, 2);
  EXPECT_EQ(A.rows, 50);
  EXPECT_EQ(A.nnz(), block.nnz());
}

TEST(BlockDiagonalReplica, RefusesAnEmptyBlock) {
  GeneratedMatrix empty;
  empty.rows = 4;
  empty.cols = 4;
  empty.row_ptr.assign(5, 0);
  EXPECT_THROW(generate_block_diagonal_replica(empty, 100, 1), Error);
}

// ---- overflow ------------------------------------------------------------------------------

TEST(GeneratorOverflow, RefusesShapesAndNnzBeyond32BitIndices) {
  EXPECT_THROW(generate_stencil_2d_5pt(70000, 70000, 1), IndexOverflowError);
  EXPECT_THROW(generate_stencil_2d_5pt(std::int64_t{1} << 40, std::int64_t{1} << 40, 1),
               IndexOverflowError);
  EXPECT_THROW(generate_stencil_3d_27pt(2000, 2000, 2000, 1), IndexOverflowError);
  EXPECT_THROW(generate_rmat(31, 1, 1), IndexOverflowError);
  EXPECT_THROW(generate_rmat(28, 16, 1), IndexOverflowError);
  EXPECT_THROW(
      generate_random_rows(std::int64_t{1} << 31, 10, RowLengthDistribution::uniform, 0, 1, 1),
      IndexOverflowError);
  EXPECT_THROW(
      generate_random_rows(10, std::int64_t{1} << 31, RowLengthDistribution::uniform, 0, 1, 1),
      IndexOverflowError);
  EXPECT_THROW(generate_banded(std::int64_t{1} << 31, 1, 1), IndexOverflowError);
  EXPECT_THROW(generate_banded(1'000'000'000, 10, 1), IndexOverflowError);
  EXPECT_THROW(generate_short_rows(1'000'000'000, 10, 1), IndexOverflowError);
  EXPECT_THROW(generate_long_rows(100000, 100000, 50000, 1), IndexOverflowError);
  EXPECT_THROW(generate_pruned_weights(100000, 100000, 0.5, 1), IndexOverflowError);
  EXPECT_THROW(generate_block_diagonal_replica(generate_banded(10, 1, 1), std::int64_t{1} << 32, 1),
               IndexOverflowError);
}

TEST(GeneratorOverflow, NamesTheGeneratorAndTheQuantity) {
  try {
    generate_stencil_2d_5pt(70000, 70000, 1);
    FAIL() << "no exception";
  } catch (const IndexOverflowError& error) {
    EXPECT_TRUE(contains(error.what(), "stencil2d"));
    EXPECT_TRUE(contains(error.what(), "rows"));
    EXPECT_TRUE(contains(error.what(), "32-bit"));
  }
}

TEST(GeneratorArguments, NegativeSizesAreRefused) {
  EXPECT_THROW(generate_stencil_2d_5pt(-1, 5, 1), Error);
  EXPECT_THROW(generate_stencil_3d_27pt(3, -1, 5, 1), Error);
  EXPECT_THROW(generate_rmat(-1, 4, 1), Error);
  EXPECT_THROW(generate_rmat(4, 0, 1), Error);
  EXPECT_THROW(generate_banded(-3, 1, 1), Error);
  EXPECT_THROW(generate_banded(3, -1, 1), Error);
  EXPECT_THROW(generate_long_rows(3, 10, -1, 1), Error);
}

// ---- generate() by name --------------------------------------------------------------------

TEST(GenerateByName, BuildsTheSameMatrixAsTheDirectCall) {
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("stencil2d:nx=30,ny=20,seed=4")),
                          generate_stencil_2d_5pt(30, 20, 4)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("stencil3d:nx=5,ny=6,nz=7,seed=2")),
                          generate_stencil_3d_27pt(5, 6, 7, 2)));
  EXPECT_TRUE(
      same_matrix(generate(parse_generator_spec("rmat:scale=9,seed=3")), generate_rmat(9, 16, 3)));
  EXPECT_TRUE(same_matrix(
      generate(parse_generator_spec("random:rows=100,cols=80,dist=power_law,min=1,max=80,"
                                    "exponent=1.5,seed=9")),
      generate_random_rows(100, 80, RowLengthDistribution::power_law, 1, 80, 9, 1.5)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("random:rows=100,cols=80,min=2,max=5")),
                          generate_random_rows(100, 80, RowLengthDistribution::uniform, 2, 5, 1)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("banded:n=100,bandwidth=4,seed=5")),
                          generate_banded(100, 4, 5)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("short:rows=100,cols=50,seed=6")),
                          generate_short_rows(100, 50, 6)));
  EXPECT_TRUE(same_matrix(generate(parse_generator_spec("long:rows=10,cols=50,length=30,seed=7")),
                          generate_long_rows(10, 50, 30, 7)));
  EXPECT_TRUE(
      same_matrix(generate(parse_generator_spec("pruned:rows=64,cols=128,sparsity=0.9,seed=8")),
                  generate_pruned_weights(64, 128, 0.9, 8)));
}

TEST(GenerateByName, AcceptsIntegersInScientificNotation) {
  EXPECT_EQ(generate(parse_generator_spec("banded:n=1e3,bandwidth=1")).rows, 1000);
}

TEST(GenerateByName, ReplicatesAMatrixFile) {
  const auto file = std::filesystem::temp_directory_path() / "tcsparse_test_replicate_block.mtx";
  {
    std::ofstream out(file);
    out << "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 0.5\n2 2 -0.25\n3 1 2\n"
           "3 3 1\n";
  }
  const auto A =
      generate(parse_generator_spec("replicate:file=" + file.string() + ",target_nnz=10,seed=3"));
  const auto B =
      generate(parse_generator_spec("replicate:file=" + file.string() + ",copies=3,seed=3"));
  EXPECT_THROW(generate(parse_generator_spec("replicate:file=" + file.string())), Error);
  EXPECT_THROW(generate(parse_generator_spec("replicate:file=" + file.string() +
                                             ",copies=2,target_nnz=10")),
               Error);
  std::filesystem::remove(file);
  EXPECT_EQ(B.row_ptr, A.row_ptr);  // 3 copies either way
  EXPECT_EQ(B.col_idx, A.col_idx);
  EXPECT_EQ(A.rows, 9);
  EXPECT_EQ(A.nnz(), 12);
  // Row 8 is row 2 of the third copy: the block's columns 0 and 2, shifted by 2 * 3.
  ASSERT_EQ(A.row_length(8), 2);
  EXPECT_EQ(A.col_idx[A.row_ptr[8]], 6);
  EXPECT_EQ(A.col_idx[A.row_ptr[8] + 1], 8);
  EXPECT_NO_THROW(A.validate());
}

TEST(GenerateByName, UnknownKindIsRefusedWithTheListOfKinds) {
  try {
    generate(parse_generator_spec("stencil4d:nx=3"));
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "stencil4d"));
    for (const auto& [kind, help] : generator_kinds()) EXPECT_TRUE(contains(error.what(), kind));
  }
}

TEST(GenerateByName, UnknownParameterIsRefusedWithTheAcceptedOnes) {
  try {
    generate(parse_generator_spec("stencil2d:nx=3,ny=3,nz=3"));
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "unknown parameter 'nz'"));
    EXPECT_TRUE(contains(error.what(), "nx"));
    EXPECT_TRUE(contains(error.what(), "seed"));
  }
}

TEST(GenerateByName, MissingParameterIsNamed) {
  try {
    generate(parse_generator_spec("long:rows=3,cols=10"));
    FAIL() << "no exception";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "missing parameter 'length'"));
  }
}

TEST(GenerateByName, BadValuesAreNamedWithWhatWasExpected) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"stencil2d:nx=abc,ny=3", "not an integer"},
      {"stencil2d:nx=1.5,ny=3", "not an integer"},
      {"stencil2d:nx=3,ny=3,seed=-1", "not an unsigned"},
      {"pruned:rows=3,cols=3,sparsity=high", "not a finite number"},
      {"random:rows=3,cols=3,min=0,max=2,dist=zipf", "uniform, normal, power_law"},
      {"rmat:scale=99999999999", "out of range"},
  };
  for (const auto& [spec, expected] : cases) {
    try {
      generate(parse_generator_spec(spec));
      ADD_FAILURE() << spec << ": no exception";
    } catch (const Error& error) {
      EXPECT_TRUE(contains(error.what(), expected)) << spec;
    }
  }
}

TEST(ParseGeneratorSpec, SplitsKindAndParameters) {
  const auto spec = parse_generator_spec("stencil3d:nx=200,ny=100,nz=50,seed=1");
  EXPECT_EQ(spec.kind, "stencil3d");
  const std::map<std::string, std::string> expected = {
      {"nx", "200"}, {"ny", "100"}, {"nz", "50"}, {"seed", "1"}};
  EXPECT_EQ(spec.parameters, expected);
}

TEST(ParseGeneratorSpec, AcceptsAKindAloneAndSpacesAroundTokens) {
  EXPECT_EQ(parse_generator_spec("rmat").kind, "rmat");
  EXPECT_TRUE(parse_generator_spec("rmat").parameters.empty());
  const auto spec = parse_generator_spec(" rmat : scale = 5 , seed=2 ");
  EXPECT_EQ(spec.kind, "rmat");
  EXPECT_EQ(spec.parameters.at("scale"), "5");
  EXPECT_EQ(spec.parameters.at("seed"), "2");
}

TEST(ParseGeneratorSpec, RefusesMalformedText) {
  for (const std::string text : {"", ":nx=3", "stencil2d:nx", "stencil2d:=3",
                                 "stencil2d:nx=", "stencil2d:nx=3,nx=4", "stencil2d:nx=3,,ny=4"}) {
    try {
      parse_generator_spec(text);
      ADD_FAILURE() << "'" << text << "': no exception";
    } catch (const Error& error) {
      EXPECT_TRUE(contains(error.what(), "kind:key=value")) << text;
    }
  }
}

TEST(GeneratorKinds, ListsEveryKindWithItsParameters) {
  std::set<std::string> kinds;
  for (const auto& [kind, help] : generator_kinds()) {
    kinds.insert(kind);
    if (kind != "poisson3d") {  // fixed values, no seed
      EXPECT_TRUE(contains(help, "seed")) << kind;
    }
  }
  const std::set<std::string> expected = {"stencil2d", "stencil3d", "poisson3d", "rmat",
                                          "random",    "banded",    "short",     "long",
                                          "pruned",    "replicate", "llm"};
  EXPECT_EQ(kinds, expected);
}

// ---- the shared catalogue of test matrices -------------------------------------------------

bool is_test_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

TEST(TestMatrixCatalogue, EveryMatrixIsValidAndUniquelyNamed) {
  std::set<std::string> names;
  for (const auto& [name, A] : test::all_synthetic_matrices()) {
    EXPECT_NO_THROW(A.validate()) << name;
    EXPECT_TRUE(is_test_name(name)) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
    for (const double v : A.values) ASSERT_TRUE(std::fabs(v) >= 0.1 && std::fabs(v) <= 1.0) << name;
  }
}

TEST(TestMatrixCatalogue, EdgeCasesCoverTheRequiredShapesAndRowLengths) {
  std::map<std::string, GeneratedMatrix> by_name;
  for (auto& [name, A] : test::edge_case_matrices()) by_name[name] = A;
  auto shape = [&](const std::string& name) {
    EXPECT_TRUE(by_name.count(name)) << name;
    const auto& A = by_name[name];
    return std::vector<std::int64_t>{A.rows, A.cols, A.nnz()};
  };
  EXPECT_EQ(shape("empty_0x0"), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(shape("empty_0x5"), (std::vector<std::int64_t>{0, 5, 0}));
  EXPECT_EQ(shape("empty_5x0"), (std::vector<std::int64_t>{5, 0, 0}));
  EXPECT_EQ(shape("all_rows_empty_7x7"), (std::vector<std::int64_t>{7, 7, 0}));
  EXPECT_EQ(shape("single_1x1"), (std::vector<std::int64_t>{1, 1, 1}));
  EXPECT_EQ(shape("single_row_dense_1x1000"), (std::vector<std::int64_t>{1, 1000, 1000}));
  EXPECT_EQ(shape("single_column_dense_1000x1"), (std::vector<std::int64_t>{1000, 1, 1000}));
  for (const std::int64_t length : {1, 2, 3, 4, 5})
    for (const std::int64_t count : {1, 7, 9, 31, 33}) {
      const std::string name = "rows_of_" + std::to_string(length) + "_x" + std::to_string(count);
      ASSERT_TRUE(by_name.count(name)) << name;
      for (const auto l : lengths_of(by_name[name])) EXPECT_EQ(l, length) << name;
      EXPECT_EQ(by_name[name].rows, count);
    }
  for (const auto length : lengths_of(by_name["rows_of_256_x9"])) EXPECT_EQ(length, 256);
  for (const auto length : lengths_of(by_name["rows_of_257_x9"])) EXPECT_EQ(length, 257);
  const auto long_one = lengths_of(by_name["one_row_of_100000_among_short"]);
  EXPECT_EQ(*std::max_element(long_one.begin(), long_one.end()), 100000);
  const auto mixed = lengths_of(by_name["every_length_category"]);
  for (const auto& [low, high] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {1, 4}, {5, 256}, {257, 1 << 20}})
    EXPECT_TRUE(
        std::any_of(mixed.begin(), mixed.end(), [&](auto l) { return l >= low && l <= high; }))
        << low << ".." << high;
  const auto random = lengths_of(by_name["random_lengths_0_to_300"]);
  EXPECT_EQ(*std::max_element(random.begin(), random.end()), 300);
  EXPECT_EQ(*std::min_element(random.begin(), random.end()), 0);
}

TEST(TestMatrixCatalogue, GeneratedMatricesCoverEveryGeneratorKind) {
  const std::vector<std::string> prefixes = {
      "stencil2d", "stencil3d", "rmat", "random", "banded", "short", "long", "pruned", "replicate"};
  const auto generated = test::generated_matrices();
  for (const auto& prefix : prefixes)
    EXPECT_TRUE(std::any_of(generated.begin(), generated.end(), [&](const auto& m) {
      return m.name.rfind(prefix, 0) == 0;
    })) << prefix;
}

TEST(TestMatrixCatalogue, RealMatrixSelectionSpreadsOverSizesAndCollections) {
  if (test::matrix_dir().empty())
    GTEST_SKIP() << "no matrix directory (set TCSPARSE_MATRIX_DIR to one with a MANIFEST.tsv)";
  const auto all = test::real_matrix_entries();
  ASSERT_FALSE(all.empty());
  const auto selection = test::real_matrix_selection(24);
  ASSERT_EQ(selection.size(), std::min<std::size_t>(24, all.size()));
  std::set<std::string> kinds_present, kinds_selected;
  for (const auto& e : all) kinds_present.insert(e.kind);
  for (const auto& e : selection) kinds_selected.insert(e.kind);
  EXPECT_EQ(kinds_selected, kinds_present);
  EXPECT_TRUE(std::is_sorted(selection.begin(), selection.end(),
                             [](const auto& a, const auto& b) { return a.nnz < b.nnz; }));
  EXPECT_LT(selection.front().nnz, 100);
  EXPECT_GT(selection.back().nnz, 100000);
  EXPECT_EQ(test::real_matrix_files(5).size(), 5u);
  EXPECT_TRUE(test::real_matrix_files(0).empty());
}

TEST(TestMatrixCatalogue, LoadsRealMatricesUnderTestNames) {
  if (test::matrix_dir().empty())
    GTEST_SKIP() << "no matrix directory (set TCSPARSE_MATRIX_DIR to one with a MANIFEST.tsv)";
  std::set<std::string> kinds_loaded;
  for (const auto& entry : test::real_matrix_selection(12)) {
    if (entry.nnz > 100000 || kinds_loaded.count(entry.kind)) continue;
    const auto named = test::load_real_matrix(entry.path);
    EXPECT_TRUE(is_test_name(named.name)) << named.name;
    EXPECT_EQ(named.name.find(entry.kind), 0u) << named.name;
    EXPECT_EQ(named.matrix.rows, entry.rows) << entry.path;
    EXPECT_EQ(named.matrix.cols, entry.cols) << entry.path;
    EXPECT_EQ(named.matrix.nnz(), entry.nnz) << entry.path;
    kinds_loaded.insert(entry.kind);
  }
  EXPECT_FALSE(kinds_loaded.empty());
}

}  // namespace
}  // namespace tcsparse
