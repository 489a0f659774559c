// Wall-clock timing of host work on the steady clock: the one timer of the library, the CLI and
// the benchmark harness (device work is timed with CUDA events instead).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace tcsparse::detail {

using SteadyTime = std::chrono::steady_clock::time_point;

/// Milliseconds from `start` to now.
inline double milliseconds_since(SteadyTime start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Seconds from `start` to now.
inline double seconds_since(SteadyTime start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Measures from its construction (or the last restart) to each elapsed_*() call.
class Stopwatch {
 public:
  Stopwatch() = default;

  double elapsed_ms() const { return milliseconds_since(start_); }
  double elapsed_seconds() const { return seconds_since(start_); }
  /// Starts again from now.
  void restart() { start_ = std::chrono::steady_clock::now(); }

 private:
  SteadyTime start_ = std::chrono::steady_clock::now();
};

/// Named laps of one piece of work (e.g. the phases of a host layout build): lap(name) records
/// the milliseconds since the previous lap (or the construction) under `name`.
class PhaseTimes {
 public:
  void lap(std::string name) {
    laps_.emplace_back(std::move(name), since_.elapsed_ms());
    since_.restart();
  }
  /// Starts the next lap from now (time since the last lap is not recorded).
  void skip() { since_.restart(); }
  const std::vector<std::pair<std::string, double>>& laps() const { return laps_; }

 private:
  Stopwatch since_;
  std::vector<std::pair<std::string, double>> laps_;
};

}  // namespace tcsparse::detail
