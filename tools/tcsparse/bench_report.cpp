#include "bench_report.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/core.h>

#include "tcsparse/plan.hpp"

namespace tcsparse::cli {

// ---- progress ----

Progress::Progress(std::int64_t total_cases)
    : total_(total_cases), terminal_(isatty(fileno(stderr)) != 0) {}

void Progress::start_matrix(const std::string& name, std::int64_t cases) {
  if (!terminal_) fmt::print(stderr, "[{:>6}/{}] {}  ({} cases)\n", done_ + 1, total_, name, cases);
}

void Progress::start_case(const std::string& matrix, const bench::CaseRequest& request) {
  ++done_;
  if (!terminal_) return;
  const std::string n =
      request.operation == Operation::spmm ? fmt::format(" n={}", request.n) : std::string();
  fmt::print(stderr, "\r[{:>6}/{}] {}  {} {} {}{}\033[K", done_, total_, matrix,
             bench::operation_name(request.operation), to_string(request.method),
             to_string(request.precision), n);
  line_open_ = true;
}

void Progress::skip_cases(std::int64_t cases) { done_ += cases; }

void Progress::message(const std::string& text) {
  if (line_open_) fmt::print(stderr, "\n");
  line_open_ = false;
  fmt::print(stderr, "{}\n", text);
}

void Progress::finish() {
  if (line_open_) fmt::print(stderr, "\n");
  line_open_ = false;
}

// ---- speedup tables ----

namespace {

using bench::BenchRecord;

/// The records of one table: same operation, n and precision.
using TableKey = std::tuple<std::string, std::int64_t, std::string>;

struct Table {
  std::vector<std::string> matrices;  ///< in the order they ran
  std::vector<std::string> methods;   ///< non-baseline methods in the library's order, then variants
  std::map<std::pair<std::string, std::string>, const BenchRecord*> cells;  ///< (matrix, method)
};

const std::string kBaseline = "cusparse";  ///< the method every speedup is over

/// The tables in the order their first record ran (so fp64 comes first, as benchmarks run it).
std::vector<std::pair<TableKey, Table>> group_into_tables(const std::vector<BenchRecord>& records) {
  std::vector<std::pair<TableKey, Table>> tables;
  for (const BenchRecord& record : records) {
    const TableKey key{record.operation, record.n, record.precision};
    auto it = std::find_if(tables.begin(), tables.end(),
                           [&](const auto& entry) { return entry.first == key; });
    if (it == tables.end()) it = tables.insert(tables.end(), {key, Table{}});
    Table& table = it->second;
    if (std::find(table.matrices.begin(), table.matrices.end(), record.matrix) ==
        table.matrices.end())
      table.matrices.push_back(record.matrix);
    table.cells[{record.matrix, record.method_label()}] = &record;
  }
  for (auto& [key, table] : tables) {
    for (const Method method : methods()) {
      const std::string name(method.name());
      if (name == kBaseline) continue;
      const bool present = std::any_of(table.matrices.begin(), table.matrices.end(),
                                       [&](const std::string& m) {
                                         return table.cells.count({m, name}) > 0;
                                       });
      if (present) table.methods.push_back(name);
    }
    for (const BenchRecord& record : records)  // variants, in the order they ran
      if (!record.variant.empty() &&
          TableKey{record.operation, record.n, record.precision} == key &&
          std::find(table.methods.begin(), table.methods.end(), record.method_label()) ==
              table.methods.end())
        table.methods.push_back(record.method_label());
  }
  return tables;
}

const BenchRecord* find_cell(const Table& table, const std::string& matrix,
                             const std::string& method) {
  const auto it = table.cells.find({matrix, method});
  return it == table.cells.end() ? nullptr : it->second;
}

bool has_time(const BenchRecord* record) {
  return record && !record->error && record->median_ms > 0;
}

std::optional<double> speedup(const BenchRecord* baseline, const BenchRecord* method) {
  if (!has_time(baseline) || !has_time(method)) return std::nullopt;
  return baseline->median_ms / method->median_ms;
}

std::string speedup_cell(const BenchRecord* baseline, const BenchRecord* method) {
  if (!method) return "-";
  if (method->error) return "error";
  const auto value = speedup(baseline, method);
  if (!value) return "n/a";
  return fmt::format("{:.2f}x{}", *value, method->check_passed ? "" : "!");
}

std::string baseline_cells(const BenchRecord* baseline) {
  if (!baseline) return "- | -";
  if (baseline->error) return "error | error";
  return fmt::format("{:.4f}{} | {:.0f}", baseline->median_ms,
                     baseline->check_passed ? "" : "!", baseline->gbps);
}

std::string geomean_cell(const Table& table, const std::string& method) {
  double log_sum = 0.0;
  int count = 0;
  for (const std::string& matrix : table.matrices) {
    const BenchRecord* baseline = find_cell(table, matrix, kBaseline);
    const BenchRecord* other = find_cell(table, matrix, method);
    if (!baseline || !other || !baseline->check_passed || !other->check_passed) continue;
    if (const auto value = speedup(baseline, other)) {
      log_sum += std::log(*value);
      ++count;
    }
  }
  return count ? fmt::format("{:.2f}x ({})", std::exp(log_sum / count), count) : "-";
}

void print_table(std::FILE* out, const TableKey& key, const Table& table) {
  const auto& [operation, n, precision] = key;
  fmt::print(out, "\n### {} {}{}: speedup over {} (same precision)\n\n", operation, precision,
             operation == "spmm" ? fmt::format(" n={}", n) : std::string(), kBaseline);
  std::string header = "| matrix | nnz | cusparse ms | cusparse GB/s |";
  std::string rule = "|---|---:|---:|---:|";
  for (const std::string& method : table.methods) {
    header += fmt::format(" {} |", method);
    rule += "---:|";
  }
  fmt::print(out, "{}\n{}\n", header, rule);
  for (const std::string& matrix : table.matrices) {
    const BenchRecord* baseline = find_cell(table, matrix, kBaseline);
    const BenchRecord* any = table.cells.lower_bound({matrix, ""})->second;
    std::string row = fmt::format("| {} | {} | {} |", matrix, any->nnz, baseline_cells(baseline));
    for (const std::string& method : table.methods)
      row += fmt::format(" {} |", speedup_cell(baseline, find_cell(table, matrix, method)));
    fmt::print(out, "{}\n", row);
  }
  std::string footer = "| geomean (matrices) | | | |";
  for (const std::string& method : table.methods)
    footer += fmt::format(" {} |", geomean_cell(table, method));
  fmt::print(out, "{}\n", footer);
}

}  // namespace

void print_speedup_tables(std::FILE* out, const std::vector<BenchRecord>& records) {
  for (const auto& [key, table] : group_into_tables(records)) print_table(out, key, table);
  fmt::print(out, "\n(! = failed the check against the CPU reference: time shown, left out of the "
             "geomean; (k) = matrices in the geomean)\n");
}

std::int64_t print_problems(std::FILE* out, const std::vector<BenchRecord>& records) {
  std::int64_t problems = 0;
  for (const BenchRecord& record : records) {
    const std::string what = fmt::format("{} {} {} {}", record.matrix, record.operation,
                                         record.method_label(), record.precision);
    if (record.error) {
      fmt::print(out, "ERROR         {}: {}\n", what, *record.error);
      ++problems;
    } else if (!record.check_passed) {
      fmt::print(out, "CHECK FAILED  {}: relative error {:.3g} >= {:.0e}\n", what,
                 record.rel_error, record.error_threshold);
      ++problems;
    }
  }
  return problems;
}

}  // namespace tcsparse::cli
