// The method table: names, capabilities and host statistics, all without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse {
namespace {

constexpr Precision every_precision[] = {Precision::fp64, Precision::fp32, Precision::fp16,
                                         Precision::bf16};

TEST(MethodTable, ListsEveryMethodOnce) {
  std::set<Method> seen;
  for (const MethodInfo& info : methods()) EXPECT_TRUE(seen.insert(info.method).second);
  EXPECT_EQ(seen, (std::set<Method>{Method::cusparse, Method::cusparse_alg2,
                                    Method::cusparse_alg3, Method::dasp}));
}

TEST(MethodTable, ListsBaselinesFirst) {
  const std::vector<MethodInfo>& all = methods();
  const auto first_non_baseline =
      std::find_if(all.begin(), all.end(), [](const MethodInfo& m) { return !m.is_baseline; });
  EXPECT_TRUE(std::all_of(first_non_baseline, all.end(),
                          [](const MethodInfo& m) { return !m.is_baseline; }));
  EXPECT_TRUE(method_info(Method::cusparse).is_baseline);
  EXPECT_FALSE(method_info(Method::dasp).is_baseline);
}

TEST(MethodTable, NamesRoundTripThroughParseMethod) {
  for (const MethodInfo& info : methods()) {
    EXPECT_EQ(to_string(info.method), info.name);
    EXPECT_EQ(parse_method(info.name), info.method) << info.name;
  }
}

TEST(MethodTable, PrintsTheDocumentedNames) {
  EXPECT_EQ(to_string(Method::cusparse), "cusparse");
  EXPECT_EQ(to_string(Method::cusparse_alg2), "cusparse_alg2");
  EXPECT_EQ(to_string(Method::cusparse_alg3), "cusparse_alg3");
  EXPECT_EQ(to_string(Method::dasp), "dasp");
}

TEST(MethodTable, UnknownNameErrorListsEveryKnownName) {
  try {
    parse_method("cusparse_alg9");
    FAIL() << "parse_method accepted an unknown name";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'cusparse_alg9'"), std::string::npos) << message;
    for (const MethodInfo& info : methods())
      EXPECT_NE(message.find(std::string(info.name)), std::string::npos)
          << "'" << info.name << "' missing from: " << message;
  }
}

TEST(MethodTable, ParseMethodIsExact) {
  EXPECT_THROW(parse_method(""), Error);
  EXPECT_THROW(parse_method("DASP"), Error);
  EXPECT_THROW(parse_method("dasp "), Error);
}

TEST(MethodTable, MethodInfoDescribesTheMethodAskedFor) {
  for (const MethodInfo& info : methods()) {
    EXPECT_EQ(method_info(info.method).method, info.method);
    EXPECT_FALSE(info.description.empty()) << info.name;
  }
}

TEST(MethodTable, CusparseRunsBothOperationsInEveryPrecision) {
  for (const Precision precision : every_precision) {
    EXPECT_TRUE(supports(Method::cusparse, Operation::spmv, precision)) << to_string(precision);
    EXPECT_TRUE(supports(Method::cusparse, Operation::spmm, precision)) << to_string(precision);
  }
}

TEST(MethodTable, CusparseAlg2RunsSpmvInEveryPrecisionAndSpmmInFp64AndFp32) {
  for (const Precision precision : every_precision)
    EXPECT_TRUE(supports(Method::cusparse_alg2, Operation::spmv, precision));
  EXPECT_TRUE(supports(Method::cusparse_alg2, Operation::spmm, Precision::fp64));
  EXPECT_TRUE(supports(Method::cusparse_alg2, Operation::spmm, Precision::fp32));
  // cuSPARSE computes mixed-precision SpMM with CSR_ALG3 only.
  EXPECT_FALSE(supports(Method::cusparse_alg2, Operation::spmm, Precision::fp16));
  EXPECT_FALSE(supports(Method::cusparse_alg2, Operation::spmm, Precision::bf16));
}

TEST(MethodTable, CusparseAlg3IsSpmmOnly) {
  for (const Precision precision : every_precision) {
    EXPECT_FALSE(supports(Method::cusparse_alg3, Operation::spmv, precision));
    EXPECT_TRUE(supports(Method::cusparse_alg3, Operation::spmm, precision));
  }
  EXPECT_FALSE(method_info(Method::cusparse_alg3).spmv);
  EXPECT_TRUE(method_info(Method::cusparse_alg3).spmm);
}

TEST(MethodTable, DaspIsSpmvInFp64Fp16AndBf16) {
  EXPECT_TRUE(supports(Method::dasp, Operation::spmv, Precision::fp64));
  EXPECT_FALSE(supports(Method::dasp, Operation::spmv, Precision::fp32));
  EXPECT_TRUE(supports(Method::dasp, Operation::spmv, Precision::fp16));
  EXPECT_TRUE(supports(Method::dasp, Operation::spmv, Precision::bf16));
  for (const Precision precision : every_precision)
    EXPECT_FALSE(supports(Method::dasp, Operation::spmm, precision));
}

TEST(MethodTable, MethodInfoAgreesWithSupports) {
  for (const MethodInfo& info : methods()) {
    bool any_spmv = false, any_spmm = false;
    for (const Precision precision : every_precision) {
      const bool spmv = supports(info.method, Operation::spmv, precision);
      const bool spmm = supports(info.method, Operation::spmm, precision);
      any_spmv |= spmv;
      any_spmm |= spmm;
      const bool listed = std::find(info.precisions.begin(), info.precisions.end(), precision) !=
                          info.precisions.end();
      EXPECT_EQ(listed, spmv || spmm) << info.name << " " << to_string(precision);
    }
    EXPECT_EQ(info.spmv, any_spmv) << info.name;
    EXPECT_EQ(info.spmm, any_spmm) << info.name;
  }
}

TEST(MethodTable, CusparseHasNoHostFormatStatistics) {
  const GeneratedMatrix matrix = generate_stencil_2d_5pt(8, 8, 1);
  EXPECT_EQ(format_stats_json(Method::cusparse, matrix), "null");
  EXPECT_EQ(format_stats_json(Method::cusparse_alg2, matrix), "null");
  EXPECT_EQ(format_stats_json(Method::cusparse_alg3, matrix), "null");
}

TEST(MethodTable, DaspHostFormatStatisticsAreAJsonObject) {
  const GeneratedMatrix matrix = generate_stencil_2d_5pt(8, 8, 1);
  const std::string json = format_stats_json(Method::dasp, matrix);
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front(), '{') << json;
  EXPECT_EQ(json.back(), '}') << json;
  EXPECT_NE(json.find("\"rows\""), std::string::npos) << json;
}

}  // namespace
}  // namespace tcsparse
