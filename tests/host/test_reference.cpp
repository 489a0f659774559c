// The CPU reference (spmv_reference, spmm_reference, relative_error, random_vector), checked
// against a naive dense product built from the same CSR matrix.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "common/test_matrices.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse {
namespace {

constexpr double nan_value = std::numeric_limits<double>::quiet_NaN();
constexpr double inf_value = std::numeric_limits<double>::infinity();

/// Agreement of two double-accumulated results that differ only in the order of the sums.
constexpr double same_sum_tolerance = 1e-13;

/// A rows x cols matrix with each entry present with probability `density`, values in
/// [-1, -0.1] U [0.1, 1], built directly (independently of the generators under test).
template <typename Value, typename Index>
CsrMatrix<Value, Index> random_sparse(Index rows, Index cols, double density, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  CsrMatrix<Value, Index> A;
  A.rows = rows;
  A.cols = cols;
  for (Index i = 0; i < rows; ++i) {
    for (Index j = 0; j < cols; ++j) {
      if (unit(rng) < density) {
        const double magnitude = 0.1 + 0.9 * unit(rng);
        A.col_idx.push_back(j);
        A.values.push_back(from_double<Value>(unit(rng) < 0.5 ? -magnitude : magnitude));
      }
    }
    A.row_ptr.push_back(static_cast<Index>(A.col_idx.size()));
  }
  return A;
}

/// The matrix as a dense row-major array of doubles.
template <typename Value, typename Index>
std::vector<double> dense_of(const CsrMatrix<Value, Index>& A) {
  std::vector<double> dense(static_cast<std::size_t>(A.rows) * static_cast<std::size_t>(A.cols),
                            0.0);
  for (Index i = 0; i < A.rows; ++i)
    for (Index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k)
      dense[static_cast<std::size_t>(i) * static_cast<std::size_t>(A.cols) +
            static_cast<std::size_t>(A.col_idx[k])] += to_double(A.values[k]);
  return dense;
}

/// C = alpha * dense(A) * B + beta * C0 (B cols x n, C rows x n, row-major); beta == 0 ignores C0.
template <typename Value, typename Index>
std::vector<double> dense_product(const CsrMatrix<Value, Index>& A, const std::vector<Value>& B,
                                  std::int64_t n, const std::vector<double>& C0, double alpha,
                                  double beta) {
  const std::vector<double> dense = dense_of(A);
  const auto rows = static_cast<std::int64_t>(A.rows), cols = static_cast<std::int64_t>(A.cols);
  std::vector<double> C(static_cast<std::size_t>(rows * n));
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t k = 0; k < cols; ++k) sum += dense[i * cols + k] * to_double(B[k * n + j]);
      C[i * n + j] = alpha * sum + (beta == 0.0 ? 0.0 : beta * C0[i * n + j]);
    }
  return C;
}

struct Scaling {
  double alpha, beta;
};
const Scaling scalings[] = {{1.0, 0.0},   {2.5, 0.0}, {1.0, 1.0},
                            {-0.5, 0.75}, {0.0, 2.0}, {1.25, -1.0}};

/// Relative difference between two double vectors (0 for two empty ones).
double difference(const std::vector<double>& y, const std::vector<double>& expected) {
  return relative_error<double>(y, expected);
}

template <typename Value>
class ReferenceTest : public ::testing::Test {};
using ValueTypes = ::testing::Types<double, float, half, bfloat16>;
TYPED_TEST_SUITE(ReferenceTest, ValueTypes);

struct Shape {
  std::int32_t rows, cols;
  double density;
};
const Shape shapes[] = {{17, 23, 0.3}, {1, 1, 1.0},    {0, 5, 0.5}, {5, 0, 0.5},  {40, 3, 0.4},
                        {3, 60, 0.5},  {64, 64, 0.05}, {9, 9, 0.0}, {33, 31, 0.9}};

