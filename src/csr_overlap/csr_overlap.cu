// CSR-Partial-Overlap (Electronics 2023) behind the SpmvMethod interface: the caller's CSR
// uploaded as it is, or from a DeviceCsrView borrowed (read in place at every apply) or copied
// device to device (device_csr), the batch table built on the GPU (csr_overlap_kernels.cuh, the
// same table csr_overlap_format.cpp builds on the host), then per apply the batch kernel and,
// when the matrix has rows longer than max_batch_size, the long-row kernel (and the combine
// kernel when a long row spans several pieces), all on the caller's stream. With
// partition=merge_path (or auto choosing it: a few long rows) the plan keeps merge-path tile
// starts instead of the table, and an apply runs the tile kernel and the fixup of cut rows
// (csr_overlap_merge_kernels.cuh). With partition=row_vectors (or auto choosing it: even rows)
// it keeps nothing but a launch shape, and an apply runs one row-vector kernel
// (csr_overlap_row_vector_kernels.cuh).
//
// Apply is asynchronous, allocates nothing and synchronises nothing. The long-row partial sums
// (and the merge tiles' carries) belong to the plan: one plan must not be applied on two streams
// at the same time.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "csr_overlap/csr_overlap.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_kernels.cuh"
#include "csr_overlap/csr_overlap_launch.cuh"
#include "csr_overlap/csr_overlap_merge_kernels.cuh"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "csr_overlap/csr_overlap_row_vector_kernels.cuh"
#include "arch/dependent_launch.cuh"
#include "arch/types.cuh"
#include "common/align.hpp"
#include "common/stopwatch.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap {

namespace {

using detail::CudaEvent;
using detail::DeviceBuffer;
using detail::download_one;

constexpr int kCombineThreads = 256;
/// merge_tile_starts_kernel and merge_fixup_kernel: a thread a tile, blocks of this many.
constexpr int kPerTileThreads = 256;

/// Whether a device array starts at a 16-byte boundary: it may be borrowed by the cp.async
/// copies (their 16-byte pieces start at multiples of kCopyAlignElements elements from the
/// array's start), and the long-row kernel reads it in 16-byte loads.
bool copy_aligned(const void* array) {
  return reinterpret_cast<std::uintptr_t>(array) % arch::kAsyncCopyChunkBytes == 0;
}

template <typename Value>
class CsrOverlapSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  static_assert(sizeof(V) == sizeof(Value));
  static_assert(std::is_same_v<Acc, scalar_t<Value>>);

 public:
  /// Checks what needs no matrix data (row count, shared memory); upload or take_from_device,
  /// then build, make the plan.
  CsrOverlapSpmv(std::int64_t rows, std::int64_t nnz, const CsrOverlapParameters& p)
      : parameters_(p), rule_(p.partition_rule()), nnz_(nnz) {
    if (rows > std::numeric_limits<std::int32_t>::max() - 2048)
      throw IndexOverflowError("csr_overlap: " + std::to_string(rows) +
                               " rows do not fit the kernels' 32-bit row loops");
    rows_ = rows;
    shape_.threads_per_block = p.threads_per_block;
    shape_.long_row_threads = p.long_row_threads_for(sizeof(V));
    shape_.batch_unit = p.batch_unit;
    shape_.vector_sizes = p.vector_size_rule();
    shape_.long_row_piece = p.long_row_piece;
    if (p.partition == Partition::rows) kernel_ = prepare_batch_kernel<V>(p, "csr_overlap");
  }

  /// The CSR as it is, from the host; values and columns allocated to a multiple of
  /// kCopyAlignElements (at least one), zeros after nnz, so that the rounded-up copies stay inside.
  void upload(const CsrMatrix<Value, std::int32_t>& matrix) {
    csr_ = detail::upload_csr(matrix, stats_, kCopyAlignElements);
    read_owned_csr();
  }

  /// From a checked view (no host round trip): its arrays themselves, or a device-to-device
  /// copy of them (device_csr, csr_overlap_parameters.hpp).
  void take_from_device(const DeviceCsrView<Value>& view) {
    if (borrows(view)) {
      matrix_ = {view.row_ptr, view.col_idx, reinterpret_cast<const V*>(view.values), view.nnz};
      borrowed_ = true;
      return;
    }
    csr_ = detail::copy_device_csr(view, stats_, kCopyAlignElements);
    read_owned_csr();
  }

