// OpenMP helpers shared by every host part of the library (the CSR code and the readers in
// src/core, the methods' host formats such as src/dasp): how many threads a loop is worth,
// the parallel exclusive scan, the parallel sort; and (uninitialized_vector.hpp) host arrays
// that are not zero-filled on allocation.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/omp_thread_limit.hpp"
#include "common/uninitialized_vector.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

/// Items (rows, values) of work worth one thread: a loop gets one thread per this many items,
/// so below twice this it runs on one thread (starting a team costs more than it saves).
inline constexpr std::int64_t kItemsPerThread = 1 << 15;


/// Threads worth using for `items` items of work: one per kItemsPerThread items, at least one,
/// at most resolve_threads(requested).
inline int threads_for(std::int64_t items, int requested) {
  const std::int64_t useful = std::max<std::int64_t>(1, items / kItemsPerThread);
  return static_cast<int>(std::min<std::int64_t>(resolve_threads(requested), useful));
}

/// The smallest i in [0, count) with failing(i), or -1 when there is none. Parallel for large
/// counts; the answer does not depend on the number of threads.
/// `work`: the items of work all `count` predicates take together (e.g. the nonzeros of the
/// rows checked), which sets the team (threads_for); by default `count`.
template <typename Predicate>
std::int64_t first_failing(std::int64_t count, int threads, Predicate failing,
                           std::int64_t work = -1) {
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  const int team = static_cast<int>(std::min<std::int64_t>(
      std::max<std::int64_t>(1, count), threads_for(std::max(work, count), threads)));
#pragma omp parallel for num_threads(team) schedule(static) reduction(min : first) if (team > 1)
  for (std::int64_t i = 0; i < count; ++i)
    if (i < first && failing(i)) first = i;
  return first == std::numeric_limits<std::int64_t>::max() ? -1 : first;
}

/// Sorts [first, last) as std::sort does (the same order when no two elements compare equal):
/// one block per thread sorted in parallel, then the blocks merged pairwise in parallel rounds
/// (std::inplace_merge). One thread below 2 x kItemsPerThread elements.
template <typename Iterator>
void sort_in_parallel(Iterator first, Iterator last, int threads) {
  const auto count = static_cast<std::int64_t>(last - first);
  const int team = threads_for(count, threads);
  if (team <= 1) {
    std::sort(first, last);
    return;
  }
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(team) + 1);
  for (int b = 0; b <= team; ++b) bounds[static_cast<std::size_t>(b)] = count * b / team;
  const auto at = [&](int block) { return first + bounds[static_cast<std::size_t>(block)]; };
#pragma omp parallel for num_threads(team) schedule(static, 1)
  for (int b = 0; b < team; ++b) std::sort(at(b), at(b + 1));
  for (int width = 1; width < team; width *= 2) {
    const int merges = (team + 2 * width - 1) / (2 * width);
#pragma omp parallel for num_threads(merges) schedule(static, 1) if (merges > 1)
    for (int m = 0; m < merges; ++m) {
      const int left = m * 2 * width;
      const int middle = std::min(left + width, team);
      const int right = std::min(left + 2 * width, team);
      if (middle < right) std::inplace_merge(at(left), at(middle), at(right));
    }
  }
}

/// The blocked exclusive scan behind the two below. For i in [0, n): write(i, offset) with
/// offset = count(0) + ... + count(i - 1), summed in Sum; returns the total. count(i) is read
/// before write(i, ...), so the scan may run in place. check_total(total) runs once every count
/// is summed and before anything is written (it may throw). In parallel for large n: each
/// thread sums its block, the block totals are scanned, then each thread writes its block.
template <typename Sum, typename Count, typename Write, typename CheckTotal>
Sum blocked_exclusive_scan(std::int64_t n, int threads, Count count, Write write,
                           CheckTotal check_total) {
  const int team = threads_for(n, threads);
  if (team <= 1) {
    Sum total = 0;
    for (std::int64_t i = 0; i < n; ++i) total += count(i);
    check_total(total);
    Sum running = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const Sum item = count(i);
      write(i, running);
      running += item;
    }
    return total;
  }
  // block_offsets[t + 1] = the sum of block t, then (scanned) where block t + 1 starts
  std::vector<Sum> block_offsets(static_cast<std::size_t>(team) + 1, 0);
  int team_size = 1;
  auto block = [&n](int thread, int threads_in_team) {
    return std::pair<std::int64_t, std::int64_t>{n * thread / threads_in_team,
                                                 n * (thread + 1) / threads_in_team};
  };
