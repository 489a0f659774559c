// CSR-Full-Overlap (Electronics 2023, §4.2, Algorithm 8) behind the SpmvMethod interface.
//
// Plan: the big-batch partition (csr_full_overlap_format.cpp), each big batch's batch table built
// on the host over its rebased rows (csr_overlap_format.cpp, the table csr_overlap builds on the
// GPU) and uploaded once, the host memory pinned (copied into a pinned slot image, or the
// caller's arrays registered), a device staging ring of `slots` slots, one internal stream a
// slot and the fork / join events.
//
// Apply, on the caller's stream: the fork event lets every internal stream start after what the
// caller enqueued; big batch k runs on stream k % slots in slot k % slots: its copy (one
// cudaMemcpyAsync of the slot image, or three from the registered arrays and a rebase of the row
// offsets), then the csr_overlap batch kernel (and the long-row kernels) on it writing
// y[begin_row, end_row). In-stream order makes the copy of big batch k + slots wait for the
// kernels of big batch k, which read the same slot; other streams' copies overlap them. With
// copy_order=in_order (the default) an event also makes each copy wait for the previous big
// batch's copy, so the copies hold the host-to-device link one at a time, in order:
//
//   link:      | copy 0 | copy 1 | copy 2 | copy 3 |
//   stream 0:  | copy 0 | kern 0 | copy 2 | kern 2 |
//   stream 1:           | copy 1 | kern 1 | copy 3 | kern 3 |
//
// and only the last big batch's kernels run after the transfer. Without the chain, a GPU with
// several copy engines runs the streams' copies side by side, sharing the link: they land
// together and their kernels all wait for the end of the transfer. The join
// events make the caller's stream wait for every internal stream. Nothing is allocated or
// synchronised: the apply can be captured in a CUDA graph. One plan must not be applied on two
// streams at the same time (the slots are the plan's).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "arch/types.cuh"
#include "common/stopwatch.hpp"
#include "csr_overlap/csr_full_overlap.hpp"
#include "csr_overlap/csr_full_overlap_decode.cuh"
#include "csr_overlap/csr_full_overlap_format.hpp"
#include "csr_overlap/csr_full_overlap_stream_image.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_kernels.cuh"
#include "csr_overlap/csr_overlap_launch.cuh"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap {
namespace {

using detail::CudaEvent;
using detail::CudaStream;
using detail::DeviceBuffer;
using detail::HostRegistration;
using detail::PinnedHostBuffer;

constexpr int kRebaseThreads = 256;
constexpr int kCombineThreads = 256;

/// Ints rounded up to whole kSlotAlignBytes (a decode area's arrays start aligned, as a slot's).
std::size_t align_to_slot(std::size_t ints) {
  return align_up(ints, kSlotAlignBytes / sizeof(std::int32_t));
}

/// row_ptr[i] -= base for i < count: the caller's row offsets of a big batch, copied into its
/// slot as they are (register mode), made relative to the big batch's first nonzero.
__global__ void rebase_row_ptr_kernel(std::int32_t* __restrict__ row_ptr, std::int64_t count,
                                      std::int32_t base) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < count; i += stride)
    row_ptr[i] -= base;
}

