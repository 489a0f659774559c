// DASP as the registry sees it: its name, what it runs, its parameters and its host layout
// statistics. The kernels are in dasp.cu, the layout in dasp_format.{hpp,cpp}.
#include "dasp/dasp.hpp"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_parameters.hpp"

namespace tcsparse::detail {
namespace {

Json dasp_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                            const ParameterValues& parameters) {
  return dasp::host_layout_statistics(matrix, dasp::dasp_parameters(parameters));
}

}  // namespace

// fp64 on mma.m8n8k4 and fp16 on the fp16 mma shapes are the paper's; bf16 takes the fp16-shaped
// layout with bf16 mma. The paper defines no fp32 layout.
extern const MethodDescriptor dasp_method;
const MethodDescriptor dasp_method = {
    .name = "dasp",
    .description = "DASP tensor-core SpMV (SC'23): long / medium / short row parts",
    // build=device checks the uploaded CSR on the GPU; build=host checks it on the host
    .checks_csr_on_device = true,
    .parameters = &dasp::parameter_specs,
    .spmv = {.fp64 = &dasp::make_spmv<double>,
             .fp16 = &dasp::make_spmv<half>,
             .bf16 = &dasp::make_spmv<bfloat16>},
    .spmm = {},  // SpMV only
    // The layout is built on the GPU from the CSR's arrays there (build=device).
    .spmv_from_device = {.fp64 = &dasp::make_spmv_from_device<double>,
                         .fp16 = &dasp::make_spmv_from_device<half>,
                         .bf16 = &dasp::make_spmv_from_device<bfloat16>},
    .spmm_from_device = {},
    .layout_statistics = &dasp_layout_statistics,
};

}  // namespace tcsparse::detail
