// The cublas_dense baseline as the registry sees it: SpMM only, every precision, no parameters.
#include "cublas_dense/cublas_dense.hpp"

namespace tcsparse::detail {

namespace {

/// "auto" stores A dense only where that copy is at most this large ...
constexpr double kAutoDenseMaxBytes = double{1 << 30};
/// ... and A at least this dense (at 1 %, A stored dense takes 33x (fp16) to 67x (fp64) the
/// bytes of its CSR). On pruned weights of 90 and 98 % sparsity (DLMC, 2-10 % dense) cuBLAS ran
/// 4.5-5x faster than tca, and tca 2-5x faster than cuSPARSE (H200,
/// bench/results/2026-11-26-1620-h100-h200-tca-tiles/): the bound is below those.
constexpr double kAutoDenseMinDensity = 0.01;

bool auto_may_densify(const MatrixFeatures& features) {
  return features.dense_bytes <= kAutoDenseMaxBytes && features.density >= kAutoDenseMinDensity;
}

}  // namespace

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
    .auto_may_choose = &auto_may_densify,
};

}  // namespace tcsparse::detail
