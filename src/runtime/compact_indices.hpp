// Index arrays (row offsets, column indices) on their way to the GPU in 16 bits where they allow
// it: HostUpload::compact (host_upload.hpp).
//
// A staged upload from pageable memory is bound by the host's memory, not by the link: every byte
// is read from the caller's array, written into a pinned chunk and read again by the DMA (issue 8:
// the upload was most of a plan build on the H200). Index arrays are mostly local: the columns of
// 4096 consecutive nonzeros of a stencil, a banded or a block-diagonal matrix, or 4096 consecutive
// row offsets of rows shorter than 16, lie within 2^16 of their smallest. Such a group is written
// into the pinned chunk as 16-bit offsets from that smallest index: half the bytes written, half
// the bytes copied; the GPU expands it (compact_indices.cu). Any other group goes as it is.
//
// One piece of an index array (at most compact_piece_capacity(chunk bytes) indices) in one chunk:
//
//   [ headers: groups x 16 B ][ low halves: 2 B an index ][ high halves of the raw groups ]
//
//   group g    = indices [g * kCompactGroup, min((g + 1) * kCompactGroup, count)) of the piece;
//                first = its first index
//   low[i]     = uint16(index - first)               (every group, at 2 * (g * kCompactGroup) of
//                                                     the low halves)
//   compact    : the group's indices span fewer than 2^16 (highest - lowest < kCompactSpan):
//                header {base = lowest, shift = uint16(first - lowest), high = 0}
//                index = base + uint16(low + shift)
//   raw        : header {base = first, shift = 0, high = byte offset of its high halves}
//                high[i] = (uint32(index - first)) >> 16,  index = base + (high << 16 | low)
//   sections start on 16-byte boundaries (zero padding); the high halves of the raw groups
//   follow each other in group order
//
// The encoder reads each index once: one pass over a group (16 KiB, in L1) writes its low halves
// and finds its lowest and highest index; only a raw group's high halves wait (in a scratch
// array) until the team knows where they go. A compact index costs the host 4 bytes read and 2
// written where a staged one costs 4 and 4, and the link 2 instead of 4.
//
// Exact for every int32 (negative and out-of-range indices too: the plan checks them on the GPU
// after the upload). The encoder runs inside the staging team's parallel region
// (stage_pieces_through_ring): every thread of the team calls it, and it needs one barrier.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

struct CUstream_st;  // cudaStream_t, without the CUDA headers: the encoder is host code

namespace tcsparse::detail {

/// Indices that share one base: one expanding block of the GPU (256 threads x 16).
inline constexpr std::size_t kCompactGroup = 4096;
/// A group whose indices span fewer than this goes as its low halves only.
inline constexpr std::int64_t kCompactSpan = std::int64_t{1} << 16;
/// Sections (and each raw group's high halves) start on multiples of this many bytes.
inline constexpr std::size_t kCompactAlignment = 16;

struct CompactGroupHeader {
  std::int32_t base;
  std::uint32_t shift;  ///< uint16(first - lowest) of a compact group; 0 for a raw one
  std::uint32_t high;   ///< byte offset of a raw group's high halves in the chunk; 0: compact
  std::uint32_t zero;
};
static_assert(sizeof(CompactGroupHeader) == kCompactAlignment);

inline constexpr std::size_t round_up_to_alignment(std::size_t bytes) {
  return (bytes + kCompactAlignment - 1) / kCompactAlignment * kCompactAlignment;
}

/// Groups of a piece of `count` indices.
inline constexpr std::size_t compact_groups(std::size_t count) {
  return (count + kCompactGroup - 1) / kCompactGroup;
}

/// Byte offsets of a piece's low halves and of its first raw group's high halves.
inline constexpr std::size_t compact_low_offset(std::size_t count) {
  return compact_groups(count) * sizeof(CompactGroupHeader);
}
inline constexpr std::size_t compact_high_offset(std::size_t count) {
  return round_up_to_alignment(compact_low_offset(count) + count * sizeof(std::uint16_t));
}

/// Indices in a piece that fits a chunk of `chunk_bytes` whatever the indices: whole groups,
/// each possibly raw. 0 if not even one group fits.
inline constexpr std::size_t compact_piece_capacity(std::size_t chunk_bytes) {
  const std::size_t per_group =
      sizeof(CompactGroupHeader) + kCompactGroup * 2 * sizeof(std::uint16_t);
  return chunk_bytes / per_group * kCompactGroup;
}

/// Writes pieces of index arrays into chunks in the layout above, within one OpenMP team.
/// One piece at a time, every thread of the team in encode().
class CompactPieceEncoder {
 public:
  /// For pieces of at most `capacity` indices by teams of at most `threads` threads.
  CompactPieceEncoder(std::size_t capacity, int threads);

  /// Called by every thread `thread` of a team of `threads` (<= the constructor's) with the same
  /// piece: writes `count` (<= capacity) indices into `chunk`. Contains one `omp barrier`, so
  /// every thread of the team must call it. Afterwards (once the caller's next barrier has
  /// passed) bytes() is the size of the piece's image.
  void encode(const std::int32_t* indices, std::size_t count, std::byte* chunk, int thread,
              int threads);

  /// Bytes of the last piece's image in its chunk, and how many of its groups went raw.
  std::size_t bytes() const { return bytes_; }
  std::size_t raw_groups() const { return raw_groups_; }

 private:
  std::vector<CompactGroupHeader> headers_;  ///< of the piece's groups, `high` still unset
  std::vector<std::uint16_t> high_halves_;   ///< of the raw groups, at g * kCompactGroup
  std::vector<std::size_t> thread_high_bytes_;  ///< high-half bytes of each thread's raw groups
  std::size_t bytes_ = 0;
  std::size_t raw_groups_ = 0;
};

/// The host model of the GPU's expansion (tests): the `count` indices of a piece's image.
std::vector<std::int32_t> expand_compact_piece(const std::byte* chunk, std::size_t count);

/// Enqueues on `stream` (a cudaStream_t) the expansion of the piece image `device_chunk` (device
/// memory) of `count` indices into `destination` (device memory, `count` int32). In the GPU
/// library only (compact_indices.cu).
void expand_compact_piece_async(const std::byte* device_chunk, std::size_t count,
                                std::int32_t* destination, CUstream_st* stream);

}  // namespace tcsparse::detail
