// RAII owners for device memory, streams, events and the cuSPARSE handle. Move-only; every CUDA
// status is checked (cuda_check.hpp). Destructors never throw: a failing release is ignored.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/cuda_check.hpp"

namespace tcsparse::detail {

/// cudaMalloc of bytes, throwing DeviceMemoryError ("cannot allocate N bytes on the GPU: M free")
/// when the device is out of memory.
void* device_allocate(std::size_t bytes);
void device_free(void* pointer) noexcept;
/// The same from the stream-ordered allocator (cudaMallocFromPoolAsync / cudaFreeAsync on
/// `stream`): neither waits for work on other streams, so plan-time temporaries can come and go
/// while a copy or a kernel runs elsewhere. They come from tcsparse's own pool on the current
/// device, which keeps freed memory for the next allocation: the device's default pool gives it
/// back to the driver at every synchronisation (release threshold 0), so a build that downloads a
/// count between its steps mapped its temporaries anew after each one. A TemporaryMemoryScope
/// gives the unused part back when a build ends (all but kTemporaryMemoryKeptBetweenBuilds), and
/// device_allocate takes it back when cudaMalloc finds the device full.
void* device_allocate_on_stream(std::size_t bytes, cudaStream_t stream);
void device_free_on_stream(void* pointer, cudaStream_t stream) noexcept;

/// The calling thread's pinned host buffers of kDownloadBounceBytes: one for download_one and
/// SmallDownloads, one for the answer of a DeviceCsrCheck in flight (downloaded before it is
/// waited for). A small copy into pageable memory is staged by the driver and waits longer for it.
/// A thread takes them from a process-wide pool at first use and gives them back when it ends.
inline constexpr std::size_t kDownloadBounceBytes = 512;
enum class DownloadSlot { download_one, check_in_flight };
void* download_bounce(DownloadSlot slot = DownloadSlot::download_one);
/// Makes the pool hold two unused bounce buffers (a thread's pair), pinning them now if it does
/// not: called before a worker thread starts beside a staged upload, so that the worker does not
/// pin memory while the copies run.
void reserve_download_bounces();

/// A non-blocking stream of the calling thread on the current device, made on its first use and
/// kept for the thread's life: a plan build runs work on it beside its work on the legacy stream
/// (a non-blocking stream does not wait for the legacy stream: order the two with events).
cudaStream_t build_side_stream();

/// Gives the memory that tcsparse's stream-ordered pool on the current device holds and no
/// allocation uses back to the driver (cudaMemPoolTrimTo), until at most `keep` bytes of it are
/// unused (the arrays of live plans taken from the pool are not counted against `keep`).
void release_unused_temporary_memory(std::size_t keep = 0) noexcept;
/// Bytes that pool holds from the driver now, in use or kept for reuse, and the most it held since
/// reset_temporary_memory_high_water() (tests).
std::size_t temporary_memory_reserved_bytes();
/// Bytes of that pool that allocations use now (temporaries and from_pool arrays of live plans).
std::size_t temporary_memory_used_bytes();
std::size_t temporary_memory_high_water_bytes();
void reset_temporary_memory_high_water();

/// A plan build is small when its temporaries take at most this much: it may take the arrays its
/// plan keeps from the pool too (hbp's layout_memory=auto, detail::is_small_build), and all of it
/// fits what the pool keeps between builds.
inline constexpr std::size_t kSmallBuildTemporaryBytes = std::size_t{32} << 20;

/// What the pool keeps between plan builds: a small build's temporaries and the arrays its plan
/// takes from the pool, so that the next build neither gives them back nor maps them anew (giving
/// back everything lengthened the end of a 1 ms build by ~0.1 ms on an H200; with 32 MiB kept,
/// an fp64 hbp build of about 47 MB at its peak spent ~0.08 ms of 0.5 ms mapping the rest again,
/// runs 375-376 of bench/results/2026-11-30-2215-h200-hbp-one-block-build), but no large one's.
inline constexpr std::size_t kTemporaryMemoryKeptBetweenBuilds = 2 * kSmallBuildTemporaryBytes;

/// Declared before a plan build's temporaries (so destroyed after them): at the end of the scope,
/// waits for `stream` (the temporaries' frees included) and releases the pool's unused memory
/// beyond kTemporaryMemoryKeptBetweenBuilds.
class TemporaryMemoryScope {
 public:
  explicit TemporaryMemoryScope(cudaStream_t stream) : stream_(stream) {}
  ~TemporaryMemoryScope() {
    cudaStreamSynchronize(stream_);  // noexcept: a failure is reported by the next CUDA call
    release_unused_temporary_memory(kTemporaryMemoryKeptBetweenBuilds);
  }
  TemporaryMemoryScope(const TemporaryMemoryScope&) = delete;
  TemporaryMemoryScope& operator=(const TemporaryMemoryScope&) = delete;

