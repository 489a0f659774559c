#include "runtime/permute.hpp"

#include <algorithm>
#include <cstdint>

#include "arch/types.cuh"
#include "runtime/cuda_check.hpp"

namespace tcsparse::detail {

namespace {

constexpr int kPermuteBlockThreads = 256;
/// Enough blocks to fill any current GPU; the kernels stride over the rest.
constexpr std::int64_t kPermuteMaxBlocks = 4096;

unsigned grid_for(std::int64_t count) {
  return static_cast<unsigned>(std::min<std::int64_t>(
      (count + kPermuteBlockThreads - 1) / kPermuteBlockThreads, kPermuteMaxBlocks));
}

/// One element a thread: out[i] = in[index[i]] (index read and out written in whole sectors).
template <typename Bits>
__global__ void gather_kernel(const Bits* __restrict__ in, const std::int32_t* __restrict__ index,
                              Bits* __restrict__ out, std::int64_t count) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride)
    out[i] = in[index[i]];
}

__global__ void invert_order_kernel(const std::int32_t* __restrict__ order, std::int64_t count,
                                    std::int32_t* __restrict__ inverse) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride)
    inverse[order[i]] = static_cast<std::int32_t>(i);
}

__global__ void remap_indices_kernel(std::int32_t* ids, std::int64_t count, int stride,
                                     const std::int32_t* __restrict__ map) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += step) {
    const std::int32_t id = ids[i * stride];
    if (id >= 0) ids[i * stride] = map[id];
  }
}

/// The unsigned integer of a value's size: values are moved, never computed on.
template <std::size_t kBytes> struct BitsOfSize;
template <> struct BitsOfSize<2> { using type = std::uint16_t; };
template <> struct BitsOfSize<4> { using type = std::uint32_t; };
template <> struct BitsOfSize<8> { using type = std::uint64_t; };

}  // namespace

template <typename Value>
void gather_async(const Value* in, const std::int32_t* index, Value* out, std::int64_t count,
                  cudaStream_t stream) {
  if (count <= 0) return;
  using Bits = typename BitsOfSize<sizeof(Value)>::type;
  gather_kernel<Bits><<<grid_for(count), kPermuteBlockThreads, 0, stream>>>(
      reinterpret_cast<const Bits*>(in), index, reinterpret_cast<Bits*>(out), count);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

void invert_order_async(const std::int32_t* order, std::int64_t count, std::int32_t* inverse,
                        cudaStream_t stream) {
  if (count <= 0) return;
  invert_order_kernel<<<grid_for(count), kPermuteBlockThreads, 0, stream>>>(order, count, inverse);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

void remap_indices_async(std::int32_t* ids, std::int64_t count, int stride,
                         const std::int32_t* map, cudaStream_t stream) {
  if (count <= 0) return;
  remap_indices_kernel<<<grid_for(count), kPermuteBlockThreads, 0, stream>>>(ids, count, stride,
                                                                              map);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

template void gather_async<double>(const double*, const std::int32_t*, double*, std::int64_t,
                                   cudaStream_t);
template void gather_async<float>(const float*, const std::int32_t*, float*, std::int64_t,
                                  cudaStream_t);
template void gather_async<half>(const half*, const std::int32_t*, half*, std::int64_t,
                                 cudaStream_t);
template void gather_async<std::int32_t>(const std::int32_t*, const std::int32_t*,
                                         std::int32_t*, std::int64_t, cudaStream_t);
template void gather_async<bfloat16>(const bfloat16*, const std::int32_t*, bfloat16*,
                                     std::int64_t, cudaStream_t);

}  // namespace tcsparse::detail