TYPED_TEST(ReferenceTest, SpmvMatchesDenseProductForEveryAlphaAndBeta) {
  using Value = TypeParam;
  unsigned seed = 1;
  for (const Shape& shape : shapes) {
    const auto A =
        random_sparse<Value, std::int32_t>(shape.rows, shape.cols, shape.density, ++seed);
    const auto x = random_vector<Value>(static_cast<std::size_t>(shape.cols), ++seed);
    const auto y0 = random_vector<double>(static_cast<std::size_t>(shape.rows), ++seed);
    for (const Scaling& s : scalings) {
      std::vector<double> y = y0;
      spmv_reference<Value, std::int32_t>(A, x, y, s.alpha, s.beta);
      const auto expected = dense_product(A, x, 1, y0, s.alpha, s.beta);
      EXPECT_LT(difference(y, expected), same_sum_tolerance)
          << shape.rows << "x" << shape.cols << " alpha=" << s.alpha << " beta=" << s.beta;
    }
  }
}

TYPED_TEST(ReferenceTest, SpmvWithInt64IndicesMatchesDenseProduct) {
  using Value = TypeParam;
  const auto A = random_sparse<Value, std::int64_t>(29, 41, 0.25, 5);
  const auto x = random_vector<Value>(41, 6);
  const auto y0 = random_vector<double>(29, 7);
  std::vector<double> y = y0;
  spmv_reference<Value, std::int64_t>(A, x, y, -1.5, 0.5);
  EXPECT_LT(difference(y, dense_product(A, x, 1, y0, -1.5, 0.5)), same_sum_tolerance);
}

TYPED_TEST(ReferenceTest, SpmvWithBetaZeroIgnoresNanInY) {
  using Value = TypeParam;
  const auto A = random_sparse<Value, std::int32_t>(20, 30, 0.3, 8);
  const auto x = random_vector<Value>(30, 9);
  std::vector<double> y(20, nan_value);
  spmv_reference<Value, std::int32_t>(A, x, y, 1.5, 0.0);
  const auto expected = dense_product(A, x, 1, std::vector<double>(20, 0.0), 1.5, 0.0);
  EXPECT_LT(difference(y, expected), same_sum_tolerance);
}

TYPED_TEST(ReferenceTest, SpmmMatchesDenseProductForN1N3N32) {
  using Value = TypeParam;
  unsigned seed = 100;
  for (const std::int64_t n : {1, 3, 32}) {
    for (const Shape& shape : shapes) {
      const auto A =
          random_sparse<Value, std::int32_t>(shape.rows, shape.cols, shape.density, ++seed);
      const auto B = random_vector<Value>(static_cast<std::size_t>(shape.cols * n), ++seed);
      const auto C0 = random_vector<double>(static_cast<std::size_t>(shape.rows * n), ++seed);
      for (const Scaling& s : scalings) {
        std::vector<double> C = C0;
        spmm_reference<Value, std::int32_t>(A, B, n, C, s.alpha, s.beta);
        EXPECT_LT(difference(C, dense_product(A, B, n, C0, s.alpha, s.beta)), same_sum_tolerance)
            << shape.rows << "x" << shape.cols << " n=" << n << " alpha=" << s.alpha
            << " beta=" << s.beta;
      }
    }
  }
}

TYPED_TEST(ReferenceTest, SpmmWithBetaZeroIgnoresNanInC) {
  using Value = TypeParam;
  const std::int64_t n = 3;
  const auto A = random_sparse<Value, std::int64_t>(12, 15, 0.4, 10);
  const auto B = random_vector<Value>(15 * n, 11);
  std::vector<double> C(12 * n, nan_value);
  spmm_reference<Value, std::int64_t>(A, B, n, C, 0.5, 0.0);
  const auto expected = dense_product(A, B, n, std::vector<double>(12 * n, 0.0), 0.5, 0.0);
  EXPECT_LT(difference(C, expected), same_sum_tolerance);
}

TYPED_TEST(ReferenceTest, SpmmColumnJEqualsSpmvWithColumnJOfB) {
  using Value = TypeParam;
  const std::int64_t n = 5;
  const auto A = random_sparse<Value, std::int32_t>(25, 18, 0.3, 12);
  const auto B = random_vector<Value>(18 * n, 13);
  std::vector<double> C(25 * n, nan_value);
  spmm_reference<Value, std::int32_t>(A, B, n, C, 1.0, 0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    std::vector<Value> x(18);
    for (std::int64_t k = 0; k < 18; ++k) x[k] = B[k * n + j];
    std::vector<double> y(25, nan_value), column(25);
    spmv_reference<Value, std::int32_t>(A, x, y, 1.0, 0.0);
    for (std::int64_t i = 0; i < 25; ++i) column[i] = C[i * n + j];
    EXPECT_EQ(column, y) << "column " << j;
  }
}

