// The automatic choice: features, the fitted rule's walk, the candidates and the "auto" entry of
// the registry. See auto_choice.hpp.
#include "plan/auto_choice.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "dasp/dasp_parameters.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

namespace {

// The generated tables: kAutoRuleId, kAutoRuleNodes, kAutoRuleTrees.
#include "plan/auto_choice_rule.inc"

std::string_view operation_label(Operation operation) {
  return operation == Operation::spmv ? "SpMV" : "SpMM";
}

std::int64_t value_bytes(Precision precision) {
  return dispatch_precision(precision,
                            [](auto value) { return static_cast<std::int64_t>(sizeof(value)); });
}

/// The method named `name` if it is registered, else nullopt (a rule may name a method that a
/// later registry dropped).
std::optional<Method> registered(std::string_view name) {
  for (const Method method : methods())
    if (method.name() == name) return method;
  return std::nullopt;
}

std::string threshold_text(double value) {
  std::ostringstream text;
  text.precision(4);
  text << value;
  return text.str();
}

}  // namespace

MatrixFeatures auto_features(std::span<const std::int32_t> row_ptr, std::int64_t cols,
                             Operation operation, Precision precision, std::int64_t n,
                             std::int64_t l2_cache_bytes) {
  MatrixFeatures f;
  f.rows = row_ptr.empty() ? 0 : static_cast<std::int64_t>(row_ptr.size()) - 1;
  f.cols = cols;
  f.nnz = f.rows > 0 ? std::int64_t{row_ptr.back()} - row_ptr.front() : 0;
  f.n = operation == Operation::spmv ? 1 : n;
  std::int64_t long_rows = 0, medium_rows = 0, short_rows = 0;
  double sum_of_squares = 0.0;
  for (std::int64_t r = 0; r < f.rows; ++r) {
    const std::int64_t length =
        std::int64_t{row_ptr[static_cast<std::size_t>(r) + 1]} - row_ptr[static_cast<std::size_t>(r)];
    f.max_row_length = std::max(f.max_row_length, length);
    sum_of_squares += static_cast<double>(length) * static_cast<double>(length);
    if (length == 0) ++f.empty_rows;
    else if (length <= dasp::kDaspMaxShortRowLength) ++short_rows;
    else if (length <= dasp::kDaspMaxMediumRowLength) ++medium_rows;
    else ++long_rows;
  }
  if (f.rows > 0) {
    const double rows = static_cast<double>(f.rows);
    f.mean_row_length = static_cast<double>(f.nnz) / rows;
    const double variance = std::max(0.0, sum_of_squares / rows - f.mean_row_length * f.mean_row_length);
    f.stddev_row_length = std::sqrt(variance);
    f.row_length_cv = f.mean_row_length > 0.0 ? f.stddev_row_length / f.mean_row_length : 0.0;
    f.long_row_share = static_cast<double>(long_rows) / rows;
    f.medium_row_share = static_cast<double>(medium_rows) / rows;
    f.short_row_share = static_cast<double>(short_rows) / rows;
    f.empty_row_share = static_cast<double>(f.empty_rows) / rows;
    if (f.cols > 0) f.density = static_cast<double>(f.nnz) / (rows * static_cast<double>(f.cols));
  }
  f.x_bytes = f.cols * f.n * value_bytes(precision);
  f.l2_cache_bytes = l2_cache_bytes > 0 ? l2_cache_bytes : kHostDefaultL2CacheBytes;
  f.x_over_l2 = static_cast<double>(f.x_bytes) / static_cast<double>(f.l2_cache_bytes);
  f.dense_bytes = static_cast<double>(f.rows) * static_cast<double>(f.cols) *
                  static_cast<double>(value_bytes(precision));
  return f;
}

