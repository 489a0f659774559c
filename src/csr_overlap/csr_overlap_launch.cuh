// The batch kernel as csr_overlap and csr_full_overlap launch it: which build of it a block size
// takes, its dynamic shared memory (checked against the device), and how many blocks of it an
// SM holds. Host code; included by the two methods' .cu files after csr_overlap_kernels.cuh.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "arch/dependent_launch.cuh"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_kernels.cuh"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "runtime/cuda_check.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap {

using arch::runs_sm90_code;
using detail::current_device_attribute;

template <typename V>
using BatchKernel = void (*)(device::BatchArguments<V>, const V*, V*, device::Acc<V>,
                             device::Acc<V>);

/// The batch kernel ready to launch for one plan's parameters.
template <typename V>
struct BatchKernelLaunch {
  BatchKernel<V> kernel = nullptr;
  int threads = 0;                ///< a block
  std::size_t shared_bytes = 0;   ///< dynamic shared memory a block
  int blocks_per_sm = 0;          ///< the parameter, or as many as fit
  int sm_count = 0;
  /// Threads of a long-row block (CsrOverlapParameters::long_row_threads_for).
  int long_row_threads = 0;
  /// Blocks of the long-row kernel (of long_row_threads threads) the GPU holds at once: its grid
  /// for many pieces. A piece's walk is a chain of dependent loads, so every resident block counts
  /// (H200, R-MAT scale 20: the kernel took 97 of 223 us at 8 blocks of 128 threads an SM, half
  /// the 16 that its 32 registers allow, issuing 0.49 instructions a cycle).
  std::int64_t long_row_wave = 0;
  BatchUnit unit = kDefaultBatchUnit;

  /// The grid for `batches` batches: at most one wave of blocks_per_sm x sm_count blocks
  /// (batch_launch: or `batches_per_block` a block; warp_batch_launch: the warps stride).
  BatchLaunch grid(std::int64_t batches, std::int64_t batches_per_block) const {
    const auto wave = static_cast<std::int64_t>(blocks_per_sm) * sm_count;
    return unit == BatchUnit::warp ? warp_batch_launch(batches, wave, threads / 32)
                                   : batch_launch(batches, wave, batches_per_block);
  }
};

/// The batch kernel's arguments that follow from the parameters alone (the stages' layout and
/// the vector-size rule).
template <typename V>
void set_stage_layout(device::BatchArguments<V>& a, const CsrOverlapParameters& p) {
  a.stage_capacity = static_cast<std::int32_t>(stage_capacity(p.max_batch_size));
  a.stages = p.pipeline_stages;
  a.warp_row_capacity = warp_row_capacity(p.max_batch_size, p.warp_row_factor);
  a.stage_offsets =
      static_cast<std::int32_t>(warp_stage_offsets(p.partition_rule().max_batch_rows));
  a.vector_sizes = p.vector_size_rule();
}

/// The mbarrier counts at most 2^20 - 1 transaction bytes a phase (PTX ISA, mbarrier tx-count);
/// a bulk stage (values and columns of C elements) of the largest batch stays below it.
inline constexpr std::int64_t kBarrierTransactionBytesLimit = (std::int64_t{1} << 20) - 1;
static_assert(stage_capacity(kLargestMaxBatchSize) * (8 + 4) <= kBarrierTransactionBytesLimit,
              "a bulk-copied fp64 stage must fit one mbarrier phase");

/// The build of the batch kernel for a copy mechanism: register_bound_build takes the one for
/// kRegisterBoundBlocks resident blocks of at most kRegisterBoundThreads threads.
template <typename V, CopyMechanism kCopy>
BatchKernel<V> batch_kernel_build(bool register_bound_build) {
  return register_bound_build
             ? &device::batch_kernel<V, kRegisterBoundThreads, kRegisterBoundBlocks, kCopy>
             : &device::batch_kernel<V, device::kLargestBatchBlock, 1, kCopy>;
}

/// The same for the warp-batch kernels (batch_unit=warp): cp.async stages, or copy=direct.
template <typename V>
BatchKernel<V> warp_batch_kernel_build(bool register_bound_build, CopyMechanism copy) {
  if (copy == CopyMechanism::direct)
    return register_bound_build
               ? &device::warp_direct_batch_kernel<V, kRegisterBoundThreads, kRegisterBoundBlocks>
               : &device::warp_direct_batch_kernel<V, device::kLargestBatchBlock, 1>;
  return register_bound_build
             ? &device::warp_batch_kernel<V, kRegisterBoundThreads, kRegisterBoundBlocks>
             : &device::warp_batch_kernel<V, device::kLargestBatchBlock, 1>;
}

