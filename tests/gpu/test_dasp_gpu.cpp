// What is particular to DASP on the GPU, against the CPU reference (double accumulation; fp64
// below 1e-12, fp16 / bf16 below 1e-2, outputs poisoned with NaN first): every kernel shape and
// parameter on the shared catalogue, every row-length category alone and mixed at row counts that
// do not fill a block, padded tail blocks, large generated matrices, the device fill against the
// host fill, and work split across warps reduced correctly on every launch. The default layout on
// the catalogue and on real matrices, stream order and graph capture are the conformance suite's.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "dasp/dasp.hpp"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_testing.hpp"
#include "gpu/gpu_test.hpp"
#include "gpu/plan_runner.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/host_upload.hpp"
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

/// rows = lengths.size(), each row `lengths[r]` distinct random columns of [0, cols): the shared
/// catalogue's builder, taking the int lengths these tests write.
Matrix matrix_with_lengths(std::int32_t cols, const std::vector<int>& lengths,
                           std::uint64_t seed = 1) {
  return test::with_row_lengths(cols, {lengths.begin(), lengths.end()}, seed);
}

/// Runs y = alpha A x + beta y0 through a DASP plan (y poisoned with NaN when beta == 0) and
/// returns y.
template <typename Value>
std::vector<Value> run_dasp(const CsrMatrix<Value, std::int32_t>& a, const std::vector<Value>& x,
                            const std::vector<Value>& y0, Scalars s,
                            const PlanOptions& options = {}) {
  const SpmvPlan<Value> plan(a, Method("dasp"), options);
  DeviceBuffer<Value> dx(x);
  DeviceBuffer<Value> dy(s.beta == 0.0 ? test::make_poisoned<Value>(y0.size()) : y0);
  plan.apply(dx.data(), dy.data(), static_cast<scalar_t<Value>>(s.alpha),
             static_cast<scalar_t<Value>>(s.beta));
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return dy.download();
}

/// ||DASP - reference|| / ||reference|| on the matrix converted to Value.
template <typename Value>
double dasp_error(const Matrix& matrix64, Scalars s, const PlanOptions& options = {}) {
  const Matrix scaled = std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), s.alpha, s.beta);
  const auto y = run_dasp(a, x, y0, s, options);
  return relative_error(std::span<const Value>(y), std::span<const double>(reference));
}

template <typename Value>
void expect_dasp_matches_reference(const Matrix& matrix, const PlanOptions& options = {}) {
  for (const Scalars s : kScalarCases)
    EXPECT_LT(dasp_error<Value>(matrix, s, options), test::tolerance<Value>())
        << "alpha " << s.alpha << " beta " << s.beta;
}

// ---- the shared catalogue (the default layout is the conformance suite's) ----------------------

class DaspGpuOnCatalogue : public testing::GpuTestWithParam<test::NamedMatrix> {};

/// Every kernel instantiation: rows a warp (LOOP_NUM) x blocks in flight x pipelined loads,
/// with small pieces of work (split medium row-blocks and long rows) or the defaults.
std::vector<PlanOptions> kernel_shape_options(std::initializer_list<const char*> rows_per_warp) {
  std::vector<PlanOptions> all;
  for (const char* rows : rows_per_warp)
    for (const char* in_flight : {"1", "2", "4"})
      for (const char* pipelined : {"0", "1"}) {
        PlanOptions options;
        options.parameters = {std::string("medium_rows_per_warp=") + rows,
                              std::string("blocks_in_flight=") + in_flight,
                              std::string("pipelined_loads=") + pipelined};
        if (std::string(in_flight) == "2") {
          options.parameters.push_back("medium_blocks_per_warp=1");
          options.parameters.push_back("long_groups_per_warp=1");
        }
        if (std::string(pipelined) == "1") options.parameters.push_back("max_medium_row_length=256");
        if (std::string(in_flight) == "4")  // medium rows sorted within windows of caller rows
          for (const char* p : {"medium_row_window=24", "medium_min_row_length=4"})
            options.parameters.push_back(p);
        all.push_back(options);
      }
  return all;
}

std::string describe_parameters(const std::vector<std::string>& parameters) {
  std::string text;
  for (const auto& p : parameters) text += p + " ";
  return text;
}
std::string describe(const PlanOptions& options) { return describe_parameters(options.parameters); }

TEST_P(DaspGpuOnCatalogue, Fp64WithEveryKernelShapeMatchesReference) {
  for (PlanOptions options : kernel_shape_options({"8", "16", "32"})) {
    EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.0}, options), 1e-12)
        << describe(options);
    options.parameters.push_back("fp64_block_order=column");  // every category, column-major
    EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.0}, options), 1e-12)
        << describe(options);
  }
}
TEST_P(DaspGpuOnCatalogue, Fp16WithEveryKernelShapeMatchesReference) {
  for (PlanOptions options : kernel_shape_options({"16", "32"})) {
    options.parameters.push_back("regular_block_min_fill=0.5");
    EXPECT_LT(dasp_error<half>(GetParam().matrix, {1.0, 0.5}, options), 1e-2)
        << describe(options);
  }
}
TEST_P(DaspGpuOnCatalogue, EveryKernelShapeWithoutIrregularValuesMatchesReference) {
  // regular_block_min_fill=0 puts every medium value in a regular block: the kernels without an
  // irregular part (NoIrregularPart) run, in each shape, block order and precision
  for (PlanOptions options : kernel_shape_options({"8", "16", "32"})) {
    options.parameters.push_back("regular_block_min_fill=0");
    EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12)
        << describe(options);
    EXPECT_LT(dasp_error<half>(GetParam().matrix, {1.0, 0.0}, options), 1e-2)
        << describe(options);
    options.parameters.push_back("fp64_block_order=column");
    EXPECT_LT(dasp_error<double>(GetParam().matrix, {-1.0, 0.0}, options), 1e-12)
        << describe(options);
  }
}
TEST_P(DaspGpuOnCatalogue, Bf16WithSplitWorkMatchesReference) {
  PlanOptions options;
  options.parameters = {"medium_rows_per_warp=16", "medium_blocks_per_warp=1",
                        "long_groups_per_warp=1", "max_medium_row_length=256"};
  EXPECT_LT(dasp_error<bfloat16>(GetParam().matrix, {-1.0, 0.5}, options), 1e-2);
}

/// The GPU fill of the value arrays (default) writes exactly what the host fill writes.
template <typename Value>
void expect_device_fill_equals_host_fill(const Matrix& matrix64,
                                         const std::vector<std::string>& parameters) {
  const auto a = test::with_values<Value>(matrix64);
  const auto method =
      dasp::make_spmv<Value>(a, detail::check_parameter_values("dasp", dasp::parameter_specs(), parameters));
  const auto device = dasp::testing::download_value_arrays<Value>(*method);
  const auto host = dasp::build_dasp_layout(a, dasp::parse_parameters(parameters));
  auto same_values = [](const std::vector<Value>& d, const dasp::HostArray<Value>& h) {
    return d.size() == h.size() &&
           (d.empty() || std::memcmp(d.data(), h.data(), d.size() * sizeof(Value)) == 0);
  };
  auto same_cols = [](const std::vector<std::int32_t>& d, const dasp::HostArray<std::int32_t>& h) {
    return d.size() == h.size() && std::equal(d.begin(), d.end(), h.span().begin());
  };
  EXPECT_TRUE(same_values(device.long_values, host.long_values));
  EXPECT_TRUE(same_cols(device.long_cols, host.long_cols));
  EXPECT_TRUE(same_values(device.regular_values, host.regular_values));
  EXPECT_TRUE(same_cols(device.regular_cols, host.regular_cols));
  EXPECT_TRUE(same_values(device.irregular_values, host.irregular_values));
  EXPECT_TRUE(same_cols(device.irregular_cols, host.irregular_cols));
  EXPECT_TRUE(same_values(device.short_values, host.short_values));
  EXPECT_TRUE(same_cols(device.short_cols, host.short_cols));
}

