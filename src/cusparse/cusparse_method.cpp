// The three cuSPARSE baseline methods as the registry sees them. They take no parameters and have
// no host layout (cuSPARSE keeps the CSR as it is).
#include "cusparse/cusparse_method.hpp"

namespace tcsparse::detail {
namespace {

using cusparse::Algorithm;

template <Algorithm kAlgorithm>
constexpr FactoriesByPrecision<SpmvFactory> kSpmvInEveryPrecision = {
    &cusparse::make_spmv<double, kAlgorithm>, &cusparse::make_spmv<float, kAlgorithm>,
    &cusparse::make_spmv<half, kAlgorithm>, &cusparse::make_spmv<bfloat16, kAlgorithm>};

template <Algorithm kAlgorithm>
constexpr FactoriesByPrecision<SpmmFactory> kSpmmInEveryPrecision = {
    &cusparse::make_spmm<double, kAlgorithm>, &cusparse::make_spmm<float, kAlgorithm>,
    &cusparse::make_spmm<half, kAlgorithm>, &cusparse::make_spmm<bfloat16, kAlgorithm>};

template <Algorithm kAlgorithm>
constexpr FactoriesByPrecision<SpmvDeviceFactory> kSpmvFromDeviceInEveryPrecision = {
    &cusparse::make_spmv_from_device<double, kAlgorithm>,
    &cusparse::make_spmv_from_device<float, kAlgorithm>,
    &cusparse::make_spmv_from_device<half, kAlgorithm>,
    &cusparse::make_spmv_from_device<bfloat16, kAlgorithm>};

template <Algorithm kAlgorithm>
constexpr FactoriesByPrecision<SpmmDeviceFactory> kSpmmFromDeviceInEveryPrecision = {
    &cusparse::make_spmm_from_device<double, kAlgorithm>,
    &cusparse::make_spmm_from_device<float, kAlgorithm>,
    &cusparse::make_spmm_from_device<half, kAlgorithm>,
    &cusparse::make_spmm_from_device<bfloat16, kAlgorithm>};

}  // namespace

extern const MethodDescriptor cusparse_method;
const MethodDescriptor cusparse_method = {
    .name = "cusparse",
    .description = "cuSPARSE generic API, CSR, default algorithm (cusparseSpMV / cusparseSpMM)",
    .is_baseline = true,
    .spmv = kSpmvInEveryPrecision<Algorithm::default_algorithm>,
    .spmm = kSpmmInEveryPrecision<Algorithm::default_algorithm>,
    .spmv_from_device = kSpmvFromDeviceInEveryPrecision<Algorithm::default_algorithm>,
    .spmm_from_device = kSpmmFromDeviceInEveryPrecision<Algorithm::default_algorithm>,
};

// cuSPARSE computes fp16 / bf16 SpMM (mixed precision) with CUSPARSE_SPMM_CSR_ALG3 only.
extern const MethodDescriptor cusparse_alg2_method;
const MethodDescriptor cusparse_alg2_method = {
    .name = "cusparse_alg2",
    .description = "cuSPARSE generic API, CSR, CUSPARSE_SPMV_CSR_ALG2 / CUSPARSE_SPMM_CSR_ALG2",
    .is_baseline = true,
    .spmv = kSpmvInEveryPrecision<Algorithm::csr_alg2>,
    .spmm = {.fp64 = &cusparse::make_spmm<double, Algorithm::csr_alg2>,
             .fp32 = &cusparse::make_spmm<float, Algorithm::csr_alg2>},
    .spmv_from_device = kSpmvFromDeviceInEveryPrecision<Algorithm::csr_alg2>,
    .spmm_from_device = {.fp64 = &cusparse::make_spmm_from_device<double, Algorithm::csr_alg2>,
                         .fp32 = &cusparse::make_spmm_from_device<float, Algorithm::csr_alg2>},
};

extern const MethodDescriptor cusparse_alg3_method;
const MethodDescriptor cusparse_alg3_method = {
    .name = "cusparse_alg3",
    .description = "cuSPARSE generic API, CSR, CUSPARSE_SPMM_CSR_ALG3 (SpMM only)",
    .is_baseline = true,
    .spmv = {},  // CSR_ALG3 is an SpMM algorithm
    .spmm = kSpmmInEveryPrecision<Algorithm::csr_alg3>,
    .spmv_from_device = {},
    .spmm_from_device = kSpmmFromDeviceInEveryPrecision<Algorithm::csr_alg3>,
};

}  // namespace tcsparse::detail
