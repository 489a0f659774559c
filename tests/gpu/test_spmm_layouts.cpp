// SpMM layouts and output types, for every SpMM method: B and C row-major and column-major, C in
// the input type and (16-bit inputs) in fp32, n = 1, 7, 8, 65, 256, rows of every TCA row class
// (0, 1, 8, 9, 64, 65 and thousands of nonzeros) and an all-empty matrix, alpha/beta including
// beta = 0 on a NaN-poisoned C. A method that cannot do a combination must refuse it with
// UnsupportedError when the plan is built (and then it is not checked further).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "gpu/gpu_test.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/method.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/reference.hpp"
#include "tca/tca.hpp"
#include "tca/tca_parameters.hpp"
#include "tca/tca_tiles_format.hpp"

namespace tcsparse {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;

/// DESIGN.md: fp16 / bf16 inputs with fp32 accumulation below 1e-2; fp32 1e-5; fp64 1e-12.
/// cuSPARSE's own 16-bit default algorithm is looser on long rows (test_conformance.cpp).
double tolerance(Method method, Precision precision) {
  if (precision == Precision::fp64) return 1e-12;
  if (precision == Precision::fp32) return 1e-5;
  return method == Method("cusparse") ? 0.25 : 1e-2;
}

std::vector<test::NamedMatrix> layout_matrices() {
  return {{"every_tca_class", test::scaled_for_16_bit(test::with_row_lengths(
                                  4000, {0, 1, 8, 9, 64, 65, 3000, 16, 17, 32, 33, 128, 0, 5}, 3))},
          {"all_empty", test::with_row_lengths(50, std::vector<std::int64_t>(20, 0), 1)},
          {"one_column", test::with_row_lengths(1, {1, 0, 1, 1}, 2)}};
}

/// Runs one product; Output is Value or float. Returns false when the method refused the layout.
template <typename Value, typename Output>
bool check(Method method, const test::NamedMatrix& named, std::int64_t n, DenseLayout dense,
           test::Scalars scalars, const PlanOptions& options = {}) {
  const auto A = test::with_values<Value>(named.matrix);
  const std::int64_t rows = A.rows, cols = A.cols;
  SpmmLayout layout;
  layout.dense = dense;
  layout.output = std::is_same_v<Output, Value> ? SpmmOutput::input_type : SpmmOutput::fp32;
  std::unique_ptr<SpmmPlan<Value>> plan;
  try {
    plan = std::make_unique<SpmmPlan<Value>>(A, n, method, options, layout);
  } catch (const UnsupportedError& error) {
    const std::string message = error.what();
    EXPECT_FALSE(message.empty());
    return false;
  }
  const auto B_row_major = test::make_b<Value>(named.matrix, n);
  std::vector<Output> C_row_major =
      scalars.beta == 0.0
          ? std::vector<Output>(rows * n, from_double<Output>(std::numeric_limits<double>::quiet_NaN()))
          : test::make_y<Output>(named.matrix, n);
  std::vector<double> expected = test::to_double_vector(C_row_major);
  spmm_reference(A, std::span<const Value>(B_row_major), n, std::span<double>(expected),
                 scalars.alpha, scalars.beta);
  const bool column_major = dense == DenseLayout::column_major;
  detail::DeviceBuffer<Value> d_B(column_major ? test::transposed(B_row_major, cols, n)
                                               : B_row_major);
  detail::DeviceBuffer<Output> d_C(column_major ? test::transposed(C_row_major, rows, n)
                                                : C_row_major);
  if constexpr (std::is_same_v<Output, Value>)
    plan->apply(d_B.data(), d_C.data(), static_cast<scalar_t<Value>>(scalars.alpha),
                static_cast<scalar_t<Value>>(scalars.beta), nullptr);
  else
    plan->apply_fp32_output(d_B.data(), d_C.data(), static_cast<float>(scalars.alpha),
                            static_cast<float>(scalars.beta), nullptr);
  std::vector<Output> C = d_C.download();
  if (column_major) C = test::transposed(C, n, rows);
  const double error = relative_error(std::span<const Output>(C), std::span<const double>(expected));
  EXPECT_LT(error, tolerance(plan->method(), precision_of<Value>()))  // auto: what it chose
      << method.name() << " (" << plan->method().name() << ") " << named.name << " "
      << plan->stats().details.value("kernel", std::string()) << " " << " n=" << n << " " << describe(layout, precision_of<Value>())
      << " alpha=" << scalars.alpha << " beta=" << scalars.beta;
  return true;
}

template <typename Value>
void check_every_method() {
  for (const Method method : methods()) {
    if (!method.supports(Operation::spmm, precision_of<Value>())) continue;
    for (const test::NamedMatrix& named : layout_matrices())
      for (const std::int64_t n : {1, 7, 8, 65, 256})
        for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
          for (const test::Scalars scalars : test::kScalarCases) {
            check<Value, Value>(method, named, n, dense, scalars);
            if constexpr (sizeof(Value) == 2) check<Value, float>(method, named, n, dense, scalars);
          }
  }
}

class SpmmLayouts : public testing::GpuTest {};

/// Matrices whose 16 x 16 tiles are dense enough for kernel=tiles, rows not a multiple of 16 nor
/// row blocks of 8, columns not of a 256-column segment. At 70 % density a segment of a row
/// block holds about 2,900 entries: more than one round of loads at every width.
std::vector<test::NamedMatrix> tile_matrices() {
  return {{"llm_300x1000_s0.70", test::scaled_for_16_bit(generate_llm_weights(
                                      300, 1000, 0.7, LlmRowProfile::uniform, 5))},
          {"llm_100x3000_s0.95_skewed", test::scaled_for_16_bit(generate_llm_weights(
                                             100, 3000, 0.95, LlmRowProfile::skewed, 6))},
          {"llm_40x700_s0.30", test::scaled_for_16_bit(generate_llm_weights(
                                   40, 700, 0.3, LlmRowProfile::uniform, 8))}};
}

/// 120 nonzeros a row over 60 000 columns: about one nonzero a stored 16 x 16 tile (and few
/// enough columns for 16-bit indices).
test::NamedMatrix scattered_matrix() {
  return {"llm_64x60000_s0.998", test::scaled_for_16_bit(generate_llm_weights(
                                     64, 60000, 0.998, LlmRowProfile::uniform, 7))};
}

/// tca's kernels with their parameter sets (gather: automatic chunks, chunks of 64 and 512
/// columns (a range's blocks summed in a cluster on sm_90 where they are at most 8, as on the
/// 4000-column matrix, else through global memory, as on the 60000-column one) and 512 through
/// global memory, without the dependent launch, slices of 8 and 64 columns whatever n, B staged
/// by the threads' copies (the default: tensor copies where they fit), chunks of 600 columns
/// (a last box overlapping the one before at n = 64, copies at n = 32: 300 lines); rows: both index widths; tiles: split-K chunks of
/// one segment, automatic, 3 segments (an odd count, the last chunk shorter), 8 segments, and
/// one chunk of all segments: 235 on the scattered matrix, past a warp's window of 32 segment
/// offsets; chunks of one segment summed in clusters (sm_90, up to 8 chunks; more go through
/// global memory) and every chunking through global memory; without the dependent launch;
/// slices of 8 and of 64 columns whatever n (n = 65 in 9 slices of 8, n = 1 in one of 64); the
/// layout built on the host and on the GPU whatever the size), every layout and output, the
/// decode widths around the rows kernel's 16-column tiles, its 8-column vector loads and the
/// tiles kernel's 8/16/32/64-column slices.
template <typename Value>
void check_every_tca_kernel() {
  const std::vector<std::vector<std::string>> parameter_sets = {
      {"kernel=paper"},
      {"kernel=rows", "column_index_bits=16"},
      {"kernel=rows", "column_index_bits=32"},
      {"kernel=tiles"},
      {"kernel=tiles", "chunk_columns=16"},
      {"kernel=tiles", "chunk_columns=768"},
      {"kernel=tiles", "chunk_columns=2048"},
      {"kernel=tiles", "chunk_columns=1000000"},
      {"kernel=tiles", "chunk_columns=256", "split_k=cluster"},
      {"kernel=tiles", "split_k=global"},
      {"kernel=tiles", "dependent_launch=off"},
      {"kernel=tiles", "slice_columns=8"},
      {"kernel=tiles", "slice_columns=64"},
      {"kernel=tiles", "build=host"},
      {"kernel=tiles", "build=device"},
      {"kernel=gather"},
      {"kernel=gather", "chunk_columns=64"},
      {"kernel=gather", "chunk_columns=512"},
      {"kernel=gather", "chunk_columns=512", "split_k=global"},
      {"kernel=gather", "dependent_launch=off"},
      {"kernel=gather", "slice_columns=8"},
      {"kernel=gather", "slice_columns=64"},
      {"kernel=gather", "stage_b=copies"},
      {"kernel=gather", "chunk_columns=600"}};
  std::vector<test::NamedMatrix> matrices = layout_matrices();
  for (test::NamedMatrix& named : tile_matrices()) matrices.push_back(std::move(named));
  matrices.push_back(scattered_matrix());
  for (const std::vector<std::string>& parameters : parameter_sets) {
    PlanOptions options;
    options.parameters = parameters;
    SCOPED_TRACE(options.parameters.back());
    for (const test::NamedMatrix& named : matrices)
      for (const std::int64_t n : {1, 7, 8, 16, 24, 65})
        for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
          for (const test::Scalars scalars : test::kScalarCases) {
            EXPECT_TRUE((check<Value, Value>(Method("tca"), named, n, dense, scalars, options)));
            EXPECT_TRUE((check<Value, float>(Method("tca"), named, n, dense, scalars, options)));
          }
  }
}

TEST_F(SpmmLayouts, Fp16MatchesTheReferenceInEveryLayoutAndOutputType) { check_every_method<half>(); }
TEST_F(SpmmLayouts, Bf16MatchesTheReferenceInEveryLayoutAndOutputType) {
  check_every_method<bfloat16>();
}
TEST_F(SpmmLayouts, Fp32MatchesTheReferenceInEveryLayout) { check_every_method<float>(); }
TEST_F(SpmmLayouts, Fp64MatchesTheReferenceInEveryLayout) { check_every_method<double>(); }

TEST_F(SpmmLayouts, CusparseCublasDenseAndTcaDoBothLayoutsAndFp32Output) {
  const auto named = layout_matrices()[0];
  for (const char* name : {"cusparse", "cublas_dense", "tca"})
    for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major}) {
      EXPECT_TRUE((check<half, half>(Method(name), named, 65, dense, {1.0, 0.0}))) << name;
      EXPECT_TRUE((check<half, float>(Method(name), named, 65, dense, {1.5, -0.5}))) << name;
    }
}

