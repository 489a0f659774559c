// Asynchronous copies from global into shared memory, for kernels that stage matrix data in
// shared memory while they compute on the previous batch (CSR-Overlap's double buffering).
//
// 1. cp.async (sm_80 and later): each thread copies 4, 8 or 16 bytes; the copies a thread issued
//    since its last commit form a group; wait_group waits until at most N of the thread's groups
//    are still in flight. The data is visible to the issuing thread after the wait, to the other
//    threads of the block after a __syncthreads() that follows the wait.
//
//      async_copy_bytes(tile, src, bytes, threadIdx.x, blockDim.x);  // the whole block
//      async_copy_commit();
//      async_copy_wait<0>();                                           // or <1>: double buffer
//      __syncthreads();
//
// 2. Bulk copy (sm_90 and later, the TMA unit, one-dimensional): one thread copies a whole
//    contiguous piece; completion is counted in bytes on an mbarrier in shared memory, which
//    every thread waits on.
//
//      __shared__ alignas(16) double tile[kTile];
//      __shared__ std::uint64_t barrier;
//      if (threadIdx.x == 0) barrier_init(&barrier, 1);   // one arrival: the issuing thread
//      __syncthreads();
//      unsigned phase = 0;
//      ... for each batch:
//      if (threadIdx.x == 0) {
//        barrier_arrive_expect_bytes(&barrier, bytes);
//        bulk_copy_to_shared(tile, src, bytes, &barrier);
//      }
//      barrier_wait(&barrier, phase);
//      phase ^= 1;
//      ... compute; __syncthreads() before the tile is overwritten
//
//    The bulk-copy functions exist on every architecture so that a kernel compiled for
//    "80;90" builds, but they are real only where kHasBulkCopy (TCSPARSE_ARCH_HAS_BULK_COPY) is
//    true, that is in device code compiled for sm_90 or later; elsewhere they trap. A kernel
//    chooses at compile time:
//
//      if constexpr (arch::kHasBulkCopy) { ...bulk copy... } else { ...cp.async... }
//
// 3. Tensor copy (sm_90 and later, the TMA unit, two-dimensional): one thread copies a box of a
//    row-major array described by a tensor map (arch/tensor_map.hpp, encoded on the host and
//    passed as a __grid_constant__ kernel parameter), completion counted on an mbarrier as above.
//    The map's swizzle places the box's 16-byte units in shared memory; rows or columns outside
//    the array arrive as zeros (and count as bytes). The TMA fetches a box row by row: rows of
//    128 bytes keep it fast, rows of 16 or 32 bytes make it slower than the threads' cp.async.
//
//      if (threadIdx.x == 0) {
//        barrier_arrive_expect_bytes(&barrier, box_bytes);
//        tensor_copy_to_shared(tile, &map, column, row, &barrier);
//      }
//      barrier_wait(&barrier, 0);
//
// Alignment and sizes. cp.async of N bytes needs both addresses N-byte aligned. The bulk copy
// needs both addresses 16-byte aligned and a size that is a multiple of 16 (copy the rest with
// cp.async or plain loads). async_copy_bytes takes any size: see its comment.
#pragma once

#include <cstdint>

namespace tcsparse::arch {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TCSPARSE_ARCH_HAS_BULK_COPY 1
#else
#define TCSPARSE_ARCH_HAS_BULK_COPY 0
#endif

/// Whether this compilation pass has the sm_90 bulk copy and mbarrier transaction counts
/// (false in host code and in device code for sm_80).
inline constexpr bool kHasBulkCopy = TCSPARSE_ARCH_HAS_BULK_COPY != 0;

/// The bytes one cp.async of the widest size copies (and the bulk copy's granularity).
inline constexpr int kAsyncCopyChunkBytes = 16;

/// The 32-bit shared-memory address of a generic pointer to shared memory (PTX [addr] operands).
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// The global-memory address of a generic pointer to global memory.
__device__ __forceinline__ std::uint64_t global_address(const void* pointer) {
  return static_cast<std::uint64_t>(__cvta_generic_to_global(pointer));
}

// ---- cp.async (sm_80+) --------------------------------------------------------------------------

/// Where cp.async caches the source on its way: .ca in L1 and L2 (4, 8 or 16 bytes), .cg in L2
/// only (16 bytes only; for data read once).
enum class AsyncCopyCache { l1_and_l2, l2_only };

/// Starts copying kBytes (4, 8 or 16) from global `source` to shared `destination`.
template <int kBytes, AsyncCopyCache kCache = AsyncCopyCache::l1_and_l2>
__device__ __forceinline__ void async_copy(void* destination, const void* source) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  static_assert(kCache == AsyncCopyCache::l1_and_l2 || kBytes == 16,
                "cp.async.cg copies 16 bytes only");
  if constexpr (kCache == AsyncCopyCache::l2_only) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(destination)),
                 "l"(global_address(source))
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(shared_address(destination)),
                 "l"(global_address(source)), "n"(kBytes)
                 : "memory");
  }
}

