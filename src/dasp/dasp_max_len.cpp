// DASP's MAX_LEN policy: the longest medium row (resolve_max_medium_row_length), with the
// small-matrix candidates and the dense-long-rows rule (dasp_parameters.hpp names the constants).
#include "dasp/dasp_format_internal.hpp"

#include <algorithm>
#include <limits>

#include "common/parallel.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

/// Longest row the dense-long-rows rule makes medium: the row sort keeps one counter per
/// length (as the parser's limit on max_medium_row_length).
constexpr int64_t kLargestDenseRowLength = 1 << 16;

/// The longest row of a matrix of dense long rows (kDaspDenseRowsMinDensity, every row longer
/// than kDaspMaxMediumRowLength), else 0.
template <typename Value>
int dense_long_rows_length(const CsrMatrix<Value, int32_t>& matrix) {
  const int64_t rows = matrix.rows;
  if (rows == 0 || matrix.cols == 0) return 0;
  const double density = static_cast<double>(matrix.nnz()) /
                         (static_cast<double>(rows) * static_cast<double>(matrix.cols));
  if (density < kDaspDenseRowsMinDensity) return 0;
  int64_t shortest = std::numeric_limits<int64_t>::max(), longest = 0;
  const auto& row_ptr = matrix.row_ptr;
  const int team = threads_for(rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)                        \
    reduction(min : shortest) reduction(max : longest)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t len = int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)];
    shortest = std::min(shortest, len);
    longest = std::max(longest, len);
  }
  if (shortest <= kDaspMaxMediumRowLength || longest > kLargestDenseRowLength) return 0;
  return static_cast<int>(longest);
}

}  // namespace

bool is_dense_long_rows_layout(const DaspParameters& parameters, int max_medium_row_length) {
  return !parameters.max_medium_row_length && max_medium_row_length > kDaspMaxMediumRowLength;
}

template <typename Value>
int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>& matrix,
                                  const DaspParameters& parameters, DaspBlockShape shape) {
  if (parameters.max_medium_row_length) return parameters.max_medium_row_length;
  const int64_t nnz = matrix.nnz();
  if (nnz >= kDaspSmallMatrixNnz) {
    const int dense = shape.rows == 8 ? dense_long_rows_length(matrix) : 0;  // fp64 blocks
    return dense ? dense : kDaspMaxMediumRowLength;
  }
  const int64_t group = int64_t{kDaspBlocksPerLongGroup} * shape.values();
  const int64_t bytes_per_value = static_cast<int64_t>(sizeof(Value)) + 4;
  const auto& row_ptr = matrix.row_ptr;
  // the first candidate whose layout fits the byte budget; failing that, the first whose
  // long-row padding is small
  int little_padding = 0;
  // kDaspSmallMatrixMaxLongRowPadding is for 64-value groups; longer groups pad more
  const double padding_budget =
      kDaspSmallMatrixMaxLongRowPadding * static_cast<double>(group) / (2.0 * 8 * 4);
  for (const int candidate : kDaspSmallMatrixMaxMediumRowLengths) {
    int64_t padding = 0;  // zeros that long rows (> candidate) get to whole groups
    const int64_t rows = matrix.rows;
    const int team = threads_for(rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static) reduction(+ : padding)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t len = int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)];
      if (len > candidate) padding += ceil_div(len, group) * group - len;
    }
    if ((nnz + padding) * bytes_per_value <= kDaspLatencyBoundLayoutBytes) return candidate;
    if (!little_padding && static_cast<double>(padding) <= padding_budget * static_cast<double>(nnz))
      little_padding = candidate;
  }
  if (little_padding) return little_padding;
  return kDaspMaxMediumRowLength;
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>&,                     \
                                             const DaspParameters&, DaspBlockShape);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
