// CSR-Full-Overlap as the registry sees it: its name, what it runs, its parameters and its
// big-batch statistics. The method is in csr_full_overlap.cu, the partition in
// csr_full_overlap_format.{hpp,cpp}.
#include <limits>

#include "csr_overlap/csr_full_overlap.hpp"
#include "csr_overlap/csr_full_overlap_format.hpp"

namespace tcsparse::detail {
namespace {

Json csr_full_overlap_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                                        const ParameterValues& parameters) {
  const csr_overlap::FullOverlapParameters p = csr_overlap::full_overlap_parameters(parameters);
  // No GPU here: an automatic limit is not bounded by the free memory.
  const csr_overlap::BigBatchPartition partition = csr_overlap::partition_big_batches(
      matrix.row_ptr, sizeof(double), p, std::numeric_limits<std::size_t>::max() / 2);
  Json statistics = csr_overlap::partition_statistics(partition, p);
  statistics["parameters"] = parameters.to_json();
  return statistics;
}

}  // namespace

extern const MethodDescriptor csr_full_overlap_method;
const MethodDescriptor csr_full_overlap_method = {
    .name = "csr_full_overlap",
    .description = "CSR-Full-Overlap (Electronics 2023): host-resident CSR streamed to the GPU in "
                   "big batches on several streams, overlapped with the csr_overlap batch kernel",
    .matrix_stays_on_host = true,
    .parameters = &csr_overlap::full_overlap_parameter_specs,
    .spmv = {.fp64 = &csr_overlap::make_full_overlap_spmv<double>,
             .fp32 = &csr_overlap::make_full_overlap_spmv<float>,
             .fp16 = &csr_overlap::make_full_overlap_spmv<half>,
             .bf16 = &csr_overlap::make_full_overlap_spmv<bfloat16>},
    .spmm = {},  // SpMV only
    // the matrix lives in host memory by design: a plan from device arrays downloads it once
    // into its pinned copy (host_memory=register would keep pointers into that temporary)
    .spmv_from_device = {.fp64 = &csr_overlap::make_full_overlap_spmv_from_device<double>,
                         .fp32 = &csr_overlap::make_full_overlap_spmv_from_device<float>,
                         .fp16 = &csr_overlap::make_full_overlap_spmv_from_device<half>,
                         .bf16 = &csr_overlap::make_full_overlap_spmv_from_device<bfloat16>},
    .spmm_from_device = {},
    .layout_statistics = &csr_full_overlap_layout_statistics,
};

}  // namespace tcsparse::detail
