// DASP (SC'23): the entry points of the method. Everything else of DASP stays in this folder
// (README.md lists the files): the host layout and host apply, the device build, the kernels and
// their launch, the registry's descriptor.
#pragma once

#include <memory>

#include "plan/method.hpp"

namespace tcsparse::dasp {

/// Builds the DASP layout (by default on the GPU from the uploaded CSR, which is checked there:
/// the descriptor says checks_csr_on_device) and returns the method object. Instantiated for
/// double, half and bfloat16 (fp16/bf16 inputs, fp32 accumulation): the paper defines no fp32
/// layout, and the registry lists no fp32 factory.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters);

/// The same from a CSR already on the GPU (checked by the plan): the device build reads the
/// caller's arrays while the plan is built and keeps nothing of them; build=host downloads them.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters);

}  // namespace tcsparse::dasp
