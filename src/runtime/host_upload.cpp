// The one host-to-device upload path (host_upload.hpp): pinned staging ring, registration,
// direct copies, and the thread's upload policy.
#include "runtime/host_upload.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "common/parallel.hpp"
#include "runtime/compact_indices.hpp"
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
  // Never free a device slot under a running expansion (a copy that threw may have left one),
  // nor free, pool or refill a chunk, or unregister a range, under a running DMA.
  if (expand_stream_ && cudaStreamSynchronize(expand_stream_->get()) != cudaSuccess)
    cudaGetLastError();
  if (cudaStreamSynchronize(stream_) != cudaSuccess) {
    cudaGetLastError();
    return;  // the chunks are freed, not pooled: a DMA may still read them
  }
  if (!ring_.empty()) StagingPool::release(std::move(ring_), staging_.chunk_bytes);
}

HostUpload HostUploader::resolve(HostUpload policy, const void* source, std::size_t bytes,
                                 bool indices) {
  if (bytes == 0 || is_pinned_host_memory(source)) return HostUpload::direct;
  const HostUpload staged = indices ? HostUpload::compact : HostUpload::staged;
  if (policy == HostUpload::automatic)
    return bytes >= kStagedUploadMinimumBytes ? staged : HostUpload::direct;
  if (policy == HostUpload::compact) return staged;
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
    case HostUpload::staged:
    case HostUpload::compact: break;
    default:
      TCSPARSE_CUDA_CHECK(
          cudaMemcpyAsync(destination, source, bytes, cudaMemcpyHostToDevice, stream_));
      return;
  }
  copy_staged(destination, source, bytes);
}

void HostUploader::copy_indices(std::int32_t* destination, const std::int32_t* source,
                                std::size_t count) {
  const std::size_t bytes = count * sizeof(std::int32_t);
  if (resolve(policy_, source, bytes, true) == HostUpload::compact &&
      compact_piece_capacity(staging_.chunk_bytes) > 0) {
    copy_compact(destination, source, count);
    return;
  }
  // chunks too small for one group of indices: staged as they are
  copy(destination, source, bytes);
}

void HostUploader::acquire_ring() {
  if (!ring_.empty()) return;
  const int count = staging_.chunks;
  ring_ = StagingPool::acquire(staging_.chunk_bytes, count);
  drained_.clear();
  drained_.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) drained_.emplace_back(cudaEventDisableTiming);
  in_flight_.assign(static_cast<std::size_t>(count), false);
  next_chunk_ = 0;
}

void HostUploader::copy_compact(std::int32_t* destination, const std::int32_t* source,
                                std::size_t count) {
  acquire_ring();
  if (!expand_stream_) {
    device_slots_ = DeviceBuffer<std::byte>::on_stream(
        static_cast<std::size_t>(kCompactDeviceSlots) * staging_.chunk_bytes, stream_);
    expand_stream_ = std::make_unique<CudaStream>();
    expanded_.clear();
    for (int s = 0; s < kCompactDeviceSlots; ++s) expanded_.emplace_back(cudaEventDisableTiming);
    slot_used_.assign(kCompactDeviceSlots, false);
    next_slot_ = 0;
  }
  const int chunks = staging_.chunks;
  const std::size_t capacity = compact_piece_capacity(staging_.chunk_bytes);
  const std::size_t pieces = (count + capacity - 1) / capacity;
  const auto piece_count = [&](std::size_t k) { return std::min(capacity, count - k * capacity); };
  const int team = host_copy_threads(std::min(count * sizeof(std::int32_t), staging_.chunk_bytes),
                                     staging_.copy_threads);
  CompactPieceEncoder encoder(capacity, team);
  const int first = next_chunk_;
  auto ring_index = [&](int c) { return static_cast<std::size_t>((first + c) % chunks); };
  const cudaStream_t expand = expand_stream_->get();
  // Whether the piece being filled goes compact: while compact pieces pay (at least half their
  // groups in 16 bits); after one that did not, kCompactRetryPieces pieces go as they are
  // (straight to the destination, as a staged copy), then compact is tried again.
  bool compact = true;
  int as_they_are = 0;
  bool expanded_any = false;
  int last_slot = 0;
  stage_pieces_through_ring(
      chunks, pieces, team,
      [&](std::size_t k, int c, int thread, int threads) {
        std::byte* chunk = ring_[ring_index(c)].get();
        const std::int32_t* piece = source + k * capacity;
        if (compact) {
          encoder.encode(piece, piece_count(k), chunk, thread, threads);
          return;
        }
        const auto [begin, end] =
            host_copy_slice(piece_count(k) * sizeof(std::int32_t), thread, threads);
        if (end > begin)
          std::memcpy(chunk + begin, reinterpret_cast<const std::byte*>(piece) + begin, end - begin);
      },
      [&](int c) {  // the chunk's previous DMA has read it
        const std::size_t at = ring_index(c);
        if (in_flight_[at]) drained_[at].synchronize();
        in_flight_[at] = false;
      },
      [&](std::size_t k, int c) {
        const std::size_t at = ring_index(c);
        if (!compact) {
          TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(destination + k * capacity, ring_[at].get(),
                                              piece_count(k) * sizeof(std::int32_t),
                                              cudaMemcpyHostToDevice, stream_));
          drained_[at].record(stream_);
          in_flight_[at] = true;
          compact = --as_they_are <= 0;
          return;
        }
        const int slot = next_slot_;
        const auto s = static_cast<std::size_t>(slot);
        next_slot_ = (next_slot_ + 1) % kCompactDeviceSlots;
        std::byte* landing = device_slots_.data() + s * staging_.chunk_bytes;
        // the slot's previous piece must be expanded before this one lands on it
        if (slot_used_[s]) TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream_, expanded_[s].get()));
        TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(landing, ring_[at].get(), encoder.bytes(),
                                            cudaMemcpyHostToDevice, stream_));
        drained_[at].record(stream_);
        in_flight_[at] = true;
        TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(expand, drained_[at].get()));
        expand_compact_piece_async(landing, piece_count(k), destination + k * capacity, expand);
        expanded_[s].record(expand);
        slot_used_[s] = true;
        expanded_any = true;
        last_slot = slot;
        if (2 * encoder.raw_groups() > compact_groups(piece_count(k))) {
          compact = false;
          as_they_are = kCompactRetryPieces;
        }
      });
  next_chunk_ = static_cast<int>((static_cast<std::size_t>(first) + pieces) %
                                 static_cast<std::size_t>(chunks));
  // what the caller enqueues next on stream_ reads the expanded indices
  if (expanded_any)
    TCSPARSE_CUDA_CHECK(
        cudaStreamWaitEvent(stream_, expanded_[static_cast<std::size_t>(last_slot)].get()));
}

void HostUploader::copy_staged(void* destination, const void* source, std::size_t bytes) {
  const int count = staging_.chunks;
  acquire_ring();
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
