// y = beta * y on the GPU: what a product with an empty matrix (no rows' worth of nonzeros) must
// still do. beta == 0 writes zeros without reading y (NaN included), as BLAS does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tcsparse/types.hpp"

namespace tcsparse::detail {

/// Scales `count` values at `values` (device memory) by beta, asynchronously on `stream`.
/// fp16 / bf16 are scaled in fp32. beta == 1 does nothing.
template <typename Value>
void scale_async(Value* values, std::int64_t count, scalar_t<Value> beta, cudaStream_t stream);

}  // namespace tcsparse::detail
