// DASP (SC'23) behind the SpmvMethod interface: the layout built once, on the GPU from the
// uploaded CSR (build=device, dasp_device_build.hpp) or on the host and uploaded (build=host,
// dasp_format.hpp), its values filled on the GPU (dasp_device_layout.cuh); then one kernel launch
// per apply (dasp_kernels.cuh, chosen in dasp_kernel_table.cuh). A matrix without nonzeros is not
// uploaded (SpmvPlan::apply scales y for it, as for every method). With "row_order=plan" the
// layout is rewritten to the plan's row order (plan_row_order_on_device) and the plan keeps that
// order for SpmvPlan::permute / unpermute; with "row_order=internal" the layout is the same, and
// each apply moves x into that order and y out of it through the plan's own two vectors; with
// "row_order=internal_y" only the rows are in that order (x is read as given), the kernel writes
// the rows with values into the plan's own y, and one pass moves them to the caller's order.
//
// Apply is asynchronous on the caller's stream and synchronises nothing. The long-row workspace
// (partial sums, tickets) and the internal order's vectors belong to the plan: one plan must not
// be applied on two streams at the same time (the same rule as a cuSPARSE external buffer).
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
#include "dasp/dasp_device_build.hpp"
#include "dasp/dasp_device_layout.cuh"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernel_table.cuh"
#include "dasp/dasp_testing.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/host_upload.hpp"
#include "runtime/permute.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

