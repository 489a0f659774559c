#include "cusparse/cusparse_common.hpp"

#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::cusparse {

const char* data_type_name(cudaDataType type) {
  switch (type) {
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    default: return "other";
  }
}

void check_plan_status(cusparseStatus_t status, const char* call, const char* file, int line,
                       const std::string& what) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  if (status == CUSPARSE_STATUS_NOT_SUPPORTED)
    throw UnsupportedError("cuSPARSE does not support " + what + " (" + call + " returned " +
                           cusparseGetErrorName(status) + ")");
  detail::throw_cusparse_error(status, call, file, line);
}

Json details(const char* algorithm, cudaDataType value_type, cudaDataType compute_type,
             std::size_t workspace_bytes) {
  return Json{{"algorithm", algorithm},
              {"value_type", data_type_name(value_type)},
              {"compute_type", data_type_name(compute_type)},
              {"workspace_bytes", workspace_bytes}};
}

}  // namespace tcsparse::cusparse