#pragma omp parallel num_threads(team)
  {
    const int thread = omp_get_thread_num();
    const int threads_in_team = omp_get_num_threads();  // OpenMP may give fewer than asked
    if (thread == 0) team_size = threads_in_team;
    const auto [begin, end] = block(thread, threads_in_team);
    Sum sum = 0;
    for (std::int64_t i = begin; i < end; ++i) sum += count(i);
    block_offsets[static_cast<std::size_t>(thread) + 1] = sum;
  }
  for (std::size_t t = 1; t <= static_cast<std::size_t>(team_size); ++t)
    block_offsets[t] += block_offsets[t - 1];
  const Sum total = block_offsets[static_cast<std::size_t>(team_size)];
  check_total(total);  // outside the parallel regions: an exception may leave
  // the blocks of the first pass, whatever team OpenMP gives this time
#pragma omp parallel for num_threads(team_size) schedule(static, 1)
  for (int b = 0; b < team_size; ++b) {
    const auto [begin, end] = block(b, team_size);
    Sum running = block_offsets[static_cast<std::size_t>(b)];
    for (std::int64_t i = begin; i < end; ++i) {
      const Sum item = count(i);
      write(i, running);
      running += item;
    }
  }
  return total;
}

/// In place: counts[i] becomes the sum of counts[0..i) (exclusive prefix sum); returns the
/// total. Sums in T: the caller makes sure the total fits.
template <typename T>
T exclusive_scan_in_place(std::vector<T>& counts, int threads) {
  return blocked_exclusive_scan<T>(
      static_cast<std::int64_t>(counts.size()), threads,
      [&counts](std::int64_t i) { return counts[static_cast<std::size_t>(i)]; },
      [&counts](std::int64_t i, T offset) { counts[static_cast<std::size_t>(i)] = offset; },
      [](T) {});
}

/// Throws IndexOverflowError when `count` entries cannot be addressed by Offset:
/// "<what> needs N entries, more than 32-bit offsets can address".
template <typename Offset>
void require_offsets_fit(std::int64_t count, const std::string& what) {
  if (count > static_cast<std::int64_t>(std::numeric_limits<Offset>::max()))
    throw IndexOverflowError(what + " needs " + std::to_string(count) + " entries, more than " +
                             std::to_string(8 * sizeof(Offset)) + "-bit offsets can address");
}

/// Offsets of n consecutive ranges of count(i) entries: offsets gets n + 1 entries,
/// offsets[i] = count(0) + ... + count(i - 1) and offsets[n] the total, summed in 64 bits.
/// Throws IndexOverflowError (require_offsets_fit, naming `what`) before writing when the
/// total does not fit Offset. In parallel for large n (threads: as resolve_threads).
template <typename Offset, typename Count>
void exclusive_scan_checked(std::int64_t n, Count count, std::vector<Offset>& offsets,
                            const std::string& what, int threads = 0) {
  offsets.resize(static_cast<std::size_t>(n) + 1);
  const std::int64_t total = blocked_exclusive_scan<std::int64_t>(
      n, threads, [&count](std::int64_t i) { return static_cast<std::int64_t>(count(i)); },
      [&offsets](std::int64_t i, std::int64_t offset) {
        offsets[static_cast<std::size_t>(i)] = static_cast<Offset>(offset);
      },
      [&what](std::int64_t sum) { require_offsets_fit<Offset>(sum, what); });
  offsets[static_cast<std::size_t>(n)] = static_cast<Offset>(total);
}

/// The inverse of a permutation `order` of [0, n): inverse[order[p]] = p (a plan's caller_to_plan
/// from its plan_to_caller). Parallel for large n.
inline std::vector<std::int32_t> inverse_order(const std::int32_t* order, std::int64_t n) {
  std::vector<std::int32_t> inverse(static_cast<std::size_t>(n));
  const int team = threads_for(n, 0);
#pragma omp parallel for num_threads(team) if (team > 1) schedule(static)
  for (std::int64_t p = 0; p < n; ++p)
    inverse[static_cast<std::size_t>(order[p])] = static_cast<std::int32_t>(p);
  return inverse;
}

}  // namespace tcsparse::detail
