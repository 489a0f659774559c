// DASP (SC'23): the entry points of the method. Everything else of DASP stays in this folder:
// dasp_format.{hpp,cpp} (host layout and host apply), dasp.cu (kernels and their launch) and
// dasp_method.cpp (the registry's descriptor).
#pragma once

#include <memory>

#include "plan/method.hpp"

namespace tcsparse::dasp {

/// Builds the DASP layout on the host, uploads it, and returns the method object. Instantiated
/// for double, half and bfloat16 (fp16/bf16 inputs, fp32 accumulation): the paper defines no
/// fp32 layout, and the registry lists no fp32 factory.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters);

}  // namespace tcsparse::dasp