template <typename Value>
class DaspSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;

 public:
  /// From a host CSR of a checked shape (SpmvPlan: checks_csr_on_device). build=device uploads
  /// it, checks its rows and columns on the GPU and builds the layout there: the row offsets go
  /// first, and the index arrays are built from them while the columns and values are copied
  /// (from kDaspOverlappedUploadMinBytes of CSR on). build=host checks it on the host and builds
  /// the index arrays there.
  DaspSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters)
      : rows_(matrix.rows), nnz_(matrix.nnz()) {
    if (nnz_ == 0 || !parameters.build_on_device) {
      matrix.validate();
      build_on_host(matrix, parameters);
      return;
    }
    const detail::CudaStream build_stream;
    if (csr_bytes(matrix) < kDaspOverlappedUploadMinBytes) {  // a thread costs more than it hides
      const detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats_);
      phases_.lap("csr_upload");
      const DeviceCsrView<Value> view = csr.view();
      detail::validate_device_csr(view);
      phases_.lap("csr_check");
      fill_values_on_device(build_index(view, parameters, build_stream.get()), view,
                            parameters);
      return;
    }
    // on another thread while this one stages the CSR (upload_csr_beside): the row offsets are
    // checked and the index arrays built as soon as row_ptr has landed, the columns checked and
    // the value arrays allocated as soon as col_idx has, while the values are on their way
    detail::UploadBesideTimes times;
    {
      const detail::PackedDeviceCsr<Value> csr = detail::upload_csr_beside<Value>(
          matrix, detail::current_host_upload(),
          [&](const DeviceCsrView<Value>& view, const detail::UploadLanded& landed) {
            phases_.skip();
            landed.row_ptr(build_stream.get());
            detail::validate_device_row_offsets(view, build_stream.get());
            phases_.lap("row_ptr_check");
            DaspDeviceIndex index = build_index(view, parameters, build_stream.get());
            landed.col_idx(build_stream.get());
            detail::validate_device_columns(view, build_stream.get());
            phases_.lap("columns_check");
            device_layout_ = std::make_unique<DeviceLayout<Value>>(std::move(index));
            phases_.lap("allocate_values");
          },
          times);
      phases_.lap("csr_upload_wait");
      stats_.upload_ms = times.upload_ms;
      stats_.details["csr_allocate_ms"] = times.allocate_ms;
      stats_.details["csr_upload_ms"] = times.upload_ms;
      stats_.details["index_build_ms"] = times.work_ms;
      stats_.details["upload_waited_for_build_ms"] = times.waited_ms;
      stats_.details["build_thread_ms"] = {{"started", times.worker_started_ms},
                                           {"device_set", times.worker_device_set_ms},
                                           {"done", times.worker_done_ms},
                                           {"joined", times.worker_joined_ms}};
      fill_layout_values(csr.view());
      measure_long_columns(csr.view(), parameters);
    }  // the uploaded CSR is freed: the layout holds everything the kernel reads
    phases_.lap("csr_release");
    finish_device_build(parameters, matrix.cols);
  }

  /// From a CSR on the GPU, checked there by the plan. build=device reads the caller's arrays
  /// during the build only; build=host downloads them once.
  DaspSpmv(const DeviceCsrView<Value>& view, const DaspParameters& parameters)
      : rows_(view.rows), nnz_(view.nnz) {
    if (nnz_ == 0 || !parameters.build_on_device) {
      build_on_host(detail::download_device_csr(view), parameters);
      return;
    }
    const detail::CudaStream build_stream;
    fill_values_on_device(build_index(view, parameters, build_stream.get()), view, parameters);
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (warps_ == 0) return;  // no nonzeros: SpmvPlan::apply scales y itself
    if (rows_with_values_ > 0) {
      // row_order=internal_y: the rows with values into the plan's y, in the plan's order (no
      // warps for empty rows), then y[c] = that (+ beta * y[c]) in the caller's order. fp64
      // adds beta * y in the pass (write_y's fma on alpha * A x, the caller order's bits); a
      // 16-bit plan's y would round alpha * A x before that sum, so there y's rows are gathered
      // into the plan's y first and the kernel adds beta * y as in the caller's order
      const bool kernel_adds_beta_y =
          !std::is_same_v<Value, double> && beta != scalar_t<Value>(0);
      if (kernel_adds_beta_y)
        detail::gather_async(y, plan_to_caller_.data(), plan_y_.data(), rows_with_values_, stream);
      launch(arguments_with_values_, warps_with_values_, x, plan_y_.data(), alpha,
             kernel_adds_beta_y ? beta : scalar_t<Value>(0), stream);
      const auto blocks = static_cast<unsigned>((rows_ + device::kThreadsPerBlock - 1) /
                                                device::kThreadsPerBlock);
      device::internal_y_pass_kernel<V><<<blocks, device::kThreadsPerBlock, 0, stream>>>(
          reinterpret_cast<const V*>(plan_y_.data()), caller_to_plan_.data(), rows_,
          rows_with_values_, reinterpret_cast<V*>(y),
          kernel_adds_beta_y ? Acc(0) : static_cast<Acc>(beta), static_cast<Acc>(beta));
      TCSPARSE_CUDA_CHECK_LAUNCH();
      return;
    }
    if (plan_y_.size() == 0) {
      launch(x, y, alpha, beta, stream);
      return;
    }
    // row_order=internal: x into the plan's order (square matrices), y in when it is read,
    // the kernel on the plan's vectors, y back to the caller's order
    const Value* plan_x = x;
    if (plan_x_.size() > 0) {
      detail::gather_async(x, plan_to_caller_.data(), plan_x_.data(), rows_, stream);
      plan_x = plan_x_.data();
    }
    if (beta != scalar_t<Value>(0))
      detail::gather_async(y, plan_to_caller_.data(), plan_y_.data(), rows_, stream);
    launch(plan_x, plan_y_.data(), alpha, beta, stream);
    detail::gather_async(plan_y_.data(), caller_to_plan_.data(), y, rows_, stream);
  }

  const PlanStats& stats() const override { return stats_; }

  /// New values refill the layout's value arrays: the build's fill kernels from the kept row
  /// offsets, without the columns (DeviceLayout::replace_values).
  bool can_update_values() const override { return true; }
  void update_values(const Value* values, Stream stream) override {
    if (!device_layout_) return;  // no nonzeros: no values
    device_layout_->replace_values(reinterpret_cast<const V*>(values),
                                   plan_to_caller_.size() > 0 ? plan_to_caller_.data() : nullptr,
                                   stream);
  }

  std::optional<detail::DeviceRowOrder> row_order() const override {
    if (plan_to_caller_.size() == 0 || plan_y_.size() > 0) return std::nullopt;
    return detail::DeviceRowOrder{plan_to_caller_.data(), caller_to_plan_.data()};
  }

  /// The layout on the device; null for a matrix without nonzeros (nothing uploaded).
  const DeviceLayout<Value>* device_layout() const { return device_layout_.get(); }

 private:
  /// The kernel on x and y in the layout's row order.
  void launch(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
              Stream stream) const {
    launch(device_layout_->arguments(), warps_, x, y, alpha, beta, stream);
  }

  /// The kernel on `arguments`' first `warps` warps.
  void launch(const device::Arguments<V>& arguments, std::int64_t warps, const Value* x,
              Value* y, scalar_t<Value> alpha, scalar_t<Value> beta, Stream stream) const {
    const auto blocks = static_cast<unsigned>((warps + device::kWarpsPerBlock - 1) /
                                              device::kWarpsPerBlock);
    kernel_<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
        arguments, reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y),
        static_cast<Acc>(alpha), static_cast<Acc>(beta));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  /// The CSR's bytes on the host (what the device fill needs uploaded).
  static std::size_t csr_bytes(const CsrMatrix<Value, std::int32_t>& matrix) {
    return matrix.row_ptr.size() * sizeof(std::int32_t) +
           matrix.col_idx.size() * sizeof(std::int32_t) + matrix.values.size() * sizeof(Value);
  }

  /// build=device: the index arrays built on the GPU from the view's row offsets on `stream`
  /// (dasp_device_build.hpp).
  DaspDeviceIndex build_index(const DeviceCsrView<Value>& view, const DaspParameters& parameters,
                              cudaStream_t stream) {
    return build_index_on_device(view.row_ptr, view.rows, view.cols, view.nnz, parameters,
                                 default_block_shape<Value>(), static_cast<int>(sizeof(Value)),
                                 &phases_, stream);
  }

  /// build=device: the layout of `index` allocated, then filled (fill_values_on_device).
  void fill_values_on_device(DaspDeviceIndex index, const DeviceCsrView<Value>& view,
                             const DaspParameters& parameters) {
    device_layout_ = std::make_unique<DeviceLayout<Value>>(std::move(index));
    phases_.lap("allocate_values");
    fill_values_on_device(view, parameters);
  }

  /// build=device: the values filled from the view's columns and values into the allocated
  /// layout (fill_layout_values), then the kernel chosen and the statistics written
  /// (finish_device_build).
  void fill_values_on_device(const DeviceCsrView<Value>& view, const DaspParameters& parameters) {
    fill_layout_values(view);
    measure_long_columns(view, parameters);
    finish_device_build(parameters, view.cols);
  }
  /// row_order=auto's measure where it is considered (internal_row_order_considered) and the
  /// layout has long rows (without, the share is 0): the share of the nonzeros in the columns of
  /// long rows, from the CSR on the GPU while the plan has it.
  void measure_long_columns(const DeviceCsrView<Value>& view, const DaspParameters& parameters) {
    if (!internal_row_order_considered(parameters, view.rows, view.cols, view.nnz) ||
        device_layout_->index().info.counts.rows_long == 0)
      return;
    const int max_medium = device_layout_->index().info.counts.max_medium_row_length;
    long_column_share_ =
        static_cast<double>(count_long_column_nonzeros(view.row_ptr, view.col_idx, view.nnz,
                                                       max_medium, nullptr)) /
        static_cast<double>(view.nnz);
    stats_.details["long_column_share"] = long_column_share_;
    phases_.lap("long_columns");
  }
  void fill_layout_values(const DeviceCsrView<Value>& view) {
    device_layout_->fill_values(
        {view.row_ptr, view.col_idx, reinterpret_cast<const V*>(view.values)}, stats_);
    phases_.lap("device_fill");
  }
  /// PlanStats: device_preprocess_ms the checks, the index build, the allocation, the fill and
  /// the release of an uploaded CSR (GPU work and the few downloads between the steps, wall
  /// clock, in part beside the upload), upload_ms the CSR's upload; details.plan_phases_ms the
  /// parts.
  void finish_device_build(const DaspParameters& parameters, std::int64_t cols) {
    stats_.device_preprocess_ms = 0.0;
    for (const auto& [name, ms] : phases_.laps())
      if (!name.ends_with("upload") && !name.ends_with("upload_wait"))
        stats_.device_preprocess_ms += ms;
    finish(parameters, cols, device_layout_->index().info);
  }

  // build=host: with the device fill and "upload=overlapped", the CSR goes up on a worker thread
  // (BackgroundCsrUpload, kDaspOverlappedUploadCopyShare of the threads copying into the staging
  // ring) while the other threads build the index arrays, which need only row_ptr; then the index
  // arrays go up, the CSR is waited for, and the GPU fills the values. PlanStats:
  // host_preprocess_ms the index build, upload_ms the CSR upload (the worker's own time,
  // overlapped or not) plus the index arrays', device_preprocess_ms the fill;
  // details.plan_phases_ms the parts.
  void build_on_host(const CsrMatrix<Value, std::int32_t>& matrix,
                     const DaspParameters& parameters) {
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
    overlapped_ = overlap;
    const DaspLayout<Value> layout = [&] {
      const detail::OmpThreadLimitScope limit(build_threads);
      return build_dasp_layout(
          matrix, parameters, std::nullopt,
          parameters.fill_on_device ? DaspFill::index_only : DaspFill::values, &phases_);
    }();
    stats_.host_preprocess_ms = host_time.elapsed_ms();
    phases_.skip();
    if (nnz_ > 0) {
      const detail::Stopwatch upload;
      device_layout_ = std::make_unique<DeviceLayout<Value>>(
          upload_index(layout), parameters.fill_on_device ? nullptr : &layout);
      if (!parameters.fill_on_device) device_layout_->keep_row_offsets(matrix.row_ptr);
      stats_.upload_ms = upload.elapsed_ms();
      phases_.lap("index_upload");
      if (parameters.fill_on_device) {
        std::optional<detail::DeviceCsr<Value>> csr;
        if (csr_upload) {
          double upload_ms = 0.0, waited_ms = 0.0;
          csr.emplace(csr_upload->get(upload_ms, waited_ms));
          stats_.upload_ms += upload_ms;
          stats_.details["csr_upload_ms"] = upload_ms;
          stats_.details["csr_upload_waited_ms"] = waited_ms;
          phases_.lap("csr_upload_wait");
        } else {
          const double before = stats_.upload_ms;
          csr.emplace(detail::upload_csr(matrix, stats_));
          stats_.details["csr_upload_ms"] = stats_.upload_ms - before;
          phases_.lap("csr_upload");
        }
        device_layout_->fill_values({csr->row_ptr.data(), csr->col_idx.data(),
                                     reinterpret_cast<const V*>(csr->values.data())},
                                    stats_);
        phases_.lap("device_fill");
      }
    }
    finish(parameters, matrix.cols, layout);
  }

  /// The plan's row order (row_order=plan), the kernel and the statistics, from the built layout.
  void finish(const DaspParameters& parameters, std::int64_t cols, const DaspLayoutInfo& info) {
    // a matrix without nonzeros has only empty rows, in the caller's order: nothing to reorder
    const bool internal =
        internal_row_order_pays(parameters, rows_, cols, nnz_, long_column_share_);
    const bool internal_y =
        !internal &&
        internal_y_row_order_pays(parameters, static_cast<int>(sizeof(Value)), rows_,
                                  info.counts.rows_medium, info.counts.medium_row_window,
                                  info.rowblocks_per_unit());
    if (device_layout_ && (parameters.plan_row_order || internal || internal_y)) {
      const detail::Stopwatch stopwatch;
      plan_to_caller_ = detail::DeviceBuffer<std::int32_t>(static_cast<std::size_t>(rows_));
      caller_to_plan_ = detail::DeviceBuffer<std::int32_t>(static_cast<std::size_t>(rows_));
      plan_row_order_on_device(device_layout_->index(), plan_to_caller_.data(),
                               caller_to_plan_.data(), nullptr);
      // P A P^T for a square matrix; a rectangular one, and internal_y, keep x (the columns) in
      // the caller's order
      device_layout_->to_plan_order(caller_to_plan_.data(), rows_ == cols && !internal_y, stats_);
      stats_.device_preprocess_ms += stopwatch.elapsed_ms();
      stats_.device_bytes += plan_to_caller_.bytes() + caller_to_plan_.bytes();
      if (internal) {  // the plan's own x (square matrices) and y
        plan_y_ = detail::DeviceBuffer<Value>(static_cast<std::size_t>(rows_));
        if (rows_ == cols) plan_x_ = detail::DeviceBuffer<Value>(static_cast<std::size_t>(rows_));
        stats_.device_bytes += plan_y_.bytes() + plan_x_.bytes();
      }
      if (internal_y) {  // the plan's y: the rows with values, which lead the plan's order
        rows_with_values_ = rows_ - info.counts.rows_empty;
        plan_y_ = detail::DeviceBuffer<Value>(static_cast<std::size_t>(rows_with_values_));
        stats_.device_bytes += plan_y_.bytes();
      }
      phases_.lap("plan_row_order");
    }
    if (device_layout_) stats_.device_bytes += device_layout_->bytes();

    const DaspLoopShape loop = resolve_loop_shape(
        parameters, nnz_, cols * static_cast<std::int64_t>(sizeof(Value)),
        std::is_same_v<Value, double>,
        is_dense_long_rows_layout(parameters, info.counts.max_medium_row_length),
        long_rows_are_critical(info.counts, info.shape, static_cast<int>(sizeof(Value)),
                               plan_to_caller_.size() == 0));
    const device::KernelParts parts =
        kernel_parts(info.shape.rows == 8, info.counts, parameters.kernel_parts_all);
    kernel_ = pick_kernel<V>(info.rowblocks_per_unit(), loop.blocks_in_flight,
                             loop.pipelined_loads, info.shape.column_major, parts);
    const bool staged_short_y = stage_short_y(parameters, parts, info.counts, info.shape, rows_);
    if (device_layout_) device_layout_->stage_short_y(staged_short_y);
    warps_ = info.counts.warps();
    if (warps_ > std::int64_t{0x7fffffff} - device::kWarpsPerBlock)
      throw IndexOverflowError("DASP: " + std::to_string(warps_) +
                               " warps do not fit one launch's 32-bit warp index");
    if (rows_with_values_ > 0) {  // internal_y: the launch ends where the empty rows' warps begin
      arguments_with_values_ = device_layout_->arguments();
      int(&end)[7] = arguments_with_values_.warp_end;
      end[device::kEmpty] = end[device::kSingle1];
      warps_with_values_ = end[device::kSingle1];
    }
    const DaspCounts& c = info.counts;
    stats_.stored_values = c.stored_values();
    stats_.padding_ratio = c.padding_ratio();
    Json extra = std::move(stats_.details);
    stats_.details = layout_statistics(c, info.shape, parameters);
    for (auto& [key, value] : extra.items()) stats_.details[key] = value;
    stats_.details["build"] = parameters.build_on_device && nnz_ > 0 ? "device" : "host";
    stats_.details["fill"] = parameters.fill_on_device ? "device" : "host";
    stats_.details["row_order"] = rows_with_values_ > 0          ? "internal_y"
                                  : plan_y_.size() > 0         ? "internal"
                                  : plan_to_caller_.size() > 0 ? "plan"
                                                               : "caller";
    if (!parameters.build_on_device)
      stats_.details["upload"] = overlapped_ ? "overlapped" : "after";
    const double preprocess_ms = stats_.host_preprocess_ms + stats_.device_preprocess_ms;
    stats_.details["preprocess_nnz_per_s"] =
        preprocess_ms > 0 ? static_cast<double>(nnz_) / (preprocess_ms * 1e-3) : 0.0;
    stats_.details["threads_per_block"] = device::kThreadsPerBlock;
    stats_.details["blocks_in_flight"] = loop.blocks_in_flight;
    stats_.details["pipelined_loads"] = loop.pipelined_loads ? 1 : 0;
    stats_.details["kernel_parts"] = kernel_parts_name(parts);
    stats_.details["short_y"] = staged_short_y ? "staged" : "direct";
    phases_.lap("statistics");
    Json laps = Json::object();
    for (const auto& [name, ms] : phases_.laps()) laps[name] = ms;
    stats_.details["plan_phases_ms"] = std::move(laps);
  }

  std::int64_t rows_ = 0, nnz_ = 0;
  bool overlapped_ = false;  // build=host: the CSR went up beside the index build
  double long_column_share_ = 0.0;  // measure_long_columns (0: not measured)
  detail::PhaseTimes phases_;
  std::unique_ptr<DeviceLayout<Value>> device_layout_;  // null when nnz_ == 0
  detail::DeviceBuffer<std::int32_t> plan_to_caller_, caller_to_plan_;  // "row_order=plan"
  // "row_order=internal": the plan's x (square matrices) and y, written by the (const) apply;
  // "row_order=internal_y": its y of the rows with values
  mutable detail::DeviceBuffer<Value> plan_x_, plan_y_;
  // internal_y: the rows with values (> 0 only there), and the launch without the empty rows
  std::int64_t rows_with_values_ = 0;
  device::Arguments<V> arguments_with_values_{};
  std::int64_t warps_with_values_ = 0;
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

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters) {
  return std::make_unique<DaspSpmv<Value>>(matrix, dasp_parameters(parameters));
}

