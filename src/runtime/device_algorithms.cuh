// Plan-time device-wide algorithms for the layouts built on the GPU (DASP's and HBP's device
// builds, csr_overlap's batch table): CUB's scans, stable radix sorts and selections
// on one stream, with one temporary storage reused from call to call (CUB asks for it in two
// calls: the first says how many bytes, the second works).
//
//   detail::DeviceScratch scratch(stream);
//   detail::exclusive_sum(scratch, counts, offsets, n, "rows");
//   detail::stable_sort_pairs(scratch, keys, sorted_keys, rows, sorted_rows, n, bits, "rows");
//
// Every call is asynchronous on the scratch's stream, except select_if, which returns a count
// (downloaded). For plan time, never in an apply.
#pragma once

#include <cuda_runtime_api.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

/// The temporary storage of a sequence of CUB calls on one stream, from the stream-ordered
/// allocator (so that the calls can run beside copies on other streams). It grows when a call
/// asks for more than it holds; the destructor waits for the stream.
class DeviceScratch {
 public:
  explicit DeviceScratch(cudaStream_t stream) : stream_(stream) {}
  ~DeviceScratch() {
    if (storage_.size()) cudaStreamSynchronize(stream_);  // noexcept: a failure is reported later
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;

  cudaStream_t stream() const { return stream_; }
  void synchronize() const { TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  /// Runs `call(storage, bytes)`, a CUB device algorithm on stream(), with the storage it asks for.
  template <typename Call>
  void run(Call&& call) {
    std::size_t bytes = 0;
    TCSPARSE_CUDA_CHECK(call(nullptr, bytes));
    if (bytes > storage_.size() || storage_.empty()) {  // never null: null asks for the size
      storage_ = {};  // freed in stream order: the calls before it still have it
      storage_ = DeviceBuffer<unsigned char>::on_stream(std::max<std::size_t>(bytes, 1), stream_);
    }
    TCSPARSE_CUDA_CHECK(call(storage_.data(), bytes));
  }

 private:
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> storage_;
};

/// The item count CUB's algorithms take here (int): refuses more, naming what is counted.
inline int cub_items(std::int64_t n, const char* what) {
  if (n > std::numeric_limits<int>::max())
    throw IndexOverflowError(std::string("plan build on the GPU: more than 2^31 - 1 ") + what);
  return static_cast<int>(n);
}

/// Bits of the largest key `largest` (at least 1), for a radix sort over those bits alone.
inline int key_bits(unsigned long long largest) {
  return std::max(1, static_cast<int>(std::bit_width(largest)));
}

/// out[i] = in[0] + ... + in[i - 1]; in == out is allowed.
template <typename T>
void exclusive_sum(DeviceScratch& scratch, const T* in, T* out, std::int64_t n, const char* what) {
  if (n == 0) return;
  const int items = cub_items(n, what);
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, items, scratch.stream());
  });
}

/// Two nonnegative 32-bit counts as one 64-bit word, a's in the high half and b's in the low
/// (exclusive_sums' packing): words add as the pairs do while b's sums stay below 2^32.
struct PackCounts {
  __host__ __device__ unsigned long long operator()(
      const thrust::tuple<std::int32_t, std::int32_t>& counts) const {
    return static_cast<unsigned long long>(static_cast<std::uint32_t>(thrust::get<0>(counts)))
               << 32 |
           static_cast<std::uint32_t>(thrust::get<1>(counts));
  }
};

/// The two sums of a word of PackCounts.
struct UnpackCounts {
  __host__ __device__ thrust::tuple<std::int32_t, std::int32_t> operator()(
      unsigned long long word) const {
    return {static_cast<std::int32_t>(word >> 32), static_cast<std::int32_t>(word & 0xffffffffull)};
  }
};

