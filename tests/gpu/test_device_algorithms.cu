// runtime/device_algorithms.cuh on the GPU: the two stable radix sorts that the GPU builds use
// (DASP's rows by category, HBP's slots by column block and hash) give std::stable_sort's order of
// the same pairs, by the key's low `bits` bits, for keys of 32 and 64 bits and any bit count; the
// double-buffered one says truly which buffers hold the result; the scan of two arrays of counts
// (HBP's steps 1 and 3: two counts packed in a 64-bit word) gives each array's exclusive prefix
// sums, in place too, up to sums just below 2^31.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/device_buffer.hpp"

namespace tcsparse {
namespace {

using detail::DeviceBuffer;
using detail::DeviceScratch;

class DeviceAlgorithmsTest : public testing::GpuTest {};

/// n keys with few distinct values in their low `bits` bits (many ties, so that stability shows)
/// and random high bits above them (which the sort must ignore).
template <typename Key>
std::vector<Key> keys_with_ties(std::size_t n, int bits, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int key_bits = 8 * static_cast<int>(sizeof(Key));
  const std::uint64_t low_mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::uniform_int_distribution<std::uint64_t> few(0, 40);
  std::vector<Key> keys(n);
  for (Key& key : keys) {
    // ties: a few values spread over the low bits (times a large odd factor, masked)
    const std::uint64_t low = (few(rng) * 0x9E3779B97F4A7C15ull) & low_mask;
    const std::uint64_t high = bits >= key_bits ? 0 : rng() << bits;
    key = static_cast<Key>(high | low);
  }
  return keys;
}

/// The pairs (key, index) in std::stable_sort's order of the keys' low `bits` bits.
template <typename Key>
void host_stable_sort(std::vector<Key>& keys, std::vector<std::int32_t>& indices, int bits) {
  const std::uint64_t low_mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return (static_cast<std::uint64_t>(keys[a]) & low_mask) <
           (static_cast<std::uint64_t>(keys[b]) & low_mask);
  });
  std::vector<Key> sorted_keys(keys.size());
  std::vector<std::int32_t> sorted_indices(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    sorted_keys[i] = keys[order[i]];
    sorted_indices[i] = indices[order[i]];
  }
  keys = std::move(sorted_keys);
  indices = std::move(sorted_indices);
}

/// Sorts random pairs on the GPU both ways and compares each with the host's stable sort. The
/// keys' bits above `bits` are ignored by the sort but still carried: compared as whole keys.
template <typename Key>
void check_sorts(std::size_t n, int bits, std::uint64_t seed) {
  SCOPED_TRACE(::testing::Message() << n << " pairs, " << 8 * sizeof(Key) << "-bit keys sorted by "
                                    << bits << " bits");
  const std::vector<Key> keys = keys_with_ties<Key>(n, bits, seed);
  std::vector<std::int32_t> indices(n);
  std::iota(indices.begin(), indices.end(), 0);
  std::vector<Key> expected_keys = keys;
  std::vector<std::int32_t> expected_indices = indices;
  host_stable_sort(expected_keys, expected_indices, bits);

  detail::CudaStream stream;
  DeviceScratch scratch(stream.get());

  const DeviceBuffer<Key> keys_in(keys);
  const DeviceBuffer<std::int32_t> indices_in(indices);
  DeviceBuffer<Key> keys_out(n);
  DeviceBuffer<std::int32_t> indices_out(n);
  detail::stable_sort_pairs(scratch, keys_in.data(), keys_out.data(), indices_in.data(),
                            indices_out.data(), static_cast<std::int64_t>(n), bits, "pairs");
  scratch.synchronize();
  EXPECT_EQ(keys_out.download(), expected_keys);
  EXPECT_EQ(indices_out.download(), expected_indices);

  DeviceBuffer<Key> keys_first(keys), keys_second(n);
  DeviceBuffer<std::int32_t> indices_first(indices), indices_second(n);
  const bool in_second = detail::stable_sort_pairs_double_buffered(
      scratch, keys_first.data(), keys_second.data(), indices_first.data(), indices_second.data(),
      static_cast<std::int64_t>(n), bits, "pairs");
  scratch.synchronize();
  EXPECT_EQ((in_second ? keys_second : keys_first).download(), expected_keys);
  EXPECT_EQ((in_second ? indices_second : indices_first).download(), expected_indices);
}

