// HBP (paper III.A-C): the host format and the host model of the kernels. The layout's promises
// (every nonzero once, in its block, add_sign walks stay in their group, groups of 1..32 slots,
// tasks inside one column block), the nonlinear hash (aggregation, dispersion, linear mapping,
// collisions), and the host apply against the reference on the shared catalogue and on the
// issue's cases: zero rows, all-zero blocks, a row longer than a block, one block, a block row of
// one row, columns not a multiple of the block width, collisions forced by equal row lengths, more
// warps than blocks and the reverse, all three reorder modes giving the same y. The kernel's walk
// (positions from slot_last_round, walk_rounds) against the paper's add_sign chains, on the
// catalogue and on groups with holes. The hubs-first column order (column_order): each block's
// columns by count, a permutation keeping every column in its block, and the concentration that
// column_order=auto reads. Every slot writing its own partial sum (slot_output=partial,
// give_every_slot_a_partial): each slot in its row's list once, in column-block order, and the
// host apply of that layout against the reference. With update_values=on, each stored value's
// CSR index (value_source): a permutation of the nonzeros, each with its value and column.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "hbp/hbp_column_order.hpp"
#include "hbp/hbp_format.hpp"
#include "hbp/hbp_parameters.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::hbp {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
using test::NamedMatrix;

/// The generated catalogue matrix called `name`.
Matrix generated(const std::string& name) {
  for (const NamedMatrix& m : test::generated_matrices())
    if (m.name == name) return m.matrix;
  throw Error("no generated test matrix " + name);
}

Matrix matrix_with_lengths(std::int64_t cols, const std::vector<std::int64_t>& lengths,
                           std::uint64_t seed = 1) {
  return test::with_row_lengths(cols, lengths, seed);
}

/// block_cols for `matrix` as a plan resolves it, with the host model's L2 (kHostModelL2Bytes).
template <typename Value>
std::int32_t block_cols_of(const HbpParameters& p, const CsrMatrix<Value, std::int32_t>& matrix,
                           std::size_t value_bytes) {
  return p.resolved_block_cols(value_bytes, matrix.cols, kHostModelL2Bytes);
}

/// The structural promises of a layout of `matrix`.
template <typename Value>
void expect_valid_layout(const CsrMatrix<Value, std::int32_t>& matrix, const HbpLayout<Value>& layout,
                         std::int32_t blocks_per_task) {
  ASSERT_EQ(layout.begin_nnz.back(), matrix.nnz());
  ASSERT_EQ(layout.block_group_begin.size(), layout.block_col.size() + 1);
  // blocks in column-block, then row-block order; non-empty
  for (std::int64_t b = 0; b < layout.blocks(); ++b) {
    const auto ub = static_cast<std::size_t>(b);
    ASSERT_LT(layout.block_group_begin[ub], layout.block_group_begin[ub + 1]) << "empty block " << b;
    if (b > 0) {
      const bool ordered = layout.block_col[ub - 1] < layout.block_col[ub] ||
                           (layout.block_col[ub - 1] == layout.block_col[ub] &&
                            layout.block_row[ub - 1] < layout.block_row[ub]);
      ASSERT_TRUE(ordered) << "block " << b;
    }
  }
  // groups of 1..32 slots; each lane's walk stays inside its group and covers it exactly once;
  // a slot's nonzeros in the CSR's order: column order where the rows are sorted (the caller's
  // columns; the hubs-first order renumbers them inside each block)
  const bool rows_sorted = [&] {
    for (std::int32_t r = 0; r < matrix.rows; ++r)
      for (std::int32_t k = matrix.row_ptr[r] + 1; k < matrix.row_ptr[r + 1]; ++k)
        if (matrix.col_idx[static_cast<std::size_t>(k - 1)] >
            matrix.col_idx[static_cast<std::size_t>(k)])
          return false;
    return true;
  }();
  std::vector<int> visits(static_cast<std::size_t>(matrix.nnz()), 0);
  for (std::int64_t g = 0; g < layout.groups(); ++g) {
    const auto ug = static_cast<std::size_t>(g);
    const std::int32_t n = layout.group_slot_begin[ug + 1] - layout.group_slot_begin[ug];
    ASSERT_GE(n, 1);
    ASSERT_LE(n, kGroupRows);
    const std::int64_t begin = layout.begin_nnz[ug], end = layout.begin_nnz[ug + 1];
    for (std::int32_t l = 0; l < n; ++l) {
      std::int64_t j = begin + l;
      std::int32_t step = 0;
      std::int32_t previous_column = -1;
      do {
        ASSERT_GE(j, begin);
        ASSERT_LT(j, end);
        visits[static_cast<std::size_t>(j)] += 1;
        const std::int32_t column = column_in_block(layout.col_add_sign[static_cast<std::size_t>(j)]);
        ASSERT_LT(column, layout.block_cols);
        if (rows_sorted) {
          ASSERT_GT(column, previous_column) << "a slot's nonzeros are in column order";
        }
        previous_column = column;
        step = add_sign(layout.col_add_sign[static_cast<std::size_t>(j)]);
        ASSERT_TRUE(step == -1 || (step > 0 && step <= kGroupRows)) << step;
        j += step;
      } while (step > 0);
    }
  }
  for (std::size_t e = 0; e < visits.size(); ++e) ASSERT_EQ(visits[e], 1) << "nonzero " << e;
  // each group knows its block's column block (kernel=groups reads x there)
  ASSERT_EQ(layout.group_col.size(), static_cast<std::size_t>(layout.groups()));
  for (std::int64_t b = 0; b < layout.blocks(); ++b)
    for (std::int32_t g = layout.block_group_begin[static_cast<std::size_t>(b)];
         g < layout.block_group_begin[static_cast<std::size_t>(b) + 1]; ++g)
      ASSERT_EQ(layout.group_col[static_cast<std::size_t>(g)], layout.block_col[static_cast<std::size_t>(b)]);
  // partial sums numbered in slot order (a group writes one run); the combine's list names each
  // exactly once
  std::int32_t next_partial = 0;
  for (const std::int32_t destination : layout.output_hash) {
    if (destination >= 0) {
      ASSERT_EQ(destination, next_partial++);
    }
  }
  ASSERT_EQ(next_partial, layout.partials());
  std::vector<int> named(static_cast<std::size_t>(layout.partials()), 0);
  for (const std::int32_t partial : layout.combine_partials) named.at(static_cast<std::size_t>(partial)) += 1;
  for (const int n : named) ASSERT_EQ(n, 1);
  // tasks: contiguous, inside one column block, at most blocks_per_task blocks
  ASSERT_EQ(layout.task_block_begin.size(), layout.task_col.size() + 1);
  ASSERT_EQ(layout.task_block_begin.back(), layout.blocks());
  for (std::int64_t t = 0; t < layout.tasks(); ++t) {
    const auto ut = static_cast<std::size_t>(t);
    ASSERT_LT(layout.task_block_begin[ut], layout.task_block_begin[ut + 1]);
    ASSERT_LE(layout.task_block_begin[ut + 1] - layout.task_block_begin[ut], blocks_per_task);
    for (std::int32_t b = layout.task_block_begin[ut]; b < layout.task_block_begin[ut + 1]; ++b)
      ASSERT_EQ(layout.block_col[static_cast<std::size_t>(b)], layout.task_col[ut]);
    // the shared x segment only where the task's nonzeros pay for loading it
    const auto first = static_cast<std::size_t>(layout.task_block_begin[ut]);
    const auto last = static_cast<std::size_t>(layout.task_block_begin[ut + 1]);
    const std::int64_t nnz = layout.begin_nnz[static_cast<std::size_t>(layout.block_group_begin[last])] -
                             layout.begin_nnz[static_cast<std::size_t>(layout.block_group_begin[first])];
    const std::int64_t origin = static_cast<std::int64_t>(layout.task_col[ut]) * layout.block_cols;
    const std::int64_t width = std::min<std::int64_t>(layout.block_cols, layout.cols - origin);
    const bool fits = static_cast<std::int64_t>(layout.block_cols) *
                          static_cast<std::int64_t>(sizeof(Value)) <= kLargestSharedSegmentBytes;
    ASSERT_EQ(layout.task_shared_x.at(ut),
              fits && nnz * kSectorBytes >= width * static_cast<std::int64_t>(sizeof(Value)) ? 1 : 0);
  }
}