TEST(SpmvReference, GivesBitIdenticalResultsForOneThreadAndMany) {
  const auto A = generate_random_rows(20000, 20000, RowLengthDistribution::power_law, 1, 3000, 3);
  const auto x = random_vector<double>(20000, 4);
  std::vector<double> y_one(20000), y_many(20000);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  spmv_reference<double, std::int32_t>(A, x, y_one, 1.0, 0.0);
  omp_set_num_threads(std::max(threads, 4));
  spmv_reference<double, std::int32_t>(A, x, y_many, 1.0, 0.0);
  omp_set_num_threads(threads);
  EXPECT_EQ(y_one, y_many);
}

TEST(SpmvReference, AgreesWithDenseProductOnEveryEdgeCaseMatrix) {
  for (const auto& [name, A] : test::edge_case_matrices()) {
    if (static_cast<double>(A.rows) * static_cast<double>(A.cols) > 5e6) continue;  // dense too big
    const auto x = test::make_x<double>(A);
    const auto y0 = test::to_double_vector(test::make_y<double>(A));
    std::vector<double> y = y0;
    spmv_reference<double, std::int32_t>(A, x, y, 0.75, -0.5);
    EXPECT_LT(difference(y, dense_product(A, x, 1, y0, 0.75, -0.5)), same_sum_tolerance) << name;
  }
}

TEST(SpmvReference, RefusesVectorsOfTheWrongLength) {
  const auto A = random_sparse<double, std::int32_t>(4, 6, 0.5, 1);
  std::vector<double> x(5, 1.0), y(4);
  EXPECT_THROW((spmv_reference<double, std::int32_t>(A, x, y, 1.0, 0.0)), Error);
  std::vector<double> x_ok(6, 1.0), y_short(3);
  EXPECT_THROW((spmv_reference<double, std::int32_t>(A, x_ok, y_short, 1.0, 0.0)), Error);
}

TEST(SpmmReference, RefusesMatricesOfTheWrongSizeAndNegativeN) {
  const auto A = random_sparse<double, std::int32_t>(4, 6, 0.5, 1);
  std::vector<double> B(6 * 2), C(4 * 2), C_wrong(4 * 3);
  EXPECT_THROW((spmm_reference<double, std::int32_t>(A, B, 3, C, 1.0, 0.0)), Error);
  EXPECT_THROW((spmm_reference<double, std::int32_t>(A, B, 2, C_wrong, 1.0, 0.0)), Error);
  EXPECT_THROW((spmm_reference<double, std::int32_t>(A, B, -1, C, 1.0, 0.0)), Error);
  EXPECT_NO_THROW((spmm_reference<double, std::int32_t>(A, B, 2, C, 1.0, 0.0)));
}

// ---- relative_error ------------------------------------------------------------------------

TEST(RelativeError, IsZeroForIdenticalVectors) {
  const std::vector<double> y = {1.0, -2.0, 3.5};
  EXPECT_EQ(relative_error<double>(y, y), 0.0);
}

TEST(RelativeError, IsTheNormOfTheDifferenceOverTheNormOfTheReference) {
  const std::vector<double> reference = {3.0, 4.0};  // norm 5
  const std::vector<double> y = {3.0, 4.5};          // difference norm 0.5
  EXPECT_DOUBLE_EQ(relative_error<double>(y, reference), 0.1);
}

TEST(RelativeError, IsTheNormOfYWhenTheReferenceIsZero) {
  const std::vector<double> reference = {0.0, 0.0};
  const std::vector<float> y = {3.0f, 4.0f};
  EXPECT_DOUBLE_EQ(relative_error<float>(y, reference), 5.0);
  const std::vector<float> zeros = {0.0f, 0.0f};
  EXPECT_EQ(relative_error<float>(zeros, reference), 0.0);
}

TEST(RelativeError, IsInfiniteWhenYHoldsNan) {
  const std::vector<double> reference = {1.0, 2.0, 3.0};
  const std::vector<double> y = {1.0, nan_value, 3.0};
  EXPECT_EQ(relative_error<double>(y, reference), inf_value);
}

TEST(RelativeError, IsInfiniteWhenYHoldsInfinity) {
  const std::vector<double> reference = {1.0, 2.0};
  const std::vector<float> y = {1.0f, -std::numeric_limits<float>::infinity()};
  EXPECT_EQ(relative_error<float>(y, reference), inf_value);
}

