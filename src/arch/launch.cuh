// Kernel launches with the attributes tcsparse uses (cudaLaunchKernelEx): thread-block clusters
// along x (arch/cluster.cuh) and programmatic dependent launch (arch/dependent_launch.cuh).
//
//   LaunchOptions options;
//   options.cluster_blocks = 2;        // blocks x, x + 1 of the grid form one cluster
//   options.dependent = true;          // may start before the kernel ahead on the stream ends
//   TCSPARSE_CUDA_CHECK(launch_kernel(kernel, grid, block, shared_bytes, stream, options, args...));
//
// Both need compute capability 9.0; the caller checks it (a cluster launch fails before it, and
// a dependent launch of sm_80 code would not wait, see dependent_launch.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace tcsparse::arch {

struct LaunchOptions {
  unsigned cluster_blocks = 1;  ///< blocks a cluster along x (1: no clusters)
  bool dependent = false;       ///< programmatic stream serialization
};

/// A cudaLaunchConfig_t with `options`' attributes. Not copyable: `config` points at
/// `attributes`.
struct KernelLaunch {
  cudaLaunchAttribute attributes[2] = {};
  cudaLaunchConfig_t config{};
  KernelLaunch(dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream,
               const LaunchOptions& options) {
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = attributes;
    unsigned count = 0;
    if (options.cluster_blocks > 1) {
      cudaLaunchAttribute& cluster = attributes[count++];
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = options.cluster_blocks;
      cluster.val.clusterDim.y = 1;
      cluster.val.clusterDim.z = 1;
    }
    if (options.dependent) {
      cudaLaunchAttribute& dependent = attributes[count++];
      dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      dependent.val.programmaticStreamSerializationAllowed = 1;
    }
    config.numAttrs = count;
  }
  KernelLaunch(const KernelLaunch&) = delete;
  KernelLaunch& operator=(const KernelLaunch&) = delete;
};

/// kernel<<<grid, block, shared_bytes, stream>>>(args...) with `options`.
template <typename... Params, typename... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block,
                          std::size_t shared_bytes, cudaStream_t stream,
                          const LaunchOptions& options, Args&&... args) {
  const KernelLaunch launch(grid, block, shared_bytes, stream, options);
  return cudaLaunchKernelEx(&launch.config, kernel, static_cast<Args&&>(args)...);
}

}  // namespace tcsparse::arch
