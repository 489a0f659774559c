// CSR-Partial-Overlap as the registry sees it: its name, what it runs, its parameters and its
// batch-table statistics. The kernels are in csr_overlap.cu, the host model in
// csr_overlap_format.{hpp,cpp}.
#include "csr_overlap/csr_overlap.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_parameters.hpp"

namespace tcsparse::detail {
namespace {

Json csr_overlap_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                                   const ParameterValues& parameters) {
  const csr_overlap::CsrOverlapParameters resolved =
      csr_overlap::csr_overlap_parameters(parameters).for_matrix(matrix.rows, matrix.nnz());
  Json statistics = csr_overlap::host_layout_statistics(matrix, resolved);
  statistics["parameters"] = parameters.to_json();
  return statistics;
}

}  // namespace

// The paper evaluates fp32 (and names fp64 for CSR generally); fp16 / bf16 accumulate in fp32.
extern const MethodDescriptor csr_overlap_method;
const MethodDescriptor csr_overlap_method = {
    .name = "csr_overlap",
    .description = "CSR-Partial-Overlap (Electronics 2023): cp.async double-buffered CSR batches, "
                   "vector size per batch",
    .checks_device_csr_itself = true,  // beside the batch table's build (csr_overlap.cu)
    .parameters = &csr_overlap::parameter_specs,
    .spmv = {.fp64 = &csr_overlap::make_spmv<double>,
             .fp32 = &csr_overlap::make_spmv<float>,
             .fp16 = &csr_overlap::make_spmv<half>,
             .bf16 = &csr_overlap::make_spmv<bfloat16>},
    .spmm = {},  // SpMV only
    .spmv_from_device = {.fp64 = &csr_overlap::make_spmv_from_device<double>,
                         .fp32 = &csr_overlap::make_spmv_from_device<float>,
                         .fp16 = &csr_overlap::make_spmv_from_device<half>,
                         .bf16 = &csr_overlap::make_spmv_from_device<bfloat16>},
    .spmm_from_device = {},
    .layout_statistics = &csr_overlap_layout_statistics,
};

}  // namespace tcsparse::detail
