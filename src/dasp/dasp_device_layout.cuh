// A DASP layout on the device: every array of a host layout (dasp_format.hpp) uploaded once, the
// kernel arguments (dasp_kernels.cuh, Arguments) pointing into them, and the GPU fill of an
// index-only layout's value and column arrays from the CSR (dasp_fill.cuh).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <memory>
#include <vector>

#include "arch/types.cuh"
#include "dasp/dasp_fill.cuh"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_kernels.cuh"
#include "dasp/dasp_testing.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/host_upload.hpp"
#include "runtime/permute.hpp"

namespace tcsparse::dasp {

template <typename Value>
class DeviceLayout {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  template <typename T>
  using DeviceBuffer = detail::DeviceBuffer<T>;

 public:
  /// Uploads every array of `L` through one HostUploader (the library's upload path, by the
  /// plan's PlanOptions::host_upload, on the legacy stream); an index-only layout
  /// (DaspFill::index_only) gets uninitialised space for its values and columns, for fill_values.
  explicit DeviceLayout(const DaspLayout<Value>& L) {
    uploader_ = std::make_unique<detail::HostUploader>(detail::current_host_upload());
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
    short_row_ids_ = short_row_ids;
    index_counts_ = {L.long_tasks.size(), L.medium_row_ids.size(), L.short_row_ids.size(),
                     L.empty_row_ids.size()};
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[static_cast<std::size_t>(kind)];
      a.short_values[kind] = short_values ? short_values + part.value_offset : nullptr;
      a.short_cols[kind] = short_cols ? short_cols + part.value_offset : nullptr;
      a.short_row_ids[kind] = short_row_ids ? short_row_ids + part.row_offset : nullptr;
    }
    a.short_tile_order = L.short_tile_order.empty() ? nullptr : keep(upload(L.short_tile_order));
    a.empty_row_ids = keep(upload(L.empty_row_ids));
    // the copies and the tickets' memset run on the legacy stream: finish them before any
    // apply's stream
    uploader_->finish();
    uploader_.reset();

    const std::int64_t warps[] = {c.long_tasks,     c.medium_units,   c.short_tiles[0],
                                  c.short_tiles[1], c.short_tiles[2], c.short_tiles[3],
                                  c.empty_tiles};
    std::int64_t end = 0;
    for (int k = 0; k < 7; ++k) {
      end += warps[k];
      a.warp_end[k] = static_cast<int>(std::min<std::int64_t>(end, 0x7fffffff));
    }
  }

  /// Fills the value and column arrays of an index-only layout on the GPU (dasp_fill.cuh) from
  /// the CSR, uploaded for the purpose (detail::upload_csr or BackgroundCsrUpload); the fill
  /// kernels' time is stats.device_preprocess_ms.
  void fill_values(const DaspLayout<Value>& L, const detail::DeviceCsr<Value>& uploaded,
                   PlanStats& stats) {
    const device::CsrArrays<V> csr{uploaded.row_ptr.data(), uploaded.col_idx.data(),
                                   reinterpret_cast<const V*>(uploaded.values.data())};
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
    stats.device_preprocess_ms = stop.elapsed_ms_since(start);
  }

  /// Rewrites the uploaded (and filled) layout to the plan's row order, as remap_to_plan_order
  /// does on the host: row ids through caller_to_plan (device, rows entries) and, with
  /// `columns`, the stored columns too. Runs after fill_values (which reads the caller's row
  /// ids); its kernels' time is added to stats.device_preprocess_ms.
  void to_plan_order(const std::int32_t* caller_to_plan, bool columns, PlanStats& stats) {
    device::Arguments<V>& a = arguments_;
    auto remap = [&](const int* ids, std::size_t count, int stride = 1) {
      detail::remap_indices_async(const_cast<int*>(ids), static_cast<std::int64_t>(count), stride,
                                  caller_to_plan, nullptr);
    };
    detail::CudaEvent start, stop;
    start.record(nullptr);
    constexpr int kIntsPerLongTask = sizeof(int4) / sizeof(int);  // {row, begin, end, long row}
    remap(reinterpret_cast<const int*>(a.long_tasks), index_counts_[0], kIntsPerLongTask);
    remap(a.medium_row_ids, index_counts_[1]);
    remap(short_row_ids_, index_counts_[2]);
    remap(a.empty_row_ids, index_counts_[3]);
    if (columns) {
      remap(a.long_cols, sizes_[0]);
      remap(a.regular_cols, sizes_[1]);
      remap(a.irregular_cols, sizes_[2]);
      remap(short_cols_, sizes_[3]);
    }
    stop.record(nullptr);
    stop.synchronize();
    stats.device_preprocess_ms += stop.elapsed_ms_since(start);
  }

  const device::Arguments<V>& arguments() const { return arguments_; }
  /// Device memory the layout holds.
  std::size_t bytes() const { return bytes_; }

  /// The device value and column arrays, copied back (the DASP GPU tests).
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
  /// A device copy of `host`, enqueued on uploader_ (the host array must live until finish()).
  template <typename T>
  DeviceBuffer<T> upload(std::span<const T> host) {
    DeviceBuffer<T> device(host.size());
    uploader_->copy(device.data(), host.data(), host.size_bytes());
    return device;
  }
  template <typename T>
  DeviceBuffer<T> upload(const std::vector<T>& host) {
    return upload(std::span<const T>(host));
  }
  template <typename T>
  DeviceBuffer<T> upload(const HostArray<T>& host) {
    return upload(host.span());
  }

  template <typename T>
  const T* keep(DeviceBuffer<T> buffer) {
    bytes_ += buffer.bytes();
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

  device::Arguments<V> arguments_{};
  const V* short_values_ = nullptr;
  const int* short_cols_ = nullptr;
  const int* short_row_ids_ = nullptr;  // every kind's row ids, one array
  const int* long_group_ptr_ = nullptr;
  std::array<std::size_t, 4> sizes_{};  // long, regular, irregular, short values
  std::array<std::size_t, 4> index_counts_{};  // long tasks, medium, short, empty row ids
  std::size_t bytes_ = 0;
  std::vector<std::shared_ptr<void>> buffers_;  // the device arrays arguments_ points into
  // during the constructor only; last, so that it is destroyed first: where the constructor
  // throws, it waits for the copies in flight before the buffers they write are freed
  std::unique_ptr<detail::HostUploader> uploader_;
};

}  // namespace tcsparse::dasp
