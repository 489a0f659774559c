// What is particular to CSR-Partial-Overlap on the GPU, against the CPU reference (double
// accumulation; fp64 below 1e-12, fp32 below 1e-5, fp16 / bf16 below 1e-2; outputs poisoned with
// NaN when beta == 0): the batch table built on the GPU equals the host model's, every precision
// with the defaults, small batches and long rows in several pieces, every vector size, other
// block sizes and chunks of many batches a block, the warp pass and the row groups at their
// thresholds (deviations of this library), deeper pipelines, the sm_90 bulk copy (copy=bulk:
// every stress set, bitwise equal to cp.async; refused before sm_90), empty shapes, large generated matrices, bitwise
// repeats and graph capture of all three kernels, plans from a DeviceCsrView that borrow the
// caller's arrays (exactly nnz elements: no copy reads past them; values changed in place are
// used) or copy them (device_csr); merge-path tiles (partition=merge_path: tile starts equal the
// host model's, every precision, a row across dozens of tiles, bitwise repeats, graph capture,
// new values, and partition=auto's choice from host and device CSR); row vectors
// (partition=row_vectors: every shape in every precision, the host model's order, a row of
// 60 000 among short ones, bitwise repeats, graph capture, new values, borrowed misaligned
// arrays, and partition=auto's choice of them for even rows); long-row pieces read in 16-byte
// chunks from every offset, a nonzero at a time from misaligned borrowed arrays, by long-row
// blocks of every size (long_row_threads: 64 for 16-bit values by default). The default
// parameters on
// the catalogue and on
// real matrices, stream order and graph capture are also the conformance suite's.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "csr_overlap/csr_overlap.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "gpu/gpu_test.hpp"
#include "gpu/plan_runner.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/device.hpp"
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


std::string describe(const PlanOptions& options) {
  std::string text;
  for (const auto& p : options.parameters) text += p + " ";
  return text;
}


/// ||csr_overlap - reference|| / ||reference|| on the matrix converted to Value.
template <typename Value>
double plan_error(const Matrix& matrix64, Scalars s, const PlanOptions& options = {}) {
  const Matrix scaled =
      std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), s.alpha, s.beta);
  const SpmvPlan<Value> plan(a, Method("csr_overlap"), options);
  const auto y = run_spmv(plan, x, y0, s);
  return relative_error(std::span<const Value>(y), std::span<const double>(reference));
}

template <typename Value>
void expect_matches_reference(const Matrix& matrix, const PlanOptions& options = {}) {
  for (const Scalars s : kScalarCases)
    EXPECT_LT(plan_error<Value>(matrix, s, options), test::tolerance<Value>())
        << "alpha " << s.alpha << " beta " << s.beta << " " << describe(options);
}

/// expect_matches_reference in fp64, fp32, fp16 and bf16.
void expect_every_precision_matches_reference(const Matrix& matrix, const PlanOptions& options) {
  expect_matches_reference<double>(matrix, options);
  expect_matches_reference<float>(matrix, options);
  expect_matches_reference<half>(matrix, options);
  expect_matches_reference<bfloat16>(matrix, options);
}

/// The table the GPU built equals the host model's for these parameters (with the rows
/// partition: partition=auto would take merge tiles on some matrices).
template <typename Value>
void expect_device_table_equals_host_table(const Matrix& matrix64,
                                           std::vector<std::string> parameters) {
  parameters.push_back("partition=rows");
  const auto a = test::with_values<Value>(matrix64);
  const auto values =
      detail::check_parameter_values("csr_overlap", csr_overlap::parameter_specs(), parameters);
  const auto method = csr_overlap::make_spmv<Value>(a, values);
  const csr_overlap::testing::DeviceTable device = csr_overlap::testing::download_table(*method);
  const auto p = csr_overlap::parse_parameters(parameters).for_matrix(a.rows, a.nnz(),
                                                                      sizeof(scalar_t<Value>));
  const csr_overlap::BatchTable host =
      csr_overlap::build_batch_table(a.row_ptr, p.partition_rule(), p.long_row_piece);
  EXPECT_EQ(device.table.batches, host.batches);
  EXPECT_EQ(device.table.long_rows, host.long_rows);
  EXPECT_EQ(device.table.long_task_ptr, host.long_task_ptr);
  EXPECT_EQ(device.table.long_row_tasks, host.long_row_tasks);
  const auto batches = static_cast<std::int64_t>(host.batches.size());
  EXPECT_TRUE(device.shape.launch.covers(batches));
  EXPECT_EQ(device.shape.launch.blocks > 0, batches > 0);
  EXPECT_EQ(device.shape.long_row_blocks > 0, host.long_tasks() > 0);
  // the host model walking the device's own table and launch shape gives the reference too
  const auto x = test::make_x<Value>(matrix64);
  std::vector<double> y(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> reference(y.size(), 0.0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), 1.0, 0.0);
  csr_overlap::host_apply(a, device.table, p.partition_rule(), device.shape,
                          std::span<const Value>(x), std::span<double>(y), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)), 1e-12);
}

/// Parameter sets that stress the partition and the kernels on small matrices: tiny batches
/// (many batches, many long rows in several pieces), a row cap, big blocks, one block an SM.
const std::vector<std::vector<std::string>> kStressParameters = {
    {},
    {"batch_unit=block", "max_batch_size=32", "long_row_piece=256"},
    {"batch_unit=block", "max_batch_size=64", "max_batch_rows=7", "threads_per_block=1024"},
    {"batch_unit=block", "max_batch_size=256", "threads_per_block=128", "blocks_per_sm=1"},
    // the paper's vector size alone (no spreading, no warp pass), and the deviations pushed hard:
    // deep pipelines, a warp pass for rows over 2 x vs, groups of 64 threads
    {"batch_unit=block", "row_threads_max=off", "warp_row_factor=off", "max_batch_size=4096",
     "pipeline_stages=2", "batches_per_block=auto", "threads_per_block=128"},
    {"batch_unit=block", "register_bound=on"},
    {"batch_unit=block", "max_batch_size=128", "pipeline_stages=3", "warp_row_factor=2",
     "row_threads_max=64", "batches_per_block=auto"},
    {"batch_unit=block", "max_batch_size=512", "pipeline_stages=4", "warp_row_factor=1",
     "threads_per_block=512", "batches_per_block=auto"},
    // no copy-ahead: a block a batch, and a block of several batches in turn (one stage reused)
    {"batch_unit=block", "pipeline_stages=1", "batches_per_block=1", "max_batch_size=64",
     "threads_per_block=32"},
    {"batch_unit=block", "pipeline_stages=1", "batches_per_block=3", "max_batch_size=128",
     "warp_row_factor=2"},
    {"batch_unit=block", "batches_per_block=2", "max_batch_size=256", "threads_per_block=64"},
    // a warp a batch (batch_unit=warp): its own stages, row offsets from shared memory, the warp
    // pass by ballot; tiny batches with long rows, a row cap, deep pipelines, one block an SM
    {"batch_unit=warp"},
    {"batch_unit=warp", "max_batch_size=32", "long_row_piece=256", "pipeline_stages=2"},
    {"batch_unit=warp", "max_batch_size=64", "max_batch_rows=7", "pipeline_stages=3",
     "threads_per_block=1024"},
    {"batch_unit=warp", "max_batch_size=128", "pipeline_stages=4", "warp_row_factor=1",
     "blocks_per_sm=1", "threads_per_block=64"},
    {"batch_unit=warp", "max_batch_size=256", "pipeline_stages=2", "row_threads_max=off",
     "warp_row_factor=off", "register_bound=on"},
};

/// Whether a parameter set asks for warp batches (which have no bulk copy).
bool takes_warp_batches(const std::vector<std::string>& parameters) {
  return std::find(parameters.begin(), parameters.end(), "batch_unit=warp") != parameters.end();
}

/// copy=bulk (sm_90 bulk copies on an mbarrier a stage): every stress set again with the bulk
/// copy, and every pipeline depth 1..4 with one, two, several and all batches a block (the
/// barriers' phase parity across batches), with tiny stages (many phases a block).
std::vector<std::vector<std::string>> bulk_stress_parameters() {
  std::vector<std::vector<std::string>> sets;
  for (std::vector<std::string> parameters : kStressParameters) {
    if (takes_warp_batches(parameters)) continue;
    parameters.push_back("copy=bulk");
    sets.push_back(std::move(parameters));
  }
  for (const char* stages : {"1", "2", "3", "4"})
    for (const char* per_block : {"1", "2", "5", "auto"})
      sets.push_back({"copy=bulk", "max_batch_size=64", std::string("pipeline_stages=") + stages,
                      std::string("batches_per_block=") + per_block});
  return sets;
}

