// What `tcsparse bench` prints while it runs (progress on stderr) and at the end (speedup tables
// over cuSPARSE on stdout).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "harness.hpp"

namespace tcsparse::cli {

/// "[  12/340] name  method precision": one updating line on a terminal, else one line per
/// matrix (so logs stay short).
class Progress {
 public:
  explicit Progress(std::int64_t total_cases);
  void start_matrix(const std::string& name, std::int64_t cases);
  void start_case(const std::string& matrix, const bench::CaseRequest& request);
  /// Cases that will not run (the matrix failed to load or was filtered out).
  void skip_cases(std::int64_t cases);
  /// Prints a message on its own line (breaking the terminal's progress line first).
  void message(const std::string& text);
  void finish();

 private:
  std::int64_t total_ = 0;
  std::int64_t done_ = 0;
  bool terminal_ = false;
  bool line_open_ = false;
};

/// One markdown table per (operation, n, precision): rows are matrices, columns cuSPARSE's time
/// and bandwidth and each other method's speedup over cuSPARSE (default algorithm, same
/// precision), and a geometric-mean row. "!" marks a result that failed its check.
void print_speedup_tables(std::FILE* out, const std::vector<bench::BenchRecord>& records);

/// Lists the failed checks and the errors; returns how many there were.
std::int64_t print_problems(std::FILE* out, const std::vector<bench::BenchRecord>& records);

}  // namespace tcsparse::cli