std::string_view to_string(AutoFeature feature) {
  switch (feature) {
    case AutoFeature::rows: return "rows";
    case AutoFeature::cols: return "cols";
    case AutoFeature::nnz: return "nnz";
    case AutoFeature::mean_row_length: return "mean_row_length";
    case AutoFeature::max_row_length: return "max_row_length";
    case AutoFeature::row_length_cv: return "row_length_cv";
    case AutoFeature::long_row_share: return "long_row_share";
    case AutoFeature::medium_row_share: return "medium_row_share";
    case AutoFeature::short_row_share: return "short_row_share";
    case AutoFeature::empty_row_share: return "empty_row_share";
    case AutoFeature::density: return "density";
    case AutoFeature::n: return "n";
    case AutoFeature::x_over_l2: return "x_over_l2";
    case AutoFeature::none: break;
  }
  return "none";
}

double feature_value(const MatrixFeatures& f, AutoFeature feature) {
  switch (feature) {
    case AutoFeature::rows: return static_cast<double>(f.rows);
    case AutoFeature::cols: return static_cast<double>(f.cols);
    case AutoFeature::nnz: return static_cast<double>(f.nnz);
    case AutoFeature::mean_row_length: return f.mean_row_length;
    case AutoFeature::max_row_length: return static_cast<double>(f.max_row_length);
    case AutoFeature::row_length_cv: return f.row_length_cv;
    case AutoFeature::long_row_share: return f.long_row_share;
    case AutoFeature::medium_row_share: return f.medium_row_share;
    case AutoFeature::short_row_share: return f.short_row_share;
    case AutoFeature::empty_row_share: return f.empty_row_share;
    case AutoFeature::density: return f.density;
    case AutoFeature::n: return static_cast<double>(f.n);
    case AutoFeature::x_over_l2: return f.x_over_l2;
    case AutoFeature::none: break;
  }
  throw Error("feature_value: a leaf has no feature");
}

Json features_json(const MatrixFeatures& f) {
  Json json = Json::object();
  for (int k = 0; k < static_cast<int>(AutoFeature::none); ++k) {
    const auto feature = static_cast<AutoFeature>(k);
    json[std::string(to_string(feature))] = feature_value(f, feature);
  }
  // counts as integers
  json["rows"] = f.rows;
  json["cols"] = f.cols;
  json["nnz"] = f.nnz;
  json["max_row_length"] = f.max_row_length;
  json["n"] = f.n;
  json["stddev_row_length"] = f.stddev_row_length;
  json["x_bytes"] = f.x_bytes;
  json["l2_cache_bytes"] = f.l2_cache_bytes;
  json["dense_bytes"] = f.dense_bytes;
  return json;
}

const AutoRule& fitted_auto_rule() {
  static const AutoRule rule{kAutoRuleId, kAutoRuleNodes, kAutoRuleTrees};
  return rule;
}

std::vector<Method> auto_candidates(Operation operation, Precision precision) {
  std::vector<Method> candidates;
  for (const Method method : methods()) {
    const MethodDescriptor& descriptor = method.descriptor();
    if (descriptor.is_automatic || descriptor.matrix_stays_on_host) continue;
    if (method.supports(operation, precision)) candidates.push_back(method);
  }
  return candidates;
}

