// Wall-clock timing of host work on the steady clock: the one timer of the library, the CLI and
// the benchmark harness (device work is timed with CUDA events instead).
#pragma once

#include <chrono>

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

}  // namespace tcsparse::detail