/// slot_output=partial's promises (give_every_slot_a_partial of `before` is `after`): no
/// output_hash, no combine_rows; every row's list (combine_begin has rows + 1 entries) names each
/// of its slots once, in column-block order, its partial sums' slots in their list's order.
template <typename Value>
void expect_every_slot_in_its_rows_list(const HbpLayout<Value>& before,
                                        const HbpLayout<Value>& after) {
  EXPECT_TRUE(after.output_hash.empty());
  EXPECT_TRUE(after.combine_rows.empty());
  ASSERT_EQ(after.combine_row_count(), after.rows);
  ASSERT_EQ(after.partials(), after.slots());
  std::vector<std::int32_t> group_of_slot(static_cast<std::size_t>(after.slots()));
  for (std::int64_t g = 0; g < after.groups(); ++g)
    for (std::int32_t s = after.group_slot_begin[static_cast<std::size_t>(g)];
         s < after.group_slot_begin[static_cast<std::size_t>(g) + 1]; ++s)
      group_of_slot[static_cast<std::size_t>(s)] = static_cast<std::int32_t>(g);
  // each slot's row, from the layout before: output_hash ~row, or its partial's combine row
  std::vector<std::int64_t> partial_row(static_cast<std::size_t>(before.partials()), -1);
  for (std::size_t k = 0; k < before.combine_rows.size(); ++k)
    for (std::int32_t i = before.combine_begin[k]; i < before.combine_begin[k + 1]; ++i)
      partial_row[static_cast<std::size_t>(before.combine_partials[static_cast<std::size_t>(i)])] =
          before.combine_rows[k];
  std::vector<int> listed(static_cast<std::size_t>(after.slots()), 0);
  for (std::int64_t r = 0; r < after.rows; ++r) {
    std::int32_t previous_column_block = -1;
    for (std::int32_t i = after.combine_begin[static_cast<std::size_t>(r)];
         i < after.combine_begin[static_cast<std::size_t>(r) + 1]; ++i) {
      const auto slot =
          static_cast<std::size_t>(after.combine_partials[static_cast<std::size_t>(i)]);
      ++listed.at(slot);
      const std::int32_t destination = before.output_hash[slot];
      const std::int64_t row =
          destination < 0 ? ~destination : partial_row[static_cast<std::size_t>(destination)];
      EXPECT_EQ(row, r) << "slot " << slot;
      const std::int32_t column_block =
          after.group_col[static_cast<std::size_t>(group_of_slot[slot])];
      EXPECT_GE(column_block, previous_column_block) << "row " << r;
      previous_column_block = column_block;
    }
  }
  EXPECT_EQ(std::count(listed.begin(), listed.end(), 1), after.slots());
}

/// ||host_apply - reference|| / ||reference|| for Value, every scalar case; also checks the
/// layout's promises.
template <typename Value>
double worst_error(const Matrix& matrix64, const std::vector<std::string>& parameters,
                   std::int64_t grid = 13) {
  const Matrix scaled = std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto caller_a = test::with_values<Value>(scaled);
  const HbpParameters p = parse_parameters(parameters);
  const std::int32_t block_cols = block_cols_of(p, caller_a, sizeof(Value));
  // the plan's column order (column_order): its layout holds the renumbered columns and reads x
  // gathered into that order
  std::vector<std::int32_t> plan_to_caller;
  if (p.counts_columns(caller_a.nnz()) &&
      p.hubs_first(estimated_column_count_concentration(caller_a.cols, caller_a.nnz(),
                                                        sampled_column_counts(caller_a))))
    plan_to_caller = hubs_first_column_order(
        caller_a.col_idx, caller_a.cols, block_cols,
        p.resolved_hub_min_count(caller_a.nnz(), caller_a.cols));
  const auto a = plan_to_caller.empty() ? caller_a : with_plan_columns(caller_a, plan_to_caller);
  HbpLayout<Value> layout = build_layout(a, p, block_cols);
  expect_valid_layout(a, layout, p.resolved_blocks_per_task(layout.blocks()));
  if (p.slot_output == SlotOutput::partial) {
    const HbpLayout<Value> before = layout;
    give_every_slot_a_partial(layout);
    expect_every_slot_in_its_rows_list(before, layout);
  }
  Schedule schedule =
      make_schedule(layout.tasks(), grid, p.resolved_fixed_share(layout.block_cols, sizeof(Value)));
  schedule.combine_warp_partials = p.combine_warp_partials;
  schedule.combine_by_warps = p.combines_by_warps(layout.combine_row_count());
  const auto caller_x = test::make_x<Value>(scaled);
  std::vector<Value> x = caller_x;
  for (std::size_t j = 0; j < plan_to_caller.size(); ++j)
    x[j] = caller_x[static_cast<std::size_t>(plan_to_caller[j])];
  const auto y0 = test::make_y<Value>(scaled);
  double worst = 0.0;
  for (const test::Scalars s : test::kScalarCases) {
    std::vector<double> reference = test::to_double_vector(y0);
    spmv_reference(caller_a, std::span<const Value>(caller_x), std::span<double>(reference),
                   s.alpha, s.beta);
    std::vector<double> y = test::to_double_vector(y0);
    if (s.beta == 0.0) std::fill(y.begin(), y.end(), std::numeric_limits<double>::quiet_NaN());
    host_apply(layout, schedule, std::span<const Value>(x), std::span<double>(y), s.alpha, s.beta);
    worst = std::max(worst, relative_error(std::span<const double>(y),
                                           std::span<const double>(reference)));
  }
  return worst;
}

/// Parameter sets that stress the partition on small matrices.
const std::vector<std::vector<std::string>> kStressParameters = {
    {},
    {"block_rows=512", "block_cols=4096"},                       // the paper's sizes
    {"block_rows=7", "block_cols=16", "blocks_per_task=3"},      // many tiny blocks
    {"block_rows=64", "block_cols=24", "reorder=sort"},
    {"block_rows=33", "block_cols=40", "reorder=none", "warp_row_length=off"},
    {"block_rows=1", "block_cols=8"},                            // a block row holds one row
    {"block_rows=100", "block_cols=64", "warp_row_length=2", "fixed_share=1"},
    {"block_rows=300", "block_cols=128", "fixed_share=0", "blocks_per_task=1"},
    {"block_cols=24576", "max_slot_length=3"},  // x beyond a shared segment; rows cut in threes
    {"block_rows=16", "block_cols=72", "max_slot_length=5", "warp_row_length=4"},
    {"column_order=hubs_first"},                                 // x gathered: one block
    {"column_order=hubs_first", "block_rows=64", "block_cols=24", "reorder=sort"},  // stripes
    {"column_order=hubs_first", "block_cols=40", "hub_min_count=3"},  // hubs, then the rest
    // every slot its own partial sum: one block (every row combined), stripes, rows cut
    {"slot_output=partial"},
    {"slot_output=partial", "block_rows=64", "block_cols=24", "reorder=sort"},
    {"slot_output=partial", "block_rows=16", "block_cols=72", "max_slot_length=5",
     "warp_row_length=4"},
    {"slot_output=partial", "column_order=hubs_first", "block_cols=40"},
    // combine lists by the whole warp: every list, and lists of slots of one nonzero, a thread a
    // combine row; then a warp a combine row (few rows: the default) and every row by its thread
    {"max_slot_length=3", "combine_warp_partials=1", "combine_warp_rows=off"},
    {"slot_output=partial", "block_cols=24", "max_slot_length=1", "combine_warp_partials=2",
     "combine_warp_rows=off"},
    {"max_slot_length=3", "combine_warp_rows=1000000"},
    {"max_slot_length=2", "combine_warp_partials=off", "combine_warp_rows=off"},
};

class HbpHostApplyOnCatalogue : public ::testing::TestWithParam<NamedMatrix> {};

TEST_P(HbpHostApplyOnCatalogue, MatchesReferenceInEveryPrecision) {
  const Matrix& matrix = GetParam().matrix;
  EXPECT_LT(worst_error<double>(matrix, {}), 1e-12);
  EXPECT_LT(worst_error<float>(matrix, {}), 1e-5);
  EXPECT_LT(worst_error<half>(matrix, {}), 1e-2);
  EXPECT_LT(worst_error<bfloat16>(matrix, {}), 1e-2);
}

TEST_P(HbpHostApplyOnCatalogue, EverySlotWritingItsOwnPartialMatchesReferenceInEveryPrecision) {
  const Matrix& matrix = GetParam().matrix;
  if (matrix.nnz() > 400000) GTEST_SKIP() << "large: the smaller ones cover the rewrite";
  const std::vector<std::string> stripes = {"slot_output=partial", "block_cols=64"};
  EXPECT_LT(worst_error<double>(matrix, stripes), 1e-12);
  EXPECT_LT(worst_error<float>(matrix, stripes), 1e-5);
  EXPECT_LT(worst_error<half>(matrix, stripes), 1e-2);
  EXPECT_LT(worst_error<bfloat16>(matrix, stripes), 1e-2);
}

TEST_P(HbpHostApplyOnCatalogue, MatchesReferenceWithStressParameters) {
  const Matrix& matrix = GetParam().matrix;
  if (matrix.nnz() > 400000) GTEST_SKIP() << "large: the defaults' test covers it";
  for (const auto& parameters : kStressParameters) {
    std::string text;
    for (const auto& s : parameters) text += s + " ";
    EXPECT_LT(worst_error<double>(matrix, parameters), 1e-12) << text;
  }
}

