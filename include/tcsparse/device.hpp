// The GPU as the library sees it: presence, properties, and the copy-bandwidth ceiling.
#pragma once

#include <cstddef>
#include <string>

namespace tcsparse {

/// True when the CUDA runtime finds at least one device. Never throws.
bool cuda_device_available();

/// Throws NoDeviceError with a clear message ("no CUDA device found: <reason>") when there is
/// none; used by every GPU command.
void require_cuda_device();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;                ///< e.g. "NVIDIA H200"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_cache_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;
  int memory_bus_width_bits = 0;
  std::string driver_version;      ///< the kernel driver, e.g. "580.159.04" (Linux), else the
                                   ///< CUDA version the driver supports, e.g. "CUDA 13.0"
  std::string runtime_version;     ///< CUDA runtime, e.g. "13.0"
};

DeviceInfo query_device(int ordinal = 0);

/// Device-to-device copy bandwidth in GB/s (1e9 bytes/s), counting bytes read plus bytes written,
/// measured with cudaMemcpyAsync over `bytes` (default 1 GiB, well past L2), median of runs.
/// This is the ceiling that achieved SpMV bandwidth is compared with.
double measure_copy_bandwidth_gbps(int ordinal = 0, std::size_t bytes = std::size_t{1} << 30);

}  // namespace tcsparse
