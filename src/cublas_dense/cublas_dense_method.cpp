// The cublas_dense baseline as the registry sees it: SpMM only, every precision, no parameters.
#include "cublas_dense/cublas_dense.hpp"

namespace tcsparse::detail {

extern const MethodDescriptor cublas_dense_method;
const MethodDescriptor cublas_dense_method = {
    .name = "cublas_dense",
    .description = "dense GEMM baseline: A densified once in the plan, cublasGemmEx (fp16/bf16 "
                   "in, fp32 compute)",
    .is_baseline = true,
    .spmv = {},
    .spmm = {&cublas_dense::make_spmm<double>, &cublas_dense::make_spmm<float>,
             &cublas_dense::make_spmm<half>, &cublas_dense::make_spmm<bfloat16>},
    .spmv_from_device = {},
    .spmm_from_device = {&cublas_dense::make_spmm_from_device<double>,
                         &cublas_dense::make_spmm_from_device<float>,
                         &cublas_dense::make_spmm_from_device<half>,
                         &cublas_dense::make_spmm_from_device<bfloat16>},
};

}  // namespace tcsparse::detail