/// The lengths of the layout's slots, in slot order (walking each lane's add_sign chain).
std::vector<std::int64_t> slot_lengths(const HbpLayout<double>& layout) {
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(layout.slots()), 0);
  for (std::int64_t g = 0; g < layout.groups(); ++g) {
    const auto ug = static_cast<std::size_t>(g);
    const std::int32_t slot0 = layout.group_slot_begin[ug];
    const std::int32_t count = layout.group_slot_begin[ug + 1] - slot0;
    if (count == 1) {
      lengths[static_cast<std::size_t>(slot0)] = layout.begin_nnz[ug + 1] - layout.begin_nnz[ug];
      continue;
    }
    for (std::int32_t l = 0; l < count; ++l) {
      std::int64_t j = layout.begin_nnz[ug] + l, length = 1;
      for (std::int32_t step = add_sign(layout.col_add_sign[static_cast<std::size_t>(j)]); step > 0;
           step = add_sign(layout.col_add_sign[static_cast<std::size_t>(j)]), ++length)
        j += step;
      lengths[static_cast<std::size_t>(slot0 + l)] = length;
    }
  }
  return lengths;
}

// The GPU build decides groups and tasks per slot / per block (starts_run, starts_group,
// starts_task with max scans); the host builder in one sequential pass. Both must agree.
TEST_P(HbpHostApplyOnCatalogue, DeviceBuildRulesGiveTheHostBuildersGroupsAndTasks) {
  const Matrix& matrix = GetParam().matrix;
  if (matrix.nnz() > 400000) GTEST_SKIP() << "large: the smaller ones cover the rules";
  for (const auto& parameters : kStressParameters) {
    const HbpParameters p = parse_parameters(parameters);
    const HbpLayout<double> layout = build_layout(matrix, p, block_cols_of(p, matrix, sizeof(double)));
    const std::vector<std::int64_t> lengths = slot_lengths(layout);
    std::vector<std::int32_t> group_slot_begin;
    std::int64_t run_start = 0;
    for (std::int64_t b = 0; b < layout.blocks(); ++b) {
      const auto ub = static_cast<std::size_t>(b);
      const std::int64_t first =
          layout.group_slot_begin[static_cast<std::size_t>(layout.block_group_begin[ub])];
      const std::int64_t end =
          layout.group_slot_begin[static_cast<std::size_t>(layout.block_group_begin[ub + 1])];
      for (std::int64_t i = first; i < end; ++i) {
        const bool is_long = is_long_slot(lengths[static_cast<std::size_t>(i)], p.warp_row_length);
        const bool previous_long =
            i > first && is_long_slot(lengths[static_cast<std::size_t>(i - 1)], p.warp_row_length);
        if (starts_run(i == first, is_long, previous_long)) run_start = i;
        if (starts_group(i, run_start, is_long))
          group_slot_begin.push_back(static_cast<std::int32_t>(i));
      }
    }
    group_slot_begin.push_back(static_cast<std::int32_t>(layout.slots()));
    EXPECT_EQ(group_slot_begin, layout.group_slot_begin) << GetParam().name;

    const std::int32_t per_task = p.resolved_blocks_per_task(layout.blocks());
    std::vector<std::int32_t> task_block_begin;
    std::int64_t column_run_start = 0;
    for (std::int64_t b = 0; b < layout.blocks(); ++b) {
      const auto ub = static_cast<std::size_t>(b);
      if (b == 0 || layout.block_col[ub] != layout.block_col[ub - 1]) column_run_start = b;
      if (starts_task(b, column_run_start, per_task))
        task_block_begin.push_back(static_cast<std::int32_t>(b));
    }
    task_block_begin.push_back(static_cast<std::int32_t>(layout.blocks()));
    EXPECT_EQ(task_block_begin, layout.task_block_begin) << GetParam().name;
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, HbpHostApplyOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName());

// ---- the kernel's walk (positions from slot_last_round) against the paper's (add_sign) --------

/// The contract between the two walks: for every group, each lane's positions from the slot
/// lengths (walk_rounds, what the kernel and host_apply do) are its add_sign chain, in order, and
/// slot_last_round is each chain's length - 1.
template <typename Value>
void expect_round_walk_is_add_sign_walk(const HbpLayout<Value>& layout, const std::string& context) {
  ASSERT_EQ(layout.slot_last_round.size(), layout.output_hash.size()) << context;
  for (std::int64_t g = 0; g < layout.groups(); ++g) {
    const auto ug = static_cast<std::size_t>(g);
    const std::int32_t slot0 = layout.group_slot_begin[ug];
    const std::int32_t count = layout.group_slot_begin[ug + 1] - slot0;
    const std::int64_t begin = layout.begin_nnz[ug];
    std::vector<std::vector<std::int64_t>> chain(static_cast<std::size_t>(count)), walked = chain;
    for (std::int32_t l = 0; l < count; ++l) {
      std::int64_t j = begin + l;
      for (;;) {
        chain[static_cast<std::size_t>(l)].push_back(j);
        const std::int32_t step = add_sign(layout.col_add_sign[static_cast<std::size_t>(j)]);
        if (step < 0) break;
        j += step;
      }
      ASSERT_EQ(static_cast<std::size_t>(layout.slot_last_round[static_cast<std::size_t>(slot0 + l)]) + 1,
                chain[static_cast<std::size_t>(l)].size())
          << context << ": group " << g << " lane " << l;
    }
    std::int32_t previous_round = 0;
    walk_rounds(std::span<const std::uint16_t>(layout.slot_last_round)
                    .subspan(static_cast<std::size_t>(slot0), static_cast<std::size_t>(count)),
                begin, [&](std::int32_t l, std::int32_t t, std::int64_t j) {
                  EXPECT_GE(t, previous_round);  // round by round
                  previous_round = t;
                  EXPECT_EQ(walked[static_cast<std::size_t>(l)].size(), static_cast<std::size_t>(t));
                  walked[static_cast<std::size_t>(l)].push_back(j);
                });
    ASSERT_EQ(walked, chain) << context << ": group " << g;
  }
}

class HbpRoundWalkOnCatalogue : public ::testing::TestWithParam<NamedMatrix> {};

TEST_P(HbpRoundWalkOnCatalogue, PositionsFromSlotLengthsAreTheAddSignWalk) {
  const Matrix& matrix = GetParam().matrix;
  if (matrix.nnz() > 400000) GTEST_SKIP() << "large: the smaller ones cover the walk";
  for (const auto& parameters : kStressParameters) {
    std::string text = GetParam().name + ":";
    for (const auto& s : parameters) text += " " + s;
    const HbpParameters p = parse_parameters(parameters);
    expect_round_walk_is_add_sign_walk(build_layout(matrix, p, block_cols_of(p, matrix, sizeof(double))),
                                       text);
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, HbpRoundWalkOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName());

TEST(HbpRoundWalk, PositionsOfAHandWrittenGroup) {
  // lengths 2, 1, 3: round 0 = lanes 0 1 2 at 10 11 12; round 1 = lanes 0 2 at 13 14; round 2 =
  // lane 2 at 15 (lane 1 dead from round 1: a hole the popcount closes)
  const std::vector<std::uint16_t> last_round = {1, 0, 2};
  std::vector<std::vector<std::int64_t>> positions(3);
  walk_rounds(std::span<const std::uint16_t>(last_round), 10,
              [&](std::int32_t l, std::int32_t, std::int64_t j) {
                positions[static_cast<std::size_t>(l)].push_back(j);
              });
  EXPECT_EQ(positions, (std::vector<std::vector<std::int64_t>>{{10, 13}, {11}, {12, 14, 15}}));
}

TEST(HbpRoundWalk, GroupsWithHolesMixingShortAndLongSlots) {
  // one block (reorder=none keeps the matrix order, warp groups off keeps the 63s in lane groups):
  // slots of 5, 1, 9, 1, 63, 1, 63, 2, ... so that lanes die between living ones in every round
  // (empty rows get no slot)
  const std::vector<std::int64_t> pattern = {5, 0, 1, 9, 1, 63, 1, 63, 2, 1, 0, 1, 17, 63, 1, 3, 1, 63};
  std::vector<std::int64_t> lengths, slot_lengths;
  for (int r = 0; r < 80; ++r) {
    lengths.push_back(pattern[static_cast<std::size_t>(r) % pattern.size()]);
    if (lengths.back() > 0) slot_lengths.push_back(lengths.back());
  }
  const Matrix matrix = matrix_with_lengths(64, lengths, 21);
  for (const std::vector<std::string>& parameters :
       {std::vector<std::string>{"block_rows=128", "block_cols=64", "reorder=none",
                                 "warp_row_length=off"},
        std::vector<std::string>{"block_rows=128", "block_cols=64", "reorder=hash",
                                 "warp_row_length=off"},
        std::vector<std::string>{"block_rows=128", "block_cols=64", "reorder=none",
                                 "warp_row_length=63"}}) {
    const HbpParameters p = parse_parameters(parameters);
    const HbpLayout<double> layout = build_layout(matrix, p, 64);
    std::string text;
    for (const auto& s : parameters) text += s + " ";
    expect_round_walk_is_add_sign_walk(layout, text);
    if (p.reorder == Reorder::none && p.warp_row_length == 0) {
      ASSERT_EQ(slot_lengths.size(), 71u);
      ASSERT_EQ(layout.groups(), 3);  // 32 + 32 + 7 slots
      ASSERT_EQ(layout.slots(), 71);
      for (std::size_t i = 0; i < slot_lengths.size(); ++i)
        EXPECT_EQ(layout.slot_last_round[i] + 1, slot_lengths[i]) << i;
    }
    EXPECT_LT(worst_error<double>(matrix, parameters), 1e-12) << text;
    EXPECT_LT(worst_error<half>(matrix, parameters), 1e-2) << text;
  }
}

TEST(HbpRoundWalk, SlotOfTheLongestSlotLengthFitsSixteenBits) {
  // a row of 65536 nonzeros in one block with max_slot_length 65536: slot_last_round = 65535,
  // the largest 16 bits hold
  std::vector<std::int64_t> lengths = {3, 65536, 1, 0, 7};
  const Matrix matrix = matrix_with_lengths(65536, lengths, 22);
  const std::vector<std::string> parameters = {"block_cols=65536", "warp_row_length=off",
                                               "block_rows=32", "max_slot_length=65536"};
  const HbpParameters p = parse_parameters(parameters);
  const HbpLayout<double> layout = build_layout(matrix, p, 65536);
  ASSERT_EQ(layout.slots(), 4);
  EXPECT_EQ(*std::max_element(layout.slot_last_round.begin(), layout.slot_last_round.end()), 65535);
  expect_round_walk_is_add_sign_walk(layout, "65536");
  EXPECT_LT(worst_error<double>(matrix, parameters), 1e-12);
}

TEST(HbpHostApplyOnRealMatrices, MatchesReferenceWithDefaultsAndSmallBlocks) {
  const auto files = test::real_matrix_files(16);
  if (files.empty()) GTEST_SKIP() << "no real matrices (MANIFEST.tsv) under " << test::matrix_dir();
  for (const auto& file : files) {
    const NamedMatrix named = test::load_real_matrix(file);
    EXPECT_LT(worst_error<double>(named.matrix, {}), 1e-12) << named.name;
    EXPECT_LT(worst_error<float>(named.matrix, {}), 1e-5) << named.name;
    EXPECT_LT(worst_error<double>(named.matrix, {"block_rows=64", "block_cols=256"}), 1e-12)
        << named.name;
  }
}

TEST(HbpLayout, SlotsOfAtLeastWarpRowLengthAreWarpGroupsOfTheirOwn) {
  std::vector<std::int64_t> lengths;
  for (int r = 0; r < 200; ++r) lengths.push_back(r % 10 == 0 ? 40 + r % 30 : 1 + r % 7);
  const Matrix matrix = matrix_with_lengths(500, lengths);
  const HbpLayout<double> layout = build_layout(matrix, parse_parameters({"warp_row_length=40"}), 512);
  std::int64_t warp_groups = 0;
  for (std::int64_t g = 0; g < layout.groups(); ++g) {
    const auto ug = static_cast<std::size_t>(g);
    const std::int64_t rows = layout.group_slot_begin[ug + 1] - layout.group_slot_begin[ug];
    const std::int64_t nnz = layout.begin_nnz[ug + 1] - layout.begin_nnz[ug];
    if (layout.is_warp_group(g)) ++warp_groups;
    if (rows > 1) {
      EXPECT_LT(nnz, 40 * rows) << "a long slot shares a group";
    }
  }
  EXPECT_EQ(warp_groups, 20);  // rows 0, 10, ..., 190
  EXPECT_LT(worst_error<double>(matrix, {"warp_row_length=40"}), 1e-12);
}

// ---- the cases ---------------------------------------------------------------------

TEST(HbpHostApply, ZeroRowsAndAllZeroBlocksGetNoSlotsAndYetTheirRowsAreWritten) {
  // rows 0..63 empty, rows 64..127 only in the first 16 columns: blocks of the other columns empty
  std::vector<std::int64_t> lengths(128, 0);
  for (int r = 64; r < 128; ++r) lengths[static_cast<std::size_t>(r)] = 1 + r % 5;
  Matrix matrix = matrix_with_lengths(16, lengths);
  matrix.cols = 256;  // columns 16..255 hold nothing
  const HbpParameters p = parse_parameters({"block_rows=32", "block_cols=16"});
  const HbpLayout<double> layout = build_layout(matrix, p, 16);
  EXPECT_EQ(layout.blocks(), 2);  // row blocks 2 and 3 of column block 0
  EXPECT_EQ(layout.slots(), 64);
  EXPECT_EQ(layout.combine_rows.size(), 64u);  // the empty rows: y = beta * y
  EXPECT_LT(worst_error<double>(matrix, {"block_rows=32", "block_cols=16"}), 1e-12);
}

TEST(HbpHostApply, RowLongerThanABlockSpansColumnBlocksAndIsCombined) {
  std::vector<std::int64_t> lengths(50, 3);
  lengths[17] = 900;  // longer than a block of 64 columns: in 15 column blocks
  const Matrix matrix = matrix_with_lengths(1000, lengths);
  for (const char* warp : {"warp_row_length=16", "warp_row_length=off"})
    EXPECT_LT(worst_error<double>(matrix, {"block_rows=16", "block_cols=64", warp}), 1e-12) << warp;
  const HbpParameters p = parse_parameters({"block_rows=16", "block_cols=64"});
  const HbpLayout<double> layout = build_layout(matrix, p, 64);
  EXPECT_GE(layout.partials(), 15);
}

TEST(HbpHostApply, OneBlockHoldsTheWholeMatrixAndNeedsNoCombine) {
  const Matrix matrix = matrix_with_lengths(100, std::vector<std::int64_t>(90, 7));
  const HbpParameters p = parse_parameters({"block_rows=128", "block_cols=128"});
  const HbpLayout<double> layout = build_layout(matrix, p, 128);
  EXPECT_EQ(layout.blocks(), 1);
  EXPECT_EQ(layout.partials(), 0);
  EXPECT_TRUE(layout.combine_rows.empty());
  EXPECT_LT(worst_error<double>(matrix, {"block_rows=128", "block_cols=128"}), 1e-12);
}

TEST(HbpHostApply, BlockRowOfOneRow) {
  std::vector<std::int64_t> lengths = {5, 0, 17, 1, 300, 2};
  const Matrix matrix = matrix_with_lengths(333, lengths);
  EXPECT_LT(worst_error<double>(matrix, {"block_rows=1", "block_cols=32"}), 1e-12);
  EXPECT_LT(worst_error<float>(matrix, {"block_rows=1", "block_cols=8"}), 1e-5);
}

TEST(HbpHostApply, ColumnsNotAMultipleOfTheBlockWidth) {
  for (const std::int64_t cols : {1, 7, 65, 127, 129, 1001}) {
    std::vector<std::int64_t> lengths;
    for (int r = 0; r < 77; ++r) lengths.push_back(std::min<std::int64_t>(cols, r % 9));
    const Matrix matrix = matrix_with_lengths(cols, lengths);
    EXPECT_LT(worst_error<double>(matrix, {"block_rows=16", "block_cols=64"}), 1e-12) << cols;
  }
}

TEST(HbpHash, EqualLengthsCollideAndKeepTheirRowOrder) {
  const NonlinearHash hash = make_hash(512, std::vector<std::int32_t>(100, 5));
  const std::vector<std::int32_t> lengths(200, 5);  // one position (280) for all
  const std::vector<std::int32_t> order = slot_order(Reorder::hash, hash, lengths);
  ASSERT_EQ(order.size(), lengths.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], static_cast<std::int32_t>(i));
  const Matrix matrix = matrix_with_lengths(64, std::vector<std::int64_t>(300, 5));
  EXPECT_LT(worst_error<double>(matrix, {"block_rows=300", "block_cols=64"}), 1e-12);
}

TEST(HbpHash, MoreRowsThanTablePositionsAreAllPlacedShortestBucketFirst) {
  // a table of 64 positions; 64 rows in the last bucket (one position) before 10 short ones
  const NonlinearHash hash = make_hash(64, std::vector<std::int32_t>{1});
  std::vector<std::int32_t> lengths(64, 1000);
  for (int r = 0; r < 10; ++r) lengths.push_back(1 + r % 3);
  const std::vector<std::int32_t> order = slot_order(Reorder::hash, hash, lengths);
  ASSERT_EQ(std::set<std::int32_t>(order.begin(), order.end()).size(), lengths.size());
  for (std::size_t k = 0; k < 10; ++k) EXPECT_GE(order[k], 64) << k;  // the short rows first
  for (std::size_t k = 10; k < order.size(); ++k)
    EXPECT_EQ(order[k], static_cast<std::int32_t>(k - 10));  // then the long ones, in row order
}

TEST(HbpHash, AggregationDispersionAndLinearMappingOrderRowsByLength) {
  // a = 0 when the sampled lengths are short: bucket = length, up to 8
  NonlinearHash hash = make_hash(900, std::vector<std::int32_t>{1, 2, 3, 4});
  EXPECT_EQ(hash.a, 0);
  EXPECT_EQ(hash.b, 100);  // 900 / 9 buckets
  EXPECT_EQ(hash.d, 100);
  EXPECT_EQ(hash.c, 100);
  EXPECT_EQ(hash.home(1), 100);
  EXPECT_EQ(hash.home(3), 300);
  EXPECT_EQ(hash.home(8), 800);
  EXPECT_EQ(hash.home(9), 800 + (1 * 100) % 100);
  // longer sampled rows raise a until the quantile falls below the last bucket
  hash = make_hash(900, std::vector<std::int32_t>(10, 100));
  EXPECT_EQ(hash.a, 4);  // 100 >> 4 = 6 < 8
  EXPECT_EQ(hash.c, 100 >> 4);
  EXPECT_LT(hash.home(16), hash.home(32));
  EXPECT_LT(hash.home(31), hash.home(32));
  EXPECT_LT(hash.home(17), hash.home(30));  // linear mapping inside bucket 1
}

TEST(HbpHash, AggregationShiftIsTheSmallestShiftBelowTheLastBucket) {
  EXPECT_EQ(aggregation_shift(0), 0);
  EXPECT_EQ(aggregation_shift(7), 0);   // 7 < 8: bucket 7
  EXPECT_EQ(aggregation_shift(8), 1);   // 8 >> 1 = 4
  EXPECT_EQ(aggregation_shift(15), 1);  // 15 >> 1 = 7
  EXPECT_EQ(aggregation_shift(16), 2);
  EXPECT_EQ(aggregation_shift(100), 4);  // 100 >> 4 = 6 (as make_hash's test above)
  EXPECT_EQ(aggregation_shift(std::numeric_limits<std::int32_t>::max()), 28);
  EXPECT_EQ(aggregation_shift(std::int64_t{1} << 40), kLargestAggregationShift);  // capped
}

/// The histogram of aggregation shifts the GPU build downloads instead of the sample.
std::vector<std::int64_t> shift_histogram(const std::vector<std::int32_t>& lengths) {
  std::vector<std::int64_t> counts(kLargestAggregationShift + 1, 0);
  for (const std::int32_t l : lengths) ++counts[static_cast<std::size_t>(aggregation_shift(l))];
  return counts;
}

TEST(HbpHash, ShiftHistogramGivesMakeHashsHashExactly) {
  std::mt19937_64 random(7);
  std::vector<std::vector<std::int32_t>> samples = {
      {}, {1}, {8}, {1, 1000000}, std::vector<std::int32_t>(100, 5), {7, 8, 15, 16, 31, 32}};
  for (int trial = 0; trial < 200; ++trial) {
    const auto n = static_cast<std::size_t>(1 + random() % 5000);
    const int largest_shift = static_cast<int>(random() % 20);
    std::vector<std::int32_t> lengths(n);
    for (auto& l : lengths)
      l = 1 + static_cast<std::int32_t>(random() % (std::uint64_t{8} << (random() % (largest_shift + 1))));
    samples.push_back(lengths);
  }
  for (const auto& lengths : samples)
    for (const std::int32_t block_rows : {1, 7, 256, 512, 4096}) {
      const NonlinearHash expected = make_hash(block_rows, lengths);
      const NonlinearHash got = hash_from_shift_histogram(block_rows, shift_histogram(lengths));
      EXPECT_EQ(got.a, expected.a) << lengths.size() << " lengths, block_rows " << block_rows;
      EXPECT_EQ(got.b, expected.b);
      EXPECT_EQ(got.c, expected.c);
      EXPECT_EQ(got.d, expected.d);
      EXPECT_EQ(got.table_size, expected.table_size);
    }
  EXPECT_THROW(hash_from_shift_histogram(512, std::vector<std::int64_t>(3, 0)), Error);
}

TEST(HbpHash, TheOrderIsByTablePositionAndByRowAmongOnePositionsRows) {
  // what the GPU build's counting sort (hash_order_kernel) must reproduce, on random blocks:
  // table sizes from 1, blocks from one slot to more slots than table positions
  std::mt19937_64 random(11);
  for (int trial = 0; trial < 400; ++trial) {
    const std::int32_t block_rows = 1 + static_cast<std::int32_t>(random() % 300);
    const auto n = static_cast<std::size_t>(1 + random() % (2 * static_cast<std::uint64_t>(block_rows) + 40));
    std::vector<std::int32_t> lengths(n);
    const std::uint64_t spread = 1 + random() % 200;  // small spreads force collisions
    for (auto& l : lengths) l = 1 + static_cast<std::int32_t>(random() % spread);
    const NonlinearHash hash = make_hash(block_rows, lengths);
    const std::vector<std::int32_t> order = slot_order(Reorder::hash, hash, lengths);
    ASSERT_EQ(std::set<std::int32_t>(order.begin(), order.end()).size(), n);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const std::int32_t here = hash.home(lengths[static_cast<std::size_t>(order[k])]);
      const std::int32_t next = hash.home(lengths[static_cast<std::size_t>(order[k + 1])]);
      EXPECT_LT(next, hash.table_size);
      EXPECT_TRUE(here < next || (here == next && order[k] < order[k + 1]))
          << "block_rows " << block_rows << ", " << n << " slots, at " << k;
    }
  }
}

