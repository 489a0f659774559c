// What is particular to HBP on the GPU, against the CPU reference (double accumulation; fp64
// below 1e-12, fp32 below 1e-5, fp16 / bf16 below 1e-2; outputs poisoned with NaN when
// beta == 0): every precision with the defaults and with small blocks on the shared catalogue; the
// issue's cases (zero rows, all-zero blocks, a row longer than a block, one block, a block row of
// one row, columns not a multiple of the block width, hash collisions by equal row lengths, more
// warps than blocks and the reverse, the three reorder modes giving the same y); the launch's
// schedule equal to the host model's; repeats bitwise the same and right under both kernels and
// several groups_per_ticket and fixed rounds of tickets (the ticket resets itself at each
// launch's end, no float atomics), and fixed_group_share's whole rounds;
// graph capture of SpMV + combine; SpMV and combine timed apart; walk_unroll
// 1 / 2 / 4 / 8 giving bitwise the same y; lane groups with holes (slots of 1 to 63 mixed) and a
// 65536-nonzero slot against the reference; a plan from device CSR equal to the plan from host
// CSR bit for bit, reading nothing of the caller's arrays after its build; x gathered into the
// hubs-first column order (column_order) in the stress sets, the graph capture and from device
// CSR, and column_order=auto's choice, with narrower stripes in fp64; every slot writing its own
// partial sum (slot_output=partial) giving the output_hash layout's y bit for bit, and auto's
// choice between them; update_values=on giving, bit for bit, a new plan's y of the new values
// (from host and device CSR, host and device values, the update captured into a graph), off
// refusing. Written before
// a GPU could run them (issue 10): run with --gtest_filter='*Hbp*'.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
#include "gpu/gpu_test.hpp"
#include "gpu/plan_runner.hpp"
#include "hbp/hbp.hpp"
#include "hbp/hbp_column_order.hpp"
#include "hbp/hbp_format.hpp"
#include "hbp/hbp_parameters.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
using detail::DeviceBuffer;

using test::kScalarCases;
using test::Scalars;
using testing::options_of;
using testing::run_spmv;

std::string describe(const std::vector<std::string>& parameters) {
  std::string text;
  for (const auto& p : parameters) text += p + " ";
  return text;
}

/// ||hbp - reference|| / ||reference|| on the matrix converted to Value.
template <typename Value>
double plan_error(const Matrix& matrix64, Scalars s, const std::vector<std::string>& parameters = {}) {
  const Matrix scaled = std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), s.alpha, s.beta);
  const SpmvPlan<Value> plan(a, Method("hbp"), options_of(parameters));
  const auto y = run_spmv(plan, x, y0, s);
  return relative_error(std::span<const Value>(y), std::span<const double>(reference));
}

template <typename Value>
void expect_matches_reference(const Matrix& matrix, const std::vector<std::string>& parameters = {}) {
  for (const Scalars s : kScalarCases)
    EXPECT_LT(plan_error<Value>(matrix, s, parameters), test::tolerance<Value>())
        << "alpha " << s.alpha << " beta " << s.beta << " " << describe(parameters);
}

void expect_every_precision(const Matrix& matrix, const std::vector<std::string>& parameters = {}) {
  expect_matches_reference<double>(matrix, parameters);
  expect_matches_reference<float>(matrix, parameters);
  expect_matches_reference<half>(matrix, parameters);
  expect_matches_reference<bfloat16>(matrix, parameters);
}

/// The method object itself (for the testing hooks), with checked parameters.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_method(const CsrMatrix<Value, std::int32_t>& a,
                                                       const std::vector<std::string>& parameters) {
  return hbp::make_spmv<Value>(
      a, detail::check_parameter_values("hbp", hbp::parameter_specs(), parameters));
}

const std::vector<std::vector<std::string>> kStressParameters = {
    {},
    {"block_rows=512", "block_cols=4096"},  // the paper's sizes
    {"block_rows=7", "block_cols=16", "blocks_per_task=3", "warps_per_block=4"},
    {"block_rows=64", "block_cols=24", "reorder=sort", "warps_per_block=32"},
    {"block_rows=33", "block_cols=40", "reorder=none", "warp_row_length=off", "warps_per_block=1"},
    {"block_rows=1", "block_cols=8", "blocks_per_sm=1"},
    {"block_rows=100", "block_cols=64", "warp_row_length=2", "fixed_share=1"},
    {"block_rows=300", "block_cols=128", "fixed_share=0", "blocks_per_task=1", "warps_per_block=2"},
    {"block_cols=24576", "max_slot_length=3"},  // x from global memory; rows cut in threes
    {"block_rows=16", "block_cols=72", "max_slot_length=5", "warp_row_length=4"},
    {"kernel=groups", "block_rows=64", "block_cols=40", "warps_per_block=4"},
    {"kernel=groups", "fixed_group_share=0.7", "block_rows=16", "block_cols=24",
     "warps_per_block=1", "blocks_per_sm=1"},
    {"kernel=tasks", "block_cols=24576", "warp_row_length=off"},
    // x gathered into the hubs-first order: one block, stripes, the host build
    {"column_order=hubs_first"},
    {"column_order=hubs_first", "block_rows=64", "block_cols=24", "reorder=sort", "kernel=groups",
     "hub_min_count=3"},
    {"column_order=hubs_first", "build=host", "block_rows=33", "block_cols=40"},
};

// ---- the shared catalogue ----------------------------------------------------------------------

class HbpGpuOnCatalogue : public testing::GpuTestWithParam<test::NamedMatrix> {};

