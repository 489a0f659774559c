// DASP (SC'23) behind the SpmvMethod interface: the host layout (dasp_format.hpp) built once and
// uploaded (dasp_device_layout.cuh), then one kernel launch per apply (dasp_kernels.cuh, chosen
// in dasp_kernel_table.cuh); a matrix without nonzeros costs one y = beta * y (or nothing).
// With "row_order=plan" the uploaded layout is rewritten to the plan's row order
// (dasp_plan_row_order) and the plan keeps that order for SpmvPlan::permute / unpermute.
//
// Apply is asynchronous on the caller's stream and synchronises nothing. The long-row workspace
// (partial sums, tickets) belongs to the plan: one plan must not be applied on two streams at
// the same time (the same rule as a cuSPARSE external buffer).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "arch/types.cuh"
#include "common/omp_thread_limit.hpp"
#include "common/stopwatch.hpp"
#include "dasp/dasp.hpp"
#include "dasp/dasp_device_layout.cuh"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernel_table.cuh"
#include "dasp/dasp_testing.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/host_upload.hpp"
#include "runtime/scale.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

template <typename Value>
class DaspSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;

 public:
  DaspSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters)
      : rows_(matrix.rows), nnz_(matrix.nnz()) {
    build(matrix, parameters);
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (nnz_ == 0) {  // nothing to multiply: y = beta * y, one launch (none when rows == 0)
      detail::scale_async(y, rows_, beta, stream);
      return;
    }
    if (warps_ == 0) return;
    const auto blocks = static_cast<unsigned>((warps_ + device::kWarpsPerBlock - 1) /
                                              device::kWarpsPerBlock);
    kernel_<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
        device_layout_->arguments(), reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y),
        static_cast<Acc>(alpha), static_cast<Acc>(beta));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  const PlanStats& stats() const override { return stats_; }

  std::optional<detail::DeviceRowOrder> row_order() const override {
    if (plan_to_caller_.size() == 0) return std::nullopt;
    return detail::DeviceRowOrder{plan_to_caller_.data(), caller_to_plan_.data()};
  }

  /// The layout on the device; null for a matrix without nonzeros (nothing uploaded).
  const DeviceLayout<Value>* device_layout() const { return device_layout_.get(); }

 private:
  /// The host layout (index-only when the device fills the values) and, with
  /// "row_order=plan", its row order (plan position -> caller row; empty otherwise).
  struct HostLayout {
    DaspLayout<Value> layout;
    std::vector<std::int32_t> plan_order;
  };
  static HostLayout build_host_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                                      const DaspParameters& parameters,
                                      detail::PhaseTimes& phases) {
    DaspLayout<Value> layout = build_dasp_layout(
        matrix, parameters, std::nullopt,
        parameters.fill_on_device ? DaspFill::index_only : DaspFill::values, &phases);
    // a matrix without nonzeros has only empty rows, in the caller's order: nothing to reorder
    std::vector<std::int32_t> plan_order;
    if (parameters.plan_row_order && matrix.nnz() > 0) {
      plan_order = dasp_plan_row_order(layout);
      phases.lap("plan_row_order");
    }
    return {std::move(layout), std::move(plan_order)};
  }

  /// The CSR's bytes on the host (what the device fill needs uploaded).
  static std::size_t csr_bytes(const CsrMatrix<Value, std::int32_t>& matrix) {
    return matrix.row_ptr.size() * sizeof(std::int32_t) +
           matrix.col_idx.size() * sizeof(std::int32_t) + matrix.values.size() * sizeof(Value);
  }

  // The build: with the device fill and "upload=overlapped", the CSR goes up on a worker thread
  // (BackgroundCsrUpload, kDaspOverlappedUploadCopyShare of the threads copying into the staging
  // ring) while the other threads build the index arrays, which need only row_ptr; then the index
  // arrays go up, the CSR is waited for, and the GPU fills the values. PlanStats: host_preprocess_ms
  // the index build, upload_ms the CSR upload (the worker's own time, overlapped or not) plus the
  // index arrays', device_preprocess_ms the fill; details.plan_phases_ms the parts.
  void build(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters) {
    detail::PhaseTimes phases;
    const bool overlap = nnz_ > 0 && parameters.fill_on_device && parameters.overlapped_upload &&
                         csr_bytes(matrix) >= kDaspOverlappedUploadMinBytes;
    std::optional<detail::BackgroundCsrUpload<Value>> csr_upload;
    int build_threads = 0;  // all
    if (overlap) {
      const int threads = detail::resolve_threads(0);
      const int copy_threads = std::clamp(
          static_cast<int>(std::lround(threads * kDaspOverlappedUploadCopyShare)), 1,
          std::max(1, threads - 1));
      build_threads = std::max(1, threads - copy_threads);
      csr_upload.emplace(matrix, detail::current_host_upload(),
                         detail::StagingConfig{detail::kStagingChunkBytes, detail::kStagingChunks,
                                               copy_threads});
      stats_.details["upload_copy_threads"] = copy_threads;
      stats_.details["build_threads"] = build_threads;
    }
    const detail::Stopwatch host_time;
    HostLayout built = [&] {
      const detail::OmpThreadLimitScope limit(build_threads);
      return build_host_layout(matrix, parameters, phases);
    }();
    const DaspLayout<Value>& layout = built.layout;
    stats_.host_preprocess_ms = host_time.elapsed_ms();
    phases.skip();
    if (nnz_ > 0) {
      const detail::Stopwatch upload;
      device_layout_ = std::make_unique<DeviceLayout<Value>>(layout);
      stats_.upload_ms = upload.elapsed_ms();
      phases.lap("index_upload");
      if (parameters.fill_on_device) {
        std::optional<detail::DeviceCsr<Value>> csr;
        if (csr_upload) {
          double upload_ms = 0.0, waited_ms = 0.0;
          csr.emplace(csr_upload->get(upload_ms, waited_ms));
          stats_.upload_ms += upload_ms;
          stats_.details["csr_upload_ms"] = upload_ms;
          stats_.details["csr_upload_waited_ms"] = waited_ms;
          phases.lap("csr_upload_wait");
        } else {
          const double before = stats_.upload_ms;
          csr.emplace(detail::upload_csr(matrix, stats_));
          stats_.details["csr_upload_ms"] = stats_.upload_ms - before;
          phases.lap("csr_upload");
        }
        device_layout_->fill_values(layout, *csr, stats_);
        phases.lap("device_fill");
      }
      stats_.device_bytes = device_layout_->bytes();
    }
    if (!built.plan_order.empty()) {
      const detail::Stopwatch stopwatch;
      const std::vector<std::int32_t> caller_to_plan = inverse_row_order(built.plan_order);
      stats_.host_preprocess_ms += stopwatch.elapsed_ms();
      const detail::Stopwatch upload;
      plan_to_caller_ = detail::DeviceBuffer<std::int32_t>(built.plan_order.size());
      caller_to_plan_ = detail::DeviceBuffer<std::int32_t>(caller_to_plan.size());
      {
        detail::HostUploader uploader(detail::current_host_upload());
        uploader.copy(plan_to_caller_.data(), built.plan_order.data(), plan_to_caller_.bytes());
        uploader.copy(caller_to_plan_.data(), caller_to_plan.data(), caller_to_plan_.bytes());
        uploader.finish();
      }
      stats_.upload_ms += upload.elapsed_ms();
      stats_.device_bytes += plan_to_caller_.bytes() + caller_to_plan_.bytes();
      // P A P^T for a square matrix; a rectangular one keeps x (its columns) in the caller's order
      device_layout_->to_plan_order(caller_to_plan_.data(), matrix.rows == matrix.cols, stats_);
      phases.lap("plan_order_upload");
    }

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
    Json extra = std::move(stats_.details);
    stats_.details = layout_statistics(c, layout.shape, parameters);
    for (auto& [key, value] : extra.items()) stats_.details[key] = value;
    stats_.details["fill"] = parameters.fill_on_device ? "device" : "host";
    stats_.details["row_order"] = plan_to_caller_.size() > 0 ? "plan" : "caller";
    stats_.details["upload"] = overlap ? "overlapped" : "after";
    stats_.details["host_preprocess_nnz_per_s"] =
        stats_.host_preprocess_ms > 0
            ? static_cast<double>(matrix.nnz()) / (stats_.host_preprocess_ms * 1e-3)
            : 0.0;
    stats_.details["threads_per_block"] = device::kThreadsPerBlock;
    stats_.details["blocks_in_flight"] = loop.blocks_in_flight;
    stats_.details["pipelined_loads"] = loop.pipelined_loads ? 1 : 0;
    Json laps = Json::object();
    for (const auto& [name, ms] : phases.laps()) laps[name] = ms;
    stats_.details["plan_phases_ms"] = std::move(laps);
  }

  std::int64_t rows_ = 0, nnz_ = 0;
  std::unique_ptr<DeviceLayout<Value>> device_layout_;  // null when nnz_ == 0
  detail::DeviceBuffer<std::int32_t> plan_to_caller_, caller_to_plan_;  // "row_order=plan"
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
  if (!dasp->device_layout()) return {};  // no nonzeros, nothing uploaded
  return dasp->device_layout()->download_values();
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