TEST_F(SpmmLayouts, TcaKernelsMatchTheReferenceWithEachOfTheirParameters) {
  check_every_tca_kernel<half>();
  check_every_tca_kernel<bfloat16>();
}

TEST_F(SpmmLayouts, TcaStatsNameTheKernelAndTheIndexWidth) {
  const auto A = test::with_values<half>(scattered_matrix().matrix);
  for (const std::int64_t n : {1, 16}) {  // auto: rows for scattered tiles up to 16 columns
    const SpmmPlan<half> plan(A, n, Method("tca"));
    EXPECT_EQ(plan.stats().details["kernel"], "rows");
    EXPECT_EQ(plan.stats().details["column_index_bits"], 32);
  }
  EXPECT_EQ(SpmmPlan<half>(A, 17, Method("tca")).stats().details["kernel"], "tiles");
  PlanOptions sixteen;
  sixteen.parameters = {"column_index_bits=16"};
  const SpmmPlan<half> narrow(A, 16, Method("tca"), sixteen);
  EXPECT_EQ(narrow.stats().details["column_index_bits"], 16);
  EXPECT_LT(narrow.stats().device_bytes, SpmmPlan<half>(A, 16, Method("tca")).stats().device_bytes);
}

TEST_F(SpmmLayouts, TcaAutoTakesTilesWhereTilesAreDenseAndRowsWhereNonzerosScatter) {
  const auto scattered = test::with_values<half>(scattered_matrix().matrix);
  const auto dense_tiles = test::with_values<half>(tile_matrices().front().matrix);
  const SpmmPlan<half> rows(scattered, 16, Method("tca"));
  SpmmPlan<half> tiles(dense_tiles, 16, Method("tca"));
  EXPECT_EQ(rows.stats().details["kernel"], "rows");
  EXPECT_LT(rows.stats().details["auto_nonzeros_per_tile"].get<double>(), 8.0);  // either layout
  EXPECT_EQ(tiles.stats().details["kernel"], "tiles");
  EXPECT_GE(tiles.stats().details["auto_nonzeros_per_tile"].get<double>(), 40.0);
  EXPECT_GT(tiles.stats().details["tiles"].get<std::int64_t>(), 0);
  EXPECT_TRUE(rows.can_update_values());
  EXPECT_FALSE(tiles.can_update_values());  // the values are stored tile by tile
  const detail::DeviceBuffer<half> values(static_cast<std::size_t>(dense_tiles.nnz()));
  EXPECT_THROW(tiles.update_values(values.data()), UnsupportedError);
}

