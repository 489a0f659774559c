// Device value types and their arithmetic, shared by every kernel.
//
// device_value_t<Value>: the CUDA type behind each tcsparse value type
// (include/tcsparse/types.hpp). tcsparse::half and tcsparse::bfloat16 have the bit layout of
// __half and __nv_bfloat16, so a kernel reinterprets a buffer of one as the other.
//
// ValueTraits<V> (V a device type: double, float, __half, __nv_bfloat16): the type a kernel
// accumulates in (double -> double, float -> float, __half / __nv_bfloat16 -> float) and the
// conversions to and from it (round to nearest even on the way back).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tcsparse/types.hpp"

namespace tcsparse::arch {

template <typename Value>
struct device_value {
  using type = Value;
};
template <>
struct device_value<half> {
  using type = __half;
};
template <>
struct device_value<bfloat16> {
  using type = __nv_bfloat16;
};

template <typename Value>
using device_value_t = typename device_value<Value>::type;

static_assert(sizeof(device_value_t<half>) == sizeof(half));
static_assert(sizeof(device_value_t<bfloat16>) == sizeof(bfloat16));

template <typename V>
struct ValueTraits;

template <>
struct ValueTraits<double> {
  using Acc = double;
  __device__ static double to_acc(double v) { return v; }
  __device__ static double from_acc(double v) { return v; }
};

template <>
struct ValueTraits<float> {
  using Acc = float;
  __device__ static float to_acc(float v) { return v; }
  __device__ static float from_acc(float v) { return v; }
};

template <>
struct ValueTraits<__half> {
  using Acc = float;
  __device__ static float to_acc(__half v) { return __half2float(v); }
  __device__ static __half from_acc(float v) { return __float2half_rn(v); }
};

template <>
struct ValueTraits<__nv_bfloat16> {
  using Acc = float;
  __device__ static float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
  __device__ static __nv_bfloat16 from_acc(float v) { return __float2bfloat16_rn(v); }
};

/// The accumulator type of device value type V.
template <typename V>
using acc_t = typename ValueTraits<V>::Acc;

/// a * b rounded to nearest even as a product of its own: the compiler never contracts it into an
/// fma with a later add, so an expression built on it rounds the same wherever it is inlined.
__device__ __forceinline__ double multiply_rounded(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float multiply_rounded(float a, float b) { return __fmul_rn(a, b); }

}  // namespace tcsparse::arch