/// The index arrays and scalars of the plan's layout (built on the GPU: build=device, the
/// default) are exactly the host build's (build_dasp_layout, the model the host apply checks
/// against the reference).
template <typename Value>
void expect_device_build_equals_host_build(const Matrix& matrix64,
                                           const std::vector<std::string>& parameters) {
  SCOPED_TRACE(describe_parameters(parameters));
  const auto a = test::with_values<Value>(matrix64);
  const auto method = dasp::make_spmv<Value>(
      a, detail::check_parameter_values("dasp", dasp::parameter_specs(), parameters));
  if (a.nnz() == 0) return;  // nothing built: one y = beta * y
  const dasp::DaspLayout<Value> device = dasp::testing::download_index_arrays<Value>(*method);
  const dasp::DaspLayout<Value> host = dasp::build_dasp_layout(
      a, dasp::parse_parameters(parameters), std::nullopt, dasp::DaspFill::index_only);
  EXPECT_EQ(device.counts, host.counts);
  EXPECT_EQ(device.shape, host.shape);
  EXPECT_EQ(device.split, host.split);
  EXPECT_EQ(device.medium_rows_per_warp, host.medium_rows_per_warp);
  EXPECT_EQ(device.short_parts, host.short_parts);
  EXPECT_EQ(device.medium_blocks_per_piece, host.medium_blocks_per_piece);
  EXPECT_EQ(device.medium_max_pieces, host.medium_max_pieces);
  EXPECT_EQ(device.medium_split_row_blocks, host.medium_split_row_blocks);
  EXPECT_EQ(device.medium_plain_units, host.medium_plain_units);
  EXPECT_EQ(device.long_row_ids, host.long_row_ids);
  EXPECT_EQ(device.long_group_ptr, host.long_group_ptr);
  EXPECT_EQ(device.long_task_ptr, host.long_task_ptr);
  EXPECT_EQ(device.long_tasks, host.long_tasks);
  EXPECT_EQ(device.medium_row_ids, host.medium_row_ids);
  EXPECT_EQ(device.rowblock_ptr, host.rowblock_ptr);
  EXPECT_EQ(device.irregular_ptr, host.irregular_ptr);
  EXPECT_EQ(device.medium_tail_widths, host.medium_tail_widths);
  EXPECT_EQ(device.medium_extra_pieces, host.medium_extra_pieces);
  EXPECT_EQ(device.short_row_ids, host.short_row_ids);
  EXPECT_EQ(device.short_tile_order, host.short_tile_order);
  EXPECT_EQ(device.empty_row_ids, host.empty_row_ids);
}

/// Parameter sets that take every branch of the build: block orders, both short tile orders,
/// split row-blocks (one row-block a warp) and split long rows, windows with rows of four as
/// medium rows, every LOOP_NUM, other fills and MAX_LENs.
const std::vector<std::vector<std::string>> kBuildParameterSets = {
    {},
    {"fp64_block_order=row"},
    {"fp64_block_order=column", "regular_block_min_fill=0.5"},
    {"max_medium_row_length=256", "short_tile_order=row"},
    {"short_tile_order=kind", "medium_rows_per_warp=32"},
    {"medium_rows_per_warp=8", "medium_blocks_per_warp=1", "long_groups_per_warp=1"},
    {"medium_rows_per_warp=8", "medium_blocks_per_warp=3", "max_medium_row_length=64"},
    {"medium_rows_per_warp=16", "medium_row_window=24", "medium_min_row_length=4"},
    {"medium_rows_per_warp=32", "medium_row_window=8", "short_tile_order=row"},
    {"medium_rows_per_warp=8", "medium_row_window=24"},  // windows with one row-block a warp
    // windows of regular medium rows ordered by width, and by length
    {"medium_rows_per_warp=16", "medium_row_window=40", "regular_block_min_fill=0",
     "medium_row_order=width"},
    {"medium_rows_per_warp=32", "medium_row_window=8", "regular_block_min_fill=0",
     "medium_row_order=length"},
    {"max_medium_row_length=40", "regular_block_min_fill=0.3"},
    {"max_medium_row_length=4", "medium_min_row_length=5"},
    // 1+3 pairs within windows of caller rows, tiles by row and by kind
    {"short_pair_window=24", "short_tile_order=row"},
    {"short_pair_window=8", "short_tile_order=kind", "medium_rows_per_warp=16"},
};

/// The plan's row order (row_order=plan, computed on the GPU) is dasp_plan_row_order of the host
/// layout (fp64): permuting 0, 1, 2, ... gives plan_to_caller.
void expect_plan_row_order_is_the_host_models(const Matrix& a,
                                              std::vector<std::string> parameters) {
  const auto host_layout = dasp::build_dasp_layout(a, dasp::parse_parameters(parameters),
                                                   std::nullopt, dasp::DaspFill::index_only);
  const std::vector<std::int32_t> expected =
      a.nnz() > 0 ? dasp::dasp_plan_row_order(host_layout) : std::vector<std::int32_t>{};
  parameters.push_back("row_order=plan");
  PlanOptions options;
  options.parameters = parameters;
  const SpmvPlan<double> plan(a, Method("dasp"), options);
  if (a.nnz() == 0) {
    EXPECT_FALSE(plan.plan_row_order());
    return;
  }
  std::vector<double> rows(static_cast<std::size_t>(a.rows));
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = static_cast<double>(r);
  const DeviceBuffer<double> caller(rows);
  DeviceBuffer<double> permuted(rows.size());
  plan.permute(caller.data(), permuted.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<double> order = permuted.download();
  ASSERT_EQ(order.size(), expected.size());
  for (std::size_t p = 0; p < order.size(); ++p)
    ASSERT_EQ(static_cast<std::int32_t>(order[p]), expected[p]) << "plan position " << p;
}

TEST_P(DaspGpuOnCatalogue, DeviceBuildEqualsHostBuild) {
  for (const auto& parameters : kBuildParameterSets) {
    expect_device_build_equals_host_build<double>(GetParam().matrix, parameters);
    expect_device_build_equals_host_build<half>(GetParam().matrix, parameters);
  }
  expect_device_build_equals_host_build<bfloat16>(GetParam().matrix, {});
  expect_plan_row_order_is_the_host_models(GetParam().matrix, {});
  expect_plan_row_order_is_the_host_models(GetParam().matrix,
                                                   {"short_tile_order=row", "build=host"});
}

TEST_P(DaspGpuOnCatalogue, DeviceFillEqualsHostFill) {
  expect_device_fill_equals_host_fill<double>(GetParam().matrix, {});
  expect_device_fill_equals_host_fill<double>(GetParam().matrix, {"fp64_block_order=row"});
  expect_device_fill_equals_host_fill<double>(GetParam().matrix, {"fp64_block_order=column"});
  expect_device_fill_equals_host_fill<half>(GetParam().matrix, {});
  expect_device_fill_equals_host_fill<bfloat16>(
      GetParam().matrix, {"max_medium_row_length=40", "regular_block_min_fill=0.3"});
}
TEST_P(DaspGpuOnCatalogue, PaperLayoutWithShortTilesByRowMatchesReference) {
  PlanOptions options;
  options.parameters = {"max_medium_row_length=256", "short_tile_order=row"};
  EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12);
  EXPECT_LT(dasp_error<half>(GetParam().matrix, {-1.0, 0.0}, options), 1e-2);
  EXPECT_LT(dasp_error<bfloat16>(GetParam().matrix, {1.0, 0.0}, options), 1e-2);
}
TEST_P(DaspGpuOnCatalogue, HostBuildMatchesReference) {
  PlanOptions options;
  options.parameters = {"build=host"};
  EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12);
  EXPECT_LT(dasp_error<half>(GetParam().matrix, {1.0, 0.0}, options), 1e-2);
  options.parameters = {"build=host", "fill=host"};
  EXPECT_LT(dasp_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12);
  EXPECT_LT(dasp_error<half>(GetParam().matrix, {1.0, 0.0}, options), 1e-2);
}

