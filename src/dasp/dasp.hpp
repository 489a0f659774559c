// DASP (SC'23): the entry points the plan registry calls. Everything else of DASP stays in this
// folder: dasp_format.{hpp,cpp} (host layout and host apply) and dasp.cu (kernels).
#pragma once

#include <memory>
#include <string>

#include "plan/method.hpp"

namespace tcsparse::dasp {

/// Builds the DASP layout on the host, uploads it, and returns the method object.
/// Supports double, half and bfloat16 (fp16/bf16 inputs, fp32 accumulation); float throws
/// UnsupportedError.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const PlanOptions& options);

/// The host-side statistics of the fp64 DASP layout of `matrix`, as a JSON object:
/// {"rows": {"long", "medium", "short", "empty"}, "nnz": {"long", "medium_regular",
///  "medium_irregular", "short"}, "stored_values", "padding_ratio", ...}. Needs no GPU.
std::string format_stats_json(const CsrMatrix<double, std::int32_t>& matrix);

}  // namespace tcsparse::dasp
