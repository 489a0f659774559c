// Method("auto") without a GPU: the features it computes (exact values on small matrices), how a
// rule is walked (hand-made rules and feature vectors), and that the fitted rule resolves every
// request to a registered method that supports it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dasp/dasp_parameters.hpp"
#include "plan/auto_choice.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/method.hpp"

namespace tcsparse::detail {
namespace {

constexpr Precision every_precision[] = {Precision::fp64, Precision::fp32, Precision::fp16,
                                         Precision::bf16};
constexpr Operation every_operation[] = {Operation::spmv, Operation::spmm};

/// Row offsets of rows with these lengths.
std::vector<std::int32_t> offsets_of(const std::vector<std::int32_t>& lengths) {
  std::vector<std::int32_t> row_ptr{0};
  for (const std::int32_t length : lengths) row_ptr.push_back(row_ptr.back() + length);
  return row_ptr;
}

// ---- features ---------------------------------------------------------------------------------

TEST(AutoFeatures, OfASmallMatrixAreExact) {
  const std::vector<std::int32_t> lengths{0, 2, 5, 300, 4};
  const MatrixFeatures f =
      auto_features(offsets_of(lengths), 400, Operation::spmm, Precision::fp32, 8, 1 << 20);
  EXPECT_EQ(f.rows, 5);
  EXPECT_EQ(f.cols, 400);
  EXPECT_EQ(f.nnz, 311);
  EXPECT_EQ(f.n, 8);
  EXPECT_DOUBLE_EQ(f.mean_row_length, 311.0 / 5);
  EXPECT_EQ(f.max_row_length, 300);
  EXPECT_EQ(f.empty_rows, 1);
  const double mean = 311.0 / 5;
  const double stddev = std::sqrt((0.0 + 4 + 25 + 90000 + 16) / 5 - mean * mean);
  EXPECT_NEAR(f.stddev_row_length, stddev, 1e-9);
  EXPECT_NEAR(f.row_length_cv, stddev / mean, 1e-12);
  EXPECT_DOUBLE_EQ(f.empty_row_share, 0.2);
  EXPECT_DOUBLE_EQ(f.short_row_share, 0.4);  // 2 and 4
  EXPECT_DOUBLE_EQ(f.medium_row_share, 0.2);  // 5
  EXPECT_DOUBLE_EQ(f.long_row_share, 0.2);    // 300
  EXPECT_DOUBLE_EQ(f.density, 311.0 / (5.0 * 400.0));
  EXPECT_EQ(f.x_bytes, 400 * 8 * 4);  // cols x n fp32 values
  EXPECT_EQ(f.l2_cache_bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(f.x_over_l2, 12800.0 / (1 << 20));
}

TEST(AutoFeatures, RowCategoriesUseDaspsBounds) {
  const std::int32_t short_max = dasp::kDaspMaxShortRowLength;
  const std::int32_t medium_max = dasp::kDaspMaxMediumRowLength;
  const MatrixFeatures f =
      auto_features(offsets_of({short_max, short_max + 1, medium_max, medium_max + 1}), 1000,
                    Operation::spmv, Precision::fp64, 1, 0);
  EXPECT_DOUBLE_EQ(f.short_row_share, 0.25);
  EXPECT_DOUBLE_EQ(f.medium_row_share, 0.5);
  EXPECT_DOUBLE_EQ(f.long_row_share, 0.25);
  EXPECT_DOUBLE_EQ(f.empty_row_share, 0.0);
}

TEST(AutoFeatures, SpmvHasNOneAndTheHostL2WhenNoneIsGiven) {
  const MatrixFeatures f =
      auto_features(offsets_of({1, 2, 3}), 10, Operation::spmv, Precision::fp16, 64, 0);
  EXPECT_EQ(f.n, 1);
  EXPECT_EQ(f.x_bytes, 10 * 2);
  EXPECT_EQ(f.l2_cache_bytes, kHostDefaultL2CacheBytes);
}

TEST(AutoFeatures, OfEmptyMatricesAreZero) {
  const MatrixFeatures no_rows =
      auto_features(offsets_of({}), 7, Operation::spmv, Precision::fp64, 1, 0);
  EXPECT_EQ(no_rows.rows, 0);
  EXPECT_EQ(no_rows.nnz, 0);
  EXPECT_EQ(no_rows.mean_row_length, 0.0);
  EXPECT_EQ(no_rows.density, 0.0);
  const MatrixFeatures no_values =
      auto_features(offsets_of({0, 0, 0}), 0, Operation::spmv, Precision::fp64, 1, 0);
  EXPECT_EQ(no_values.rows, 3);
  EXPECT_EQ(no_values.empty_row_share, 1.0);
  EXPECT_EQ(no_values.row_length_cv, 0.0);
  EXPECT_EQ(no_values.density, 0.0);  // no columns: no division by zero
}

TEST(AutoFeatures, JsonNamesEveryFeatureOfTheRule) {
  const Json json = features_json(
      auto_features(offsets_of({3, 1}), 5, Operation::spmv, Precision::fp64, 1, 0));
  for (int k = 0; k < static_cast<int>(AutoFeature::none); ++k)
    EXPECT_TRUE(json.contains(std::string(to_string(static_cast<AutoFeature>(k))))) << k;
  EXPECT_EQ(json["nnz"], 4);
  EXPECT_EQ(json["l2_cache_bytes"], kHostDefaultL2CacheBytes);
}

// ---- walking a rule -----------------------------------------------------------------------------

/// nnz < 1000: cusparse; else dasp first. SpMM fp32: a leaf that ranks SpMV-only methods and
/// methods never chosen ahead of cusparse_alg3. SpMM fp16: the dense baseline first.
constexpr AutoRuleNode kHandMadeNodes[] = {
    {AutoFeature::nnz, 1000.0, 1, 2, ""},
    {AutoFeature::none, 0.0, -1, -1, "cusparse"},
    {AutoFeature::none, 0.0, -1, -1, "dasp cusparse"},
    {AutoFeature::none, 0.0, -1, -1, "no_such_method dasp csr_full_overlap auto cusparse_alg3"},
    {AutoFeature::none, 0.0, -1, -1, "csr_full_overlap"},
    {AutoFeature::none, 0.0, -1, -1, "cublas_dense cusparse_alg3"},
    {AutoFeature::none, 0.0, -1, -1, "tca cusparse_alg3 cusparse_alg2 cusparse"},
    {AutoFeature::none, 0.0, -1, -1, "cusparse cusparse_alg2 dasp csr_overlap"},
};
constexpr AutoRuleTree kHandMadeTrees[] = {
    {Operation::spmv, Precision::fp64, 0},
    {Operation::spmm, Precision::fp32, 3},
    {Operation::spmv, Precision::fp32, 4},
    {Operation::spmm, Precision::fp16, 5},
    {Operation::spmm, Precision::bf16, 6},
    {Operation::spmv, Precision::bf16, 7},
};
const AutoRule kHandMadeRule{"hand-made", kHandMadeNodes, kHandMadeTrees};

MatrixFeatures features_with_nnz(std::int32_t nnz) {
  return auto_features(offsets_of({nnz}), nnz, Operation::spmv, Precision::fp64, 1, 0);
}

TEST(AutoRuleWalk, FollowsTheThresholdToItsLeaf) {
  const AutoChoice small = choose_method(kHandMadeRule, features_with_nnz(999), Operation::spmv,
                                         Precision::fp64);
  EXPECT_EQ(small.chosen, Method("cusparse"));
  EXPECT_EQ(small.leaf, "nnz < 1000");
  EXPECT_EQ(small.rule_id, "hand-made");
  const AutoChoice large = choose_method(kHandMadeRule, features_with_nnz(1000), Operation::spmv,
                                         Precision::fp64);
  EXPECT_EQ(large.chosen, Method("dasp"));
  EXPECT_EQ(large.leaf, "nnz >= 1000");
}

TEST(AutoRuleWalk, SkipsRankedMethodsThatCannotTakeTheRequest) {
  // unregistered, SpMV only, host-resident, "auto" itself: all passed over
  const AutoChoice choice = choose_method(kHandMadeRule, features_with_nnz(10), Operation::spmm,
                                          Precision::fp32);
  EXPECT_EQ(choice.chosen, Method("cusparse_alg3"));
}

TEST(AutoRuleWalk, FallsBackToABaselineWhenNoRankedMethodIsACandidate) {
  const AutoChoice only_host_resident =
      choose_method(kHandMadeRule, features_with_nnz(10), Operation::spmv, Precision::fp32);
  EXPECT_TRUE(only_host_resident.chosen.is_baseline()) << only_host_resident.chosen.name();
  const AutoChoice no_tree =
      choose_method(kHandMadeRule, features_with_nnz(10), Operation::spmm, Precision::fp64);
  EXPECT_TRUE(no_tree.chosen.is_baseline()) << no_tree.chosen.name();
  EXPECT_EQ(no_tree.leaf, "no tree for this operation and precision");
}

/// SpMM fp16 features of a rows x cols matrix with `per_row` nonzeros in each row.
MatrixFeatures spmm_features(std::int32_t rows, std::int64_t cols, std::int32_t per_row) {
  return auto_features(offsets_of(std::vector<std::int32_t>(rows, per_row)), cols,
                       Operation::spmm, Precision::fp16, 16, 0);
}

TEST(AutoRuleWalk, StoresADenseOnlyWhereThatCopyIsSmallAndANotTooSparse) {
  // 4096 x 4096 at 10 % (32 MiB dense): the leaf's dense baseline
  const MatrixFeatures weight = spmm_features(4096, 4096, 410);
  EXPECT_DOUBLE_EQ(weight.dense_bytes, 4096.0 * 4096.0 * 2);
  EXPECT_EQ(choose_method(kHandMadeRule, weight, Operation::spmm, Precision::fp16).chosen,
            Method("cublas_dense"));
  // 0.5 % dense: the next ranked method
  EXPECT_EQ(choose_method(kHandMadeRule, spmm_features(4096, 4096, 20), Operation::spmm,
                          Precision::fp16)
                .chosen,
            Method("cusparse_alg3"));
  // 40 % dense but 2 GiB stored dense (32 k x 32 k fp16)
  const MatrixFeatures large = spmm_features(32768, 32768, 13107);
  EXPECT_GT(large.dense_bytes, double{1 << 30});
  EXPECT_EQ(choose_method(kHandMadeRule, large, Operation::spmm, Precision::fp16).chosen,
            Method("cusparse_alg3"));
}

/// The names of a choice's trial methods, in order.
std::vector<std::string> trial_names(const AutoChoice& choice) {
  std::vector<std::string> names;
  for (const Method m : choice.trial_methods) names.emplace_back(m.name());
  return names;
}

TEST(AutoRuleWalk, TrialsAreTheFirstRankedCandidatesThenTheBaseline) {
  using Names = std::vector<std::string>;
  static_assert(kAutoMeasuredCandidates == 2, "the cases below count two ranked candidates");
  // a leaf of one method that is the baseline: nothing else to time
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, features_with_nnz(999), Operation::spmv,
                                      Precision::fp64)),
            (Names{"cusparse"}));
  // the baseline ranked second: the two ranked, once each
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, features_with_nnz(1000), Operation::spmv,
                                      Precision::fp64)),
            (Names{"dasp", "cusparse"}));
  // four ranked: the first two, then the baseline the leaf ranked last
  const AutoChoice four = choose_method(kHandMadeRule, spmm_features(4096, 4096, 410),
                                        Operation::spmm, Precision::bf16);
  EXPECT_EQ(trial_names(four), (Names{"tca", "cusparse_alg3", "cusparse"}));
  EXPECT_EQ(four.chosen, four.trial_methods.front());
  // the baseline ranked first: still two others to time against it
  const AutoChoice baseline_first = choose_method(kHandMadeRule, features_with_nnz(10),
                                                  Operation::spmv, Precision::bf16);
  EXPECT_EQ(trial_names(baseline_first), (Names{"cusparse", "cusparse_alg2", "dasp"}));
  EXPECT_EQ(baseline_first.chosen, Method("cusparse"));
  // methods that cannot take the request are passed over, not counted
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, features_with_nnz(10), Operation::spmm,
                                      Precision::fp32)),
            (Names{"cusparse_alg3", "cusparse"}));
  // only a host-resident method ranked: the baseline alone
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, features_with_nnz(10), Operation::spmv,
                                      Precision::fp32)),
            (Names{"cusparse"}));
  // cublas_dense where A stored dense is small, else the next ranked
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, spmm_features(4096, 4096, 410),
                                      Operation::spmm, Precision::fp16)),
            (Names{"cublas_dense", "cusparse_alg3", "cusparse"}));
  EXPECT_EQ(trial_names(choose_method(kHandMadeRule, spmm_features(4096, 4096, 20),
                                      Operation::spmm, Precision::fp16)),
            (Names{"cusparse_alg3", "cusparse"}));
}