AutoChoice choose_method(const AutoRule& rule, const MatrixFeatures& features, Operation operation,
                         Precision precision) {
  const std::vector<Method> candidates = auto_candidates(operation, precision);
  if (candidates.empty())
    throw UnsupportedError("method 'auto': no registered method supports " +
                           std::string(operation_label(operation)) + " in " +
                           std::string(to_string(precision)));
  // a candidate for the request that may also take this matrix
  const auto is_candidate = [&](Method method) {
    const auto may_choose = method.descriptor().auto_may_choose;
    return std::find(candidates.begin(), candidates.end(), method) != candidates.end() &&
           (may_choose == nullptr || may_choose(features));
  };

  AutoChoice choice{candidates.front(), features, std::string(rule.id), {}, {}};
  // the tree of this request, walked to its leaf
  std::string_view ranked;
  const auto tree = std::find_if(rule.trees.begin(), rule.trees.end(), [&](const AutoRuleTree& t) {
    return t.operation == operation && t.precision == precision;
  });
  if (tree != rule.trees.end()) {
    int index = tree->root;
    for (std::size_t steps = 0; steps <= rule.nodes.size(); ++steps) {
      if (index < 0 || static_cast<std::size_t>(index) >= rule.nodes.size())
        throw Error("auto rule '" + std::string(rule.id) + "': node index " +
                    std::to_string(index) + " out of range");
      const AutoRuleNode& node = rule.nodes[static_cast<std::size_t>(index)];
      if (node.feature == AutoFeature::none) {
        ranked = node.methods;
        break;
      }
      const bool below = feature_value(features, node.feature) < node.threshold;
      choice.leaf += (choice.leaf.empty() ? "" : ", ") + std::string(to_string(node.feature)) +
                     (below ? " < " : " >= ") + threshold_text(node.threshold);
      index = below ? node.below : node.at_or_above;
    }
    if (choice.leaf.empty()) choice.leaf = "a single leaf";
  } else {
    choice.leaf = "no tree for this operation and precision";
  }

  // in the leaf's order: its first kAutoMeasuredCandidates candidates besides the baseline (the
  // first candidate baseline, cusparse), and the baseline, last if the leaf does not rank it;
  // failing all, the first candidate
  const auto baseline = std::find_if(candidates.begin(), candidates.end(),
                                     [&](Method m) { return m.is_baseline() && is_candidate(m); });
  const auto is_baseline = [&](Method m) { return baseline != candidates.end() && m == *baseline; };
  const auto taken = [&](Method m) {
    return std::find(choice.trial_methods.begin(), choice.trial_methods.end(), m) !=
           choice.trial_methods.end();
  };
  int others = 0;
  std::istringstream names{std::string(ranked)};
  for (std::string name; names >> name;) {
    const std::optional<Method> method = registered(name);
    if (!method || !is_candidate(*method) || taken(*method)) continue;
    if (is_baseline(*method)) {
      choice.trial_methods.push_back(*method);
    } else if (others < kAutoMeasuredCandidates) {
      choice.trial_methods.push_back(*method);
      ++others;
    }
  }
  if (baseline != candidates.end() && !taken(*baseline)) choice.trial_methods.push_back(*baseline);
  if (choice.trial_methods.empty()) {
    const auto any = std::find_if(candidates.begin(), candidates.end(), is_candidate);
    choice.trial_methods.push_back(any != candidates.end() ? *any : candidates.front());
  }
  choice.chosen = choice.trial_methods.front();
  return choice;
}

Json auto_details(const AutoChoice& choice) {
  Json trial_methods = Json::array();
  for (const Method method : choice.trial_methods) trial_methods.push_back(std::string(method.name()));
  return Json{{"chosen", std::string(choice.chosen.name())},
              {"features", features_json(choice.features)},
              {"rule", choice.rule_id},
              {"leaf", choice.leaf},
              {"trial_methods", std::move(trial_methods)}};
}

ParameterValues parameters_for_choice(const AutoChoice& choice,
                                      const std::vector<std::string>& key_values) {
  try {
    return checked_parameters(choice.chosen.descriptor(), key_values);
  } catch (const ParameterError& error) {
    throw ParameterError("method 'auto' chose '" + std::string(choice.chosen.name()) +
                         "' for this matrix, and its parameters do not take these: " +
                         error.what() + " (name a method to pass its parameters)");
  }
}

// ---- the registry's entry -------------------------------------------------------------------

extern const MethodDescriptor automatic_method;
const MethodDescriptor automatic_method = {
    .name = "auto",
    .description = "automatic choice per matrix, operation, precision and n among the other "
                   "methods, by a rule fitted from bench/results (bench/fit_auto_choice.py)",
    .is_automatic = true,
    .spmv = {},  // no factories: a plan builds the method it chooses
    .spmm = {},
    .spmv_from_device = {},
    .spmm_from_device = {},
};

}  // namespace tcsparse::detail

namespace tcsparse {

Json automatic_choice(const CsrMatrix<double, std::int32_t>& matrix, Operation operation,
                      Precision precision, std::int64_t n, std::size_t l2_cache_bytes) {
  const detail::MatrixFeatures features =
      detail::auto_features(matrix.row_ptr, matrix.cols, operation, precision, n,
                            static_cast<std::int64_t>(l2_cache_bytes));
  return detail::auto_details(
      detail::choose_method(detail::fitted_auto_rule(), features, operation, precision));
}

}  // namespace tcsparse
