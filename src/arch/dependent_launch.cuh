// Programmatic dependent launch (sm_90 and later): a kernel launched by launch_dependent may be
// scheduled before the kernel ahead of it on the stream has finished, so that its launch overlaps
// that kernel's last wave; it calls wait_for_prior_grids before reading anything that kernel
// wrote (griddepcontrol.wait: the prior grid has completed and its writes are visible). The kernel
// ahead calls allow_dependent_grids to let it be scheduled (griddepcontrol.launch_dependents).
// In code built for an architecture before sm_90 both are no-ops: launch_dependent must then be
// given dependent=false (the caller checks that the kernel runs sm_90 code), or the dependent
// kernel would not wait.
#pragma once

#include <cuda_runtime_api.h>

#include "arch/launch.cuh"

namespace tcsparse::arch {

__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_for_prior_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Whether `kernel` runs code compiled for sm_90 or later here: sm_90 binary, and not JIT-compiled
/// from older PTX (which runs as an sm_90 binary but was compiled with __CUDA_ARCH__ = 800, where
/// the bulk copy traps and griddepcontrol is left out). A kernel that waits in
/// wait_for_prior_grids may be a dependent launch only then.
inline bool runs_sm90_code(const cudaFuncAttributes& kernel) {
  return kernel.binaryVersion >= 90 && kernel.ptxVersion >= 90;
}

/// kernel<<<grid, block, 0, stream>>>(args...), as a programmatic dependent launch when
/// `dependent` (see above; arch/launch.cuh for other attributes).
template <typename... Params, typename... Args>
cudaError_t launch_dependent(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                             cudaStream_t stream, Args&&... args) {
  LaunchOptions options;
  options.dependent = dependent;
  return launch_kernel(kernel, grid, block, 0, stream, options, static_cast<Args&&>(args)...);
}

}  // namespace tcsparse::arch