/// copy=direct (a warp reads its batch straight from global memory into the products): every
/// warp stress set again with one stage and the direct reads, and the unit left to auto (which
/// copy=direct resolves to warps).
std::vector<std::vector<std::string>> direct_stress_parameters() {
  std::vector<std::vector<std::string>> sets = {{"copy=direct"}};
  for (std::vector<std::string> parameters : kStressParameters) {
    if (!takes_warp_batches(parameters)) continue;
    std::erase_if(parameters, [](const std::string& p) { return p.starts_with("pipeline_stages="); });
    parameters.push_back("copy=direct");
    sets.push_back(std::move(parameters));
  }
  return sets;
}

bool gpu_has_bulk_copy() { return query_device(0).compute_capability_major >= 9; }

/// Skips the calling test on a GPU without the sm_90 bulk copy (copy=bulk is refused there).
#define SKIP_WITHOUT_BULK_COPY()                                                            \
  do {                                                                                      \
    if (!gpu_has_bulk_copy())                                                               \
      GTEST_SKIP() << "copy=bulk needs sm_90 or later; this GPU has compute capability "    \
                   << query_device(0).compute_capability_major << "."                       \
                   << query_device(0).compute_capability_minor;                             \
  } while (false)

/// y of one csr_overlap apply (alpha 1.5, beta -0.5) with these parameters.
template <typename Value>
std::vector<Value> overlap_result(const Matrix& matrix64, const std::vector<std::string>& parameters) {
  const Matrix scaled =
      std::is_same_v<Value, double> ? matrix64 : test::scaled_for_16_bit(matrix64);
  const auto a = test::with_values<Value>(scaled);
  const SpmvPlan<Value> plan(a, Method("csr_overlap"), options_of(parameters));
  return run_spmv(plan, test::make_x<Value>(scaled), test::make_y<Value>(scaled), {1.5, -0.5});
}

// ---- the shared catalogue ----------------------------------------------------------------------

class CsrOverlapGpuOnCatalogue : public testing::GpuTestWithParam<test::NamedMatrix> {};