TEST(AutoRuleWalk, ABrokenNodeIndexIsAnError) {
  constexpr AutoRuleNode nodes[] = {{AutoFeature::nnz, 1.0, 5, 5, ""}};
  constexpr AutoRuleTree trees[] = {{Operation::spmv, Precision::fp64, 0}};
  EXPECT_THROW(choose_method(AutoRule{"broken", nodes, trees}, features_with_nnz(3),
                             Operation::spmv, Precision::fp64),
               Error);
}

// ---- "auto" in the registry and the fitted rule -----------------------------------------------

TEST(AutoMethod, IsListedWithoutParametersOrFactories) {
  const Method automatic("auto");
  EXPECT_NE(std::find(methods().begin(), methods().end(), automatic), methods().end());
  EXPECT_TRUE(automatic.is_automatic());
  EXPECT_FALSE(automatic.is_baseline());
  EXPECT_TRUE(automatic.parameters().empty());
  EXPECT_FALSE(automatic.description().empty());
  EXPECT_EQ(std::count_if(methods().begin(), methods().end(),
                          [](Method m) { return m.is_automatic(); }),
            1);
}

TEST(AutoMethod, SupportsWhatAnyCandidateSupports) {
  for (const Operation operation : every_operation)
    for (const Precision precision : every_precision) {
      const bool any = std::any_of(methods().begin(), methods().end(), [&](Method m) {
        return !m.is_automatic() && !m.descriptor().matrix_stays_on_host &&
               m.supports(operation, precision);
      });
      EXPECT_EQ(Method("auto").supports(operation, precision), any)
          << to_string(operation) << " " << to_string(precision);
    }
}

