// The shared host helpers of src/common: thread counts, the parallel scans, the uninitialised
// host buffer, the stopwatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/parallel.hpp"
#include "common/stopwatch.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {
namespace {

using detail::kItemsPerThread;

TEST(ThreadsFor, OneThreadForLittleWorkAndNeverMoreThanAsked) {
  EXPECT_EQ(detail::threads_for(0, 8), 1);
  EXPECT_EQ(detail::threads_for(2 * kItemsPerThread - 1, 8), 1);
  EXPECT_EQ(detail::threads_for(2 * kItemsPerThread, 8), 2);
  EXPECT_EQ(detail::threads_for(100 * kItemsPerThread, 8), 8);
  EXPECT_EQ(detail::threads_for(100 * kItemsPerThread, 1), 1);
  EXPECT_GE(detail::threads_for(100 * kItemsPerThread, 0), 1);  // 0: OpenMP's threads
}

/// 0, 1, 2, ... 6, 0, 1, ... : small counts whose prefix sums are easy to check.
std::vector<std::int64_t> sample_counts(std::int64_t n) {
  std::vector<std::int64_t> counts(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) counts[static_cast<std::size_t>(i)] = i % 7;
  return counts;
}

std::vector<std::int64_t> serial_exclusive_scan(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> offsets(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), std::int64_t{0});
  return offsets;
}

TEST(ExclusiveScanInPlace, MatchesTheSerialScanForAnyThreadCount) {
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000},
                               20 * kItemsPerThread + 3}) {
    for (const int threads : {1, 3, 0}) {
      std::vector<std::int64_t> counts = sample_counts(n);
      const auto expected = serial_exclusive_scan(counts);
      const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
      EXPECT_EQ(detail::exclusive_scan_in_place(counts, threads), total) << n << " " << threads;
      EXPECT_EQ(counts, expected) << n << " " << threads;
    }
  }
}

TEST(SortInParallel, GivesStdSortsOrderForAnyThreadCount) {
  // Enough elements for several threads (2 x kItemsPerThread each), with many equal keys.
  std::vector<std::pair<std::int64_t, std::int64_t>> items;
  std::uint64_t state = 12345;
  for (std::int64_t i = 0; i < 11 * detail::kItemsPerThread + 7; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    items.push_back({static_cast<std::int64_t>(state >> 50), i});
  }
  auto expected = items;
  std::sort(expected.begin(), expected.end());
  for (const int threads : {1, 2, 3, 5, 8}) {
    SCOPED_TRACE(threads);
    auto sorted = items;
    detail::sort_in_parallel(sorted.begin(), sorted.end(), threads);
    EXPECT_EQ(sorted, expected);
  }
  std::vector<int> few{3, 1, 2};
  detail::sort_in_parallel(few.begin(), few.end(), 8);
  EXPECT_EQ(few, (std::vector<int>{1, 2, 3}));
}

TEST(ExclusiveScanChecked, WritesNPlusOneOffsetsEndingWithTheTotal) {
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{5}, 20 * kItemsPerThread + 3}) {
    for (const int threads : {1, 4, 0}) {
      const auto counts = sample_counts(n);
      std::vector<std::int32_t> offsets;
      detail::exclusive_scan_checked(
          n, [&counts](std::int64_t i) { return counts[static_cast<std::size_t>(i)]; }, offsets,
          "the test values", threads);
      auto expected = serial_exclusive_scan(counts);
      expected.push_back(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}));
      ASSERT_EQ(offsets.size(), expected.size());
      EXPECT_TRUE(std::equal(offsets.begin(), offsets.end(), expected.begin()))
          << n << " " << threads;
    }
  }
}

TEST(ExclusiveScanChecked, ThrowsIndexOverflowErrorNamingWhatOverflowed) {
  // 2^20 ranges of 2^12 entries: 2^32 entries in all, more than int32 offsets address
  const std::int64_t n = std::int64_t{1} << 20;
  for (const int threads : {1, 0}) {
    std::vector<std::int32_t> offsets;
    try {
      detail::exclusive_scan_checked(
          n, [](std::int64_t) { return std::int64_t{1} << 12; }, offsets, "the padded rows",
          threads);
      FAIL() << "no IndexOverflowError";
    } catch (const IndexOverflowError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("the padded rows needs 4294967296 entries"), std::string::npos)
          << message;
      EXPECT_NE(message.find("32-bit"), std::string::npos) << message;
    }
  }
  // the same total fits 64-bit offsets
  std::vector<std::int64_t> offsets;
  detail::exclusive_scan_checked(
      n, [](std::int64_t) { return std::int64_t{1} << 12; }, offsets, "the padded rows");
  EXPECT_EQ(offsets.back(), std::int64_t{1} << 32);
}

TEST(RequireOffsetsFit, AcceptsTheLargestOffsetAndRefusesOneMore) {
  const std::int64_t largest = std::numeric_limits<std::int32_t>::max();
  EXPECT_NO_THROW(detail::require_offsets_fit<std::int32_t>(largest, "x"));
  EXPECT_THROW(detail::require_offsets_fit<std::int32_t>(largest + 1, "x"), IndexOverflowError);
}

TEST(UninitializedVector, BehavesAsAVectorWithSpanViews) {
  detail::UninitializedVector<std::int32_t> values(1000);
  ASSERT_EQ(values.size(), 1000u);
  std::iota(values.begin(), values.end(), 0);
  values.resize(2000);  // keeps what was written; the new tail is left for the caller to write
  for (std::size_t i = 1000; i < values.size(); ++i) values[i] = -1;
  EXPECT_EQ(values[999], 999);
  EXPECT_EQ(values.span().size(), 2000u);
  EXPECT_EQ(values.span().data(), values.data());
  const auto& view = values;
  EXPECT_EQ(view.span()[1999], -1);
  values.resize(10);
  EXPECT_EQ(values.span().back(), 9);
  EXPECT_TRUE(detail::UninitializedVector<double>().span().empty());
  // construction with a value still fills
  const detail::UninitializedVector<double> filled(4, 2.5);
  EXPECT_EQ(filled[3], 2.5);
}

TEST(Stopwatch, IsMonotonicAndMeasuresASleep) {
  detail::Stopwatch stopwatch;
  const double first = stopwatch.elapsed_ms();
  EXPECT_GE(first, 0.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double second = stopwatch.elapsed_ms();
  EXPECT_GE(second, first);
  EXPECT_GE(second, 5.0);
  EXPECT_GE(stopwatch.elapsed_seconds(), second * 1e-3);
  stopwatch.restart();
  EXPECT_LT(stopwatch.elapsed_ms(), second);

  const detail::SteadyTime start = std::chrono::steady_clock::now();
  const double ms = detail::milliseconds_since(start);
  EXPECT_GE(ms, 0.0);
  EXPECT_GE(detail::seconds_since(start), ms * 1e-3);
}

}  // namespace
}  // namespace tcsparse
