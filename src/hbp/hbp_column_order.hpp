// The hubs-first column order of HBP (column_order=, not in the paper): inside each column block
// the columns renumbered by their nonzero count, most first, so that the x values most nonzeros
// gather share sectors and cache lines. In an R-MAT / Kronecker graph a few hub columns hold much
// of the matrix, scattered over x by the vertex labels; numbered first in their stripe they fit a
// few hundred lines of L1 instead of one line each.
//
//   caller column c (block b) --plan order--> b * block_cols + (rank of c in block b)
//     rank: the block's hubs (count >= hub_min_count) by count, most first, then the block's
//     other columns in the caller's order
//   apply: x_plan[j] = x[plan_to_caller[j]]  (one gather), then the layout's kernels on x_plan
//
// The gather reads the hubs' x values at random and the other columns' in increasing order (a
// sweep with holes where the hubs were), so a high hub_min_count makes it almost a copy.
//
// The renumbering keeps every column in its column block, so a row's nonzeros stay in column-block
// order: the partition, the slots and the segments are those of the caller's order. Inside a block
// they are no longer sorted by column; nothing in the layout needs them to be.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tcsparse/csr.hpp"

namespace tcsparse::hbp {

/// The plan order of the columns: plan_to_caller[j] is the caller's column at plan column j. Inside
/// each column block [b * block_cols, (b + 1) * block_cols) the block's hubs, the columns of at
/// least hub_min_count (>= 1) nonzeros, by count, largest first, then its other columns; ties and
/// the other columns in column order (a stable order: the GPU build's radix sort gives the same).
std::vector<std::int32_t> hubs_first_column_order(std::span<const std::int32_t> col_idx,
                                                  std::int64_t cols, std::int32_t block_cols,
                                                  std::int64_t hub_min_count);

/// How concentrated the nonzeros are on few columns: cols * sum(count^2) / nnz^2, the mean count
/// a nonzero's column has, over the mean count (1 when every column holds as many; about
/// 1 + 1 / mean for columns drawn at random; the hub columns of a Kronecker graph make it tens to
/// hundreds). 0 for a matrix without nonzeros.
double column_count_concentration(std::span<const std::int32_t> col_idx, std::int64_t cols);

/// column_order=auto estimates the concentration from the columns of every step-th nonzero (in
/// CSR order), step = max(1, nnz / kConcentrationSampleNonzeros), so that a matrix that keeps the
/// caller's order pays for counting about this many nonzeros, not all of them (counting 128 M
/// nonzeros into 16 M counters took 4.2 ms on an H200, run 292: the counters outgrow the L2). A
/// sample of rows instead took 1.1 ms on rows of up to 10^6 nonzeros (run 293: a warp a row).
inline constexpr std::int64_t kConcentrationSampleNonzeros = std::int64_t{1} << 21;
std::int64_t concentration_sample_step(std::int64_t nnz);

/// The sums of a sample's column counts c' (the sampled nonzeros in each column).
struct SampledColumnCounts {
  std::int64_t sampled_nonzeros = 0;       ///< sum of c'
  unsigned long long sum_of_squares = 0;  ///< sum of c'^2
};

/// The concentration estimated from a sample holding a share f = sampled / nnz of the nonzeros:
/// a column's nonzeros are sampled at f each, so sum(c'^2) - sum(c') estimates f^2 sum(c (c - 1)),
/// hence sum(c^2) ~ (sum(c'^2) - sum(c')) / f^2 + nnz. The whole matrix (step 1) gives the exact
/// column_count_concentration. 0 without nonzeros.
double estimated_column_count_concentration(std::int64_t cols, std::int64_t nnz,
                                            const SampledColumnCounts& sample);

/// The sample of every concentration_sample_step(nnz)-th nonzero of `matrix` (0, step, ...).
template <typename Value>
SampledColumnCounts sampled_column_counts(const CsrMatrix<Value, std::int32_t>& matrix);

/// `matrix` with its columns in the plan order: caller column plan_to_caller[j] becomes column j.
/// Rows keep their nonzeros in their order (column-block order, not column order inside a block).
template <typename Value>
CsrMatrix<Value, std::int32_t> with_plan_columns(const CsrMatrix<Value, std::int32_t>& matrix,
                                                 std::span<const std::int32_t> plan_to_caller);

}  // namespace tcsparse::hbp
