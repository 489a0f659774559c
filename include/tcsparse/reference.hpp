// CPU reference products (OpenMP). They accumulate in double whatever the value type, and are
// what every method is checked against.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tcsparse/csr.hpp"

namespace tcsparse {

/// y = alpha * A * x + beta * y, with y in double. x has A.cols entries, y A.rows.
/// beta == 0 ignores y's old contents (NaN included), as BLAS does.
template <typename Value, typename Index>
void spmv_reference(const CsrMatrix<Value, Index>& A, std::span<const Value> x,
                    std::span<double> y, double alpha, double beta);

/// C = alpha * A * B + beta * C, with B (A.cols x n) and C (A.rows x n) row-major, C in double.
template <typename Value, typename Index>
void spmm_reference(const CsrMatrix<Value, Index>& A, std::span<const Value> B, std::int64_t n,
                    std::span<double> C, double alpha, double beta);

/// ||y - reference||_2 / ||reference||_2, in double; ||y||_2 when the reference is all zeros.
/// Where the reference is NaN or +-Inf, y must hold the same (NaN, or the same infinity) and the
/// position is left out of the norms; any other mismatch, or a non-finite y where the reference
/// is finite, gives +Inf, so a poisoned output never passes.
template <typename Value>
double relative_error(std::span<const Value> y, std::span<const double> reference);

/// Random values uniform in [-1, -0.1] U [0.1, 1] (never zero), deterministic from the seed.
template <typename Value>
std::vector<Value> random_vector(std::size_t size, std::uint64_t seed);

}  // namespace tcsparse