TEST_P(HbpGpuOnCatalogue, EveryPrecisionMatchesReference) {
  expect_every_precision(GetParam().matrix);
}

TEST_P(HbpGpuOnCatalogue, StressParametersMatchReference) {
  for (const auto& parameters : kStressParameters) {
    expect_matches_reference<double>(GetParam().matrix, parameters);
    expect_matches_reference<half>(GetParam().matrix, parameters);
  }
}

INSTANTIATE_TEST_SUITE_P(AllSynthetic, HbpGpuOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

// ---- the cases -------------------------------------------------------------------------

class HbpGpu : public testing::GpuTest {};

TEST_F(HbpGpu, ZeroRowsAndAllZeroBlocks) {
  std::vector<std::int64_t> lengths(128, 0);
  for (int r = 64; r < 128; ++r) lengths[static_cast<std::size_t>(r)] = 1 + r % 5;
  Matrix a = test::with_row_lengths(16, lengths, 1);
  a.cols = 256;  // columns 16..255 hold nothing
  expect_every_precision(a, {"block_rows=32", "block_cols=16"});
}

TEST_F(HbpGpu, RowLongerThanABlock) {
  std::vector<std::int64_t> lengths(50, 3);
  lengths[17] = 900;
  const Matrix a = test::with_row_lengths(1000, lengths, 2);
  for (const char* warp : {"warp_row_length=16", "warp_row_length=off"})
    expect_every_precision(a, {"block_rows=16", "block_cols=64", warp});
  // a row of 60 000 nonzeros over default blocks: warp groups of 8192 columns, combined
  std::vector<std::int64_t> long_lengths = {60000, 1, 0, 5};
  expect_every_precision(test::with_row_lengths(70000, long_lengths, 3));
}

TEST_F(HbpGpu, OneBlockAndBlockRowsOfOneRow) {
  const Matrix one_block = test::with_row_lengths(100, std::vector<std::int64_t>(90, 7), 4);
  expect_every_precision(one_block, {"block_rows=128", "block_cols=128"});
  const Matrix small = test::with_row_lengths(333, {5, 0, 17, 1, 300, 2}, 5);
  expect_every_precision(small, {"block_rows=1", "block_cols=32"});
}

TEST_F(HbpGpu, ColumnsNotAMultipleOfTheBlockWidth) {
  for (const std::int64_t cols : {1, 7, 65, 127, 129, 1001}) {
    std::vector<std::int64_t> lengths;
    for (int r = 0; r < 77; ++r) lengths.push_back(std::min<std::int64_t>(cols, r % 9));
    const Matrix a = test::with_row_lengths(cols, lengths, 6);
    expect_matches_reference<double>(a, {"block_rows=16", "block_cols=64"});
    expect_matches_reference<half>(a, {"block_rows=16", "block_cols=64"});
    expect_matches_reference<double>(a);  // auto: one segment narrower than block_cols
  }
}

TEST_F(HbpGpu, HashCollisionsFromEqualRowLengths) {
  const Matrix a = test::with_row_lengths(64, std::vector<std::int64_t>(300, 5), 7);
  expect_every_precision(a, {"block_rows=300", "block_cols=64"});
}

TEST_F(HbpGpu, MoreWarpsThanBlocksAndTheReverse) {
  // 2 blocks against a full grid of 8-warp blocks; thousands of blocks against one thread block
  const Matrix few = test::with_row_lengths(100, std::vector<std::int64_t>(200, 9), 8);
  expect_every_precision(few, {"block_rows=128", "block_cols=128"});
  const Matrix many = generate_rmat(14, 8, 9);
  for (const char* share : {"fixed_share=0", "fixed_share=0.5", "fixed_share=1"}) {
    expect_matches_reference<double>(many, {"block_rows=16", "block_cols=64", "blocks_per_sm=1",
                                            "warps_per_block=1", share});
    expect_matches_reference<float>(many, {"block_rows=64", "block_cols=256", share});
  }
}

TEST_F(HbpGpu, AllThreeReorderModesGiveTheSameY) {
  const Matrix a64 = generate_random_rows(5000, 5000, RowLengthDistribution::power_law, 1, 2000, 10);
  const auto a = test::with_values<double>(a64);
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  std::vector<std::vector<double>> results;
  for (const char* reorder : {"reorder=hash", "reorder=sort", "reorder=none"}) {
    const SpmvPlan<double> plan(a, Method("hbp"),
                                options_of({reorder, "block_rows=256", "block_cols=512"}));
    results.push_back(run_spmv(plan, x, y0, {1.0, 0.0}));
  }
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(results[0].data(), results[2].data(), results[0].size() * sizeof(double)), 0);
}

