// The host side of compact index pieces (compact_indices.hpp): the team encoder and the host model
// of the GPU's expansion.
#include "runtime/compact_indices.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tcsparse::detail {

namespace {

std::size_t group_size(std::size_t group, std::size_t count) {
  return std::min(kCompactGroup, count - group * kCompactGroup);
}

/// [first, last) of the groups thread `thread` of `threads` encodes.
std::pair<std::size_t, std::size_t> thread_groups(std::size_t groups, int thread, int threads) {
  const auto share = [&](int t) {
    return groups * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
  };
  return {share(thread), share(thread + 1)};
}

/// The one pass over a group: low[i] = uint16(indices[i] - indices[0]), and the group's lowest
/// and highest index. Compiled twice (AVX2 and the baseline), chosen at load time: with SSE2
/// alone the min / max take several instructions an element.
__attribute__((target_clones("avx2", "default"))) void low_halves_and_bounds(
    const std::int32_t* indices, std::size_t n, std::uint16_t* low, std::int32_t& lowest,
    std::int32_t& highest) {
  const auto first = static_cast<std::uint32_t>(indices[0]);
  std::int32_t lo = indices[0], hi = indices[0];
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t index = indices[i];
    low[i] = static_cast<std::uint16_t>(static_cast<std::uint32_t>(index) - first);
    lo = std::min(lo, index);
    hi = std::max(hi, index);
  }
  lowest = lo;
  highest = hi;
}

__attribute__((target_clones("avx2", "default"))) void high_halves(const std::int32_t* indices,
                                                                   std::size_t n,
                                                                   std::uint16_t* high) {
  const auto first = static_cast<std::uint32_t>(indices[0]);
  for (std::size_t i = 0; i < n; ++i)
    high[i] = static_cast<std::uint16_t>((static_cast<std::uint32_t>(indices[i]) - first) >> 16);
}

std::size_t half_bytes(std::size_t n) { return round_up_to_alignment(n * sizeof(std::uint16_t)); }

}  // namespace

CompactPieceEncoder::CompactPieceEncoder(std::size_t capacity, int threads)
    : headers_(compact_groups(capacity)), high_halves_(compact_groups(capacity) * kCompactGroup),
      thread_high_bytes_(static_cast<std::size_t>(std::max(threads, 1))) {}

void CompactPieceEncoder::encode(const std::int32_t* indices, std::size_t count, std::byte* chunk,
                                 int thread, int threads) {
  const std::size_t groups = compact_groups(count);
  const auto [first, last] = thread_groups(groups, thread, threads);
  auto* low = reinterpret_cast<std::uint16_t*>(chunk + compact_low_offset(count));
  // one pass: the low halves into the chunk, the bounds; a raw group's high halves aside
  std::size_t high_bytes = 0;
  for (std::size_t g = first; g < last; ++g) {
    const std::int32_t* group = indices + g * kCompactGroup;
    const std::size_t n = group_size(g, count);
    std::int32_t lowest = 0, highest = 0;
    low_halves_and_bounds(group, n, low + g * kCompactGroup, lowest, highest);
    if (std::int64_t{highest} - std::int64_t{lowest} < kCompactSpan) {
      headers_[g] = {lowest,
                     static_cast<std::uint16_t>(static_cast<std::uint32_t>(group[0]) -
                                                static_cast<std::uint32_t>(lowest)),
                     0, 0};
    } else {
      headers_[g] = {group[0], 0, 1, 0};  // high: set below
      high_halves(group, n, high_halves_.data() + g * kCompactGroup);
      high_bytes += half_bytes(n);
    }
  }
  thread_high_bytes_[static_cast<std::size_t>(thread)] = high_bytes;
#pragma omp barrier
  // where this thread's raw groups' high halves go: after the earlier threads' ones
  std::size_t offset = compact_high_offset(count), total = offset;
  for (int t = 0; t < threads; ++t) {
    if (t < thread) offset += thread_high_bytes_[static_cast<std::size_t>(t)];
    total += thread_high_bytes_[static_cast<std::size_t>(t)];
  }
  auto* headers = reinterpret_cast<CompactGroupHeader*>(chunk);
  for (std::size_t g = first; g < last; ++g) {
    CompactGroupHeader header = headers_[g];
    if (header.high != 0) {
      const std::size_t n = group_size(g, count);
      std::byte* high = chunk + offset;
      std::memcpy(high, high_halves_.data() + g * kCompactGroup, n * sizeof(std::uint16_t));
      std::memset(high + n * sizeof(std::uint16_t), 0, half_bytes(n) - n * sizeof(std::uint16_t));
      header.high = static_cast<std::uint32_t>(offset);
      offset += half_bytes(n);
    }
    headers[g] = header;
  }
  if (last == groups && last > first) {  // the padding after the low halves
    std::byte* end = chunk + compact_low_offset(count) + count * sizeof(std::uint16_t);
    std::memset(end, 0, static_cast<std::size_t>(chunk + compact_high_offset(count) - end));
  }
  if (thread == 0) {
    bytes_ = total;
    raw_groups_ = 0;
    for (std::size_t g = 0; g < groups; ++g) raw_groups_ += headers_[g].high != 0 ? 1 : 0;
  }
}

std::vector<std::int32_t> expand_compact_piece(const std::byte* chunk, std::size_t count) {
  std::vector<std::int32_t> indices(count);
  const auto* headers = reinterpret_cast<const CompactGroupHeader*>(chunk);
  const auto* low = reinterpret_cast<const std::uint16_t*>(chunk + compact_low_offset(count));
  for (std::size_t g = 0; g < compact_groups(count); ++g) {
    const CompactGroupHeader header = headers[g];
    const auto base = static_cast<std::uint32_t>(header.base);
    const std::uint16_t* group_low = low + g * kCompactGroup;
    const auto* high = reinterpret_cast<const std::uint16_t*>(chunk + header.high);
    std::int32_t* out = indices.data() + g * kCompactGroup;
    for (std::size_t i = 0; i < group_size(g, count); ++i)
      out[i] = static_cast<std::int32_t>(
          header.high == 0
              ? base + static_cast<std::uint16_t>(group_low[i] + header.shift)
              : base + ((static_cast<std::uint32_t>(high[i]) << 16) | group_low[i]));
  }
  return indices;
}

}  // namespace tcsparse::detail
