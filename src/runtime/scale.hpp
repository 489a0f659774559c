// y = beta * y on the GPU: what a product with an empty matrix (no rows' worth of nonzeros) must
// still do. beta == 0 writes zeros without reading y (NaN included), as BLAS does.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "tcsparse/plan.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::detail {

/// Scales `count` values at `values` (device memory) by beta, asynchronously on `stream`.
/// fp16 / bf16 are scaled in fp32. beta == 1 does nothing.
template <typename Value>
void scale_async(Value* values, std::int64_t count, scalar_t<Value> beta, cudaStream_t stream);

/// C = beta * C for an SpMM's C (rows x n values of Value, or of float for SpmmOutput::fp32): what
/// an SpMM with no products still does.
template <typename Value>
void scale_spmm_output_async(void* C, std::int64_t count, SpmmOutput output, scalar_t<Value> beta,
                             cudaStream_t stream) {
  if (output == SpmmOutput::fp32)
    scale_async<float>(static_cast<float*>(C), count, static_cast<float>(beta), stream);
  else
    scale_async<Value>(static_cast<Value*>(C), count, beta, stream);
}

}  // namespace tcsparse::detail
