// The hubs-first column order of HBP on the host (hbp_column_order.hpp); the GPU build's is in
// hbp_device_build.cu and gives the same order.
#include "hbp/hbp_column_order.hpp"

#include <algorithm>
#include <numeric>

#include "common/for_each_value.hpp"
#include "common/parallel.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::hbp {
namespace {

/// The nonzeros of each column among nonzeros 0, step, 2 step, ... (step 1: all of them).
std::vector<std::int64_t> column_counts(std::span<const std::int32_t> col_idx, std::int64_t cols,
                                        std::int64_t step = 1) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(cols), 0);
  for (std::size_t k = 0; k < col_idx.size(); k += static_cast<std::size_t>(step))
    ++counts[static_cast<std::size_t>(col_idx[k])];
  return counts;
}

}  // namespace

std::vector<std::int32_t> hubs_first_column_order(std::span<const std::int32_t> col_idx,
                                                  std::int64_t cols, std::int32_t block_cols,
                                                  std::int64_t hub_min_count) {
  std::vector<std::int64_t> counts = column_counts(col_idx, cols);
  for (std::int64_t& count : counts)  // the other columns: all alike, in column order
    if (count < hub_min_count) count = 0;
  std::vector<std::int32_t> plan_to_caller(static_cast<std::size_t>(cols));
  std::iota(plan_to_caller.begin(), plan_to_caller.end(), 0);
  for (std::int64_t first = 0; first < cols; first += block_cols) {
    const std::int64_t last = std::min<std::int64_t>(cols, first + block_cols);
    std::stable_sort(plan_to_caller.begin() + first, plan_to_caller.begin() + last,
                     [&](std::int32_t a, std::int32_t b) {
                       return counts[static_cast<std::size_t>(a)] >
                              counts[static_cast<std::size_t>(b)];
                     });
  }
  return plan_to_caller;
}

double column_count_concentration(std::span<const std::int32_t> col_idx, std::int64_t cols) {
  if (col_idx.empty()) return 0.0;
  double squares = 0.0;
  for (const std::int64_t count : column_counts(col_idx, cols))
    squares += static_cast<double>(count) * static_cast<double>(count);
  const auto nnz = static_cast<double>(col_idx.size());
  return static_cast<double>(cols) * squares / (nnz * nnz);
}

std::int64_t concentration_sample_step(std::int64_t nnz) {
  return std::max<std::int64_t>(1, nnz / kConcentrationSampleNonzeros);
}

double estimated_column_count_concentration(std::int64_t cols, std::int64_t nnz,
                                            const SampledColumnCounts& sample) {
  if (nnz == 0 || sample.sampled_nonzeros == 0) return 0.0;
  const auto n = static_cast<double>(nnz);
  const double share = static_cast<double>(sample.sampled_nonzeros) / n;
  const double pairs = static_cast<double>(sample.sum_of_squares) -
                       static_cast<double>(sample.sampled_nonzeros);
  return static_cast<double>(cols) * (pairs / (share * share) + n) / (n * n);
}

template <typename Value>
SampledColumnCounts sampled_column_counts(const CsrMatrix<Value, std::int32_t>& matrix) {
  SampledColumnCounts sample;
  for (const std::int64_t c :
       column_counts(matrix.col_idx, matrix.cols, concentration_sample_step(matrix.nnz()))) {
    sample.sampled_nonzeros += c;
    sample.sum_of_squares += static_cast<unsigned long long>(c) * static_cast<unsigned long long>(c);
  }
  return sample;
}

template <typename Value>
CsrMatrix<Value, std::int32_t> with_plan_columns(const CsrMatrix<Value, std::int32_t>& matrix,
                                                 std::span<const std::int32_t> plan_to_caller) {
  const std::vector<std::int32_t> caller_to_plan = detail::inverse_order(
      plan_to_caller.data(), static_cast<std::int64_t>(plan_to_caller.size()));
  CsrMatrix<Value, std::int32_t> renumbered = matrix;
  for (std::int32_t& c : renumbered.col_idx) c = caller_to_plan[static_cast<std::size_t>(c)];
  return renumbered;
}

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                   \
  template CsrMatrix<Value, std::int32_t> with_plan_columns(                              \
      const CsrMatrix<Value, std::int32_t>&, std::span<const std::int32_t>);              \
  template SampledColumnCounts sampled_column_counts(const CsrMatrix<Value, std::int32_t>&);
TCSPARSE_FOR_EACH_VALUE(TCSPARSE_HBP_INSTANTIATE)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
