// Method("auto") on the GPU: a plan resolves it to the method the rule chooses, computes that
// method's product, and reports the choice (PlanStats::details["auto"]). Its products on every
// matrix of the catalogue are the conformance suite's ("auto" is a registered method there).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "gpu/gpu_test.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;

class AutoPlan : public testing::GpuTest {};

/// The details["auto"] promises: the chosen method is the plan's, takes the request, and the
/// features are those of the matrix on this GPU.
void expect_reported_choice(const PlanStats& stats, Method plan_method, const Matrix& matrix,
                            Operation operation, Precision precision) {
  ASSERT_TRUE(stats.details.contains("auto")) << stats.details.dump();
  const Json& choice = stats.details["auto"];
  EXPECT_EQ(choice["chosen"], std::string(plan_method.name()));
  EXPECT_FALSE(plan_method.is_automatic());
  EXPECT_TRUE(plan_method.supports(operation, precision));
  EXPECT_NE(plan_method, Method("csr_full_overlap"));
  EXPECT_FALSE(choice["rule"].get<std::string>().empty());
  EXPECT_EQ(choice["features"]["rows"], matrix.rows);
  EXPECT_EQ(choice["features"]["nnz"], matrix.nnz());
  int device = 0, l2_bytes = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device), cudaSuccess);
  EXPECT_EQ(choice["features"]["l2_cache_bytes"], l2_bytes);
}

TEST_F(AutoPlan, SpmvMatchesTheReferenceAndReportsItsChoice) {
  for (const Matrix& matrix : {generate_stencil_2d_5pt(60, 50, 1), generate_rmat(12, 8, 2),
                               generate_long_rows(16, 4000, 900, 3)}) {
    const SpmvPlan<double> plan(matrix, Method("auto"));
    expect_reported_choice(plan.stats(), plan.method(), matrix, Operation::spmv, Precision::fp64);

    const std::vector<double> x = test::make_x<double>(matrix);
    const std::vector<double> y0 = test::make_y<double>(matrix);
    const detail::DeviceBuffer<double> device_x(x);
    detail::DeviceBuffer<double> device_y(y0);
    // a plan in its own row order (dasp's option) is not asked for here: caller order
    ASSERT_FALSE(plan.plan_row_order());
    plan.apply(device_x.data(), device_y.data(), 1.5, -0.5);
    const std::vector<double> y = device_y.download();
    std::vector<double> expected = test::to_double_vector(y0);
    spmv_reference(matrix, std::span<const double>(x), std::span<double>(expected), 1.5, -0.5);
    EXPECT_LT(relative_error(std::span<const double>(y), std::span<const double>(expected)),
              test::tolerance<double>())
        << plan.method().name();
  }
}

TEST_F(AutoPlan, SpmmMatchesTheReferenceAndReportsItsChoice) {
  const Matrix matrix = generate_pruned_weights(256, 512, 0.9, 4);
  constexpr std::int64_t n = 16;
  const auto values = test::with_values<float>(matrix);
  const SpmmPlan<float> plan(values, n, Method("auto"));
  expect_reported_choice(plan.stats(), plan.method(), matrix, Operation::spmm, Precision::fp32);
  EXPECT_EQ(plan.stats().details["auto"]["features"]["n"], n);

  const std::vector<float> b = test::make_b<float>(matrix, n);
  const detail::DeviceBuffer<float> device_b(b);
  detail::DeviceBuffer<float> device_c(test::make_poisoned<float>(
      static_cast<std::size_t>(matrix.rows * n)));
  plan.apply(device_b.data(), device_c.data(), 1.0f, 0.0f);
  const std::vector<float> c = device_c.download();
  std::vector<double> expected(c.size(), 0.0);
  spmm_reference(values, std::span<const float>(b), n, std::span<double>(expected), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const float>(c), std::span<const double>(expected)),
            test::tolerance<float>())
      << plan.method().name();
}

TEST_F(AutoPlan, FromDeviceCsrChoosesAsFromHostCsr) {
  const Matrix matrix = generate_random_rows(5000, 5000, RowLengthDistribution::power_law, 1, 400, 5);
  const detail::DeviceBuffer<std::int32_t> row_ptr(matrix.row_ptr);
  const detail::DeviceBuffer<std::int32_t> col_idx(matrix.col_idx);
  const detail::DeviceBuffer<double> values(matrix.values);
  const DeviceCsrView<double> view{matrix.rows,    matrix.cols,    matrix.nnz(),
                                   row_ptr.data(), col_idx.data(), values.data()};
  const SpmvPlan<double> from_device(view, Method("auto"));
  const SpmvPlan<double> from_host(matrix, Method("auto"));
  EXPECT_EQ(from_device.method(), from_host.method());
  EXPECT_EQ(from_device.stats().details["auto"]["features"],
            from_host.stats().details["auto"]["features"]);
}

TEST_F(AutoPlan, AParameterTheChosenMethodLacksIsAParameterErrorNamingIt) {
  PlanOptions options;
  options.parameters = {"no_method_has_this=1"};
  try {
    const SpmvPlan<double> plan(generate_stencil_2d_5pt(10, 10, 1), Method("auto"), options);
    FAIL() << "auto passed an unknown parameter to " << plan.method().name();
  } catch (const ParameterError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'auto' chose"), std::string::npos) << message;
    EXPECT_NE(message.find("no_method_has_this"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace tcsparse