/// Starts a 16-byte copy of which only the first `source_bytes` (0..16) are read from `source`;
/// the rest of the 16 shared bytes are set to zero. Nothing past source + source_bytes is read.
template <AsyncCopyCache kCache = AsyncCopyCache::l2_only>
__device__ __forceinline__ void async_copy_16_zero_fill(void* destination, const void* source,
                                                        int source_bytes) {
  if constexpr (kCache == AsyncCopyCache::l2_only) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(
                     shared_address(destination)),
                 "l"(global_address(source)), "r"(source_bytes)
                 : "memory");
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(
                     shared_address(destination)),
                 "l"(global_address(source)), "r"(source_bytes)
                 : "memory");
  }
}

/// Closes the group of this thread's copies issued since its last commit.
__device__ __forceinline__ void async_copy_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

/// Waits until at most kGroupsInFlight of this thread's committed groups are unfinished
/// (0: all of them done; 1: all but the newest, for double buffering).
template <int kGroupsInFlight>
__device__ __forceinline__ void async_copy_wait() {
  static_assert(kGroupsInFlight >= 0 && kGroupsInFlight <= 7, "cp.async.wait_group takes 0..7");
  asm volatile("cp.async.wait_group %0;" ::"n"(kGroupsInFlight) : "memory");
}

/// Waits for all of this thread's copies, committed or not.
__device__ __forceinline__ void async_copy_wait_all() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

/// Starts copying `bytes` from global `source` to shared `destination`, shared among the
/// `threads` threads that call it (thread `thread` takes 16-byte chunks thread, thread +
/// threads, ...). Both addresses must be 16-byte aligned. Sizes that are not a multiple of 16:
/// the last chunk is copied byte by byte with ordinary loads and zero-filled to 16 bytes, so
/// `destination` must have room for `bytes` rounded up to a multiple of 16, and nothing past
/// source + bytes is read. (cp.async with a source size below 16 reads only that many bytes by
/// the PTX ISA, but compute-sanitizer 2025 (CUDA 13.0) reports the whole 16 as read, which would
/// hide real errors behind false ones.) The copies join each calling thread's current group
/// (commit, wait, then __syncthreads before other threads read them; the tail is written
/// before the wait already).
__device__ __forceinline__ void async_copy_bytes(void* destination, const void* source, int bytes,
                                                 int thread, int threads) {
  auto* to = static_cast<unsigned char*>(destination);
  const auto* from = static_cast<const unsigned char*>(source);
  const int whole_chunks = bytes / kAsyncCopyChunkBytes;
  // unrolled: a copy of a few KB is a handful of chunks a thread, issued back to back
#pragma unroll 4
  for (int chunk = thread; chunk < whole_chunks; chunk += threads)
    async_copy<kAsyncCopyChunkBytes, AsyncCopyCache::l2_only>(to + chunk * kAsyncCopyChunkBytes,
                                                              from + chunk * kAsyncCopyChunkBytes);
  const int remaining = bytes - whole_chunks * kAsyncCopyChunkBytes;
  if (remaining > 0 && thread == whole_chunks % threads) {
    const int offset = whole_chunks * kAsyncCopyChunkBytes;
    for (int i = 0; i < kAsyncCopyChunkBytes; ++i)
      to[offset + i] = i < remaining ? from[offset + i] : static_cast<unsigned char>(0);
  }
}

// ---- mbarrier and bulk copy (sm_90+) ------------------------------------------------------------