TEST_F(HbpGpu, WalkUnrollDoesNotChangeY) {
  // each lane adds its products in round order whatever the rounds loaded at once: bitwise equal
  std::vector<std::int64_t> holes;  // lanes dying between living ones, lengths 1 to 63 mixed
  const std::int64_t pattern[] = {5, 0, 1, 9, 1, 63, 1, 63, 2, 1, 0, 1, 17, 63, 1, 3, 1, 63};
  for (int r = 0; r < 3000; ++r) holes.push_back(pattern[r % 18]);
  const Matrix cases[] = {
      test::with_row_lengths(64, holes, 16),
      generate_rmat(14, 8, 17),
      generate_random_rows(20000, 20000, RowLengthDistribution::power_law, 1, 2000, 18),
  };
  for (const Matrix& a64 : cases) {
    const auto x = test::make_x<double>(a64);
    const auto y0 = test::make_y<double>(a64);
    const auto a = test::with_values<double>(a64);
    for (const char* warp : {"warp_row_length=64", "warp_row_length=off", "warp_row_length=2"}) {
      std::vector<std::vector<double>> results;
      for (const char* unroll : {"walk_unroll=1", "walk_unroll=2", "walk_unroll=4", "walk_unroll=8"}) {
        const SpmvPlan<double> plan(a, Method("hbp"),
                                    options_of({unroll, warp, "block_rows=128", "block_cols=64"}));
        results.push_back(run_spmv(plan, x, y0, {1.5, -0.5}));
      }
      for (std::size_t k = 1; k < results.size(); ++k)
        EXPECT_EQ(std::memcmp(results[0].data(), results[k].data(),
                              results[0].size() * sizeof(double)), 0)
            << warp << " unroll case " << k;
    }
  }
}

TEST_F(HbpGpu, LaneGroupsWithHolesMatchReference) {
  std::vector<std::int64_t> holes;
  const std::int64_t pattern[] = {5, 0, 1, 9, 1, 63, 1, 63, 2, 1, 0, 1, 17, 63, 1, 3, 1, 63};
  for (int r = 0; r < 3000; ++r) holes.push_back(pattern[r % 18]);
  const Matrix a = test::with_row_lengths(64, holes, 19);
  for (const char* unroll : {"walk_unroll=1", "walk_unroll=4", "walk_unroll=8"})
    for (const char* reorder : {"reorder=none", "reorder=hash"}) {
      expect_every_precision(a, {unroll, reorder, "block_rows=128", "block_cols=64",
                                 "warp_row_length=off"});
      expect_matches_reference<double>(a, {unroll, reorder});
    }
  // a lane walking a slot of 65536 nonzeros (fp16: the 128 KiB segment fits shared memory)
  const Matrix widest = test::with_row_lengths(65536, {3, 65536, 1, 0, 7}, 20);
  expect_matches_reference<half>(widest, {"block_cols=65536", "warp_row_length=off",
                                          "max_slot_length=65536"});
  expect_matches_reference<bfloat16>(widest, {"block_cols=65536", "warp_row_length=off",
                                              "max_slot_length=65536",
                                              "walk_unroll=8"});
}

TEST_F(HbpGpu, LaunchScheduleIsTheHostModelsAndTheHostModelMatches) {
  const Matrix a64 = generate_rmat(13, 8, 11);
  const auto a = test::with_values<double>(a64);
  const std::vector<std::string> parameters = {"block_rows=64", "block_cols=512"};
  const auto method = make_method<double>(a, parameters);
  const hbp::Schedule schedule = hbp::testing::launch_schedule(*method);
  const hbp::HbpParameters p = hbp::parse_parameters(parameters);
  const hbp::HbpLayout<double> layout = hbp::build_layout(a, p, 512);
  EXPECT_EQ(schedule.grid, std::min<std::int64_t>(schedule.grid, layout.tasks()));
  EXPECT_GT(schedule.grid, 0);
  EXPECT_EQ(method->stats().details["tasks"].get<std::int64_t>(), layout.tasks());
  const auto x = test::make_x<double>(a64);
  std::vector<double> host(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
  hbp::host_apply(layout, schedule, std::span<const double>(x), std::span<double>(host), 1.0, 0.0);
  const auto y = run_spmv(SpmvPlan<double>(a, Method("hbp"), options_of(parameters)), x,
                          test::make_y<double>(a64), {1.0, 0.0});
  EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(host)), 1e-14);
}

TEST_F(HbpGpu, CombineListsLongerThanCombineWarpPartialsAreAddedByTheWholeWarp) {
  // Rows cut into slots of 1 and 3 nonzeros: combine lists of up to 3000 partial sums, at and
  // around the thresholds, several long ones in one warp of combine rows, beside short and
  // empty rows; with a row's slots in one and in several column blocks; a thread a combine row
  // (combine_warp_rows=off) with every list by a warp (1), 32, and none (off); then a warp a
  // combine row (the default for so few rows); against the reference and the host model.
  const Matrix a64 =
      test::with_row_lengths(4000, {0, 31, 32, 33, 2, 64, 65, 3000, 1, 33, 0, 100, 97, 5}, 21);
  for (const char* output : {"slot_output=hash", "slot_output=partial"}) {
    for (const char* warp : {"combine_warp_partials=1", "combine_warp_partials=32",
                             "combine_warp_partials=off"}) {
      expect_every_precision(a64, {"max_slot_length=1", output, warp, "combine_warp_rows=off"});
      expect_every_precision(
          a64, {"max_slot_length=3", "block_cols=512", output, warp, "combine_warp_rows=off"});
    }
    expect_every_precision(a64, {"max_slot_length=1", output});
    expect_every_precision(a64, {"max_slot_length=3", "block_cols=512", output});
  }
  expect_every_precision(a64, {"max_slot_length=1"});

  const auto a = test::with_values<double>(a64);
  const auto x = test::make_x<double>(a64);
  for (const char* warp : {"combine_warp_partials=1", "combine_warp_partials=off",
                           "combine_warp_rows=1000000"}) {
    std::vector<std::string> parameters = {"max_slot_length=1", "block_cols=4096", warp};
    if (std::string(warp) != "combine_warp_rows=1000000")
      parameters.emplace_back("combine_warp_rows=off");
    const auto method = make_method<double>(a, parameters);
    const hbp::Schedule schedule = hbp::testing::launch_schedule(*method);
    EXPECT_EQ(schedule.combine_warp_partials,
              hbp::parse_parameters(parameters).combine_warp_partials);
    EXPECT_EQ(schedule.combine_by_warps, std::string(warp) == "combine_warp_rows=1000000");
    const hbp::HbpLayout<double> layout =
        hbp::build_layout(a, hbp::parse_parameters(parameters), 4096);
    std::vector<double> host(static_cast<std::size_t>(a.rows),
                             std::numeric_limits<double>::quiet_NaN());
    hbp::host_apply(layout, schedule, std::span<const double>(x), std::span<double>(host), 1.0,
                    0.0);
    const auto y = run_spmv(SpmvPlan<double>(a, Method("hbp"), options_of(parameters)), x,
                            test::make_y<double>(a64), {1.0, 0.0});
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(host)), 1e-14)
        << warp;
  }
}

