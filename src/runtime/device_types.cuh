// The CUDA device type behind each tcsparse value type (include/tcsparse/types.hpp): tcsparse::half
// and tcsparse::bfloat16 have the bit layout of __half and __nv_bfloat16, so a kernel reinterprets
// a buffer of one as the other.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tcsparse/types.hpp"

namespace tcsparse::detail {

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

}  // namespace tcsparse::detail