/// kernel=tiles at up to 16 columns stages each warp's runs in shared memory, as many words as
/// the block's share of a multiprocessor holds: a run that does not fit (70 % dense: about 1,900
/// words a segment) is read from global memory, a short one (5 % dense) is staged whole. Wider,
/// only the runs' mask words are staged.
TEST_F(SpmmLayouts, TcaTilesStagesTheRunsThatFitInSharedMemoryAndReadsTheRestFromGlobalMemory) {
  PlanOptions options;
  options.parameters = {"kernel=tiles"};
  const test::NamedMatrix longer = tile_matrices()[2], shorter = tile_matrices()[1];
  for (const std::int64_t n : {16, 64}) {
    const auto stage_and_longest = [&](const test::NamedMatrix& named) {
      const SpmmPlan<half> plan(test::with_values<half>(named.matrix), n, Method("tca"), options);
      return std::pair{plan.stats().details["run_stage_words"].get<std::int64_t>(),
                       plan.stats().details["longest_run_words"].get<std::int64_t>()};
    };
    const auto [long_stage, long_run] = stage_and_longest(longer);
    const auto [short_stage, short_run] = stage_and_longest(shorter);
    if (n <= 16) {
      EXPECT_LE(long_stage, long_run);
      EXPECT_GT(short_stage, short_run);
    } else {
      EXPECT_EQ(long_stage, 64);  // the mask words
      EXPECT_EQ(short_stage, 64);
    }
    for (const test::NamedMatrix& named : {longer, shorter})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
        EXPECT_TRUE((check<half, half>(Method("tca"), named, n, dense, {1.0, 0.0}, options)))
            << named.name << " n=" << n;
  }
}

