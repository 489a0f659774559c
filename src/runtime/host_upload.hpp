// The one host-to-device upload path of the library, and the RAII owners of pinned host memory.
//
//   HostUploader uploader(HostUpload::automatic);   // on the legacy stream
//   uploader.copy(device_pointer, host_pointer, bytes);   // enqueued (may block while staging)
//   uploader.finish();                               // every copy has landed
//
// A copy from pageable memory runs at 9.5 GB/s on an H200, one from pinned memory at 55 GB/s
// (issue 8). The uploader copies
//   - pinned or registered sources (cudaMallocHost, cudaHostRegister) directly;
//   - `staged`: through a ring of kStagingChunks pinned chunks of kStagingChunkBytes: the host
//     copy into chunk k (parallel for big chunks) runs while the DMA out of chunk k - 1 does; an
//     event a chunk says when its DMA has finished and the chunk may be refilled;
//   - `registered`: cudaHostRegister of the caller's array for the copy, unregistered after it
//     (falls back to staged where the range cannot be registered, e.g. a page shared with an
//     array registered before);
//   - `direct`: one cudaMemcpyAsync from wherever the array is;
//   - `automatic`: staged from kStagedUploadMinimumBytes on, direct below (the ring costs a
//     cudaMallocHost).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::detail {

/// Bytes of one pinned staging chunk: large enough that a cudaMemcpyAsync runs at the pinned
/// copy bandwidth (per-copy overhead ~10 us = 0.5 MB at 55 GB/s), small enough that the first
/// chunk's host copy (not overlapped) is short. Not measured yet.
inline constexpr std::size_t kStagingChunkBytes = std::size_t{8} << 20;
/// Chunks of the staging ring: two overlap one host copy with one DMA; a third absorbs jitter.
inline constexpr int kStagingChunks = 3;
/// `automatic` stages pageable arrays from this size on; smaller ones are copied directly (the
/// staging ring's cudaMallocHost costs about as much as copying a few MiB from pageable memory).
inline constexpr std::size_t kStagedUploadMinimumBytes = std::size_t{4} << 20;
/// Host copies into a staging chunk use one thread per this many bytes (at most all of OpenMP's).
inline constexpr std::size_t kHostCopyBytesPerThread = std::size_t{1} << 20;

/// Whether `pointer` lies in page-locked host memory the GPU can copy from directly (allocated
/// by cudaMallocHost / cudaHostAlloc or registered by cudaHostRegister). False for pageable and
/// device memory and for nullptr.
bool is_pinned_host_memory(const void* pointer);

/// memcpy in parallel (one OpenMP thread per kHostCopyBytesPerThread bytes).
void copy_host_in_parallel(void* destination, const void* source, std::size_t bytes);

/// cudaMallocHost'd page-locked host memory of `count` T. Move-only.
template <typename T>
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(std::size_t count) : size_(count) {
    if (count) {
      void* pointer = nullptr;
      TCSPARSE_CUDA_CHECK(cudaMallocHost(&pointer, count * sizeof(T)));
      data_ = static_cast<T*>(pointer);
    }
  }
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  ~PinnedHostBuffer() { release(); }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  std::span<T> span() { return {data_, size_}; }
  std::span<const T> span() const { return {data_, size_}; }

 private:
  void release() noexcept {
    if (data_ && cudaFreeHost(data_) != cudaSuccess) cudaGetLastError();
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// cudaHostRegister of a caller's host range for the owner's lifetime (cudaHostUnregister at the
/// end). The range must outlive the registration. Move-only.
class HostRegistration {
 public:
  HostRegistration() = default;
  /// Registers [pointer, pointer + bytes); throws CudaError when the driver refuses (e.g. the
  /// range overlaps one registered before). Nothing is registered for 0 bytes.
  HostRegistration(const void* pointer, std::size_t bytes);
  /// Registers like the constructor, or returns an empty registration where the driver refuses
  /// (the error is cleared).
  static HostRegistration try_register(const void* pointer, std::size_t bytes);
  HostRegistration(HostRegistration&& other) noexcept
      : pointer_(std::exchange(other.pointer_, nullptr)) {}
  HostRegistration& operator=(HostRegistration&& other) noexcept {
    if (this != &other) {
      release();
      pointer_ = std::exchange(other.pointer_, nullptr);
    }
    return *this;
  }
  HostRegistration(const HostRegistration&) = delete;
  HostRegistration& operator=(const HostRegistration&) = delete;
  ~HostRegistration() { release(); }

  /// Whether this object holds a registration.
  bool registered() const { return pointer_ != nullptr; }

 private:
  void release() noexcept;
  void* pointer_ = nullptr;
};

/// Copies host arrays to the device by `policy` (see the file comment), in order on `stream`.
/// copy() returns once the source may change again for staged copies, but a direct or
/// registered copy may still read the source until finish(). Not thread-safe.
class HostUploader {
 public:
  explicit HostUploader(HostUpload policy, cudaStream_t stream = nullptr);
  ~HostUploader();
  HostUploader(const HostUploader&) = delete;
  HostUploader& operator=(const HostUploader&) = delete;

  /// Enqueues the copy of `bytes` from host `source` to device `destination`.
  void copy(void* destination, const void* source, std::size_t bytes);
  /// Waits for every copy enqueued so far and releases the registrations made for them.
  void finish();

  /// The way copy() takes `bytes` from `source` under `policy` (never `automatic`).
  static HostUpload resolve(HostUpload policy, const void* source, std::size_t bytes);

 private:
  void copy_staged(void* destination, const void* source, std::size_t bytes);

  struct StagingChunk {
    PinnedHostBuffer<std::byte> memory;
    CudaEvent drained{cudaEventDisableTiming};  ///< recorded after the chunk's DMA
    bool in_flight = false;
  };
  HostUpload policy_;
  cudaStream_t stream_;
  std::vector<StagingChunk> ring_;  ///< allocated at the first staged copy
  int next_chunk_ = 0;
  std::vector<HostRegistration> registrations_;
};

/// Copies `bytes` from host to device by `policy` and waits until they have landed.
void upload_bytes(void* destination, const void* source, std::size_t bytes, HostUpload policy);

/// The upload policy of the plan being built on this thread (PlanOptions::host_upload), as a
/// HostUploadScope set it; `automatic` outside any scope. Methods' factories take only the matrix
/// and their parameters: the plan passes the policy to upload_csr this way, as it passes the
/// device (the thread's current CUDA device).
HostUpload current_host_upload();

/// Sets current_host_upload() on this thread for its lifetime.
class HostUploadScope {
 public:
  explicit HostUploadScope(HostUpload policy);
  ~HostUploadScope();
  HostUploadScope(const HostUploadScope&) = delete;
  HostUploadScope& operator=(const HostUploadScope&) = delete;

 private:
  HostUpload previous_;
};

}  // namespace tcsparse::detail
