// HBP (hash-based partition SpMV): the entry points of the method. Everything else stays in this
// folder: hbp_format.{hpp,cpp} (host format and host model), hbp_kernels.cuh and hbp.cu (kernels,
// the method object), hbp_method.cpp (the registry's descriptor).
#pragma once

#include <memory>

#include "hbp/hbp_format.hpp"
#include "plan/method.hpp"

namespace tcsparse::hbp {

/// Builds the HBP layout on the GPU from the uploaded CSR (build=device, hbp_device_build.hpp) or
/// on the host and uploads it (build=host, hbp_format.hpp), and returns the method object.
/// Instantiated for double, float, half and bfloat16 (fp32 accumulation for the 16-bit types).
/// Throws UnsupportedError when the x segment does not fit the device's shared memory.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters);

/// The same from a checked CSR already on the GPU: build=device builds the layout from the
/// caller's arrays (no host round trip; the plan keeps its own copy of the values and does not
/// read the caller's arrays afterwards); build=host downloads the CSR once and builds on the host.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters);

namespace testing {

/// Milliseconds of the SpMV part and of the combine part of one apply, each between its own
/// events, median of `repeats` runs after one warm-up (synchronous; for tests and benchmarks,
/// not for use inside an application's apply).
struct PartTimes {
  double spmv_ms = 0.0;
  double combine_ms = 0.0;
};
template <typename Value>
PartTimes time_parts(const detail::SpmvMethod<Value>& method, const Value* x, Value* y,
                     int repeats);

/// The grid the kernel runs and its fixed tasks (the host model's Schedule) of a method made by
/// make_spmv. Throws Error for another method.
template <typename Value>
Schedule launch_schedule(const detail::SpmvMethod<Value>& method);

/// The layout build=device gives for `matrix` (the CSR uploaded, the layout built on the GPU,
/// rewritten there where p asks for slot_output=partial, every array downloaded;
/// reorder_statistics left empty): what the GPU test compares with build_layout (and
/// give_every_slot_a_partial), array by array, bit for bit.
template <typename Value>
HbpLayout<Value> build_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                 const HbpParameters& p);

}  // namespace testing

}  // namespace tcsparse::hbp
