// The host side of the staged upload (host_upload.hpp), without CUDA, so that the host tests run
// it: how a copy is sliced among threads, and the ring walk of stage_through_ring. Included by
// host_upload.cpp (compiled with OpenMP) and the host tests only.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <utility>

#include "common/parallel.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

/// Host copies use one thread per this many bytes of a chunk (at most the team's threads): a
/// slice of 512 KiB keeps a thread busy ~50 us, well above a barrier's cost.
inline constexpr std::size_t kHostCopyBytesPerThread = std::size_t{512} << 10;
/// Slices of a chunk start on this boundary (a cache line) so no two threads write one line.
inline constexpr std::size_t kHostCopySliceAlignment = 64;

/// Threads worth copying `bytes` with: one per kHostCopyBytesPerThread, at least one, at most
/// resolve_threads(threads).
inline int host_copy_threads(std::size_t bytes, int threads) {
  const std::size_t useful = std::max<std::size_t>(1, bytes / kHostCopyBytesPerThread);
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(resolve_threads(threads)), useful));
}

/// [begin, end) of slice `slice` of `slices` of `bytes` bytes: slices start on
/// kHostCopySliceAlignment boundaries, cover [0, bytes) exactly, in order, without overlap.
inline std::pair<std::size_t, std::size_t> host_copy_slice(std::size_t bytes, int slice,
                                                          int slices) {
  auto start = [&](int s) {
    if (s >= slices) return bytes;
    const std::size_t even = bytes / static_cast<std::size_t>(slices) * static_cast<std::size_t>(s);
    return even / kHostCopySliceAlignment * kHostCopySliceAlignment;
  };
  return {start(slice), start(slice + 1)};
}

/// The host side of a staged copy, without CUDA (so the host tests run it): `bytes` of `source`
/// go through the ring `chunks` (`chunk_count` buffers of `chunk_bytes`) piece by piece; piece k
/// (bytes [k * chunk_bytes, ...)) uses chunk k % chunk_count. Before a chunk is filled,
/// `wait(chunk)` (its previous DMA has read it); after, `ship(chunk, offset, size)` (enqueue its
/// DMA). One OpenMP team of up to `threads` threads (0: all) copies each piece, one slice a
/// thread; wait and ship run on the calling thread only (the one whose CUDA device is set), the
/// team waiting at a barrier. An exception from wait or ship stops the copy and is rethrown here.
template <typename Wait, typename Ship>
void stage_through_ring(std::byte* const* chunks, int chunk_count, std::size_t chunk_bytes,
                        const std::byte* source, std::size_t bytes, int threads, Wait&& wait,
                        Ship&& ship) {
  if (bytes == 0) return;
  if (chunk_count < 1 || chunk_bytes == 0)
    throw Error("stage_through_ring: the ring needs at least one chunk of at least one byte");
  const std::size_t pieces = (bytes + chunk_bytes - 1) / chunk_bytes;
  const int team = host_copy_threads(std::min(bytes, chunk_bytes), threads);
  std::exception_ptr failure;
  bool failed = false;
  auto guarded = [&](auto&& action) {
    try {
      action();
    } catch (...) {
      failure = std::current_exception();
      failed = true;
    }
  };
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int thread = omp_get_thread_num();
    const int threads_in_team = omp_get_num_threads();  // OpenMP may give fewer than asked
#pragma omp master
    guarded([&] { wait(0); });
#pragma omp barrier
    for (std::size_t k = 0; k < pieces && !failed; ++k) {
      const int chunk = static_cast<int>(k % static_cast<std::size_t>(chunk_count));
      const std::size_t offset = k * chunk_bytes;
      const std::size_t size = std::min(chunk_bytes, bytes - offset);
      const auto [begin, end] = host_copy_slice(size, thread, threads_in_team);
      if (end > begin) std::memcpy(chunks[chunk] + begin, source + offset + begin, end - begin);
#pragma omp barrier
#pragma omp master
      guarded([&] {
        ship(chunk, offset, size);
        if (k + 1 < pieces) wait(static_cast<int>((k + 1) % static_cast<std::size_t>(chunk_count)));
      });
#pragma omp barrier
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tcsparse::detail
