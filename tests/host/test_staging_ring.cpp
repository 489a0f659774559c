// The host side of the staged upload (src/runtime/staging_ring.hpp), without a GPU: slices of a
// copy cover it exactly; stage_through_ring delivers every byte for sizes around the chunk size
// (0, 1, chunk - 1, chunk, chunk + 1, many chunks), on 1 and several threads, with rings of 1-4
// chunks, never refilling a chunk before its (simulated, deferred) DMA has read it; an error of
// the DMA stops the copy and reaches the caller. Also OmpThreadLimitScope and first_failing's
// team by work.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <vector>

#include "common/parallel.hpp"
#include "runtime/staging_ring.hpp"

namespace tcsparse {
namespace {

using detail::host_copy_slice;
using detail::stage_through_ring;

std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  return data;
}

TEST(HostCopySlices, CoverTheCopyExactlyInAlignedOrderedSlices) {
  for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                                  std::size_t{65}, std::size_t{1000}, std::size_t{3 * 4096 + 7},
                                  std::size_t{(8u << 20) + 12345}})
    for (int slices = 1; slices <= 17; ++slices) {
      std::size_t expected_begin = 0;
      for (int s = 0; s < slices; ++s) {
        const auto [begin, end] = host_copy_slice(bytes, s, slices);
        EXPECT_EQ(begin, expected_begin) << bytes << " bytes, slice " << s << " of " << slices;
        EXPECT_LE(begin, end);
        EXPECT_EQ(begin % detail::kHostCopySliceAlignment, 0u);
        expected_begin = end;
      }
      EXPECT_EQ(expected_begin, bytes) << bytes << " bytes in " << slices << " slices";
    }
}

/// A fake device: ship() queues the chunk's DMA and does not read it yet; wait(chunk) runs the
/// queued DMAs up to the last one of that chunk (as cudaEventSynchronize would let them finish),
/// copying from the chunk as it is *then*. A ring that refilled a chunk before waiting for it
/// would deliver the wrong bytes.
struct DeferredDevice {
  struct Dma {
    int chunk;
    std::size_t offset, size;
  };
  std::vector<std::vector<std::byte>>& chunks;
  std::vector<std::byte> memory;
  std::deque<Dma> queued;
  std::vector<int> waits, ships;
  int fail_at_ship = -1;

  void run_until(int chunk) {
    std::size_t last = queued.size();
    for (std::size_t i = 0; i < queued.size(); ++i)
      if (queued[i].chunk == chunk) last = i;
    if (last == queued.size()) return;
    for (std::size_t i = 0; i <= last; ++i) run_front();
  }
  void run_front() {
    const Dma dma = queued.front();
    queued.pop_front();
    std::copy_n(chunks[static_cast<std::size_t>(dma.chunk)].begin(), dma.size,
                memory.begin() + static_cast<std::ptrdiff_t>(dma.offset));
  }
  void wait(int chunk) {
    waits.push_back(chunk);
    run_until(chunk);
  }
  void ship(int chunk, std::size_t offset, std::size_t size) {
    if (static_cast<int>(ships.size()) == fail_at_ship) throw std::runtime_error("DMA failed");
    ships.push_back(chunk);
    queued.push_back({chunk, offset, size});
  }
  void drain() {
    while (!queued.empty()) run_front();
  }
};

void expect_staged_exactly(std::size_t bytes, std::size_t chunk_bytes, int chunk_count,
                           int threads) {
  const std::vector<std::byte> source = pattern(bytes);
  std::vector<std::vector<std::byte>> chunks(static_cast<std::size_t>(chunk_count),
                                             std::vector<std::byte>(chunk_bytes, std::byte{0x5A}));
  std::vector<std::byte*> pointers;
  for (auto& chunk : chunks) pointers.push_back(chunk.data());
  DeferredDevice device{chunks, std::vector<std::byte>(bytes + 1, std::byte{0xEE}), {}, {}, {}};
  stage_through_ring(
      pointers.data(), chunk_count, chunk_bytes, source.data(), bytes, threads,
      [&](int chunk) { device.wait(chunk); },
      [&](int chunk, std::size_t offset, std::size_t size) { device.ship(chunk, offset, size); });
  device.drain();
  const std::string what = std::to_string(bytes) + " bytes, chunks of " +
                           std::to_string(chunk_bytes) + " x " + std::to_string(chunk_count) +
                           ", " + std::to_string(threads) + " threads";
  EXPECT_TRUE(std::equal(source.begin(), source.end(), device.memory.begin())) << what;
  EXPECT_EQ(device.memory[bytes], std::byte{0xEE}) << what << ": wrote past the end";
  const std::size_t pieces = (bytes + chunk_bytes - 1) / chunk_bytes;
  ASSERT_EQ(device.ships.size(), pieces) << what;
  ASSERT_EQ(device.waits.size(), pieces) << what;  // one wait before every fill
  for (std::size_t k = 0; k < pieces; ++k) {
    EXPECT_EQ(device.ships[k], static_cast<int>(k % static_cast<std::size_t>(chunk_count)));
    EXPECT_EQ(device.waits[k], device.ships[k]);
  }
}