  /// Builds the batch table on the GPU and chooses the launch; PlanStats::details are filled on
  /// the first call of stats() (fill_details), not here: a plan from device CSR must build fast,
  /// and its statistics need the row offsets on the host.
  /// partition=auto: the table's counting pass first, then merge-path tiles instead where it has
  /// few long rows (merge_path_suits), or row vectors where its rows are even (row_vectors_suit,
  /// from the longest row the totals carry); the table's arrays are made and filled (its scatter
  /// pass) only when the rows partition stays.
  /// `check`: a check of the device CSR in flight (a plan from device CSR), finished once the
  /// counting pass is launched (count_table_on_device), before its results are used.
  void build(detail::DeviceCsrCheck<Value>* check = nullptr) {
    std::optional<TableCount> table;
    if (parameters_.partition == Partition::rows)
      count_table_on_device(table.emplace(detail::build_side_stream()), check);
    if (check) check->finish();
    const bool automatic = parameters_.partition_automatic;
    const bool even_rows = automatic && row_vectors_suit(rows_, nnz_, longest_row_);
    if (parameters_.partition == Partition::merge_path ||
        (automatic && merge_path_suits(rows_, long_row_count_)) ||
        (even_rows && scattered_rows_suit_merge_tiles(rows_, nnz_, locality_))) {
      build_merge_tiles_on_device();
      return;
    }
    if (parameters_.partition == Partition::row_vectors || even_rows) {
      choose_row_vectors();
      return;
    }
    scatter_table_on_device(*table);
    const detail::Stopwatch host_work;
    choose_launch();
    stats_.stored_values = nnz_;
    stats_.padding_ratio = 0.0;
    stats_.host_preprocess_ms = host_work.elapsed_ms();
  }
  /// The named parameters as given, for PlanStats::details["parameters"].
  void set_parameter_values(const detail::ParameterValues& values) { parameter_values_ = values; }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    const auto* dx = reinterpret_cast<const V*>(x);
    auto* dy = reinterpret_cast<V*>(y);
    if (row_vector_kernel_) {
      row_vector_kernel_<<<row_vector_blocks_, kRowVectorThreads, 0, stream>>>(
          row_vector_arguments_, dx, dy, alpha, beta);
      TCSPARSE_CUDA_CHECK_LAUNCH();
      return;
    }
    if (merge_path_) {
      merge_kernel_<<<static_cast<unsigned>(merge_arguments_.tiles), kMergeTileThreads, 0,
                      stream>>>(merge_arguments_, dx, dy, alpha, beta);
      TCSPARSE_CUDA_CHECK_LAUNCH();
      if (merge_arguments_.tiles > 1) {
        const auto blocks =
            static_cast<unsigned>((merge_arguments_.tiles + kPerTileThreads - 1) / kPerTileThreads);
        TCSPARSE_CUDA_CHECK(arch::launch_dependent(fixup_dependent_, &device::merge_fixup_kernel<V>,
                                                   blocks, kPerTileThreads, stream,
                                                   merge_arguments_, dy, alpha, beta));
      }
      return;
    }
    if (shape_.launch.blocks > 0) {
      kernel_.kernel<<<static_cast<unsigned>(shape_.launch.blocks),
                       static_cast<unsigned>(kernel_.threads), kernel_.shared_bytes, stream>>>(
          batch_arguments_, dx, dy, alpha, beta);
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    if (long_arguments_.task_count > 0) {
      device::long_row_kernel<V><<<static_cast<unsigned>(shape_.long_row_blocks),
                                   static_cast<unsigned>(shape_.long_row_threads), 0, stream>>>(
          long_arguments_, dx, dy, alpha, beta);
      TCSPARSE_CUDA_CHECK_LAUNCH();
      if (long_arguments_.task_count > long_arguments_.long_count) {
        const auto blocks = static_cast<unsigned>(
            (long_arguments_.long_count + kCombineThreads - 1) / kCombineThreads);
        device::combine_long_rows_kernel<V><<<blocks, kCombineThreads, 0, stream>>>(
            long_arguments_, dy, alpha, beta);
        TCSPARSE_CUDA_CHECK_LAUNCH();
      }
    }
  }