INSTANTIATE_TEST_SUITE_P(AllSynthetic, DaspGpuOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

// ---- every category alone and mixed, row counts that do not fill a block --------------------

class DaspGpuOnRowCounts : public testing::GpuTestWithParam<int> {};

TEST_P(DaspGpuOnRowCounts, EveryLengthCategoryAloneMatchesReference) {
  const int rows = GetParam();
  for (int len : {0, 1, 2, 3, 4, 5, 7, 8, 27, 256, 257, 700}) {
    const Matrix a = matrix_with_lengths(800, std::vector<int>(rows, len), rows * 1000 + len);
    EXPECT_LT(dasp_error<double>(a, {1.0, 0.5}), 1e-12) << "length " << len;
    EXPECT_LT(dasp_error<half>(a, {1.0, 0.0}), 1e-2) << "length " << len;
    EXPECT_LT(dasp_error<bfloat16>(a, {1.0, 0.5}), 1e-2) << "length " << len;
  }
}

TEST_P(DaspGpuOnRowCounts, AllCategoriesMixedMatchesReference) {
  const int rows = GetParam();
  std::vector<int> lengths;
  const int cycle[] = {3, 0, 260, 1, 5, 2, 17, 4, 1, 2, 3, 90, 1};
  for (int r = 0; r < rows; ++r) lengths.push_back(cycle[r % 13]);
  const Matrix a = matrix_with_lengths(600, lengths, static_cast<std::uint64_t>(rows));
  expect_dasp_matches_reference<double>(a);
  expect_dasp_matches_reference<half>(a);
}

INSTANTIATE_TEST_SUITE_P(RowCounts, DaspGpuOnRowCounts,
                         ::testing::Values(1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 65, 100));

// ---- row-blocks whose last block is partly padding ------------------------------------------

class DaspGpuTailBlocks : public testing::GpuTest {};

TEST_F(DaspGpuTailBlocks, PaddedLastValuesAreSkippedWithoutLosingRealOnes) {
  // fp64 column-major blocks: the values of a row-block's last block past its longest row's
  // tail are not loaded (DaspLayout::medium_tail_widths): rows of 7, 11, 27 and 255 (3 values in the last block),
  // 30 (a 2-value tail), row-blocks mixing 25, 26 and 27 and rows of 3 .. 51 (different tails
  // in one block when blocks are kept regular from half full)
  std::vector<int> lengths;
  for (int len : {7, 11, 27, 255, 30})
    for (int r = 0; r < 24; ++r) lengths.push_back(len);
  for (int r = 0; r < 40; ++r) lengths.push_back(25 + r % 3);
  for (int r = 0; r < 13; ++r) lengths.push_back(4 * r + 3);
  const Matrix a = matrix_with_lengths(1000, lengths, 99);
  const auto layout =
      dasp::build_dasp_layout(a, dasp::parse_parameters({"max_medium_row_length=256"}));
  ASSERT_TRUE(std::any_of(layout.medium_tail_widths.begin(), layout.medium_tail_widths.end(),
                          [](std::uint8_t w) { return w < 4; }));
  for (const char* rows : {"8", "16", "32"}) {
    for (const char* per_piece : {"auto", "2"}) {
      for (const char* min_fill : {"0.75", "0.5"}) {
        for (const char* order : {"auto", "row", "column"}) {
          PlanOptions options;
          options.parameters = {"max_medium_row_length=256",
                                std::string("medium_rows_per_warp=") + rows,
                                std::string("medium_blocks_per_warp=") + per_piece,
                                std::string("regular_block_min_fill=") + min_fill,
                                std::string("fp64_block_order=") + order};
          EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}, options), 1e-12) << describe(options);
          EXPECT_LT(dasp_error<double>(a, {-0.5, 2.0}, options), 1e-12) << describe(options);
        }
      }
    }
  }
}

// ---- larger generated matrices of every kind ----------------------------------------------------

class DaspGpu : public testing::GpuTest {};

TEST_F(DaspGpu, LargeGeneratedMatricesMatchReference) {
  const Matrix cases[] = {
      generate_stencil_3d_27pt(60, 60, 60, 1),
      generate_stencil_2d_5pt(500, 400, 2),
      generate_rmat(17, 16, 3),
      generate_random_rows(100000, 50000, RowLengthDistribution::uniform, 0, 64, 4),
      generate_random_rows(50000, 50000, RowLengthDistribution::power_law, 1, 20000, 5),
      generate_banded(100000, 7, 6),
      generate_short_rows(300000, 100000, 7),
      generate_long_rows(300, 200000, 5000, 8),
      generate_pruned_weights(1024, 4096, 0.9, 9),
  };
  for (const Matrix& a : cases) {
    EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}), 1e-12) << a.rows << " x " << a.cols;
    EXPECT_LT(dasp_error<double>(a, {-0.5, 2.0}), 1e-12) << a.rows << " x " << a.cols;
    EXPECT_LT(dasp_error<half>(a, {1.0, 0.0}), 1e-2) << a.rows << " x " << a.cols;
    EXPECT_LT(dasp_error<bfloat16>(a, {1.0, 0.5}), 1e-2) << a.rows << " x " << a.cols;
  }
}

TEST_F(DaspGpu, DenseLongRowsTakenAsMediumRowsInPiecesMatchReference) {
  // 9.2 M nonzeros at density 0.25, rows of about 4 500: fp64 takes every row as a medium row,
  // row-blocks split in pieces, 4 blocks in flight (fp16 / bf16 keep long rows)
  const Matrix a = generate_pruned_weights(2048, 18000, 0.75, 11);
  ASSERT_GE(a.nnz(), dasp::kDaspDenseRowsMinNnz);
  const SpmvPlan<double> plan(a, Method("dasp"));
  EXPECT_EQ(plan.stats().details["rows"]["long"], 0);
  EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}), 1e-12);
  EXPECT_LT(dasp_error<double>(a, {-0.5, 2.0}), 1e-12);
  EXPECT_LT(dasp_error<half>(a, {1.0, 0.0}), 1e-2);
  EXPECT_LT(dasp_error<bfloat16>(a, {1.0, 0.5}), 1e-2);
  expect_device_fill_equals_host_fill<double>(a, {});
}

TEST_F(DaspGpu, MidSizeHeavyTailedMatricesKeepFourBlocksInFlightAndMatchReference) {
  // 1.9 M nonzeros of power-law rows (long rows, one medium row-block a warp, 22 MB of fp64
  // values and columns): the long-row warps set the time, so the plan keeps
  // kDaspLongRowsCriticalBlocksInFlight; an explicit blocks_in_flight still wins
  const Matrix a =
      generate_random_rows(200000, 200000, RowLengthDistribution::power_law, 1, 20000, 21);
  ASSERT_GE(a.nnz(), dasp::kDaspSmallMatrixNnz);
  for (const bool explicit_two : {false, true}) {
    PlanOptions options;
    if (explicit_two) options.parameters = {"blocks_in_flight=2"};
    const SpmvPlan<double> plan(a, Method("dasp"), options);
    EXPECT_EQ(plan.stats().details["blocks_in_flight"],
              explicit_two ? 2 : dasp::kDaspLongRowsCriticalBlocksInFlight);
    EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}, options), 1e-12);
    EXPECT_LT(dasp_error<double>(a, {-0.5, 2.0}, options), 1e-12);
    EXPECT_LT(dasp_error<half>(a, {1.0, 0.0}, options), 1e-2);
    EXPECT_LT(dasp_error<bfloat16>(a, {1.0, 0.5}, options), 1e-2);
  }
  // warps of two medium row-blocks: the same 4 blocks in flight
  PlanOptions two_row_blocks;
  two_row_blocks.parameters = {"medium_rows_per_warp=16"};
  const SpmvPlan<double> plan(a, Method("dasp"), two_row_blocks);
  EXPECT_EQ(plan.stats().details["medium_rows_per_warp"], 16);
  EXPECT_EQ(plan.stats().details["blocks_in_flight"], dasp::kDaspLongRowsCriticalBlocksInFlight);
  EXPECT_LT(dasp_error<double>(a, {-0.5, 2.0}, two_row_blocks), 1e-12);
  EXPECT_LT(dasp_error<half>(a, {1.0, 0.5}, two_row_blocks), 1e-2);
}

TEST_F(DaspGpu, LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy) {
  // 5.8 M nonzeros (70 MB of fp64 CSR): above kDaspOverlappedUploadMinBytes, so "overlapped"
  // uploads on a worker thread while fewer threads build the index arrays
  const Matrix a = generate_stencil_3d_27pt(60, 60, 60, 1);
  const std::vector<std::vector<std::string>> builds = {
      {"build=device"}, {"build=host", "upload=overlapped"}, {"build=host", "upload=after"}};
  for (const HostUpload policy : {HostUpload::automatic, HostUpload::staged,
                                  HostUpload::registered, HostUpload::direct}) {
    const detail::HostUploadScope scope(policy);
    for (const auto& build : builds) {
      SCOPED_TRACE(describe_parameters(build) + ", " + std::string(to_string(policy)));
      expect_device_fill_equals_host_fill<double>(a, build);
      expect_device_fill_equals_host_fill<half>(a, build);
    }
  }
  PlanOptions options;
  options.parameters = {"build=host", "upload=overlapped"};
  const SpmvPlan<double> plan(a, Method("dasp"), options);
  EXPECT_EQ(plan.stats().details.value("upload", ""), "overlapped");
  EXPECT_EQ(plan.stats().details.value("build", ""), "host");
  EXPECT_GT(plan.stats().upload_ms, 0.0);
  EXPECT_TRUE(plan.stats().details.contains("plan_phases_ms"));
  EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}, options), 1e-12);
  const SpmvPlan<double> on_device(a, Method("dasp"));
  EXPECT_EQ(on_device.stats().details.value("build", ""), "device");
  EXPECT_GT(on_device.stats().upload_ms, 0.0);
  EXPECT_GT(on_device.stats().device_preprocess_ms, 0.0);
  const Json& phases = on_device.stats().details["plan_phases_ms"];
  EXPECT_TRUE(phases.contains("row_ptr_check") && phases.contains("columns_check"))
      << phases.dump();  // the CSR is checked on the GPU, its row offsets beside the upload
}

