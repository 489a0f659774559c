// OpenMP thread counts apart from parallel.hpp, so that CUDA sources (compiled without OpenMP's
// pragmas) can use them without including parallel loops they cannot compile as such.
#pragma once

#include <omp.h>

#include <algorithm>

namespace tcsparse::detail {

/// `requested` threads, or all of OpenMP's when it is 0 or negative.
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : std::max(1, omp_get_max_threads());
}

/// Sets omp_get_max_threads() of the calling thread (its OpenMP nthreads ICV; other threads keep
/// theirs) for the scope's lifetime; 0 or less changes nothing. Lets a plan split the cores
/// between its host loops and an upload running on another thread.
class OmpThreadLimitScope {
 public:
  explicit OmpThreadLimitScope(int threads) : previous_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~OmpThreadLimitScope() { omp_set_num_threads(previous_); }
  OmpThreadLimitScope(const OmpThreadLimitScope&) = delete;
  OmpThreadLimitScope& operator=(const OmpThreadLimitScope&) = delete;

 private:
  int previous_;
};

}  // namespace tcsparse::detail