namespace testing {

template <typename Value>
const DaspSpmv<Value>& dasp_method_of(const detail::SpmvMethod<Value>& method) {
  const auto* dasp = dynamic_cast<const DaspSpmv<Value>*>(&method);
  if (!dasp) throw Error("DASP testing access: not a DASP method");
  return *dasp;
}

template <typename Value>
DaspValueArrays<Value> download_value_arrays(const detail::SpmvMethod<Value>& method) {
  const DaspSpmv<Value>& dasp = dasp_method_of(method);
  if (!dasp.device_layout()) return {};  // no nonzeros, nothing uploaded
  return dasp.device_layout()->download_values();
}

template <typename Value>
DaspLayout<Value> download_index_arrays(const detail::SpmvMethod<Value>& method) {
  const DaspSpmv<Value>& dasp = dasp_method_of(method);
  if (!dasp.device_layout()) return {};
  return download_index<Value>(dasp.device_layout()->index());
}

#define TCSPARSE_DASP_TESTING_INSTANTIATE(Value)                                                   \
  template DaspValueArrays<Value> download_value_arrays(const detail::SpmvMethod<Value>&);        \
  template DaspLayout<Value> download_index_arrays(const detail::SpmvMethod<Value>&);
TCSPARSE_DASP_TESTING_INSTANTIATE(double)
TCSPARSE_DASP_TESTING_INSTANTIATE(half)
TCSPARSE_DASP_TESTING_INSTANTIATE(bfloat16)
#undef TCSPARSE_DASP_TESTING_INSTANTIATE

}  // namespace testing

#define TCSPARSE_DASP_INSTANTIATE(Value)                                                           \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(                                  \
      const CsrMatrix<Value, std::int32_t>&, const detail::ParameterValues&);                     \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(                      \
      const DeviceCsrView<Value>&, const detail::ParameterValues&);
TCSPARSE_DASP_INSTANTIATE(double)
TCSPARSE_DASP_INSTANTIATE(half)
TCSPARSE_DASP_INSTANTIATE(bfloat16)
#undef TCSPARSE_DASP_INSTANTIATE

}  // namespace tcsparse::dasp