TEST(HbpHash, SampleStepTakesAboutTheSampleSizeOfRows) {
  EXPECT_EQ(hash_sample_step(0), 1);
  EXPECT_EQ(hash_sample_step(kHashSampleSize - 1), 1);
  EXPECT_EQ(hash_sample_step(kHashSampleSize * 3 + 5), 3);
}

TEST(HbpHash, HashReducesThePerWarpRowLengthSpreadOnPowerLawRows) {
  // the paper's 512-row blocks: room for reordering (auto gives this small matrix blocks of 32
  // rows, one warp group each, where there is nothing to reorder)
  const Matrix matrix = generated("random_power_law_5000x5000_len1to2000");
  auto layout = [&](const char* reorder) {
    return build_layout(matrix, parse_parameters({reorder, "block_rows=512"}), 8192);
  };
  const HbpLayout<double> none = layout("reorder=none");
  const HbpLayout<double> hashed = layout("reorder=hash");
  const HbpLayout<double> sorted = layout("reorder=sort");
  EXPECT_LT(hashed.reorder_statistics.mean_stddev_after,
            0.7 * hashed.reorder_statistics.mean_stddev_before);
  EXPECT_LE(sorted.reorder_statistics.mean_stddev_after, hashed.reorder_statistics.mean_stddev_after);
  EXPECT_GT(hashed.reorder_statistics.lane_efficiency_after,
            none.reorder_statistics.lane_efficiency_after);
}