TEST(RelativeError, IsInfiniteForAPoisonedHalfOrBfloat16Output) {
  const std::vector<double> reference = {1.0, 2.0};
  const auto poisoned_half = test::make_poisoned<half>(2);
  const auto poisoned_bf16 = test::make_poisoned<bfloat16>(2);
  EXPECT_EQ(relative_error<half>(poisoned_half, reference), inf_value);
  EXPECT_EQ(relative_error<bfloat16>(poisoned_bf16, reference), inf_value);
}

TEST(RelativeError, MeasuresHalfPrecisionRounding) {
  const std::vector<double> reference = {0.1, -0.7, 0.33};
  std::vector<half> y;
  for (const double r : reference) y.push_back(half(r));
  const double error = relative_error<half>(y, reference);
  EXPECT_GT(error, 0.0);   // 0.1 is not exact in binary16
  EXPECT_LT(error, 1e-3);  // but within its unit roundoff
}

TEST(RelativeError, IsZeroForTwoEmptyVectors) {
  EXPECT_EQ(relative_error<double>(std::vector<double>{}, std::vector<double>{}), 0.0);
}

TEST(RelativeError, RefusesVectorsOfDifferentLengths) {
  EXPECT_THROW(relative_error<double>(std::vector<double>(3), std::vector<double>(4)), Error);
}

// ---- random_vector -------------------------------------------------------------------------

TYPED_TEST(ReferenceTest, RandomVectorValuesAreInTheTwoIntervalsWithBothSigns) {
  using Value = TypeParam;
  const auto v = random_vector<Value>(10000, 3);
  ASSERT_EQ(v.size(), 10000u);
  int negatives = 0;
  for (const Value value : v) {
    const double d = to_double(value);
    EXPECT_GE(std::fabs(d), 0.0999) << d;  // 0.1 rounded to 8 bits of mantissa at worst
    EXPECT_LE(std::fabs(d), 1.0) << d;
    negatives += d < 0;
  }
  EXPECT_GT(negatives, 4500);
  EXPECT_LT(negatives, 5500);
}

TEST(RandomVector, IsDeterministicForASeedAndDiffersBetweenSeeds) {
  EXPECT_EQ(random_vector<double>(1000, 5), random_vector<double>(1000, 5));
  EXPECT_NE(random_vector<double>(1000, 5), random_vector<double>(1000, 6));
}

TEST(RandomVector, IsAPrefixOfALongerVectorFromTheSameSeed) {
  const auto short_vector = random_vector<float>(100, 9);
  const auto long_vector = random_vector<float>(300000, 9);
  EXPECT_TRUE(std::equal(short_vector.begin(), short_vector.end(), long_vector.begin()));
}

TEST(RandomVector, HasMeanNearZeroAndNoRepeatedRuns) {
  const auto v = random_vector<double>(100000, 1);
  double sum = 0.0;
  for (const double d : v) sum += d;
  EXPECT_LT(std::fabs(sum / 1e5), 0.01);
  int equal_neighbours = 0;
  for (std::size_t i = 1; i < v.size(); ++i) equal_neighbours += v[i] == v[i - 1];
  EXPECT_EQ(equal_neighbours, 0);
}

TEST(RandomVector, OfSizeZeroIsEmpty) { EXPECT_TRUE(random_vector<half>(0, 1).empty()); }

}  // namespace
}  // namespace tcsparse

namespace tcsparse {
namespace {

TEST(RelativeErrorNonFinite, MatchingNanAndInfPositionsPassOthersFail) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> reference{1.0, nan, inf, -inf, 2.0};
  const std::vector<double> same{1.0, nan, inf, -inf, 2.0};
  EXPECT_EQ(relative_error(std::span<const double>(same), std::span<const double>(reference)), 0.0);
  for (const auto& wrong : {std::vector<double>{1.0, 0.0, inf, -inf, 2.0},   // NaN lost
                            std::vector<double>{1.0, nan, -inf, -inf, 2.0},  // Inf sign flipped
                            std::vector<double>{nan, nan, inf, -inf, 2.0}})  // NaN where finite
    EXPECT_EQ(relative_error(std::span<const double>(wrong), std::span<const double>(reference)), inf);
}

}  // namespace
}  // namespace tcsparse