TEST_F(DeviceAlgorithmsTest, StableSortsOf32BitKeysGiveTheHostStableOrderAtEveryBitCount) {
  for (const int bits : {1, 3, 8, 13, 24, 31, 32}) check_sorts<std::uint32_t>(100'003, bits, 7 + bits);
}

TEST_F(DeviceAlgorithmsTest, StableSortsOf64BitKeysGiveTheHostStableOrderAtEveryBitCount) {
  for (const int bits : {1, 17, 33, 40, 63, 64}) check_sorts<std::uint64_t>(70'001, bits, 11 + bits);
}

TEST_F(DeviceAlgorithmsTest, StableSortsOfOneAndOfTwoPairsAreRight) {
  check_sorts<std::uint32_t>(1, 5, 1);
  check_sorts<std::uint32_t>(2, 5, 2);
  check_sorts<std::uint64_t>(2, 64, 3);
}

TEST_F(DeviceAlgorithmsTest, DoubleBufferedSortOfNoPairsLeavesTheFirstBuffersAndLaunchesNothing) {
  detail::CudaStream stream;
  DeviceScratch scratch(stream.get());
  const bool in_second = detail::stable_sort_pairs_double_buffered<std::uint32_t, std::int32_t>(
      scratch, nullptr, nullptr, nullptr, nullptr, 0, 32, "pairs");
  EXPECT_FALSE(in_second);
}

TEST_F(DeviceAlgorithmsTest, ExclusiveSumsOfTwoArraysAreEachArraysPrefixSums) {
  // one item, one CUB tile, and many tiles with a partial last one; counts of 0 .. 120 beside
  // 0 / 1 flags (HBP's segments and single-segment rows) and the pair the other way round
  for (const std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{(1 << 20) + 7}}) {
    SCOPED_TRACE(::testing::Message() << n << " items");
    std::mt19937 rng(static_cast<unsigned>(n));
    std::uniform_int_distribution<std::int32_t> count(0, 40);
    std::vector<std::int32_t> counts(n), flags(n);
    for (std::size_t i = 0; i < n; ++i) {
      counts[i] = count(rng) * 3;
      flags[i] = count(rng) % 2;
    }
    const auto prefix_sums = [](const std::vector<std::int32_t>& in) {
      std::vector<std::int32_t> out(in.size());
      std::exclusive_scan(in.begin(), in.end(), out.begin(), 0);
      return out;
    };
    detail::CudaStream stream;
    DeviceScratch scratch(stream.get());
    const DeviceBuffer<std::int32_t> in_counts(counts), in_flags(flags);
    DeviceBuffer<std::int32_t> out_a(n), out_b(n);
    detail::exclusive_sums(scratch, in_counts.data(), in_flags.data(), out_a.data(),
                           out_b.data(), static_cast<std::int64_t>(n), "items");
    scratch.synchronize();
    EXPECT_EQ(out_a.download(), prefix_sums(counts));
    EXPECT_EQ(out_b.download(), prefix_sums(flags));

    detail::exclusive_sums(scratch, in_flags.data(), in_counts.data(), out_a.data(),
                           out_b.data(), static_cast<std::int64_t>(n), "items");
    scratch.synchronize();
    EXPECT_EQ(out_a.download(), prefix_sums(flags));
    EXPECT_EQ(out_b.download(), prefix_sums(counts));
  }
}

TEST_F(DeviceAlgorithmsTest, ExclusiveSumsInPlaceKeepEachArrayApartUpToSumsJustBelowTwoToThe31) {
  // 2^20 counts of 2047 each in both arrays: both sums reach 2^31 - 2^20 - 2047, so a carry from
  // the low half of a packed word, or a high half cut short, would show; in place, as HBP's build
  // scans them
  constexpr std::size_t n = std::size_t{1} << 20;
  constexpr std::int32_t kCount = 2047;
  const std::vector<std::int32_t> counts(n, kCount);
  detail::CudaStream stream;
  DeviceScratch scratch(stream.get());
  DeviceBuffer<std::int32_t> sums_a(counts), sums_b(counts);
  detail::exclusive_sums(scratch, sums_a.data(), sums_b.data(), sums_a.data(), sums_b.data(),
                         static_cast<std::int64_t>(n), "items");
  scratch.synchronize();
  const std::vector<std::int32_t> a = sums_a.download(), b = sums_b.download();
  for (const std::size_t i : {std::size_t{0}, std::size_t{1}, n / 2 + 1, n - 1}) {
    SCOPED_TRACE(::testing::Message() << "item " << i);
    EXPECT_EQ(a[i], static_cast<std::int32_t>(i) * kCount);
  }
  EXPECT_EQ(a, b);
}

TEST_F(DeviceAlgorithmsTest, MoreThanTwoToThe31PairsAreRefusedNamingWhatIsCounted) {
  detail::CudaStream stream;
  DeviceScratch scratch(stream.get());
  try {
    detail::stable_sort_pairs_double_buffered<std::uint32_t, std::int32_t>(
        scratch, nullptr, nullptr, nullptr, nullptr, std::int64_t{1} << 31, 32, "slots");
    FAIL() << "2^31 pairs were accepted";
  } catch (const IndexOverflowError& error) {
    EXPECT_NE(std::string(error.what()).find("more than 2^31 - 1 slots"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace tcsparse