/// Three more applies of `plan` (C = A B) give `first` bit for bit, and so do two replays of a
/// CUDA graph that captured one, each on a poisoned C.
void expect_repeats_bitwise_and_replays_from_a_graph(const SpmmPlan<half>& plan,
                                                     const detail::DeviceBuffer<half>& B,
                                                     detail::DeviceBuffer<half>& C,
                                                     const std::vector<half>& first) {
  for (int repeat = 0; repeat < 3; ++repeat) {
    plan.apply(B.data(), C.data(), 1.0f, 0.0f);
    const std::vector<half> again = C.download();
    for (std::size_t i = 0; i < first.size(); ++i)
      ASSERT_EQ(first[i].bits, again[i].bits) << "repeat " << repeat << ", element " << i;
  }
  const detail::CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  plan.apply(B.data(), C.data(), 1.0f, 0.0f, stream);
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {
    C.upload(test::make_poisoned<half>(first.size()));
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    const std::vector<half> replayed = C.download();
    for (std::size_t i = 0; i < first.size(); ++i)
      ASSERT_EQ(first[i].bits, replayed[i].bits) << "replay " << replay << ", element " << i;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

/// kernel=tiles with split-K, the chunks summed through global memory (the last warp of a row
/// block sums the chunks' partials) or in a thread-block cluster (sm_90): repeated applies are
/// bitwise equal, a captured graph replays them exactly, and both ways add the same partials in
/// the same order, so they give the same bits.
TEST_F(SpmmLayouts, TcaTilesSplitKRepeatsBitwiseAndReplaysFromACudaGraph) {
  const test::NamedMatrix named = tile_matrices().front();
  const auto A = test::with_values<half>(named.matrix);
  constexpr std::int64_t n = 16;
  const detail::DeviceBuffer<half> B(test::make_b<half>(named.matrix, n));
  detail::DeviceBuffer<half> C(static_cast<std::size_t>(A.rows * n));
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  std::vector<half> global_result;
  for (const char* split_k : {"global", "cluster"}) {
    SCOPED_TRACE(split_k);
    PlanOptions options;
    options.parameters = {"kernel=tiles", "chunk_columns=256", std::string("split_k=") + split_k};
    const SpmmPlan<half> plan(A, n, Method("tca"), options);
    ASSERT_EQ(plan.stats().details["chunks"].get<std::int64_t>(), 4);  // 1000 columns
    const bool clusters = std::string(split_k) == "cluster" && major >= 9;
    EXPECT_EQ(plan.stats().details["split_k"], clusters ? "cluster" : "global");
    plan.apply(B.data(), C.data(), 1.0f, 0.0f);
    const std::vector<half> first = C.download();
    if (global_result.empty()) global_result = first;
    for (std::size_t i = 0; i < first.size(); ++i)
      ASSERT_EQ(global_result[i].bits, first[i].bits) << "element " << i;
    expect_repeats_bitwise_and_replays_from_a_graph(plan, B, C, first);
  }
}

/// kernel=gather with a range's chunks summed by its one block (n = 16: the block stages all
/// 1000 rows of B), or by 4 blocks (n = 32, 256 rows of B each) in a thread-block cluster
/// (sm_90) or through global memory: repeated applies are bitwise equal, a captured graph
/// replays them exactly, and the cluster and global memory add the same partials in the same
/// order, so they give the same bits. (The ranges follow the blocks or clusters the GPU runs at
/// once, which differ between the two; on 16 rows both cut ranges of one row, the same layout.)
TEST_F(SpmmLayouts, TcaGatherRepeatsBitwiseAndReplaysFromACudaGraphHoweverItsChunksAreSummed) {
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  std::vector<half> split_result;
  std::int64_t split_ranges = 0;
  for (const char* split_k : {"none", "global", "cluster"}) {
    SCOPED_TRACE(split_k);
    const bool one_block = std::string(split_k) == "none";
    const std::int64_t n = one_block ? 16 : 32;
    const CsrMatrix<double, std::int32_t> exact =
        one_block ? tile_matrices().front().matrix  // 300 x 1000 at 70 %
                  : test::scaled_for_16_bit(
                        generate_llm_weights(16, 1000, 0.7, LlmRowProfile::uniform, 11));
    const auto A = test::with_values<half>(exact);
    const detail::DeviceBuffer<half> B(test::make_b<half>(exact, n));
    detail::DeviceBuffer<half> C(static_cast<std::size_t>(A.rows * n));
    PlanOptions options;
    options.parameters = {"kernel=gather"};
    if (!one_block) {
      options.parameters.push_back("chunk_columns=256");
      options.parameters.push_back(std::string("split_k=") + split_k);
    }
    const SpmmPlan<half> plan(A, n, Method("tca"), options);
    ASSERT_EQ(plan.stats().details["range_blocks"].get<std::int64_t>(), one_block ? 1 : 4);
    const bool clusters = std::string(split_k) == "cluster" && major >= 9;
    EXPECT_EQ(plan.stats().details["split_k"], one_block  ? "none"
                                               : clusters ? "cluster"
                                                          : "global");
    plan.apply(B.data(), C.data(), 1.0f, 0.0f);
    const std::vector<half> first = C.download();
    if (!one_block) {
      const auto ranges = plan.stats().details["ranges"].get<std::int64_t>();
      if (split_result.empty()) {
        split_result = first;
        split_ranges = ranges;
      }
      ASSERT_EQ(ranges, split_ranges) << "the same layout";
      for (std::size_t i = 0; i < first.size(); ++i)
        ASSERT_EQ(split_result[i].bits, first[i].bits) << "element " << i;
    }
    expect_repeats_bitwise_and_replays_from_a_graph(plan, B, C, first);
  }
}

/// kernel=gather stages B by tensor copies (sm_90) to the same bits in C as by its threads'
/// cp.async: B's rows of 16, 32, 64 and 128 bytes, a range's blocks summed in a cluster beside it
/// (chunks of 600 columns), boxes of 256 lines the last of which overlaps the one before (n = 64
/// with 600 or 752 columns a chunk). A B whose address is not 16-byte aligned is staged by copies
/// at that apply; a width that is not a multiple of 8, or whose rows are not the slice's (n = 24
/// in slices of 32), and boxes that would not start at a whole swizzle period (n = 32: 500 or
/// 300 lines a chunk) always.
TEST_F(SpmmLayouts, TcaGatherStagesBByTensorCopiesToTheSameBitsAsByCopies) {
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  const std::vector<test::NamedMatrix> matrices = {
      {"llm_13x1000_s0.70", test::scaled_for_16_bit(generate_llm_weights(
                                13, 1000, 0.7, LlmRowProfile::uniform, 21))},
      {"llm_300x3000_s0.95_skewed", test::scaled_for_16_bit(generate_llm_weights(
                                        300, 3000, 0.95, LlmRowProfile::skewed, 22))}};
  for (const test::NamedMatrix& named : matrices)
    for (const std::int64_t n : {7, 8, 16, 24, 32, 64})
      for (const char* chunk : {"auto", "600"}) {
        SCOPED_TRACE(named.name + " n=" + std::to_string(n) + " chunk_columns=" + chunk);
        const auto A = test::with_values<half>(named.matrix);
        const std::vector<half> B_host = test::make_b<half>(named.matrix, n);
        const detail::DeviceBuffer<half> B(B_host);
        // the same B one element past a 16-byte boundary
        detail::DeviceBuffer<half> shifted_buffer(B_host.size() + 8);
        ASSERT_EQ(cudaMemcpy(shifted_buffer.data() + 1, B.data(), B_host.size() * sizeof(half),
                             cudaMemcpyDeviceToDevice),
                  cudaSuccess);
        detail::DeviceBuffer<half> C(static_cast<std::size_t>(A.rows * n));
        const auto plan_with = [&](const char* stage_b) {
          PlanOptions options;
          options.parameters = {"kernel=gather", std::string("chunk_columns=") + chunk,
                                std::string("stage_b=") + stage_b};
          return SpmmPlan<half>(A, n, Method("tca"), options);
        };
        const SpmmPlan<half> by_copies = plan_with("copies");
        EXPECT_EQ(by_copies.stats().details["stage_b"], "copies");
        by_copies.apply(B.data(), C.data(), 1.0f, 0.0f);
        const std::vector<half> expected = C.download();
        const SpmmPlan<half> plan = plan_with("tensor");
        // tensor copies of 128-byte lines of B: its rows (slices of 64 columns), or B itself where
        // its rows are the slice's; boxes of up to 256 lines starting at whole periods of the
        // swizzle (8 lines)
        const auto slice = plan.stats().details["slice_columns"].get<std::int64_t>();
        const std::int64_t chunk_lines =
            plan.stats().details["chunk_columns"].get<std::int64_t>() * slice * 2 / 128;
        const bool tensor = major >= 9 && n % 8 == 0 &&
                            (slice == 64 || (n == slice && A.cols * n * 2 % 128 == 0)) &&
                            (chunk_lines <= 256 || chunk_lines % 8 == 0);
        EXPECT_EQ(plan.stats().details["stage_b"], tensor ? "tensor" : "copies");
        ASSERT_EQ(plan.stats().details["range_rows"], by_copies.stats().details["range_rows"])
            << "the same layout";
        for (const half* b : {B.data(), static_cast<const half*>(shifted_buffer.data() + 1)}) {
          C.upload(test::make_poisoned<half>(expected.size()));
          plan.apply(b, C.data(), 1.0f, 0.0f);
          const std::vector<half> staged = C.download();
          for (std::size_t i = 0; i < expected.size(); ++i)
            ASSERT_EQ(expected[i].bits, staged[i].bits)
                << "element " << i << (b == B.data() ? "" : ", B not 16-byte aligned");
        }
        expect_repeats_bitwise_and_replays_from_a_graph(plan, B, C, expected);
      }
}

/// kernel=gather with column-major B and C stages B's rows as from row-major B, so C has the
/// same bits in either layout, however B is staged: by tensor copies of B^T transposed in shared
/// memory (sm_90, slices of up to 32 columns, chunks of whole 64-row boxes: chunk_columns=auto
/// or 512), a chunk's boxes in one copy where B has whole boxes of rows (4096), a copy a box
/// where it does not (1000, the last chunk passing B's end); where those do not fit, by 16-byte
/// loads of a column's rows transposed 8 x 8 in registers (slices of 64 columns;
/// chunk_columns=520: 8 blocks a range summed in a cluster, whose chunks end in 8 rows of a
/// 32-row piece), both where B's rows are a multiple of 8 and its address 16-byte aligned;
/// element by element elsewhere (1003 rows of B, or B one element past a 16-byte boundary).
/// Partial slices at n = 1, 7, 24 and 65.
TEST_F(SpmmLayouts, TcaGatherGivesTheSameBitsWithColumnMajorBAndC) {
  const std::vector<test::NamedMatrix> matrices = {
      {"llm_300x4096_s0.90", test::scaled_for_16_bit(generate_llm_weights(
                                 300, 4096, 0.9, LlmRowProfile::uniform, 24))},
      {"llm_120x1000_s0.80", test::scaled_for_16_bit(generate_llm_weights(
                                 120, 1000, 0.8, LlmRowProfile::uniform, 26))},
      {"llm_77x1003_s0.70", test::scaled_for_16_bit(generate_llm_weights(
                                77, 1003, 0.7, LlmRowProfile::skewed, 25))}};
  for (const test::NamedMatrix& named : matrices)
    for (const std::int64_t n : {1, 7, 8, 16, 24, 32, 64, 65})
      for (const char* chunk : {"auto", "512", "520"}) {
        SCOPED_TRACE(named.name + " n=" + std::to_string(n) + " chunk_columns=" + chunk);
        const auto A = test::with_values<half>(named.matrix);
        const std::vector<half> B_host = test::make_b<half>(named.matrix, n);
        PlanOptions options;
        options.parameters = {"kernel=gather", std::string("chunk_columns=") + chunk};
        const SpmmPlan<half> by_rows(A, n, Method("tca"), options);
        const detail::DeviceBuffer<half> B(B_host);
        detail::DeviceBuffer<half> C(static_cast<std::size_t>(A.rows * n));
        by_rows.apply(B.data(), C.data(), 1.0f, 0.0f);
        const std::vector<half> expected = C.download();  // row-major
        SpmmLayout column_major;
        column_major.dense = DenseLayout::column_major;
        const SpmmPlan<half> by_columns(A, n, Method("tca"), options, column_major);
        ASSERT_EQ(by_columns.stats().details["kernel"], "gather");
        const std::vector<half> B_columns = test::transposed(B_host, A.cols, n);
        detail::DeviceBuffer<half> shifted(B_columns.size() + 8);  // one element past 16 bytes
        ASSERT_EQ(cudaMemcpy(shifted.data() + 1, B_columns.data(), B_columns.size() * sizeof(half),
                             cudaMemcpyHostToDevice),
                  cudaSuccess);
        const detail::DeviceBuffer<half> B_aligned(B_columns);
        for (const half* b : {B_aligned.data(), static_cast<const half*>(shifted.data() + 1)}) {
          C.upload(test::make_poisoned<half>(expected.size()));
          by_columns.apply(b, C.data(), 1.0f, 0.0f);
          const std::vector<half> got = test::transposed(C.download(), n, A.rows);
          for (std::size_t i = 0; i < expected.size(); ++i)
            ASSERT_EQ(expected[i].bits, got[i].bits)
                << "element " << i << (b == B_aligned.data() ? "" : ", B not 16-byte aligned");
        }
      }
}

/// A tca plan whose build runs out of device memory throws DeviceMemoryError and leaks nothing,
/// whichever of its allocations the memory runs out at (DeviceAllocationBudget: as cudaMalloc's or
/// the pool's out of memory, without taking the GPU from other processes; the budget grows by
/// half from nothing until the plan builds): the tiles layout built on the GPU from the uploaded
/// CSR (a temporary of the pool), the tiles layout built on the host and uploaded, gather's, and
/// kernel=auto's count of the tiles on the GPU (which keeps either the layout or, for rows, a
/// copy of the CSR).
TEST_F(SpmmLayouts, TcaBuildThatRunsOutOfDeviceMemoryThrowsAndLeaksNothing) {
  const auto A = test::with_values<half>(test::scaled_for_16_bit(
      generate_llm_weights(1024, 2048, 0.8, LlmRowProfile::uniform, 5)));
  const auto sparse = test::with_values<half>(test::scaled_for_16_bit(
      generate_llm_weights(4096, 2048, 0.97, LlmRowProfile::uniform, 6)));  // ~8 a tile: rows
  struct Build {
    std::string label;
    const CsrMatrix<half, std::int32_t>* matrix;
    std::vector<std::string> parameters;
  };
  const std::vector<Build> builds = {
      {"tiles built on the GPU", &A, {"kernel=tiles", "build=device"}},
      {"tiles built on the host", &A, {"kernel=tiles", "build=host"}},
      {"gather", &A, {"kernel=gather"}},
      {"auto (tiles counted on the GPU)", &A, {}},
      {"auto (tiles counted on the GPU, rows kept)", &sparse, {}}};
  for (const Build& build : builds) {
    PlanOptions options;
    options.parameters = build.parameters;
    const std::string& label = build.label;
    const CsrMatrix<half, std::int32_t>& matrix = *build.matrix;
    {
      const SpmmPlan<half> warm(matrix, 16, Method("tca"), options);  // kernels loaded
      if (build.parameters.empty()) {  // the rule's choice this case is for
        EXPECT_EQ(warm.stats().details.value("kernel", ""),
                  build.matrix == &sparse ? "rows" : "tiles")
            << label;
      }
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::int64_t live_before = detail::live_device_allocations();
    int refused = 0;
    for (std::size_t budget = 0;; budget = budget < 4096 ? 4096 : budget * 3 / 2) {
      ASSERT_LT(budget, std::size_t{256} << 20) << label << ": built within no budget";
      bool built = false;
      {
        const detail::DeviceAllocationBudget limit(budget);
        try {
          const SpmmPlan<half> plan(matrix, 16, Method("tca"), options);
          built = true;
        } catch (const DeviceMemoryError& error) {
          ++refused;
          EXPECT_NE(std::string(error.what()).find("cannot allocate"), std::string::npos)
              << error.what();
        }
      }
      EXPECT_EQ(detail::live_device_allocations(), live_before)
          << label << ", a budget of " << budget << " bytes: device allocations left behind";
      ASSERT_EQ(cudaGetLastError(), cudaSuccess);
      if (built) break;
    }
    EXPECT_GE(refused, 3) << label;  // the budget ran out at several of its allocations
  }
}

/// kernel=gather stores the values by windows in its own order: update_values is refused.
TEST_F(SpmmLayouts, TcaGatherRefusesUpdateValues) {
  const auto A = test::with_values<half>(tile_matrices().front().matrix);
  PlanOptions options;
  options.parameters = {"kernel=gather"};
  SpmmPlan<half> plan(A, 16, Method("tca"), options);
  EXPECT_EQ(plan.stats().details["kernel"], "gather");
  EXPECT_FALSE(plan.can_update_values());
  const detail::DeviceBuffer<half> values(static_cast<std::size_t>(A.nnz()));
  EXPECT_THROW(plan.update_values(values.data()), UnsupportedError);
}

/// split_k=auto sums 2 chunks in a thread-block cluster on sm_90 (where the clusters fit the GPU
/// as well as single blocks: a small grid always does), more chunks through global memory.
TEST_F(SpmmLayouts, TcaTilesSplitKAutoTakesClustersForTwoChunksOnly) {
  const auto A = test::with_values<half>(tile_matrices().front().matrix);  // 1000 columns
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  for (const std::int64_t n : {16, 256}) {
    PlanOptions two, four;
    two.parameters = {"kernel=tiles", "chunk_columns=512"};
    four.parameters = {"kernel=tiles", "chunk_columns=256"};
    const SpmmPlan<half> two_chunks(A, n, Method("tca"), two);
    const SpmmPlan<half> four_chunks(A, n, Method("tca"), four);
    ASSERT_EQ(two_chunks.stats().details["chunks"].get<std::int64_t>(), 2);
    ASSERT_EQ(four_chunks.stats().details["chunks"].get<std::int64_t>(), 4);
    EXPECT_EQ(two_chunks.stats().details["split_k"], major >= 9 ? "cluster" : "global") << n;
    EXPECT_EQ(four_chunks.stats().details["split_k"], "global") << n;
  }
}

/// kernel=tiles as a programmatic dependent launch (sm_90) copies its first runs of A before the
/// kernel ahead on the stream has finished, and reads B only after it: a product whose B is the
/// output of the tiles product just ahead of it (which lets its dependants launch before it writes
/// C) gives the same bits as with plain launches, every time.
TEST_F(SpmmLayouts, TcaTilesAsADependentLaunchReadBOnlyOnceTheKernelAheadHasWrittenIt) {
  constexpr std::int64_t n = 16, inner = 2048, middle = 4096, outer = 1024;
  const auto first_exact = test::scaled_for_16_bit(
      generate_llm_weights(middle, inner, 0.7, LlmRowProfile::uniform, 11));
  const auto first_matrix = test::with_values<half>(first_exact);
  const auto second_matrix = test::with_values<half>(test::scaled_for_16_bit(
      generate_llm_weights(outer, middle, 0.7, LlmRowProfile::uniform, 12)));
  const detail::DeviceBuffer<half> X(test::make_b<half>(first_exact, n));  // inner x n
  detail::DeviceBuffer<half> B(static_cast<std::size_t>(middle * n));
  detail::DeviceBuffer<half> C(static_cast<std::size_t>(outer * n));
  const detail::CudaStream owned_stream;
  const cudaStream_t stream = owned_stream.get();
  const auto chained = [&](const char* dependent_launch) {
    PlanOptions options;
    options.parameters = {"kernel=tiles", std::string("dependent_launch=") + dependent_launch};
    const SpmmPlan<half> first(first_matrix, n, Method("tca"), options);
    const SpmmPlan<half> second(second_matrix, n, Method("tca"), options);
    std::vector<std::vector<half>> results;
    for (int repeat = 0; repeat < 8; ++repeat) {
      B.fill_bytes(0xFF);  // NaN: a B read before the first product wrote it spreads NaN into C
      C.fill_bytes(0xFF);
      first.apply(X.data(), B.data(), 1.0f, 0.0f, stream);
      second.apply(B.data(), C.data(), 1.0f, 0.0f, stream);
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      results.push_back(C.download());
    }
    return results;
  };
  const std::vector<half> expected = chained("off").front();
  for (const half& value : expected) ASSERT_FALSE(std::isnan(static_cast<float>(value)));
  for (const std::vector<half>& got : chained("on"))
    ASSERT_EQ(std::memcmp(expected.data(), got.data(), expected.size() * sizeof(half)), 0);
}

/// build=device (auto from 16384 nonzeros) makes kernel=tiles' layout on the GPU from the uploaded
/// CSR: the host
/// builder's layout word for word (masks, pairs, zero padding, run offsets, the tile and pair
/// counts), on matrices with empty rows and segments, rows of every TCA class, partial row blocks
/// and segments, pairs with one or both halves stored, and no nonzeros at all.
TEST_F(SpmmLayouts, TcaTilesLayoutBuiltOnTheGpuIsTheHostBuilders) {
  std::vector<test::NamedMatrix> matrices = layout_matrices();
  for (test::NamedMatrix& named : tile_matrices()) matrices.push_back(std::move(named));
  matrices.push_back(scattered_matrix());
  matrices.push_back({"no_columns", test::with_row_lengths(0, {0, 0, 0}, 1)});
  for (const test::NamedMatrix& named : matrices) {
    const auto A = test::with_values<bfloat16>(test::scaled_for_16_bit(named.matrix));
    const tca::TilesShape shape =
        tca::choose_tiles_shape(A.rows, A.cols, 16, DenseLayout::row_major, 132);
    const tca::TileLayout host = tca::build_tile_layout(A, shape);
    const tca::TileLayout device = tca::testing::tile_layout_built_on_device(A, shape);
    EXPECT_EQ(device.segment_word_begin, host.segment_word_begin) << named.name;
    EXPECT_EQ(device.words, host.words) << named.name;
    EXPECT_EQ(device.stored_tiles, host.stored_tiles) << named.name;
    EXPECT_EQ(device.pairs, host.pairs) << named.name;
  }
  const auto A = test::with_values<half>(tile_matrices().front().matrix);
  PlanOptions host_build;
  host_build.parameters = {"kernel=tiles", "build=host"};
  PlanOptions device_build;
  device_build.parameters = {"kernel=tiles", "build=device"};
  const SpmmPlan<half> on_host(A, 64, Method("tca"), host_build);
  const SpmmPlan<half> on_device(A, 64, Method("tca"), device_build);
  EXPECT_EQ(SpmmPlan<half>(A, 64, Method("tca")).stats().details["build"],
            A.nnz() >= tca::kTilesDeviceBuildMinNonzeros ? "device" : "host");
  EXPECT_EQ(on_host.stats().details["build"], "host");
  EXPECT_EQ(on_device.stats().details["build"], "device");
  EXPECT_EQ(on_device.stats().details["tiles"], on_host.stats().details["tiles"]);
  EXPECT_EQ(on_device.stats().details["longest_run_words"],
            on_host.stats().details["longest_run_words"]);
}

/// A tca plan of `named` built from its arrays on the GPU (a DeviceCsrView) against the plan from
/// the host CSR: the same kernel and build, and C bit for bit (the same layout, the same kernel),
/// also after the view's arrays are poisoned and freed (the plan keeps what it reads).
template <typename Value>
void expect_device_csr_plan_equals_host_csr_plan(const test::NamedMatrix& named, std::int64_t n,
                                                 DenseLayout dense, const PlanOptions& options) {
  const auto A = test::with_values<Value>(named.matrix);
  SpmmLayout layout;
  layout.dense = dense;
  const SpmmPlan<Value> from_host(A, n, Method("tca"), options, layout);
  std::optional<detail::DeviceBuffer<std::int32_t>> row_ptr(std::in_place, A.row_ptr);
  std::optional<detail::DeviceBuffer<std::int32_t>> col_idx(std::in_place, A.col_idx);
  std::optional<detail::DeviceBuffer<Value>> values(std::in_place, A.values);
  const DeviceCsrView<Value> view{A.rows, A.cols, A.nnz(), row_ptr->data(), col_idx->data(),
                                  values->data()};
  const SpmmPlan<Value> from_device(view, n, Method("tca"), options, layout);
  const Json& host_details = from_host.stats().details;
  const Json& device_details = from_device.stats().details;
  const std::string kernel = host_details.value("kernel", std::string());
  EXPECT_EQ(device_details.value("kernel", std::string("none")), kernel);
  EXPECT_EQ(device_details.value("build", std::string()), host_details.value("build", std::string()));
  if (kernel == "tiles" && device_details.value("build", std::string()) == "device") {
    EXPECT_EQ(from_device.stats().upload_ms, 0.0);  // built from the caller's arrays
  }
  row_ptr->fill_bytes(0xFF);
  col_idx->fill_bytes(0xFF);
  values->fill_bytes(0xFF);
  row_ptr.reset();
  col_idx.reset();
  values.reset();
  const detail::DeviceBuffer<Value> B(test::make_b<Value>(named.matrix, n));
  const std::vector<Value> C0 = test::make_y<Value>(named.matrix, n);
  detail::DeviceBuffer<Value> C_from_host(C0), C_from_device(C0);
  from_host.apply(B.data(), C_from_host.data(), 1.5f, -0.5f);
  from_device.apply(B.data(), C_from_device.data(), 1.5f, -0.5f);
  const std::vector<Value> expected = C_from_host.download(), got = C_from_device.download();
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_EQ(std::memcmp(got.data(), expected.data(), got.size() * sizeof(Value)), 0) << kernel;
}

/// Plans from device CSR: rows (both index widths: a device-to-device copy, then 16-bit indices
/// made there), tiles built on the GPU from the caller's arrays (auto above 16384 nonzeros, and
/// build=device below), build=host and paper through one download, and auto, which at decode
/// widths counts the stored tiles by building the layout on the GPU (tiles on the dense
/// matrices, rows on the scattered one) and above them takes tiles.
TEST_F(SpmmLayouts, TcaPlansFromDeviceCsrAreThePlansFromHostCsrAndOwnWhatTheyRead) {
  std::vector<test::NamedMatrix> matrices = tile_matrices();
  matrices.push_back(scattered_matrix());
  matrices.push_back(layout_matrices().front());
  const std::vector<std::vector<std::string>> parameter_sets = {
      {},
      {"build=device"},
      {"kernel=rows", "column_index_bits=16"},
      {"kernel=rows", "column_index_bits=32"},
      {"kernel=tiles"},
      {"kernel=tiles", "build=device"},
      {"kernel=tiles", "build=host"},
      {"kernel=gather"},
      {"kernel=paper"}};
  for (const std::vector<std::string>& parameters : parameter_sets) {
    PlanOptions options;
    options.parameters = parameters;
    for (const test::NamedMatrix& named : matrices)
      for (const std::int64_t n : {8, 16, 64})
        for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major}) {
          SCOPED_TRACE(named.name + " n=" + std::to_string(n) + " " +
                       (dense == DenseLayout::row_major ? "row-major " : "column-major ") +
                       (parameters.empty() ? std::string("auto") : parameters.back()));
          expect_device_csr_plan_equals_host_csr_plan<half>(named, n, dense, options);
          expect_device_csr_plan_equals_host_csr_plan<bfloat16>(named, n, dense, options);
        }
  }
  // auto at decode widths chose as from the host: tiles where tiles are dense, rows where not
  const auto dense_tiles = test::with_values<half>(tile_matrices().front().matrix);
  const detail::DeviceBuffer<std::int32_t> row_ptr(dense_tiles.row_ptr), col_idx(dense_tiles.col_idx);
  const detail::DeviceBuffer<half> values(dense_tiles.values);
  const DeviceCsrView<half> view{dense_tiles.rows, dense_tiles.cols, dense_tiles.nnz(),
                                 row_ptr.data(), col_idx.data(), values.data()};
  ASSERT_GE(dense_tiles.nnz(), tca::kTilesDeviceBuildMinNonzeros);
  const SpmmPlan<half> decode(view, 16, Method("tca"));
  EXPECT_EQ(decode.stats().details["kernel"], "tiles");
  EXPECT_EQ(decode.stats().details["build"], "device");
  EXPECT_GE(decode.stats().details["auto_nonzeros_per_tile"].get<double>(), 40.0);
}

/// kernel=auto chooses from device CSR as from host CSR where it takes gather (sm_90: a weight
/// of 0.84 M nonzeros at 5 % density, 16 columns), whose layout is built on the host: the plan
/// downloads the CSR, and gives C bit for bit as the plan from host CSR.
TEST_F(SpmmLayouts, TcaAutoFromDeviceCsrTakesGatherWhereItDoesFromHostCsr) {
  const test::NamedMatrix weight{
      "llm_4096x4096_s0.95", test::scaled_for_16_bit(generate_llm_weights(
                                 4096, 4096, 0.95, LlmRowProfile::uniform, 9))};
  expect_device_csr_plan_equals_host_csr_plan<half>(weight, 16, DenseLayout::row_major,
                                                    PlanOptions{});
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major < 9) GTEST_SKIP() << "auto takes gather on sm_90 only (thread-block clusters)";
  const auto A = test::with_values<half>(weight.matrix);
  const detail::DeviceBuffer<std::int32_t> row_ptr(A.row_ptr), col_idx(A.col_idx);
  const detail::DeviceBuffer<half> values(A.values);
  const DeviceCsrView<half> view{A.rows, A.cols, A.nnz(), row_ptr.data(), col_idx.data(),
                                 values.data()};
  EXPECT_EQ(SpmmPlan<half>(view, 16, Method("tca")).stats().details["kernel"], "gather");
}