TEST(AutoMethod, NeverCandidatesItselfOrAHostResidentMethod) {
  for (const Operation operation : every_operation)
    for (const Precision precision : every_precision)
      for (const Method m : auto_candidates(operation, precision)) {
        EXPECT_FALSE(m.is_automatic());
        EXPECT_NE(m, Method("csr_full_overlap"));
        EXPECT_TRUE(m.supports(operation, precision));
      }
}

/// Matrices of every shape the rule may see, as features.
std::vector<CsrMatrix<double, std::int32_t>> assorted_matrices() {
  std::vector<CsrMatrix<double, std::int32_t>> list;
  list.push_back(generate_stencil_2d_5pt(30, 30, 1));
  list.push_back(generate_rmat(10, 8, 2));
  list.push_back(generate_short_rows(2000, 2000, 3));
  list.push_back(generate_long_rows(8, 5000, 1000, 4));
  list.push_back(generate_pruned_weights(256, 512, 0.9, 5));
  list.push_back(generate_banded(3000, 5, 6));
  CsrMatrix<double, std::int32_t> empty;
  empty.rows = 4;
  empty.cols = 3;
  empty.row_ptr.assign(5, 0);
  list.push_back(empty);
  return list;
}

TEST(AutoMethod, TheFittedRuleChoosesAMethodThatTakesEveryRequest) {
  const AutoRule& rule = fitted_auto_rule();
  EXPECT_FALSE(rule.id.empty());
  for (const auto& matrix : assorted_matrices())
    for (const Operation operation : every_operation)
      for (const Precision precision : every_precision)
        for (const std::int64_t n : {1, 8, 256}) {
          const MatrixFeatures f =
              auto_features(matrix.row_ptr, matrix.cols, operation, precision, n, 0);
          if (auto_candidates(operation, precision).empty()) {
            EXPECT_THROW(choose_method(rule, f, operation, precision), UnsupportedError);
            continue;
          }
          const AutoChoice choice = choose_method(rule, f, operation, precision);
          EXPECT_TRUE(choice.chosen.supports(operation, precision))
              << choice.chosen.name() << " " << to_string(operation) << " "
              << to_string(precision);
          EXPECT_FALSE(choice.chosen.is_automatic());
          EXPECT_FALSE(choice.chosen.descriptor().matrix_stays_on_host);
          const auto may_choose = choice.chosen.descriptor().auto_may_choose;
          EXPECT_TRUE(may_choose == nullptr || may_choose(f)) << choice.chosen.name();
          // what a measured choice times: candidates for the request, cuSPARSE among them
          ASSERT_FALSE(choice.trial_methods.empty());
          EXPECT_EQ(choice.trial_methods.front(), choice.chosen);
          EXPECT_LE(choice.trial_methods.size(), std::size_t{kAutoMeasuredCandidates} + 1);
          for (const Method m : choice.trial_methods) {
            EXPECT_TRUE(m.supports(operation, precision)) << m.name();
            EXPECT_FALSE(m.descriptor().matrix_stays_on_host) << m.name();
          }
          EXPECT_NE(std::find(choice.trial_methods.begin(), choice.trial_methods.end(),
                              Method("cusparse")),
                    choice.trial_methods.end());
        }
}

