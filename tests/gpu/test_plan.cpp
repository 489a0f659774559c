// The plan machinery, whatever the method: validation of the matrix, refusal of what a method
// does not support or of a bad parameter, statistics, moves, the device ordinal. (Correctness of
// every method's products is the conformance suite's, test_conformance.cpp.)
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/test_matrices.hpp"
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

// ---- the plan machinery: refusals that need no GPU -------------------------------------------

Matrix small_matrix() { return generate_stencil_2d_5pt(6, 5, 3); }

TEST(PlanRefusal, SpmvWithAnSpmmOnlyMethodNamesMethodOperationAndPrecision) {
  const CsrMatrix<double, std::int32_t> matrix = small_matrix();
  try {
    SpmvPlan<double> plan(matrix, Method("cusparse_alg3"));
    FAIL() << "cusparse_alg3 accepted SpMV";
  } catch (const UnsupportedError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("cusparse_alg3"), std::string::npos) << message;
    EXPECT_NE(message.find("SpMV"), std::string::npos) << message;
    EXPECT_NE(message.find("fp64"), std::string::npos) << message;
  }
}

TEST(PlanRefusal, APrecisionTheMethodDoesNotRegisterIsUnsupported) {
  const CsrMatrix<float, std::int32_t> matrix = test::with_values<float>(small_matrix());
  EXPECT_THROW(SpmvPlan<float>(matrix, Method("dasp")), UnsupportedError);
}

TEST(PlanRefusal, DaspRefusesSpmm) {
  EXPECT_THROW(SpmmPlan<double>(small_matrix(), 8, Method("dasp")), UnsupportedError);
}

TEST(PlanRefusal, CusparseAlg2RefusesHalfPrecisionSpmm) {
  const CsrMatrix<half, std::int32_t> matrix = test::with_values<half>(small_matrix());
  EXPECT_THROW(SpmmPlan<half>(matrix, 8, Method("cusparse_alg2")), UnsupportedError);
}

TEST(PlanRefusal, NegativeSpmmWidthIsAValidationError) {
  EXPECT_THROW(SpmmPlan<double>(small_matrix(), -1, Method("cusparse")), ValidationError);
}

TEST(PlanRefusal, RowPointersThatDisagreeWithTheShapeAreAValidationError) {
  Matrix matrix = small_matrix();
  matrix.row_ptr.pop_back();
  EXPECT_THROW(SpmvPlan<double>(matrix, Method("cusparse")), ValidationError);
}

TEST(PlanRefusal, ValuesThatDisagreeWithTheColumnIndicesAreAValidationError) {
  Matrix matrix = small_matrix();
  matrix.values.pop_back();
  EXPECT_THROW(SpmvPlan<double>(matrix, Method("cusparse")), ValidationError);
}

TEST(PlanRefusal, AColumnOutOfRangeIsAValidationErrorForEveryMethod) {
  for (const Method method : methods()) {
    if (!method.supports(Operation::spmv, Precision::fp64)) continue;
    Matrix matrix = small_matrix();
    matrix.col_idx.back() = matrix.cols;
    EXPECT_THROW(SpmvPlan<double>(matrix, method), ValidationError) << to_string(method);
  }
}

TEST(PlanRefusal, UnsortedColumnsAreAValidationErrorForEveryMethod) {
  for (const Method method : methods()) {
    if (!method.supports(Operation::spmv, Precision::fp64)) continue;
    Matrix matrix = small_matrix();
    ASSERT_GE(matrix.row_length(0), 2) << "small_matrix()'s first row needs two entries";
    std::swap(matrix.col_idx[0], matrix.col_idx[1]);
    EXPECT_THROW(SpmvPlan<double>(matrix, method), ValidationError) << to_string(method);
  }
}

TEST(PlanWithoutGpu, ThrowsNoDeviceError) {
  if (cuda_device_available()) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_THROW(SpmvPlan<double>(small_matrix(), Method("cusparse")), NoDeviceError);
}

// ---- the plan machinery on the GPU ----------------------------------------------------------

class CusparsePlan : public testing::GpuTest {};

class PlanBuild : public testing::GpuTest {};

TEST_F(PlanBuild, BuildsOnTheGpuGiveTheirTemporaryMemoryBack) {
  // dasp and hbp build their layouts on the GPU from stream-ordered temporaries: a pool that
  // keeps them between the build's steps and, when the build ends, keeps no more than
  // kTemporaryMemoryKeptBetweenBuilds of them (4 M rows: both builds' temporaries take more than
  // that). DASP's own arrays come from the same pool: in use while the plan lives, given back
  // when it is destroyed.
  const Matrix matrix =
      generate_random_rows(4000000, 4000000, RowLengthDistribution::uniform, 1, 8, 5);
  for (const char* method : {"dasp", "hbp"}) {
    detail::release_unused_temporary_memory();
    detail::reset_temporary_memory_high_water();
    {
      const SpmvPlan<double> plan(matrix, Method(method));
      EXPECT_GT(detail::temporary_memory_high_water_bytes(),
                detail::kTemporaryMemoryKeptBetweenBuilds) << method;
      const std::size_t reserved = detail::temporary_memory_reserved_bytes();
      const std::size_t used = detail::temporary_memory_used_bytes();
      EXPECT_LE(reserved - std::min(reserved, used), detail::kTemporaryMemoryKeptBetweenBuilds)
          << method << ": " << reserved << " bytes reserved, " << used << " in use";
    }
    EXPECT_LE(detail::temporary_memory_reserved_bytes(),
              detail::kTemporaryMemoryKeptBetweenBuilds) << method << ", the plan destroyed";
  }
}

