// slot_output=partial's arrays, rewritten on the GPU (hbp_slot_partials.hpp): a thread a combine
// row or a slot, one scan.
//
//   1. row_slots[r]      the slots of row r: a combine row's list length, 1 for a row whose only
//                        slot writes y (output_hash ~r), 0 for an empty row;
//      partial_slot[p]   the slot that writes partial p (output_hash[s] = p)
//   2. combine_begin     exclusive scan of row_slots (rows + 1)
//   3. combine_partials  a combine row's list with each partial replaced by its slot (the same
//                        column-block order); a single slot at its row's place
#include "hbp/hbp_slot_partials.hpp"

#include <cuda_runtime.h>

#include <cstdint>

#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"

namespace tcsparse::hbp {
namespace {

using detail::DeviceBuffer;

constexpr int kThreads = 256;

unsigned grid_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

/// 1. A thread a combine row: its list's length.
__global__ void count_listed_slots_kernel(const std::int32_t* combine_rows,
                                          const std::int32_t* combine_begin, std::int64_t count,
                                          std::int32_t* row_slots) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) row_slots[combine_rows[k]] = combine_begin[k + 1] - combine_begin[k];
}

/// 1. A thread a slot: 1 for the row of a slot that writes y; the slot of each partial.
__global__ void count_single_slots_kernel(const std::int32_t* output_hash, std::int64_t slots,
                                          std::int32_t* row_slots, std::int32_t* partial_slot) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= slots) return;
  const std::int32_t destination = output_hash[s];
  if (destination < 0)
    row_slots[~destination] = 1;
  else
    partial_slot[destination] = static_cast<std::int32_t>(s);
}

/// 3. A thread a combine row: its list, by slot.
__global__ void list_listed_slots_kernel(const std::int32_t* combine_rows,
                                         const std::int32_t* combine_begin,
                                         const std::int32_t* combine_partials, std::int64_t count,
                                         const std::int32_t* partial_slot,
                                         const std::int32_t* row_begin, std::int32_t* row_list) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= count) return;
  std::int32_t place = row_begin[combine_rows[k]];
  for (std::int32_t i = combine_begin[k]; i < combine_begin[k + 1]; ++i)
    row_list[place++] = partial_slot[combine_partials[i]];
}

/// 3. A thread a slot: a single slot at its row's place.
__global__ void list_single_slots_kernel(const std::int32_t* output_hash, std::int64_t slots,
                                         const std::int32_t* row_begin, std::int32_t* row_list) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < slots && output_hash[s] < 0)
    row_list[row_begin[~output_hash[s]]] = static_cast<std::int32_t>(s);
}

}  // namespace

void give_every_slot_a_partial_on_device(std::int64_t rows, std::int64_t& partials,
                                         DeviceBuffer<std::int32_t>& output_hash,
                                         DeviceBuffer<std::int32_t>& combine_rows,
                                         DeviceBuffer<std::int32_t>& combine_begin,
                                         DeviceBuffer<std::int32_t>& combine_partials,
                                         std::int64_t& combine_row_count, cudaStream_t stream) {
  const auto slots = static_cast<std::int64_t>(output_hash.size());
  const std::int64_t count = combine_row_count;
  auto row_begin = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(rows + 1));
  auto row_list = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(slots));
  {
    // waits for the temporaries' frees and gives the pool's unused memory back at its end
    const detail::TemporaryMemoryScope temporaries(stream);
    detail::DeviceScratch scratch(stream);
    auto row_slots = DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(rows + 1),
                                                           stream);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(row_slots.data(), 0, row_slots.bytes(), stream));
    auto partial_slot = DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(partials),
                                                              stream);
    if (count > 0) {
      count_listed_slots_kernel<<<grid_for(count), kThreads, 0, stream>>>(
          combine_rows.data(), combine_begin.data(), count, row_slots.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    if (slots > 0) {
      count_single_slots_kernel<<<grid_for(slots), kThreads, 0, stream>>>(
          output_hash.data(), slots, row_slots.data(), partial_slot.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    detail::exclusive_sum(scratch, row_slots.data(), row_begin.data(), rows + 1, "rows");
    if (count > 0) {
      list_listed_slots_kernel<<<grid_for(count), kThreads, 0, stream>>>(
          combine_rows.data(), combine_begin.data(), combine_partials.data(), count,
          partial_slot.data(), row_begin.data(), row_list.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    if (slots > 0) {
      list_single_slots_kernel<<<grid_for(slots), kThreads, 0, stream>>>(
          output_hash.data(), slots, row_begin.data(), row_list.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
  }
  output_hash = {};
  combine_rows = {};
  combine_begin = std::move(row_begin);
  combine_partials = std::move(row_list);
  combine_row_count = rows;
  partials = slots;
}

}  // namespace tcsparse::hbp
