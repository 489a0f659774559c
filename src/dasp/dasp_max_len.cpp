// DASP's MAX_LEN policy: the longest medium row (resolve_max_medium_row_length), with the
// small-matrix candidates and the dense-long-rows rule (dasp_parameters.hpp names the constants),
// and the two facts the kernel's loop shape reads from the resulting layout
// (is_dense_long_rows_layout, long_rows_are_critical).
// The decision reads a summary of the row lengths (RowLengthSummary), which the host computes here
// from row_ptr and the device build on the GPU, so that both take the same MAX_LEN.
#include "dasp/dasp_format_internal.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include "common/parallel.hpp"

namespace tcsparse::dasp {

using namespace internal;

namespace {

/// kDaspMidMatrixMaxMediumRowLength's place among the small-matrix candidates, whose long-row
/// padding the row-length summary holds.
constexpr std::size_t kMidMatrixCandidate = 2;
static_assert(kDaspSmallMatrixMaxMediumRowLengths[kMidMatrixCandidate] ==
              kDaspMidMatrixMaxMediumRowLength);

/// Longest row the dense-long-rows rule makes medium: the row sort keeps one counter per
/// length (as the parser's limit on max_medium_row_length).
constexpr int64_t kLargestDenseRowLength = 1 << 16;

/// The longest row of a matrix of dense long rows (kDaspDenseRowsMinDensity,
/// kDaspDenseRowsMinMeanLength, kDaspDenseRowsMinNnz, every row longer than
/// kDaspMaxMediumRowLength), else 0.
int dense_long_rows_length(const RowLengthSummary& s) {
  if (s.rows == 0 || s.cols == 0) return 0;
  const double density =
      static_cast<double>(s.nnz) / (static_cast<double>(s.rows) * static_cast<double>(s.cols));
  const double mean_length = static_cast<double>(s.nnz) / static_cast<double>(s.rows);
  if (density < kDaspDenseRowsMinDensity || mean_length < kDaspDenseRowsMinMeanLength ||
      s.nnz < kDaspDenseRowsMinNnz)
    return 0;
  if (s.shortest <= kDaspMaxMediumRowLength || s.longest > kLargestDenseRowLength) return 0;
  return static_cast<int>(s.longest);
}

}  // namespace

int64_t internal::long_row_group_values(DaspBlockShape shape) {
  return int64_t{kDaspBlocksPerLongGroup} * shape.values();
}

RowLengthSummary internal::summarize_row_lengths(std::span<const int32_t> row_ptr, int64_t cols,
                                                 DaspBlockShape shape) {
  RowLengthSummary s;
  s.rows = static_cast<int64_t>(row_ptr.size()) - 1;
  s.cols = cols;
  s.nnz = s.rows > 0 ? row_ptr[sz(s.rows)] : 0;
  const int64_t group = long_row_group_values(shape);
  int64_t shortest = std::numeric_limits<int64_t>::max(), longest = 0;
  int64_t padding[kDaspSmallMatrixMaxLenCandidates] = {};  // one per candidate
  int64_t above = 0, medium = 0;
  const int team = threads_for(s.rows, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)                        \
    reduction(min : shortest) reduction(max : longest) reduction(+ : padding, above, medium)
  for (int64_t r = 0; r < s.rows; ++r) {
    const int64_t len = int64_t{row_ptr[sz(r) + 1]} - row_ptr[sz(r)];
    shortest = std::min(shortest, len);
    longest = std::max(longest, len);
    above += len > kDaspMaxMediumRowLength;
    medium += len > kDaspMaxShortRowLength && len <= kDaspMaxMediumRowLength;
    const int64_t pad = ceil_div(len, group) * group - len;
    for (int k = 0; k < kDaspSmallMatrixMaxLenCandidates; ++k)
      if (len > kDaspSmallMatrixMaxMediumRowLengths[k]) padding[k] += pad;
  }
  s.shortest = s.rows > 0 ? shortest : 0;
  s.longest = longest;
  s.rows_above_paper_max = above;
  s.rows_medium_at_paper_max = medium;
  std::copy(std::begin(padding), std::end(padding), s.candidate_padding.begin());
  return s;
}

bool is_dense_long_rows_layout(const DaspParameters& parameters, int max_medium_row_length) {
  return !parameters.max_medium_row_length && max_medium_row_length > kDaspMaxMediumRowLength;
}

bool long_rows_are_critical(const DaspCounts& counts, DaspBlockShape shape, int value_bytes,
                            bool caller_row_order) {
  if (counts.long_tasks == 0) return false;
  const std::int64_t bytes =
      counts.stored_values() * (value_bytes + static_cast<std::int64_t>(sizeof(std::int32_t)));
  if (bytes <= kDaspLongRowsCriticalMaxBytes) return true;
  if (counts.medium_rows_per_warp != shape.rows) return false;
  const std::int64_t rows =
      counts.rows_long + counts.rows_medium + counts.rows_short + counts.rows_empty;
  const bool graph = static_cast<double>(counts.rows_empty) >=
                     kDaspGraphMinEmptyRowShare * static_cast<double>(rows);
  return graph && caller_row_order && value_bytes == static_cast<int>(sizeof(double)) &&
         bytes <= kDaspGraphLongRowsCriticalMaxBytes;
}

int internal::choose_max_medium_row_length(const RowLengthSummary& s,
                                           const DaspParameters& parameters, DaspBlockShape shape,
                                           int value_bytes) {
  if (parameters.max_medium_row_length) return parameters.max_medium_row_length;
  const int64_t group = long_row_group_values(shape);
  // kDaspSmallMatrixMaxLongRowPadding is for 64-value groups; longer groups pad more
  const double padding_budget =
      kDaspSmallMatrixMaxLongRowPadding * static_cast<double>(group) / (2.0 * 8 * 4);
  const auto pads_little = [&](std::size_t candidate) {
    return static_cast<double>(s.candidate_padding[candidate]) <=
           padding_budget * static_cast<double>(s.nnz);
  };
  if (s.nnz >= kDaspSmallMatrixNnz) {
    const bool dense_rows_rule = shape.rows == 8;  // fp64 blocks only
    if (const int dense = dense_rows_rule ? dense_long_rows_length(s) : 0) return dense;
    if (s.rows_above_paper_max > 0 && s.rows_above_paper_max >= s.rows_medium_at_paper_max)
      return kDaspFewMediumRowsMaxMediumRowLength;
    const bool mid_size_rows =  // fp64; fp16 / bf16 only where the rows are sparse
        shape.rows == 8 ||
        static_cast<double>(s.nnz) <= kDaspMidMatrixSparseRowsMaxMean * static_cast<double>(s.rows);
    return s.nnz < kDaspMidMatrixNnz && mid_size_rows && pads_little(kMidMatrixCandidate)
               ? kDaspMidMatrixMaxMediumRowLength
               : kDaspMaxMediumRowLength;
  }
  const int64_t bytes_per_value = value_bytes + 4;
  // the first candidate whose layout fits the byte budget; failing that, the first whose
  // long-row padding is small
  int little_padding = 0;
  for (std::size_t k = 0; k < std::size(kDaspSmallMatrixMaxMediumRowLengths); ++k) {
    const int candidate = kDaspSmallMatrixMaxMediumRowLengths[k];
    const int64_t padding = s.candidate_padding[k];  // zeros long rows (> candidate) get
    if ((s.nnz + padding) * bytes_per_value <= kDaspLatencyBoundLayoutBytes) return candidate;
    if (!little_padding && pads_little(k)) little_padding = candidate;
  }
  if (little_padding) return little_padding;
  return kDaspMaxMediumRowLength;
}

template <typename Value>
int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>& matrix,
                                  const DaspParameters& parameters, DaspBlockShape shape) {
  if (parameters.max_medium_row_length) return parameters.max_medium_row_length;
  return choose_max_medium_row_length(
      summarize_row_lengths(matrix.row_ptr, matrix.cols, shape), parameters, shape,
      static_cast<int>(sizeof(Value)));
}

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template int resolve_max_medium_row_length(const CsrMatrix<Value, int32_t>&,                     \
                                             const DaspParameters&, DaspBlockShape);
TCSPARSE_DASP_FOR_EACH_VALUE(TCSPARSE_DASP_INSTANTIATE)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