TEST_F(PlanBuild, SmallHbpBuildsTakeTheirLayoutFromThePoolAndGiveItBackWithThePlan) {
  // hbp's layout_memory=auto: a build whose temporaries fit what the pool keeps between builds
  // takes the layout's arrays from the pool (no cudaMalloc waiting for the GPU); a larger one
  // allocates them. Either way the pool keeps no more than kTemporaryMemoryKeptBetweenBuilds
  // unused, and nothing of the plan once it is destroyed.
  struct Case {
    const char* name;
    Matrix matrix;
    const char* layout_memory;
  };
  const Case cases[] = {
      {"200 k rows", generate_random_rows(200000, 200000, RowLengthDistribution::uniform, 1, 12, 3),
       "pool"},
      {"1.5 M rows", generate_random_rows(1500000, 1500000, RowLengthDistribution::uniform, 1, 8, 4),
       "allocate"},
  };
  for (const Case& c : cases) {
    detail::release_unused_temporary_memory();
    {
      const SpmvPlan<double> plan(c.matrix, Method("hbp"));
      EXPECT_EQ(plan.stats().details.value("layout_memory", ""), c.layout_memory) << c.name;
      const std::size_t reserved = detail::temporary_memory_reserved_bytes();
      const std::size_t used = detail::temporary_memory_used_bytes();
      EXPECT_LE(reserved - std::min(reserved, used), detail::kTemporaryMemoryKeptBetweenBuilds)
          << c.name << ": " << reserved << " bytes reserved, " << used << " in use";
      const std::vector<double> x = test::make_x<double>(c.matrix);
      const std::vector<double> y =
          testing::run_spmv(plan, x, std::vector<double>(static_cast<std::size_t>(c.matrix.rows)),
                            test::Scalars{1.0, 0.0});
      std::vector<double> expected(y.size());
      spmv_reference(c.matrix, std::span<const double>(x), std::span<double>(expected), 1.0, 0.0);
      EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(expected)),
                1e-12) << c.name;
    }
    EXPECT_LE(detail::temporary_memory_reserved_bytes(),
              detail::kTemporaryMemoryKeptBetweenBuilds) << c.name << ", the plan destroyed";
    EXPECT_EQ(detail::temporary_memory_used_bytes(), 0u) << c.name << ", the plan destroyed";
  }
}

TEST_F(PlanBuild, TcaBuildsKeepNoMoreOfThePoolThanABuildMayAndGiveItBackWithThePlan) {
  // A small tca build on the GPU (detail::is_small_build) takes its uploaded CSR, its
  // temporaries, its tile layout and its split-K buffer from the pool; a larger one allocates the
  // CSR, the layout and the buffer, so that no array of the plan sits among the build's freed
  // temporaries and keeps them mapped. Either way the pool keeps no more than
  // kTemporaryMemoryKeptBetweenBuilds unused after the build, and nothing of the plan once it is
  // destroyed: tiles built on the GPU (n = 256), kernel=auto counting the tiles on the GPU
  // (n = 16), gather (host-built layout, n = 16).
  struct Case {
    const char* name;
    CsrMatrix<half, std::int32_t> matrix;  // CSR of ~2.5 MB and of ~40 MB
    std::int64_t n;
    std::vector<std::string> parameters;
  };
  const auto weights = [](std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
    return convert_values<half>(
        generate_llm_weights(rows, cols, 0.8, LlmRowProfile::uniform, seed));
  };
  const auto small = weights(1024, 2048, 5), large = weights(4096, 8192, 7);
  const Case cases[] = {
      {"small, tiles, n = 256", small, 256, {}},
      {"large, tiles, n = 256", large, 256, {}},
      {"small, auto, n = 16", small, 16, {}},
      {"large, auto, n = 16", large, 16, {}},
      {"large, gather, n = 16", large, 16, {"kernel=gather"}},
  };
  for (const Case& c : cases) {
    PlanOptions options;
    options.parameters = c.parameters;
    detail::release_unused_temporary_memory();
    {
      const SpmmPlan<half> plan(c.matrix, c.n, Method("tca"), options);
      const std::size_t reserved = detail::temporary_memory_reserved_bytes();
      const std::size_t used = detail::temporary_memory_used_bytes();
      EXPECT_LE(reserved - std::min(reserved, used), detail::kTemporaryMemoryKeptBetweenBuilds)
          << c.name << " (" << plan.stats().details.value("kernel", "") << "): " << reserved
          << " bytes reserved, " << used << " in use";
    }
    EXPECT_LE(detail::temporary_memory_reserved_bytes(),
              detail::kTemporaryMemoryKeptBetweenBuilds) << c.name << ", the plan destroyed";
    EXPECT_EQ(detail::temporary_memory_used_bytes(), 0u) << c.name << ", the plan destroyed";
  }
}

