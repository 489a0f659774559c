// The GPU side of compact index pieces (compact_indices.hpp): one block a group expands its low
// halves (and a raw group's high halves) from the piece image, landed in device memory, into the
// destination array.
//
//   block g:  header[g] = {base, shift, high}
//             destination[g * 4096 + i] = high == 0 ? base + uint16(low[i] + shift)
//                                                   : base + (high[i] << 16 | low[i])
#include "runtime/compact_indices.hpp"
#include "runtime/cuda_check.hpp"

namespace tcsparse::detail {

namespace {

constexpr int kExpandThreads = 256;

__global__ void __launch_bounds__(kExpandThreads)
    expand_compact_piece_kernel(const std::byte* chunk, std::size_t count,
                                std::int32_t* destination) {
  const CompactGroupHeader header = reinterpret_cast<const CompactGroupHeader*>(chunk)[blockIdx.x];
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kCompactGroup;
  const int n = static_cast<int>(count - first < kCompactGroup ? count - first : kCompactGroup);
  const auto* low = reinterpret_cast<const std::uint16_t*>(chunk + compact_low_offset(count)) + first;
  const auto base = static_cast<std::uint32_t>(header.base);
  std::int32_t* out = destination + first;
  if (header.high == 0) {
    const auto shift = static_cast<std::uint16_t>(header.shift);
    for (int i = static_cast<int>(threadIdx.x); i < n; i += kExpandThreads)
      out[i] = static_cast<std::int32_t>(base + static_cast<std::uint16_t>(low[i] + shift));
  } else {
    const auto* high = reinterpret_cast<const std::uint16_t*>(chunk + header.high);
    for (int i = static_cast<int>(threadIdx.x); i < n; i += kExpandThreads)
      out[i] = static_cast<std::int32_t>(base + ((static_cast<std::uint32_t>(high[i]) << 16) | low[i]));
  }
}

}  // namespace

void expand_compact_piece_async(const std::byte* device_chunk, std::size_t count,
                                std::int32_t* destination, cudaStream_t stream) {
  if (count == 0) return;
  const auto groups = static_cast<unsigned>(compact_groups(count));
  expand_compact_piece_kernel<<<groups, kExpandThreads, 0, stream>>>(device_chunk, count,
                                                                     destination);
  TCSPARSE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tcsparse::detail
