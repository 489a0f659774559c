// Small OpenMP helpers shared by the CSR code and the readers (private to src/core).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace tcsparse::detail {

/// Below this many items a loop runs on one thread: starting a team costs more than it saves.
inline constexpr std::int64_t kParallelThreshold = 1 << 16;

/// An allocator whose resize() leaves new elements default-initialised (so uninitialised for
/// integers and doubles): the COO and sort-key arrays of the readers are written in parallel
/// right after, and a serial zero-fill would cost as much as the parallel writes.
template <typename T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <typename U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}

  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A vector whose resize() does not zero-fill (see DefaultInitAllocator).
template <typename T>
using UninitializedVector = std::vector<T, DefaultInitAllocator<T>>;

/// `requested` threads, or all of OpenMP's when it is 0 or negative.
inline int resolve_threads(int requested) {
  return requested > 0 ? requested : std::max(1, omp_get_max_threads());
}

/// Threads worth using for `items` items of work.
inline int threads_for(std::int64_t items, int requested) {
  return items < kParallelThreshold ? 1 : resolve_threads(requested);
}

/// The smallest i in [0, count) with failing(i), or -1 when there is none. Parallel for large
/// counts; the answer does not depend on the number of threads.
template <typename Predicate>
std::int64_t first_failing(std::int64_t count, int threads, Predicate failing) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  const int team = threads_for(count, threads);
#pragma omp parallel for num_threads(team) schedule(static) reduction(min : first) if (team > 1)
  for (std::int64_t i = 0; i < count; ++i)
    if (i < first && failing(i)) first = i;
  return first == std::numeric_limits<std::int64_t>::max() ? -1 : first;
}

/// In place: counts[i] becomes the sum of counts[0..i) (exclusive prefix sum); returns the
/// total. Blocked in parallel for long arrays: each thread sums its block, the block totals are
/// scanned, then each thread scans its block from its offset.
template <typename T>
T exclusive_scan_in_place(std::vector<T>& counts, int threads) {
  const auto size = static_cast<std::int64_t>(counts.size());
  const int team = threads_for(size, threads);
  if (team <= 1) {
    T running = 0;
    for (auto& c : counts) {
      const T count = c;
      c = running;
      running += count;
    }
    return running;
  }
  std::vector<T> block_totals(static_cast<std::size_t>(team) + 1, 0);
  int team_size = 1;
#pragma omp parallel num_threads(team)
  {
    const int thread = omp_get_thread_num();
    const int actual = omp_get_num_threads();
    if (thread == 0) team_size = actual;
    const std::int64_t begin = size * thread / actual;
    const std::int64_t end = size * (thread + 1) / actual;
    T sum = 0;
    for (std::int64_t i = begin; i < end; ++i) sum += counts[static_cast<std::size_t>(i)];
    block_totals[static_cast<std::size_t>(thread) + 1] = sum;
#pragma omp barrier
#pragma omp single
    {
      for (int t = 1; t <= actual; ++t)
        block_totals[static_cast<std::size_t>(t)] += block_totals[static_cast<std::size_t>(t) - 1];
    }
    T running = block_totals[static_cast<std::size_t>(thread)];
    for (std::int64_t i = begin; i < end; ++i) {
      const T count = counts[static_cast<std::size_t>(i)];
      counts[static_cast<std::size_t>(i)] = running;
      running += count;
    }
  }
  return block_totals[static_cast<std::size_t>(team_size)];
}

}  // namespace tcsparse::detail