TEST_F(HbpGpu, EmptyShapesStillScaleY) {
  for (const auto& [rows, cols] : {std::pair<int, int>{0, 0}, {0, 5}, {5, 0}, {1000, 7}}) {
    Matrix a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    expect_every_precision(a);
  }
}

TEST_F(HbpGpu, LargeGeneratedMatricesMatchReference) {
  const Matrix cases[] = {
      generate_rmat(18, 16, 3),  // kron_g500-logn18-like
      generate_random_rows(200000, 200000, RowLengthDistribution::power_law, 1, 50000, 5),
      generate_long_rows(300, 200000, 5000, 8),
      generate_random_rows(100000, 3000000, RowLengthDistribution::uniform, 1, 12, 4),
  };
  for (const Matrix& a : cases) {
    expect_matches_reference<double>(a);
    EXPECT_LT(plan_error<half>(a, {1.0, 0.0}), 1e-2);
  }
}

/// A plan of `a` built from its arrays copied to the GPU (a DeviceCsrView) against the plan from
/// the host CSR: the same y bit for bit (the layout is the same), also after the view's arrays
/// are poisoned and freed (the plan keeps its own values and reads nothing of the caller's).
template <typename Value>
void expect_device_csr_plan_equals_host_csr_plan(const Matrix& a64,
                                                 const std::vector<std::string>& parameters) {
  const Matrix scaled = std::is_same_v<Value, double> ? a64 : test::scaled_for_16_bit(a64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  const SpmvPlan<Value> from_host(a, Method("hbp"), options_of(parameters));
  const std::vector<Value> expected = run_spmv(from_host, x, y0, {1.5, -0.5});
  std::optional<DeviceBuffer<std::int32_t>> row_ptr(std::in_place, a.row_ptr);
  std::optional<DeviceBuffer<std::int32_t>> col_idx(std::in_place, a.col_idx);
  std::optional<DeviceBuffer<Value>> values(std::in_place, a.values);
  const DeviceCsrView<Value> view{a.rows, a.cols, a.nnz(), row_ptr->data(), col_idx->data(),
                                  values->data()};
  const SpmvPlan<Value> from_device(view, Method("hbp"), options_of(parameters));
  const bool host_build = std::ranges::count(parameters, std::string("build=host")) > 0;
  if (!host_build) {
    EXPECT_EQ(from_device.stats().upload_ms, 0.0) << describe(parameters);
  }
  values->fill_bytes(0xFF);
  col_idx->fill_bytes(0xFF);
  row_ptr.reset();
  col_idx.reset();
  values.reset();
  const std::vector<Value> got = run_spmv(from_device, x, y0, {1.5, -0.5});
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(Value)), 0)
      << describe(parameters);
}

TEST_F(HbpGpu, APlanFromDeviceCsrEqualsThePlanFromHostCsrAndOwnsItsValues) {
  std::vector<std::int64_t> lengths = {20000, 1, 0, 300, 5000};
  for (int i = 0; i < 2000; ++i) lengths.push_back(i % 40);
  const Matrix cases[] = {
      generate_rmat(16, 16, 21),  // 16 column blocks of 4096: partial sums and the combine
      generate_random_rows(60000, 60000, RowLengthDistribution::power_law, 1, 3000, 22),
      test::with_row_lengths(30000, lengths, 23),  // rows longer than a block, empty rows
  };
  for (const Matrix& a : cases)
    for (const std::vector<std::string>& parameters :
         {std::vector<std::string>{}, {"block_rows=64", "block_cols=1024"}, {"reorder=sort"},
          {"build=host"}, {"column_order=hubs_first"},
          {"column_order=hubs_first", "block_rows=64", "block_cols=1024"}}) {
      SCOPED_TRACE(std::to_string(a.rows) + " rows, " + describe(parameters));
      expect_device_csr_plan_equals_host_csr_plan<double>(a, parameters);
      expect_device_csr_plan_equals_host_csr_plan<float>(a, parameters);
      expect_device_csr_plan_equals_host_csr_plan<half>(a, parameters);
      expect_device_csr_plan_equals_host_csr_plan<bfloat16>(a, parameters);
    }
}