/// exclusive_sum of two arrays of n nonnegative counts, each summing to less than 2^31 (as
/// their int32 sums must), in one scan: out_k[i] = in_k[0] + ... + in_k[i - 1] for k = a, b;
/// in place (out_k == in_k) too. The scan runs over 64-bit words (PackCounts), not pairs: CUB's
/// look-back between tiles is a single 16-byte word for an 8-byte primitive item, where a
/// tuple's takes a flag, a fence and the value apart (H200, 24 M items: 0.12 ms packed against
/// 0.30 ms as a tuple and 0.07 ms for one array alone; a tuple of three 0.43 ms;
/// bench/results/2026-12-01-0530-h200-hbp-build-divisions-and-scans).
inline void exclusive_sums(DeviceScratch& scratch, const std::int32_t* in_a,
                           const std::int32_t* in_b, std::int32_t* out_a, std::int32_t* out_b,
                           std::int64_t n, const char* what) {
  if (n == 0) return;
  const int items = cub_items(n, what);
  const auto in = thrust::make_transform_iterator(thrust::make_zip_iterator(in_a, in_b),
                                                  PackCounts{});
  const auto out = thrust::make_transform_output_iterator(
      thrust::make_zip_iterator(out_a, out_b), UnpackCounts{});
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceScan::ExclusiveSum(storage, bytes, in, out, items, scratch.stream());
  });
}

/// out[i] = in[0] + ... + in[i].
template <typename T>
void inclusive_sum(DeviceScratch& scratch, const T* in, T* out, std::int64_t n, const char* what) {
  if (n == 0) return;
  const int items = cub_items(n, what);
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveSum(storage, bytes, in, out, items, scratch.stream());
  });
}

/// out[i] = in[0] op ... op in[i].
template <typename T, typename Op>
void inclusive_scan(DeviceScratch& scratch, const T* in, T* out, Op op, std::int64_t n,
                    const char* what) {
  if (n == 0) return;
  const int items = cub_items(n, what);
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceScan::InclusiveScan(storage, bytes, in, out, op, items, scratch.stream());
  });
}

/// Stable radix sort of (key, value) pairs by the key's low `bits` bits, ascending: equal keys
/// keep their order (CUB's DeviceRadixSort is stable).
template <typename Key, typename Value>
void stable_sort_pairs(DeviceScratch& scratch, const Key* keys_in, Key* keys_out,
                       const Value* values_in, Value* values_out, std::int64_t n, int bits,
                       const char* what) {
  if (n == 0) return;
  const int items = cub_items(n, what);
  const int end_bit = std::clamp(bits, 1, static_cast<int>(8 * sizeof(Key)));
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(storage, bytes, keys_in, keys_out, values_in,
                                           values_out, items, 0, end_bit, scratch.stream());
  });
}

/// The same sort within two buffers of the keys and two of the values (CUB's DoubleBuffer), which
/// both hold n items and may both be overwritten: CUB then needs little storage of its own, where
/// stable_sort_pairs' storage holds another copy of the keys and values. Returns whether the
/// sorted pairs are in the second buffers (else in the first); known on the host at once.
template <typename Key, typename Value>
bool stable_sort_pairs_double_buffered(DeviceScratch& scratch, Key* keys, Key* keys_second,
                                       Value* values, Value* values_second, std::int64_t n,
                                       int bits, const char* what) {
  if (n == 0) return false;
  const int items = cub_items(n, what);
  const int end_bit = std::clamp(bits, 1, static_cast<int>(8 * sizeof(Key)));
  cub::DoubleBuffer<Key> key_buffers(keys, keys_second);
  cub::DoubleBuffer<Value> value_buffers(values, values_second);
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceRadixSort::SortPairs(storage, bytes, key_buffers, value_buffers, items, 0,
                                           end_bit, scratch.stream());
  });
  return key_buffers.Current() == keys_second;
}

/// Copies the items of in[0 .. n) that `select` accepts to out, in order; returns how many
/// (downloaded).
template <typename T, typename Select>
std::int64_t select_if(DeviceScratch& scratch, const T* in, T* out, std::int64_t n, Select select,
                       const char* what) {
  if (n == 0) return 0;
  cub_items(n, what);
  auto selected = DeviceBuffer<std::int64_t>::on_stream(1, scratch.stream());
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceSelect::If(storage, bytes, in, out, selected.data(), n, select,
                                 scratch.stream());
  });
  return download_one(selected.data(), scratch.stream());
}

}  // namespace tcsparse::detail