TEST_F(DaspGpu, BuildThatRunsOutOfDeviceMemoryThrowsAndLeaksNothing) {
  // The build needs ~145 MB (fp64: ~70 MB CSR, ~75 MB layout) and, on the GPU, its temporaries.
  // Budgets below that make one of its allocations fail (DeviceAllocationBudget: as cudaMalloc's
  // out of memory, without taking the GPU from other processes): the first one, one of the CSR
  // arrays, one of the device build's temporaries, one of the layout's.
  const Matrix a = generate_stencil_3d_27pt(60, 60, 60, 3);
  const std::vector<std::vector<std::string>> builds = {
      {"build=device"}, {"build=host", "upload=overlapped"}, {"build=host", "upload=after"}};
  for (const auto& build : builds) {
    PlanOptions options;
    options.parameters = build;
    const std::string label = describe_parameters(build);
    { const SpmvPlan<double> warm(a, Method("dasp"), options); }  // kernels loaded
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::int64_t live_before = detail::live_device_allocations();
    for (const std::size_t budget_mib : {0, 1, 30, 60, 75, 90, 100, 130}) {
      {
        const detail::DeviceAllocationBudget budget(budget_mib << 20);
        try {
          const SpmvPlan<double> plan(a, Method("dasp"), options);
          ADD_FAILURE() << label << ": built within " << budget_mib << " MiB";
        } catch (const DeviceMemoryError& error) {
          EXPECT_NE(std::string(error.what()).find("cannot allocate"), std::string::npos)
              << error.what();
        }
      }
      EXPECT_EQ(detail::live_device_allocations(), live_before)
          << label << ", " << budget_mib << " MiB: device allocations left behind";
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    }
    EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}, options), 1e-12) << "a plan builds again";
  }
}

TEST_F(DaspGpu, DeviceFillEqualsHostFillOnLargeMatrices) {
  const Matrix cases[] = {generate_rmat(16, 16, 3), generate_stencil_3d_27pt(40, 40, 40, 1),
                          generate_short_rows(200000, 100000, 7),
                          generate_long_rows(100, 100000, 5000, 8)};
  for (const Matrix& a : cases) {
    expect_device_fill_equals_host_fill<double>(a, {});
    expect_device_fill_equals_host_fill<half>(a, {});
  }
}

TEST_F(DaspGpu, DeviceBuildEqualsHostBuildOnLargeMatrices) {
  // the rules the catalogue is too small for: windows of caller rows and rows of four as medium
  // rows (>= 1 M rows), short tiles by row (>= 4096 tiles), dense long rows (fp64, >= 1 M
  // nonzeros of density >= 1/32), the small-matrix MAX_LEN and long-group rules
  const Matrix cases[] = {
      generate_rmat(16, 16, 3),
      generate_stencil_3d_27pt(40, 40, 40, 1),
      generate_short_rows(200000, 100000, 7),
      generate_long_rows(100, 100000, 5000, 8),
      generate_random_rows((1 << 20) + 4099, 1 << 20, RowLengthDistribution::uniform, 4, 12, 9),
      generate_random_rows(300000, 300000, RowLengthDistribution::power_law, 1, 20000, 5),
      generate_pruned_weights(4096, 4096, 0.9, 10),
      matrix_with_lengths(2000000, {1500000, 3, 0, 700, 1, 1, 2}, 5),
      // fp64: every medium value in a regular block (regular_block_min_fill=auto)
      matrix_with_lengths(100000, std::vector<int>(75000, 14), 3)};
  for (const Matrix& a : cases) {
    SCOPED_TRACE(std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
                 std::to_string(a.nnz()) + " nonzeros");
    expect_device_build_equals_host_build<double>(a, {});
    expect_device_build_equals_host_build<half>(a, {});
    expect_plan_row_order_is_the_host_models(a, {});
  }
}

TEST_F(DaspGpu, OnesPairedWithThreesWithinWindowsMatchReferenceAndTheHostBuild) {
  // >= 1 M rows of 1-4 values: by default the 1s and 3s pair within windows of 1024 caller rows
  // (kDaspShortPairWindow), fewer pairs than over the whole matrix; y staged (fp64) or direct
  const Matrix a = generate_short_rows((1 << 20) + 77, 1 << 20, 12);
  const SpmvPlan<double> plan(a, Method("dasp"));
  EXPECT_EQ(plan.stats().details["short_pair_window"], dasp::kDaspShortPairWindow);
  PlanOptions whole;
  whole.parameters = {"short_pair_window=off"};
  const SpmvPlan<double> paper(a, Method("dasp"), whole);
  EXPECT_EQ(paper.stats().details["short_pair_window"], 0);
  const auto pairs = [](const SpmvPlan<double>& p) {
    return p.stats().details["short_pieces"]["pairs_1_3"].get<std::int64_t>();
  };
  EXPECT_LT(pairs(plan), pairs(paper));
  EXPECT_GT(pairs(plan), pairs(paper) * 9 / 10);  // about sqrt(window) rows of a window unpaired
  for (const char* y : {"short_y=staged", "short_y=direct"}) {
    PlanOptions options;
    options.parameters = {y};
    expect_dasp_matches_reference<double>(a, options);
    expect_dasp_matches_reference<half>(a, options);
  }
  expect_device_build_equals_host_build<double>(a, {});
  expect_device_build_equals_host_build<half>(a, {"short_pair_window=1000"});
  expect_plan_row_order_is_the_host_models(a, {});
}

TEST_F(DaspGpu, WindowsOfRegularMediumRowsOrderedByWidthMatchReference) {
  // >= 1 M rows of 4-12 values: windows of caller rows, every medium value regular (fp64), the
  // windows ordered by width (medium_row_order=auto); by length when asked
  const Matrix a =
      generate_random_rows((1 << 20) + 4099, 1 << 20, RowLengthDistribution::uniform, 4, 12, 9);
  for (const char* order : {"medium_row_order=auto", "medium_row_order=length"}) {
    PlanOptions options;
    options.parameters = {order};
    const SpmvPlan<double> plan(a, Method("dasp"), options);
    EXPECT_EQ(plan.stats().details["medium_row_order"],
              std::string(order) == "medium_row_order=auto" ? "width" : "length");
    EXPECT_EQ(plan.stats().details["kernel_parts"], "no_irregular");
    expect_dasp_matches_reference<double>(a, options);
    expect_device_build_equals_host_build<double>(a, {order});
  }
  expect_device_build_equals_host_build<half>(a, {"regular_block_min_fill=0"});  // width, fp16
}

TEST_F(DaspGpu, OneVeryLongRowSpreadOverManyWarpsMatchesReference) {
  const Matrix a = matrix_with_lengths(2000000, {1500000, 3, 0, 700}, 5);
  EXPECT_LT(dasp_error<double>(a, {1.0, 0.0}), 1e-12);
  EXPECT_LT(dasp_error<half>(a, {1.0, 0.0}), 1e-2);
}

// ---- work reduced across warps (the conformance suite checks stream order and graph capture) ----

TEST_F(DaspGpu, RepeatedAppliesOfOnePlanStayCorrect) {
  // the long-row and medium-piece tickets reset themselves: every launch must reduce correctly
  std::vector<int> lengths = {20000, 5000, 1000, 3};
  for (int i = 0; i < 300; ++i) lengths.push_back(5 + i % 250);
  const Matrix a = matrix_with_lengths(50000, lengths, 4);
  const auto x = test::make_x<double>(a);
  std::vector<double> reference(static_cast<std::size_t>(a.rows));
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 1.0, 0.0);
  PlanOptions split;  // medium row-blocks in pieces too
  split.parameters = {"max_medium_row_length=256", "medium_blocks_per_warp=2",
                      "long_groups_per_warp=3"};
  for (const PlanOptions& options : {PlanOptions{}, split}) {
    const SpmvPlan<double> plan(a, Method("dasp"), options);
    DeviceBuffer<double> dx(x);
    DeviceBuffer<double> dy(static_cast<std::size_t>(a.rows));
    for (int run = 0; run < 20; ++run) {
      dy.fill_bytes(0xff);
      plan.apply(dx.data(), dy.data(), 1.0, 0.0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const auto y = dy.download();
      ASSERT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)),
                1e-12)
          << "run " << run << " " << describe(options);
    }
  }
}