 private:
  cudaStream_t stream_;
};

/// Allocations of device_allocate not freed yet, over every thread (tests: a failed build
/// leaks nothing).
std::int64_t live_device_allocations();

/// For tests of out-of-memory paths without taking the GPU's memory from other processes: while
/// alive, device_allocate refuses, as cudaMalloc's out of memory would (DeviceMemoryError), an
/// allocation that would take the bytes allocated since the scope began beyond `budget`. One at
/// a time.
class DeviceAllocationBudget {
 public:
  explicit DeviceAllocationBudget(std::size_t budget);
  ~DeviceAllocationBudget();
  DeviceAllocationBudget(const DeviceAllocationBudget&) = delete;
  DeviceAllocationBudget& operator=(const DeviceAllocationBudget&) = delete;
};

/// A typed array in device memory.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count)
      : data_(count ? static_cast<T*>(device_allocate(count * sizeof(T))) : nullptr),
        size_(count) {}
  /// Allocates and copies `host` to the device; complete on return (upload()).
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(std::span<const T>(host)) {}

  /// `count` elements from the stream-ordered allocator on `stream`: usable there at once (on
  /// other streams once `stream` has reached the allocation) and released on `stream` when the
  /// buffer dies, which `stream` must outlive. For plan-time temporaries beside a copy or kernel
  /// on another stream (cudaMalloc and cudaFree may wait for those).
  static DeviceBuffer on_stream(std::size_t count, cudaStream_t stream) {
    DeviceBuffer buffer;
    buffer.stream_ordered_ = true;
    buffer.stream_ = stream;
    if (count)
      buffer.data_ = static_cast<T*>(device_allocate_on_stream(count * sizeof(T), stream));
    buffer.size_ = count;
    return buffer;
  }

  /// `count` elements of a plan's own from the same pool, allocated in order on `allocate_on`
  /// (the stream that first writes them: the legacy stream by default), where the pool holds
  /// mapped memory from earlier builds: a cudaMalloc of a few MB maps new pages, about 0.1 ms on
  /// an H200, and a cudaMalloc or cudaFree beside a staged upload slows the upload (DASP's build,
  /// run 209). Released as cudaFree releases: once the whole device has finished
  /// (cudaDeviceSynchronize), on the legacy stream, so that destroying a plan while an apply runs
  /// on another stream is as safe as with cudaMalloc'd arrays; and given back to the driver
  /// beyond kTemporaryMemoryKeptBetweenBuilds, so that a destroyed plan's memory is free again.
  static DeviceBuffer from_pool(std::size_t count, cudaStream_t allocate_on = nullptr) {
    DeviceBuffer buffer = on_stream(count, allocate_on);
    buffer.stream_ = nullptr;
    buffer.synchronize_device_on_release_ = true;
    return buffer;
  }