/// kernel=auto takes gather for column-major B (sm_90) on weights of at least 2^21 nonzeros (or
/// at most 6 % nonzero) whose B^T arrives in whole 64-row boxes (4096 x 8192 at 90 %, 3.4 M
/// nonzeros: two blocks of 4096 rows of B at 16 columns), and matches the reference there; a
/// 4096 x 4096 weight at 90 % (1.7 M) stays on tiles, at 95 % (0.84 M) takes gather.
TEST_F(SpmmLayouts, TcaAutoTakesGatherForColumnMajorBOnLargeWeights) {
  int major = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  if (major < 9) GTEST_SKIP() << "auto takes gather on sm_90 only (thread-block clusters)";
  SpmmLayout column_major;
  column_major.dense = DenseLayout::column_major;
  const test::NamedMatrix large{"llm_4096x8192_s0.90",
                                test::scaled_for_16_bit(generate_llm_weights(
                                    4096, 8192, 0.9, LlmRowProfile::uniform, 26))};
  const SpmmPlan<half> plan(test::with_values<half>(large.matrix), 16, Method("tca"), {},
                            column_major);
  EXPECT_EQ(plan.stats().details["kernel"], "gather");
  EXPECT_EQ(plan.stats().details["stage_b"], "tensor");
  EXPECT_EQ(plan.stats().details["range_blocks"], 2);
  EXPECT_TRUE((check<half, half>(Method("tca"), large, 16, DenseLayout::column_major,
                                 {1.5, -0.5})));
  const auto smaller = test::with_values<half>(
      generate_llm_weights(4096, 4096, 0.9, LlmRowProfile::uniform, 27));
  EXPECT_EQ(SpmmPlan<half>(smaller, 16, Method("tca"), {}, column_major).stats().details["kernel"],
            "tiles");
  const auto sparser = test::with_values<half>(
      generate_llm_weights(4096, 4096, 0.95, LlmRowProfile::uniform, 28));
  EXPECT_EQ(SpmmPlan<half>(sparser, 16, Method("tca"), {}, column_major).stats().details["kernel"],
            "gather");
}