TEST_F(DaspGpu, StatsDescribeTheLayout) {
  const Matrix a = matrix_with_lengths(1000, {0, 1, 2, 3, 4, 5, 256, 257}, 2);
  const SpmvPlan<double> plan(a, Method("dasp"));
  const PlanStats& stats = plan.stats();
  EXPECT_GT(stats.stored_values, a.nnz());
  EXPECT_NEAR(stats.padding_ratio,
              static_cast<double>(stats.stored_values - a.nnz()) / static_cast<double>(a.nnz()),
              1e-12);
  EXPECT_GT(stats.device_bytes, static_cast<std::size_t>(stats.stored_values) * 12);
  EXPECT_GE(stats.host_preprocess_ms, 0.0);
  EXPECT_GE(stats.upload_ms, 0.0);
  // a small matrix: rows longer than 16 are long rows; the same fields as the host statistics
  EXPECT_EQ(stats.details["rows"], (Json{{"long", 2}, {"medium", 1}, {"short", 4}, {"empty", 1}}))
      << stats.details.dump();
  const Json host = layout_statistics(Method("dasp"), a);
  for (const auto& [key, value] : host.items()) EXPECT_EQ(stats.details[key], value) << key;
  EXPECT_GT(stats.details["preprocess_nnz_per_s"].get<double>(), 0.0);
}

TEST_F(DaspGpu, ALayoutWithoutIrregularValuesRunsTheKernelWithoutThem) {
  // a 5-point stencil's rows hold 4 or 5 values: the paper's 0.75 fill leaves one irregular value
  // a 5-value row; 0 puts it in a (padded) regular block, and the kernel without an irregular part
  // runs
  const Matrix a = generate_stencil_2d_5pt(300, 300, 3);
  const SpmvPlan<double> with_irregular(a, Method("dasp"));
  EXPECT_GT(with_irregular.stats().details["nnz"]["medium_irregular"].get<std::int64_t>(), 0);
  EXPECT_EQ(with_irregular.stats().details["kernel_parts"], "all");
  PlanOptions options;
  options.parameters = {"regular_block_min_fill=0"};
  const SpmvPlan<double> without(a, Method("dasp"), options);
  EXPECT_EQ(without.stats().details["nnz"]["medium_irregular"].get<std::int64_t>(), 0);
  EXPECT_EQ(without.stats().details["kernel_parts"], "no_irregular");
  EXPECT_GT(without.stats().stored_values, with_irregular.stats().stored_values);  // padding
  EXPECT_LT(dasp_error<double>(a, {1.0, 0.5}, options), 1e-12);
  EXPECT_LT(dasp_error<bfloat16>(a, {1.0, 0.0}, options), 1e-2);
  // long rows carry the work of this one: the kernel keeps its irregular part
  const Matrix long_rows = generate_long_rows(100, 100000, 5000, 8);
  const SpmvPlan<double> long_plan(long_rows, Method("dasp"), options);
  EXPECT_EQ(long_plan.stats().details["nnz"]["medium_irregular"].get<std::int64_t>(), 0);
  EXPECT_EQ(long_plan.stats().details["kernel_parts"], "all");
  // fp16 / bf16 always run the kernel with it
  const SpmvPlan<half> half_plan(test::with_values<half>(a), Method("dasp"), options);
  EXPECT_EQ(half_plan.stats().details["kernel_parts"], "all");
}

TEST_F(DaspGpu, ALayoutOfShortRowsOnlyRunsTheKernelWithoutLongAndMediumCode) {
  // rows of 0-4 values, every short kind (1+3, 4, padded 3 and 2, 2+2, single 1s) and empty rows
  std::vector<int> lengths;
  for (int r = 0; r < 5000; ++r) lengths.push_back((r * 7 + r / 3) % 5);
  const Matrix a = matrix_with_lengths(3000, lengths, 9);
  for (const char* order : {"short_tile_order=kind", "short_tile_order=row"}) {
    PlanOptions options;
    options.parameters = {order, "short_y=staged"};
    PlanOptions all = options;
    all.parameters.push_back("kernel_parts=all");
    const SpmvPlan<double> plan(a, Method("dasp"), options);
    EXPECT_EQ(plan.stats().details["kernel_parts"], "short_rows_only") << order;
    // tiles by row: y staged a thread block at a time when asked (auto: fp64 from 1 M rows)
    EXPECT_EQ(plan.stats().details["short_y"],
              std::string(order) == "short_tile_order=row" ? "staged" : "direct");
    EXPECT_EQ(SpmvPlan<double>(a, Method("dasp"), all).stats().details["kernel_parts"], "all");
    EXPECT_EQ(SpmvPlan<half>(test::with_values<half>(a), Method("dasp"), options)
                  .stats()
                  .details["kernel_parts"],
              "short_rows_only")
        << order;
    expect_dasp_matches_reference<double>(a, options);
    expect_dasp_matches_reference<half>(a, options);
    expect_dasp_matches_reference<bfloat16>(a, options);
    // the same tiles with the same code: bit for bit the kernel with every part
    const auto x = test::make_x<double>(a);
    const auto y0 = test::make_y<double>(a);
    const auto y = run_dasp(a, x, y0, {1.5, -0.5}, options);
    const auto y_all = run_dasp(a, x, y0, {1.5, -0.5}, all);
    EXPECT_EQ(std::memcmp(y.data(), y_all.data(), y.size() * sizeof(double)), 0) << order;
  }
  // y stored by each lane (short_y=direct) is bit for bit the staged y
  PlanOptions staged, direct;
  staged.parameters = {"short_tile_order=row", "short_y=staged"};
  direct.parameters = {"short_tile_order=row", "short_y=direct"};
  EXPECT_EQ(SpmvPlan<double>(a, Method("dasp"), direct).stats().details["short_y"], "direct");
  {
    const auto x = test::make_x<double>(a);
    const auto y0 = test::make_y<double>(a);
    const auto y = run_dasp(a, x, y0, {-0.75, 0.5}, staged);
    const auto y_direct = run_dasp(a, x, y0, {-0.75, 0.5}, direct);
    EXPECT_EQ(std::memcmp(y.data(), y_direct.data(), y.size() * sizeof(double)), 0);
  }
  // by default staged in fp64 from 1 M rows (tiles by row from 4096 tiles), direct in fp16
  const Matrix many = generate_short_rows(1 << 20, 1 << 20, 3);
  EXPECT_EQ(SpmvPlan<double>(many, Method("dasp")).stats().details["short_y"], "staged");
  const SpmvPlan<half> many_half(test::with_values<half>(many), Method("dasp"));
  EXPECT_EQ(many_half.stats().details["short_y"], "direct");
  EXPECT_LT(dasp_error<double>(many, {1.5, -0.5}), 1e-12);
  // short rows far apart (one row in 40 has values): a block's rows span more than the shared
  // memory holds and are stored directly
  std::vector<int> sparse(200000, 0);
  for (std::size_t r = 0; r < sparse.size(); r += 40) sparse[r] = 1 + static_cast<int>(r / 40 % 4);
  const Matrix far_apart = matrix_with_lengths(5000, sparse, 4);
  expect_dasp_matches_reference<double>(far_apart, staged);
  expect_dasp_matches_reference<half>(far_apart, staged);
  // one long row among them: the kernel with every part
  lengths[17] = 3000;
  const SpmvPlan<double> with_long(matrix_with_lengths(3000, lengths, 9), Method("dasp"));
  EXPECT_NE(with_long.stats().details["kernel_parts"], "short_rows_only");
}

// ---- a matrix without nonzeros: one y = beta * y (ApplyPromises in test_conformance.cpp counts
// its launches for every method) -----------------------------------------------------------------

