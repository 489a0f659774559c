// The catalogue of test matrices shared by the host and GPU tests of every method, so that every
// method is checked on the same cases. Include as "common/test_matrices.hpp"; link
// tcsparse_test_support.
//
//   edge_case_matrices()  small hand-made matrices at the boundaries of every method's layout
//                         (empty shapes, rows of exactly 1..5, 256 and 257 entries, one very long
//                         row, block counts that do not fill an 8- or 32-row block, ...)
//   generated_matrices()  one moderate matrix (10^4..10^5 nonzeros) of every generator kind
//   real_matrix_files()   a spread over sizes of the real matrices in the matrix directory
//
// Every matrix is valid (validate() passes), has values drawn from a fixed seed in
// [-1, -0.1] U [0.1, 1] (never all zeros or ones), and a name made of [A-Za-z0-9_] only, so it
// can serve as a GoogleTest parameter name as it is (see NamedMatrixName).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::test {

struct NamedMatrix {
  std::string name;
  CsrMatrix<double, std::int32_t> matrix;
};

/// Prints the name and shape only (GoogleTest would otherwise dump the bytes of the matrix).
void PrintTo(const NamedMatrix& named, std::ostream* out);

/// For INSTANTIATE_TEST_SUITE_P(..., ::testing::ValuesIn(edge_case_matrices()),
///                              tcsparse::test::NamedMatrixName{});
struct NamedMatrixName {
  template <typename ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return info.param.name;
  }
};

/// A cols-wide matrix whose row i holds exactly lengths[i] entries at distinct random columns,
/// values in [-1, -0.1] U [0.1, 1], deterministic from the seed.
CsrMatrix<double, std::int32_t> with_row_lengths(std::int64_t cols,
                                                 const std::vector<std::int64_t>& lengths,
                                                 std::uint64_t seed);

/// A rows x cols matrix without nonzeros.
CsrMatrix<double, std::int32_t> empty_matrix(std::int32_t rows, std::int32_t cols);

/// Small matrices at the edges of every layout (see the list in test_matrices.cpp). Built once,
/// copied out. Largest: one row of 100 000 nonzeros among 2 000 short rows.
std::vector<NamedMatrix> edge_case_matrices();

/// One matrix of moderate size (10^4..2*10^5 nonzeros) for every generator kind, and a few
/// variants (each row-length distribution, rectangular shapes). Built once, copied out.
std::vector<NamedMatrix> generated_matrices();

/// edge_case_matrices() followed by generated_matrices().
std::vector<NamedMatrix> all_synthetic_matrices();

/// The directory of real matrices: $TCSPARSE_MATRIX_DIR if set (non-empty), else the compile
/// definition TCSPARSE_DEFAULT_MATRIX_DIR. Empty when the one chosen is not a directory with a
/// MANIFEST.tsv (so TCSPARSE_MATRIX_DIR=/nonexistent leaves the real matrices out).
std::filesystem::path matrix_dir();

/// One line of MANIFEST.tsv.
struct RealMatrixEntry {
  std::filesystem::path path;  ///< absolute (matrix_dir() / file)
  std::string kind;            ///< "suitesparse", "other" or "dlmc"
  std::int64_t rows = 0, cols = 0;
  std::int64_t nnz = 0;  ///< nonzeros after symmetric expansion
};

/// Every MANIFEST.tsv entry whose file exists, sorted by nnz then path. Empty when matrix_dir()
/// is empty.
std::vector<RealMatrixEntry> real_matrix_entries();

/// Up to max_count entries spread evenly over sizes (by rank of nnz), from suitesparse/, other/
/// and dlmc/ (each present kind gets at least one when max_count allows), smallest and largest of
/// the main group included. Deterministic. Empty when matrix_dir() is empty.
std::vector<RealMatrixEntry> real_matrix_selection(std::size_t max_count);

/// The paths of real_matrix_selection(max_count).
std::vector<std::filesystem::path> real_matrix_files(std::size_t max_count);

/// A file read with tcsparse::read_matrix<double>, named for GoogleTest after its path
/// (e.g. "suitesparse_cage5" or "dlmc_rn50_magnitude_pruning_0_9_bottleneck_1_block_group1_1_1").
NamedMatrix load_real_matrix(const std::filesystem::path& file);

/// The name load_real_matrix gives `file`, without reading it.
std::string real_matrix_name(const std::filesystem::path& file);

/// The largest sum of |a_ij| over a row that 16-bit products are tested with: |x| <= 1, so every
/// partial sum stays far below fp16's 65504.
inline constexpr double kLargest16BitRowSum = 1000.0;

/// `matrix` scaled so that no row's sum of |a_ij| exceeds kLargest16BitRowSum (unchanged when
/// none does): real matrices hold values beyond fp16's range. The product is linear, and the
/// reference is computed on the converted matrix, so the check stays exact in meaning.
CsrMatrix<double, std::int32_t> scaled_for_16_bit(CsrMatrix<double, std::int32_t> matrix);

/// A name made of [A-Za-z0-9_] from any text (other characters become '_').
std::string sanitized_name(const std::string& text);

