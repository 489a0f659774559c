// Host memory checks made before large allocations, so that a request that cannot fit ends in a
// HostMemoryError naming what asked, how much and how much there is, instead of std::bad_alloc.
#pragma once

#include <cstdint>
#include <string>

namespace tcsparse {

/// Bytes this process may still allocate: the smallest of MemAvailable (/proc/meminfo), the
/// cgroup memory limit less its usage, the address-space limit (ulimit -v) less the process's
/// current size, and the environment variable TCSPARSE_MEMORY_LIMIT (bytes, or with a K, M, G
/// or T suffix: powers of 1024). Unknown parts are left out; UINT64_MAX when none is known.
std::uint64_t available_host_memory();

/// Throws HostMemoryError("WHAT needs about X of host memory, but only Y are available ...")
/// when `bytes` exceed available_host_memory().
void require_host_memory(std::uint64_t bytes, const std::string& what);

/// "1.5 GB", "320.0 MB", "12 bytes": a byte count for messages (powers of 1000).
std::string format_bytes(std::uint64_t bytes);

}  // namespace tcsparse
