// The hubs-first column order of HBP on the GPU (hbp_column_order.hpp has the rule and the host's
// version, which this one gives bit for bit): the concentration estimated from a sample of the
// nonzeros, the columns' nonzeros counted, one stable radix sort of the columns by (column
// block, count descending for the hubs), and the CSR's columns renumbered.
// Plan time only; every temporary comes from the stream-ordered pool on the build's stream.
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>

#include "common/for_each_value.hpp"
#include "hbp/hbp_column_order.hpp"
#include "hbp/hbp_device_build.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/permute.hpp"

namespace tcsparse::hbp {
namespace {

using detail::DeviceBuffer;

constexpr int kThreads = 256;
/// Enough blocks to fill any current GPU; the kernels stride over the rest.
constexpr std::int64_t kMaxBlocks = 4096;

unsigned grid_for(std::int64_t items) {
  return static_cast<unsigned>(
      std::max<std::int64_t>(1, std::min<std::int64_t>((items + kThreads - 1) / kThreads,
                                                       kMaxBlocks)));
}

/// counts[c] += the nonzeros of column c among nonzeros 0, step, 2 step, ... (`samples` of them,
/// a thread each; step 1: every nonzero). The counts are zeroed before.
__global__ void count_columns_kernel(const std::int32_t* __restrict__ col_idx,
                                     std::int64_t samples, std::int64_t step,
                                     unsigned* __restrict__ counts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       s < samples; s += stride)
    atomicAdd(&counts[col_idx[s * step]], 1u);
}

/// The sort key of column c: its column block above, 2^32 - 1 - count below (count 0 for a column
/// that is no hub), so that an ascending stable sort gives each block's hubs by count, largest
/// first, then its other columns, ties in column order.
__global__ void column_keys_kernel(const unsigned* __restrict__ counts, std::int64_t cols,
                                   std::int32_t block_cols, unsigned hub_min_count,
                                   unsigned long long* __restrict__ keys,
                                   std::int32_t* __restrict__ columns) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < cols;
       c += stride) {
    const unsigned count = counts[c] >= hub_min_count ? counts[c] : 0u;
    keys[c] = static_cast<unsigned long long>(c / block_cols) << 32 | (0xFFFFFFFFu - count);
    columns[c] = static_cast<std::int32_t>(c);
  }
}

/// sum(count^2) and sum(count) (exact in 64 bits: at most nnz^2 < 2^62).
struct CountSquared {
  __device__ __forceinline__ unsigned long long operator()(unsigned count) const {
    return static_cast<unsigned long long>(count) * count;
  }
};
struct CountItself {
  __device__ __forceinline__ unsigned long long operator()(unsigned count) const { return count; }
};

}  // namespace

DeviceColumnCounts count_columns_on_device(const std::int32_t* col_idx, std::int64_t nnz,
                                           std::int64_t cols, cudaStream_t stream) {
  DeviceColumnCounts result;
  result.cols = cols;
  result.counts = DeviceBuffer<unsigned>::on_stream(static_cast<std::size_t>(cols), stream);
  if (cols > 0)
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(result.counts.data(), 0, result.counts.bytes(), stream));
  if (nnz > 0) {
    count_columns_kernel<<<grid_for(nnz), kThreads, 0, stream>>>(col_idx, nnz, 1,
                                                                 result.counts.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  return result;
}

template <typename Value>
double estimated_column_count_concentration_on_device(const DeviceCsrView<Value>& csr,
                                                      cudaStream_t stream) {
  if (csr.nnz == 0 || csr.cols == 0) return 0.0;
  const std::int64_t step = concentration_sample_step(csr.nnz);
  const std::int64_t samples = (csr.nnz + step - 1) / step;
  auto counts = DeviceBuffer<unsigned>::on_stream(static_cast<std::size_t>(csr.cols), stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.bytes(), stream));
  count_columns_kernel<<<grid_for(samples), kThreads, 0, stream>>>(csr.col_idx, samples, step,
                                                                    counts.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  auto sums = DeviceBuffer<unsigned long long>::on_stream(2, stream);
  detail::DeviceScratch scratch(stream);
  const int items = detail::cub_items(csr.cols, "columns");
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceReduce::TransformReduce(storage, bytes, counts.data(), sums.data(), items,
                                              cuda::std::plus<>{}, CountSquared{}, 0ull, stream);
  });
  scratch.run([&](void* storage, std::size_t& bytes) {
    return cub::DeviceReduce::TransformReduce(storage, bytes, counts.data(), sums.data() + 1,
                                              items, cuda::std::plus<>{}, CountItself{}, 0ull,
                                              stream);
  });
  unsigned long long downloaded[2] = {0, 0};
  detail::SmallDownloads downloads(stream);
  downloads.add(sums.data(), downloaded, 2);
  downloads.wait();
  SampledColumnCounts sample;
  sample.sum_of_squares = downloaded[0];
  sample.sampled_nonzeros = static_cast<std::int64_t>(downloaded[1]);
  return estimated_column_count_concentration(csr.cols, csr.nnz, sample);
}

DeviceBuffer<std::int32_t> hubs_first_column_order_on_device(const DeviceColumnCounts& counts,
                                                            std::int32_t block_cols,
                                                            std::int64_t hub_min_count,
                                                            cudaStream_t stream) {
  const std::int64_t cols = counts.cols;
  auto plan_to_caller = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(cols));
  if (cols == 0) return plan_to_caller;
  auto keys = DeviceBuffer<unsigned long long>::on_stream(static_cast<std::size_t>(cols), stream);
  auto sorted_keys =
      DeviceBuffer<unsigned long long>::on_stream(static_cast<std::size_t>(cols), stream);
  auto columns = DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(cols), stream);
  // counts are below 2^31: a larger hub_min_count makes no hub, as on the host
  const auto hub_min = static_cast<unsigned>(std::min<std::int64_t>(hub_min_count, 1ll << 31));
  column_keys_kernel<<<grid_for(cols), kThreads, 0, stream>>>(counts.counts.data(), cols,
                                                              block_cols, hub_min, keys.data(),
                                                              columns.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  const std::int64_t blocks = (cols + block_cols - 1) / block_cols;
  detail::DeviceScratch scratch(stream);
  detail::stable_sort_pairs(scratch, keys.data(), sorted_keys.data(), columns.data(),
                            plan_to_caller.data(), cols,
                            32 + detail::key_bits(static_cast<unsigned long long>(blocks - 1)),
                            "columns");
  return plan_to_caller;
}

void renumber_columns_on_device(const std::int32_t* col_idx, std::int64_t nnz,
                                const DeviceBuffer<std::int32_t>& plan_to_caller,
                                std::int32_t* plan_col_idx, cudaStream_t stream) {
  const auto cols = static_cast<std::int64_t>(plan_to_caller.size());
  auto caller_to_plan =
      DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(cols), stream);
  detail::invert_order_async(plan_to_caller.data(), cols, caller_to_plan.data(), stream);
  if (plan_col_idx == col_idx)
    detail::remap_indices_async(plan_col_idx, nnz, 1, caller_to_plan.data(), stream);
  else
    detail::gather_async(caller_to_plan.data(), col_idx, plan_col_idx, nnz, stream);
}

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                   \
  template double estimated_column_count_concentration_on_device(const DeviceCsrView<Value>&, \
                                                                 cudaStream_t);
TCSPARSE_FOR_EACH_VALUE(TCSPARSE_HBP_INSTANTIATE)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