/// update_values=on: a plan of `a` (built from host CSR, or from its device copy) given new
/// values on the GPU computes, bit for bit, what a new plan of the new matrix computes (the layout
/// does not depend on the values), and the reference's y; also with the update captured into a
/// CUDA graph (no synchronisation, no allocation) and from host values.
template <typename Value>
void expect_updated_plan_equals_new_plan(const Matrix& a64,
                                         const std::vector<std::string>& parameters) {
  const Matrix scaled = std::is_same_v<Value, double> ? a64 : test::scaled_for_16_bit(a64);
  const auto a = test::with_values<Value>(scaled);
  auto updated = a;
  for (std::size_t k = 0; k < updated.values.size(); ++k)
    updated.values[k] = from_double<Value>(0.25 * static_cast<double>(k % 7) -
                                           0.5 * to_double(a.values[k]));
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(updated, std::span<const Value>(x), std::span<double>(reference), 1.5, -0.5);
  const SpmvPlan<Value> fresh(updated, Method("hbp"), options_of(parameters));
  const std::vector<Value> expected = run_spmv(fresh, x, y0, {1.5, -0.5});
  EXPECT_LT(relative_error(std::span<const Value>(expected), std::span<const double>(reference)),
            test::tolerance<Value>())
      << describe(parameters);

  const DeviceBuffer<std::int32_t> row_ptr(a.row_ptr), col_idx(a.col_idx);
  const DeviceBuffer<Value> values(a.values), new_values(updated.values);
  const DeviceCsrView<Value> view{a.rows, a.cols, a.nnz(), row_ptr.data(), col_idx.data(),
                                  values.data()};
  for (const bool from_device : {false, true}) {
    SpmvPlan<Value> plan = from_device ? SpmvPlan<Value>(view, Method("hbp"), options_of(parameters))
                                       : SpmvPlan<Value>(a, Method("hbp"), options_of(parameters));
    const std::string label = describe(parameters) + (from_device ? "(from device CSR)" : "");
    ASSERT_TRUE(plan.can_update_values()) << label;
    const detail::CudaStream stream;
    plan.update_values(new_values.data(), stream.get());
    stream.synchronize();
    const std::vector<Value> got = run_spmv(plan, x, y0, {1.5, -0.5});
    EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(Value)), 0) << label;

    // back to the old values from the host, then the new ones again inside a graph
    plan.update_values(std::span<const Value>(a.values), stream.get());
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
    plan.update_values(new_values.data(), stream.get());
    ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess) << label;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
    stream.synchronize();
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    const std::vector<Value> again = run_spmv(plan, x, y0, {1.5, -0.5});
    EXPECT_EQ(std::memcmp(again.data(), expected.data(), again.size() * sizeof(Value)), 0)
        << label << " (update captured in a graph)";
  }
}

TEST_F(HbpGpu, UpdateValuesOnGivesTheNewMatrixsYBitForBitAndOffRefuses) {
  std::vector<std::int64_t> lengths = {20000, 1, 0, 300, 5000};
  for (int i = 0; i < 2000; ++i) lengths.push_back(i % 40);
  const Matrix cases[] = {
      generate_rmat(16, 16, 31),  // 16 column blocks of 4096: partial sums and the combine
      test::with_row_lengths(30000, lengths, 32),  // rows longer than a block, empty rows
  };
  const std::vector<std::vector<std::string>> parameter_sets = {
      {"update_values=on"},
      {"update_values=on", "build=host"},
      {"update_values=on", "block_rows=64", "block_cols=1024", "kernel=groups",
       "slot_output=partial", "max_slot_length=5", "warp_row_length=4"},
      {"update_values=on", "block_rows=512", "block_cols=4096", "kernel=tasks"},
      {"update_values=on", "column_order=hubs_first", "block_rows=64", "block_cols=1024"},
  };
  for (const Matrix& a : cases)
    for (const auto& parameters : parameter_sets) {
      SCOPED_TRACE(std::to_string(a.rows) + " rows");
      expect_updated_plan_equals_new_plan<double>(a, parameters);
      expect_updated_plan_equals_new_plan<half>(a, parameters);
    }
  expect_updated_plan_equals_new_plan<float>(cases[0], parameter_sets[2]);
  expect_updated_plan_equals_new_plan<bfloat16>(cases[0], parameter_sets[2]);

  // off (the default): refused, naming the parameter that would allow it
  const auto a = test::with_values<double>(cases[0]);
  SpmvPlan<double> plan(a, Method("hbp"));
  EXPECT_FALSE(plan.can_update_values());
  EXPECT_EQ(plan.stats().details["update_values"], "off");
  const DeviceBuffer<double> values(a.values);
  try {
    plan.update_values(values.data(), nullptr);
    ADD_FAILURE() << "update_values did not throw";
  } catch (const UnsupportedError& error) {
    EXPECT_NE(std::string(error.what()).find("update_values=on"), std::string::npos)
        << error.what();
  }
  // on: the source indices are counted in the plan's device bytes (4 a nonzero)
  const SpmvPlan<double> kept(a, Method("hbp"), options_of({"update_values=on"}));
  EXPECT_EQ(kept.stats().device_bytes - plan.stats().device_bytes,
            static_cast<std::size_t>(a.nnz()) * sizeof(std::int32_t));
}

