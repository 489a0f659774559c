// DASP (SC'23) behind the SpmvMethod interface: the host layout (dasp_format.hpp) uploaded once,
// then one kernel launch per apply (dasp_kernels.cuh).
//
// Apply is asynchronous on the caller's stream and synchronises nothing. The long-row workspace
// (partial sums, tickets) belongs to the plan: one plan must not be applied on two streams at
// the same time (the same rule as a cuSPARSE external buffer).
#include <cuda_runtime_api.h>

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "arch/types.cuh"
#include "dasp/dasp.hpp"
#include "dasp/dasp_fill.cuh"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernels.cuh"
#include "dasp/dasp_testing.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

using detail::DeviceBuffer;


double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  return DeviceBuffer<T>(std::span<const T>(host));
}
template <typename T>
DeviceBuffer<T> upload(const HostArray<T>& host) {
  return DeviceBuffer<T>(host.span());
}

template <typename Value>
class DaspSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  using Kernel = void (*)(const device::Arguments<V>, const V*, V*, Acc, Acc);

 public:
  DaspSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const DaspParameters& parameters) {
    const bool fill_on_device = parameters.fill_on_device;
    const auto host_start = std::chrono::steady_clock::now();
    const DaspLayout<Value> layout = build_dasp_layout(
        matrix, parameters, std::nullopt,
        fill_on_device ? DaspFill::index_only : DaspFill::values);
    stats_.host_preprocess_ms = milliseconds_since(host_start);

    const auto upload_start = std::chrono::steady_clock::now();
    upload_layout(layout);
    if (fill_on_device) {
      fill_values_on_device(layout, matrix);  // uploads the CSR (upload_ms), then fills
    } else {
      stats_.upload_ms = milliseconds_since(upload_start);
    }
    const DaspLoopShape loop = resolve_loop_shape(
        parameters, matrix.nnz(),
        static_cast<std::int64_t>(matrix.cols) * static_cast<std::int64_t>(sizeof(Value)),
        std::is_same_v<Value, double>,
        is_dense_long_rows_layout(parameters, layout.counts.max_medium_row_length));
    kernel_ = pick_kernel(layout.rowblocks_per_unit(), loop.blocks_in_flight,
                          loop.pipelined_loads, layout.shape.column_major);
    warps_ = layout.counts.warps();
    if (warps_ > std::int64_t{0x7fffffff} - device::kWarpsPerBlock)
      throw IndexOverflowError("DASP: " + std::to_string(warps_) +
                               " warps do not fit one launch's 32-bit warp index");
    const DaspCounts& c = layout.counts;
    stats_.stored_values = c.stored_values();
    stats_.padding_ratio = c.padding_ratio();
    stats_.details = layout_statistics(c, layout.shape, parameters);
    stats_.details["fill"] = fill_on_device ? "device" : "host";
    stats_.details["host_preprocess_nnz_per_s"] =
        stats_.host_preprocess_ms > 0
            ? static_cast<double>(matrix.nnz()) / (stats_.host_preprocess_ms * 1e-3)
            : 0.0;
    stats_.details["threads_per_block"] = device::kThreadsPerBlock;
    stats_.details["blocks_in_flight"] = loop.blocks_in_flight;
    stats_.details["pipelined_loads"] = loop.pipelined_loads ? 1 : 0;
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (warps_ == 0) return;
    const auto blocks = static_cast<unsigned>((warps_ + device::kWarpsPerBlock - 1) /
                                              device::kWarpsPerBlock);
    kernel_<<<blocks, device::kThreadsPerBlock, 0, stream>>>(
        arguments_, reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y), static_cast<Acc>(alpha),
        static_cast<Acc>(beta));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  const PlanStats& stats() const override { return stats_; }

  /// The device value and column arrays, copied back (testing::download_value_arrays).
  testing::DaspValueArrays<Value> download_values() const {
    testing::DaspValueArrays<Value> out;
    auto get = [](const auto* pointer, std::size_t count, auto& to) {
      to.resize(count);
      if (count)
        TCSPARSE_CUDA_CHECK(cudaMemcpy(to.data(), pointer, count * sizeof(to[0]),
                                       cudaMemcpyDeviceToHost));
    };
    const auto* long_values = reinterpret_cast<const Value*>(arguments_.long_values);
    const auto* regular_values = reinterpret_cast<const Value*>(arguments_.regular_values);
    const auto* irregular_values = reinterpret_cast<const Value*>(arguments_.irregular_values);
    const auto* short_values = reinterpret_cast<const Value*>(short_values_);
    get(long_values, sizes_[0], out.long_values);
    get(arguments_.long_cols, sizes_[0], out.long_cols);
    get(regular_values, sizes_[1], out.regular_values);
    get(arguments_.regular_cols, sizes_[1], out.regular_cols);
    get(irregular_values, sizes_[2], out.irregular_values);
    get(arguments_.irregular_cols, sizes_[2], out.irregular_cols);
    get(short_values, sizes_[3], out.short_values);
    get(short_cols_, sizes_[3], out.short_cols);
    return out;
  }

 private:
  /// The kernel instantiation of a loop shape; fp64 blocks stored column-major get their own
  /// (the block order is a template argument, so that row-major blocks pay nothing for it).
  static Kernel pick_kernel(int rowblocks_per_unit, int in_flight, bool pipelined,
                            bool column_major) {
    if constexpr (device::Traits<V>::kBlockRows == 8) {
      if (column_major)
        return pick_kernel_of_order<true>(rowblocks_per_unit, in_flight, pipelined);
    }
    return pick_kernel_of_order<false>(rowblocks_per_unit, in_flight, pipelined);
  }

  template <bool kColumnMajor>
  static Kernel pick_kernel_of_order(int rowblocks_per_unit, int in_flight, bool pipelined) {
#define TCSPARSE_DASP_KERNEL(L, U)                                                    \
  if (rowblocks_per_unit == L && in_flight == U)                                      \
    return pipelined ? &device::dasp_spmv_kernel<V, L, U, true, kColumnMajor>         \
                     : &device::dasp_spmv_kernel<V, L, U, false, kColumnMajor>;
    TCSPARSE_DASP_KERNEL(1, 1)
    TCSPARSE_DASP_KERNEL(1, 2)
    TCSPARSE_DASP_KERNEL(1, 4)
    TCSPARSE_DASP_KERNEL(2, 1)
    TCSPARSE_DASP_KERNEL(2, 2)
    TCSPARSE_DASP_KERNEL(2, 4)
    if constexpr (device::Traits<V>::kBlockRows == 8) {
      TCSPARSE_DASP_KERNEL(4, 1)
      TCSPARSE_DASP_KERNEL(4, 2)
      TCSPARSE_DASP_KERNEL(4, 4)
    }
#undef TCSPARSE_DASP_KERNEL
    throw UnsupportedError("DASP: no kernel for " + std::to_string(rowblocks_per_unit) +
                           " row-blocks a warp and " + std::to_string(in_flight) +
                           " blocks in flight");
  }

  template <typename T>
  const T* keep(DeviceBuffer<T> buffer) {
    stats_.device_bytes += buffer.bytes();
    const T* pointer = buffer.data();
    buffers_.push_back(std::make_shared<DeviceBuffer<T>>(std::move(buffer)));
    return pointer;
  }
  template <typename T>
  const V* keep_values(const HostArray<T>& host) {
    return reinterpret_cast<const V*>(keep(upload(host)));
  }

  /// An array of `count` values: the host's copy, or (index-only layout) uninitialised device
  /// memory for fill_values_on_device.
  template <typename T>
  const T* values_or_space(const HostArray<T>& host, std::int64_t count) {
    if (host.size() == static_cast<std::size_t>(count)) return keep(upload(host));
    return keep(DeviceBuffer<T>(static_cast<std::size_t>(count)));
  }

  void upload_layout(const DaspLayout<Value>& L) {
    device::Arguments<V>& a = arguments_;
    const DaspCounts& c = L.counts;
    sizes_ = {static_cast<std::size_t>(c.stored_long),
              static_cast<std::size_t>(c.stored_medium_regular),
              static_cast<std::size_t>(c.nnz_medium_irregular),
              static_cast<std::size_t>(c.stored_short)};
    a.long_values = reinterpret_cast<const V*>(values_or_space(L.long_values, c.stored_long));
    a.long_cols = values_or_space(L.long_cols, c.stored_long);
    a.long_tasks = reinterpret_cast<const int4*>(keep(upload(L.long_tasks)));
    a.long_task_ptr = keep(upload(L.long_task_ptr));
    long_group_ptr_ = keep(upload(L.long_group_ptr));
    {
      DeviceBuffer<Acc> partials(L.long_tasks.size());
      DeviceBuffer<unsigned> tickets(L.long_row_ids.size());
      tickets.fill_bytes(0);
      a.long_partials = const_cast<Acc*>(keep(std::move(partials)));
      a.long_tickets = const_cast<unsigned*>(keep(std::move(tickets)));
    }
    a.medium_extra_pieces = reinterpret_cast<const int2*>(keep(upload(L.medium_extra_pieces)));
    {
      const auto split = static_cast<std::size_t>(L.medium_split_row_blocks);
      DeviceBuffer<Acc> partials(split * static_cast<std::size_t>(L.medium_max_pieces) *
                                 static_cast<std::size_t>(L.shape.rows));
      DeviceBuffer<unsigned> tickets(split);
      tickets.fill_bytes(0);
      a.medium_partials = const_cast<Acc*>(keep(std::move(partials)));
      a.medium_tickets = const_cast<unsigned*>(keep(std::move(tickets)));
    }
    a.medium_row_blocks = static_cast<int>(L.counts.row_blocks);
    a.medium_blocks_per_piece = L.medium_blocks_per_piece;
    a.medium_max_pieces = L.medium_max_pieces;
    a.medium_plain_units = static_cast<int>(L.medium_plain_units);
    a.regular_values =
        reinterpret_cast<const V*>(values_or_space(L.regular_values, c.stored_medium_regular));
    a.regular_cols = values_or_space(L.regular_cols, c.stored_medium_regular);
    a.rowblock_ptr = keep(upload(L.rowblock_ptr));
    a.medium_tail_widths = keep(upload(L.medium_tail_widths));
    a.medium_row_ids = keep(upload(L.medium_row_ids));
    a.irregular_ptr = keep(upload(L.irregular_ptr));
    a.irregular_values =
        reinterpret_cast<const V*>(values_or_space(L.irregular_values, c.nnz_medium_irregular));
    a.irregular_cols = values_or_space(L.irregular_cols, c.nnz_medium_irregular);
    const V* short_values = reinterpret_cast<const V*>(values_or_space(L.short_values, c.stored_short));
    const int* short_cols = values_or_space(L.short_cols, c.stored_short);
    short_values_ = short_values;
    short_cols_ = short_cols;
    const int* short_row_ids = keep(upload(L.short_row_ids));
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[static_cast<std::size_t>(kind)];
      a.short_values[kind] = short_values ? short_values + part.value_offset : nullptr;
      a.short_cols[kind] = short_cols ? short_cols + part.value_offset : nullptr;
      a.short_row_ids[kind] = short_row_ids ? short_row_ids + part.row_offset : nullptr;
    }
    a.short_tile_order = L.short_tile_order.empty() ? nullptr : keep(upload(L.short_tile_order));
    a.empty_row_ids = keep(upload(L.empty_row_ids));
    // the tickets' memset runs on the legacy stream: finish it before any apply's stream
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(nullptr));

    const std::int64_t warps[] = {c.long_tasks,     c.medium_units,   c.short_tiles[0],
                                  c.short_tiles[1], c.short_tiles[2], c.short_tiles[3],
                                  c.empty_tiles};
    std::int64_t end = 0;
    for (int k = 0; k < 7; ++k) {
      end += warps[k];
      a.warp_end[k] = static_cast<int>(std::min<std::int64_t>(end, 0x7fffffff));
    }
  }

  /// Uploads the CSR arrays (temporarily) and fills the value and column arrays of an
  /// index-only layout on the GPU (dasp_fill.cuh). upload_ms covers every copy,
  /// device_preprocess_ms the fill kernels.
  void fill_values_on_device(const DaspLayout<Value>& L, const CsrMatrix<Value, std::int32_t>& A) {
    const auto upload_start = std::chrono::steady_clock::now();
    const DeviceBuffer<int> row_ptr(A.row_ptr);
    const DeviceBuffer<int> col_idx(A.col_idx);
    const DeviceBuffer<Value> values(A.values);
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    stats_.upload_ms += milliseconds_since(upload_start);

    const device::CsrArrays<V> csr{row_ptr.data(), col_idx.data(),
                                   reinterpret_cast<const V*>(values.data())};
    auto warps_grid = [](std::int64_t warps) {
      return static_cast<unsigned>((warps + device::kWarpsPerBlock - 1) / device::kWarpsPerBlock);
    };
    const device::Arguments<V>& a = arguments_;
    const DaspCounts& c = L.counts;
    detail::CudaEvent start, stop;
    start.record(nullptr);
    if (c.long_tasks > 0)
      device::fill_long_kernel<V><<<warps_grid(c.long_tasks), device::kThreadsPerBlock>>>(
          csr, a.long_tasks, static_cast<int>(c.long_tasks), long_group_ptr_,
          const_cast<V*>(a.long_values), const_cast<int*>(a.long_cols));
    if (c.row_blocks > 0)
      device::fill_medium_kernel<V><<<warps_grid(c.row_blocks), device::kThreadsPerBlock>>>(
          csr, static_cast<int>(c.row_blocks), a.rowblock_ptr, a.medium_row_ids, a.irregular_ptr,
          const_cast<V*>(a.regular_values), const_cast<int*>(a.regular_cols),
          const_cast<V*>(a.irregular_values), const_cast<int*>(a.irregular_cols),
          L.shape.column_major);
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[static_cast<std::size_t>(kind)];
      if (part.tiles == 0) continue;
      device::fill_short_kernel<V><<<warps_grid(part.tiles), device::kThreadsPerBlock>>>(
          csr, kind, part.tiles, a.short_row_ids[kind], const_cast<V*>(a.short_values[kind]),
          const_cast<int*>(a.short_cols[kind]), L.shape.column_major);
    }
    TCSPARSE_CUDA_CHECK_LAUNCH();
    stop.record(nullptr);
    stop.synchronize();
    stats_.device_preprocess_ms = stop.elapsed_ms_since(start);
  }

  device::Arguments<V> arguments_{};
  const V* short_values_ = nullptr;
  const int* short_cols_ = nullptr;
  const int* long_group_ptr_ = nullptr;
  std::array<std::size_t, 4> sizes_{};
  Kernel kernel_ = nullptr;
  std::int64_t warps_ = 0;
  PlanStats stats_;
  std::vector<std::shared_ptr<void>> buffers_;  // the device arrays arguments_ points into
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
  return dasp->download_values();
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
