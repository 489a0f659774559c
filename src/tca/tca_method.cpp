// The tca method as the registry sees it: SpMM in fp16 and bf16; fp32 / fp64 stay on cuSPARSE
// (null factories: a plan asking for them is an UnsupportedError listing what tca supports).
#include "tca/tca.hpp"
#include "tca/tca_format.hpp"
#include "tca/tca_parameters.hpp"

namespace tcsparse::detail {
namespace {

Json tca_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                           const ParameterValues& /*none*/) {
  // The decomposition depends on n only through the long rows' column slices: report n = 256,
  // the paper's evaluation width (Section 5.1).
  constexpr std::int64_t kReportedN = 256;
  Json details = tca::layout_details(tca::build_tca_layout(matrix, kReportedN));
  details["n"] = kReportedN;
  return details;
}

}  // namespace

extern const MethodDescriptor tca_method;
const MethodDescriptor tca_method = {
    .name = "tca",
    .description = "TCA-SpMM (Electronics 2024, doi:10.3390/electronics13203981): CSR SpMM on "
                   "mma.m16n8k8, rows matricised, 1/2/4/8 warps per row class; a warp-per-row "
                   "kernel; 16x16 tiles multiplied as dense m16n8k16; and 8-row windows gathering "
                   "B's rows from shared memory (auto chooses)",
    .is_baseline = false,
    .parameters = &tca::parameter_specs,
    .spmv = {},
    .spmm = {.fp16 = &tca::make_spmm<half>, .bf16 = &tca::make_spmm<bfloat16>},
    .spmv_from_device = {},
    .spmm_from_device = {.fp16 = &tca::make_spmm_from_device<half>,
                         .bf16 = &tca::make_spmm_from_device<bfloat16>},
    .layout_statistics = &tca_layout_statistics,
};

}  // namespace tcsparse::detail