TEST(HbpHostApply, MoreWarpsThanBlocksAndTheReverseGiveTheSameY) {
  const Matrix matrix = generated("rmat_scale12_ef8");
  for (const std::int64_t grid : {1, 2, 5, 1000, 100000})
    for (const char* share : {"fixed_share=0", "fixed_share=0.5", "fixed_share=1"})
      EXPECT_LT(worst_error<double>(matrix, {"block_rows=64", "block_cols=256", share}, grid), 1e-12)
          << grid << " " << share;
}

TEST(HbpLayout, TasksWithFewNonzerosReadXFromGlobalMemory) {
  // R-MAT scale 12 in blocks of 128 x 2048: tasks of one block, some with < 512 nonzeros (the
  // 2048 x 8 B segment is worth 512 sectors), the dense corner's with more
  const Matrix matrix = generated("rmat_scale12_ef8");
  const HbpParameters p = parse_parameters({"block_rows=128", "block_cols=2048", "blocks_per_task=1"});
  const HbpLayout<double> layout = build_layout(matrix, p, 2048);
  const auto shared = std::count(layout.task_shared_x.begin(), layout.task_shared_x.end(), 1);
  EXPECT_GT(shared, 0) << layout.tasks();
  EXPECT_LT(shared, layout.tasks());
  EXPECT_LT(worst_error<double>(matrix, {"block_rows=128", "block_cols=2048", "blocks_per_task=1"}),
            1e-12);
}

TEST(HbpHostApply, AllThreeReorderModesGiveTheSameY) {
  // the lane sums and the combine do not depend on the slot order: y is bitwise the same
  const Matrix matrix = generated("random_power_law_5000x5000_len1to2000");
  const auto x = test::make_x<double>(matrix);
  std::vector<std::vector<double>> results;
  for (const char* reorder : {"reorder=hash", "reorder=sort", "reorder=none"}) {
    const HbpParameters p = parse_parameters({reorder, "block_rows=256", "block_cols=512"});
    const HbpLayout<double> layout = build_layout(matrix, p, 512);
    std::vector<double> y(static_cast<std::size_t>(matrix.rows), 0.0);
    host_apply(layout, make_schedule(layout.tasks(), 7, p.resolved_fixed_share(512, 8)),
               std::span<const double>(x),
               std::span<double>(y), 1.0, 0.0);
    results.push_back(y);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[0], results[2]);
}

