// Thread-block clusters (sm_90 and later): blocks launched as one cluster run at the same time on
// one GPU processing cluster, can wait for each other at a hardware barrier and read each other's
// shared memory (distributed shared memory). tca's tiles kernel sums its split-K partials this
// way instead of through global memory, a fence and an atomic ticket.
//
//   host:    launch_kernel(kernel, grid, block, shared_bytes, stream, options, args) with
//            options.cluster_blocks (arch/launch.cuh; grid.x a multiple of it: blocks x, x + 1, ..
//            of one cluster are consecutive in x); max_active_clusters(...) says how many fit on
//            the GPU at once.
//   device:  ... write this block's part to its shared memory ...
//            cluster_sync();                        // every block's part is written
//            const T* other = cluster_shared(mine, rank);   // block `rank`'s copy of `mine`
//            ... read ...
//            cluster_sync();                        // nobody leaves while others still read
//
// The device functions exist on every architecture so that a kernel compiled for "80;90" builds,
// but they are real only where kHasClusters is true (device code for sm_90 or later); elsewhere
// they trap. The host launches clusters only on a device of compute capability 9.0 or more.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "arch/launch.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#define TCSPARSE_ARCH_HAS_CLUSTERS 1
#else
#define TCSPARSE_ARCH_HAS_CLUSTERS 0
#endif

namespace tcsparse::arch {

/// Whether this compilation pass has thread-block clusters (false in host code and for sm_80).
inline constexpr bool kHasClusters = TCSPARSE_ARCH_HAS_CLUSTERS != 0;

/// Portable cluster size: the most blocks a cluster may hold without an opt-in.
inline constexpr unsigned kMaxPortableClusterBlocks = 8;

/// This block's rank in its cluster (0 .. cluster size - 1).
__device__ __forceinline__ unsigned cluster_block_rank() {
#if TCSPARSE_ARCH_HAS_CLUSTERS
  return cooperative_groups::this_cluster().block_rank();
#else
  __trap();
  return 0;
#endif
}

/// Every thread of every block of the cluster arrives and waits (release / acquire: the shared
/// memory each block wrote before is visible to the others after it).
__device__ __forceinline__ void cluster_sync() {
#if TCSPARSE_ARCH_HAS_CLUSTERS
  cooperative_groups::this_cluster().sync();
#else
  __trap();
#endif
}

/// The address of block `rank`'s copy of the shared variable at `local` (this block's), to read
/// through ordinary loads.
template <typename T>
__device__ __forceinline__ T* cluster_shared(T* local, unsigned rank) {
#if TCSPARSE_ARCH_HAS_CLUSTERS
  return cooperative_groups::this_cluster().map_shared_rank(local, rank);
#else
  (void)rank;
  __trap();
  return local;
#endif
}

/// How many clusters of `cluster_blocks` blocks of `kernel` (with this block size and dynamic
/// shared memory, its attributes already set) the GPU runs at once; 0 where none fits or the
/// device has no clusters (the query's error is then cleared: the caller launches without).
template <typename... Params>
int max_active_clusters(void (*kernel)(Params...), dim3 grid, dim3 block,
                        std::size_t shared_bytes, unsigned cluster_blocks) {
  LaunchOptions options;
  options.cluster_blocks = cluster_blocks;
  const KernelLaunch launch(grid, block, shared_bytes, nullptr, options);
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch.config) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return clusters;
}

}  // namespace tcsparse::arch
