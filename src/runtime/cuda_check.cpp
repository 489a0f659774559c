// Typed errors from CUDA / cuSPARSE status codes, and device allocation that says how much memory
// was asked for and how much was free.
#include "runtime/cuda_check.hpp"
#include "runtime/cublas_check.hpp"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_buffer.hpp"

namespace tcsparse::detail {

namespace {

/// __FILE__ relative to the repository: the part from the last "src/", "tests/", "tools/" or
/// "bench/" on, so messages read "src/x.cu:12" whatever the build directory was.
std::string_view source_path(const char* file) {
  const std::string_view path(file);
  std::size_t best = std::string_view::npos;
  for (const std::string_view top : {"/src/", "/tests/", "/tools/", "/bench/", "/python/"}) {
    const std::size_t at = path.rfind(top);
    if (at != std::string_view::npos && (best == std::string_view::npos || at > best)) best = at;
  }
  return best == std::string_view::npos ? path : path.substr(best + 1);
}

std::string location(const char* call, const char* file, int line) {
  return std::string(call) + " failed at " + std::string(source_path(file)) + ":" +
         std::to_string(line);
}

}  // namespace

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  char text[48];
  if (unit == 0)
    std::snprintf(text, sizeof text, "%zu B", bytes);
  else
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // A failed runtime call also leaves its status as the thread's "last error"; clear it (it stays
  // only if sticky) so that a later TCSPARSE_CUDA_CHECK_LAUNCH does not report it a second time.
  cudaGetLastError();
  const std::string message = location(call, file, line) + ": " + cudaGetErrorString(status) +
                              " (" + cudaGetErrorName(status) + ")";
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver)
    throw NoDeviceError(message + ": no NVIDIA driver or GPU found (spmv and spmm run on the CPU "
                                  "reference with --device cpu)");
  throw CudaError(static_cast<int>(status), message);
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  throw CusparseError(static_cast<int>(status), location(call, file, line) + ": " +
                                                    cusparseGetErrorString(status) + " (" +
                                                    cusparseGetErrorName(status) + ")");
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  throw CublasError(static_cast<int>(status), location(call, file, line) + ": " +
                                                  cublasGetStatusString(status) + " (status " +
                                                  std::to_string(static_cast<int>(status)) + ")");
}

namespace {
std::atomic<std::int64_t> live_allocations{0};
std::atomic<bool> budget_active{false};
std::atomic<std::size_t> budget_bytes{0}, budget_spent{0};
}  // namespace

std::int64_t live_device_allocations() { return live_allocations.load(); }

DeviceAllocationBudget::DeviceAllocationBudget(std::size_t budget) {
  budget_bytes = budget;
  budget_spent = 0;
  budget_active = true;
}

DeviceAllocationBudget::~DeviceAllocationBudget() { budget_active = false; }

namespace {

/// Refuses `bytes` where a DeviceAllocationBudget is active and would be exceeded.
void charge_budget(std::size_t bytes) {
  if (!budget_active.load()) return;
  const std::size_t spent = budget_spent.fetch_add(bytes) + bytes;
  if (spent > budget_bytes.load()) {
    budget_spent.fetch_sub(bytes);
    throw DeviceMemoryError(static_cast<int>(cudaErrorMemoryAllocation), bytes, 0,
                            "cannot allocate " + format_bytes(bytes) +
                                " on the GPU: the test budget of " +
                                format_bytes(budget_bytes.load()) + " is spent");
  }
}

/// Throws the error of a failed allocation of `bytes` (DeviceMemoryError when out of memory).
[[noreturn]] void throw_allocation_failure(cudaError_t status, std::size_t bytes,
                                           const char* call) {
  if (status != cudaErrorMemoryAllocation) throw_cuda_error(status, call, __FILE__, __LINE__);
  cudaGetLastError();  // out of memory is not sticky: clear it so the context stays usable
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();
    free_bytes = total_bytes = 0;
  }
  std::string message = "cannot allocate " + format_bytes(bytes) + " on the GPU: ";
  if (total_bytes)
    message += format_bytes(free_bytes) + " free of " + format_bytes(total_bytes);
  else
    message += "free memory unknown";
  throw DeviceMemoryError(static_cast<int>(status), bytes, free_bytes, message);
}

}  // namespace

void* device_allocate(std::size_t bytes) {
  charge_budget(bytes);
  void* pointer = nullptr;
  cudaError_t status = cudaMalloc(&pointer, bytes);
  if (status == cudaErrorMemoryAllocation) {  // the temporary pool may hold what is missing
    cudaGetLastError();
    release_unused_temporary_memory();
    status = cudaMalloc(&pointer, bytes);
  }
  if (status != cudaSuccess) throw_allocation_failure(status, bytes, "cudaMalloc");
  ++live_allocations;
  return pointer;
}

