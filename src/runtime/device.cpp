// The GPU as the library sees it: presence, properties, and the device-to-device copy bandwidth
// that achieved SpMV bandwidth is compared with (DESIGN.md, "Numbers everyone uses").
#include "tcsparse/device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {

namespace {

/// Copies before timing: the first ones pay for page mapping and clock ramp-up.
constexpr int copy_warmup_runs = 3;
/// Timed copies; the median is reported.
constexpr int copy_timed_runs = 20;

/// 13000 -> "13.0", 12080 -> "12.8" (the encoding of cudaDriverGetVersion/cudaRuntimeGetVersion).
/// The NVIDIA kernel module's version ("580.159.04") from /proc/driver/nvidia/version, whose first
/// line reads "NVRM version: NVIDIA UNIX [Open] Kernel Module [for x86_64]  580.159.04  <date>":
/// the first word after "Kernel Module" that starts with a digit. None elsewhere.
std::optional<std::string> kernel_driver_version() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  if (!file || !std::getline(file, line)) return std::nullopt;
  const std::string marker = "Kernel Module";
  const auto at = line.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(at + marker.size()));
  for (std::string word; rest >> word;)
    if (std::isdigit(static_cast<unsigned char>(word.front())) &&
        word.find('.') != std::string::npos)
      return word;
  return std::nullopt;
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

/// The number of devices, or the runtime's reason why there are none (status != cudaSuccess).
struct DeviceCount {
  int count = 0;
  cudaError_t status = cudaSuccess;
};

DeviceCount count_devices() noexcept {
  DeviceCount result;
  result.status = cudaGetDeviceCount(&result.count);
  if (result.status != cudaSuccess) {
    cudaGetLastError();  // not sticky; leave no trace for later checks
    result.count = 0;
  }
  return result;
}

void require_device_ordinal(int ordinal) {
  require_cuda_device();
  const int count = count_devices().count;
  if (ordinal < 0 || ordinal >= count)
    throw NoDeviceError("CUDA device " + std::to_string(ordinal) + " does not exist: " +
                        std::to_string(count) + " device(s) present (ordinals 0.." +
                        std::to_string(count - 1) + ")");
}

/// Makes `ordinal` the current device for its lifetime, then restores the caller's.
class CurrentDeviceScope {
 public:
  explicit CurrentDeviceScope(int ordinal) {
    TCSPARSE_CUDA_CHECK(cudaGetDevice(&previous_));
    TCSPARSE_CUDA_CHECK(cudaSetDevice(ordinal));
  }
  ~CurrentDeviceScope() {
    if (cudaSetDevice(previous_) != cudaSuccess) cudaGetLastError();
  }
  CurrentDeviceScope(const CurrentDeviceScope&) = delete;
  CurrentDeviceScope& operator=(const CurrentDeviceScope&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace

bool cuda_device_available() {
  try {
    const DeviceCount devices = count_devices();
    return devices.status == cudaSuccess && devices.count > 0;
  } catch (...) {  // the runtime is C, but be certain: this function never throws
    return false;
  }
}

void require_cuda_device() {
  const DeviceCount devices = count_devices();
  if (devices.status == cudaErrorInsufficientDriver || devices.status == cudaErrorNoDevice) {
    // Without an NVIDIA driver the runtime says "driver version is insufficient": say what it
    // means and what works instead.
    const bool driver_loaded = kernel_driver_version().has_value();
    throw NoDeviceError(
        std::string("no CUDA device found: ") +
        (driver_loaded ? "the NVIDIA driver is loaded but reports no usable GPU"
                       : "no NVIDIA driver or GPU on this machine") +
        " (CUDA runtime: " + cudaGetErrorName(devices.status) +
        "); run on the CPU reference with --device cpu (spmv, spmm), or use info, generate, "
        "convert and methods, which need no GPU");
  }
  if (devices.status != cudaSuccess)
    throw NoDeviceError(std::string("no CUDA device found: ") +
                        cudaGetErrorString(devices.status) + " (" +
                        cudaGetErrorName(devices.status) + ")");
  if (devices.count == 0)
    throw NoDeviceError("no CUDA device found: the CUDA runtime reports 0 devices");
}

DeviceInfo query_device(int ordinal) {
  require_device_ordinal(ordinal);
  cudaDeviceProp properties{};
  TCSPARSE_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal));

  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = properties.name;
  info.compute_capability_major = properties.major;
  info.compute_capability_minor = properties.minor;
  info.multiprocessors = properties.multiProcessorCount;
  info.global_memory_bytes = properties.totalGlobalMem;
  info.l2_cache_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  info.shared_memory_per_block_optin = properties.sharedMemPerBlockOptin;
  info.memory_bus_width_bits = properties.memoryBusWidth;

  int driver = 0, runtime = 0;
  TCSPARSE_CUDA_CHECK(cudaDriverGetVersion(&driver));
  TCSPARSE_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  info.driver_version = kernel_driver_version().value_or("CUDA " + cuda_version_string(driver));
  info.runtime_version = cuda_version_string(runtime);
  return info;
}

double measure_copy_bandwidth_gbps(int ordinal, std::size_t bytes) {
  if (bytes == 0) throw Error("measure_copy_bandwidth_gbps: bytes must be positive");
  require_device_ordinal(ordinal);
  const CurrentDeviceScope device(ordinal);

  detail::DeviceBuffer<std::byte> source(bytes);
  detail::DeviceBuffer<std::byte> destination(bytes);
  source.fill_bytes(0x5A);  // touch every page before timing
  destination.fill_bytes(0);
  TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());

  detail::CudaStream stream;
  const auto copy = [&] {
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(destination.data(), source.data(), bytes,
                                        cudaMemcpyDeviceToDevice, stream.get()));
  };
  for (int run = 0; run < copy_warmup_runs; ++run) copy();
  stream.synchronize();

  std::vector<detail::CudaEvent> starts(copy_timed_runs), stops(copy_timed_runs);
  for (int run = 0; run < copy_timed_runs; ++run) {
    starts[run].record(stream.get());
    copy();
    stops[run].record(stream.get());
  }
  stream.synchronize();

  std::vector<double> milliseconds(copy_timed_runs);
  for (int run = 0; run < copy_timed_runs; ++run)
    milliseconds[run] = stops[run].elapsed_ms_since(starts[run]);
  std::nth_element(milliseconds.begin(), milliseconds.begin() + copy_timed_runs / 2,
                   milliseconds.end());
  const double median_seconds = milliseconds[copy_timed_runs / 2] * 1e-3;
  if (!(median_seconds > 0.0))
    throw Error("measure_copy_bandwidth_gbps: the timed copy took no measurable time");
  const double bytes_moved = 2.0 * static_cast<double>(bytes);  // read + written
  return bytes_moved / median_seconds / 1e9;
}

}  // namespace tcsparse