TEST_F(HbpGpu, RepeatedAppliesAreRightAndBitwiseIdentical) {
  // The ticket resets itself at the end of each launch (the taker of its last ticket zeroes it):
  // every apply must take every task or group again, under the tasks kernel (thread blocks take
  // tickets after a fixed part, and without one) and the groups kernel with runs of 1, 3 and 8
  // groups a ticket (tickets with work not a multiple of the takers), after a fixed part of half,
  // all or 90 % of the groups; the partial sums are
  // combined in order: the same bits each time, and the reference's y.
  const Matrix a64 = generate_random_rows(60000, 60000, RowLengthDistribution::power_law, 1, 3000, 12);
  const auto a = test::with_values<float>(a64);
  const auto x = test::make_x<float>(a64);
  const auto y0 = test::make_y<float>(a64);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const float>(x), std::span<double>(reference), 1.0, 0.5);
  const std::vector<std::vector<std::string>> launches = {
      {"block_rows=512", "block_cols=4096"},
      {"block_rows=512", "block_cols=4096", "fixed_share=0"},
      {"kernel=groups", "groups_per_ticket=1"},
      {"kernel=groups", "groups_per_ticket=3", "block_rows=64"},
      {"kernel=groups", "groups_per_ticket=8", "block_cols=4096"},
      // fixed rounds of tickets before the counter's (few warps, so that rounds of them fit):
      // about half, all but a part round, most in runs of 3
      {"kernel=groups", "fixed_group_share=0.5", "warps_per_block=1", "blocks_per_sm=1"},
      {"kernel=groups", "fixed_group_share=1", "block_rows=64", "warps_per_block=1",
       "blocks_per_sm=1"},
      {"kernel=groups", "fixed_group_share=0.9", "groups_per_ticket=3", "block_cols=4096",
       "warps_per_block=2", "blocks_per_sm=1"},
  };
  for (const auto& parameters : launches) {
    const SpmvPlan<float> plan(a, Method("hbp"), options_of(parameters));
    if (parameters.size() > 1 && parameters[1].starts_with("fixed_group_share"))
      EXPECT_GT(plan.stats().details["fixed_groups"].get<std::int64_t>(), 0) << describe(parameters);
    const std::vector<float> first = run_spmv(plan, x, y0, {1.0, 0.5});
    EXPECT_LT(relative_error(std::span<const float>(first), std::span<const double>(reference)),
              test::tolerance<float>())
        << describe(parameters);
    for (int run = 0; run < 5; ++run) {
      const std::vector<float> again = run_spmv(plan, x, y0, {1.0, 0.5});
      EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0)
          << run << " " << describe(parameters);
    }
  }
}

TEST_F(HbpGpu, SpmvAndCombineCaptureIntoAGraphAndReplay) {
  std::vector<std::int64_t> lengths = {20000, 1, 0, 300, 5000};
  for (int i = 0; i < 2000; ++i) lengths.push_back(i % 40);
  const Matrix a64 = test::with_row_lengths(30000, lengths, 13);
  const auto a = test::with_values<double>(a64);
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  std::vector<double> reference(y0.size(), 0.0);
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 2.0, 0.0);
  // the caller's column order, and the hubs-first one, whose x is gathered inside the graph
  for (const char* order : {"column_order=caller", "column_order=hubs_first"}) {
    const SpmvPlan<double> plan(a, Method("hbp"),
                                options_of({"block_rows=64", "block_cols=1024", order}));
    EXPECT_GT(plan.stats().details["partial_sums"].get<std::int64_t>(), 0);
    // three launches of one graph: each starts from the ticket the one before left at 0
    const std::vector<double> y = testing::run_spmv_in_graph(plan, x, y0, {2.0, 0.0}, 3);
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)), 1e-12)
        << order;
  }
}

TEST_F(HbpGpu, AutoColumnOrderTakesHubsFirstWhereFewColumnsHoldManyNonzeros) {
  // column_order=auto (the default) estimates the concentration at plan time from 2^22
  // nonzeros: an R-MAT graph's hub columns (about 55) are read hubs first; columns drawn at
  // random (about 1.1) keep the caller's order; a smaller graph and a matrix without nonzeros are
  // not sampled
  struct Case {
    Matrix matrix;
    const char* order;
    bool counted;
  };
  const Case cases[] = {
      {generate_rmat(19, 16, 41), "hubs_first", true},
      {generate_random_rows(500000, 500000, RowLengthDistribution::uniform, 4, 14, 42), "caller",
       true},
      {generate_rmat(16, 16, 44), "caller", false},
      {test::with_row_lengths(100, std::vector<std::int64_t>(50, 0), 43), "caller", false},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(c.matrix.nnz() >= hbp::kHubsFirstMinNonzeros, c.counted) << c.matrix.nnz();
    const SpmvPlan<double> plan(c.matrix, Method("hbp"));
    const Json& details = plan.stats().details;
    EXPECT_EQ(details["column_order"], c.order) << c.matrix.rows;
    EXPECT_EQ(details.contains("column_count_concentration"), c.counted) << c.matrix.rows;
    if (c.counted) {  // estimated from a sample of the nonzeros, as on the host
      EXPECT_EQ(details["column_count_concentration"].get<double>(),
                hbp::estimated_column_count_concentration(
                    c.matrix.cols, c.matrix.nnz(), hbp::sampled_column_counts(c.matrix)));
    }
    expect_matches_reference<double>(c.matrix);
    expect_matches_reference<half>(c.matrix);
  }
}

TEST_F(HbpGpu, XReadHubsFirstIsCutIntoNarrowerStripesInFp64) {
  // block_cols=auto: stripes of a fifth of the L2 where x is read hubs first in fp64, a third
  // otherwise (fp16, or the caller's order); 2 M columns: 16 MB of fp64 x, more than a fifth of
  // an H100's or an H200's L2 and less than a third: two stripes hubs first, one block else
  const Matrix a = generate_random_rows(2000, 2000000, RowLengthDistribution::uniform, 1, 9, 45);
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  int l2 = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
  const hbp::HbpParameters p = hbp::parse_parameters({});
  for (const char* order : {"column_order=hubs_first", "column_order=caller"}) {
    const bool hubs = std::string(order) == "column_order=hubs_first";
    const SpmvPlan<double> fp64(test::with_values<double>(a), Method("hbp"), options_of({order}));
    EXPECT_EQ(fp64.stats().details["block_cols"].get<std::int64_t>(),
              p.resolved_block_cols(8, a.cols, l2, hubs)) << order;
    const SpmvPlan<half> fp16(test::with_values<half>(test::scaled_for_16_bit(a)), Method("hbp"),
                              options_of({order}));
    EXPECT_EQ(fp16.stats().details["block_cols"].get<std::int64_t>(),
              p.resolved_block_cols(2, a.cols, l2, false)) << order;
    expect_matches_reference<double>(a, {order});
  }
  EXPECT_LT(p.resolved_block_cols(8, a.cols, l2, true), p.resolved_block_cols(8, a.cols, l2, false));
}

