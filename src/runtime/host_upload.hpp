// The one host-to-device upload path of the library, and the RAII owners of pinned host memory.
//
//   HostUploader uploader(HostUpload::automatic);   // on the legacy stream
//   uploader.copy(device_pointer, host_pointer, bytes);   // enqueued (may block while staging)
//   uploader.finish();                               // every copy has landed
//
// A copy from pageable memory runs at 8-9.5 GB/s on an H100 / H200, one from pinned memory at
// ~55 GB/s (issue 8). The uploader copies
//   - pinned or registered sources (cudaMallocHost, cudaHostRegister) directly;
//   - `staged`: through a ring of kStagingChunks pinned chunks of kStagingChunkBytes. One OpenMP
//     team copies chunk k from the caller's memory (each thread a slice), then the calling thread
//     enqueues its DMA and the team goes on with chunk k + 1 while the DMA runs; an event a chunk
//     says when its DMA has read it and it may be refilled (stage_through_ring). The chunks come
//     from a process-wide pool (StagingPool), so only the first staged upload of a process pays
//     for their cudaHostAlloc;
//   - `registered`: cudaHostRegister of the caller's array for the copy, unregistered after it
//     (falls back to staged where the range cannot be registered, e.g. a page shared with an
//     array registered before);
//   - `direct`: one cudaMemcpyAsync from wherever the array is;
//   - `automatic`: staged from kStagedUploadMinimumBytes on, direct below.
//
// Measured on the H100 machine (16 cores, Xeon; 1 GiB from pageable memory, tcsparse_upload_probe,
// bench/results/2026-11-25-0318-h100-plan-build/upload-probe.jsonl):
//   from pinned memory (reference)          55.0 GB/s
//   direct from pageable memory              6.8 GB/s
//   registered: register 88 ms + copy 20 ms + unregister 28 ms = 7.9 GB/s (the pinning dominates)
//   staged, 16 threads, 8 MiB x 4 chunks    52.7 GB/s (the ring before: 12.2 GB/s in the plans of
//                                           2026-11-24-2240-h100-sweeps, its 24 MiB allocated
//                                           anew each upload and a parallel region per chunk)
//   staged, first upload of a process       28.2 GB/s (cudaHostAlloc of the ring: 17 ms for 32 MiB)
//   chunk size x depth at 16 threads: 1 MiB 12-13, 2 MiB 21-22, 4 MiB x 2 29 / x 4 52, 8 MiB x 2 33
//   / x 4 53, 16 MiB x 3 54, 32 MiB x 2-3 51-53, 64 MiB 40-47 GB/s; copy threads at 8 MiB x 4:
//   1: 7.7, 2: 15.4, 4: 23.5, 6: 36.6, 8: 45.1, 10: 53.3, 12-16: 53 GB/s; a plain parallel
//   memcpy pageable -> pinned (no DMA) 10 GB/s a thread, 41-43 GB/s from 6 threads on.
// Hence the defaults: staged (automatic from 4 MiB), 8 MiB x 4 chunks, all threads, pooled ring.
// Reproduce: tcsparse_upload_probe 1024 (build/.../bench/tcsparse_upload_probe).
// Not kept (H200, bench/results/2026-11-30-0700-h200-packed-index-upload): index arrays sent as
// 16-bit deltas from a base per 1024 indices where they are local, rebuilt on the GPU. The plan
// builds of the matrices that packed took 0.3-1.4 ms longer: inside a plan the upload runs below
// the rate at which the ring feeds the copy engine (35-43 GB/s against 45-51), so the bytes saved
// on PCIe bought nothing and the unpacking's launches and temporary memory cost time.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
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
/// copy bandwidth (per-copy overhead ~10 us = 0.5 MB at 55 GB/s) and that the team's barriers
/// (two a chunk) are noise, small enough that the first chunk's host copy (not overlapped) is
/// short. Chosen by tcsparse_upload_probe on the H100 host (src/runtime/README.md).
inline constexpr std::size_t kStagingChunkBytes = std::size_t{8} << 20;
/// Chunks of the staging ring: two overlap one host copy with one DMA; more absorb jitter.
inline constexpr int kStagingChunks = 4;
/// `automatic` stages pageable arrays from this size on; smaller ones are copied directly.
inline constexpr std::size_t kStagedUploadMinimumBytes = std::size_t{4} << 20;
/// How a staged copy runs; the defaults are the named constants above. tcsparse_upload_probe
/// sweeps them; a plan whose host work runs beside its upload gives the copy fewer threads.
struct StagingConfig {
  std::size_t chunk_bytes = kStagingChunkBytes;
  int chunks = kStagingChunks;
  int copy_threads = 0;  ///< 0: all of OpenMP's (resolve_threads; one a kHostCopyBytesPerThread)
};

/// Whether `pointer` lies in page-locked host memory the GPU can copy from directly (allocated
/// by cudaMallocHost / cudaHostAlloc or registered by cudaHostRegister). False for pageable and
/// device memory and for nullptr.
bool is_pinned_host_memory(const void* pointer);

/// memcpy in parallel (one OpenMP thread per kHostCopyBytesPerThread bytes, staging_ring.hpp; at
/// most `threads`, 0: all of OpenMP's).
void copy_host_in_parallel(void* destination, const void* source, std::size_t bytes,
                           int threads = 0);

/// A process-wide pool of pinned staging chunks (cudaHostAlloc, portable to every device), so
/// that a plan does not pay their allocation (~0.3 ms a MiB) again. At most kMaxPooledChunks
/// chunks are kept; more are freed when returned. Thread-safe.
class StagingPool {
 public:
  static constexpr std::size_t kMaxPooledChunks = 2 * kStagingChunks;
  /// `count` chunks of `chunk_bytes`, pooled ones first.
  static std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> acquire(
      std::size_t chunk_bytes, int count);
  /// Gives chunks back (they must no longer be read by a DMA).
  static void release(std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> chunks,
                      std::size_t chunk_bytes);
  /// Frees every pooled chunk (tests, the probe's cold measurements).
  static void clear();
  /// Chunks held by the pool now.
  static std::size_t pooled_chunks();
};

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
  explicit HostUploader(HostUpload policy, cudaStream_t stream = nullptr,
                        StagingConfig staging = {});
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

  using PooledChunk = std::unique_ptr<std::byte, void (*)(std::byte*)>;
  HostUpload policy_;
  cudaStream_t stream_;
  StagingConfig staging_;
  std::vector<PooledChunk> ring_;  ///< from StagingPool at the first staged copy
  std::vector<CudaEvent> drained_;  ///< per chunk: recorded after its DMA
  std::vector<bool> in_flight_;
  int next_chunk_ = 0;  ///< the ring chunk the next staged piece uses
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