// ---- scalars and vectors ----------------------------------------------------------------------

/// y = alpha * A * x + beta * y: the (alpha, beta) pairs every product is checked with: beta == 0
/// on a NaN-poisoned output (which must not be read), and beta != 0, 1 included, on a random one.
struct Scalars {
  double alpha;
  double beta;
};
inline constexpr Scalars kScalarCases[] = {{1.0, 0.0}, {-0.75, 0.0}, {1.5, -0.5}, {0.5, 1.0}};

/// x for y = A x: random in [-1, -0.1] U [0.1, 1], one per column (tcsparse::random_vector).
template <typename Value>
std::vector<Value> make_x(const CsrMatrix<double, std::int32_t>& matrix, std::uint64_t seed = 7) {
  return random_vector<Value>(static_cast<std::size_t>(matrix.cols), seed);
}

/// B for C = A B (row-major, cols x n).
template <typename Value>
std::vector<Value> make_b(const CsrMatrix<double, std::int32_t>& matrix, std::int64_t n,
                          std::uint64_t seed = 11) {
  return random_vector<Value>(static_cast<std::size_t>(matrix.cols) * static_cast<std::size_t>(n),
                              seed);
}

/// An initial y (or C) for beta != 0: random, one per row (times n for SpMM).
template <typename Value>
std::vector<Value> make_y(const CsrMatrix<double, std::int32_t>& matrix, std::int64_t n = 1,
                          std::uint64_t seed = 13) {
  return random_vector<Value>(static_cast<std::size_t>(matrix.rows) * static_cast<std::size_t>(n),
                              seed);
}

/// An output poisoned with NaN, to fill y (or C) before a run with beta == 0: a method that
/// skips a row, or reads y when beta == 0, leaves a NaN that relative_error reports as +Inf.
template <typename Value>
std::vector<Value> make_poisoned(std::size_t size) {
  return std::vector<Value>(size, from_double<Value>(std::numeric_limits<double>::quiet_NaN()));
}

/// A vector in double (for the reference's y / C) from any value type.
template <typename Value>
std::vector<double> to_double_vector(const std::vector<Value>& values) {
  std::vector<double> result(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) result[i] = to_double(values[i]);
  return result;
}

/// The matrix in another value type (rounded to nearest), for fp32 / fp16 / bf16 runs. The
/// reference must then be computed on the converted matrix, not on the double one.
template <typename Value>
CsrMatrix<Value, std::int32_t> with_values(const CsrMatrix<double, std::int32_t>& matrix) {
  CsrMatrix<Value, std::int32_t> result;
  result.rows = matrix.rows;
  result.cols = matrix.cols;
  result.row_ptr = matrix.row_ptr;
  result.col_idx = matrix.col_idx;
  result.values.resize(matrix.values.size());
  for (std::size_t i = 0; i < matrix.values.size(); ++i)
    result.values[i] = from_double<Value>(matrix.values[i]);
  return result;
}

/// A rows x cols row-major array in column-major order (element (i, j) at j * rows + i).
template <typename T>
std::vector<T> transposed(const std::vector<T>& row_major, std::int64_t rows, std::int64_t cols) {
  std::vector<T> result(row_major.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) result[j * rows + i] = row_major[i * cols + j];
  return result;
}

/// The relative error of a host model of C = alpha A B + beta C against spmm_reference: B from
/// make_b, C from make_y (or poisoned when beta == 0), both handed to
/// model(matrix, B, C) in `dense` layout; A is `exact` in Value.
template <typename Value, typename Model>
double host_spmm_model_error(const CsrMatrix<double, std::int32_t>& exact, std::int64_t n,
                             DenseLayout dense, Scalars scalars, Model&& model) {
  const auto matrix = with_values<Value>(exact);
  const std::int64_t rows = exact.rows, cols = exact.cols;
  const bool column_major = dense == DenseLayout::column_major;
  const auto B_row_major = make_b<Value>(exact, n);
  const auto C_start =
      scalars.beta == 0.0 ? make_poisoned<Value>(static_cast<std::size_t>(rows * n))
                          : make_y<Value>(exact, n);  // row-major
  std::vector<double> expected = to_double_vector(C_start);
  spmm_reference(matrix, std::span<const Value>(B_row_major), n, std::span<double>(expected),
                 scalars.alpha, scalars.beta);
  const std::vector<Value> B = column_major ? transposed(B_row_major, cols, n) : B_row_major;
  std::vector<Value> C = column_major ? transposed(C_start, rows, n) : C_start;
  model(matrix, B, C);
  const std::vector<Value> C_row_major = column_major ? transposed(C, n, rows) : C;
  return relative_error(std::span<const Value>(C_row_major), std::span<const double>(expected));
}

/// The tolerance of DESIGN.md for relative_error: fp64 1e-12, fp32 1e-5, fp16 / bf16 1e-2.
template <typename Value>
constexpr double tolerance() {
  if constexpr (precision_of<Value>() == Precision::fp64)
    return 1e-12;
  else if constexpr (precision_of<Value>() == Precision::fp32)
    return 1e-5;
  else
    return 1e-2;
}

}  // namespace tcsparse::test