TEST_P(CsrOverlapGpuOnCatalogue, DeviceTableEqualsHostModel) {
  for (const auto& parameters : kStressParameters) {
    expect_device_table_equals_host_table<double>(GetParam().matrix, parameters);
    expect_device_table_equals_host_table<half>(GetParam().matrix, parameters);
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, EveryPrecisionMatchesReference) {
  for (const auto& parameters : kStressParameters) {
    expect_every_precision_matches_reference(GetParam().matrix, options_of(parameters));
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, BulkCopyDeviceTableEqualsHostModel) {
  SKIP_WITHOUT_BULK_COPY();
  for (const auto& parameters : bulk_stress_parameters()) {
    expect_device_table_equals_host_table<double>(GetParam().matrix, parameters);
    expect_device_table_equals_host_table<half>(GetParam().matrix, parameters);
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, BulkCopyEveryPrecisionMatchesReference) {
  SKIP_WITHOUT_BULK_COPY();
  for (const auto& parameters : bulk_stress_parameters()) {
    expect_every_precision_matches_reference(GetParam().matrix, options_of(parameters));
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, BulkCopyIsBitwiseEqualToCpAsync) {
  // the same stages, the same sums in the same order: only the copies differ
  SKIP_WITHOUT_BULK_COPY();
  for (std::vector<std::string> parameters : bulk_stress_parameters()) {
    const std::vector<double> bulk = overlap_result<double>(GetParam().matrix, parameters);
    const std::vector<bfloat16> bulk16 = overlap_result<bfloat16>(GetParam().matrix, parameters);
    std::erase(parameters, std::string("copy=bulk"));
    parameters.push_back("copy=cp_async");
    if (std::find(parameters.begin(), parameters.end(), "batch_unit=block") == parameters.end())
      parameters.push_back("batch_unit=block");  // the bulk copy's unit (auto would take warps)
    const std::vector<double> cp_async = overlap_result<double>(GetParam().matrix, parameters);
    const std::vector<bfloat16> cp_async16 =
        overlap_result<bfloat16>(GetParam().matrix, parameters);
    ASSERT_EQ(bulk.size(), cp_async.size());
    ASSERT_EQ(bulk16.size(), cp_async16.size());
    EXPECT_EQ(std::memcmp(bulk.data(), cp_async.data(), bulk.size() * sizeof(double)), 0)
        << describe(options_of(parameters));
    EXPECT_EQ(std::memcmp(bulk16.data(), cp_async16.data(), bulk16.size() * sizeof(bfloat16)), 0)
        << describe(options_of(parameters));
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, DirectReadsMatchReferenceInEveryPrecision) {
  for (const auto& parameters : direct_stress_parameters()) {
    expect_every_precision_matches_reference(GetParam().matrix, options_of(parameters));
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, DirectReadsAreBitwiseEqualToCpAsyncStages) {
  // the same products, the same row sums in the same order: only where they are read from differs
  for (std::vector<std::string> parameters : direct_stress_parameters()) {
    const std::vector<double> direct = overlap_result<double>(GetParam().matrix, parameters);
    const std::vector<half> direct16 = overlap_result<half>(GetParam().matrix, parameters);
    // the same partition: direct warps cap their batches at fewer rows by default
    const std::int32_t rows = csr_overlap::parse_parameters(parameters).partition_rule().max_batch_rows;
    std::erase(parameters, std::string("copy=direct"));
    std::erase_if(parameters, [](const std::string& p) { return p.starts_with("max_batch_rows="); });
    parameters.push_back("copy=cp_async");
    parameters.push_back("max_batch_rows=" + std::to_string(rows));
    if (!takes_warp_batches(parameters)) parameters.push_back("batch_unit=warp");
    const std::vector<double> staged = overlap_result<double>(GetParam().matrix, parameters);
    const std::vector<half> staged16 = overlap_result<half>(GetParam().matrix, parameters);
    ASSERT_EQ(direct.size(), staged.size());
    ASSERT_EQ(direct16.size(), staged16.size());
    EXPECT_EQ(std::memcmp(direct.data(), staged.data(), direct.size() * sizeof(double)), 0)
        << describe(options_of(parameters));
    EXPECT_EQ(std::memcmp(direct16.data(), staged16.data(), direct16.size() * sizeof(half)), 0)
        << describe(options_of(parameters));
  }
}

// ---- merge-path tiles (partition=merge_path) ---------------------------------------------------

/// The tile starts the GPU computed equal the host model's, and the host model's walk over them
/// gives the reference.
template <typename Value>
void expect_device_merge_tiles_equal_host_tiles(const Matrix& matrix64, const char* items) {
  const auto a = test::with_values<Value>(matrix64);
  const std::vector<std::string> parameters = {"partition=merge_path", items};
  const auto values =
      detail::check_parameter_values("csr_overlap", csr_overlap::parameter_specs(), parameters);
  const auto method = csr_overlap::make_spmv<Value>(a, values);
  const csr_overlap::testing::DeviceTable device = csr_overlap::testing::download_table(*method);
  const std::int64_t tile_items = std::int64_t{csr_overlap::kMergeTileThreads} *
                                  csr_overlap::parse_parameters(parameters).merge_items;
  EXPECT_EQ(device.merge_tile_starts, csr_overlap::merge_tile_starts(a.row_ptr, tile_items));
  EXPECT_TRUE(device.table.batches.empty());
  const auto x = test::make_x<Value>(matrix64);
  std::vector<double> y(static_cast<std::size_t>(a.rows), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> reference(y.size(), 0.0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), 1.0, 0.0);
  const std::span<const csr_overlap::MergeCoordinate> starts(device.merge_tile_starts);
  csr_overlap::merge_host_apply(a, starts, tile_items, std::span<const Value>(x),
                                std::span<double>(y), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)), 1e-12);
}

TEST_P(CsrOverlapGpuOnCatalogue, MergeTilesEqualHostModelAndMatchReferenceInEveryPrecision) {
  for (const char* items : {"merge_items=5", "merge_items=7"}) {
    SCOPED_TRACE(items);
    expect_device_merge_tiles_equal_host_tiles<double>(GetParam().matrix, items);
    expect_device_merge_tiles_equal_host_tiles<half>(GetParam().matrix, items);
    expect_every_precision_matches_reference(GetParam().matrix,
                                             options_of({"partition=merge_path", items}));
  }
}

TEST_P(CsrOverlapGpuOnCatalogue, EveryVectorSizeMatchesReference) {
  for (const char* unit : {"block", "warp"})
    for (const char* size : {"1", "2", "4", "8", "16", "32"}) {
      const PlanOptions options = options_of({std::string("vector_size=") + size,
                                              "max_batch_size=128",
                                              std::string("batch_unit=") + unit});
      EXPECT_LT(plan_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12) << size << unit;
      EXPECT_LT(plan_error<float>(GetParam().matrix, {1.0, 0.0}, options), 1e-5) << size << unit;
      EXPECT_LT(plan_error<half>(GetParam().matrix, {-1.0, 0.5}, options), 1e-2) << size << unit;
    }
}

/// Every row-vector shape the schema accepts (partition=row_vectors): 6 vector sizes x the 8
/// (rows, steps) pairs of at most csr_overlap::kRowVectorMaxProductsInFlight products a lane.
std::vector<std::vector<std::string>> every_row_vector_shape() {
  std::vector<std::vector<std::string>> shapes;
  for (const char* size : {"1", "2", "4", "8", "16", "32"})
    for (const char* rows : {"1", "2", "4"})
      for (const char* steps : {"1", "2", "4"}) {
        if (std::stoi(rows) * std::stoi(steps) > csr_overlap::kRowVectorMaxProductsInFlight)
          continue;
        shapes.push_back({"partition=row_vectors", std::string("row_vector_size=") + size,
                          std::string("row_vector_rows=") + rows,
                          std::string("row_vector_steps=") + steps});
      }
  return shapes;
}

TEST_P(CsrOverlapGpuOnCatalogue, RowVectorsOfEveryShapeMatchReferenceInEveryPrecision) {
  const std::vector<std::vector<std::string>> shapes = every_row_vector_shape();
  ASSERT_EQ(shapes.size(), 48u);
  for (const auto& shape : shapes) {
    const PlanOptions options = options_of(shape);
    EXPECT_LT(plan_error<double>(GetParam().matrix, {1.0, 0.5}, options), 1e-12)
        << describe(options);
    EXPECT_LT(plan_error<float>(GetParam().matrix, {1.0, 0.0}, options), 1e-5) << describe(options);
    EXPECT_LT(plan_error<half>(GetParam().matrix, {-1.0, 0.5}, options), 1e-2) << describe(options);
    EXPECT_LT(plan_error<bfloat16>(GetParam().matrix, {2.0, 0.0}, options), 1e-2)
        << describe(options);
  }
}

/// The row-vector kernel adds each row in the host model's order (csr_overlap_format.hpp
/// row_vector_host_apply): fp64 results within rounding of the model's (FMA contractions).
TEST_P(CsrOverlapGpuOnCatalogue, RowVectorsAddInTheHostModelsOrder) {
  const Matrix& a = GetParam().matrix;
  const auto x = test::make_x<double>(a);
  const auto y0 = test::make_y<double>(a);
  for (const char* size : {"1", "4", "32"}) {
    const PlanOptions options =
        options_of({"partition=row_vectors", std::string("row_vector_size=") + size});
    const SpmvPlan<double> plan(a, Method("csr_overlap"), options);
    const std::vector<double> y = run_spmv(plan, x, y0, {1.5, -0.5});
    std::vector<double> model = y0;
    csr_overlap::row_vector_host_apply(a, {std::stoi(size), 1, 1}, std::span<const double>(x),
                                       std::span<double>(model), 1.5, -0.5);
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(model)), 1e-14)
        << size;
  }
}

INSTANTIATE_TEST_SUITE_P(AllSynthetic, CsrOverlapGpuOnCatalogue,
                         ::testing::ValuesIn(test::all_synthetic_matrices()),
                         test::NamedMatrixName{});

// ---- particular shapes --------------------------------------------------------------------------

class CsrOverlapGpu : public testing::GpuTest {};

TEST_F(CsrOverlapGpu, BatchesEndingExactlyAtRowBoundariesMatchReference) {
  // max_batch_size 64 (window 32): rows of 8 make batches of exactly 32 nonzeros; rows of 31 + 1
  // end a batch exactly at a window boundary; rows of 64 fill a stage; 65 is long
  const std::vector<std::vector<std::int64_t>> cases = {
      std::vector<std::int64_t>(64, 8), {31, 1, 31, 1, 20, 31, 1}, {64, 65, 64, 33, 32, 1, 0, 64}};
  for (const auto& lengths : cases) {
    const Matrix a = test::with_row_lengths(200, lengths, 5);
    expect_device_table_equals_host_table<double>(a, {"max_batch_size=64"});
    expect_matches_reference<double>(a, options_of({"max_batch_size=64"}));
    expect_matches_reference<half>(a, options_of({"max_batch_size=64", "long_row_piece=256"}));
  }
}

TEST_F(CsrOverlapGpu, WarpPassAndRowGroupsAtTheirThresholdsMatchReference) {
  // M = 256: rows of 3..6 among 1..3 (vector size 1 or 2, warp pass over 4 x vs with K = 4),
  // rows of 7..9 among 20s, one-row batches of 129..256 (groups of 64..256 threads), few-row
  // batches of 100, a long row of 257, empty rows; then a batch of one row of each length
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 300; ++i) lengths.push_back(i % 7 == 0 ? 3 + i % 4 : 1 + i % 3);
  for (int i = 0; i < 100; ++i) lengths.push_back(i % 5 == 0 ? 7 + i % 3 : 20 + i % 4);
  for (const int n : {129, 130, 200, 255, 256, 257, 100, 100, 100, 64, 63, 65, 1, 0, 2})
    lengths.push_back(n);
  for (int i = 0; i < 200; ++i) lengths.push_back(i % 40 == 0 ? 120 : i % 3);
  const Matrix a = test::with_row_lengths(3000, lengths, 6);
  for (const char* threads : {"128", "256", "1024"})
    for (const char* factor : {"4", "1", "32"})
      for (const char* stages : {"1", "2", "3"}) {
        // one stage: a block a batch (the default); more: a wave of blocks walks the batches
        const std::vector<std::string> parameters = {
            "batch_unit=block", "max_batch_size=256", "long_row_piece=256",
            std::string("threads_per_block=") + threads,
            std::string("warp_row_factor=") + factor, std::string("pipeline_stages=") + stages,
            std::string("batches_per_block=") + (stages[0] == '1' ? "1" : "auto")};
        expect_device_table_equals_host_table<double>(a, parameters);
        expect_every_precision_matches_reference(a, options_of(parameters));
      }
  // one-row batches alone: every length from 1 to M, groups of every width
  std::vector<std::int64_t> single;
  for (int n = 129; n <= 256; ++n) single.push_back(n);
  const Matrix b = test::with_row_lengths(1000, single, 7);
  for (const char* spread : {"block", "64", "128", "off"}) {
    const std::vector<std::string> parameters = {"batch_unit=block", "max_batch_size=256",
                                                 std::string("row_threads_max=") + spread};
    expect_matches_reference<double>(b, options_of(parameters));
    expect_matches_reference<float>(b, options_of(parameters));
    expect_matches_reference<half>(b, options_of(parameters));
  }
}

TEST_F(CsrOverlapGpu, PowerLawBatchesWithWarpPassRowsRepeatBitwise) {
  const Matrix a64 = generate_random_rows(60000, 60000, RowLengthDistribution::power_law, 1, 3000, 11);
  const auto a = test::with_values<double>(a64);
  const SpmvPlan<double> plan(
      a, Method("csr_overlap"),
      options_of({"batch_unit=block", "pipeline_stages=3", "batches_per_block=auto"}));
  EXPECT_GT(plan.stats().details["warp_pass_rows"].get<std::int64_t>() +
                plan.stats().details["group_rows"].get<std::int64_t>(),
            0);
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  const std::vector<double> first = run_spmv(plan, x, y0, {1.0, 0.0});
  std::vector<double> reference(y0.size(), 0.0);
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const double>(first), std::span<const double>(reference)),
            1e-12);
  for (int run = 0; run < 3; ++run) {
    const std::vector<double> again = run_spmv(plan, x, y0, {1.0, 0.0});
    EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)), 0) << run;
  }
}

TEST_F(CsrOverlapGpu, EmptyShapesStillScaleY) {
  for (const auto& [rows, cols] : {std::pair<int, int>{0, 0}, {0, 5}, {5, 0}, {1000, 7}}) {
    Matrix a;
    a.rows = rows;
    a.cols = cols;
    a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    expect_matches_reference<double>(a);
    expect_matches_reference<bfloat16>(a);
  }
}

