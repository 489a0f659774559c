// The host sparse matrix of tcsparse: compressed sparse row (CSR), and COO for building one.
#pragma once

#include <cstdint>
#include <vector>

#include "tcsparse/types.hpp"

namespace tcsparse {

/// A sparse matrix in compressed sparse row form, on the host.
///
///   row_ptr  [rows + 1]  row i holds entries row_ptr[i] .. row_ptr[i+1]-1
///   col_idx  [nnz]       column of each entry
///   values   [nnz]       value of each entry
///
/// A *valid* matrix (validate() passes) has rows, cols >= 0, row_ptr[0] == 0, row_ptr
/// non-decreasing and ending at nnz, every column in [0, cols), and columns strictly increasing
/// inside each row (sorted, no duplicates). Every method and reference requires a valid matrix;
/// the readers and generators only return valid ones.
template <typename Value, typename Index = std::int32_t>
struct CsrMatrix {
  static_assert(is_value_type_v<Value>, "Value must be double, float, half or bfloat16");
  static_assert(is_index_type_v<Index>, "Index must be std::int32_t or std::int64_t");
  using value_type = Value;
  using index_type = Index;

  Index rows = 0;
  Index cols = 0;
  std::vector<Index> row_ptr{0};
  std::vector<Index> col_idx;
  std::vector<Value> values;

  Index nnz() const { return static_cast<Index>(col_idx.size()); }
  Index row_length(Index row) const { return row_ptr[row + 1] - row_ptr[row]; }

  /// Throws ValidationError naming the first broken invariant, e.g.
  /// "row 17: column 12 follows column 40 (columns must be sorted within a row)".
  void validate() const;
};

/// A CSR matrix whose arrays are already in GPU memory (device or managed), e.g. held by CuPy
/// (`cupyx.scipy.sparse.csr_matrix`: indptr, indices, data) or PyTorch (`crow_indices()`,
/// `col_indices()`, `values()`, converted to int32). A view: it owns nothing and copies nothing.
///
///   row_ptr  [rows + 1]  device pointer, int32, zero-based
///   col_idx  [nnz]       device pointer, int32 (null allowed when nnz == 0)
///   values   [nnz]       device pointer (null allowed when nnz == 0)
///
/// A plan built from a view (SpmvPlan / SpmmPlan) checks on the GPU the invariants that
/// CsrMatrix::validate() checks on the host, with the same ValidationError messages, and that every
/// pointer is device or managed memory of the plan's device. Most methods then keep their own
/// copy or layout; csr_overlap borrows the arrays (parameter device_csr, default auto: when
/// col_idx and values are 16-byte aligned) and reads them at every apply, as a cuSPARSE
/// descriptor does: they must then outlive the plan, and values written into them in place are
/// what the next apply multiplies by (the plan's stats say details.device_csr = "borrowed").
template <typename Value>
struct DeviceCsrView {
  static_assert(is_value_type_v<Value>, "Value must be double, float, half or bfloat16");
  using value_type = Value;

  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const std::int32_t* row_ptr = nullptr;
  const std::int32_t* col_idx = nullptr;
  const Value* values = nullptr;
};

/// Matrix entries in any order, as read from a file.
template <typename Value, typename Index = std::int32_t>
struct CooMatrix {
  Index rows = 0;
  Index cols = 0;
  std::vector<Index> row_idx;
  std::vector<Index> col_idx;
  std::vector<Value> values;

  std::size_t size() const { return row_idx.size(); }
};

/// What to do with two entries at the same (row, column).
enum class DuplicatePolicy {
  sum,    ///< add them up (the Matrix Market convention, and SciPy's)
  error,  ///< throw ValidationError naming the position
};

/// Builds a valid CSR matrix from entries in any order: sorted by row then column, duplicates
/// handled by `duplicates`. Throws ValidationError for an index out of range.
template <typename Value, typename Index>
CsrMatrix<Value, Index> csr_from_coo(const CooMatrix<Value, Index>& coo,
                                     DuplicatePolicy duplicates = DuplicatePolicy::sum);

/// Sorts the columns of every row and sums duplicate entries, in place. row_ptr must already be
/// consistent (monotone, ending at nnz) and indices in range: else ValidationError.
template <typename Value, typename Index>
void canonicalize(CsrMatrix<Value, Index>& matrix);

/// The same matrix with another value type (rounded to nearest).
template <typename ToValue, typename Value, typename Index>
CsrMatrix<ToValue, Index> convert_values(const CsrMatrix<Value, Index>& matrix);

/// The same matrix with another index type. Throws IndexOverflowError, before copying anything,
/// when rows, cols or nnz do not fit ToIndex.
template <typename ToIndex, typename Value, typename Index>
CsrMatrix<Value, ToIndex> convert_indices(const CsrMatrix<Value, Index>& matrix);

/// Row-length statistics, for `tcsparse info` and for the choice of method.
struct RowLengthStats {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t empty_rows = 0;
  std::int64_t min_length = 0, max_length = 0;
  double mean_length = 0.0, stddev_length = 0.0;
  /// histogram[k] counts rows whose length is in [2^(k-1), 2^k) for k >= 1; histogram[0]
  /// counts empty rows. So bucket k covers lengths 1, 2-3, 4-7, 8-15, ...
  std::vector<std::int64_t> log2_histogram;
};

template <typename Value, typename Index>
RowLengthStats row_length_stats(const CsrMatrix<Value, Index>& matrix);

}  // namespace tcsparse
