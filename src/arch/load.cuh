// Cache-hinted global loads, named for what they are for:
//
//   load_streaming     ld.global.cs (__ldcs): data read once (matrix values and indices);
//                      evict-first in L1 and L2, so it does not push reused data (x) out
//   load_read_only     ld.global.nc (__ldg): data no thread writes during the kernel (x, index
//                      arrays), through the non-coherent read-only path
//   load_bypassing_l1  ld.global.cg (__ldcg): cached in L2 only, so a value another thread block
//                      of the same launch wrote (then __threadfence) is seen; for cross-block
//                      partial sums
//   prefetch_to_l2     prefetch.global.L2: bytes a block will copy soon, fetched into the L2
//                      now, with no register and no wait (e.g. while the block may not yet copy
//                      them into shared memory)
//
// Each takes the types the CUDA intrinsics do (char..long long, unsigned, float, double, their
// vector types int2, int4, float2, double2, ..., __half, __nv_bfloat16).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tcsparse::arch {

template <typename T>
__device__ __forceinline__ T load_streaming(const T* address) {
  return __ldcs(address);
}

template <typename T>
__device__ __forceinline__ T load_read_only(const T* address) {
  return __ldg(address);
}

template <typename T>
__device__ __forceinline__ T load_bypassing_l1(const T* address) {
  return __ldcg(address);
}

/// Prefetches [address, address + bytes) into the L2: thread `thread` of `threads` takes every
/// threads-th 128-byte line (the L2's line) from its own.
__device__ __forceinline__ void prefetch_to_l2(const void* address, long long bytes, int thread,
                                               int threads) {
  constexpr long long kLineBytes = 128;
  const char* const begin = static_cast<const char*>(address);
  for (long long at = thread * kLineBytes; at < bytes; at += threads * kLineBytes)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(begin + at));
}

/// `kCount` consecutive elements from a 16-byte aligned `address` in 16-byte streaming loads
/// (ld.global.cs.v4): one load for four int32 or eight 16-bit values, two for four doubles.
template <typename T, int kCount>
__device__ __forceinline__ void load_streaming_16_bytes(const T* address, T (&out)[kCount]) {
  static_assert(sizeof(T) * kCount % sizeof(int4) == 0, "whole 16-byte pieces");
  constexpr int kPieces = static_cast<int>(sizeof(T) * kCount / sizeof(int4));
  const auto* pieces = reinterpret_cast<const int4*>(address);
#pragma unroll
  for (int p = 0; p < kPieces; ++p) {
    const int4 piece = __ldcs(pieces + p);
    memcpy(reinterpret_cast<char*>(out) + p * sizeof(int4), &piece, sizeof(int4));
  }
}

}  // namespace tcsparse::arch