/// Initialises the mbarrier at `barrier` (8 bytes of shared memory, 8-byte aligned) to complete
/// a phase after `arrivals` arrivals and all the bytes announced in that phase. One thread
/// initialises it, then the block synchronises (__syncthreads) before anyone uses it.
__device__ __forceinline__ void barrier_init(std::uint64_t* barrier, unsigned arrivals) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(barrier)),
               "r"(arrivals)
               : "memory");
  // make the initialised barrier visible to the async proxy (the bulk copies)
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  (void)barrier;
  (void)arrivals;
  __trap();
#endif
}

/// One arrival on `barrier`, announcing `bytes` more bytes that bulk copies will complete in the
/// current phase.
__device__ __forceinline__ void barrier_arrive_expect_bytes(std::uint64_t* barrier,
                                                            unsigned bytes) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  // "_": the phase token it returns is not kept; the waits here go by phase parity
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   shared_address(barrier)),
               "r"(bytes)
               : "memory");
#else
  (void)barrier;
  (void)bytes;
  __trap();
#endif
}

/// Whether the phase of parity `phase_parity` (0, 1, 0, ... for phases 0, 1, 2, ...) of
/// `barrier` has completed. The hardware may suspend the thread for a while before answering.
__device__ __forceinline__ bool barrier_try_wait(std::uint64_t* barrier, unsigned phase_parity) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  unsigned done;
  asm volatile(
      "{\n"
      "  .reg .pred complete;\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
      "  selp.u32 %0, 1, 0, complete;\n"
      "}"
      : "=r"(done)
      : "r"(shared_address(barrier)), "r"(phase_parity)
      : "memory");
  return done != 0;
#else
  (void)barrier;
  (void)phase_parity;
  __trap();
  return false;
#endif
}

/// Waits until the phase of parity `phase_parity` of `barrier` has completed.
__device__ __forceinline__ void barrier_wait(std::uint64_t* barrier, unsigned phase_parity) {
  while (!barrier_try_wait(barrier, phase_parity)) {
  }
}

/// Orders this thread's earlier shared-memory accesses (and, through a preceding __syncthreads,
/// the block's) before its later bulk copies (the async proxy): issued before a bulk copy
/// overwrites shared memory that the block has just read or written with ordinary accesses.
__device__ __forceinline__ void fence_shared_before_bulk_copy() {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#else
  __trap();
#endif
}

/// Starts a bulk copy (TMA, one-dimensional) of `bytes` from global `source` to shared
/// `destination` of this thread block, completing `bytes` on `barrier`. Both addresses 16-byte
/// aligned, `bytes` a positive multiple of 16. Issued by one thread.
__device__ __forceinline__ void bulk_copy_to_shared(void* destination, const void* source,
                                                    unsigned bytes, std::uint64_t* barrier) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(shared_address(destination)),
      "l"(global_address(source)), "r"(bytes), "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination;
  (void)source;
  (void)bytes;
  (void)barrier;
  __trap();
#endif
}

/// Starts a tensor copy (TMA) of the box of the two-dimensional tensor map at `tensor_map` (a
/// __grid_constant__ parameter or global memory) whose first element is (column, row), to
/// shared `destination` of this block (128-byte aligned; aligned to the swizzle's period of 8
/// rows for a swizzled map), completing the box's bytes on `barrier`. Issued by one thread.
__device__ __forceinline__ void tensor_copy_to_shared(void* destination, const void* tensor_map,
                                                      int column, int row,
                                                      std::uint64_t* barrier) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(column), "r"(row),
      "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination;
  (void)tensor_map;
  (void)column;
  (void)row;
  (void)barrier;
  __trap();
#endif
}

/// As tensor_copy_to_shared, for a three-dimensional tensor map: the box whose first element is
/// (column, row, layer).
__device__ __forceinline__ void tensor_copy_to_shared(void* destination, const void* tensor_map,
                                                      int column, int row, int layer,
                                                      std::uint64_t* barrier) {
#if TCSPARSE_ARCH_HAS_BULK_COPY
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(shared_address(destination)),
      "l"(reinterpret_cast<std::uint64_t>(tensor_map)), "r"(column), "r"(row), "r"(layer),
      "r"(shared_address(barrier))
      : "memory");
#else
  (void)destination;
  (void)tensor_map;
  (void)column;
  (void)row;
  (void)layer;
  (void)barrier;
  __trap();
#endif
}

}  // namespace tcsparse::arch
