// Method("auto") on the GPU: a plan resolves it to the method the rule chooses, computes that
// method's product, and reports the choice (PlanStats::details["auto"]). Its products on every
// matrix of the catalogue are the conformance suite's ("auto" is a registered method there).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
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
  // the rule's choice alike; a measured choice times the same methods (and may differ by noise)
  PlanOptions rule_only;
  rule_only.auto_measure = false;
  const SpmvPlan<double> from_device(view, Method("auto"), rule_only);
  const SpmvPlan<double> from_host(matrix, Method("auto"), rule_only);
  EXPECT_EQ(from_device.method(), from_host.method());
  EXPECT_EQ(from_device.stats().details["auto"]["features"],
            from_host.stats().details["auto"]["features"]);
  const SpmvPlan<double> measured_from_device(view, Method("auto"));
  const SpmvPlan<double> measured_from_host(matrix, Method("auto"));
  EXPECT_EQ(measured_from_device.stats().details["auto"]["trial_methods"],
            measured_from_host.stats().details["auto"]["trial_methods"]);
}

/// The measured choice's promises: every trial method was built and timed (or skipped with a
/// reason), and the plan's method is the one with the least apply time.
void expect_fastest_trial_kept(const PlanStats& stats, Method plan_method) {
  const Json& choice = stats.details["auto"];
  ASSERT_EQ(choice["choice"], "measured") << choice.dump();
  const Json& trials = choice["trial_methods"];
  const Json& measured = choice["measured"];
  ASSERT_EQ(measured.size(), trials.size()) << choice.dump();
  EXPECT_NE(std::find(trials.begin(), trials.end(), Json("cusparse")), trials.end());
  std::string fastest;
  double fastest_ms = 1e300;
  for (std::size_t k = 0; k < measured.size(); ++k) {
    EXPECT_EQ(measured[k]["method"], trials[k]);
    if (measured[k].contains("skipped")) continue;
    const double apply_ms = measured[k]["apply_ms"].get<double>();
    EXPECT_GT(apply_ms, 0.0);
    EXPECT_GT(measured[k]["build_ms"].get<double>(), 0.0);
    if (apply_ms < fastest_ms) {
      fastest_ms = apply_ms;
      fastest = measured[k]["method"].get<std::string>();
    }
  }
  EXPECT_EQ(choice["chosen"], fastest);
  EXPECT_EQ(std::string(plan_method.name()), fastest);
}

TEST_F(AutoPlan, AMeasuredChoiceKeepsTheFastestOfItsTrials) {
  for (const Matrix& matrix : {generate_rmat(12, 8, 2), generate_stencil_2d_5pt(200, 200, 1)}) {
    const SpmvPlan<double> spmv(matrix, Method("auto"));
    expect_fastest_trial_kept(spmv.stats(), spmv.method());
    const SpmvPlan<half> spmv_half(test::with_values<half>(matrix), Method("auto"));
    expect_fastest_trial_kept(spmv_half.stats(), spmv_half.method());
    const SpmmPlan<float> spmm(test::with_values<float>(matrix), 16, Method("auto"));
    expect_fastest_trial_kept(spmm.stats(), spmm.method());
  }
}

TEST_F(AutoPlan, ARuleOnlyChoiceBuildsTheRulesFirstMethod) {
  PlanOptions options;
  options.auto_measure = false;
  const SpmvPlan<double> plan(generate_rmat(12, 8, 2), Method("auto"), options);
  const Json& choice = plan.stats().details["auto"];
  EXPECT_EQ(choice["choice"], "rule");
  EXPECT_FALSE(choice.contains("measured"));
  EXPECT_EQ(choice["chosen"], choice["trial_methods"][0]);
  EXPECT_EQ(std::string(plan.method().name()), choice["chosen"].get<std::string>());
}

TEST_F(AutoPlan, AMatrixWithoutNonzerosIsNotMeasured) {
  Matrix empty;
  empty.rows = 40;
  empty.cols = 30;
  empty.row_ptr.assign(41, 0);
  const SpmvPlan<double> plan(empty, Method("auto"));
  EXPECT_EQ(plan.stats().details["auto"]["choice"], "rule");
  const SpmmPlan<double> spmm(empty, 8, Method("auto"));
  EXPECT_EQ(spmm.stats().details["auto"]["choice"], "rule");
}

TEST_F(AutoPlan, AMeasuredSpmmSkipsATrialThatRefusesTheLayoutAndComputesWithTheRest) {
  const Matrix matrix = generate_pruned_weights(512, 1024, 0.7, 6);
  const auto values = test::with_values<half>(matrix);
  constexpr std::int64_t n = 16;
  SpmmLayout column_major;
  column_major.dense = DenseLayout::column_major;
  column_major.output = SpmmOutput::fp32;
  const SpmmPlan<half> plan(values, n, Method("auto"), {}, column_major);
  expect_fastest_trial_kept(plan.stats(), plan.method());
  for (const Json& trial : plan.stats().details["auto"]["measured"]) {
    if (trial.contains("skipped")) {
      EXPECT_FALSE(trial["skipped"].get<std::string>().empty());
    }
  }

  const std::vector<half> b = test::make_b<half>(matrix, n);  // row-major, for the reference
  const detail::DeviceBuffer<half> device_b(test::transposed(b, matrix.cols, n));
  detail::DeviceBuffer<float> device_c(
      test::make_poisoned<float>(static_cast<std::size_t>(matrix.rows * n)));
  plan.apply_fp32_output(device_b.data(), device_c.data(), 1.0f, 0.0f);
  const std::vector<float> c = test::transposed(device_c.download(), n, matrix.rows);
  std::vector<double> expected(c.size(), 0.0);
  spmm_reference(values, std::span<const half>(b), n, std::span<double>(expected), 1.0, 0.0);
  EXPECT_LT(relative_error(std::span<const float>(c), std::span<const double>(expected)),
            test::tolerance<half>())
      << plan.method().name();
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