/// Throws UnsupportedError, naming `method` and the GPU's compute capability, when copy=bulk
/// cannot run: the GPU is older than sm_90, or `kernel` was not built for sm_90 (its binary
/// would trap in the bulk copy; arch::kHasBulkCopy).
inline void check_bulk_copy_supported(const cudaFuncAttributes& kernel, std::string_view method) {
  const int major = current_device_attribute(cudaDevAttrComputeCapabilityMajor);
  const int minor = current_device_attribute(cudaDevAttrComputeCapabilityMinor);
  const std::string capability = std::to_string(major) + "." + std::to_string(minor);
  if (major < 9)
    throw UnsupportedError(std::string(method) +
                           ": copy=bulk needs the bulk copy (TMA) of sm_90 or later; this GPU "
                           "has compute capability " +
                           capability + ": use copy=cp_async");
  if (!runs_sm90_code(kernel))
    throw UnsupportedError(std::string(method) + ": copy=bulk: this build of tcsparse has no "
                           "sm_90 code for the GPU of compute capability " + capability +
                           " (CMAKE_CUDA_ARCHITECTURES without 90): use copy=cp_async");
}

/// Picks the build for parameters.threads_per_block (register_bound: blocks of at most
/// kRegisterBoundThreads threads take the one built for kRegisterBoundBlocks resident blocks),
/// lets it use the device's opt-in shared memory (set for the function whatever this plan needs,
/// so that plans with different sizes do not undo each other's setting) and counts the resident
/// blocks. Throws UnsupportedError, naming `method`, when the stages do not fit a block, no
/// block fits an SM, or copy=bulk on a GPU without it (check_bulk_copy_supported).
template <typename V>
BatchKernelLaunch<V> prepare_batch_kernel(const CsrOverlapParameters& parameters,
                                          std::string_view method) {
  BatchKernelLaunch<V> launch;
  launch.threads = parameters.threads_per_block;
  const bool register_bound_build =
      parameters.register_bound && launch.threads <= kRegisterBoundThreads;
  launch.unit = parameters.batch_unit;
  if (parameters.batch_unit == BatchUnit::warp)
    launch.kernel = warp_batch_kernel_build<V>(register_bound_build, parameters.copy);
  else if (parameters.copy == CopyMechanism::direct)
    throw ParameterError(std::string(method) + ": copy=direct needs batch_unit=warp");
  else if (parameters.copy == CopyMechanism::bulk)
    launch.kernel = batch_kernel_build<V, CopyMechanism::bulk>(register_bound_build);
  else
    launch.kernel = batch_kernel_build<V, CopyMechanism::cp_async>(register_bound_build);
  launch.shared_bytes = batch_shared_bytes(parameters, sizeof(V));
  cudaFuncAttributes attributes{};
  TCSPARSE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, launch.kernel));
  if (parameters.copy == CopyMechanism::bulk) check_bulk_copy_supported(attributes, method);
  const auto optin = static_cast<std::size_t>(
      current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  const std::size_t dynamic_limit =
      optin > attributes.sharedSizeBytes ? optin - attributes.sharedSizeBytes : 0;
  if (launch.shared_bytes > dynamic_limit)
    throw UnsupportedError(std::string(method) + ": max_batch_size=" +
                           std::to_string(parameters.max_batch_size) + " needs " +
                           std::to_string(launch.shared_bytes) +
                           " bytes of shared memory a block for " +
                           std::to_string(parameters.pipeline_stages) +
                           " stages; this GPU allows " + std::to_string(dynamic_limit));
  TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(launch.kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(dynamic_limit)));
  launch.sm_count = current_device_attribute(cudaDevAttrMultiProcessorCount);
  int resident = 0;
  TCSPARSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &resident, launch.kernel, launch.threads, launch.shared_bytes));
  if (resident < 1)
    throw UnsupportedError(std::string(method) + ": no block of " +
                           std::to_string(launch.threads) + " threads and " +
                           std::to_string(launch.shared_bytes) +
                           " bytes of shared memory fits an SM");
  launch.blocks_per_sm = parameters.blocks_per_sm > 0 ? parameters.blocks_per_sm : resident;
  launch.long_row_threads = parameters.long_row_threads_for(sizeof(V));
  int long_row_resident = 0;
  TCSPARSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &long_row_resident, &device::long_row_kernel<V>, launch.long_row_threads, 0));
  launch.long_row_wave =
      static_cast<std::int64_t>(std::max(long_row_resident, 1)) * launch.sm_count;
  return launch;
}

}  // namespace tcsparse::csr_overlap
