// Compact index pieces (src/runtime/compact_indices.hpp), the host side of HostUpload::compact:
// a piece written by a team of any size expands back to exactly its indices, whatever they are
// (local, scattered, negative, the int32 extremes); a group goes as its low halves alone exactly
// when its indices span fewer than 2^16; the image is the same bytes on any number of threads and never
// larger than the chunk compact_piece_capacity sized it for.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/compact_indices.hpp"

namespace tcsparse {
namespace {

using detail::CompactGroupHeader;
using detail::kCompactGroup;

struct Image {
  std::vector<std::byte> chunk;
  std::size_t bytes = 0;
};

/// The image of `indices` as a team of `threads` writes it into a chunk of the worst case's size
/// (filled with 0xAB first, so that bytes the encoder leaves unwritten differ between runs).
Image encode(const std::vector<std::int32_t>& indices, int threads) {
  const std::size_t groups = detail::compact_groups(indices.size());
  Image image;
  image.chunk.assign(groups * (sizeof(CompactGroupHeader) + kCompactGroup * sizeof(std::int32_t)),
                     std::byte{0xAB});
  detail::CompactPieceEncoder encoder(indices.size(), threads);
#pragma omp parallel num_threads(threads)
  encoder.encode(indices.data(), indices.size(), image.chunk.data(), omp_get_thread_num(),
                 omp_get_num_threads());
  image.bytes = encoder.bytes();
  image.chunk.resize(image.bytes);
  return image;
}

bool group_is_raw(const Image& image, std::size_t group) {
  return reinterpret_cast<const CompactGroupHeader*>(image.chunk.data())[group].high != 0;
}

std::vector<std::int32_t> local_columns(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::int32_t> indices(count);
  for (std::size_t i = 0; i < count; ++i)
    indices[i] = static_cast<std::int32_t>(i / 7 + random() % 30000);  // a band of 30000
  return indices;
}

std::vector<std::int32_t> scattered_columns(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::int32_t> indices(count);
  for (auto& index : indices) index = static_cast<std::int32_t>(random() % 2000000000u);
  return indices;
}

std::vector<std::int32_t> extremes(std::size_t count) {
  std::vector<std::int32_t> indices(count);
  for (std::size_t i = 0; i < count; ++i)
    indices[i] = i % 3 == 0   ? std::numeric_limits<std::int32_t>::min()
                 : i % 3 == 1 ? std::numeric_limits<std::int32_t>::max()
                              : -static_cast<std::int32_t>(i);
  return indices;
}

std::vector<std::int32_t> negative_local(std::size_t count) {
  std::vector<std::int32_t> indices(count);
  for (std::size_t i = 0; i < count; ++i) indices[i] = -100000 + static_cast<std::int32_t>(i % 60000);
  return indices;
}

TEST(CompactIndexPieces, ExpandToExactlyTheirIndicesOnAnyTeam) {
  const std::vector<std::size_t> counts = {1, 7, kCompactGroup - 1, kCompactGroup,
                                           kCompactGroup + 1, 5 * kCompactGroup + 333};
  for (const std::size_t count : counts)
    for (const auto& [name, indices] :
         std::vector<std::pair<std::string, std::vector<std::int32_t>>>{
             {"local", local_columns(count, 1)},
             {"scattered", scattered_columns(count, 2)},
             {"int32 extremes", extremes(count)},
             {"negative, local", negative_local(count)}})
      for (const int threads : {1, 3, 8}) {
        const Image image = encode(indices, threads);
        EXPECT_EQ(detail::expand_compact_piece(image.chunk.data(), count), indices)
            << name << ", " << count << " indices, " << threads << " threads";
        EXPECT_EQ(image.bytes % detail::kCompactAlignment, 0u);
      }
}

TEST(CompactIndexPieces, AGroupGoesInSixteenBitsExactlyWhenItSpansFewerThanTwoToTheSixteen) {
  for (const std::int32_t span : {0, 1, 65535, 65536, 1 << 20}) {
    std::vector<std::int32_t> indices(2 * kCompactGroup, 1000);
    indices[5] = 1000 + span;  // group 0 spans `span`, group 1 nothing
    const Image image = encode(indices, 2);
    EXPECT_EQ(group_is_raw(image, 0), span >= 65536) << "span " << span;
    EXPECT_FALSE(group_is_raw(image, 1));
    EXPECT_EQ(detail::expand_compact_piece(image.chunk.data(), indices.size()), indices);
    // two headers, the low halves of both groups, the high halves of group 0 if it is raw
    const std::size_t high = span >= 65536 ? kCompactGroup * 2 : 0;
    EXPECT_EQ(image.bytes, 2 * sizeof(CompactGroupHeader) + 2 * kCompactGroup * 2 + high)
        << "span " << span;
  }
}

TEST(CompactIndexPieces, LocalIndicesTakeHalfTheBytes) {
  const std::vector<std::int32_t> indices = local_columns(100 * kCompactGroup, 3);
  const Image image = encode(indices, 4);
  EXPECT_EQ(image.bytes, 100 * sizeof(CompactGroupHeader) + indices.size() * sizeof(std::uint16_t));
  for (std::size_t g = 0; g < 100; ++g) EXPECT_FALSE(group_is_raw(image, g));
}

TEST(CompactIndexPieces, TheImageIsTheSameBytesOnAnyNumberOfThreads) {
  std::vector<std::int32_t> indices = local_columns(9 * kCompactGroup + 17, 4);
  const std::vector<std::int32_t> scattered = scattered_columns(3 * kCompactGroup, 5);
  std::copy(scattered.begin(), scattered.end(), indices.begin() + 2 * kCompactGroup);  // raw groups
  const Image one = encode(indices, 1);
  for (const int threads : {2, 5, 16}) EXPECT_EQ(encode(indices, threads).chunk, one.chunk) << threads;
}

TEST(CompactIndexPieces, APieceOfCapacityFitsItsChunkWhateverItsIndices) {
  for (const std::size_t chunk_bytes : {std::size_t{8} << 20, std::size_t{1} << 20, std::size_t{20000}}) {
    const std::size_t capacity = detail::compact_piece_capacity(chunk_bytes);
    ASSERT_GT(capacity, 0u) << chunk_bytes;
    EXPECT_EQ(capacity % kCompactGroup, 0u);
    EXPECT_LE(encode(scattered_columns(capacity, 6), 4).bytes, chunk_bytes) << chunk_bytes;
    // one group more would not fit when every group is raw
    const std::size_t groups = capacity / kCompactGroup + 1;
    EXPECT_GT(groups * (sizeof(CompactGroupHeader) + kCompactGroup * sizeof(std::int32_t)),
              chunk_bytes);
  }
  EXPECT_EQ(detail::compact_piece_capacity(16384), 0u) << "a chunk smaller than one raw group";
}

}  // namespace
}  // namespace tcsparse