TEST_F(CsrOverlapGpu, LargeGeneratedMatricesMatchReference) {
  const Matrix cases[] = {
      generate_stencil_3d_27pt(60, 60, 60, 1),
      generate_rmat(17, 16, 3),
      generate_random_rows(100000, 50000, RowLengthDistribution::uniform, 0, 64, 4),
      generate_random_rows(50000, 50000, RowLengthDistribution::power_law, 1, 20000, 5),
      generate_short_rows(300000, 100000, 7),
      generate_long_rows(300, 200000, 5000, 8),
      generate_pruned_weights(1024, 4096, 0.9, 9),
  };
  for (const Matrix& a : cases) {
    EXPECT_LT(plan_error<double>(a, {1.0, 0.0}), 1e-12) << a.rows << " x " << a.cols;
    EXPECT_LT(plan_error<float>(a, {1.0, 0.5}), 1e-5) << a.rows << " x " << a.cols;
    EXPECT_LT(plan_error<half>(a, {1.0, 0.0}), 1e-2) << a.rows << " x " << a.cols;
    EXPECT_LT(plan_error<double>(a, {1.0, 0.0}, options_of({"blocks_per_sm=1"})), 1e-12);
    expect_device_table_equals_host_table<float>(a, {});
    const PlanOptions merge = options_of({"partition=merge_path"});
    EXPECT_LT(plan_error<double>(a, {1.0, 0.5}, merge), 1e-12) << a.rows << " x " << a.cols;
    EXPECT_LT(plan_error<half>(a, {1.0, 0.0}, merge), 1e-2) << a.rows << " x " << a.cols;
  }
}

TEST_F(CsrOverlapGpu, TablesOfMoreTilesThanOneRoundOfTheTileScanEqualHostModel) {
  // more than 256 tiles of 4096 positions (2^20 rows and more; here 4114 tiles): the last block
  // of the counting pass scans the tiles' counts in rounds of 256, each carrying the one before;
  // tiny batches and long rows make every count field grow across the rounds
  const Matrix many_rows = generate_random_rows((1 << 24) + 70000, 1 << 16,
                                                RowLengthDistribution::power_law, 0, 120, 11);
  expect_device_table_equals_host_table<float>(many_rows, {"max_batch_size=64", "long_row_piece=256"});
}

TEST_F(CsrOverlapGpu, WarpsTakingManyBatchesThroughEveryPipelineDepthMatchReference) {
  // one block of one warp an SM and batches of at most 32 nonzeros: every warp walks hundreds of
  // batches, refilling its window of 32 batch extents many times, through 1..4 stages; power-law
  // rows give the warp pass and long rows too
  const Matrix short_rows = generate_short_rows(120000, 90000, 21);
  const Matrix power_law =
      generate_random_rows(60000, 60000, RowLengthDistribution::power_law, 1, 3000, 22);
  for (const char* stages : {"1", "2", "3", "4"}) {
    const PlanOptions options =
        options_of({"batch_unit=warp", "max_batch_size=32", "threads_per_block=32",
                    "blocks_per_sm=1", "long_row_piece=256",
                    std::string("pipeline_stages=") + stages});
    EXPECT_LT(plan_error<double>(short_rows, {1.0, 0.0}, options), 1e-12) << stages;
    EXPECT_LT(plan_error<float>(power_law, {-2.0, 0.5}, options), 1e-5) << stages;
    EXPECT_LT(plan_error<half>(power_law, {1.0, 1.0}, options), 1e-2) << stages;
  }
}

TEST_F(CsrOverlapGpu, ARowLongerThanABlockIsSplitAndStaysCorrect) {
  // one row of 300 000 among 1999 rows of 3 (under 2^20 nonzeros: pieces of 8192 by default):
  // 36 pieces of 8192 (the last one 13 280 long), 1171 of 256, and one block
  std::vector<std::int64_t> lengths(2000, 3);
  lengths[1000] = 300000;
  const Matrix a = test::with_row_lengths(400000, lengths, 9);
  expect_matches_reference<double>(a);
  expect_matches_reference<float>(a, options_of({"long_row_piece=256"}));
  expect_matches_reference<half>(a, options_of({"long_row_piece=100000000"}));  // one block
}

TEST_F(CsrOverlapGpu, RepeatedAppliesWithLongRowPiecesAreBitwiseIdentical) {
  std::vector<std::int64_t> lengths = {90000, 3000, 1, 0, 300};
  for (int i = 0; i < 3000; ++i) lengths.push_back(i % 250);
  const Matrix a64 = test::with_row_lengths(100000, lengths, 3);
  const auto a = test::with_values<float>(a64);
  for (const char* unit : {"batch_unit=block", "batch_unit=warp"}) {
    const SpmvPlan<float> plan(a, Method("csr_overlap"),
                               options_of({"max_batch_size=256", "long_row_piece=512", unit}));
    const auto x = test::make_x<float>(a64);
    const auto y0 = test::make_y<float>(a64);
    const std::vector<float> first = run_spmv(plan, x, y0, {1.0, 0.5});
    for (int run = 0; run < 4; ++run) {
      const std::vector<float> again = run_spmv(plan, x, y0, {1.0, 0.5});
      ASSERT_EQ(again.size(), first.size());
      EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(float)), 0)
          << run << unit;
    }
  }
}

TEST_F(CsrOverlapGpu, AllThreeKernelsCaptureIntoAGraph) {
  std::vector<std::int64_t> lengths = {20000, 1, 0, 300, 5000};
  for (int i = 0; i < 2000; ++i) lengths.push_back(i % 40);
  const Matrix a64 = test::with_row_lengths(30000, lengths, 4);
  const auto a = test::with_values<double>(a64);
  for (const char* unit : {"batch_unit=block", "batch_unit=warp"}) {
    SCOPED_TRACE(unit);
    const SpmvPlan<double> plan(a, Method("csr_overlap"),
                                options_of({"max_batch_size=1024", "long_row_piece=1024", unit}));
    const auto x = test::make_x<double>(a64);
    const auto y0 = test::make_y<double>(a64);
    const std::vector<double> y = testing::run_spmv_in_graph(plan, x, y0, {2.0, -1.0});
    std::vector<double> reference = y0;
    spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 2.0, -1.0);
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(reference)),
              1e-12);
  }
}

/// Empty rows, a row of 60 000 nonzeros across dozens of tiles, rows ending exactly at tile
/// boundaries (single nonzeros), short rows.
Matrix merge_stress_matrix() {
  std::vector<std::int64_t> lengths(4000, 0);
  lengths[100] = 60000;
  for (std::size_t r = 200; r < 4000; r += 3) lengths[r] = 1 + static_cast<std::int64_t>(r % 40);
  for (std::size_t r = 1000; r < 1100; ++r) lengths[r] = 1;
  return test::with_row_lengths(80000, lengths, 12);
}

TEST_F(CsrOverlapGpu, MergeTilesAcrossALongRowMatchReferenceRepeatBitwiseAndCaptureIntoAGraph) {
  const Matrix a64 = merge_stress_matrix();
  const auto a = test::with_values<double>(a64);
  for (const char* items : {"merge_items=5", "merge_items=7"}) {
    SCOPED_TRACE(items);
    expect_device_merge_tiles_equal_host_tiles<double>(a64, items);
    const SpmvPlan<double> plan(a, Method("csr_overlap"),
                                options_of({"partition=merge_path", items}));
    EXPECT_EQ(plan.stats().details["partition"], "merge_path");
    const auto x = test::make_x<double>(a64);
    const auto y0 = test::make_y<double>(a64);
    std::vector<double> reference = y0;
    spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 2.0, -1.0);
    const std::vector<double> first = run_spmv(plan, x, y0, {2.0, -1.0});
    EXPECT_LT(relative_error(std::span<const double>(first), std::span<const double>(reference)),
              1e-12);
    for (int run = 0; run < 3; ++run) {
      const std::vector<double> again = run_spmv(plan, x, y0, {2.0, -1.0});
      EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)), 0) << run;
    }
    const std::vector<double> captured = testing::run_spmv_in_graph(plan, x, y0, {2.0, -1.0});
    EXPECT_EQ(std::memcmp(captured.data(), first.data(), first.size() * sizeof(double)), 0);
  }
  for (const char* items : {"merge_items=5", "merge_items=7"}) {
    expect_matches_reference<float>(a64, options_of({"partition=merge_path", items}));
    expect_matches_reference<bfloat16>(a64, options_of({"partition=merge_path", items}));
  }
  for (const char* blocks : {"merge_blocks_per_sm=3", "merge_blocks_per_sm=5",
                             "merge_blocks_per_sm=7", "merge_blocks_per_sm=8"})
    expect_every_precision_matches_reference(a64, options_of({"partition=merge_path", blocks}));
}