TEST(AutoMethod, EveryMethodTheFittedRuleNamesIsRegistered) {
  for (const AutoRuleNode& node : fitted_auto_rule().nodes) {
    std::string names(node.methods);
    std::size_t begin = 0;
    while (begin < names.size()) {
      const std::size_t end = std::min(names.find(' ', begin), names.size());
      EXPECT_NO_THROW(Method(names.substr(begin, end - begin))) << names;
      begin = end + 1;
    }
  }
}

TEST(AutoMethod, AutomaticChoiceReportsChosenFeaturesAndRule) {
  const Json choice =
      automatic_choice(generate_stencil_2d_5pt(20, 20, 1), Operation::spmv, Precision::fp64);
  ASSERT_TRUE(choice.contains("chosen"));
  EXPECT_TRUE(Method(choice["chosen"].get<std::string>()).supports(Operation::spmv, Precision::fp64));
  EXPECT_EQ(choice["features"]["rows"], 400);
  EXPECT_EQ(choice["features"]["nnz"], 400 * 5 - 4 * 20);
  EXPECT_EQ(choice["rule"], std::string(fitted_auto_rule().id));
}

TEST(AutoMethod, ParametersGoToTheChosenMethodIfItHasThem) {
  AutoChoice dasp_choice{Method("dasp"), {}, "test", "", {}};
  EXPECT_NO_THROW(parameters_for_choice(dasp_choice, {"max_medium_row_length=256"}));
  AutoChoice cusparse_choice{Method("cusparse"), {}, "test", "", {}};
  try {
    parameters_for_choice(cusparse_choice, {"max_medium_row_length=256"});
    FAIL() << "cusparse accepted a DASP parameter";
  } catch (const ParameterError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'auto' chose 'cusparse'"), std::string::npos) << message;
    EXPECT_NE(message.find("max_medium_row_length"), std::string::npos) << message;
  }
}

TEST(AutoMethod, TakesNoParametersOfItsOwn) {
  EXPECT_THROW(check_parameters(Method("auto"), {"anything=1"}), ParameterError);
}

}  // namespace
}  // namespace tcsparse::detail