/// y = beta * y0 element by element as the GPU rounds it (fp16 / bf16 scaled in fp32), and
/// exactly 0 for beta == 0 whatever y held (NaN).
template <typename Value>
void expect_empty_matrix_scales_y(std::int32_t rows, std::int32_t cols) {
  const Matrix a64 = test::empty_matrix(rows, cols);
  const auto a = test::with_values<Value>(a64);
  for (const Scalars s : kScalarCases) {
    const auto y0 = test::make_y<Value>(a64);
    const auto y = run_dasp(a, test::make_x<Value>(a64), y0, s);
    ASSERT_EQ(y.size(), static_cast<std::size_t>(rows));
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double expected = s.beta * static_cast<double>(static_cast<scalar_t<Value>>(y0[i]));
      EXPECT_NEAR(static_cast<double>(static_cast<scalar_t<Value>>(y[i])), expected,
                  test::tolerance<Value>() * std::abs(expected))
          << rows << " x " << cols << " row " << i << " beta " << s.beta;
    }
  }
}

class DaspGpuEmptyMatrix : public testing::GpuTest {};

TEST_F(DaspGpuEmptyMatrix, YBecomesBetaTimesYInEveryPrecisionAndShape) {
  const std::pair<std::int32_t, std::int32_t> shapes[] = {{0, 0}, {0, 7},   {7, 0},
                                                          {1, 1}, {33, 5},  {5, 33},
                                                          {1000, 1000}, {100000, 3}};
  for (const auto& [rows, cols] : shapes) {
    expect_empty_matrix_scales_y<double>(rows, cols);
    expect_empty_matrix_scales_y<half>(rows, cols);
    expect_empty_matrix_scales_y<bfloat16>(rows, cols);
  }
}

TEST_F(DaspGpuEmptyMatrix, NothingIsUploaded) {
  const SpmvPlan<double> plan(test::empty_matrix(5000, 4000), Method("dasp"));
  EXPECT_EQ(plan.stats().device_bytes, 0u);
}

// ---- one launch per apply, whatever the categories ---------------------------------------------

TEST_F(DaspGpu, ApplyIsOneKernelLaunchForEveryMixOfCategories) {
  // every category in one small matrix (the latency-bound case), and each alone
  std::vector<int> mixed;
  const int cycle[] = {3, 0, 260, 1, 5, 2, 17, 4, 1, 2, 3, 90, 1, 700};
  for (int r = 0; r < 3000; ++r) mixed.push_back(cycle[r % 14]);
  std::vector<Matrix> cases = {matrix_with_lengths(2000, mixed, 3)};
  for (int len : {0, 1, 2, 3, 4, 9, 300}) cases.push_back(matrix_with_lengths(900, std::vector<int>(100, len), 5));
  for (const Matrix& a : cases) {
    const SpmvPlan<double> plan(a, Method("dasp"));
    DeviceBuffer<double> x(test::make_x<double>(a)), y(static_cast<std::size_t>(a.rows));
    EXPECT_EQ(testing::graph_nodes_of(
                  [&](cudaStream_t stream) { plan.apply(x.data(), y.data(), 1.0, 0.5, stream); }),
              1u)
        << a.rows << " x " << a.cols << ", " << a.nnz() << " nonzeros";
  }
}

// ---- the plan's row order ("row_order=plan") ---------------------------------------------------

/// y in the caller's order computed through a plan in its own order: x and y0 permuted into it
/// (x only for a square matrix), apply, y unpermuted back.
template <typename Value>
std::vector<Value> run_dasp_in_plan_order(const CsrMatrix<Value, std::int32_t>& a,
                                          const std::vector<Value>& x, const std::vector<Value>& y0,
                                          Scalars s, std::vector<std::string> parameters) {
  parameters.push_back("row_order=plan");
  PlanOptions options;
  options.parameters = parameters;
  const SpmvPlan<Value> plan(a, Method("dasp"), options);
  EXPECT_EQ(plan.plan_row_order(), a.nnz() > 0);
  EXPECT_EQ(plan.stats().details["row_order"], a.nnz() > 0 ? "plan" : "caller");
  const bool square = a.rows == a.cols;
  DeviceBuffer<Value> dx(x), dx_plan(x.size());
  DeviceBuffer<Value> dy(s.beta == 0.0 ? test::make_poisoned<Value>(y0.size()) : y0);
  DeviceBuffer<Value> dy_plan(y0.size());
  dy_plan.fill_bytes(0xff);
  if (square) plan.permute(dx.data(), dx_plan.data());
  plan.permute(dy.data(), dy_plan.data());
  plan.apply(square ? dx_plan.data() : dx.data(), dy_plan.data(),
             static_cast<scalar_t<Value>>(s.alpha), static_cast<scalar_t<Value>>(s.beta));
  dy.fill_bytes(0xff);
  plan.unpermute(dy_plan.data(), dy.data());
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  return dy.download();
}

/// The plan-order apply, brought back to the caller's order, equals the caller-order apply bit
/// for bit (the same layout, blocks and sums; only addresses differ).
template <typename Value>
void expect_plan_order_round_trips(const Matrix& matrix64, const std::vector<std::string>& parameters) {
  const Matrix scaled =
      std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  PlanOptions caller;
  caller.parameters = parameters;
  for (const Scalars s : {Scalars{1.0, 0.0}, Scalars{1.5, -0.5}}) {
    const auto expected = run_dasp(a, x, y0, s, caller);
    const auto y = run_dasp_in_plan_order(a, x, y0, s, parameters);
    ASSERT_EQ(y.size(), expected.size());
    EXPECT_TRUE(y.empty() || std::memcmp(y.data(), expected.data(), y.size() * sizeof(Value)) == 0)
        << a.rows << " x " << a.cols << " " << describe(caller) << " beta " << s.beta;
  }
}

TEST_P(DaspGpuOnCatalogue, PlanRowOrderRoundTripsToTheCallerOrderResult) {
  const std::vector<std::vector<std::string>> parameter_sets = {
      {},
      {"short_tile_order=row", "max_medium_row_length=256"},
      {"medium_rows_per_warp=8", "medium_blocks_per_warp=1", "long_groups_per_warp=1"},
      {"medium_rows_per_warp=16", "medium_row_window=24", "medium_min_row_length=4"},
      {"build=host"},
      {"build=host", "fill=host"}};
  for (const auto& parameters : parameter_sets) {
    expect_plan_order_round_trips<double>(GetParam().matrix, parameters);
    expect_plan_order_round_trips<half>(GetParam().matrix, parameters);
    expect_plan_order_round_trips<bfloat16>(GetParam().matrix, parameters);
  }
}

TEST_F(DaspGpu, PlanRowOrderRoundTripsOnLargeAndEmptyMatrices) {
  const Matrix cases[] = {generate_rmat(16, 16, 3), generate_short_rows(300000, 300000, 7),
                          generate_random_rows(100000, 70000, RowLengthDistribution::power_law,
                                               1, 20000, 5),
                          test::empty_matrix(1000, 1000)};
  for (const Matrix& a : cases) {
    expect_plan_order_round_trips<double>(a, {});
    expect_plan_order_round_trips<half>(a, {});
    expect_plan_order_round_trips<bfloat16>(a, {});
  }
}

/// row_order=internal: the same y, bit for bit, as the caller-order plan (the same layout as
/// row_order=plan, applied to x moved into its order and y moved back). row_order=internal_y
/// (only the rows in the plan's order, the plan's y moved back by one pass): the same, in every
/// precision (16-bit values with beta != 0 gather y into the plan's y, so that alpha * A x is not
/// rounded before beta * y is added).
template <typename Value>
void expect_inside_order_gives_the_caller_order_result(
    const Matrix& matrix64, const std::vector<std::string>& parameters,
    const std::string& order = "internal") {
  const Matrix scaled =
      std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  PlanOptions caller, inside;
  caller.parameters = parameters;
  caller.parameters.push_back("row_order=caller");
  inside.parameters = parameters;
  inside.parameters.push_back("row_order=" + order);
  for (const Scalars s : {Scalars{1.0, 0.0}, Scalars{1.5, -0.5}}) {
    const auto expected = run_dasp(a, x, y0, s, caller);
    const auto y = run_dasp(a, x, y0, s, inside);
    ASSERT_EQ(y.size(), expected.size());
    EXPECT_TRUE(y.empty() || std::memcmp(y.data(), expected.data(), y.size() * sizeof(Value)) == 0)
        << a.rows << " x " << a.cols << " " << describe(inside) << " beta " << s.beta;
  }
}