TEST_F(CsrOverlapGpu, StagesLargerThanSharedMemoryAreRefused) {
  const Matrix a = test::with_row_lengths(10, {1, 2, 3}, 1);
  EXPECT_THROW(SpmvPlan<double>(a, Method("csr_overlap"), options_of({"max_batch_size=65536"})),
               UnsupportedError);
}

TEST_F(CsrOverlapGpu, BulkCopyBeforeSm90IsRefusedNamingTheComputeCapability) {
  const DeviceInfo device = query_device(0);
  if (device.compute_capability_major >= 9) GTEST_SKIP() << "this GPU has the bulk copy";
  const Matrix a = test::with_row_lengths(10, {1, 2, 3}, 1);
  const std::string capability = std::to_string(device.compute_capability_major) + "." +
                                 std::to_string(device.compute_capability_minor);
  try {
    const SpmvPlan<double> plan(a, Method("csr_overlap"), options_of({"copy=bulk"}));
    FAIL() << "expected an UnsupportedError";
  } catch (const UnsupportedError& error) {
    EXPECT_NE(std::string(error.what()).find("compute capability " + capability),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(SpmvPlan<double>(a, Method("csr_full_overlap"), options_of({"copy=bulk"})),
               UnsupportedError);
}

TEST_F(CsrOverlapGpu, BulkCopyWithLongRowsIsBitwiseRepeatableAndCapturesIntoAGraph) {
  SKIP_WITHOUT_BULK_COPY();
  std::vector<std::int64_t> lengths = {20000, 1, 0, 300, 5000, 1024, 1023, 1025};
  for (int i = 0; i < 3000; ++i) lengths.push_back(i % 70);
  const Matrix a64 = test::with_row_lengths(30000, lengths, 6);
  const auto a = test::with_values<double>(a64);
  const SpmvPlan<double> plan(
      a, Method("csr_overlap"),
      options_of({"copy=bulk", "max_batch_size=1024", "pipeline_stages=2", "batches_per_block=4"}));
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  const std::vector<double> first = run_spmv(plan, x, y0, {2.0, -1.0});
  const std::vector<double> again = run_spmv(plan, x, y0, {2.0, -1.0});
  ASSERT_EQ(again.size(), first.size());
  EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)), 0);
  const std::vector<double> captured = testing::run_spmv_in_graph(plan, x, y0, {2.0, -1.0});
  EXPECT_EQ(std::memcmp(captured.data(), first.data(), first.size() * sizeof(double)), 0);
}

TEST_F(CsrOverlapGpu, StatsDescribeTheTableAndTheLaunch) {
  std::vector<std::int64_t> lengths = {9000, 5, 6, 7, 300, 0};
  const Matrix a = test::with_row_lengths(10000, lengths, 2);
  const SpmvPlan<double> plan(a, Method("csr_overlap"));
  const PlanStats& s = plan.stats();
  EXPECT_GT(s.device_bytes, 0u);
  EXPECT_GE(s.device_preprocess_ms, 0.0);
  EXPECT_EQ(s.stored_values, a.nnz());
  EXPECT_EQ(s.details["long_rows"].get<std::int64_t>(), 1);
  EXPECT_EQ(s.details["long_row_tasks"].get<std::int64_t>(), 1);  // 9000 < 2 x 8192: whole
  EXPECT_EQ(s.details["batches"].get<std::int64_t>(),
            layout_statistics(Method("csr_overlap"), a)["batches"].get<std::int64_t>());
  EXPECT_GT(s.details["blocks"].get<std::int64_t>(), 0);
  // at least one stage of the largest batch: its values and column indices
  EXPECT_GE(s.details["shared_memory_bytes"].get<std::int64_t>(),
            s.details["max_batch_size"].get<std::int64_t>() * (8 + 4));
  EXPECT_TRUE(s.details["parameters"].is_object());
}

TEST_F(CsrOverlapGpu, AutoGivesDirectWarpsToMatricesOfAMillionNonzerosAndBlocksTheRest) {
  // 2^20 nonzeros (csr_overlap::kDirectWarpMinNonzeros) in rows of 4 or of 2; one fewer; few rows.
  // The rows partition (partition=auto gives these even rows row vectors, tested below).
  const std::int64_t rows = std::int64_t{1} << 18;
  const Matrix four = test::with_row_lengths(5000, std::vector<std::int64_t>(rows, 4), 3);
  const Matrix two = test::with_row_lengths(5000, std::vector<std::int64_t>(2 * rows, 2), 4);
  std::vector<std::int64_t> lengths(rows, 4);
  lengths.back() = 3;
  const Matrix shorter = test::with_row_lengths(5000, lengths, 3);
  const Matrix small = test::with_row_lengths(1000, std::vector<std::int64_t>(300, 40), 3);
  const PlanOptions rows_partition = options_of({"partition=rows"});
  for (const Matrix* large : {&four, &two}) {
    const SpmvPlan<double> direct(*large, Method("csr_overlap"), rows_partition);
    EXPECT_EQ(direct.stats().details["batch_unit"], "warp");
    EXPECT_EQ(direct.stats().details["copy"], "direct");
    EXPECT_EQ(direct.stats().details["max_batch_size"], csr_overlap::kWarpDefaultMaxBatchSize);
    EXPECT_EQ(direct.stats().details["max_batch_rows"], csr_overlap::kDirectDefaultMaxBatchRows);
  }
  // with the cp.async copies asked for: warps from 4 nonzeros a row on, as before direct reads
  const SpmvPlan<double> staged(four, Method("csr_overlap"), options_of({"copy=cp_async"}));
  EXPECT_EQ(staged.stats().details["batch_unit"], "warp");
  EXPECT_EQ(staged.stats().details["copy"], "cp_async");
  EXPECT_EQ(staged.stats().details["max_batch_rows"], csr_overlap::kWarpDefaultMaxBatchRows);
  const SpmvPlan<double> staged_two(two, Method("csr_overlap"), options_of({"copy=cp_async"}));
  EXPECT_EQ(staged_two.stats().details["batch_unit"], "block");
  const SpmvPlan<double> blocks(shorter, Method("csr_overlap"), rows_partition);
  EXPECT_EQ(blocks.stats().details["batch_unit"], "block");
  EXPECT_EQ(blocks.stats().details["copy"], "cp_async");
  EXPECT_EQ(blocks.stats().details["max_batch_size"], 1024);
  const SpmvPlan<double> small_blocks(small, Method("csr_overlap"), rows_partition);
  EXPECT_EQ(small_blocks.stats().details["batch_unit"], "block");
  // the bulk copy has blocks only; explicit choices stay
  const SpmvPlan<double> chosen(four, Method("csr_overlap"), options_of({"batch_unit=block"}));
  EXPECT_EQ(chosen.stats().details["batch_unit"], "block");
  if (gpu_has_bulk_copy()) {
    const SpmvPlan<double> bulk(four, Method("csr_overlap"), options_of({"copy=bulk"}));
    EXPECT_EQ(bulk.stats().details["batch_unit"], "block");
  }
  // products of 4 bytes (fp32, and fp16 / bf16 with fp32 products) on rows of 4 to 64: batches
  // of twice the size (csr_overlap::kDirectWideMaxBatchSize); rows of 2 keep 512
  const auto four32 = test::with_values<float>(four);
  const SpmvPlan<float> wide(four32, Method("csr_overlap"), rows_partition);
  EXPECT_EQ(wide.stats().details["copy"], "direct");
  EXPECT_EQ(wide.stats().details["max_batch_size"], csr_overlap::kDirectWideMaxBatchSize);
  EXPECT_EQ(wide.stats().details["max_batch_rows"], csr_overlap::kDirectWideMaxBatchRows);
  const SpmvPlan<half> wide16(test::with_values<half>(four), Method("csr_overlap"),
                              rows_partition);
  EXPECT_EQ(wide16.stats().details["max_batch_size"], csr_overlap::kDirectWideMaxBatchSize);
  const SpmvPlan<float> narrow(test::with_values<float>(two), Method("csr_overlap"),
                              rows_partition);
  EXPECT_EQ(narrow.stats().details["max_batch_size"], csr_overlap::kWarpDefaultMaxBatchSize);
  expect_matches_reference<double>(four, rows_partition);
  expect_matches_reference<float>(four, rows_partition);
  expect_matches_reference<bfloat16>(four, rows_partition);
  expect_matches_reference<float>(two, rows_partition);
  expect_matches_reference<half>(shorter, rows_partition);
}

// ---- plans from a DeviceCsrView: borrowed or copied (device_csr) ------------------------------