TEST(HbpLayoutStatistics, ReportsBytesAgainstCsrAndTheSpread) {
  const Matrix matrix = generated("random_power_law_5000x5000_len1to2000");
  const Json statistics = host_layout_statistics(matrix, parse_parameters({}));
  EXPECT_EQ(statistics["block_cols"], 5000);  // x of 40 KB: one column block
  EXPECT_EQ(statistics["block_rows"], kAutoSmallestBlockRows);  // 157 row blocks of 32: few blocks
  EXPECT_GT(statistics["csr_bytes"].get<double>(), 0.0);
  EXPECT_LT(statistics["bytes_over_csr"].get<double>(), 1.5);
  EXPECT_TRUE(statistics.contains("warp_row_length_stddev_before"));
  EXPECT_TRUE(statistics.contains("warp_row_length_stddev_after"));
}

TEST(HbpLayout, ARowsLongRunInABlockIsCutIntoSlotsOfMaxSlotLength) {
  // row 1: 10 000 nonzeros in one block of 20 000 columns -> 10 slots of 1000 (and a combine
  // row); row 3: 2500 -> 1000, 1000, 500; rows of <= 1000 keep one slot
  const Matrix matrix = matrix_with_lengths(20000, {3, 10000, 0, 2500, 1000, 7}, 21);
  const std::vector<std::string> parameters = {"block_cols=20000", "max_slot_length=1000"};
  const HbpParameters p = parse_parameters(parameters);
  const HbpLayout<double> layout = build_layout(matrix, p, 20000);
  EXPECT_EQ(layout.slots(), 1 + 10 + 3 + 1 + 1);
  for (const std::uint16_t last : layout.slot_last_round) EXPECT_LT(last, 1000);
  EXPECT_EQ(layout.combine_rows, (std::vector<std::int32_t>{1, 2, 3}));  // row 2: empty
  EXPECT_EQ(layout.partials(), 13);
  EXPECT_LT(worst_error<double>(matrix, parameters), 1e-12);
  EXPECT_LT(worst_error<half>(matrix, parameters), 1e-2);
  EXPECT_LT(worst_error<double>(matrix, {"block_cols=20000", "max_slot_length=1"}), 1e-12);
}

TEST(HbpLayout, WideBlocksStoreColumnsAbove16BitsAndReadXFromGlobalMemory) {
  // 300 000 columns in blocks of 100 000 (800 KB of fp64 x each: no shared segment); columns
  // inside a block above 65535 need the 25-bit column field
  const Matrix matrix = generate_random_rows(2000, 300000, RowLengthDistribution::uniform, 1, 300, 22);
  const std::vector<std::string> parameters = {"block_cols=100000"};
  const HbpParameters p = parse_parameters(parameters);
  const HbpLayout<double> layout = build_layout(matrix, p, 100000);
  EXPECT_EQ(std::count(layout.task_shared_x.begin(), layout.task_shared_x.end(), 1), 0);
  std::int32_t widest = 0;
  for (const std::uint32_t word : layout.col_add_sign) widest = std::max(widest, column_in_block(word));
  EXPECT_GT(widest, 65535);
  EXPECT_EQ(p.resolved_fixed_share(100000, 8), 0.0);  // tickets in column-block order
  EXPECT_LT(worst_error<double>(matrix, parameters), 1e-12);
  EXPECT_LT(worst_error<float>(matrix, parameters), 1e-5);
  EXPECT_LT(worst_error<bfloat16>(matrix, parameters), 1e-2);
}

TEST(HbpLayout, ColumnAndAddSignShareOneWord) {
  for (const std::uint32_t column : {0u, 1u, 65535u, 65536u, kColumnMask})
    for (const std::int32_t step : {-1, 1, 2, 31, 32}) {
      const std::uint32_t word = col_add_sign_word(column, step);
      EXPECT_EQ(column_in_block(word), static_cast<std::int32_t>(column));
      EXPECT_EQ(add_sign(word), step);
    }
  EXPECT_EQ(kLargestBlockCols, std::int32_t{1} << 25);
}

TEST(HbpParameters, AutoBlockColsCutsXIntoStripesOfAThirdOfTheL2) {
  const HbpParameters p = parse_parameters({});
  constexpr std::int64_t l2 = 50ll << 20;  // stripes of at most 17.5 MB
  EXPECT_EQ(p.resolved_block_cols(8, 5000, l2), 5000);          // x fits: one block
  EXPECT_EQ(p.resolved_block_cols(8, 1000000, l2), 1000000);    // 8 MB: one block
  EXPECT_EQ(p.resolved_block_cols(8, 16000000, l2), 2000000);   // 128 MB: 8 stripes of 16 MB
  EXPECT_EQ(p.resolved_block_cols(2, 16000000, l2), 8000000);   // fp16, 32 MB: 2 stripes
  EXPECT_EQ(p.resolved_block_cols(8, 3, l2), 8);                // rounded up to 8
  EXPECT_EQ(p.resolved_block_cols(2, 100000000, 1ll << 30), kLargestBlockCols);  // the cap
  EXPECT_EQ(parse_parameters({"block_cols=4096"}).resolved_block_cols(8, 16000000, l2), 4096);
  // x read hubs first: stripes of a fifth of the L2 in fp64 (10 MB here), a third otherwise
  EXPECT_EQ(p.resolved_block_cols(8, 16000000, l2, true), 1230776);   // 13 stripes of 9.8 MB
  EXPECT_EQ(p.resolved_block_cols(8, 1000000, l2, true), 1000000);    // 8 MB: one block still
  EXPECT_EQ(p.resolved_block_cols(2, 16000000, l2, true), 8000000);   // fp16: the third
  EXPECT_EQ(p.resolved_block_cols(4, 16000000, l2, true), 4000000);   // fp32: the third
  EXPECT_EQ(parse_parameters({"block_cols=4096"}).resolved_block_cols(8, 16000000, l2, true), 4096);
  // the fixed part only where x segments sit in shared memory
  EXPECT_EQ(p.resolved_fixed_share(4096, 8), kDefaultFixedShare);
  EXPECT_EQ(p.resolved_fixed_share(16384, 8), kDefaultFixedShare);  // 128 KiB
  EXPECT_EQ(p.resolved_fixed_share(16392, 8), 0.0);
  EXPECT_EQ(p.resolved_fixed_share(2000000, 8), 0.0);
  EXPECT_EQ(parse_parameters({"fixed_share=1"}).resolved_fixed_share(2000000, 8), 1.0);
  // warps take runs of groups by ticket where no x segment fits shared memory
  EXPECT_EQ(p.resolved_kernel(16384, 8), Kernel::tasks);
  EXPECT_EQ(p.resolved_kernel(16392, 8), Kernel::groups);
  EXPECT_EQ(p.resolved_kernel(16392, 2), Kernel::tasks);
  EXPECT_EQ(parse_parameters({"kernel=groups"}).resolved_kernel(64, 8), Kernel::groups);
  EXPECT_EQ(parse_parameters({"kernel=tasks"}).resolved_kernel(2000000, 8), Kernel::tasks);
  EXPECT_THROW(parse_parameters({"kernel=warps"}), ParameterError);
  EXPECT_EQ(parse_parameters({"groups_per_ticket=31"}).groups_per_ticket, 31);
  EXPECT_THROW(parse_parameters({"groups_per_ticket=32"}), ParameterError);  // one load a lane
}

