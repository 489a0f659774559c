#include "runtime/scale.hpp"

#include <algorithm>

#include "arch/types.cuh"
#include "runtime/cuda_check.hpp"

namespace tcsparse::detail {

namespace {

constexpr int scale_block_threads = 256;
/// Enough blocks to fill any current GPU; the kernel strides over the rest.
constexpr std::int64_t scale_max_blocks = 4096;


template <typename T, typename Scalar>
__global__ void scale_kernel(T* values, std::int64_t count, Scalar beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride) {
    values[i] = arch::ValueTraits<T>::from_acc(beta * arch::ValueTraits<T>::to_acc(values[i]));
  }
}

}  // namespace

template <typename Value>
void scale_async(Value* values, std::int64_t count, scalar_t<Value> beta, cudaStream_t stream) {
  if (count <= 0 || beta == scalar_t<Value>(1)) return;
  if (beta == scalar_t<Value>(0)) {
    // All-zero bits are +0 in every value type.
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(values, 0, static_cast<std::size_t>(count) * sizeof(Value),
                                        stream));
    return;
  }
  using T = arch::device_value_t<Value>;
  static_assert(sizeof(T) == sizeof(Value));
  const std::int64_t blocks =
      std::min<std::int64_t>((count + scale_block_threads - 1) / scale_block_threads,
                             scale_max_blocks);
  scale_kernel<<<static_cast<unsigned>(blocks), scale_block_threads, 0, stream>>>(
      reinterpret_cast<T*>(values), count, beta);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

template void scale_async<double>(double*, std::int64_t, double, cudaStream_t);
template void scale_async<float>(float*, std::int64_t, float, cudaStream_t);
template void scale_async<half>(half*, std::int64_t, float, cudaStream_t);
template void scale_async<bfloat16>(bfloat16*, std::int64_t, float, cudaStream_t);

}  // namespace tcsparse::detail