TEST_F(CusparsePlan, ReportsShapeMethodAndStatistics) {
  const Matrix matrix = small_matrix();
  const SpmvPlan<double> plan(matrix, Method("cusparse_alg2"));
  EXPECT_EQ(plan.method(), Method("cusparse_alg2"));
  EXPECT_EQ(plan.rows(), matrix.rows);
  EXPECT_EQ(plan.cols(), matrix.cols);
  EXPECT_EQ(plan.nnz(), matrix.nnz());

  const PlanStats& stats = plan.stats();
  EXPECT_EQ(stats.stored_values, matrix.nnz());
  EXPECT_EQ(stats.padding_ratio, 0.0);
  const std::size_t csr_bytes = (matrix.row_ptr.size() + matrix.col_idx.size()) * 4 +
                                matrix.values.size() * sizeof(double);
  EXPECT_GE(stats.device_bytes, csr_bytes);
  EXPECT_GE(stats.upload_ms, 0.0);
  EXPECT_GE(stats.device_preprocess_ms, 0.0);
  EXPECT_EQ(stats.details["algorithm"], "CUSPARSE_SPMV_CSR_ALG2") << stats.details.dump();
}

TEST_F(CusparsePlan, SpmmStatisticsNameTheAlgorithm) {
  const SpmmPlan<float> plan(test::with_values<float>(small_matrix()), 16, Method("cusparse_alg3"));
  EXPECT_EQ(plan.n(), 16);
  EXPECT_EQ(plan.stats().details["algorithm"], "CUSPARSE_SPMM_CSR_ALG3")
      << plan.stats().details.dump();
}

TEST(PlanRefusal, AParameterTheMethodDoesNotHaveIsAParameterErrorBeforeAnyGpuWork) {
  PlanOptions options;
  options.parameters = {"max_medium_row_length=256"};
  try {
    SpmvPlan<double> plan(small_matrix(), Method("cusparse"), options);
    FAIL() << "cusparse accepted a parameter";
  } catch (const ParameterError& error) {
    EXPECT_NE(std::string(error.what()).find("max_medium_row_length"), std::string::npos)
        << error.what();
  }
  options.parameters = {"blocks_in_flight=3"};
  EXPECT_THROW(SpmvPlan<double>(small_matrix(), Method("dasp"), options), ParameterError);
}

TEST_F(CusparsePlan, RefusesADeviceThatDoesNotExist) {
  PlanOptions options;
  options.device = 1 << 20;
  EXPECT_THROW(SpmvPlan<double>(small_matrix(), Method("cusparse"), options), NoDeviceError);
}

TEST_F(CusparsePlan, MovedPlanStillComputesAndTheMovedFromOneRefusesToRun) {
  const Matrix matrix = small_matrix();
  SpmvPlan<double> original(matrix, Method("cusparse"));
  SpmvPlan<double> moved(std::move(original));

  const std::vector<double> x = test::make_x<double>(matrix);
  const detail::DeviceBuffer<double> device_x(x);
  detail::DeviceBuffer<double> device_y(static_cast<std::size_t>(matrix.rows));
  device_y.fill_bytes(0xFF);
  moved.apply(device_x.data(), device_y.data(), 1.0, 0.0);
  const std::vector<double> y = device_y.download();  // legacy stream: ordered after apply
  std::vector<double> expected(y.size());
  spmv_reference(matrix, std::span<const double>(x), std::span<double>(expected), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(expected)), 1e-12);

  // NOLINTNEXTLINE(bugprone-use-after-move): a moved-from plan must refuse, not crash
  EXPECT_THROW(original.apply(device_x.data(), device_y.data(), 1.0, 0.0), Error);
  EXPECT_THROW(original.stats(), Error);
}

TEST_F(CusparsePlan, MoveAssignmentReplacesThePlan) {
  SpmvPlan<float> first(test::with_values<float>(small_matrix()), Method("cusparse"));
  SpmvPlan<float> second(test::with_values<float>(generate_banded(50, 2, 4)), Method("cusparse"));
  first = std::move(second);
  EXPECT_EQ(first.rows(), 50);
  EXPECT_EQ(first.stats().stored_values, generate_banded(50, 2, 4).nnz());
}

TEST_F(CusparsePlan, ApplyRefusesANullOutput) {
  const Matrix matrix = small_matrix();
  const SpmvPlan<double> plan(matrix, Method("cusparse"));
  const detail::DeviceBuffer<double> device_x(test::make_x<double>(matrix));
  EXPECT_THROW(plan.apply(device_x.data(), nullptr, 1.0, 0.0), Error);
}

}  // namespace
}  // namespace tcsparse