  /// `count` elements of a plan's own: from_pool for a small build (kSmallBuildTemporaryBytes),
  /// else a cudaMalloc, so that a large build's arrays never sit among its freed temporaries and
  /// keep them mapped while the plan lives.
  static DeviceBuffer for_plan(std::size_t count, bool small_build,
                               cudaStream_t allocate_on = nullptr) {
    return small_build ? from_pool(count, allocate_on) : DeviceBuffer(count);
  }

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
        stream_ordered_(other.stream_ordered_),
        synchronize_device_on_release_(other.synchronize_device_on_release_),
        stream_(other.stream_) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ordered_ = other.stream_ordered_;
      synchronize_device_on_release_ = other.synchronize_device_on_release_;
      stream_ = other.stream_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }

  /// Copies `host` to the device. Complete on return, so that work on any stream sees it: a
  /// cudaMemcpy from pageable memory may return before its DMA has landed, and a non-blocking
  /// stream does not wait for the legacy stream that carries it.
  void upload(std::span<const T> host) {
    if (host.size() != size_) throw Error("DeviceBuffer::upload: size mismatch");
    if (!size_) return;
    TCSPARSE_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  std::vector<T> download() const {
    std::vector<T> host(size_);
    if (size_) TCSPARSE_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  /// Fills every byte with `byte` (0xFF makes fp64/fp32/fp16 NaN: used to poison outputs).
  /// Complete on return, as upload() (cudaMemset is asynchronous on the legacy stream).
  void fill_bytes(int byte) {
    if (!size_) return;
    TCSPARSE_CUDA_CHECK(cudaMemset(data_, byte, bytes()));
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }

 private:
  void release() noexcept {
    if (data_ && synchronize_device_on_release_ && cudaDeviceSynchronize() != cudaSuccess)
      cudaGetLastError();  // noexcept: a failure is reported by the next CUDA call
    if (stream_ordered_) device_free_on_stream(data_, stream_);
    else device_free(data_);
    if (data_ && synchronize_device_on_release_)
      release_unused_temporary_memory(kTemporaryMemoryKeptBetweenBuilds);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  bool stream_ordered_ = false;
  bool synchronize_device_on_release_ = false;  ///< from_pool
  cudaStream_t stream_ = nullptr;
};

/// A non-blocking CUDA stream.
class CudaStream {
 public:
  CudaStream() { TCSPARSE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~CudaStream() { if (stream_) cudaStreamDestroy(stream_); }
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&&) = delete;
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A CUDA event, for timing by default; CudaEvent(cudaEventDisableTiming) for ordering only
/// (cheaper to record and wait for).
class CudaEvent {
 public:
  CudaEvent() { TCSPARSE_CUDA_CHECK(cudaEventCreate(&event_)); }
  explicit CudaEvent(unsigned flags) {
    TCSPARSE_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags));
  }
  ~CudaEvent() { if (event_) cudaEventDestroy(event_); }
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&&) = delete;
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { TCSPARSE_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { TCSPARSE_CUDA_CHECK(cudaEventSynchronize(event_)); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_ms_since(const CudaEvent& start) const {
    float ms = 0.0f;
    TCSPARSE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A cuSPARSE library handle.
class CusparseHandle {
 public:
  CusparseHandle() { TCSPARSE_CUSPARSE_CHECK(cusparseCreate(&handle_)); }
  ~CusparseHandle() {
    if (!handle_) return;
    // The last stream set on the handle may be gone already (streams often die before plans):
    // detach it so that the destruction cannot touch it.
    cusparseSetStream(handle_, nullptr);
    cusparseDestroy(handle_);
  }
  CusparseHandle(CusparseHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CusparseHandle& operator=(CusparseHandle&&) = delete;
  CusparseHandle(const CusparseHandle&) = delete;
  CusparseHandle& operator=(const CusparseHandle&) = delete;
  cusparseHandle_t get() const { return handle_; }

 private:
  cusparseHandle_t handle_ = nullptr;
};

/// One value of device memory, read once `stream`'s earlier work has written it (plan time: a
/// count a kernel or a scan produced).
template <typename T>
T download_one(const T* device, cudaStream_t stream = nullptr) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= kDownloadBounceBytes);
  void* bounce = download_bounce();
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(bounce, device, sizeof(T), cudaMemcpyDeviceToHost, stream));
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  T host;
  std::memcpy(&host, bounce, sizeof(T));
  return host;
}

/// A few values of device memory read with one wait for `stream` (plan time: the counts that one
/// step produced, of any trivially copyable types, in one round trip instead of one each). add()
/// enqueues a copy into the calling thread's pinned bounce buffer (a copy into pageable memory is
/// staged by the driver, which waits for the stream on every such copy); wait() synchronises once
/// and hands each value to its place. The bounce is download_one's: no download_one on this
/// thread between the first add() and wait().
class SmallDownloads {
 public:
  explicit SmallDownloads(cudaStream_t stream)
      : stream_(stream), bounce_(static_cast<unsigned char*>(download_bounce())) {}
  SmallDownloads(const SmallDownloads&) = delete;
  SmallDownloads& operator=(const SmallDownloads&) = delete;

  /// `count` values at `device` into `host` (valid until wait() returns).
  template <typename T>
  void add(const T* device, T* host, std::size_t count = 1) {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::size_t offset = (used_ + alignof(T) - 1) / alignof(T) * alignof(T);
    const std::size_t bytes = count * sizeof(T);
    if (places_count_ == places_.size() || offset + bytes > kDownloadBounceBytes)
      throw Error("SmallDownloads: more than " + std::to_string(kDownloadBounceBytes) +
                  " bytes or " + std::to_string(places_.size()) + " places in one wait");
    TCSPARSE_CUDA_CHECK(
        cudaMemcpyAsync(bounce_ + offset, device, bytes, cudaMemcpyDeviceToHost, stream_));
    places_[places_count_++] = {host, offset, bytes};
    used_ = offset + bytes;
  }

  /// Waits for the stream, then writes every value added to its host place.
  void wait() {
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (std::size_t i = 0; i < places_count_; ++i)
      std::memcpy(places_[i].host, bounce_ + places_[i].offset, places_[i].bytes);
    places_count_ = 0;
    used_ = 0;
  }

 private:
  struct Place {
    void* host = nullptr;
    std::size_t offset = 0, bytes = 0;
  };
  cudaStream_t stream_;
  unsigned char* bounce_;
  std::array<Place, 8> places_{};
  std::size_t places_count_ = 0, used_ = 0;
};

}  // namespace tcsparse::detail
