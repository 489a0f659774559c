// The one host-to-device upload path (host_upload.hpp): pinned staging ring, registration,
// direct copies, and the thread's upload policy.
#include "runtime/host_upload.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common/parallel.hpp"

namespace tcsparse::detail {

bool is_pinned_host_memory(const void* pointer) {
  if (!pointer) return false;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();  // older runtimes report pageable memory as an error: not sticky
    return false;
  }
  return attributes.type == cudaMemoryTypeHost;
}

void copy_host_in_parallel(void* destination, const void* source, std::size_t bytes) {
  const auto pieces = static_cast<std::int64_t>(
      std::max<std::size_t>(1, bytes / kHostCopyBytesPerThread));
  const int threads = static_cast<int>(std::min<std::int64_t>(resolve_threads(0), pieces));
  if (threads <= 1) {
    std::memcpy(destination, source, bytes);
    return;
  }
  auto* to = static_cast<std::byte*>(destination);
  const auto* from = static_cast<const std::byte*>(source);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    const std::size_t begin = bytes / threads * t;
    const std::size_t end = t + 1 == threads ? bytes : bytes / threads * (t + 1);
    std::memcpy(to + begin, from + begin, end - begin);
  }
}

// ---- HostRegistration ----------------------------------------------------------------------

HostRegistration::HostRegistration(const void* pointer, std::size_t bytes) {
  if (!pointer || bytes == 0) return;
  // cudaHostRegister takes void*: registration pins the pages, it writes nothing
  void* const range = const_cast<void*>(pointer);
  TCSPARSE_CUDA_CHECK(cudaHostRegister(range, bytes, cudaHostRegisterDefault));
  pointer_ = range;
}

HostRegistration HostRegistration::try_register(const void* pointer, std::size_t bytes) {
  HostRegistration registration;
  if (!pointer || bytes == 0) return registration;
  void* const range = const_cast<void*>(pointer);
  if (cudaHostRegister(range, bytes, cudaHostRegisterDefault) == cudaSuccess)
    registration.pointer_ = range;
  else
    cudaGetLastError();
  return registration;
}

void HostRegistration::release() noexcept {
  if (pointer_ && cudaHostUnregister(pointer_) != cudaSuccess) cudaGetLastError();
  pointer_ = nullptr;
}

// ---- HostUploader --------------------------------------------------------------------------

HostUploader::HostUploader(HostUpload policy, cudaStream_t stream)
    : policy_(policy), stream_(stream) {}

HostUploader::~HostUploader() {
  // Never free a chunk or unregister a range under a running DMA.
  if (cudaStreamSynchronize(stream_) != cudaSuccess) cudaGetLastError();
}

HostUpload HostUploader::resolve(HostUpload policy, const void* source, std::size_t bytes) {
  if (bytes == 0 || is_pinned_host_memory(source)) return HostUpload::direct;
  if (policy == HostUpload::automatic)
    return bytes >= kStagedUploadMinimumBytes ? HostUpload::staged : HostUpload::direct;
  return policy;
}

void HostUploader::copy(void* destination, const void* source, std::size_t bytes) {
  if (bytes == 0) return;
  switch (resolve(policy_, source, bytes)) {
    case HostUpload::registered: {
      HostRegistration registration = HostRegistration::try_register(source, bytes);
      if (!registration.registered()) break;  // staged below
      TCSPARSE_CUDA_CHECK(
          cudaMemcpyAsync(destination, source, bytes, cudaMemcpyHostToDevice, stream_));
      registrations_.push_back(std::move(registration));
      return;
    }
    case HostUpload::staged: break;
    default:
      TCSPARSE_CUDA_CHECK(
          cudaMemcpyAsync(destination, source, bytes, cudaMemcpyHostToDevice, stream_));
      return;
  }
  copy_staged(destination, source, bytes);
}

void HostUploader::copy_staged(void* destination, const void* source, std::size_t bytes) {
  if (ring_.empty()) {
    ring_.reserve(kStagingChunks);
    for (int k = 0; k < kStagingChunks; ++k)
      ring_.push_back(StagingChunk{PinnedHostBuffer<std::byte>(kStagingChunkBytes)});
  }
  auto* to = static_cast<std::byte*>(destination);
  const auto* from = static_cast<const std::byte*>(source);
  for (std::size_t offset = 0; offset < bytes; offset += kStagingChunkBytes) {
    const std::size_t piece = std::min(kStagingChunkBytes, bytes - offset);
    StagingChunk& chunk = ring_[static_cast<std::size_t>(next_chunk_)];
    next_chunk_ = (next_chunk_ + 1) % kStagingChunks;
    if (chunk.in_flight) chunk.drained.synchronize();  // its previous DMA has read it
    copy_host_in_parallel(chunk.memory.data(), from + offset, piece);  // overlaps the last DMA
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(to + offset, chunk.memory.data(), piece,
                                        cudaMemcpyHostToDevice, stream_));
    chunk.drained.record(stream_);
    chunk.in_flight = true;
  }
}

void HostUploader::finish() {
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  for (StagingChunk& chunk : ring_) chunk.in_flight = false;
  registrations_.clear();
}

void upload_bytes(void* destination, const void* source, std::size_t bytes, HostUpload policy) {
  HostUploader uploader(policy);
  uploader.copy(destination, source, bytes);
  uploader.finish();
}

// ---- the thread's policy -------------------------------------------------------------------

namespace {
thread_local HostUpload thread_host_upload = HostUpload::automatic;
}  // namespace

HostUpload current_host_upload() { return thread_host_upload; }

HostUploadScope::HostUploadScope(HostUpload policy) : previous_(thread_host_upload) {
  thread_host_upload = policy;
}

HostUploadScope::~HostUploadScope() { thread_host_upload = previous_; }

}  // namespace tcsparse::detail