TEST_F(HbpGpu, SpmvAndCombineAreTimedApart) {
  const Matrix a64 = generate_rmat(16, 16, 14);
  const auto a = test::with_values<double>(a64);
  const auto method = make_method<double>(a, {"block_cols=4096"});
  const auto x = test::make_x<double>(a64);
  DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(static_cast<std::size_t>(a.rows));
  const hbp::testing::PartTimes times = hbp::testing::time_parts(*method, dx.data(), dy.data(), 5);
  EXPECT_GT(times.spmv_ms, 0.0);
  EXPECT_GT(times.combine_ms, 0.0);  // 16 column blocks: rows with several partial sums
}

TEST_F(HbpGpu, WideBlocksReadXFromGlobalMemoryWithoutSharedMemory) {
  // 65536 fp64 columns = 512 KiB of x: above kLargestSharedSegmentBytes, read through the L2
  const Matrix a = test::with_row_lengths(70000, {5, 5, 70000, 0, 3}, 15);
  const SpmvPlan<double> plan(test::with_values<double>(a), Method("hbp"),
                              options_of({"block_cols=65536"}));
  EXPECT_EQ(plan.stats().details["shared_memory_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(plan.stats().details["kernel"], "groups");
  expect_matches_reference<double>(a, {"block_cols=65536"});
  // the paper's kernel on the same wide blocks: tasks whose warps read x from global memory
  const SpmvPlan<double> tasks(test::with_values<double>(a), Method("hbp"),
                               options_of({"block_cols=65536", "kernel=tasks"}));
  EXPECT_EQ(tasks.stats().details["shared_memory_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(tasks.stats().details["fixed_share"].get<double>(), 0.0);
  expect_matches_reference<double>(a, {"block_cols=65536", "kernel=tasks"});
}

TEST_F(HbpGpu, StripesAndRowsCutIntoSlotsMatchReference) {
  // x of 3 M values in stripes of 1 M columns (columns inside a stripe above 16 bits), a row of
  // 150 000 nonzeros cut into slots of max_slot_length, short rows beside it
  std::vector<std::int64_t> lengths = {150000, 0, 1, 40000};
  for (int i = 0; i < 3000; ++i) lengths.push_back(i % 13);
  const Matrix a = test::with_row_lengths(3000000, lengths, 16);
  for (const std::vector<std::string>& parameters :
       {std::vector<std::string>{"block_cols=1000000"},
        std::vector<std::string>{"block_cols=1000000", "max_slot_length=700", "walk_unroll=8"},
        std::vector<std::string>{"max_slot_length=65536"}, std::vector<std::string>{}}) {
    expect_every_precision(a, parameters);
  }
}

/// y = alpha A x + beta y (the scalars of `s`) by an hbp plan of `a64` (as Value) with
/// `parameters`, and the plan's details.
template <typename Value>
std::pair<std::vector<Value>, Json> hbp_y(const Matrix& a64,
                                          const std::vector<std::string>& parameters, Scalars s) {
  const Matrix scaled = std::is_same_v<Value, double> ? a64 : test::scaled_for_16_bit(a64);
  const auto a = test::with_values<Value>(scaled);
  const SpmvPlan<Value> plan(a, Method("hbp"), options_of(parameters));
  return {run_spmv(plan, test::make_x<Value>(scaled), test::make_y<Value>(scaled), s),
          plan.stats().details};
}

std::string text_in(const Json& details, const char* key) {
  return details[key].get<std::string>();
}

/// slot_output=partial gives slot_output=hash's y bit for bit.
template <typename Value>
void expect_slot_partials_give_the_hash_layouts_y(const Matrix& a64,
                                                  std::vector<std::string> parameters) {
  for (const Scalars s : kScalarCases) {
    parameters.push_back("slot_output=hash");
    const auto [hashed, hash_details] = hbp_y<Value>(a64, parameters, s);
    parameters.back() = "slot_output=partial";
    const auto [partial, partial_details] = hbp_y<Value>(a64, parameters, s);
    parameters.pop_back();
    EXPECT_EQ(text_in(hash_details, "slot_output"), "hash");
    EXPECT_EQ(text_in(partial_details, "slot_output"), a64.nnz() > 0 ? "partial" : "hash");
    ASSERT_EQ(partial.size(), hashed.size());
    EXPECT_EQ(std::memcmp(partial.data(), hashed.data(), partial.size() * sizeof(Value)), 0)
        << describe(parameters) << "alpha " << s.alpha << " beta " << s.beta;
  }
}

TEST_F(HbpGpu, EverySlotWritingItsOwnPartialGivesTheHashLayoutsYBitForBit) {
  // rows with slots in several stripes, rows cut into several slots of one stripe
  // (max_slot_length), empty rows (beta * y alone) and rows of one slot (written by the combine)
  std::vector<std::int64_t> lengths = {3000, 0, 1, 900, 0};
  for (int i = 0; i < 5000; ++i) lengths.push_back(i % 37);
  const Matrix cases[] = {
      test::with_row_lengths(4096, lengths, 21),
      generate_rmat(15, 16, 22),
      generate_random_rows(50000, 50000, RowLengthDistribution::uniform, 0, 12, 23),
  };
  const std::vector<std::vector<std::string>> shapes = {
      {"block_cols=256", "max_slot_length=100"},
      {"block_cols=1024", "block_rows=64", "kernel=tasks"},
      {"block_cols=8", "max_slot_length=2", "warp_row_length=off"},
      {"column_order=hubs_first", "block_cols=512", "reorder=sort"},
      {"build=host", "block_cols=512"},
      {},  // one column block
  };
  for (const Matrix& a : cases)
    for (const auto& shape : shapes) {
      expect_slot_partials_give_the_hash_layouts_y<double>(a, shape);
      expect_slot_partials_give_the_hash_layouts_y<half>(a, shape);
    }
}

TEST_F(HbpGpu, EverySlotWritingItsOwnPartialMatchesTheReferenceInEveryPrecision) {
  std::vector<std::int64_t> lengths = {150000, 0, 1, 40000};
  for (int i = 0; i < 3000; ++i) lengths.push_back(i % 13);
  expect_every_precision(test::with_row_lengths(3000000, lengths, 24),
                         {"slot_output=partial", "block_cols=1000000", "max_slot_length=700"});
  expect_every_precision(generate_rmat(14, 8, 25), {"slot_output=partial", "block_cols=1024"});
  std::vector<std::int64_t> mostly_empty(2000, 0);  // rows of 0-3 nonzeros, most of them empty
  for (std::size_t r = 0; r < mostly_empty.size(); r += 7) mostly_empty[r] = 1 + r % 3;
  expect_every_precision(test::with_row_lengths(64, mostly_empty, 27),
                         {"slot_output=partial", "block_cols=16"});
}

TEST_F(HbpGpu, AutoGivesEverySlotItsOwnPartialWhereXIsCutIntoStripes) {
  const Matrix a64 = generate_random_rows(20000, 20000, RowLengthDistribution::uniform, 1, 12, 26);
  const auto a = test::with_values<double>(a64);
  const SpmvPlan<double> stripes(a, Method("hbp"), options_of({"block_cols=4096"}));
  EXPECT_EQ(text_in(stripes.stats().details, "slot_output"), "partial");
  EXPECT_EQ(stripes.stats().details["combine_rows"].get<std::int64_t>(), a64.rows);
  EXPECT_EQ(stripes.stats().details["partial_sums"], stripes.stats().details["slots"]);
  const SpmvPlan<double> one_block(a, Method("hbp"), {});
  EXPECT_EQ(one_block.stats().details["column_blocks"].get<std::int64_t>(), 1);
  EXPECT_EQ(text_in(one_block.stats().details, "slot_output"), "hash");
  // a band in stripes: nearly every row lies in one stripe, its only slot writing y itself
  const auto band = test::with_values<double>(generate_banded(20000, 1, 28));
  const SpmvPlan<double> band_stripes(band, Method("hbp"), options_of({"block_cols=4096"}));
  EXPECT_EQ(text_in(band_stripes.stats().details, "slot_output"), "hash");
}

TEST_F(HbpGpu, AFixedShareOfTheGroupsIsHandedOutInWholeRoundsOfTickets) {
  // fixed_group_share: at most that share of the groups, in whole rounds of one ticket a warp
  // (W warps, R groups a ticket), in one column block and in stripes; none by default; y right
  // under each
  const Matrix a64 =
      generate_random_rows(600000, 600000, RowLengthDistribution::power_law, 1, 900, 27);
  const auto a = test::with_values<double>(a64);
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 1.0, -1.0);
  struct Case {
    std::vector<std::string> parameters;
    double share;
  };
  const Case cases[] = {
      {{"kernel=groups", "fixed_group_share=0.4"}, 0.4},
      {{"kernel=groups"}, 0.0},
      {{"kernel=groups", "block_cols=4096"}, 0.0},
      {{"kernel=groups", "block_cols=4096", "fixed_group_share=0.3"}, 0.3},
  };
  for (const Case& c : cases) {
    const SpmvPlan<double> plan(a, Method("hbp"), options_of(c.parameters));
    const auto& details = plan.stats().details;
    const auto groups = details["groups"].get<std::int64_t>();
    const std::int64_t round_groups = details["grid"].get<std::int64_t>() *
                                      details["threads_per_block"].get<std::int64_t>() / 32 *
                                      details["groups_per_ticket"].get<std::int64_t>();
    ASSERT_GT(groups, 2 * round_groups) << describe(c.parameters);  // so that 0.3 is a round
    EXPECT_EQ(details["fixed_group_share"].get<double>(), c.share) << describe(c.parameters);
    EXPECT_EQ(details["fixed_groups"].get<std::int64_t>(),
              static_cast<std::int64_t>(c.share * static_cast<double>(groups)) / round_groups *
                  round_groups)
        << describe(c.parameters);
    if (c.share > 0.0) EXPECT_GT(details["fixed_groups"].get<std::int64_t>(), 0);
    const std::vector<double> y = run_spmv(plan, x, y0, {1.0, -1.0});
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)),
              test::tolerance<double>())
        << describe(c.parameters);
  }
}

}  // namespace
}  // namespace tcsparse