  const PlanStats& stats() const override {
    std::call_once(details_once_, [this] { fill_details(); });
    return stats_;
  }

  /// Not for a plan that borrows the caller's arrays: their owner changes the values in place.
  bool can_update_values() const override { return !borrowed_; }

  std::string values_fixed_because() const override {
    return "the plan borrows the caller's device CSR (device_csr=borrow, or auto on 16-byte "
           "aligned arrays) and reads its values array at every apply: write the new values into "
           "that array, or build the plan with device_csr=copy to use update_values";
  }
  /// The values array is the caller's CSR order, so new values are one copy into it (the tail
  /// past nnz stays zero); the table depends on the row offsets only.
  void update_values(const Value* values, Stream stream) override {
    detail::replace_values_async(csr_, values, stream);
  }

  /// The table as the device holds it, with the launch shape (synchronous).
  testing::DeviceTable download() const {
    testing::DeviceTable out;
    out.shape = shape_;
    out.row_vectors = row_vector_shape_;
    if (row_vector_kernel_) return out;
    if (merge_path_) {
      out.merge_tile_starts.resize(static_cast<std::size_t>(merge_arguments_.tiles) + 1);
      TCSPARSE_CUDA_CHECK(cudaMemcpy(out.merge_tile_starts.data(), tile_starts_.data(),
                                     out.merge_tile_starts.size() * sizeof(MergeCoordinate),
                                     cudaMemcpyDeviceToHost));
      return out;
    }
    out.table.batches.resize(static_cast<std::size_t>(batch_arguments_.batch_count));
    if (!out.table.batches.empty())
      TCSPARSE_CUDA_CHECK(cudaMemcpy(out.table.batches.data(), batches_.data(),
                                     out.table.batches.size() * sizeof(BatchRange),
                                     cudaMemcpyDeviceToHost));
    out.table.long_rows.resize(static_cast<std::size_t>(long_arguments_.long_count));
    if (!out.table.long_rows.empty())
      TCSPARSE_CUDA_CHECK(cudaMemcpy(out.table.long_rows.data(), long_rows_.data(),
                                     out.table.long_rows.size() * sizeof(std::int32_t),
                                     cudaMemcpyDeviceToHost));
    out.table.long_task_ptr.resize(out.table.long_rows.size() + 1);
    TCSPARSE_CUDA_CHECK(cudaMemcpy(out.table.long_task_ptr.data(), long_task_ptr_.data(),
                                   out.table.long_task_ptr.size() * sizeof(std::int32_t),
                                   cudaMemcpyDeviceToHost));
    out.table.long_row_tasks.resize(static_cast<std::size_t>(long_arguments_.task_count));
    if (!out.table.long_row_tasks.empty())
      TCSPARSE_CUDA_CHECK(cudaMemcpy(out.table.long_row_tasks.data(), long_row_tasks_.data(),
                                     out.table.long_row_tasks.size() * sizeof(LongRowTask),
                                     cudaMemcpyDeviceToHost));
    return out;
  }

 private:
  /// PlanStats::details, on the first stats(): the partition's statistics (for the table from
  /// the table as the device holds it; partition=auto's reasons, the totals of the table's
  /// counting pass, where it ran), the launch, the parameters.
  void fill_details() const {
    if (row_vector_kernel_) {
      stats_.details =
          row_vector_statistics(rows_, nnz_, row_vector_shape_, longest_row_, locality_);
    } else if (merge_path_) {
      stats_.details = merge_path_statistics(rows_, nnz_, parameters_, long_row_count_, locality_);
    } else {
      fill_table_details();
    }
    stats_.details["parameters"] = parameter_values_.to_json();
    stats_.details["device_csr"] = borrowed_ ? "borrowed" : "owned";
  }