/// The caller's CSR on the device in arrays of exactly nnz elements (no padding: a copy that
/// rounds up to 16 elements would read past them, which compute-sanitizer memcheck reports),
/// placed `offset` elements into their allocations (1: not 16-byte aligned).
template <typename Value>
struct CallerDeviceCsr {
  std::int64_t rows, cols, nnz, offset;
  DeviceBuffer<std::int32_t> row_ptr, col_idx;
  DeviceBuffer<Value> values;

  CallerDeviceCsr(const CsrMatrix<Value, std::int32_t>& a, std::int64_t offset_elements = 0)
      : rows(a.rows), cols(a.cols), nnz(a.nnz()), offset(offset_elements), row_ptr(a.row_ptr),
        col_idx(static_cast<std::size_t>(nnz + offset)),
        values(static_cast<std::size_t>(nnz + offset)) {
    EXPECT_EQ(cudaMemcpy(col_idx.data() + offset, a.col_idx.data(),
                         a.col_idx.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice),
              cudaSuccess);
    write_values(a.values);
  }
  /// The caller changes its values in place (synchronous).
  void write_values(const std::vector<Value>& new_values) {
    EXPECT_EQ(cudaMemcpy(values.data() + offset, new_values.data(),
                         new_values.size() * sizeof(Value), cudaMemcpyHostToDevice),
              cudaSuccess);
  }
  DeviceCsrView<Value> view() const {
    return {rows, cols, nnz, row_ptr.data(), col_idx.data() + offset, values.data() + offset};
  }
};

/// y of one apply (alpha 1.5, beta -0.5) against the reference of `a`, below the tolerance.
template <typename Value>
void expect_plan_computes(const SpmvPlan<Value>& plan, const CsrMatrix<Value, std::int32_t>& a,
                          const Matrix& scaled, const std::string& what) {
  const Scalars s{1.5, -0.5};
  const auto x = test::make_x<Value>(scaled);
  const auto y0 = test::make_y<Value>(scaled);
  std::vector<double> reference = test::to_double_vector(y0);
  spmv_reference(a, std::span<const Value>(x), std::span<double>(reference), s.alpha, s.beta);
  const auto y = run_spmv(plan, x, y0, s);
  EXPECT_LT(relative_error(std::span<const Value>(y), std::span<const double>(reference)),
            test::tolerance<Value>())
      << what;
}

/// Rows whose nonzeros add up to no multiple of 16 (the last batch ends inside a 16-element
/// piece), with a long row, short rows, empty rows.
Matrix unpadded_matrix() {
  const Matrix a = test::with_row_lengths(3000, {1, 0, 7, 2500, 3, 33, 0, 5, 17, 1, 1, 2}, 5);
  EXPECT_NE(a.nnz() % 16, 0);
  return a;
}

template <typename Value>
void expect_borrowed_plan_reads_the_callers_arrays(const std::vector<std::string>& parameters) {
  const Matrix scaled = std::is_same_v<Value, double> ? unpadded_matrix()
                                                      : test::scaled_for_16_bit(unpadded_matrix());
  const auto a = test::with_values<Value>(scaled);
  CallerDeviceCsr<Value> caller(a);
  const SpmvPlan<Value> plan(caller.view(), Method("csr_overlap"), options_of(parameters));
  const std::string what = "borrowed, " + describe(options_of(parameters));
  EXPECT_EQ(plan.stats().details["device_csr"], "borrowed") << what;
  EXPECT_EQ(plan.stats().upload_ms, 0.0) << what;
  EXPECT_LT(plan.stats().device_bytes, a.nnz() * (sizeof(Value) + sizeof(std::int32_t))) << what;
  expect_plan_computes(plan, a, scaled, what);
  // the caller writes new values in place: the next apply multiplies by them
  Matrix rescaled = scaled;
  for (double& v : rescaled.values) v = -0.5 * v;
  const auto b = test::with_values<Value>(rescaled);
  caller.write_values(b.values);
  expect_plan_computes(plan, b, rescaled, what + ", values changed in place");
}

TEST_F(CsrOverlapGpu, APlanFromDeviceCsrBorrowsTheCallersArraysInEveryPrecision) {
  expect_borrowed_plan_reads_the_callers_arrays<double>({});
  expect_borrowed_plan_reads_the_callers_arrays<float>({});
  expect_borrowed_plan_reads_the_callers_arrays<half>({});
  expect_borrowed_plan_reads_the_callers_arrays<bfloat16>({});
}

TEST_F(CsrOverlapGpu, BorrowedArraysWithEveryStressParameterSetMatchReference) {
  std::vector<std::vector<std::string>> sets = kStressParameters;
  for (auto& direct : direct_stress_parameters()) sets.push_back(std::move(direct));
  for (const auto& parameters : sets) {
    std::vector<std::string> borrowing = parameters;
    borrowing.push_back("device_csr=borrow");
    expect_borrowed_plan_reads_the_callers_arrays<double>(borrowing);
    expect_borrowed_plan_reads_the_callers_arrays<half>(borrowing);
  }
}

TEST_F(CsrOverlapGpu, ABorrowingPlanRefusesUpdateValuesNamingTheWayOut) {
  const auto a = test::with_values<double>(unpadded_matrix());
  const CallerDeviceCsr<double> caller(a);
  SpmvPlan<double> plan(caller.view(), Method("csr_overlap"));
  EXPECT_FALSE(plan.can_update_values());
  try {
    plan.update_values(caller.values.data(), nullptr);
    ADD_FAILURE() << "update_values did not throw";
  } catch (const UnsupportedError& error) {
    EXPECT_NE(std::string(error.what()).find("device_csr=copy"), std::string::npos) << error.what();
  }
}

TEST_F(CsrOverlapGpu, ACopyingPlanIsIndependentOfTheCallersArrays) {
  const Matrix scaled = unpadded_matrix();
  const auto a = test::with_values<double>(scaled);
  CallerDeviceCsr<double> caller(a);
  SpmvPlan<double> plan(caller.view(), Method("csr_overlap"), options_of({"device_csr=copy"}));
  EXPECT_EQ(plan.stats().details["device_csr"], "owned");
  EXPECT_TRUE(plan.can_update_values());
  caller.write_values(std::vector<double>(a.values.size(), std::nan("")));
  expect_plan_computes(plan, a, scaled, "copied, the caller's values overwritten with NaN");
}

TEST_F(CsrOverlapGpu, MisalignedDeviceArraysAreCopiedOrRefusedToBorrow) {
  const Matrix scaled = unpadded_matrix();
  const auto a = test::with_values<double>(scaled);
  const CallerDeviceCsr<double> caller(a, 1);  // 8 bytes past a 256-byte boundary
  const SpmvPlan<double> automatic(caller.view(), Method("csr_overlap"));
  EXPECT_EQ(automatic.stats().details["device_csr"], "owned");
  expect_plan_computes(automatic, a, scaled, "misaligned arrays, device_csr=auto");
  try {
    const SpmvPlan<double> borrowing(caller.view(), Method("csr_overlap"),
                                     options_of({"device_csr=borrow"}));
    ADD_FAILURE() << "device_csr=borrow of misaligned arrays did not throw";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("16-byte aligned"), std::string::npos) << error.what();
  }
}

TEST_F(CsrOverlapGpu, DirectReadsBorrowMisalignedDeviceArrays) {
  // copy=direct reads exactly nnz elements with plain loads, so no alignment is asked for
  const Matrix scaled = unpadded_matrix();
  const auto a = test::with_values<double>(scaled);
  const CallerDeviceCsr<double> caller(a, 1);  // 8 bytes past a 256-byte boundary
  for (const char* use : {"device_csr=auto", "device_csr=borrow"}) {
    const SpmvPlan<double> plan(caller.view(), Method("csr_overlap"),
                                options_of({"copy=direct", use}));
    EXPECT_EQ(plan.stats().details["device_csr"], "borrowed") << use;
    expect_plan_computes(plan, a, scaled, std::string("copy=direct, misaligned, ") + use);
  }
  expect_borrowed_plan_reads_the_callers_arrays<float>({"copy=direct"});
  expect_borrowed_plan_reads_the_callers_arrays<bfloat16>({"copy=direct"});
}

TEST_F(CsrOverlapGpu, BulkCopyPlansFromDeviceCsrCopyTheArrays) {
  SKIP_WITHOUT_BULK_COPY();
  const Matrix scaled = unpadded_matrix();
  const auto a = test::with_values<double>(scaled);
  const CallerDeviceCsr<double> caller(a);
  const SpmvPlan<double> plan(caller.view(), Method("csr_overlap"), options_of({"copy=bulk"}));
  EXPECT_EQ(plan.stats().details["device_csr"], "owned");
  expect_plan_computes(plan, a, scaled, "copy=bulk from device CSR");
  EXPECT_THROW(SpmvPlan<double>(caller.view(), Method("csr_overlap"),
                                options_of({"copy=bulk", "device_csr=borrow"})),
               ParameterError);
}