TEST(StageThroughRing, EveryByteArrivesAroundTheChunkSize) {
  constexpr std::size_t chunk = 4096;
  for (const std::size_t bytes :
       {std::size_t{0}, std::size_t{1}, chunk - 1, chunk, chunk + 1, 5 * chunk + 123})
    for (const int chunk_count : {1, 2, 3, 4})
      for (const int threads : {1, 4}) expect_staged_exactly(bytes, chunk, chunk_count, threads);
}

TEST(StageThroughRing, ManyThreadsSliceLargeChunksCorrectly) {
  // 4 MiB chunks: kHostCopyBytesPerThread gives every thread of the team a slice
  const std::size_t chunk = std::size_t{4} << 20;
  const int threads = std::min(8, detail::resolve_threads(0) * 2);  // more than cores is fine
  expect_staged_exactly(3 * chunk + 777, chunk, 2, threads);
  expect_staged_exactly(chunk - 1, chunk, 3, threads);
}

TEST(StageThroughRing, AFailingDmaStopsTheCopyAndReachesTheCaller) {
  const std::size_t chunk = 1024;
  const std::vector<std::byte> source = pattern(10 * chunk);
  std::vector<std::vector<std::byte>> chunks(2, std::vector<std::byte>(chunk));
  std::vector<std::byte*> pointers{chunks[0].data(), chunks[1].data()};
  DeferredDevice device{chunks, std::vector<std::byte>(source.size()), {}, {}, {}};
  device.fail_at_ship = 3;
  for (const int threads : {1, 4}) {
    device.ships.clear();
    EXPECT_THROW(stage_through_ring(
                     pointers.data(), 2, chunk, source.data(), source.size(), threads,
                     [&](int c) { device.wait(c); },
                     [&](int c, std::size_t offset, std::size_t size) { device.ship(c, offset, size); }),
                 std::runtime_error);
    EXPECT_EQ(device.ships.size(), 3u) << "no DMA after the failing one";
  }
}

TEST(StageThroughRing, RefusesARingWithoutChunks) {
  const std::vector<std::byte> source = pattern(10);
  EXPECT_THROW(stage_through_ring(
                   nullptr, 0, 16, source.data(), source.size(), 1, [](int) {},
                   [](int, std::size_t, std::size_t) {}),
               Error);
}

TEST(OmpThreadLimitScope, LimitsThisThreadAndRestores) {
  const int before = omp_get_max_threads();
  {
    const detail::OmpThreadLimitScope limit(1);
    EXPECT_EQ(omp_get_max_threads(), 1);
    EXPECT_EQ(detail::resolve_threads(0), 1);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
  {
    const detail::OmpThreadLimitScope unchanged(0);
    EXPECT_EQ(omp_get_max_threads(), before);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(FirstFailing, ATeamSizedByWorkFindsTheFirstFailureOfFewItems) {
  // 16 items of much work each: the answer is the smallest failing index whatever the team
  for (const std::int64_t failing_from : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{7},
                                          std::int64_t{15}}) {
    const std::int64_t found = detail::first_failing(
        16, 0, [&](std::int64_t i) { return failing_from >= 0 && i >= failing_from; },
        std::int64_t{1} << 24);
    EXPECT_EQ(found, failing_from);
  }
}

}  // namespace
}  // namespace tcsparse