  void fill_table_details() const {
    const testing::DeviceTable table = download();
    stats_.details = table_statistics(download_row_ptr(), table.table, parameters_);
    stats_.details["threads_per_block"] = shape_.threads_per_block;
    stats_.details["blocks"] = shape_.launch.blocks;
    stats_.details["batches_per_block"] = shape_.launch.batches_per_block;
    stats_.details["warps_per_block"] = shape_.launch.warps_per_block;
    stats_.details["blocks_per_sm"] = kernel_.blocks_per_sm;
    stats_.details["shared_memory_bytes"] = kernel_.shared_bytes;
    stats_.details["pipeline_stages"] = parameters_.pipeline_stages;
    stats_.details["long_row_blocks"] = shape_.long_row_blocks;
    stats_.details["long_row_chunk"] = shape_.long_row_chunk;
    stats_.details["long_row_threads"] = shape_.long_row_threads;
  }

  /// Where the kernels read the matrix: the plan's own arrays (padded).
  void read_owned_csr() {
    stats_.device_bytes += csr_.bytes();
    matrix_ = {csr_.row_ptr.data(), csr_.col_idx.data(),
               reinterpret_cast<const V*>(csr_.values.data()),
               static_cast<std::int64_t>(csr_.col_idx.size())};
  }

  /// device_csr: borrow `view`'s arrays, or copy them.
  bool borrows(const DeviceCsrView<Value>& view) const {
    // copy=direct and row vectors read exactly nnz elements with plain loads: any alignment
    const bool pieces = parameters_.copy == CopyMechanism::cp_async &&  // 16-byte cp.async pieces
                        parameters_.partition != Partition::row_vectors;
    const char* obstacle = nullptr;
    if (parameters_.copy == CopyMechanism::bulk)
      obstacle = "copy=bulk copies whole 16-byte pieces";
    else if (pieces && !copy_aligned(view.col_idx))
      obstacle = "DeviceCsrView::col_idx is not 16-byte aligned";
    else if (pieces && !copy_aligned(view.values))
      obstacle = "DeviceCsrView::values is not 16-byte aligned";
    switch (parameters_.device_csr) {
      case DeviceCsrUse::copy: return false;
      case DeviceCsrUse::automatic: return obstacle == nullptr;
      case DeviceCsrUse::borrow: break;
    }
    if (obstacle)
      throw ParameterError(std::string("method 'csr_overlap': parameter device_csr=borrow is not "
                                       "accepted: ") + obstacle + " (use device_csr=copy or auto)");
    return true;
  }

