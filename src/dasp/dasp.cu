// DASP (SC'23) behind the SpmvMethod interface: the host layout (dasp_format.hpp) built once and
// uploaded (dasp_device_layout.cuh), then one kernel launch per apply (dasp_kernels.cuh, chosen
// in dasp_kernel_table.cuh).
//
// Apply is asynchronous on the caller's stream and synchronises nothing. The long-row workspace
// (partial sums, tickets) belongs to the plan: one plan must not be applied on two streams at
// the same time (the same rule as a cuSPARSE external buffer).
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "arch/types.cuh"
#include "common/stopwatch.hpp"
#include "dasp/dasp.hpp"
#include "dasp/dasp_device_layout.cuh"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernel_table.cuh"
#include "dasp/dasp_testing.hpp"
#include "runtime/cuda_check.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

template <typename Value>
class DaspSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;

 public:
  DaspSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters)
      : DaspSpmv(matrix, parameters, build_timed(matrix, parameters)) {}

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (warps_ == 0) return;
    const auto blocks = static_cast<unsigned>((warps_ + device::kWarpsPerBlock - 1) /
                                              device::kWarpsPerBlock);
    kernel_<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
        device_layout_->arguments(), reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y),
        static_cast<Acc>(alpha), static_cast<Acc>(beta));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  const PlanStats& stats() const override { return stats_; }

  const DeviceLayout<Value>& device_layout() const { return *device_layout_; }

 private:
  /// The host layout (index-only when the device fills the values) and its build time.
  struct TimedLayout {
    DaspLayout<Value> layout;
    double milliseconds;
  };
  static TimedLayout build_timed(const CsrMatrix<Value, std::int32_t>& matrix,
                                 const DaspParameters& parameters) {
    const detail::Stopwatch stopwatch;
    DaspLayout<Value> layout =
        build_dasp_layout(matrix, parameters, std::nullopt,
                          parameters.fill_on_device ? DaspFill::index_only : DaspFill::values);
    return {std::move(layout), stopwatch.elapsed_ms()};
  }

  DaspSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters,
           const TimedLayout& built) {
    const DaspLayout<Value>& layout = built.layout;
    stats_.host_preprocess_ms = built.milliseconds;
    const detail::Stopwatch upload;
    device_layout_ = std::make_unique<DeviceLayout<Value>>(layout);
    stats_.upload_ms = upload.elapsed_ms();
    if (parameters.fill_on_device) device_layout_->fill_values(layout, matrix, stats_);
    stats_.device_bytes = device_layout_->bytes();

    const DaspLoopShape loop = resolve_loop_shape(
        parameters, matrix.nnz(),
        static_cast<std::int64_t>(matrix.cols) * static_cast<std::int64_t>(sizeof(Value)),
        std::is_same_v<Value, double>,
        is_dense_long_rows_layout(parameters, layout.counts.max_medium_row_length));
    kernel_ = pick_kernel<V>(layout.rowblocks_per_unit(), loop.blocks_in_flight,
                             loop.pipelined_loads, layout.shape.column_major);
    warps_ = layout.counts.warps();
    if (warps_ > std::int64_t{0x7fffffff} - device::kWarpsPerBlock)
      throw IndexOverflowError("DASP: " + std::to_string(warps_) +
                               " warps do not fit one launch's 32-bit warp index");
    const DaspCounts& c = layout.counts;
    stats_.stored_values = c.stored_values();
    stats_.padding_ratio = c.padding_ratio();
    stats_.details = layout_statistics(c, layout.shape, parameters);
    stats_.details["fill"] = parameters.fill_on_device ? "device" : "host";
    stats_.details["host_preprocess_nnz_per_s"] =
        stats_.host_preprocess_ms > 0
            ? static_cast<double>(matrix.nnz()) / (stats_.host_preprocess_ms * 1e-3)
            : 0.0;
    stats_.details["threads_per_block"] = device::kThreadsPerBlock;
    stats_.details["blocks_in_flight"] = loop.blocks_in_flight;
    stats_.details["pipelined_loads"] = loop.pipelined_loads ? 1 : 0;
  }

  std::unique_ptr<DeviceLayout<Value>> device_layout_;
  DaspKernel<V> kernel_ = nullptr;
  std::int64_t warps_ = 0;
  PlanStats stats_;
};

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters) {
  return std::make_unique<DaspSpmv<Value>>(matrix, dasp_parameters(parameters));
}

namespace testing {

template <typename Value>
DaspValueArrays<Value> download_value_arrays(const detail::SpmvMethod<Value>& method) {
  const auto* dasp = dynamic_cast<const DaspSpmv<Value>*>(&method);
  if (!dasp) throw Error("download_value_arrays: not a DASP method");
  return dasp->device_layout().download_values();
}

template DaspValueArrays<double> download_value_arrays(const detail::SpmvMethod<double>&);
template DaspValueArrays<half> download_value_arrays(const detail::SpmvMethod<half>&);
template DaspValueArrays<bfloat16> download_value_arrays(const detail::SpmvMethod<bfloat16>&);

}  // namespace testing

template std::unique_ptr<detail::SpmvMethod<double>> make_spmv(
    const CsrMatrix<double, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<half>> make_spmv(const CsrMatrix<half, std::int32_t>&,
                                                             const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<bfloat16>> make_spmv(
    const CsrMatrix<bfloat16, std::int32_t>&, const detail::ParameterValues&);

}  // namespace tcsparse::dasp
