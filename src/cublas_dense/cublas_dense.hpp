// cublas_dense: the SpMM baseline a pruned-weight user runs today. The plan densifies A once on
// the GPU (rows x cols, row-major) and every apply is one cublasGemmEx: fp16 / bf16 inputs with
// fp32 compute (C in the input type or fp32), fp32 with fp32 compute (no TF32), fp64 in fp64.
#pragma once

#include <memory>

#include "plan/method.hpp"

namespace tcsparse::cublas_dense {

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& parameters);

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& parameters);

}  // namespace tcsparse::cublas_dense
