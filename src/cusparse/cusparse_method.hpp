// cuSPARSE behind the method interface: the baseline every method is measured against. The three
// baseline methods (cusparse_method.cpp) differ only in the cuSPARSE CSR algorithm they run.
#pragma once

#include <memory>

#include "plan/method.hpp"

namespace tcsparse::cusparse {

/// The cuSPARSE CSR algorithm of a baseline method.
enum class Algorithm {
  default_algorithm,  ///< method cusparse: CUSPARSE_SPMV_ALG_DEFAULT / CUSPARSE_SPMM_ALG_DEFAULT
  csr_alg2,           ///< method cusparse_alg2: CUSPARSE_SPMV_CSR_ALG2 / CUSPARSE_SPMM_CSR_ALG2
  csr_alg3,           ///< method cusparse_alg3: CUSPARSE_SPMM_CSR_ALG3 (SpMM only)
};

/// fp64 and fp32 compute in their own precision; fp16 and bf16 compute in fp32.
template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters);

/// B and C row-major or column-major, C in the input type or (16-bit inputs) fp32. cuSPARSE computes fp16 / bf16 (mixed precision) SpMM with CSR_ALG3 only,
/// which the default algorithm picks itself; cusparse_alg2 registers no 16-bit SpMM.
template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& parameters);

/// The same from a CSR already on the GPU (checked by the plan): copied device to device, then
/// the same descriptors, workspace and preprocessing.
template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters);
template <typename Value, Algorithm kAlgorithm>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& parameters);

}  // namespace tcsparse::cusparse