TEST(HbpParameters, DefaultsAndRefusals) {
  const HbpParameters p = parse_parameters({});
  EXPECT_EQ(p.block_rows, 0);  // auto
  EXPECT_EQ(p.resolved_block_rows(100000000, 1), kAutoLargestBlockRows);
  EXPECT_EQ(p.resolved_block_rows(1000000, 1), 32);  // 31250 blocks of 32 rows
  EXPECT_EQ(p.resolved_block_rows(1000000, 64), 2048);  // 489 x 64 blocks
  EXPECT_EQ(p.resolved_block_rows(1000000, 16), 512);  // 1954 x 16 blocks
  EXPECT_EQ(p.block_cols, 0);  // auto: AutoBlockColsCutsXIntoStripesOfAThirdOfTheL2
  EXPECT_EQ(p.max_slot_length, kDefaultMaxSlotLength);
  EXPECT_EQ(parse_parameters({"max_slot_length=65536"}).max_slot_length, 65536);
  EXPECT_THROW(parse_parameters({"max_slot_length=65537"}), ParameterError);
  EXPECT_THROW(parse_parameters({"max_slot_length=0"}), ParameterError);
  EXPECT_EQ(p.reorder, Reorder::hash);
  EXPECT_EQ(p.build, Build::device);
  EXPECT_EQ(parse_parameters({"build=device"}).build, Build::device);
  EXPECT_THROW(parse_parameters({"build=gpu"}), ParameterError);
  EXPECT_EQ(p.resolved_blocks_per_task(27), 1);        // a small matrix: a task a block
  EXPECT_EQ(p.resolved_blocks_per_task(16384), 16);    // about 1024 tasks
  EXPECT_EQ(p.resolved_blocks_per_task(1 << 24), 4 * kDefaultWarpsPerBlock);  // 4 blocks a warp
  EXPECT_THROW(parse_parameters({"block_cols=12"}), ParameterError);
  EXPECT_EQ(parse_parameters({"block_cols=131072"}).block_cols, 131072);
  EXPECT_THROW(parse_parameters({"block_cols=33554440"}), ParameterError);  // above 2^25
  EXPECT_THROW(parse_parameters({"reorder=random"}), ParameterError);
  EXPECT_THROW(parse_parameters({"fixed_share=1.5"}), ParameterError);
  EXPECT_EQ(p.walk_unroll, kDefaultWalkUnroll);
  EXPECT_EQ(parse_parameters({"walk_unroll=8"}).walk_unroll, 8);
  EXPECT_EQ(parse_parameters({"walk_unroll=1"}).walk_unroll, 1);
  EXPECT_THROW(parse_parameters({"walk_unroll=3"}), ParameterError);
  EXPECT_THROW(parse_parameters({"walk_unroll=16"}), ParameterError);
  EXPECT_EQ(p.combine_warp_partials, kDefaultCombineWarpPartials);
  EXPECT_EQ(parse_parameters({"combine_warp_partials=1"}).combine_warp_partials, 1);
  EXPECT_EQ(parse_parameters({"combine_warp_partials=off"}).combine_warp_partials, 0);
  EXPECT_THROW(parse_parameters({"combine_warp_partials=0"}), ParameterError);
  EXPECT_EQ(p.combine_warp_rows, kDefaultCombineWarpRows);
  EXPECT_TRUE(p.combines_by_warps(kDefaultCombineWarpRows));  // at most that many rows
  EXPECT_FALSE(p.combines_by_warps(kDefaultCombineWarpRows + 1));
  EXPECT_FALSE(parse_parameters({"combine_warp_rows=off"}).combines_by_warps(1));
  EXPECT_TRUE(parse_parameters({"combine_warp_rows=1"}).combines_by_warps(1));
  EXPECT_THROW(parse_parameters({"combine_warp_rows=0"}), ParameterError);
  EXPECT_EQ(p.fixed_group_share, 0.0);
  EXPECT_EQ(parse_parameters({"fixed_group_share=0.75"}).fixed_group_share, 0.75);
  EXPECT_THROW(parse_parameters({"fixed_group_share=1.5"}), ParameterError);
  EXPECT_THROW(parse_parameters({"fixed_group_share=-0.1"}), ParameterError);
  EXPECT_THROW(parse_parameters({"fixed_group_share=auto"}), ParameterError);
  EXPECT_FALSE(p.update_values);
  EXPECT_TRUE(parse_parameters({"update_values=on"}).update_values);
  EXPECT_THROW(parse_parameters({"update_values=yes"}), ParameterError);
}

