// The method registry and parameter schemas, all without a GPU: what every registered method
// promises (a name, a description, a consistent capability list, a schema whose defaults it
// accepts), and how "key=value" parameters are checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "plan/parameters.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/method.hpp"

namespace tcsparse {
namespace {

constexpr Precision every_precision[] = {Precision::fp64, Precision::fp32, Precision::fp16,
                                         Precision::bf16};

/// The message of the ParameterError `check` throws ("" and a test failure if none).
template <typename Check>
std::string parameter_error_of(Check check) {
  try {
    check();
  } catch (const ParameterError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no ParameterError";
  return {};
}

// ---- every registered method ----------------------------------------------------------------

TEST(Registry, NamesAreUniqueAndRoundTrip) {
  std::set<std::string_view> names;
  ASSERT_FALSE(methods().empty());
  for (const Method method : methods()) {
    EXPECT_TRUE(names.insert(method.name()).second) << method.name() << " registered twice";
    EXPECT_EQ(Method(method.name()), method);
    EXPECT_EQ(parse_method(method.name()), method);
    EXPECT_EQ(to_string(method), method.name());
    EXPECT_FALSE(method.description().empty()) << method.name();
  }
}

TEST(Registry, ListsBaselinesFirst) {
  const std::vector<Method>& all = methods();
  const auto first_other =
      std::find_if(all.begin(), all.end(), [](Method m) { return !m.is_baseline(); });
  EXPECT_TRUE(std::none_of(first_other, all.end(), [](Method m) { return m.is_baseline(); }));
  EXPECT_TRUE(Method("cusparse").is_baseline());
}

TEST(Registry, EveryMethodRunsSomething) {
  for (const Method method : methods())
    EXPECT_FALSE(method.precisions(Operation::spmv).empty() &&
                 method.precisions(Operation::spmm).empty())
        << method.name();
}

TEST(Registry, PrecisionListsAgreeWithSupports) {
  for (const Method method : methods())
    for (const Operation operation : {Operation::spmv, Operation::spmm}) {
      const std::vector<Precision> listed = method.precisions(operation);
      for (const Precision precision : every_precision)
        EXPECT_EQ(std::count(listed.begin(), listed.end(), precision) == 1,
                  supports(method, operation, precision))
            << method.name() << " " << to_string(operation) << " " << to_string(precision);
    }
}

TEST(Registry, UnknownNameIsAnErrorListingEveryName) {
  try {
    Method unknown("cusparse_alg9");
    FAIL() << "accepted an unknown name: " << unknown.name();
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'cusparse_alg9'"), std::string::npos) << message;
    for (const Method method : methods())
      EXPECT_NE(message.find(std::string(method.name())), std::string::npos) << message;
  }
}

TEST(Registry, NamesAreExact) {
  EXPECT_THROW(Method(""), Error);
  EXPECT_THROW(Method("DASP"), Error);
  EXPECT_THROW(Method("dasp "), Error);
}

TEST(Registry, MethodsOrderByName) {
  EXPECT_LT(Method("cusparse"), Method("dasp"));
  EXPECT_EQ(std::set<Method>(methods().begin(), methods().end()).size(), methods().size());
}

// ---- every method's parameter schema --------------------------------------------------------

TEST(Registry, EverySchemaIsWellFormedAndAcceptsItsDefaults) {
  for (const Method method : methods()) {
    std::set<std::string_view> keys;
    std::vector<std::string> defaults;
    for (const ParameterSpec& spec : method.parameters()) {
      SCOPED_TRACE(std::string(method.name()) + "." + std::string(spec.name));
      EXPECT_TRUE(keys.insert(spec.name).second) << "key listed twice";
      EXPECT_FALSE(spec.help.empty());
      EXPECT_FALSE(spec.default_value.empty());
      if (spec.type == ParameterSpec::Type::choice)
        EXPECT_FALSE(spec.words.empty());
      else
        EXPECT_LE(spec.lowest, spec.highest);
      defaults.push_back(std::string(spec.name) + "=" + std::string(spec.default_value));
    }
    EXPECT_NO_THROW(check_parameters(method, defaults)) << method.name();
  }
}

TEST(Registry, AnUnknownParameterNamesTheMethodAndEveryKey) {
  for (const Method method : methods()) {
    const std::string message =
        parameter_error_of([&] { check_parameters(method, {"no_such_key=1"}); });
    EXPECT_NE(message.find(std::string(method.name())), std::string::npos) << message;
    EXPECT_NE(message.find("no_such_key"), std::string::npos) << message;
    for (const ParameterSpec& spec : method.parameters())
      EXPECT_NE(message.find(std::string(spec.name)), std::string::npos) << message;
  }
}

TEST(Registry, ABaselineTakesNoParameters) {
  const std::string message =
      parameter_error_of([] { check_parameters(Method("cusparse"), {"max_medium_row_length=256"}); });
  EXPECT_NE(message.find("takes no parameters"), std::string::npos) << message;
}

TEST(Registry, LayoutStatisticsAreAnObjectOrNull) {
  const GeneratedMatrix matrix = generate_stencil_2d_5pt(8, 8, 1);
  for (const Method method : methods()) {
    const Json statistics = layout_statistics(method, matrix);
    EXPECT_TRUE(statistics.is_null() || statistics.is_object()) << method.name();
  }
  EXPECT_TRUE(layout_statistics(Method("cusparse"), matrix).is_null());
  const Json dasp = layout_statistics(Method("dasp"), matrix);
  ASSERT_TRUE(dasp.is_object());
  EXPECT_EQ(dasp["rows"]["short"].get<std::int64_t>() + dasp["rows"]["medium"].get<std::int64_t>() +
                dasp["rows"]["long"].get<std::int64_t>() + dasp["rows"]["empty"].get<std::int64_t>(),
            matrix.rows);
}

TEST(Registry, LayoutStatisticsFollowTheParameters) {
  const GeneratedMatrix matrix = generate_stencil_2d_5pt(8, 8, 1);
  const Json paper = layout_statistics(Method("dasp"), matrix, {"max_medium_row_length=256"});
  const Json short_max = layout_statistics(Method("dasp"), matrix, {"max_medium_row_length=4"});
  EXPECT_EQ(paper["max_medium_row_length"], 256);
  EXPECT_EQ(short_max["max_medium_row_length"], 4);
  EXPECT_THROW(layout_statistics(Method("dasp"), matrix, {"max_medium_row_length=2"}),
               ParameterError);
}

// ---- what each baseline runs ------------------------------------------------------------------

TEST(CusparseCapabilities, DefaultRunsBothOperationsInEveryPrecision) {
  for (const Precision precision : every_precision) {
    EXPECT_TRUE(supports(Method("cusparse"), Operation::spmv, precision));
    EXPECT_TRUE(supports(Method("cusparse"), Operation::spmm, precision));
  }
}

TEST(CusparseCapabilities, Alg2HasNo16BitSpmmBecauseCusparseComputesItWithAlg3Only) {
  const Method alg2("cusparse_alg2");
  for (const Precision precision : every_precision)
    EXPECT_TRUE(supports(alg2, Operation::spmv, precision));
  EXPECT_EQ(alg2.precisions(Operation::spmm),
            (std::vector<Precision>{Precision::fp64, Precision::fp32}));
}

TEST(CusparseCapabilities, Alg3IsSpmmOnly) {
  EXPECT_TRUE(Method("cusparse_alg3").precisions(Operation::spmv).empty());
  EXPECT_EQ(Method("cusparse_alg3").precisions(Operation::spmm).size(), 4u);
}

TEST(DaspCapabilities, SpmvInFp64Fp16AndBf16Only) {
  EXPECT_EQ(Method("dasp").precisions(Operation::spmv),
            (std::vector<Precision>{Precision::fp64, Precision::fp16, Precision::bf16}));
  EXPECT_TRUE(Method("dasp").precisions(Operation::spmm).empty());
}

// ---- checking "key=value" against a schema --------------------------------------------------

using Type = ParameterSpec::Type;
const std::vector<ParameterSpec> example_schema = {
    {"width", Type::integer, "auto", 1, 64, {"auto"}, "an integer or auto"},
    {"fill", Type::number, "0.75", 0.0, 1.0, {}, "a share"},
    {"order", Type::choice, "row", 0, 0, {"row", "column"}, "a choice"},
};

detail::ParameterValues check(const std::vector<std::string>& key_values) {
  return detail::check_parameter_values("example", example_schema, key_values);
}

TEST(ParameterValues, DefaultsFillEveryKey) {
  const detail::ParameterValues values = check({});
  EXPECT_TRUE(values.is_auto("width"));
  EXPECT_DOUBLE_EQ(values.number("fill"), 0.75);
  EXPECT_TRUE(values.is("order", "row"));
  EXPECT_FALSE(values.given("order"));
  EXPECT_EQ(values.to_string(), "width=auto,fill=0.75,order=row");
  EXPECT_EQ(values.to_json()["order"], "row");
}

TEST(ParameterValues, GivenValuesReplaceTheDefaults) {
  const detail::ParameterValues values = check({"width=64", "order=column", "fill=0"});
  EXPECT_EQ(values.integer("width"), 64);
  EXPECT_DOUBLE_EQ(values.number("fill"), 0.0);
  EXPECT_TRUE(values.is("order", "column"));
  EXPECT_TRUE(values.given("order"));
}

TEST(ParameterValues, ValuesOutsideTheSpecAreErrorsSayingWhatIsAccepted) {
  for (const char* bad : {"width=0", "width=65", "width=1.5", "width=4x", "width=", "fill=1.01",
                          "fill=nan", "fill=-0", "order=diagonal", "order=Row"}) {
    SCOPED_TRACE(bad);
    if (std::string(bad) == "fill=-0") {  // -0 is a number in [0, 1]
      EXPECT_NO_THROW(check({bad}));
      continue;
    }
    const std::string message = parameter_error_of([&] { check({bad}); });
    EXPECT_NE(message.find("example"), std::string::npos) << message;
    EXPECT_NE(message.find(bad), std::string::npos) << message;
    EXPECT_NE(message.find("expected"), std::string::npos) << message;
  }
}

TEST(ParameterValues, MalformedUnknownAndRepeatedKeysAreErrors) {
  EXPECT_NE(parameter_error_of([] { check({"width"}); }).find("not key=value"), std::string::npos);
  EXPECT_NE(parameter_error_of([] { check({"=4"}); }).find("not key=value"), std::string::npos);
  const std::string unknown = parameter_error_of([] { check({"height=4"}); });
  EXPECT_NE(unknown.find("width, fill, order"), std::string::npos) << unknown;
  const std::string twice = parameter_error_of([] { check({"width=4", "width=8"}); });
  EXPECT_NE(twice.find("twice"), std::string::npos) << twice;
}

TEST(ParameterValues, AcceptedValuesDescribeTheSpec) {
  EXPECT_EQ(example_schema[0].accepted_values(), "an integer in [1, 64] or auto");
  EXPECT_EQ(example_schema[1].accepted_values(), "a number in [0, 1]");
  EXPECT_EQ(example_schema[2].accepted_values(), "one of row, column");
}

}  // namespace
}  // namespace tcsparse
