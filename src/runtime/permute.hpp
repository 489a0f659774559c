// Vectors and index arrays moved between two row orders on the GPU (a plan's own row order and
// the caller's: SpmvPlan::permute / unpermute, DASP's "row_order=plan").
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tcsparse::detail {

/// out[i] = in[index[i]] for i in [0, count): device pointers, asynchronously on `stream`. Value
/// is any value type or std::int32_t (copied bit for bit). `in` and `out` must not overlap.
template <typename Value>
void gather_async(const Value* in, const std::int32_t* index, Value* out, std::int64_t count,
                  cudaStream_t stream);

/// inverse[order[i]] = i for i in [0, count): the inverse of a permutation `order` of
/// [0, count), device pointers, asynchronously on `stream`.
void invert_order_async(const std::int32_t* order, std::int64_t count, std::int32_t* inverse,
                        cudaStream_t stream);

/// ids[i * stride] = map[ids[i * stride]] for i in [0, count) where the id is >= 0 (negative
/// ids are padding and stay): device pointers, asynchronously on `stream`.
void remap_indices_async(std::int32_t* ids, std::int64_t count, int stride,
                         const std::int32_t* map, cudaStream_t stream);

}  // namespace tcsparse::detail