  /// The row offsets, wherever the kernels read them (synchronous; statistics only).
  std::vector<std::int32_t> download_row_ptr() const {
    std::vector<std::int32_t> row_ptr(static_cast<std::size_t>(rows_) + 1);
    TCSPARSE_CUDA_CHECK(cudaMemcpy(row_ptr.data(), matrix_.row_ptr,
                                   row_ptr.size() * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
    return row_ptr;
  }

  /// What the table's counting pass leaves for its scatter pass: the rows' kinds and the tiles'
  /// prefixes (temporaries of the build, on `stream`, in one allocation), the totals, and its
  /// events.
  struct TableCount {
    explicit TableCount(cudaStream_t on) : stream(on), temporaries(on) {}
    cudaStream_t stream;
    detail::TemporaryMemoryScope temporaries;  // before the temporaries: outlives them
    DeviceBuffer<std::byte> memory;            ///< the three arrays below
    std::int64_t tiles = 0;
    TableCounts* tile_counts = nullptr;  ///< tiles + 1: each tile's prefix, then the totals
    unsigned* tiles_done = nullptr;      ///< the counting pass's ticket, zeroed
    std::uint8_t* kinds = nullptr;       ///< tiles * kTableTilePositions
    TableCounts totals;
    CudaEvent start, counted;
  };

  device::TableInput table_input() const {
    return {matrix_.row_ptr, rows_, rule_, shape_.long_row_piece, matrix_.col_idx, nnz_};
  }

  /// The table's counting pass (classify_rows_kernel, whose last block scans the tiles' counts:
  /// csr_overlap_kernels.cuh) on the thread's side stream, beside `check` (borrowed arrays: it
  /// waits only for the arrays, check->arrays_ready()) or after everything on the legacy stream
  /// (the plan's own arrays, uploaded or copied there); then one wait for its totals, and one for
  /// the check, which is reported first.
  void count_table_on_device(TableCount& count, detail::DeviceCsrCheck<Value>* check) {
    const cudaStream_t stream = count.stream;
    if (check && borrowed_) {
      TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream, check->arrays_ready(), 0));
    } else {
      CudaEvent legacy_reached(cudaEventDisableTiming);
      legacy_reached.record(nullptr);
      TCSPARSE_CUDA_CHECK(cudaStreamWaitEvent(stream, legacy_reached.get(), 0));
    }
    // positions 0 .. rows (rows < 2^31 - 2048: the kernels' 32-bit positions fit)
    const std::int64_t tiles = rows_ / device::kTableTilePositions + 1;
    constexpr std::size_t kArrayAlignment = 256;
    const std::size_t done_at = detail::align_up(
        static_cast<std::size_t>(tiles + 1) * sizeof(TableCounts), kArrayAlignment);
    const std::size_t kinds_at = done_at + kArrayAlignment;
    count.memory = DeviceBuffer<std::byte>::on_stream(
        kinds_at + static_cast<std::size_t>(tiles * device::kTableTilePositions), stream);
    count.tiles = tiles;
    count.tile_counts = reinterpret_cast<TableCounts*>(count.memory.data());
    count.tiles_done = reinterpret_cast<unsigned*>(count.memory.data() + done_at);
    count.kinds = reinterpret_cast<std::uint8_t*>(count.memory.data() + kinds_at);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(count.tiles_done, 0, sizeof(unsigned), stream));
    count.start.record(stream);
    device::classify_rows_kernel<<<static_cast<unsigned>(tiles), device::kTableTileThreads, 0,
                                   stream>>>(table_input(), count.kinds, count.tile_counts,
                                             count.tiles_done);
    TCSPARSE_CUDA_CHECK_LAUNCH();
    count.counted.record(stream);
    count.totals = download_one(count.tile_counts + tiles, stream);
    if (check) check->finish();  // a bad matrix is reported before its totals are used
    longest_row_ = count.totals.longest_row;
    long_row_count_ = count.totals.long_rows;
    locality_ = {count.totals.locality_samples, count.totals.near_samples};
    stats_.device_preprocess_ms = count.counted.elapsed_ms_since(count.start);
  }

  /// The table's scatter pass into arrays of exactly the totals' sizes, then the kernels'
  /// arguments. The plan's arrays come from the pool (DeviceBuffer::from_pool, on the legacy
  /// stream, which runs the pass: `count`'s stream has finished): mapped already, where a
  /// cudaMalloc maps new pages. Waits for the pass: the table is ready with the plan, and `count`'s
  /// temporaries may go.
  void scatter_table_on_device(TableCount& count) {
    const cudaStream_t stream = nullptr;
    const auto elements = [](std::int64_t n) { return static_cast<std::size_t>(n); };
    const TableCounts& totals = count.totals;
    const TableCapacity sizes{totals.batches, totals.long_rows, totals.long_tasks};
    batches_ = DeviceBuffer<int2>::from_pool(elements(sizes.batches));
    long_rows_ = DeviceBuffer<std::int32_t>::from_pool(elements(sizes.long_rows));
    long_task_ptr_ = DeviceBuffer<std::int32_t>::from_pool(elements(sizes.long_rows + 1));
    long_row_tasks_ = DeviceBuffer<LongRowTask>::from_pool(elements(sizes.long_tasks));
    if (sizes.long_tasks > sizes.long_rows)
      long_partials_ = DeviceBuffer<Acc>::from_pool(elements(sizes.long_tasks));
    const device::TableArrays arrays{batches_.data(), long_rows_.data(), long_task_ptr_.data(),
                                     long_row_tasks_.data(), sizes};
    CudaEvent scattered;
    device::scatter_table_kernel<<<static_cast<unsigned>(count.tiles), device::kTableTileThreads,
                                   0, stream>>>(table_input(), count.kinds, count.tile_counts,
                                                arrays);
    TCSPARSE_CUDA_CHECK_LAUNCH();
    scattered.record(stream);
    scattered.synchronize();
    stats_.device_preprocess_ms = scattered.elapsed_ms_since(count.start);
    stats_.device_bytes += batches_.bytes() + long_rows_.bytes() + long_task_ptr_.bytes() +
                           long_row_tasks_.bytes() + long_partials_.bytes();

    batch_arguments_.row_ptr = matrix_.row_ptr;
    batch_arguments_.col_idx = matrix_.col_idx;
    batch_arguments_.values = matrix_.values;
    batch_arguments_.copy_limit = matrix_.copy_limit;
    batch_arguments_.batches = batches_.data();
    batch_arguments_.batch_count = static_cast<std::int32_t>(sizes.batches);
    set_stage_layout(batch_arguments_, parameters_);

    long_arguments_.col_idx = matrix_.col_idx;
    long_arguments_.values = matrix_.values;
    long_arguments_.long_rows = long_rows_.data();
    long_arguments_.long_task_ptr = long_task_ptr_.data();
    long_arguments_.tasks = long_row_tasks_.data();
    long_arguments_.long_count = static_cast<std::int32_t>(sizes.long_rows);
    long_arguments_.task_count = static_cast<std::int32_t>(sizes.long_tasks);
    long_arguments_.partials = long_partials_.data();
    long_arguments_.chunked_loads = device::kLongRowChunk<V> > 1 &&
                                    copy_aligned(matrix_.col_idx) && copy_aligned(matrix_.values);
    shape_.long_row_chunk = long_arguments_.chunked_loads ? device::kLongRowChunk<V> : 1;
  }

  using MergeKernel = void (*)(device::MergeArguments<V>, const V*, V*, Acc, Acc);

  /// The tile kernel built for kBlocks resident blocks an SM, its shared-memory carveout set (on
  /// the current device, at every merge-tile plan's build) to what they need, the rest of the
  /// SM's unified memory left to L1.
  template <int kBlocks>
  static MergeKernel merge_tile_kernel_with_carveout() {
    const MergeKernel kernel = &device::merge_tile_kernel<V, kMergeTileThreads, 5, kBlocks>;
    cudaFuncAttributes attributes{};
    TCSPARSE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const int shared_per_sm =
        current_device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    const int reserved_per_block =
        current_device_attribute(cudaDevAttrReservedSharedMemoryPerBlock);
    const std::int64_t needed =
        std::int64_t{kBlocks} * (attributes.sharedSizeBytes + reserved_per_block);
    const int percent = static_cast<int>(
        std::min<std::int64_t>(100, (100 * needed + shared_per_sm - 1) / shared_per_sm));
    TCSPARSE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    return kernel;
  }

  /// The merge-path tile kernel for merge_items and merge_blocks_per_sm (the schema's choices;
  /// 0: kDefaultMergeBlocksPerSm). merge_items=7 leaves the carveout to the driver.
  static MergeKernel merge_tile_kernel_for(std::int32_t items, std::int32_t blocks_per_sm) {
    if (items == 7) return &device::merge_tile_kernel<V, kMergeTileThreads, 7>;
    switch (blocks_per_sm > 0 ? blocks_per_sm : kDefaultMergeBlocksPerSm) {
      case 3: return merge_tile_kernel_with_carveout<3>();
      case 7: return merge_tile_kernel_with_carveout<7>();
      case 8: return merge_tile_kernel_with_carveout<8>();
      default: return merge_tile_kernel_with_carveout<5>();
    }
  }

  /// partition=merge_path (or auto choosing it after the table's counting pass): the tiles'
  /// starts on the merge path (one binary search a tile) and the arrays of the rows cut by tile
  /// boundaries; waits for the starts.
  void build_merge_tiles_on_device() {
    const cudaStream_t stream = nullptr;
    const std::int64_t tile_items = std::int64_t{kMergeTileThreads} * parameters_.merge_items;
    const std::int64_t tiles = merge_tiles(rows_, nnz_, tile_items);
    if (tiles > std::numeric_limits<std::int32_t>::max() / kMergeTileThreads)
      throw IndexOverflowError("csr_overlap: " + std::to_string(tiles) +
                               " merge-path tiles do not fit the kernels' 32-bit indices");
    const auto elements = [](std::int64_t count) { return static_cast<std::size_t>(count); };
    tile_starts_ = DeviceBuffer<MergeCoordinate>::from_pool(elements(tiles + 1));
    carry_out_ = DeviceBuffer<Acc>::from_pool(elements(tiles));
    head_partial_ = DeviceBuffer<Acc>::from_pool(elements(tiles));
    CudaEvent start, stop;
    start.record(stream);
    device::merge_tile_starts_kernel<<<static_cast<unsigned>((tiles + kPerTileThreads) /
                                                             kPerTileThreads),
                                       kPerTileThreads, 0, stream>>>(
        matrix_.row_ptr, static_cast<std::int32_t>(rows_), nnz_, tile_items,
        static_cast<std::int32_t>(tiles), tile_starts_.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    stop.record(stream);
    stop.synchronize();  // the build is synchronous: the tiles are ready when the plan is
    stats_.device_preprocess_ms += stop.elapsed_ms_since(start);
    stats_.device_bytes = csr_.bytes() + tile_starts_.bytes() + carry_out_.bytes() +
                          head_partial_.bytes();
    merge_arguments_ = {matrix_.row_ptr,
                        matrix_.col_idx,
                        matrix_.values,
                        static_cast<std::int32_t>(rows_),
                        static_cast<std::int32_t>(tiles),
                        static_cast<std::int32_t>(tile_items),
                        tile_starts_.data(),
                        carry_out_.data(),
                        head_partial_.data()};
    merge_path_ = true;
    merge_kernel_ = merge_tile_kernel_for(parameters_.merge_items, parameters_.merge_blocks_per_sm);
    cudaFuncAttributes fixup{};
    TCSPARSE_CUDA_CHECK(cudaFuncGetAttributes(&fixup, &device::merge_fixup_kernel<V>));
    fixup_dependent_ = runs_sm90_code(fixup);
    stats_.stored_values = nnz_;
    stats_.padding_ratio = 0.0;
  }

  /// partition=row_vectors (or auto choosing it): the shape and the grid, nothing on the GPU.
  void choose_row_vectors() {
    row_vector_shape_ = parameters_.row_vector_shape(rows_, nnz_, sizeof(V));
    row_vector_kernel_ = device::row_vector_kernel_for<V>(row_vector_shape_);
    const std::int64_t block_rows = device::row_vector_block_rows(row_vector_shape_);
    row_vector_blocks_ = static_cast<unsigned>((rows_ + block_rows - 1) / block_rows);
    row_vector_arguments_ = {matrix_.row_ptr, matrix_.col_idx, matrix_.values,
                             static_cast<std::int32_t>(rows_)};
    stats_.stored_values = nnz_;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = csr_.bytes();
  }

  /// One wave of resident blocks (paper §4.1.2: a multiple of the SM count), each taking a
  /// contiguous chunk of batches; or, with batches_per_block set, as many blocks as chunks.
  void choose_launch() {
    shape_.launch = kernel_.grid(batch_arguments_.batch_count, parameters_.batches_per_block);
    batch_arguments_.batches_per_block = static_cast<std::int32_t>(shape_.launch.batches_per_block);
    shape_.long_row_blocks = long_row_blocks(long_arguments_.task_count, kernel_.long_row_wave);
  }

  CsrOverlapParameters parameters_;
  PartitionRule rule_;
  KernelShape shape_;
  std::int64_t rows_ = 0;
  BatchKernelLaunch<V> kernel_;
  /// The arrays the kernels read: csr_'s, or the caller's (borrowed_).
  struct MatrixArrays {
    const std::int32_t* row_ptr = nullptr;
    const std::int32_t* col_idx = nullptr;
    const V* values = nullptr;
    std::int64_t copy_limit = 0;  ///< BatchArguments::copy_limit
  };
  std::int64_t nnz_ = 0;
  detail::DeviceCsr<Value> csr_;  ///< empty when borrowed_
  MatrixArrays matrix_;
  bool borrowed_ = false;
  DeviceBuffer<int2> batches_;
  DeviceBuffer<std::int32_t> long_rows_, long_task_ptr_;
  DeviceBuffer<LongRowTask> long_row_tasks_;
  DeviceBuffer<Acc> long_partials_;
  device::BatchArguments<V> batch_arguments_{};
  device::LongRowArguments<V> long_arguments_{};
  MergeKernel merge_kernel_ = nullptr;
  bool merge_path_ = false;  ///< the plan runs merge-path tiles (build_merge_tiles_on_device)
  /// The fixup kernel is a programmatic dependent launch (it runs sm_90 code: runs_sm90_code).
  bool fixup_dependent_ = false;
  DeviceBuffer<MergeCoordinate> tile_starts_;
  DeviceBuffer<Acc> carry_out_, head_partial_;
  device::MergeArguments<V> merge_arguments_{};
  /// partition=row_vectors (or auto choosing it): the kernel to launch (null otherwise).
  device::RowVectorKernel<V> row_vector_kernel_ = nullptr;
  RowVectorShape row_vector_shape_;
  unsigned row_vector_blocks_ = 0;
  device::RowVectorArguments<V> row_vector_arguments_{};
  /// The longest row, the long rows and the column-locality samples, from the totals of the
  /// table's counting pass (partition=auto asks them); -1 where it did not run.
  std::int64_t longest_row_ = -1;
  std::int64_t long_row_count_ = -1;
  ColumnLocality locality_{-1, 0};
  detail::ParameterValues parameter_values_;
  mutable std::once_flag details_once_;
  mutable PlanStats stats_;  ///< details filled on the first stats() (fill_details)
};

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters) {
  auto method = std::make_unique<CsrOverlapSpmv<Value>>(
      matrix.rows, matrix.nnz(),
      csr_overlap_parameters(parameters)
          .for_matrix(matrix.rows, matrix.nnz(), sizeof(scalar_t<Value>)));
  method->set_parameter_values(parameters);
  method->upload(matrix);
  method->build();
  return method;
}