/// Long rows of 600 + 37 k nonzeros after short rows of 1 + k % 8: rows and their pieces start at
/// every offset from a 16-byte boundary.
Matrix long_rows_at_every_chunk_offset() {
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < 24; ++k) {
    lengths.push_back(1 + k % 8);
    lengths.push_back(600 + 37 * k);
  }
  return test::with_row_lengths(5000, lengths, 17);
}

TEST_F(CsrOverlapGpu, LongRowPiecesStartingAtEveryChunkOffsetMatchReferenceInEveryPrecision) {
  // rows and their pieces of 256-511 starting at every offset from a 16-byte boundary: each
  // thread's head, chunks and tail (device::dot_from_global_in_chunks)
  const Matrix a = long_rows_at_every_chunk_offset();
  for (const char* piece : {"long_row_piece=256", "long_row_piece=8192"})
    expect_every_precision_matches_reference(
        a, options_of({"partition=rows", "max_batch_size=32", piece}));
  const auto chunk = [](const auto& plan) {
    return plan.stats().details["long_row_chunk"].template get<std::int64_t>();
  };
  // fp64 reads a nonzero at a time (device::kLongRowChunk)
  const PlanOptions rows = options_of({"partition=rows"});
  EXPECT_EQ(chunk(SpmvPlan<double>(test::with_values<double>(a), Method("csr_overlap"), rows)), 1);
  EXPECT_EQ(chunk(SpmvPlan<float>(test::with_values<float>(a), Method("csr_overlap"), rows)), 4);
  EXPECT_EQ(chunk(SpmvPlan<half>(test::with_values<half>(a), Method("csr_overlap"), rows)), 8);
  EXPECT_EQ(chunk(SpmvPlan<bfloat16>(test::with_values<bfloat16>(a), Method("csr_overlap"), rows)),
            8);
}

TEST_F(CsrOverlapGpu, LongRowBlocksOfEverySizeMatchReferenceInEveryPrecision) {
  // a piece of 256-511 nonzeros over a block of one warp up to 1024 threads (most of them idle)
  const Matrix a = long_rows_at_every_chunk_offset();
  for (const char* threads : {"32", "64", "128", "256", "1024"})
    expect_every_precision_matches_reference(
        a, options_of({"partition=rows", "max_batch_size=32", "long_row_piece=256",
                       std::string("long_row_threads=") + threads}));
}

TEST_F(CsrOverlapGpu, LongRowBlocksAreSixtyFourThreadsForSixteenBitValuesByDefault) {
  const Matrix a = long_rows_at_every_chunk_offset();
  const auto threads = [](const auto& plan) {
    return plan.stats().details["long_row_threads"].template get<int>();
  };
  const PlanOptions rows = options_of({"partition=rows"});
  EXPECT_EQ(threads(SpmvPlan<half>(test::with_values<half>(a), Method("csr_overlap"), rows)), 64);
  EXPECT_EQ(
      threads(SpmvPlan<bfloat16>(test::with_values<bfloat16>(a), Method("csr_overlap"), rows)),
      64);
  EXPECT_EQ(threads(SpmvPlan<float>(test::with_values<float>(a), Method("csr_overlap"), rows)),
            128);
  EXPECT_EQ(threads(SpmvPlan<double>(test::with_values<double>(a), Method("csr_overlap"), rows)),
            128);
  const PlanOptions given = options_of({"long_row_threads=256"});
  EXPECT_EQ(threads(SpmvPlan<half>(test::with_values<half>(a), Method("csr_overlap"), given)),
            256);
}

TEST_F(CsrOverlapGpu, OneWarpLongRowBlocksRepeatBitwiseAndCaptureIntoAGraph) {
  const Matrix a64 = long_rows_at_every_chunk_offset();
  const Matrix scaled = test::scaled_for_16_bit(a64);
  const auto a = test::with_values<half>(scaled);
  const SpmvPlan<half> plan(a, Method("csr_overlap"),
                            options_of({"long_row_threads=32", "long_row_piece=256"}));
  const auto x = test::make_x<half>(scaled);
  const auto y0 = test::make_y<half>(scaled);
  const std::vector<half> direct = run_spmv(plan, x, y0, {1.0, 0.0});
  const std::vector<half> captured = testing::run_spmv_in_graph(plan, x, y0, {1.0, 0.0}, 3);
  ASSERT_EQ(captured.size(), direct.size());
  EXPECT_EQ(std::memcmp(captured.data(), direct.data(), direct.size() * sizeof(half)), 0);
  std::vector<double> reference(direct.size(), 0.0);
  spmv_reference(a, std::span<const half>(x), std::span<double>(reference), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const half>(direct), std::span<const double>(reference)),
            test::tolerance<half>());
}

TEST_F(CsrOverlapGpu, LongRowsOfBorrowedMisalignedArraysAreReadANonzeroAtATime) {
  const Matrix scaled = test::scaled_for_16_bit(unpadded_matrix());  // a row of 2500
  const auto a = test::with_values<float>(scaled);
  const PlanOptions options =
      options_of({"copy=direct", "partition=rows", "device_csr=borrow", "long_row_piece=256"});
  const CallerDeviceCsr<float> misaligned(a, 1);  // 4 bytes past a 256-byte boundary
  const SpmvPlan<float> plan(misaligned.view(), Method("csr_overlap"), options);
  EXPECT_EQ(plan.stats().details["long_row_chunk"], 1);
  expect_plan_computes(plan, a, scaled, "long rows of misaligned borrowed arrays");
  const CallerDeviceCsr<float> aligned(a, 4);  // 16 bytes past
  const SpmvPlan<float> chunked(aligned.view(), Method("csr_overlap"), options);
  EXPECT_EQ(chunked.stats().details["long_row_chunk"], 4);
  expect_plan_computes(chunked, a, scaled, "long rows of 16-byte aligned borrowed arrays");
}

TEST_F(CsrOverlapGpu, AutoTakesMergeTilesWhereAFewRowsAreLongFromHostAndDeviceCsr) {
  const Matrix few_long = merge_stress_matrix();  // one long row in 4000
  const Matrix none_long = test::with_row_lengths(5000, std::vector<std::int64_t>(4000, 9), 13);
  const Matrix all_long = test::with_row_lengths(5000, std::vector<std::int64_t>(40, 2000), 14);
  const auto expect_partition = [](const Matrix& m, const char* partition) {
    const auto a = test::with_values<double>(m);
    const SpmvPlan<double> from_host(a, Method("csr_overlap"));
    EXPECT_EQ(from_host.stats().details["partition"], partition);
    EXPECT_EQ(from_host.stats().details["partition"],
              layout_statistics(Method("csr_overlap"), m)["partition"]);
    expect_plan_computes(from_host, a, m, partition);
    const CallerDeviceCsr<double> caller(a);
    const SpmvPlan<double> from_device(caller.view(), Method("csr_overlap"));
    EXPECT_EQ(from_device.stats().details["partition"], partition);
    expect_plan_computes(from_device, a, m, std::string(partition) + " from device CSR");
  };
  expect_partition(few_long, "merge_path");
  expect_partition(none_long, "rows");
  expect_partition(all_long, "rows");
  // a parameter of the rows partition keeps the rows partition
  const auto a = test::with_values<double>(few_long);
  EXPECT_EQ(SpmvPlan<double>(a, Method("csr_overlap"), options_of({"batch_unit=warp"}))
                .stats()
                .details["partition"],
            "rows");
}

/// For row vectors: every length a vector meets (empty rows, rows shorter than a vector, rows
/// of 32 and 64), one row of 60 000 among them (its warp loops over it while the warp's other
/// rows wait), and a row count that leaves the last block and warp part empty.
Matrix row_vector_stress_matrix() {
  std::vector<std::int64_t> lengths;
  for (int i = 0; i < 5003; ++i) lengths.push_back(i % 70);
  lengths[777] = 60000;
  lengths[1000] = 32;
  lengths[1001] = 64;
  return test::with_row_lengths(90000, lengths, 21);
}