/// A plan of row_order `order` (the plan's order inside the apply, the caller's outside: no
/// permutation for the caller to apply) whose apply, captured in a CUDA graph and launched twice,
/// gives the reference's y (fp64, alpha 2, beta -0.5).
void expect_inside_order_is_captured_in_a_graph(const Matrix& a, const std::string& order) {
  PlanOptions options;
  options.parameters = {"row_order=" + order};
  SpmvPlan<double> plan(a, Method("dasp"), options);
  EXPECT_FALSE(plan.plan_row_order());
  EXPECT_EQ(plan.stats().details["row_order"], order);
  const auto x = test::make_x<double>(a);
  const auto y0 = test::make_y<double>(a);
  std::vector<double> expected = y0;
  spmv_reference(a, std::span<const double>(x), std::span<double>(expected), 2.0, -0.5);
  const DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(y0.size());
  const detail::CudaStream stream;
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  plan.apply(dx.data(), dy.data(), 2.0, -0.5, stream.get());
  ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    dy.upload(y0);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
    const std::vector<double> y = dy.download();
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(expected)),
              1e-12)
        << order << ", launch " << launch;
  }
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

TEST_P(DaspGpuOnCatalogue, InternalRowOrderGivesTheCallerOrderResultBitForBit) {
  for (const std::vector<std::string>& parameters :
       {std::vector<std::string>{}, {"short_tile_order=row", "max_medium_row_length=256"},
        {"medium_rows_per_warp=8", "medium_blocks_per_warp=1", "long_groups_per_warp=1"},
        {"build=host"}}) {
    expect_inside_order_gives_the_caller_order_result<double>(GetParam().matrix, parameters);
    expect_inside_order_gives_the_caller_order_result<half>(GetParam().matrix, parameters);
    expect_inside_order_gives_the_caller_order_result<bfloat16>(GetParam().matrix, parameters);
  }
}

TEST_P(DaspGpuOnCatalogue, InternalYRowOrderGivesTheCallerOrderResultBitForBit) {
  for (const std::vector<std::string>& parameters :
       {std::vector<std::string>{}, {"short_tile_order=row", "max_medium_row_length=256"},
        {"medium_rows_per_warp=8", "medium_blocks_per_warp=1", "long_groups_per_warp=1"},
        {"build=host"}}) {
    expect_inside_order_gives_the_caller_order_result<double>(GetParam().matrix, parameters,
                                                              "internal_y");
    expect_inside_order_gives_the_caller_order_result<half>(GetParam().matrix, parameters,
                                                            "internal_y");
    expect_inside_order_gives_the_caller_order_result<bfloat16>(GetParam().matrix, parameters,
                                                                "internal_y");
  }
}

TEST_F(DaspGpu, InternalRowOrderOnLargeRectangularAndEmptyMatricesIsCapturedInAGraph) {
  const Matrix cases[] = {generate_rmat(16, 16, 3),
                          generate_random_rows(100000, 70000, RowLengthDistribution::power_law,
                                               1, 20000, 5),
                          generate_short_rows(1 << 20, 1 << 20, 3), test::empty_matrix(1000, 1000)};
  for (const Matrix& a : cases) {
    expect_inside_order_gives_the_caller_order_result<double>(a, {});
    expect_inside_order_gives_the_caller_order_result<half>(a, {});
  }
  expect_inside_order_is_captured_in_a_graph(cases[0], "internal");
}

TEST_F(DaspGpu, InternalYRowOrderOnSparseGraphsRectangularAndEmptyMatricesIsCapturedInAGraph) {
  // R-MAT 18 with 2 edges a vertex: most rows empty (no warps for them, the pass writes them)
  const Matrix cases[] = {generate_rmat(18, 2, 7), generate_rmat(16, 16, 3),
                          generate_random_rows(100000, 70000, RowLengthDistribution::power_law,
                                               1, 20000, 5),
                          generate_short_rows(1 << 20, 1 << 20, 3), test::empty_matrix(1000, 1000)};
  for (const Matrix& a : cases) {
    expect_inside_order_gives_the_caller_order_result<double>(a, {}, "internal_y");
    expect_inside_order_gives_the_caller_order_result<half>(a, {}, "internal_y");
  }
  expect_inside_order_is_captured_in_a_graph(cases[0], "internal_y");
}

TEST_F(DaspGpu, AutoRowOrderIsInternalForLargeGraphsWithHubsOnly) {
  // R-MAT 20 (1 M rows, 16 edges a vertex): 44 % of the nonzeros in the columns of long rows
  const Matrix graph = generate_rmat(20, 16, 3);
  const SpmvPlan<double> plan(graph, Method("dasp"));
  EXPECT_EQ(plan.stats().details["row_order"], "internal");
  EXPECT_GE(plan.stats().details["long_column_share"].get<double>(),
            dasp::kDaspInternalOrderMinLongColumnShare);
  EXPECT_FALSE(plan.plan_row_order());
  EXPECT_LT(dasp_error<double>(graph, {1.5, -0.5}), 1e-12);
  EXPECT_LT(dasp_error<half>(graph, {1.0, 0.0}), 1e-2);
  // bit for bit the caller's order, which it is when asked for
  PlanOptions caller;
  caller.parameters = {"row_order=caller"};
  EXPECT_EQ(SpmvPlan<double>(graph, Method("dasp"), caller).stats().details["row_order"], "caller");
  {
    const auto x = test::make_x<double>(graph);
    const auto y0 = test::make_y<double>(graph);
    const auto y = run_dasp(graph, x, y0, {1.5, -0.5});
    const auto y_caller = run_dasp(graph, x, y0, {1.5, -0.5}, caller);
    EXPECT_EQ(std::memcmp(y.data(), y_caller.data(), y.size() * sizeof(double)), 0);
  }
  // random columns of as many rows: no hubs, the caller's order
  const Matrix random_columns = generate_random_rows(
      1 << 20, 1 << 20, RowLengthDistribution::power_law, 1, 20000, 5);
  const SpmvPlan<double> random_plan(random_columns, Method("dasp"));
  EXPECT_EQ(random_plan.stats().details["row_order"], "caller");
  EXPECT_LT(random_plan.stats().details.value("long_column_share", 0.0), 0.05);
  // too small to pay for the gathers, or without long rows: not measured
  const SpmvPlan<double> small(generate_rmat(15, 16, 3), Method("dasp"));
  EXPECT_EQ(small.stats().details["row_order"], "caller");
  EXPECT_FALSE(small.stats().details.contains("long_column_share"));
  const SpmvPlan<double> no_long_rows(
      generate_random_rows(1 << 20, 1 << 20, RowLengthDistribution::uniform, 8, 12, 4),
      Method("dasp"));
  EXPECT_EQ(no_long_rows.stats().details["row_order"], "caller");
  EXPECT_FALSE(no_long_rows.stats().details.contains("long_column_share"));
}

TEST_F(DaspGpu, AutoRowOrderIsInternalYForLargeFp64GraphsOfHeavyTailedRows) {
  // R-MAT 22 with 2 edges a vertex: 4 M rows, three quarters empty, medium rows sorted over the
  // whole matrix a row-block a warp; too few values a row for the hubs' rule (internal)
  const Matrix graph = generate_rmat(22, 2, 7);
  const SpmvPlan<double> plan(graph, Method("dasp"));
  EXPECT_EQ(plan.stats().details["row_order"], "internal_y");
  EXPECT_FALSE(plan.plan_row_order());
  EXPECT_LT(dasp_error<double>(graph, {1.5, -0.5}), 1e-12);
  EXPECT_LT(dasp_error<double>(graph, {1.0, 0.0}), 1e-12);
  {  // bit for bit the caller's order, which it is when asked for
    PlanOptions caller;
    caller.parameters = {"row_order=caller"};
    const auto x = test::make_x<double>(graph);
    const auto y0 = test::make_y<double>(graph);
    const auto y = run_dasp(graph, x, y0, {1.5, -0.5});
    const auto y_caller = run_dasp(graph, x, y0, {1.5, -0.5}, caller);
    EXPECT_EQ(std::memcmp(y.data(), y_caller.data(), y.size() * sizeof(double)), 0);
  }
  // 16-bit values keep the caller's order; so does a matrix below kDaspInternalYMinRows rows
  EXPECT_EQ(SpmvPlan<half>(test::with_values<half>(test::scaled_for_16_bit(graph)), Method("dasp"))
                .stats()
                .details["row_order"],
            "caller");
  EXPECT_EQ(SpmvPlan<double>(generate_rmat(20, 2, 7), Method("dasp")).stats().details["row_order"],
            "caller");
}