/// The plan leaves the check of `matrix` to this factory (checks_device_csr_itself,
/// csr_overlap_method.cpp): it runs on the GPU while the host prepares the plan and launches the
/// table's counting pass (which reads row_ptr within its rows + 1 offsets and col_idx within
/// [0, nnz), and writes only its own temporaries), and its answer is read before anything that
/// pass made is.
template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters) {
  detail::DeviceCsrCheck<Value> check(matrix);
  try {
    auto method = std::make_unique<CsrOverlapSpmv<Value>>(
        matrix.rows, matrix.nnz,
        csr_overlap_parameters(parameters)
            .for_matrix(matrix.rows, matrix.nnz, sizeof(scalar_t<Value>)));
    method->set_parameter_values(parameters);
    method->take_from_device(matrix);
    method->build(&check);
    return method;
  } catch (...) {
    check.finish();  // a bad matrix is what to report
    throw;
  }
}

namespace testing {

template <typename Value>
DeviceTable download_table(const detail::SpmvMethod<Value>& method) {
  const auto* plan = dynamic_cast<const CsrOverlapSpmv<Value>*>(&method);
  if (!plan) throw Error("download_table: not a csr_overlap method");
  return plan->download();
}

template DeviceTable download_table(const detail::SpmvMethod<double>&);
template DeviceTable download_table(const detail::SpmvMethod<float>&);
template DeviceTable download_table(const detail::SpmvMethod<half>&);
template DeviceTable download_table(const detail::SpmvMethod<bfloat16>&);

}  // namespace testing

template std::unique_ptr<detail::SpmvMethod<double>> make_spmv(
    const CsrMatrix<double, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<float>> make_spmv(
    const CsrMatrix<float, std::int32_t>&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<half>> make_spmv(const CsrMatrix<half, std::int32_t>&,
                                                             const detail::ParameterValues&);
template std::unique_ptr<detail::SpmvMethod<bfloat16>> make_spmv(
    const CsrMatrix<bfloat16, std::int32_t>&, const detail::ParameterValues&);

#define TCSPARSE_CSR_OVERLAP_FROM_DEVICE(Value)                                         \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(           \
      const DeviceCsrView<Value>&, const detail::ParameterValues&);
TCSPARSE_CSR_OVERLAP_FROM_DEVICE(double)
TCSPARSE_CSR_OVERLAP_FROM_DEVICE(float)
TCSPARSE_CSR_OVERLAP_FROM_DEVICE(half)
TCSPARSE_CSR_OVERLAP_FROM_DEVICE(bfloat16)
#undef TCSPARSE_CSR_OVERLAP_FROM_DEVICE

}  // namespace tcsparse::csr_overlap
