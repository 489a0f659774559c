// C in the input type or in fp32 (SpmmOutput), for tca's kernels: Out is V (__half or
// __nv_bfloat16) or float, the accumulation fp32.
#pragma once

#include <type_traits>

#include "arch/types.cuh"

namespace tcsparse::tca::device {

template <typename V, typename Out>
__device__ __forceinline__ Out from_fp32(float value) {
  if constexpr (std::is_same_v<Out, float>) return value;
  else return arch::ValueTraits<V>::from_acc(value);
}
template <typename V, typename Out>
__device__ __forceinline__ float to_fp32(Out value) {
  if constexpr (std::is_same_v<Out, float>) return value;
  else return arch::ValueTraits<V>::to_acc(value);
}

}  // namespace tcsparse::tca::device
