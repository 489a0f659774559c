// CPU reference products (see reference.hpp). Rows are independent: OpenMP over rows, every
// product and sum in double whatever the value type, one row per output element so the result
// does not depend on the number of threads.
#include "tcsparse/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/random.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {
namespace {

/// Rows handed to a thread at a time: small enough to balance a matrix with a few very long rows,
/// large enough to keep the scheduling cost low.
constexpr int rows_per_chunk = 64;

/// Below this many nonzeros (times n) a product runs on one thread.
constexpr std::int64_t parallel_work_threshold = 1 << 15;

void require_size(const char* function, const char* what, std::size_t actual,
                  std::int64_t expected) {
  if (static_cast<std::int64_t>(actual) != expected)
    throw Error(std::string(function) + ": " + what + " has " + std::to_string(actual) +
                " entries, expected " + std::to_string(expected));
}

}  // namespace

template <typename Value, typename Index>
void spmv_reference(const CsrMatrix<Value, Index>& A, std::span<const Value> x, std::span<double> y,
                    double alpha, double beta) {
  const std::int64_t rows = A.rows;
  require_size("spmv_reference", "x", x.size(), A.cols);
  require_size("spmv_reference", "y", y.size(), rows);
  require_size("spmv_reference", "row_ptr", A.row_ptr.size(), rows + 1);
  const Index* const row_ptr = A.row_ptr.data();
  const Index* const col_idx = A.col_idx.data();
  const Value* const values = A.values.data();
  const bool parallel =
      static_cast<std::int64_t>(A.col_idx.size()) + rows > parallel_work_threshold;
#pragma omp parallel for schedule(dynamic, rows_per_chunk) if (parallel)
  for (std::int64_t row = 0; row < rows; ++row) {
    double sum = 0.0;
    for (Index k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
      sum += to_double(values[k]) * to_double(x[col_idx[k]]);
    // beta == 0: y's old value is not read, so a NaN there does not propagate (BLAS semantics).
    y[row] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row];
  }
}

template <typename Value, typename Index>
void spmm_reference(const CsrMatrix<Value, Index>& A, std::span<const Value> B, std::int64_t n,
                    std::span<double> C, double alpha, double beta) {
  if (n < 0) throw Error("spmm_reference: n = " + std::to_string(n) + " is negative");
  const std::int64_t rows = A.rows;
  require_size("spmm_reference", "B (cols x n)", B.size(), static_cast<std::int64_t>(A.cols) * n);
  require_size("spmm_reference", "C (rows x n)", C.size(), rows * n);
  require_size("spmm_reference", "row_ptr", A.row_ptr.size(), rows + 1);
  const Index* const row_ptr = A.row_ptr.data();
  const Index* const col_idx = A.col_idx.data();
  const Value* const values = A.values.data();
  const bool parallel =
      (static_cast<std::int64_t>(A.col_idx.size()) + rows) * n > parallel_work_threshold;
#pragma omp parallel if (parallel)
  {
    // One row of C accumulated in double (B and C are row-major: row r of C is C[r*n .. r*n+n)).
    std::vector<double> accumulator(static_cast<std::size_t>(n));
#pragma omp for schedule(dynamic, rows_per_chunk)
    for (std::int64_t row = 0; row < rows; ++row) {
      std::fill(accumulator.begin(), accumulator.end(), 0.0);
      for (Index k = row_ptr[row]; k < row_ptr[row + 1]; ++k) {
        const double a = to_double(values[k]);
        const Value* const b_row = B.data() + static_cast<std::int64_t>(col_idx[k]) * n;
        for (std::int64_t j = 0; j < n; ++j) accumulator[j] += a * to_double(b_row[j]);
      }
      double* const c_row = C.data() + row * n;
      for (std::int64_t j = 0; j < n; ++j)
        c_row[j] = beta == 0.0 ? alpha * accumulator[j] : alpha * accumulator[j] + beta * c_row[j];
    }
  }
}

template <typename Value>
double relative_error(std::span<const Value> y, std::span<const double> reference) {
  if (y.size() != reference.size())
    throw Error("relative_error: y has " + std::to_string(y.size()) + " entries, the reference " +
                std::to_string(reference.size()));
  // Positions where the reference is NaN or +-Inf (a matrix or input holding them) must hold
  // the same non-finite value in y and are left out of the norms; any other non-finite value
  // in y (a poisoned NaN, an overflow) never passes.
  double difference_squared = 0.0, reference_squared = 0.0, y_squared = 0.0;
  bool mismatch = false;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double value = to_double(y[i]);
    if (!std::isfinite(reference[i])) {
      const bool same = std::isnan(reference[i]) ? std::isnan(value) : value == reference[i];
      if (!same) mismatch = true;
      continue;
    }
    if (!std::isfinite(value)) mismatch = true;
    const double difference = value - reference[i];
    difference_squared += difference * difference;
    reference_squared += reference[i] * reference[i];
    y_squared += value * value;
  }
  // NaN compares false with every tolerance, so +Inf is returned instead: `error < tolerance`
  // fails and the message shows "inf".
  if (mismatch) return std::numeric_limits<double>::infinity();
  if (reference_squared == 0.0) return std::sqrt(y_squared);
  return std::sqrt(difference_squared / reference_squared);
}

template <typename Value>
std::vector<Value> random_vector(std::size_t size, std::uint64_t seed) {
  // Entry i is a function of (seed, i) alone: the same vector for any number of threads, and a
  // prefix of a longer vector drawn from the same seed.
  constexpr std::uint64_t random_vector_purpose = 0x7665'6374'6F72ULL;  // "vector"
  const std::uint64_t key = detail::stream_key(seed, random_vector_purpose, 0);
  std::vector<Value> result(size);
  const auto count = static_cast<std::int64_t>(size);
#pragma omp parallel for schedule(static) if (count > parallel_work_threshold)
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint64_t bits =
        detail::mix64(key + static_cast<std::uint64_t>(i + 1) * detail::golden_gamma);
    result[i] = from_double<Value>(detail::nonzero_value_from_bits(bits));
  }
  return result;
}

#define TCSPARSE_INSTANTIATE_PRODUCTS(Value, Index)                                               \
  template void spmv_reference<Value, Index>(                                                     \
      const CsrMatrix<Value, Index>&, std::span<const Value>, std::span<double>, double, double); \
  template void spmm_reference<Value, Index>(const CsrMatrix<Value, Index>&,                      \
                                             std::span<const Value>, std::int64_t,                \
                                             std::span<double>, double, double);

#define TCSPARSE_INSTANTIATE_VALUE(Value)                                                 \
  TCSPARSE_INSTANTIATE_PRODUCTS(Value, std::int32_t)                                      \
  TCSPARSE_INSTANTIATE_PRODUCTS(Value, std::int64_t)                                      \
  template double relative_error<Value>(std::span<const Value>, std::span<const double>); \
  template std::vector<Value> random_vector<Value>(std::size_t, std::uint64_t);

TCSPARSE_INSTANTIATE_VALUE(double)
TCSPARSE_INSTANTIATE_VALUE(float)
TCSPARSE_INSTANTIATE_VALUE(half)
TCSPARSE_INSTANTIATE_VALUE(bfloat16)

#undef TCSPARSE_INSTANTIATE_VALUE
#undef TCSPARSE_INSTANTIATE_PRODUCTS

}  // namespace tcsparse
