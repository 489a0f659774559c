// The epilogue the tca kernels share: one element of C = alpha * sum + beta * C, in C's layout
// and type (C is not read when beta == 0, so a NaN-poisoned C is overwritten). Included by the
// kernel headers only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "arch/types.cuh"

namespace tcsparse::tca::device {

/// Args: the kernel's arguments, with rows, n, alpha and beta. Elements outside rows x n are not
/// written.
template <typename V, typename Out, typename Args>
__device__ __forceinline__ void write_c(Out* C, std::int64_t row, std::int64_t column,
                                        const Args& args, bool row_major, float sum) {
  if (row >= args.rows || column >= args.n) return;
  Out& out = row_major ? C[row * args.n + column] : C[column * args.rows + row];
  float result = args.alpha * sum;
  if constexpr (std::is_same_v<Out, float>) {
    if (args.beta != 0.0f) result += args.beta * out;
    out = result;
  } else {
    if (args.beta != 0.0f) result += args.beta * arch::ValueTraits<V>::to_acc(out);
    out = arch::ValueTraits<V>::from_acc(result);
  }
}

}  // namespace tcsparse::tca::device