namespace {

/// tcsparse's pool of stream-ordered memory on `device`: made on first use, kept for the
/// process (it may outlive the CUDA context at exit), holding freed memory until
/// release_unused_temporary_memory (release threshold: no limit).
cudaMemPool_t temporary_memory_pool(int device) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard lock(mutex);
  if (const auto found = pools.find(device); found != pools.end()) return found->second;
  cudaMemPoolProps properties{};
  properties.allocType = cudaMemAllocationTypePinned;
  properties.handleTypes = cudaMemHandleTypeNone;
  properties.location.type = cudaMemLocationTypeDevice;
  properties.location.id = device;
  cudaMemPool_t pool = nullptr;
  TCSPARSE_CUDA_CHECK(cudaMemPoolCreate(&pool, &properties));
  std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();
  TCSPARSE_CUDA_CHECK(
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  pools.emplace(device, pool);
  return pool;
}

int current_device() {
  int device = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

}  // namespace

void* device_allocate_on_stream(std::size_t bytes, cudaStream_t stream) {
  charge_budget(bytes);
  void* pointer = nullptr;
  const cudaError_t status =
      cudaMallocFromPoolAsync(&pointer, bytes, temporary_memory_pool(current_device()), stream);
  if (status != cudaSuccess) throw_allocation_failure(status, bytes, "cudaMallocFromPoolAsync");
  ++live_allocations;
  return pointer;
}

namespace {

std::size_t pool_attribute(cudaMemPoolAttr attribute) {
  std::uint64_t value = 0;
  TCSPARSE_CUDA_CHECK(
      cudaMemPoolGetAttribute(temporary_memory_pool(current_device()), attribute, &value));
  return static_cast<std::size_t>(value);
}

}  // namespace

std::size_t temporary_memory_reserved_bytes() {
  return pool_attribute(cudaMemPoolAttrReservedMemCurrent);
}

std::size_t temporary_memory_used_bytes() { return pool_attribute(cudaMemPoolAttrUsedMemCurrent); }

std::size_t temporary_memory_high_water_bytes() {
  return pool_attribute(cudaMemPoolAttrReservedMemHigh);
}

void reset_temporary_memory_high_water() {
  std::uint64_t zero = 0;  // the only value the attribute accepts
  TCSPARSE_CUDA_CHECK(cudaMemPoolSetAttribute(temporary_memory_pool(current_device()),
                                              cudaMemPoolAttrReservedMemHigh, &zero));
}

void release_unused_temporary_memory(std::size_t keep) noexcept {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  try {
    // cudaMemPoolTrimTo counts the memory in use too: keep `keep` bytes beside what live plans'
    // arrays (DeviceBuffer::from_pool) hold, not `keep` bytes in all
    const cudaMemPool_t pool = temporary_memory_pool(device);
    std::uint64_t used = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
      cudaGetLastError();
      used = 0;
    }
    if (cudaMemPoolTrimTo(pool, static_cast<std::size_t>(used) + keep) != cudaSuccess)
      cudaGetLastError();
  } catch (const Error&) {  // the pool could not be made: nothing to release
  }
}

void device_free_on_stream(void* pointer, cudaStream_t stream) noexcept {
  if (!pointer) return;
  --live_allocations;
  if (cudaFreeAsync(pointer, stream) != cudaSuccess) cudaGetLastError();
}

namespace {

/// The process's pinned bounce buffers not held by a thread: a thread takes its two at first use
/// and gives them back when it ends; they are freed at exit. A plan build's worker is a new thread
/// each build, and a cudaMallocHost (or cudaFreeHost) on it beside the staged upload slowed the
/// whole upload by a third (H200, run 299,
/// bench/results/2026-11-30-0800-h200-upload-beside-bounces).
struct BouncePool {
  std::mutex mutex;
  std::vector<void*> unused;
  ~BouncePool() {
    for (void* pointer : unused)
      if (cudaFreeHost(pointer) != cudaSuccess) cudaGetLastError();  // at exit
  }
  static void* allocate() {
    void* pointer = nullptr;
    TCSPARSE_CUDA_CHECK(cudaMallocHost(&pointer, kDownloadBounceBytes));
    return pointer;
  }
  void* take() {
    {
      const std::lock_guard lock(mutex);
      if (!unused.empty()) {
        void* pointer = unused.back();
        unused.pop_back();
        return pointer;
      }
    }
    return allocate();
  }
  void give_back(void* pointer) {
    const std::lock_guard lock(mutex);
    unused.push_back(pointer);
  }
};

BouncePool& bounce_pool() {
  static BouncePool pool;  // constructed before any thread's bounces, so destroyed after them
  return pool;
}

}  // namespace

void* download_bounce(DownloadSlot slot) {
  struct ThreadBounces {
    BouncePool& pool = bounce_pool();
    void* pointers[2] = {nullptr, nullptr};
    ~ThreadBounces() {
      for (void* pointer : pointers)
        if (pointer) pool.give_back(pointer);
    }
  };
  thread_local ThreadBounces bounces;
  void*& pointer = bounces.pointers[slot == DownloadSlot::download_one ? 0 : 1];
  if (!pointer) pointer = bounces.pool.take();
  return pointer;
}

void reserve_download_bounces() {
  BouncePool& pool = bounce_pool();
  const std::lock_guard lock(pool.mutex);
  while (pool.unused.size() < 2) pool.unused.push_back(BouncePool::allocate());
}

cudaStream_t build_side_stream() {
  struct SideStreams {
    std::map<int, cudaStream_t> by_device;
    ~SideStreams() {
      for (const auto& [device, stream] : by_device)
        if (cudaStreamDestroy(stream) != cudaSuccess) cudaGetLastError();  // at exit
    }
  };
  thread_local SideStreams streams;
  int device = 0;
  TCSPARSE_CUDA_CHECK(cudaGetDevice(&device));
  cudaStream_t& stream = streams.by_device[device];
  if (!stream) TCSPARSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return stream;
}

void device_free(void* pointer) noexcept {
  if (!pointer) return;
  --live_allocations;
  if (cudaFree(pointer) != cudaSuccess) cudaGetLastError();
}

}  // namespace tcsparse::detail
