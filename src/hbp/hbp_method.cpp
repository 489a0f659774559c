// HBP as the registry sees it: its name, what it runs, its parameters and its layout statistics.
// The kernels are in hbp.cu, the host format and model in hbp_format.{hpp,cpp}.
#include "hbp/hbp.hpp"
#include "hbp/hbp_format.hpp"
#include "hbp/hbp_parameters.hpp"

namespace tcsparse::detail {
namespace {

Json hbp_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                           const ParameterValues& parameters) {
  Json statistics = hbp::host_layout_statistics(matrix, hbp::hbp_parameters(parameters));
  statistics["parameters"] = parameters.to_json();
  return statistics;
}

}  // namespace

// The paper evaluates fp64; fp32 and the 16-bit types (fp32 accumulation) use the same layout.
extern const MethodDescriptor hbp_method;
const MethodDescriptor hbp_method = {
    .name = "hbp",
    .description = "HBP (hash-based partition): 2D-partitioned SpMV, rows of a block reordered by "
                   "a nonlinear hash of their lengths, fixed + ticketed blocks, ordered combine",
    .parameters = &hbp::parameter_specs,
    .spmv = {.fp64 = &hbp::make_spmv<double>,
             .fp32 = &hbp::make_spmv<float>,
             .fp16 = &hbp::make_spmv<half>,
             .bf16 = &hbp::make_spmv<bfloat16>},
    .spmm = {},  // SpMV only
    .spmv_from_device = {.fp64 = &hbp::make_spmv_from_device<double>,
                         .fp32 = &hbp::make_spmv_from_device<float>,
                         .fp16 = &hbp::make_spmv_from_device<half>,
                         .bf16 = &hbp::make_spmv_from_device<bfloat16>},
    .spmm_from_device = {},
    .layout_statistics = &hbp_layout_statistics,
};

}  // namespace tcsparse::detail
