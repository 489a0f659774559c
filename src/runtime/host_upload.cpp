// The one host-to-device upload path (host_upload.hpp): pinned staging ring, registration,
// direct copies, and the thread's upload policy.
#include "runtime/host_upload.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "common/parallel.hpp"
#include "runtime/staging_ring.hpp"

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

void copy_host_in_parallel(void* destination, const void* source, std::size_t bytes,
                           int threads) {
  if (bytes == 0) return;
  const int team = host_copy_threads(bytes, threads);
  auto* to = static_cast<std::byte*>(destination);
  const auto* from = static_cast<const std::byte*>(source);
  if (team <= 1) {
    std::memcpy(to, from, bytes);
    return;
  }
#pragma omp parallel num_threads(team)
  {
    const auto [begin, end] = host_copy_slice(bytes, omp_get_thread_num(), omp_get_num_threads());
    if (end > begin) std::memcpy(to + begin, from + begin, end - begin);
  }
}

// ---- StagingPool ---------------------------------------------------------------------------

namespace {

void free_pinned(std::byte* pointer) {
  if (pointer && cudaFreeHost(pointer) != cudaSuccess) cudaGetLastError();
}

struct PoolState {
  std::mutex mutex;
  std::size_t chunk_bytes = 0;  ///< the size of every pooled chunk
  std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> chunks;
};

PoolState& pool_state() {
  // constructed at the first staged upload, after the CUDA runtime: destroyed before its teardown
  static PoolState state;
  return state;
}

}  // namespace

std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> StagingPool::acquire(
    std::size_t chunk_bytes, int count) {
  std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> taken;
  taken.reserve(static_cast<std::size_t>(std::max(count, 0)));
  {
    PoolState& pool = pool_state();
    const std::lock_guard lock(pool.mutex);
    while (pool.chunk_bytes == chunk_bytes && !pool.chunks.empty() &&
           static_cast<int>(taken.size()) < count) {
      taken.push_back(std::move(pool.chunks.back()));
      pool.chunks.pop_back();
    }
  }
  while (static_cast<int>(taken.size()) < count) {
    void* pointer = nullptr;
    TCSPARSE_CUDA_CHECK(cudaHostAlloc(&pointer, chunk_bytes, cudaHostAllocPortable));
    taken.emplace_back(static_cast<std::byte*>(pointer), &free_pinned);
  }
  return taken;
}

void StagingPool::release(std::vector<std::unique_ptr<std::byte, void (*)(std::byte*)>> chunks,
                          std::size_t chunk_bytes) {
  PoolState& pool = pool_state();
  const std::lock_guard lock(pool.mutex);
  if (pool.chunk_bytes != chunk_bytes) {
    pool.chunks.clear();  // a pool holds one size: the latest one given back
    pool.chunk_bytes = chunk_bytes;
  }
  for (auto& chunk : chunks)
    if (pool.chunks.size() < kMaxPooledChunks) pool.chunks.push_back(std::move(chunk));
  // the rest is freed with `chunks`
}

void StagingPool::clear() {
  PoolState& pool = pool_state();
  const std::lock_guard lock(pool.mutex);
  pool.chunks.clear();
}

std::size_t StagingPool::pooled_chunks() {
  PoolState& pool = pool_state();
  const std::lock_guard lock(pool.mutex);
  return pool.chunks.size();
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

HostUploader::HostUploader(HostUpload policy, cudaStream_t stream, StagingConfig staging)
    : policy_(policy), stream_(stream), staging_(staging) {
  if (staging_.chunk_bytes == 0 || staging_.chunks < 1)
    throw Error("HostUploader: a staging ring needs at least one chunk of at least one byte");
}

HostUploader::~HostUploader() {
  // Never free, pool or refill a chunk, or unregister a range, under a running DMA.
  if (cudaStreamSynchronize(stream_) != cudaSuccess) {
    cudaGetLastError();
    return;  // the chunks are freed, not pooled: a DMA may still read them
  }
  if (!ring_.empty()) StagingPool::release(std::move(ring_), staging_.chunk_bytes);
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
  const int count = staging_.chunks;
  if (ring_.empty()) {
    ring_ = StagingPool::acquire(staging_.chunk_bytes, count);
    drained_.clear();
    drained_.reserve(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) drained_.emplace_back(cudaEventDisableTiming);
    in_flight_.assign(static_cast<std::size_t>(count), false);
    next_chunk_ = 0;
  }
  // the ring as seen from next_chunk_: piece k of this copy uses ring chunk (first + k) % count
  const int first = next_chunk_;
  auto ring_index = [&](int k) { return static_cast<std::size_t>((first + k) % count); };
  std::vector<std::byte*> rotated(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) rotated[static_cast<std::size_t>(k)] = ring_[ring_index(k)].get();
  auto* to = static_cast<std::byte*>(destination);
  std::size_t pieces = 0;
  stage_through_ring(
      rotated.data(), count, staging_.chunk_bytes, static_cast<const std::byte*>(source), bytes,
      staging_.copy_threads,
      [&](int k) {  // the chunk's previous DMA has read it
        const std::size_t at = ring_index(k);
        if (in_flight_[at]) drained_[at].synchronize();
        in_flight_[at] = false;
      },
      [&](int k, std::size_t offset, std::size_t size) {
        const std::size_t at = ring_index(k);
        TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(to + offset, ring_[at].get(), size,
                                            cudaMemcpyHostToDevice, stream_));
        drained_[at].record(stream_);
        in_flight_[at] = true;
        ++pieces;
      });
  next_chunk_ = static_cast<int>((static_cast<std::size_t>(first) + pieces) %
                                 static_cast<std::size_t>(count));
}

void HostUploader::finish() {
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream_));
  std::fill(in_flight_.begin(), in_flight_.end(), false);
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