TEST_F(DaspGpu, Fp64GraphsInTheCallersOrderKeepFourBlocksInFlightUpToTheGraphBound) {
  // R-MAT 20 with 6 edges a vertex: 61 % of the rows empty, about 75 MiB of stored fp64 values
  // and columns, above kDaspLongRowsCriticalMaxBytes and below the graphs' bound
  const Matrix graph = generate_rmat(20, 6, 215);
  const SpmvPlan<double> plan(graph, Method("dasp"));
  ASSERT_EQ(plan.stats().details["row_order"], "caller");
  const std::int64_t bytes = plan.stats().stored_values * 12;
  ASSERT_GT(bytes, dasp::kDaspLongRowsCriticalMaxBytes);
  ASSERT_LE(bytes, dasp::kDaspGraphLongRowsCriticalMaxBytes);
  EXPECT_EQ(plan.stats().details["blocks_in_flight"], dasp::kDaspLongRowsCriticalBlocksInFlight);
  EXPECT_LT(dasp_error<double>(graph, {1.5, -0.5}), 1e-12);
  // y in the plan's order inside the apply: the size bound alone (2 blocks)
  PlanOptions inside;
  inside.parameters = {"row_order=internal_y"};
  EXPECT_EQ(SpmvPlan<double>(graph, Method("dasp"), inside).stats().details["blocks_in_flight"],
            dasp::kDaspBlocksInFlightLarge);
  // the same graph in fp16 (about 38 MiB): under the size bound
  EXPECT_EQ(SpmvPlan<half>(test::with_values<half>(test::scaled_for_16_bit(graph)), Method("dasp"))
                .stats()
                .details["blocks_in_flight"],
            dasp::kDaspLongRowsCriticalBlocksInFlight);
}

TEST_F(DaspGpu, PermuteAndUnpermuteAreInversesAndCopiesInTheCallersOrder) {
  const Matrix a = matrix_with_lengths(500, {3, 0, 260, 1, 5, 2, 17, 4, 1, 2, 3, 90, 1}, 8);
  const auto v = test::make_y<double>(a);
  DeviceBuffer<double> dv(v), permuted(v.size()), back(v.size());
  PlanOptions in_plan_order;
  in_plan_order.parameters = {"row_order=plan"};
  const SpmvPlan<double> plan(a, Method("dasp"), in_plan_order);
  plan.permute(dv.data(), permuted.data());
  plan.unpermute(permuted.data(), back.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(back.download(), v);
  EXPECT_NE(permuted.download(), v);  // rows of several categories: not the identity

  const SpmvPlan<double> caller_order(a, Method("dasp"));
  EXPECT_FALSE(caller_order.plan_row_order());
  caller_order.permute(dv.data(), permuted.data());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(permuted.download(), v);
}


// ---- new values of the same pattern (update_values) --------------------------------------------

/// The same pattern, other values: value k becomes 0.25 (k % 7) - 0.5 v (some become 0).
Matrix with_other_values(Matrix matrix) {
  for (std::size_t k = 0; k < matrix.values.size(); ++k)
    matrix.values[k] = 0.25 * static_cast<double>(k % 7) - 0.5 * matrix.values[k];
  return matrix;
}

/// update_values refills the plan's layout with the new values exactly as a plan built from them
/// fills it (values, padding and columns, bit for bit), under `parameters`: every category, both
/// builds and fills, and a layout renumbered to the plan's row order.
template <typename Value>
void expect_update_values_gives_the_new_values_layout(const Matrix& matrix64,
                                                      const std::vector<std::string>& parameters) {
  SCOPED_TRACE(describe_parameters(parameters));
  const auto a = test::with_values<Value>(matrix64);
  const auto b = test::with_values<Value>(with_other_values(matrix64));
  const auto checked = detail::check_parameter_values("dasp", dasp::parameter_specs(), parameters);
  const auto updated = dasp::make_spmv<Value>(a, checked);
  const auto rebuilt = dasp::make_spmv<Value>(b, checked);
  ASSERT_TRUE(updated->can_update_values());
  const DeviceBuffer<Value> new_values(b.values);
  const detail::CudaStream stream;
  updated->update_values(new_values.data(), stream.get());
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
  const auto got = dasp::testing::download_value_arrays<Value>(*updated);
  const auto expected = dasp::testing::download_value_arrays<Value>(*rebuilt);
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() &&
           (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0);
  };
  EXPECT_TRUE(same(got.long_values, expected.long_values));
  EXPECT_TRUE(same(got.long_cols, expected.long_cols));
  EXPECT_TRUE(same(got.regular_values, expected.regular_values));
  EXPECT_TRUE(same(got.regular_cols, expected.regular_cols));
  EXPECT_TRUE(same(got.irregular_values, expected.irregular_values));
  EXPECT_TRUE(same(got.irregular_cols, expected.irregular_cols));
  EXPECT_TRUE(same(got.short_values, expected.short_values));
  EXPECT_TRUE(same(got.short_cols, expected.short_cols));
}

TEST_P(DaspGpuOnCatalogue, UpdateValuesGivesTheLayoutOfAPlanOfTheNewValues) {
  const std::vector<std::vector<std::string>> parameter_sets = {
      {},
      {"fp64_block_order=column", "regular_block_min_fill=0.5"},
      {"medium_rows_per_warp=8", "medium_blocks_per_warp=1", "long_groups_per_warp=1"},
      {"medium_rows_per_warp=16", "medium_row_window=24", "medium_min_row_length=4"},
      {"row_order=plan"},
      {"row_order=plan", "short_tile_order=row", "build=host"},
      {"build=host"},
      {"build=host", "fill=host"}};
  for (const auto& parameters : parameter_sets) {
    expect_update_values_gives_the_new_values_layout<double>(GetParam().matrix, parameters);
    expect_update_values_gives_the_new_values_layout<half>(GetParam().matrix, parameters);
  }
  expect_update_values_gives_the_new_values_layout<bfloat16>(GetParam().matrix, {});
  expect_update_values_gives_the_new_values_layout<bfloat16>(GetParam().matrix, {"row_order=plan"});
}

TEST_F(DaspGpu, UpdateValuesGivesTheLayoutOfAPlanOfTheNewValuesOnLargeMatrices) {
  const Matrix cases[] = {generate_rmat(16, 16, 3), generate_short_rows(300000, 300000, 7),
                          generate_random_rows(100000, 70000, RowLengthDistribution::power_law,
                                               1, 20000, 5)};
  for (const Matrix& a : cases)
    for (const auto& parameters : std::vector<std::vector<std::string>>{{}, {"row_order=plan"}}) {
      expect_update_values_gives_the_new_values_layout<double>(a, parameters);
      expect_update_values_gives_the_new_values_layout<half>(a, parameters);
    }
}

/// update_values and the apply after it, captured in one CUDA graph and launched twice (the
/// second time the values are those already in place): y is the new matrix's product, in the
/// caller's order and through a plan in its own order.
TEST_F(DaspGpu, UpdateValuesIsCapturedInAGraphBeforeTheApply) {
  std::vector<int> lengths;
  const int cycle[] = {3, 0, 260, 1, 5, 2, 17, 4, 1, 2, 3, 90, 1, 700};
  for (int r = 0; r < 3000; ++r) lengths.push_back(cycle[r % 14]);
  const Matrix a = matrix_with_lengths(3000, lengths, 11);
  const Matrix b = with_other_values(a);
  const auto x = test::make_x<double>(a);
  std::vector<double> expected(static_cast<std::size_t>(a.rows), 0.0);
  spmv_reference(b, std::span<const double>(x), std::span<double>(expected), 1.0, 0.0);
  for (const bool plan_order : {false, true}) {
    PlanOptions options;
    if (plan_order) options.parameters = {"row_order=plan"};
    SpmvPlan<double> plan(a, Method("dasp"), options);
    const DeviceBuffer<double> new_values(b.values), dx(x);
    DeviceBuffer<double> dx_plan(x.size()), dy(expected.size()), dy_caller(expected.size());
    if (plan_order) plan.permute(dx.data(), dx_plan.data());
    const double* x_in = plan_order ? dx_plan.data() : dx.data();
    const detail::CudaStream stream;
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
    plan.update_values(new_values.data(), stream.get());
    plan.apply(x_in, dy.data(), 1.0, 0.0, stream.get());
    ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int launch = 0; launch < 2; ++launch) {
      dy.fill_bytes(0xff);
      ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
      ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess);
      if (plan_order) plan.unpermute(dy.data(), dy_caller.data());
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<double> y = (plan_order ? dy_caller : dy).download();
      EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(expected)),
                1e-12)
          << (plan_order ? "plan order" : "caller order") << ", launch " << launch;
    }
    EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
}

}  // namespace
}  // namespace tcsparse
