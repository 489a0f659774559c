// `tcsparse info FILE [--json] [-p PRECISION] [-n N]`: shape, row-length statistics, each
// method's host preprocessing statistics and what "auto" chooses (SpMV, or SpMM with -n). Needs
// no GPU.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "matrix_source.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::cli {
namespace {

struct InfoOptions {
  std::string file;
  bool json = false;
  std::string precision = "fp64";  ///< of the request "auto" chooses for
  std::int64_t n = 0;              ///< 0: SpMV; else SpMM with n columns
};

/// "0" for empty rows, then "1", "2-3", "4-7", ...: the row lengths bucket k holds.
std::string histogram_bucket_label(std::size_t bucket) {
  if (bucket == 0) return "0";
  const std::int64_t low = std::int64_t{1} << (bucket - 1);
  const std::int64_t high = (std::int64_t{1} << bucket) - 1;
  return low == high ? std::to_string(low) : fmt::format("{}-{}", low, high);
}

Json row_length_json(const RowLengthStats& stats) {
  Json buckets = Json::array();
  for (std::size_t k = 0; k < stats.log2_histogram.size(); ++k)
    buckets.push_back(histogram_bucket_label(k));
  return Json{{"empty_rows", stats.empty_rows},
              {"min", stats.min_length},
              {"max", stats.max_length},
              {"mean", stats.mean_length},
              {"stddev", stats.stddev_length},
              {"log2_histogram", stats.log2_histogram},
              {"log2_histogram_buckets", buckets}};
}

/// Every method's layout statistics (null: no host layout); a method that fails says why
/// instead of stopping info.
Json methods_json(const CsrMatrix<double, std::int32_t>& matrix) {
  Json methods_object = Json::object();
  for (const Method method : methods()) {
    if (method.is_automatic()) continue;  // no layout of its own: "auto" below says what it runs
    const std::string name(method.name());
    try {
      methods_object[name] = layout_statistics(method, matrix);
    } catch (const std::exception& error) {
      methods_object[name] = Json{{"error", error.what()}};
    }
  }
  return methods_object;
}

Json file_json(const ReadReport& report) {
  return Json{{"field", report.field},
              {"symmetry", report.symmetry},
              {"file_bytes", report.file_bytes},
              {"text_bytes", report.text_bytes},
              {"entries_in_file", report.entries_in_file},
              {"parse_mb_per_second", report.parse_mb_per_second()}};
}

/// What "auto" chooses for the request (no GPU: the features assume the default L2); an
/// unsupported request says why instead of stopping info.
Json auto_json(const CsrMatrix<double, std::int32_t>& matrix, const InfoOptions& options) {
  const Operation operation = options.n > 0 ? Operation::spmm : Operation::spmv;
  try {
    Json choice = automatic_choice(matrix, operation, parse_precision(options.precision),
                                   options.n > 0 ? options.n : 1);
    choice["operation"] = std::string(to_string(operation));
    choice["precision"] = options.precision;
    return choice;
  } catch (const UnsupportedError& error) {
    return Json{{"error", error.what()}};
  }
}

Json info_json(const bench::MatrixInput& input, const ReadReport* report,
               const InfoOptions& options) {
  const RowLengthStats stats = row_length_stats(input.matrix);
  Json info{{"matrix", input.name},   {"source", input.source}, {"rows", stats.rows},
            {"cols", stats.cols},     {"nnz", stats.nnz},
            {"density", stats.rows && stats.cols
                            ? static_cast<double>(stats.nnz) /
                                  (static_cast<double>(stats.rows) * static_cast<double>(stats.cols))
                            : 0.0},
            {"row_lengths", row_length_json(stats)}};
  // NaN and +-Inf are legal values (as in SciPy); products with them are compared position by
  // position, and info says how many there are.
  info["non_finite_values"] = std::count_if(input.matrix.values.begin(), input.matrix.values.end(),
                                            [](double value) { return !std::isfinite(value); });
  if (report) info["file"] = file_json(*report);
  info["methods"] = methods_json(input.matrix);
  info["auto"] = auto_json(input.matrix, options);
  return info;
}

void print_histogram(const Json& row_lengths) {
  const auto& counts = row_lengths["log2_histogram"];
  const auto& labels = row_lengths["log2_histogram_buckets"];
  std::int64_t largest = 1;
  for (const auto& count : counts) largest = std::max(largest, count.get<std::int64_t>());
  constexpr int kBarWidth = 40;
  fmt::print("row-length histogram (log2 buckets):\n");
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const auto count = counts[k].get<std::int64_t>();
    const auto bar = static_cast<std::size_t>(kBarWidth * count / largest);
    fmt::print("  {:>13} {:>12}  {}\n", labels[k].get<std::string>(), count,
               std::string(bar == 0 && count > 0 ? 1 : bar, '#'));
  }
}