TEST(HbpColumnOrder, HubsFirstRanksEachBlocksColumnsByCountMostFirstTiesInColumnOrder) {
  // counts of columns 0..9: 1 3 0 3 5 0 1 2 | 0 4   (blocks of 8: columns 0-7 and 8-9)
  const std::vector<std::int32_t> columns = {4, 1, 3, 9, 4, 7, 1, 3, 9, 0, 4, 6,
                                             3, 4, 9, 1, 7, 4, 9};
  EXPECT_EQ(hubs_first_column_order(columns, 10, 8, 1),
            (std::vector<std::int32_t>{4, 1, 3, 7, 0, 6, 2, 5, 9, 8}));
  // one block: the whole matrix's order; blocks of one column: the caller's order
  EXPECT_EQ(hubs_first_column_order(columns, 10, 16, 1),
            (std::vector<std::int32_t>{4, 9, 1, 3, 7, 0, 6, 2, 5, 8}));
  EXPECT_EQ(hubs_first_column_order(columns, 10, 1, 1),
            (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_TRUE(hubs_first_column_order({}, 0, 8, 1).empty());
  // hubs of at least 3 nonzeros first; the other columns after them, in the caller's order
  EXPECT_EQ(hubs_first_column_order(columns, 10, 8, 3),
            (std::vector<std::int32_t>{4, 1, 3, 0, 2, 5, 6, 7, 9, 8}));
  EXPECT_EQ(hubs_first_column_order(columns, 10, 16, 4),
            (std::vector<std::int32_t>{4, 9, 0, 1, 2, 3, 5, 6, 7, 8}));
  // no hub: the caller's order
  EXPECT_EQ(hubs_first_column_order(columns, 10, 8, 6),
            (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST_P(HbpHostApplyOnCatalogue, HubsFirstOrderIsAPermutationKeepingEachColumnInItsBlock) {
  const Matrix& matrix = GetParam().matrix;
  std::vector<std::int64_t> counts(static_cast<std::size_t>(matrix.cols), 0);
  for (const std::int32_t c : matrix.col_idx) ++counts[static_cast<std::size_t>(c)];
  for (const std::int32_t block_cols : {8, 40, 4096}) {
    const std::vector<std::int32_t> order =
        hubs_first_column_order(matrix.col_idx, matrix.cols, block_cols, 1);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(matrix.cols));
    std::vector<bool> seen(order.size(), false);
    for (std::size_t j = 0; j < order.size(); ++j) {
      const auto caller = static_cast<std::size_t>(order[j]);
      ASSERT_FALSE(seen[caller]) << "column " << caller << " twice";
      seen[caller] = true;
      ASSERT_EQ(order[j] / block_cols, static_cast<std::int64_t>(j) / block_cols);
      if (j % static_cast<std::size_t>(block_cols) != 0) {  // counts non-increasing in a block
        ASSERT_LE(counts[caller], counts[static_cast<std::size_t>(order[j - 1])]);
      }
    }
    // the renumbered matrix: the same values, each row's nonzeros still in column-block order
    const Matrix renumbered = with_plan_columns(matrix, order);
    ASSERT_EQ(renumbered.row_ptr, matrix.row_ptr);
    ASSERT_EQ(renumbered.values, matrix.values);
    for (std::int32_t r = 0; r < matrix.rows; ++r)
      for (std::int32_t k = matrix.row_ptr[r]; k < matrix.row_ptr[r + 1]; ++k) {
        const auto u = static_cast<std::size_t>(k);
        ASSERT_EQ(order[static_cast<std::size_t>(renumbered.col_idx[u])], matrix.col_idx[u]);
        if (k > matrix.row_ptr[r]) {
          ASSERT_LE(renumbered.col_idx[u - 1] / block_cols, renumbered.col_idx[u] / block_cols);
        }
      }
  }
}

TEST_P(HbpHostApplyOnCatalogue, UpdateValuesKeepsEachStoredValuesCsrIndex) {
  // update_values=on: value_source is a permutation of the CSR's nonzeros, and stored value k is
  // the CSR's nonzero value_source[k]: its value, and its column (in its group's column block).
  const Matrix& matrix = GetParam().matrix;
  for (const std::vector<std::string>& parameters :
       {std::vector<std::string>{"update_values=on"},
        {"update_values=on", "block_rows=16", "block_cols=72", "max_slot_length=5",
         "warp_row_length=4"}}) {
    SCOPED_TRACE(parameters.back());
    const HbpParameters p = parse_parameters(parameters);
    const std::int32_t block_cols = block_cols_of(p, matrix, sizeof(double));
    const HbpLayout<double> layout = build_layout(matrix, p, block_cols);
    ASSERT_EQ(layout.value_source.size(), matrix.values.size());
    std::vector<bool> seen(matrix.values.size(), false);
    for (std::int64_t g = 0; g < layout.groups(); ++g) {
      const std::int64_t origin =
          static_cast<std::int64_t>(layout.group_col[static_cast<std::size_t>(g)]) * block_cols;
      for (std::int64_t k = layout.begin_nnz[static_cast<std::size_t>(g)];
           k < layout.begin_nnz[static_cast<std::size_t>(g) + 1]; ++k) {
        const auto uk = static_cast<std::size_t>(k);
        const std::int32_t source = layout.value_source[uk];
        ASSERT_GE(source, 0);
        ASSERT_LT(source, static_cast<std::int64_t>(matrix.nnz()));
        const auto us = static_cast<std::size_t>(source);
        ASSERT_FALSE(seen[us]) << "nonzero " << source << " stored twice";
        seen[us] = true;
        ASSERT_EQ(layout.data[uk], matrix.values[us]);
        ASSERT_EQ(column_in_block(layout.col_add_sign[uk]) + origin, matrix.col_idx[us]);
      }
    }
  }
  EXPECT_TRUE(build_layout(matrix, parse_parameters({}), 4096).value_source.empty());  // off
}

TEST(HbpColumnOrder, ConcentrationIsTheMeanCountOfANonzerosColumnOverTheMeanCount) {
  Matrix identity;
  identity.rows = identity.cols = 100;
  for (std::int32_t r = 0; r < 100; ++r) {
    identity.col_idx.push_back(r);
    identity.row_ptr.push_back(r + 1);
  }
  EXPECT_DOUBLE_EQ(column_count_concentration(identity.col_idx, identity.cols), 1.0);
  // every nonzero in one of 20 columns: 20
  EXPECT_DOUBLE_EQ(column_count_concentration(std::vector<std::int32_t>(50, 3), 20), 20.0);
  EXPECT_EQ(column_count_concentration({}, 20), 0.0);
  // columns drawn at random, 8 a row: about 1 + 1/8; an R-MAT graph's hubs: far above the rule's
  const Matrix random = generate_random_rows(20000, 20000, RowLengthDistribution::uniform, 8, 8, 3);
  EXPECT_NEAR(column_count_concentration(random.col_idx, random.cols), 1.125, 0.02);
  const Matrix graph = generate_rmat(18, 16, 4);
  EXPECT_GT(column_count_concentration(graph.col_idx, graph.cols), kHubsFirstMinConcentration);
  EXPECT_LT(column_count_concentration(random.col_idx, random.cols), kHubsFirstMinConcentration);
}

TEST(HbpColumnOrder, ConcentrationEstimatedFromEveryStepthNonzeroIsCloseToTheExactOne) {
  EXPECT_EQ(concentration_sample_step(kConcentrationSampleNonzeros * 2 - 1), 1);
  EXPECT_EQ(concentration_sample_step(kConcentrationSampleNonzeros * 5), 5);
  EXPECT_EQ(concentration_sample_step(0), 1);
  // every nonzero sampled (step 1): the exact concentration
  const Matrix small = generate_rmat(14, 16, 5);
  ASSERT_EQ(concentration_sample_step(small.nnz()), 1);
  EXPECT_NEAR(estimated_column_count_concentration(small.cols, small.nnz(),
                                                   sampled_column_counts(small)),
              column_count_concentration(small.col_idx, small.cols), 1e-9);
  // sampled (every 2nd to 4th nonzero): within a few percent, on both sides of the auto rule
  const Matrix cases[] = {
      generate_rmat(19, 16, 6),
      generate_random_rows(1000000, 1000000, RowLengthDistribution::uniform, 4, 12, 7),
      generate_random_rows(600000, 600000, RowLengthDistribution::power_law, 1, 20000, 8),
  };
  for (const Matrix& m : cases) {
    ASSERT_GT(concentration_sample_step(m.nnz()), 1) << m.nnz();
    const double exact = column_count_concentration(m.col_idx, m.cols);
    const double estimate =
        estimated_column_count_concentration(m.cols, m.nnz(), sampled_column_counts(m));
    EXPECT_NEAR(estimate, exact, 0.05 * exact) << m.rows << " rows, exact " << exact;
  }
  const Matrix empty = test::with_row_lengths(10, {0, 0, 0}, 9);
  EXPECT_EQ(estimated_column_count_concentration(empty.cols, empty.nnz(),
                                                 sampled_column_counts(empty)),
            0.0);
}

TEST(HbpParameters, SlotOutputAutoGivesEverySlotAPartialInStripesWithFewSingleSlots) {
  const HbpParameters p = parse_parameters({});
  EXPECT_EQ(p.slot_output, SlotOutput::automatic);
  // stripes (>= 2 column blocks) and at most a third of the 300 slots a row's only one
  EXPECT_TRUE(p.partial_per_slot(2, 300, 200));
  EXPECT_TRUE(p.partial_per_slot(7, 300, 300));
  EXPECT_FALSE(p.partial_per_slot(2, 300, 199));  // 101 single slots
  EXPECT_FALSE(p.partial_per_slot(1, 300, 300));  // one column block: no stripes
  EXPECT_TRUE(parse_parameters({"slot_output=partial"}).partial_per_slot(1, 300, 0));
  EXPECT_FALSE(parse_parameters({"slot_output=hash"}).partial_per_slot(7, 300, 300));
  EXPECT_THROW(parse_parameters({"slot_output=row"}), ParameterError);
  EXPECT_EQ(to_string(SlotOutput::partial), "partial");
  EXPECT_EQ(to_string(SlotOutput::hash), "hash");
  EXPECT_EQ(to_string(SlotOutput::automatic), "auto");
}

TEST(HbpParameters, ColumnOrderAutoTakesHubsFirstFromTheConcentration) {
  const HbpParameters p = parse_parameters({});
  EXPECT_EQ(p.column_order, ColumnOrder::automatic);
  // auto counts the columns of matrices of kHubsFirstMinNonzeros nonzeros or more
  EXPECT_TRUE(p.counts_columns(kHubsFirstMinNonzeros));
  EXPECT_FALSE(p.counts_columns(kHubsFirstMinNonzeros - 1));
  EXPECT_TRUE(p.hubs_first(kHubsFirstMinConcentration));
  EXPECT_FALSE(p.hubs_first(std::nextafter(kHubsFirstMinConcentration, 0.0)));
  const HbpParameters hubs = parse_parameters({"column_order=hubs_first"});
  EXPECT_TRUE(hubs.counts_columns(1));
  EXPECT_FALSE(hubs.counts_columns(0));  // nothing to gather x for
  EXPECT_TRUE(hubs.hubs_first(1.0));
  const HbpParameters caller = parse_parameters({"column_order=caller"});
  EXPECT_FALSE(caller.counts_columns(kHubsFirstMinNonzeros));
  EXPECT_FALSE(caller.hubs_first(1000.0));
  // hubs: columns of at least twice the mean count (at least 1), or as many as asked for
  EXPECT_EQ(p.resolved_hub_min_count(1600, 100), 32);
  EXPECT_EQ(p.resolved_hub_min_count(10, 100), 1);
  EXPECT_EQ(p.resolved_hub_min_count(0, 0), 1);
  EXPECT_EQ(parse_parameters({"hub_min_count=7"}).resolved_hub_min_count(1600, 100), 7);
  EXPECT_THROW(parse_parameters({"hub_min_count=0"}), ParameterError);
  EXPECT_EQ(parse_parameters({"column_order=auto"}).column_order, ColumnOrder::automatic);
  EXPECT_THROW(parse_parameters({"column_order=sorted"}), ParameterError);
  EXPECT_EQ(to_string(ColumnOrder::hubs_first), "hubs_first");
  EXPECT_EQ(to_string(ColumnOrder::caller), "caller");
  EXPECT_EQ(to_string(ColumnOrder::automatic), "auto");
}

TEST(HbpParameters, LayoutArraysComeFromThePoolWhenTheBuildIsSmall) {
  constexpr std::int64_t small = 32ll << 20;  // detail::kSmallBuildTemporaryBytes
  // about 36 bytes a slot and 20 a row; a slot a row and column block plus max_slot_length's cuts
  EXPECT_EQ(estimated_build_temporary_bytes(1000, 50000, 1, 1024),
            kBuildTemporaryBytesPerSlot * (1000 + 48) + kBuildTemporaryBytesPerRow * 1000);
  EXPECT_EQ(estimated_build_temporary_bytes(1000, 3000, 8, 1024),  // at most a slot a nonzero
            kBuildTemporaryBytesPerSlot * 3000 + kBuildTemporaryBytesPerRow * 1000);
  EXPECT_EQ(estimated_build_temporary_bytes(0, 0, 1, 1024), 0);
  const HbpParameters p = parse_parameters({});
  EXPECT_EQ(p.layout_memory, LayoutMemory::automatic);
  // the rajat01 replica of the hbp suite (341 k rows, 2.16 M nonzeros, one column block): pool
  EXPECT_TRUE(p.layout_from_pool(estimated_build_temporary_bytes(341650, 2161600, 1, 1024), small));
  // 4 M rows: their temporaries are not a small build's, so cudaMalloc
  EXPECT_FALSE(p.layout_from_pool(estimated_build_temporary_bytes(4000000, 18000000, 1, 1024), small));
  EXPECT_TRUE(p.layout_from_pool(small, small));
  EXPECT_FALSE(p.layout_from_pool(small + 1, small));
  const HbpParameters pool = parse_parameters({"layout_memory=pool"});
  EXPECT_EQ(pool.layout_memory, LayoutMemory::pool);
  EXPECT_TRUE(pool.layout_from_pool(small * 100, small));
  const HbpParameters allocate = parse_parameters({"layout_memory=allocate"});
  EXPECT_EQ(allocate.layout_memory, LayoutMemory::allocate);
  EXPECT_FALSE(allocate.layout_from_pool(0, small));
  EXPECT_THROW(parse_parameters({"layout_memory=malloc"}), ParameterError);
  EXPECT_EQ(to_string(LayoutMemory::automatic), "auto");
  EXPECT_EQ(to_string(LayoutMemory::pool), "pool");
  EXPECT_EQ(to_string(LayoutMemory::allocate), "allocate");
}

}  // namespace
}  // namespace tcsparse::hbp
