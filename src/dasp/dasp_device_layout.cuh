// A DASP layout on the device: its index arrays (built on the GPU or uploaded,
// dasp_device_build.hpp), its value and column arrays, the kernel arguments (dasp_kernels.cuh,
// Arguments) pointing into them, the GPU fill of the values from the CSR (dasp_fill.cuh), and a
// copy of the CSR's row offsets with which the same fill replaces the values later
// (SpmvPlan::update_values).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "arch/types.cuh"
#include "dasp/dasp_device_build.hpp"
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
  /// Takes a layout's index arrays (built on the GPU or uploaded: dasp_device_build.hpp) and
  /// allocates its value and column arrays: uninitialised for fill_values, or, given the host
  /// layout they came from with its values filled (DaspFill::values), uploaded from it through
  /// the plan's upload path. Allocates the long-row and split-row-block workspaces (zeroed
  /// tickets). Every array in one allocation.
  explicit DeviceLayout(DaspDeviceIndex index, const DaspLayout<Value>* host_values = nullptr)
      : index_(std::move(index)) {
    const DaspLayoutInfo& L = index_.info;
    const DaspCounts& c = L.counts;
    sizes_ = {static_cast<std::size_t>(c.stored_long),
              static_cast<std::size_t>(c.stored_medium_regular),
              static_cast<std::size_t>(c.nnz_medium_irregular),
              static_cast<std::size_t>(c.stored_short)};
    // one allocation for every array below (cudaMalloc costs tens of microseconds each)
    const auto split = static_cast<std::size_t>(L.medium_split_row_blocks);
    const std::size_t long_partials = index_.long_tasks.size();
    const std::size_t medium_partials = split * static_cast<std::size_t>(L.medium_max_pieces) *
                                        static_cast<std::size_t>(L.shape.rows);
    const std::size_t long_tickets = index_.long_row_ids.size(), medium_tickets = split;
    std::size_t bytes = 0;
    auto place = [&](std::size_t count, std::size_t element_bytes) {
      const std::size_t at = bytes;
      bytes += (count * element_bytes + kAlignment - 1) / kAlignment * kAlignment;
      return at;
    };
    std::array<std::size_t, 4> value_at{}, col_at{};
    for (std::size_t part = 0; part < sizes_.size(); ++part) {
      value_at[part] = place(sizes_[part], sizeof(V));
      col_at[part] = place(sizes_[part], sizeof(int));
    }
    const std::size_t long_partials_at = place(long_partials, sizeof(Acc));
    const std::size_t medium_partials_at = place(medium_partials, sizeof(Acc));
    const std::size_t tickets_at = bytes;  // the tickets last: one memset zeroes them
    const std::size_t long_tickets_at = place(long_tickets, sizeof(unsigned));
    const std::size_t medium_tickets_at = place(medium_tickets, sizeof(unsigned));
    // from the pool, not cudaMalloc: it is allocated beside the CSR's upload (see device_array)
    storage_ = DeviceBuffer<unsigned char>::from_pool(bytes);
    auto at = [&](std::size_t offset, std::size_t count) {
      return count ? storage_.data() + offset : nullptr;
    };
    for (std::size_t part = 0; part < sizes_.size(); ++part) {
      values_[part] = reinterpret_cast<V*>(at(value_at[part], sizes_[part]));
      cols_[part] = reinterpret_cast<int*>(at(col_at[part], sizes_[part]));
    }
    if (bytes > tickets_at)
      TCSPARSE_CUDA_CHECK(cudaMemset(storage_.data() + tickets_at, 0, bytes - tickets_at));
    if (host_values) upload_values(*host_values);  // on the legacy stream, after the memset
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));  // before any apply's stream

    device::Arguments<V>& a = arguments_;
    a.long_values = values_[kLong];
    a.long_cols = cols_[kLong];
    a.long_tasks = reinterpret_cast<const int4*>(index_.long_tasks.data());
    a.long_task_ptr = index_.long_task_ptr.data();
    a.long_partials = reinterpret_cast<Acc*>(at(long_partials_at, long_partials));
    a.long_tickets = reinterpret_cast<unsigned*>(at(long_tickets_at, long_tickets));
    a.medium_extra_pieces = reinterpret_cast<const int2*>(index_.medium_extra_pieces.data());
    a.medium_partials = reinterpret_cast<Acc*>(at(medium_partials_at, medium_partials));
    a.medium_tickets = reinterpret_cast<unsigned*>(at(medium_tickets_at, medium_tickets));
    a.medium_row_blocks = static_cast<int>(c.row_blocks);
    a.medium_blocks_per_piece = L.medium_blocks_per_piece;
    a.medium_max_pieces = L.medium_max_pieces;
    a.medium_plain_units = static_cast<int>(L.medium_plain_units);
    a.regular_values = values_[kRegular];
    a.regular_cols = cols_[kRegular];
    a.rowblock_ptr = index_.rowblock_ptr.data();
    a.medium_tail_widths = index_.medium_tail_widths.data();
    a.medium_row_ids = index_.medium_row_ids.data();
    a.irregular_ptr = index_.irregular_ptr.data();
    a.irregular_values = values_[kIrregular];
    a.irregular_cols = cols_[kIrregular];
    const V* short_values = values_[kShort];
    const int* short_cols = cols_[kShort];
    const int* short_row_ids = index_.short_row_ids.data();
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[static_cast<std::size_t>(kind)];
      a.short_values[kind] = short_values ? short_values + part.value_offset : nullptr;
      a.short_cols[kind] = short_cols ? short_cols + part.value_offset : nullptr;
      a.short_row_ids[kind] = short_row_ids ? short_row_ids + part.row_offset : nullptr;
    }
    a.short_tile_order =
        index_.short_tile_order.empty() ? nullptr : index_.short_tile_order.data();
    a.empty_row_ids = index_.empty_row_ids.data();
    const std::int64_t warps[] = {c.long_tasks,     c.medium_units,   c.short_tiles[0],
                                  c.short_tiles[1], c.short_tiles[2], c.short_tiles[3],
                                  c.empty_tiles};
    std::int64_t end = 0;
    for (int k = 0; k < 7; ++k) {
      end += warps[k];
      a.warp_end[k] = static_cast<int>(std::min<std::int64_t>(end, 0x7fffffff));
    }
  }

  /// Fills the value and column arrays on the GPU (dasp_fill.cuh) from the CSR the index was
  /// built for (device pointers: a plan's upload or the caller's DeviceCsrView) and keeps a copy
  /// of its row offsets (as keep_row_offsets), on the legacy stream, complete on return; the
  /// time is added to stats.device_preprocess_ms.
  void fill_values(const device::CsrArrays<V>& csr, PlanStats& stats) {
    detail::CudaEvent start, stop;
    start.record(nullptr);
    row_offsets_ = row_offsets_buffer();
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(row_offsets_.data(), csr.row_ptr, row_offsets_.bytes(),
                                        cudaMemcpyDeviceToDevice, nullptr));
    enqueue_fill(csr, nullptr);
    stop.record(nullptr);
    stop.synchronize();
    stats.device_preprocess_ms += stop.elapsed_ms_since(start);
  }

  /// Keeps a copy of the CSR's rows + 1 row offsets from the host, for replace_values, where
  /// fill_values (which keeps them) did not run: a host layout uploaded with its values.
  void keep_row_offsets(std::span<const std::int32_t> row_ptr) {
    if (row_ptr.size() != static_cast<std::size_t>(index_.info.rows) + 1)
      throw Error("DASP: the row offsets do not match the layout's rows (a layout bug)");
    row_offsets_ = row_offsets_buffer();
    row_offsets_.upload(row_ptr);
  }

  /// New values of the matrix the layout was built for (device, its CSR order) in place of the
  /// stored ones: the fill kernels again, without columns, on `stream`, asynchronous (no
  /// allocation, no synchronisation: capturable), from the row offsets fill_values or
  /// keep_row_offsets kept. `csr_row_of`: a layout in the plan's row order maps its row ids back
  /// to the CSR's rows through it (plan_to_caller), else null.
  void replace_values(const V* values, const std::int32_t* csr_row_of, cudaStream_t stream) {
    enqueue_fill({row_offsets_.data(), nullptr, values, csr_row_of}, stream);
  }

  /// Rewrites the filled layout to the plan's row order, as remap_to_plan_order does on the host:
  /// row ids through caller_to_plan (device, rows entries) and, with `columns`, the stored
  /// columns too. Runs after fill_values (which reads the caller's row ids); its kernels' time is
  /// added to stats.device_preprocess_ms.
  void to_plan_order(const std::int32_t* caller_to_plan, bool columns, PlanStats& stats) {
    auto remap = [&](int* ids, std::size_t count, int stride = 1) {
      detail::remap_indices_async(ids, static_cast<std::int64_t>(count), stride, caller_to_plan,
                                  nullptr);
    };
    detail::CudaEvent start, stop;
    start.record(nullptr);
    constexpr int kIntsPerLongTask = sizeof(int4) / sizeof(int);  // {row, begin, end, long row}
    remap(reinterpret_cast<int*>(index_.long_tasks.data()), index_.long_tasks.size(),
          kIntsPerLongTask);
    remap(index_.long_row_ids.data(), index_.long_row_ids.size());
    remap(index_.medium_row_ids.data(), index_.medium_row_ids.size());
    remap(index_.short_row_ids.data(), index_.short_row_ids.size());
    remap(index_.empty_row_ids.data(), index_.empty_row_ids.size());
    if (columns)
      for (std::size_t part = 0; part < sizes_.size(); ++part) remap(cols_[part], sizes_[part]);
    stop.record(nullptr);
    stop.synchronize();
    stats.device_preprocess_ms += stop.elapsed_ms_since(start);
  }

  const device::Arguments<V>& arguments() const { return arguments_; }
  /// Whether blocks of short tiles stage y in shared memory (the kernel's StagedShortY; only the
  /// short-rows-only kernel reads it).
  void stage_short_y(bool staged) { arguments_.stage_short_y = staged ? 1 : 0; }
  const DaspDeviceIndex& index() const { return index_; }
  /// Device memory the layout holds.
  std::size_t bytes() const { return index_.bytes() + storage_.bytes() + row_offsets_.bytes(); }

  /// The device value and column arrays, copied back (the DASP GPU tests).
  testing::DaspValueArrays<Value> download_values() const {
    testing::DaspValueArrays<Value> out;
    auto get = [](const void* device, std::size_t count, auto& to) {
      using T = typename std::remove_reference_t<decltype(to)>::value_type;
      to.resize(count);
      if (count)
        TCSPARSE_CUDA_CHECK(
            cudaMemcpy(to.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    };
    get(values_[kLong], sizes_[kLong], out.long_values);
    get(cols_[kLong], sizes_[kLong], out.long_cols);
    get(values_[kRegular], sizes_[kRegular], out.regular_values);
    get(cols_[kRegular], sizes_[kRegular], out.regular_cols);
    get(values_[kIrregular], sizes_[kIrregular], out.irregular_values);
    get(cols_[kIrregular], sizes_[kIrregular], out.irregular_cols);
    get(values_[kShort], sizes_[kShort], out.short_values);
    get(cols_[kShort], sizes_[kShort], out.short_cols);
    return out;
  }

 private:
  enum Part : std::size_t { kLong, kRegular, kIrregular, kShort };
  /// Room for the CSR's rows + 1 row offsets, from the pool as storage_ (a cudaMalloc would
  /// cost 0.1-0.15 ms of a plan build), but an allocation of its own: inside storage_ it left
  /// the pool holding more than kTemporaryMemoryKeptBetweenBuilds after a build.
  DeviceBuffer<std::int32_t> row_offsets_buffer() const {
    return DeviceBuffer<std::int32_t>::from_pool(static_cast<std::size_t>(index_.info.rows) + 1);
  }

  /// Alignment of each array in storage_ (a whole number of 128-byte lines; 16-byte vector loads).
  static constexpr std::size_t kAlignment = 256;

  /// The fill kernels of every category there is, on `stream` (values only where csr.col_idx is
  /// null).
  void enqueue_fill(const device::CsrArrays<V>& csr, cudaStream_t stream) {
    auto warps_grid = [](std::int64_t warps) {
      return static_cast<unsigned>((warps + device::kWarpsPerBlock - 1) / device::kWarpsPerBlock);
    };
    const device::Arguments<V>& a = arguments_;
    const DaspLayoutInfo& L = index_.info;
    const DaspCounts& c = L.counts;
    constexpr int kThreads = device::kThreadsPerBlock;
    if (c.long_tasks > 0)
      device::fill_long_kernel<V><<<warps_grid(c.long_tasks), kThreads, 0, stream>>>(
          csr, a.long_tasks, static_cast<int>(c.long_tasks), index_.long_group_ptr.data(),
          values_[kLong], cols_[kLong]);
    if (c.row_blocks > 0)
      device::fill_medium_kernel<V><<<warps_grid(c.row_blocks), kThreads, 0, stream>>>(
          csr, static_cast<int>(c.row_blocks), a.rowblock_ptr, a.medium_row_ids, a.irregular_ptr,
          values_[kRegular], cols_[kRegular], values_[kIrregular], cols_[kIrregular],
          L.shape.column_major);
    for (int kind = 0; kind < kDaspShortKinds; ++kind) {
      const DaspShortPart& part = L.short_parts[static_cast<std::size_t>(kind)];
      if (part.tiles == 0) continue;
      device::fill_short_kernel<V><<<warps_grid(part.tiles), kThreads, 0, stream>>>(
          csr, kind, part.tiles, a.short_row_ids[kind], const_cast<V*>(a.short_values[kind]),
          const_cast<int*>(a.short_cols[kind]), L.shape.column_major);
    }
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  /// The values and columns of a host layout built with them, through the plan's upload path.
  void upload_values(const DaspLayout<Value>& L) {
    const HostArray<Value>* values[] = {&L.long_values, &L.regular_values, &L.irregular_values,
                                        &L.short_values};
    const HostArray<std::int32_t>* cols[] = {&L.long_cols, &L.regular_cols, &L.irregular_cols,
                                             &L.short_cols};
    detail::HostUploader uploader(detail::current_host_upload());
    for (std::size_t part = 0; part < sizes_.size(); ++part) {
      if (values[part]->size() != sizes_[part] || cols[part]->size() != sizes_[part])
        throw Error("DASP: the host layout's values do not match its counts (a layout bug)");
      if (!sizes_[part]) continue;
      uploader.copy(values_[part], values[part]->data(), sizes_[part] * sizeof(Value));
      uploader.copy(cols_[part], cols[part]->data(), sizes_[part] * sizeof(std::int32_t));
    }
    uploader.finish();
  }

  DaspDeviceIndex index_;
  std::array<std::size_t, 4> sizes_{};  // long, regular, irregular, short values
  /// The value and column arrays, the partial sums and the tickets, carved out of storage_.
  DeviceBuffer<unsigned char> storage_;
  std::array<V*, 4> values_{};
  std::array<int*, 4> cols_{};
  DeviceBuffer<std::int32_t> row_offsets_;  ///< the CSR's row offsets (update_values)
  device::Arguments<V> arguments_{};
};

}  // namespace tcsparse::dasp