void print_info_text(const Json& info) {
  fmt::print("matrix:  {} ({})\n", info["matrix"].get<std::string>(),
             info["source"].get<std::string>());
  fmt::print("shape:   {} x {}, {} nonzeros (density {:.3g})\n", info["rows"].get<std::int64_t>(),
             info["cols"].get<std::int64_t>(), info["nnz"].get<std::int64_t>(),
             info["density"].get<double>());
  if (const auto non_finite = info["non_finite_values"].get<std::int64_t>(); non_finite > 0)
    fmt::print("values:  {} NaN or infinite (products keep them where they fall)\n", non_finite);
  if (info.contains("file")) {
    const auto& file = info["file"];
    fmt::print("file:    {} {}, {} entries stored, parsed at {:.1f} MB/s\n",
               file["field"].get<std::string>(), file["symmetry"].get<std::string>(),
               file["entries_in_file"].get<std::int64_t>(),
               file["parse_mb_per_second"].get<double>());
  }
  const auto& rows = info["row_lengths"];
  fmt::print("rows:    {} empty; length min {}, mean {:.2f}, max {}, stddev {:.2f}\n",
             rows["empty_rows"].get<std::int64_t>(), rows["min"].get<std::int64_t>(),
             rows["mean"].get<double>(), rows["max"].get<std::int64_t>(),
             rows["stddev"].get<double>());
  print_histogram(rows);
  const auto& choice = info["auto"];
  if (choice.contains("error"))
    fmt::print("auto:    {}\n", choice["error"].get<std::string>());
  else
    fmt::print("auto:    {} for {} in {} ({}; rule {})\n", choice["chosen"].get<std::string>(),
               choice["operation"].get<std::string>(), choice["precision"].get<std::string>(),
               choice["leaf"].get<std::string>(), choice["rule"].get<std::string>());
  fmt::print("host preprocessing per method:\n");
  for (const auto& [name, stats] : info["methods"].items())
    fmt::print("  {:<14} {}\n", name, stats.is_null() ? "(no host format)" : stats.dump());
}

int run_info(const InfoOptions& options) {
  ReadReport report;
  const bench::MatrixInput input = load_matrix(options.file, &report);
  const bool from_file = !is_generator_spec(options.file);
  const Json info = info_json(input, from_file ? &report : nullptr, options);
  if (options.json)
    fmt::print("{}\n", info.dump(2));
  else
    print_info_text(info);
  return kExitOk;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* sub = app.add_subcommand(
      "info", "Shape, row-length statistics and each method's preprocessing statistics");
  sub->add_option("FILE", options->file, "Matrix file or generator spec (gen:KIND:key=value,...)")
      ->required();
  sub->add_flag("--json", options->json, "Print one JSON object instead of text");
  sub->add_option("-p,--precision", options->precision,
                  "Precision of the request the automatic choice is shown for")
      ->check(CLI::IsMember({"fp64", "fp32", "fp16", "bf16"}))
      ->capture_default_str();
  sub->add_option("-n", options->n,
                  "SpMM with n columns for the automatic choice (0: SpMV)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 31))
      ->capture_default_str();
  return {sub, [options] { return run_info(*options); }};
}

}  // namespace tcsparse::cli
