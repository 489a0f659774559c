// cuSPARSE behind the method interface: the baseline every method is measured against.
#pragma once

#include <memory>

#include "plan/method.hpp"

namespace tcsparse::cusparse {

/// Method::cusparse (default algorithm) or Method::cusparse_alg2 (CUSPARSE_SPMV_CSR_ALG2).
/// fp64 and fp32 compute in their own precision; fp16 and bf16 compute in fp32.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     Method method, const PlanOptions& options);

/// Method::cusparse / cusparse_alg2 / cusparse_alg3 (CUSPARSE_SPMM_ALG_DEFAULT / CSR_ALG2 /
/// CSR_ALG3), B and C row-major. fp16 / bf16 run with cusparse and cusparse_alg3 only (cuSPARSE
/// computes mixed precision with CSR_ALG3).
template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, Method method,
                                                     const PlanOptions& options);

}  // namespace tcsparse::cusparse