TEST_F(CsrOverlapGpu, RowVectorsMatchReferenceRepeatBitwiseAndCaptureIntoAGraph) {
  const Matrix a64 = row_vector_stress_matrix();
  const auto a = test::with_values<double>(a64);
  const auto x = test::make_x<double>(a64);
  const auto y0 = test::make_y<double>(a64);
  std::vector<double> reference = y0;
  spmv_reference(a, std::span<const double>(x), std::span<double>(reference), 2.0, -1.0);
  for (const auto& shape : every_row_vector_shape()) {
    const PlanOptions options = options_of(shape);
    SCOPED_TRACE(describe(options));
    const SpmvPlan<double> plan(a, Method("csr_overlap"), options);
    EXPECT_EQ(plan.stats().details["partition"], "row_vectors");
    const std::vector<double> first = run_spmv(plan, x, y0, {2.0, -1.0});
    EXPECT_LT(relative_error(std::span<const double>(first), std::span<const double>(reference)),
              1e-12);
    const std::vector<double> again = run_spmv(plan, x, y0, {2.0, -1.0});
    EXPECT_EQ(std::memcmp(again.data(), first.data(), first.size() * sizeof(double)), 0);
    const std::vector<double> captured = testing::run_spmv_in_graph(plan, x, y0, {2.0, -1.0});
    EXPECT_EQ(std::memcmp(captured.data(), first.data(), first.size() * sizeof(double)), 0);
  }
  expect_matches_reference<float>(a64, options_of({"partition=row_vectors"}));
  expect_matches_reference<half>(a64, options_of({"partition=row_vectors", "row_vector_size=1"}));
  expect_matches_reference<bfloat16>(a64, options_of({"partition=row_vectors"}));
}

/// A plan of `a64` (fp32) with `partition` takes new values by update_values.
void expect_plan_takes_new_values(const Matrix& a64, const std::string& partition) {
  const auto a = test::with_values<float>(a64);
  SpmvPlan<float> plan(a, Method("csr_overlap"), options_of({"partition=" + partition}));
  Matrix rescaled = a64;
  for (double& v : rescaled.values) v = 0.25 - v;
  const auto b = test::with_values<float>(rescaled);
  DeviceBuffer<float> new_values(b.values.size());
  ASSERT_EQ(cudaMemcpy(new_values.data(), b.values.data(), b.values.size() * sizeof(float),
                       cudaMemcpyHostToDevice),
            cudaSuccess);
  plan.update_values(new_values.data(), nullptr);
  expect_plan_computes(plan, b, rescaled, partition + ", new values");
}

TEST_F(CsrOverlapGpu, RowVectorsTakeNewValuesAndBorrowTheCallersArrays) {
  const Matrix a64 = row_vector_stress_matrix();
  const auto a = test::with_values<float>(a64);
  expect_plan_takes_new_values(a64, "row_vectors");
  // plain loads of exactly nnz elements: misaligned arrays are borrowed as they are
  for (const std::int64_t offset : {0, 1}) {
    const CallerDeviceCsr<float> caller(a, offset);
    const SpmvPlan<float> borrowed(caller.view(), Method("csr_overlap"),
                                   options_of({"partition=row_vectors", "device_csr=borrow"}));
    EXPECT_EQ(borrowed.stats().details["device_csr"], "borrowed");
    expect_plan_computes(borrowed, a, a64,
                         "row vectors borrowing, offset " + std::to_string(offset));
  }
}

TEST_F(CsrOverlapGpu, AutoTakesRowVectorsForEvenRowsOfAMillionNonzerosFromHostAndDeviceCsr) {
  // (merge tiles where their columns are scattered)
  // rows of 9-11 (longest / mean 1.1) and rows of 1-2 with every 64th of 12 (12 / 1.66 ~ 7):
  // 2^20 nonzeros or more; the same even rows one nonzero short of 2^20
  const std::int64_t rows = std::int64_t{1} << 17;
  std::vector<std::int64_t> even(rows), skewed(5 * rows), short_of;
  for (std::int64_t r = 0; r < rows; ++r) even[r] = 9 + r % 3;
  for (std::int64_t r = 0; r < 5 * rows; ++r) skewed[r] = r % 64 == 0 ? 12 : 1 + r % 2;
  const Matrix even_rows = test::with_row_lengths(300000, even, 31);
  ASSERT_GE(even_rows.nnz(), csr_overlap::kRowVectorsMinNonzeros);
  for (std::int64_t total = 0, r = 0; total < csr_overlap::kRowVectorsMinNonzeros - 1; ++r) {
    short_of.push_back(std::min(even[r], csr_overlap::kRowVectorsMinNonzeros - 1 - total));
    total += short_of.back();
  }
  const Matrix fewer = test::with_row_lengths(300000, short_of, 32);
  ASSERT_EQ(fewer.nnz(), csr_overlap::kRowVectorsMinNonzeros - 1);
  const Matrix uneven = test::with_row_lengths(300000, skewed, 33);
  ASSERT_GE(uneven.nnz(), csr_overlap::kRowVectorsMinNonzeros);
  const auto expect_partition = [](const Matrix& m, const char* partition) {
    const auto a = test::with_values<float>(m);
    const SpmvPlan<float> from_host(a, Method("csr_overlap"));
    EXPECT_EQ(from_host.stats().details["partition"], partition);
    EXPECT_EQ(layout_statistics(Method("csr_overlap"), m)["partition"], partition);
    expect_plan_computes(from_host, a, m, partition);
    const CallerDeviceCsr<float> caller(a);
    const SpmvPlan<float> from_device(caller.view(), Method("csr_overlap"));
    EXPECT_EQ(from_device.stats().details["partition"], partition);
    expect_plan_computes(from_device, a, m, std::string(partition) + " from device CSR");
    return from_device.stats().details;
  };
  // random columns, rows of 9-11: scattered, so merge tiles (scattered_rows_suit_merge_tiles);
  // the samples counted on the GPU as on the host
  const Json details = expect_partition(even_rows, "merge_path");
  const csr_overlap::ColumnLocality locality =
      csr_overlap::column_locality(even_rows.row_ptr, even_rows.col_idx);
  EXPECT_EQ(details["locality_samples"].get<std::int64_t>(), locality.samples);
  EXPECT_EQ(details["near_samples"].get<std::int64_t>(), locality.near);
  EXPECT_TRUE(details["scattered_columns"].get<bool>());
  // a band: near columns, row vectors of the table's shape
  const Matrix band = generate_banded(100000, 5, 34);
  ASSERT_GE(band.nnz(), csr_overlap::kRowVectorsMinNonzeros);
  const Json band_details = expect_partition(band, "row_vectors");
  EXPECT_EQ(band_details["longest_row"].get<std::int64_t>(), 11);
  EXPECT_FALSE(band_details["scattered_columns"].get<bool>());
  EXPECT_EQ(band_details["near_samples"].get<std::int64_t>(),
            band_details["locality_samples"].get<std::int64_t>());
  EXPECT_EQ(band_details["locality_samples"].get<std::int64_t>(),
            csr_overlap::column_locality(band.row_ptr, band.col_idx).samples);
  EXPECT_EQ(band_details["row_vector_size"].get<std::int32_t>(),
            csr_overlap::parse_parameters({})
                .row_vector_shape(band.rows, band.nnz(), sizeof(float))
                .vector_size);
  EXPECT_EQ(band_details["row_vector_rows"].get<std::int32_t>(),
            csr_overlap::parse_parameters({})
                .row_vector_shape(band.rows, band.nnz(), sizeof(float))
                .rows);
  expect_partition(fewer, "rows");
  expect_partition(uneven, "rows");
  // a parameter of the rows partition keeps the rows partition; the row vectors' own do not
  const auto a = test::with_values<double>(even_rows);
  EXPECT_EQ(SpmvPlan<double>(a, Method("csr_overlap"), options_of({"batch_unit=warp"}))
                .stats()
                .details["partition"],
            "rows");
  const auto banded = test::with_values<double>(band);
  const SpmvPlan<double> sized(banded, Method("csr_overlap"), options_of({"row_vector_size=32"}));
  EXPECT_EQ(sized.stats().details["partition"], "row_vectors");
  EXPECT_EQ(sized.stats().details["row_vector_size"].get<std::int32_t>(), 32);
  expect_plan_computes(sized, banded, band, "auto, row_vector_size=32");
  // and where auto takes merge tiles (scattered columns) they are not used
  EXPECT_EQ(SpmvPlan<double>(a, Method("csr_overlap"), options_of({"row_vector_size=32"}))
                .stats()
                .details["partition"],
            "merge_path");
}

TEST_F(CsrOverlapGpu, MergeTilesTakeNewValues) {
  expect_plan_takes_new_values(merge_stress_matrix(), "merge_path");
}

}  // namespace
}  // namespace tcsparse