template <typename Value>
class CsrFullOverlapSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  static_assert(sizeof(V) == sizeof(Value));

  /// Everything one big batch's apply needs, fixed at plan time.
  struct BigBatchWork {
    BigBatch batch;
    StreamImage image;  ///< what its copy carries (the slot layout unless compact)
    int slot = 0;
    std::size_t host_image_offset = 0;  ///< copy mode: its image in pinned_
    device::DecodeArguments decode{};   ///< compact images: expanded before the batch kernel
    device::BatchArguments<V> batch_arguments{};
    device::LongRowArguments<V> long_arguments{};
    unsigned batch_blocks = 0, long_blocks = 0;
  };

 public:
  CsrFullOverlapSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const FullOverlapParameters& p,
                     Json parameters_json)
      : parameters_(p) {
    if (matrix.rows > std::numeric_limits<std::int32_t>::max() - 2048)
      throw IndexOverflowError("csr_full_overlap: " + std::to_string(matrix.rows) +
                               " rows do not fit the kernels' 32-bit row loops");
    kernel_ = prepare_batch_kernel<V>(p.batch, "csr_full_overlap");

    const detail::Stopwatch host_work;
    std::size_t free_bytes = 0, total_bytes = 0;
    TCSPARSE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    partition_ = partition_big_batches(matrix.row_ptr, sizeof(V), p, free_bytes);
    stream_format_ = resolved_stream_format(p);
    build_tables(matrix);
    pin_host_memory(matrix);
    stats_.host_preprocess_ms = host_work.elapsed_ms();

    allocate_device();
    for (int s = 0; s < partition_.slots; ++s) {
      streams_.emplace_back();
      joins_.emplace_back(cudaEventDisableTiming);
    }
    choose_launches();

    stats_.stored_values = 0;  // the matrix stays on the host
    stats_.padding_ratio = 0.0;
    stats_.details = partition_statistics(partition_, p);
    stats_.details["batches"] = table_batches_;
    stats_.details["long_rows"] = table_long_rows_;
    stats_.details["threads_per_block"] = p.batch.threads_per_block;
    stats_.details["long_row_threads"] = kernel_.long_row_threads;
    stats_.details["shared_memory_bytes"] = kernel_.shared_bytes;
    stats_.details["pinned_host_bytes"] = pinned_.bytes();
    stats_.details["streamed_bytes_per_apply"] = streamed_bytes_;
    stats_.details["csr_bytes_per_apply"] = csr_bytes_;
    stats_.details["compact_rows"] = compact_rows_;
    stats_.details["compact_columns"] = compact_columns_;
    stats_.details["parameters"] = std::move(parameters_json);
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    if (work_.empty()) return;
    const auto* dx = reinterpret_cast<const V*>(x);
    auto* dy = reinterpret_cast<V*>(y);
    TCSPARSE_CUDA_CHECK(cudaEventRecord(fork_.get(), stream));
    for (const CudaStream& internal : streams_)
      TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(internal.get(), fork_.get(), 0));
    const bool chain_copies =
        parameters_.copy_order == CopyOrder::in_order && streams_.size() > 1;
    bool first_copy = true;
    for (const BigBatchWork& work : work_) {
      const cudaStream_t internal = streams_[static_cast<std::size_t>(work.slot)].get();
      // copy_landed_ was last recorded after the previous big batch's copy: the wait binds to
      // that record (cudaStreamWaitEvent waits for the event's latest record when it is called)
      if (chain_copies && !first_copy)
        TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(internal, copy_landed_.get(), 0));
      copy_to_slot(work, internal);
      if (chain_copies) TCSPARSE_CUDA_CHECK(cudaEventRecord(copy_landed_.get(), internal));
      first_copy = false;
      rebase_row_offsets(work, internal);
      if (const unsigned blocks = work.decode.row_blocks + work.decode.column_blocks; blocks > 0) {
        device::decode_big_batch_kernel<<<blocks, device::kDecodeThreads, 0, internal>>>(
            work.decode);
        TCSPARSE_CUDA_CHECK_LAUNCH();
      }
      V* const y_rows = dy + work.batch.begin_row;
      if (work.batch_blocks > 0) {
        kernel_.kernel<<<work.batch_blocks, static_cast<unsigned>(kernel_.threads),
                         kernel_.shared_bytes, internal>>>(work.batch_arguments, dx, y_rows, alpha,
                                                           beta);
        TCSPARSE_CUDA_CHECK_LAUNCH();
      }
      const auto& long_arguments = work.long_arguments;
      if (long_arguments.task_count > 0) {
        device::long_row_kernel<V><<<work.long_blocks,
                                     static_cast<unsigned>(kernel_.long_row_threads), 0,
                                     internal>>>(long_arguments, dx, y_rows, alpha, beta);
        TCSPARSE_CUDA_CHECK_LAUNCH();
        if (long_arguments.task_count > long_arguments.long_count) {
          const auto blocks = static_cast<unsigned>(
              (long_arguments.long_count + kCombineThreads - 1) / kCombineThreads);
          device::combine_long_rows_kernel<V><<<blocks, kCombineThreads, 0, internal>>>(
              long_arguments, y_rows, alpha, beta);
          TCSPARSE_CUDA_CHECK_LAUNCH();
        }
      }
    }
    for (std::size_t s = 0; s < streams_.size(); ++s) {
      TCSPARSE_CUDA_CHECK(cudaEventRecord(joins_[s].get(), streams_[s].get()));
      TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream, joins_[s].get(), 0));
    }
  }

  const PlanStats& stats() const override { return stats_; }

 private:
  /// Each big batch's batch table over its rebased rows, concatenated.
  void build_tables(const CsrMatrix<Value, std::int32_t>& matrix) {
    const PartitionRule rule = parameters_.batch.partition_rule();
    for (std::size_t k = 0; k < partition_.batches.size(); ++k) {
      BigBatchWork work;
      work.batch = partition_.batches[k];
      work.slot = static_cast<int>(k % static_cast<std::size_t>(partition_.slots));
      const std::vector<std::int32_t> rebased = rebased_row_ptr(matrix.row_ptr, work.batch);
      const BatchTable table =
          build_batch_table(rebased, rule, parameters_.batch.long_row_piece);
      work.batch_arguments.batch_count = static_cast<std::int32_t>(table.batches.size());
      work.long_arguments.long_count = static_cast<std::int32_t>(table.long_rows.size());
      work.long_arguments.task_count = static_cast<std::int32_t>(table.long_tasks());
      // offsets into the concatenated tables, turned into pointers in allocate_device()
      table_offsets_.push_back({batches_host_.size(), long_rows_host_.size(),
                                long_task_ptr_host_.size(), long_row_tasks_host_.size(),
                                partial_count_});
      long_row_tasks_host_.insert(long_row_tasks_host_.end(), table.long_row_tasks.begin(),
                                  table.long_row_tasks.end());
      for (const BatchRange& b : table.batches) batches_host_.push_back(int2{b.begin_row, b.end_row});
      long_rows_host_.insert(long_rows_host_.end(), table.long_rows.begin(), table.long_rows.end());
      long_task_ptr_host_.insert(long_task_ptr_host_.end(), table.long_task_ptr.begin(),
                                 table.long_task_ptr.end());
      if (table.long_tasks() > static_cast<std::int64_t>(table.long_rows.size()))
        partial_count_ += static_cast<std::size_t>(table.long_tasks());
      table_batches_ += static_cast<std::int64_t>(table.batches.size());
      table_long_rows_ += static_cast<std::int64_t>(table.long_rows.size());
      work.image = stream_image(matrix.row_ptr, matrix.col_idx, work.batch, sizeof(V),
                                stream_format_);
      const std::size_t csr_bytes =
          static_cast<std::size_t>(work.batch.rows() + 1) * sizeof(std::int32_t) +
          static_cast<std::size_t>(work.batch.nnz()) * (sizeof(std::int32_t) + sizeof(V));
      csr_bytes_ += csr_bytes;
      streamed_bytes_ += stream_format_ == StreamFormat::compact ? work.image.bytes : csr_bytes;
      compact_rows_ += work.image.decodes_rows() ? 1 : 0;
      compact_columns_ += work.image.decodes_columns() ? 1 : 0;
      work_.push_back(work);
    }
  }

  /// copy: every big batch's slot image in one pinned buffer (row offsets rebased); register:
  /// the caller's three arrays registered (unless already pinned).
  void pin_host_memory(const CsrMatrix<Value, std::int32_t>& matrix) {
    if (parameters_.host_memory == HostMemoryMode::register_arrays) {
      host_row_ptr_ = matrix.row_ptr.data();
      host_col_idx_ = matrix.col_idx.data();
      host_values_ = reinterpret_cast<const V*>(matrix.values.data());
      register_arrays({{host_row_ptr_, matrix.row_ptr.size() * sizeof(std::int32_t)},
                      {host_col_idx_, matrix.col_idx.size() * sizeof(std::int32_t)},
                      {host_values_, matrix.values.size() * sizeof(V)}});
      return;
    }
    std::size_t total = 0;
    for (BigBatchWork& work : work_) {
      work.host_image_offset = total;
      total += work.image.bytes;
    }
    pinned_ = PinnedHostBuffer<std::byte>(total);
    for (const BigBatchWork& work : work_)
      write_stream_image(matrix, work.batch, work.image, pinned_.data() + work.host_image_offset);
  }

  /// Registers each array on exactly its own bytes. Not rounded out to whole pages: the rest of
  /// a first or last page belongs to other allocations, and a later cudaMemcpy of one of those
  /// that straddled the registered range would fail (cudaErrorInvalidValue). An array some other
  /// registration already covers (another plan on the same arrays) is used as it is; that
  /// registration must outlive this plan.
  void register_arrays(std::initializer_list<std::pair<const void*, std::size_t>> arrays) {
    for (const auto& [pointer, bytes] : arrays) {
      if (bytes == 0 || !pointer) continue;
      HostRegistration registration = HostRegistration::try_register(pointer, bytes);
      if (registration.registered()) {
        registrations_.push_back(std::move(registration));
        continue;
      }
      const auto* last = static_cast<const std::byte*>(pointer) + bytes - 1;
      if (!detail::is_pinned_host_memory(pointer) || !detail::is_pinned_host_memory(last))
        throw UnsupportedError(
            "csr_full_overlap: host_memory=register cannot register the caller's arrays (" +
            std::to_string(bytes) +
            " bytes; part of them is registered already, or the driver refused): use "
            "host_memory=copy");
    }
  }

  void allocate_device() {
    const detail::Stopwatch upload;
    slots_ = DeviceBuffer<std::byte>(static_cast<std::size_t>(partition_.slots) *
                                     partition_.slot_bytes);
    slots_.fill_bytes(0);  // the padding the batch kernel copies is never uninitialised
    batches_ = DeviceBuffer<int2>(batches_host_.size());
    if (!batches_host_.empty())
      detail::upload_bytes(batches_.data(), batches_host_.data(), batches_.bytes(),
                           detail::current_host_upload());
    long_rows_ = DeviceBuffer<std::int32_t>(long_rows_host_);
    long_task_ptr_ = DeviceBuffer<std::int32_t>(long_task_ptr_host_);
    long_row_tasks_ = DeviceBuffer<LongRowTask>(long_row_tasks_host_);
    partials_ = DeviceBuffer<Acc>(partial_count_);
    // a decode area a slot: int32 row offsets and columns of its largest compact big batch
    std::size_t decoded_rows = 0, decoded_columns = 0;
    for (const BigBatchWork& work : work_) {
      if (work.image.decodes_rows())
        decoded_rows = std::max(decoded_rows, static_cast<std::size_t>(work.batch.rows() + 1));
      if (work.image.decodes_columns())
        decoded_columns = std::max(decoded_columns, padded_elements(work.batch.nnz()));
    }
    decode_area_ints_ = align_to_slot(decoded_rows) + align_to_slot(decoded_columns);
    decoded_rows_ints_ = align_to_slot(decoded_rows);
    decode_ = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(partition_.slots) * decode_area_ints_);
    decode_.fill_bytes(0);  // the column padding the batch kernel copies is never uninitialised
    TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
    stats_.upload_ms += upload.elapsed_ms();
    stats_.device_bytes = slots_.bytes() + decode_.bytes() + batches_.bytes() + long_rows_.bytes() +
                          long_task_ptr_.bytes() + long_row_tasks_.bytes() + partials_.bytes();

    for (std::size_t k = 0; k < work_.size(); ++k) {
      BigBatchWork& work = work_[k];
      const TableOffsets& offsets = table_offsets_[k];
      std::byte* slot = slot_base(work);
      const StreamImage& image = work.image;
      std::int32_t* const decoded_row_ptr =
          decode_.data() + static_cast<std::size_t>(work.slot) * decode_area_ints_;
      std::int32_t* const decoded_col_idx = decoded_row_ptr + decoded_rows_ints_;
      const auto* row_ptr = image.decodes_rows()
                                ? decoded_row_ptr
                                : reinterpret_cast<const std::int32_t*>(slot + image.row_offset);
      const auto* col_idx = image.decodes_columns()
                                ? decoded_col_idx
                                : reinterpret_cast<const std::int32_t*>(slot + image.column_offset);
      const auto* values = reinterpret_cast<const V*>(slot + image.value_offset);
      device::DecodeArguments& d = work.decode;
      d.rows = work.batch.rows();
      d.nnz = static_cast<std::int32_t>(work.batch.nnz());
      if (image.decodes_rows()) {
        d.row_anchors = reinterpret_cast<const std::int32_t*>(slot + image.row_anchor_offset);
        d.row_lengths = slot + image.row_offset;
        d.row_length_bytes = image.rows == RowEncoding::lengths8 ? 1 : 2;
        d.row_ptr = decoded_row_ptr;
        d.row_blocks = static_cast<unsigned>(image.row_chunks(work.batch));
      }
      if (image.decodes_columns()) {
        d.column_bases = reinterpret_cast<const std::int32_t*>(slot + image.column_base_offset);
        d.column_offsets = reinterpret_cast<const std::uint16_t*>(slot + image.column_offset);
        d.col_idx = decoded_col_idx;
        d.column_blocks = static_cast<unsigned>(image.column_chunks(work.batch));
      }
      auto& a = work.batch_arguments;
      a.row_ptr = row_ptr;
      a.col_idx = col_idx;
      a.values = values;
      a.copy_limit = device::kPaddedArrays;  // each big batch's pieces are padded in its slot
      a.batches = batches_.data() + offsets.batches;
      set_stage_layout(a, parameters_.batch);
      auto& l = work.long_arguments;
      l.col_idx = col_idx;
      l.values = values;
      l.long_rows = long_rows_.data() + offsets.long_rows;
      l.long_task_ptr = long_task_ptr_.data() + offsets.long_task_ptr;
      l.tasks = long_row_tasks_.data() + offsets.long_row_tasks;
      l.partials = partials_.data() + offsets.partials;
    }
  }

  /// csr_overlap's launch rule, per big batch.
  void choose_launches() {
    for (BigBatchWork& work : work_) {
      const BatchLaunch launch =
          kernel_.grid(work.batch_arguments.batch_count, parameters_.batch.batches_per_block);
      work.batch_blocks = static_cast<unsigned>(launch.blocks);
      work.batch_arguments.batches_per_block = static_cast<std::int32_t>(launch.batches_per_block);
      work.long_blocks =
          static_cast<unsigned>(long_row_blocks(work.long_arguments.task_count,
                                                kernel_.long_row_wave));
    }
  }

  std::byte* slot_base(const BigBatchWork& work) const {
    return const_cast<std::byte*>(slots_.data()) +
           static_cast<std::size_t>(work.slot) * partition_.slot_bytes;
  }

  /// The big batch's CSR into its slot on `stream` (register mode: as the caller has it, then
  /// rebase_row_offsets).
  void copy_to_slot(const BigBatchWork& work, cudaStream_t stream) const {
    std::byte* slot = slot_base(work);
    const BigBatch& b = work.batch;
    if (parameters_.host_memory == HostMemoryMode::copy) {
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(slot, pinned_.data() + work.host_image_offset,
                                          work.image.bytes, cudaMemcpyHostToDevice, stream));
      return;
    }
    const auto row_count = static_cast<std::size_t>(b.rows() + 1);
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(slot + b.row_ptr_offset, host_row_ptr_ + b.begin_row,
                                        row_count * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                                        stream));
    if (b.nnz() > 0) {
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(slot + b.col_offset, host_col_idx_ + b.begin_nnz,
                                          static_cast<std::size_t>(b.nnz()) * sizeof(std::int32_t),
                                          cudaMemcpyHostToDevice, stream));
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(slot + b.value_offset, host_values_ + b.begin_nnz,
                                          static_cast<std::size_t>(b.nnz()) * sizeof(V),
                                          cudaMemcpyHostToDevice, stream));
    }
  }

  /// Register mode: the big batch's row offsets, copied as the caller has them, made relative to
  /// its first nonzero (the copy mode's slot image has them so already).
  void rebase_row_offsets(const BigBatchWork& work, cudaStream_t stream) const {
    const BigBatch& b = work.batch;
    if (parameters_.host_memory == HostMemoryMode::copy || b.begin_nnz == 0) return;
    const auto row_count = static_cast<std::size_t>(b.rows() + 1);
    const auto blocks = static_cast<unsigned>(
        std::min<std::size_t>((row_count + kRebaseThreads - 1) / kRebaseThreads, 1024));
    rebase_row_ptr_kernel<<<blocks, kRebaseThreads, 0, stream>>>(
        reinterpret_cast<std::int32_t*>(slot_base(work) + b.row_ptr_offset),
        static_cast<std::int64_t>(row_count), static_cast<std::int32_t>(b.begin_nnz));
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  struct TableOffsets {
    std::size_t batches, long_rows, long_task_ptr, long_row_tasks, partials;
  };

  FullOverlapParameters parameters_;
  BigBatchPartition partition_;
  std::vector<BigBatchWork> work_;
  std::vector<TableOffsets> table_offsets_;
  std::vector<int2> batches_host_;
  std::vector<std::int32_t> long_rows_host_, long_task_ptr_host_;
  std::vector<LongRowTask> long_row_tasks_host_;
  std::size_t partial_count_ = 0;
  std::int64_t table_batches_ = 0, table_long_rows_ = 0;
  std::size_t streamed_bytes_ = 0, csr_bytes_ = 0;
  StreamFormat stream_format_ = StreamFormat::csr;
  std::int64_t compact_rows_ = 0, compact_columns_ = 0;  ///< big batches decoding each

  // host memory (one of the two modes)
  PinnedHostBuffer<std::byte> pinned_;
  std::vector<HostRegistration> registrations_;
  const std::int32_t* host_row_ptr_ = nullptr;
  const std::int32_t* host_col_idx_ = nullptr;
  const V* host_values_ = nullptr;

  // device
  DeviceBuffer<std::byte> slots_;
  DeviceBuffer<std::int32_t> decode_;  ///< a decode area a slot: row offsets, then columns
  std::size_t decode_area_ints_ = 0, decoded_rows_ints_ = 0;
  DeviceBuffer<int2> batches_;
  DeviceBuffer<std::int32_t> long_rows_, long_task_ptr_;
  DeviceBuffer<LongRowTask> long_row_tasks_;
  DeviceBuffer<Acc> partials_;
  std::vector<CudaStream> streams_;
  CudaEvent fork_{cudaEventDisableTiming};
  CudaEvent copy_landed_{cudaEventDisableTiming};  ///< copy_order=in_order: the latest copy
  std::vector<CudaEvent> joins_;

  BatchKernelLaunch<V> kernel_;
  PlanStats stats_;
};

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_full_overlap_spmv(
    const CsrMatrix<Value, std::int32_t>& matrix, const detail::ParameterValues& parameters) {
  return std::make_unique<CsrFullOverlapSpmv<Value>>(
      matrix, full_overlap_parameters(parameters), parameters.to_json());
}

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters) {
  const FullOverlapParameters p = full_overlap_parameters(parameters);
  // register mode keeps pointers to the host arrays it was built from; here those are a
  // temporary download, freed when the factory returns
  if (p.host_memory == HostMemoryMode::register_arrays)
    throw UnsupportedError(
        "csr_full_overlap: host_memory=register streams the caller's host arrays, and a plan "
        "built from a DeviceCsrView has none (its host copy is temporary): use host_memory=copy");
  return std::make_unique<CsrFullOverlapSpmv<Value>>(detail::download_device_csr(matrix), p,
                                                     parameters.to_json());
}

template std::unique_ptr<detail::SpmvMethod<double>> make_full_overlap_spmv(
    const CsrMatrix<double, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<float>> make_full_overlap_spmv(
    const CsrMatrix<float, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<half>> make_full_overlap_spmv(
    const CsrMatrix<half, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<bfloat16>> make_full_overlap_spmv(
    const CsrMatrix<bfloat16, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<double>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<double>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<float>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<float>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<half>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<half>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<bfloat16>> make_full_overlap_spmv_from_device(
    const DeviceCsrView<bfloat16>&, const detail::ParameterValues&);

}  // namespace tcsparse::csr_overlap