TEST_F(SpmmLayouts, TcaRefuses16BitIndicesBeyond65536Columns) {
  const Matrix wide = test::scaled_for_16_bit(test::with_row_lengths(70000, {3, 0, 40, 1}, 4));
  const test::NamedMatrix named{"wide_70000", wide};
  PlanOptions sixteen;
  sixteen.parameters = {"column_index_bits=16"};
  EXPECT_THROW(SpmmPlan<half>(test::with_values<half>(wide), 16, Method("tca"), sixteen),
               ParameterError);
  for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
    EXPECT_TRUE((check<half, half>(Method("tca"), named, 16, dense, {1.5, -0.5})));
}

TEST_F(SpmmLayouts, TcaRefusesFp32AndFp64) {
  const auto matrix = test::with_row_lengths(10, {1, 2}, 1);
  EXPECT_THROW(SpmmPlan<float>(test::with_values<float>(matrix), 8, Method("tca")),
               UnsupportedError);
  EXPECT_THROW(SpmmPlan<double>(matrix, 8, Method("tca")), UnsupportedError);
}

TEST_F(SpmmLayouts, ApplyWithTheWrongOutputTypeIsAnError) {
  const auto matrix = test::with_values<half>(test::with_row_lengths(10, {1, 2}, 1));
  SpmmLayout fp32_output;
  fp32_output.output = SpmmOutput::fp32;
  const SpmmPlan<half> plan(matrix, 4, Method("cusparse"), PlanOptions{}, fp32_output);
  detail::DeviceBuffer<half> B(40), C(8);
  EXPECT_THROW(plan.apply(B.data(), C.data(), 1.0f, 0.0f), Error);
}

}  // namespace
}  // namespace tcsparse
