// HBP preprocessing on the GPU (build=device; paper Algorithm 2, a thread a row): the five steps
// of src/hbp/README.md with the kernels of hbp_build_kernels.cuh and CUB's scans and stable radix
// sorts, giving exactly build_layout's arrays. Plan time only: the temporary storage lives in
// this function, from tcsparse's stream-ordered pool on the build's stream (freed there in
// order: a cudaFree would wait for the whole device; the pool keeps it for the next step and
// gives it back at the end), a few counts are downloaded (arrays are sized by them), the steps
// are timed by events, and the stream is synchronised at the end.
#include "hbp/hbp_device_build.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <limits>
#include <string>

#include "arch/types.cuh"
#include "common/for_each_value.hpp"
#include "hbp/hbp_build_kernels.cuh"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/stream_phases.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::hbp {
namespace {

using detail::DeviceBuffer;
using detail::DeviceScratch;
using detail::exclusive_sum;
using detail::inclusive_sum;
using detail::key_bits;
using detail::stable_sort_pairs;

/// Threads of the thread-a-row / thread-a-slot kernels.
constexpr int kBuildThreads = 256;
/// Threads (8 warps) of the warp-a-group layout kernel, and its largest grid (grid-stride).
constexpr int kLayOutThreads = 256;
constexpr std::int64_t kLayOutMaxBlocks = 1 << 16;
/// Largest grid of the warp-a-block hash kernel (one warp a thread block, grid-stride).
constexpr std::int64_t kHashMaxBlocks = 1 << 16;

unsigned grid_for(std::int64_t threads) {
  return static_cast<unsigned>((threads + kBuildThreads - 1) / kBuildThreads);
}

/// The grid of a warp-a-row kernel over `rows` rows (kBuildThreads / 32 rows a thread block).
unsigned grid_for_warps(std::int64_t rows) {
  constexpr std::int64_t warps = kBuildThreads / arch::kWarpSize;
  return static_cast<unsigned>((rows + warps - 1) / warps);
}

/// The grid of a row-tile kernel over `rows` rows (a warp 32 rows).
unsigned grid_for_row_tiles(std::int64_t rows) {
  return grid_for_warps((rows + arch::kWarpSize - 1) / arch::kWarpSize);
}

/// Largest grid of the warp-a-chunk kernels (grid-stride: they read the chunk count on the GPU).
constexpr std::int64_t kChunkMaxBlocks = 2048;

/// Allocates the arrays the layout keeps: from tcsparse's pool in order on the build's stream,
/// or one cudaMalloc each (DeviceBuffer::for_plan; HbpParameters::layout_memory).
struct LayoutArrays {
  bool from_pool = false;
  cudaStream_t stream = nullptr;

  template <typename T>
  DeviceBuffer<T> allocate(std::int64_t count) const {
    return DeviceBuffer<T>::for_plan(static_cast<std::size_t>(count), from_pool, stream);
  }
};

/// The grid of a warp-a-chunk kernel for at most `most_chunks` chunks.
unsigned grid_for_chunks(std::int64_t most_chunks) {
  return static_cast<unsigned>(std::min<std::int64_t>(grid_for_warps(most_chunks), kChunkMaxBlocks));
}

/// Step 3 (reorder=hash): every slot's home (a thread a slot), then the warp-a-block counting
/// sort of hash_order_kernel with its table's chains in shared memory (4 bytes a position).
void hash_order(const DeviceBuffer<std::int32_t>& block_slot_begin, std::int64_t blocks,
                const DeviceBuffer<std::int32_t>& slot_segment,
                const DeviceBuffer<std::int32_t>& seg_length, const NonlinearHash& hash,
                std::int64_t slots, DeviceBuffer<std::int32_t>& ordered, DeviceScratch& scratch) {
  const cudaStream_t stream = scratch.stream();
  const std::size_t shared_bytes = build::hash_table_bytes(hash.table_size);
  const auto optin = static_cast<std::size_t>(
      detail::current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  if (shared_bytes > optin)
    throw UnsupportedError("hbp: the hash table of " + std::to_string(hash.table_size) +
                           " positions needs " + std::to_string(shared_bytes) +
                           " bytes of shared memory to build on the GPU; this GPU allows " +
                           std::to_string(optin) + " (use smaller block_rows or build=host)");
  TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(build::hash_order_kernel,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(shared_bytes)));
  auto slot_home = DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(slots), stream);
  build::slot_homes_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
      slot_segment.data(), seg_length.data(), slots, hash, slot_home.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  const auto grid = static_cast<unsigned>(std::min(blocks, kHashMaxBlocks));
  build::hash_order_kernel<<<grid, arch::kWarpSize, shared_bytes, stream>>>(
      block_slot_begin.data(), blocks, slot_segment.data(), slot_home.data(), hash.table_size,
      ordered.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename Value>
DeviceLayout<Value> upload_layout(const HbpLayout<Value>& layout) {
  DeviceLayout<Value> d;
  d.rows = layout.rows;
  d.cols = layout.cols;
  d.nnz = layout.nnz;
  d.block_rows = layout.block_rows;
  d.block_cols = layout.block_cols;
  d.reorder = layout.reorder;
  d.warp_row_length = layout.warp_row_length;
  d.hash = layout.hash;
  d.blocks = layout.blocks();
  d.groups = layout.groups();
  d.slots = layout.slots();
  d.tasks = layout.tasks();
  d.partials = layout.partials();
  d.combine_row_count = layout.combine_row_count();
  d.block_col = DeviceBuffer<std::int32_t>(layout.block_col);
  d.block_row = DeviceBuffer<std::int32_t>(layout.block_row);
  d.block_group_begin = DeviceBuffer<std::int32_t>(layout.block_group_begin);
  d.group_slot_begin = DeviceBuffer<std::int32_t>(layout.group_slot_begin);
  d.group_col = DeviceBuffer<std::int32_t>(layout.group_col);
  d.begin_nnz = DeviceBuffer<std::int64_t>(layout.begin_nnz);
  d.col_add_sign = DeviceBuffer<std::uint32_t>(layout.col_add_sign);
  d.data = DeviceBuffer<Value>(layout.data);
  d.value_source = DeviceBuffer<std::int32_t>(layout.value_source);
  d.output_hash = DeviceBuffer<std::int32_t>(layout.output_hash);
  d.slot_last_round = DeviceBuffer<std::uint16_t>(layout.slot_last_round);
  d.combine_rows = DeviceBuffer<std::int32_t>(layout.combine_rows);
  d.combine_begin = DeviceBuffer<std::int32_t>(layout.combine_begin);
  d.combine_partials = DeviceBuffer<std::int32_t>(layout.combine_partials);
  d.task_block_begin = DeviceBuffer<std::int32_t>(layout.task_block_begin);
  d.task_col = DeviceBuffer<std::int32_t>(layout.task_col);
  d.task_shared_x = DeviceBuffer<std::int32_t>(layout.task_shared_x);
  return d;
}

template <typename Value>
HbpLayout<Value> download_layout(const DeviceLayout<Value>& d) {
  HbpLayout<Value> layout;
  layout.rows = d.rows;
  layout.cols = d.cols;
  layout.nnz = d.nnz;
  layout.block_rows = d.block_rows;
  layout.block_cols = d.block_cols;
  layout.reorder = d.reorder;
  layout.warp_row_length = d.warp_row_length;
  layout.hash = d.hash;
  layout.block_col = d.block_col.download();
  layout.block_row = d.block_row.download();
  layout.block_group_begin = d.block_group_begin.download();
  layout.group_slot_begin = d.group_slot_begin.download();
  layout.group_col = d.group_col.download();
  layout.begin_nnz = d.begin_nnz.download();
  layout.col_add_sign = d.col_add_sign.download();
  layout.data = d.data.download();
  layout.value_source = d.value_source.download();
  layout.output_hash = d.output_hash.download();
  layout.slot_last_round = d.slot_last_round.download();
  layout.combine_rows = d.combine_rows.download();
  layout.combine_begin = d.combine_begin.download();
  layout.combine_partials = d.combine_partials.download();
  layout.task_block_begin = d.task_block_begin.download();
  layout.task_col = d.task_col.download();
  layout.task_shared_x = d.task_shared_x.download();
  return layout;
}

namespace {

/// The steps of build_layout_on_device into `d` (its checks and its scope for the temporaries are
/// the caller's); returns the steps' times. The host waits three times for counts, each time
/// downloading every count the GPU has ready (SmallDownloads): the task count is started with the
/// blocks so that it comes with the groups'. Where x is one column block it waits twice: step 1
/// also counts the hash's histogram and the blocks, from which the tasks follow. Temporaries are
/// freed in stream order after their last use, so that later steps reuse their memory: the
/// pool's peak is mapped during the build and given back at its end.
template <typename Value>
std::vector<std::pair<std::string, double>> build_steps(const DeviceCsrView<Value>& csr,
                                                        const HbpParameters& p,
                                                        std::int32_t block_cols,
                                                        cudaStream_t stream,
                                                        DeviceLayout<Value>& d) {
  using V = arch::device_value_t<Value>;
  d.rows = csr.rows;
  d.cols = csr.cols;
  d.nnz = csr.nnz;
  const std::int64_t rows = csr.rows;
  const std::int64_t column_blocks = (csr.cols + block_cols - 1) / block_cols;
  d.block_rows = p.resolved_block_rows(rows, column_blocks);
  d.block_cols = block_cols;
  d.reorder = p.reorder;
  d.warp_row_length = p.warp_row_length;
  d.arrays_from_pool = p.layout_from_pool(
      estimated_build_temporary_bytes(rows, csr.nnz, column_blocks, p.max_slot_length),
      static_cast<std::int64_t>(detail::kSmallBuildTemporaryBytes));
  const LayoutArrays arrays{d.arrays_from_pool, stream};
  const std::int32_t* row_ptr = csr.row_ptr;
  const std::int32_t* col_idx = csr.col_idx;
  DeviceScratch scratch(stream);
  detail::StreamPhaseTimes phases(stream);
  detail::SmallDownloads counts(stream);

  // 1. A lane a short row, a warp a long one, a warp a chunk of a longer one: its segments and
  //    whether that is one, scanned over rows + 1 (the combine rows and their partial sums follow
  //    from both: build::RowSlotSums). The chunks are counted on the GPU only: their kernels
  //    read the count, and their arrays are sized by a bound on it.
  //    Where x is one column block a row's segments are its pieces of max_slot_length: a thread a
  //    row counts and writes them from row_ptr alone, and no row is chunked.
  const bool one_column_block = column_blocks <= 1;
  const auto row_entries = static_cast<std::size_t>(rows + 1);
  auto row_segments = DeviceBuffer<std::int32_t>::on_stream(row_entries, stream);
  auto single_rows = DeviceBuffer<std::int32_t>::on_stream(row_entries, stream);
  // a chunked row of L > kRowChunkLength nonzeros has ceil(L / kRowChunkLength) < 2 L /
  // kRowChunkLength chunks
  const std::int64_t most_chunks = one_column_block ? 0 : 2 * (csr.nnz / build::kRowChunkLength);
  DeviceBuffer<std::int32_t> chunk_begin, chunk_segment_begin;
  //    The hash's a comes from a histogram of the sampled rows' segment shifts (make_hash's
  //    sample: every hash_sample_step-th row); with one column block step 1 counts it, and the
  //    blocks after it, from row_ptr (downloaded with step 1's totals), else step 2 (downloaded
  //    with the block count).
  std::array<unsigned long long, build::kOneBlockCounts> shift_counts{};
  auto histogram = DeviceBuffer<unsigned long long>::on_stream(shift_counts.size(), stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(histogram.data(), 0, histogram.bytes(), stream));
  if (one_column_block) {
    build::count_one_block_row_segments_kernel<<<grid_for(rows + 1), kBuildThreads, 0, stream>>>(
        row_ptr, rows, p.max_slot_length, d.block_rows, hash_sample_step(rows),
        row_segments.data(), single_rows.data(), histogram.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  } else {
    auto row_chunks = DeviceBuffer<std::int32_t>::on_stream(row_entries, stream);
    build::count_row_segments_kernel<<<grid_for_row_tiles(rows + 1), kBuildThreads, 0,
                                       stream>>>(row_ptr, col_idx, rows, block_cols,
                                                 p.max_slot_length, row_segments.data(),
                                                 single_rows.data(), row_chunks.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    chunk_begin = DeviceBuffer<std::int32_t>::on_stream(row_entries, stream);
    exclusive_sum(scratch, row_chunks.data(), chunk_begin.data(), rows + 1, "rows");
    row_chunks = {};
    chunk_segment_begin = DeviceBuffer<std::int32_t>::on_stream(
        static_cast<std::size_t>(most_chunks + 1), stream);
  }
  if (most_chunks > 0) {
    auto chunk_segments = DeviceBuffer<std::int32_t>::on_stream(
        static_cast<std::size_t>(most_chunks + 1), stream);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(chunk_segments.data(), 0, chunk_segments.bytes(), stream));
    build::count_chunk_segments_kernel<<<grid_for_chunks(most_chunks), kBuildThreads, 0,
                                         stream>>>(row_ptr, col_idx, rows, chunk_begin.data(),
                                                   block_cols, p.max_slot_length,
                                                   chunk_segments.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    exclusive_sum(scratch, chunk_segments.data(), chunk_segment_begin.data(), most_chunks + 1,
                  "chunks");
    build::chunked_row_segments_kernel<<<grid_for(most_chunks), kBuildThreads, 0, stream>>>(
        row_ptr, chunk_begin.data(), chunk_segment_begin.data(), rows, row_segments.data(),
        single_rows.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  //    One scan of both, in place (the pool's peak, mapped during the build and unmapped at its
  //    end, is what the temporaries cost beyond the kernels).
  detail::exclusive_sums(scratch, row_segments.data(), single_rows.data(), row_segments.data(),
                         single_rows.data(), rows + 1, "rows");
  auto segment_begin = std::move(row_segments);
  auto single_before = std::move(single_rows);
  const build::RowSlotSums row_sums{segment_begin.data(), single_before.data()};
  phases.lap("row_segments");
  //    The nonzeros' arrays of the layout, sized by nnz alone.
  d.col_add_sign = arrays.allocate<std::uint32_t>(d.nnz);
  d.data = arrays.allocate<Value>(d.nnz);
  if (p.update_values) d.value_source = arrays.allocate<std::int32_t>(d.nnz);
  std::int32_t slots32 = 0, single_rows32 = 0;
  counts.add(segment_begin.data() + rows, &slots32);
  counts.add(single_before.data() + rows, &single_rows32);
  if (one_column_block) counts.add(histogram.data(), shift_counts.data(), shift_counts.size());
  counts.wait();
  const std::int64_t slots = slots32;
  d.slots = slots;
  d.combine_row_count = rows - single_rows32;  // RowSlotSums::combine_index(rows)
  d.partials = slots - single_rows32;          // RowSlotSums::partial_begin(rows)

  // 2. A lane a short row, a warp a long one, a warp a chunk of a longer one, writes its segments
  //    (column block where there are several, row block, first nonzero, length, output_hash).
  const auto slot_entries = static_cast<std::size_t>(slots);
  DeviceBuffer<std::uint32_t> seg_column_block;
  if (!one_column_block)
    seg_column_block = DeviceBuffer<std::uint32_t>::on_stream(slot_entries, stream);
  auto seg_row_block = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  auto seg_first = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  auto seg_length = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  auto seg_destination = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  auto seg_index = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  if (rows > 0 && slots > 0) {
    const build::SegmentWriter writer{d.block_rows,
                                      row_sums,
                                      seg_column_block.data(),
                                      seg_row_block.data(),
                                      seg_first.data(),
                                      seg_destination.data(),
                                      seg_index.data()};
    if (one_column_block)
      build::write_one_block_row_segments_kernel<<<grid_for(rows), kBuildThreads, 0, stream>>>(
          row_ptr, rows, p.max_slot_length, segment_begin.data(), writer, seg_length.data());
    else
      build::write_segments_kernel<<<grid_for_row_tiles(rows), kBuildThreads, 0, stream>>>(
          row_ptr, col_idx, rows, block_cols, p.max_slot_length, segment_begin.data(), writer,
          seg_length.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    if (most_chunks > 0) {
      build::write_chunk_segments_kernel<<<grid_for_chunks(most_chunks), kBuildThreads, 0,
                                           stream>>>(
          row_ptr, col_idx, rows, chunk_begin.data(), chunk_segment_begin.data(), block_cols,
          p.max_slot_length, segment_begin.data(), writer);
      TCSPARSE_CUDA_CHECK_LAUNCH();
      build::chunk_segment_lengths_kernel<<<grid_for_chunks(most_chunks), kBuildThreads, 0,
                                            stream>>>(
          row_ptr, rows, chunk_begin.data(), chunk_segment_begin.data(), segment_begin.data(),
          seg_first.data(), seg_length.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
  }
  chunk_begin = {};
  chunk_segment_begin = {};
  d.combine_rows = arrays.allocate<std::int32_t>(d.combine_row_count);
  d.combine_begin = arrays.allocate<std::int32_t>(d.combine_row_count + 1);
  build::scatter_combine_rows_kernel<<<grid_for(rows + 1), kBuildThreads, 0, stream>>>(
      row_sums, rows, d.combine_rows.data(), d.combine_begin.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  if (!one_column_block) {
    const std::int64_t step = hash_sample_step(rows);
    const std::int64_t sampled = (rows + step - 1) / step;
    if (slots > 0) {
      build::shift_histogram_kernel<<<grid_for_warps(sampled), kBuildThreads, 0, stream>>>(
          segment_begin.data(), seg_length.data(), rows, step, histogram.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
    counts.add(histogram.data(), shift_counts.data(), shift_counts.size());
  }
  segment_begin = {};
  single_before = {};
  phases.lap("segments");
  //    A stable radix sort by column block puts the segments into the blocks in the layout's
  //    order (by column block, then row block), rows in order inside each block: the segments are
  //    written in row order, so within a column block their row blocks already ascend, and the
  //    sort needs the column block's bits alone (one pass of CUB's onesweep for up to 256 column
  //    blocks; sorting by column block x row blocks + row block took two over 64-bit keys). With
  //    one column block there is nothing to sort.
  //    The sort works within two buffers of the keys and of the indices (no third copy in CUB's
  //    storage: that copy made the sort the build's peak of temporaries).
  if (!one_column_block) {
    auto key_second = DeviceBuffer<std::uint32_t>::on_stream(slot_entries, stream);
    auto index_second = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
    if (detail::stable_sort_pairs_double_buffered(
            scratch, seg_column_block.data(), key_second.data(), seg_index.data(),
            index_second.data(), slots,
            key_bits(static_cast<unsigned long long>(column_blocks - 1)), "segments")) {
      seg_column_block = std::move(key_second);
      seg_index = std::move(index_second);
    }
  }
  // slot -> its column block (null: column block 0), its segment
  DeviceBuffer<std::uint32_t> sorted_column_block = std::move(seg_column_block);
  DeviceBuffer<std::int32_t> slot_segment = std::move(seg_index);
  const build::SlotBlockKeys slot_keys{sorted_column_block.data(), seg_row_block.data(),
                                       one_column_block ? nullptr : slot_segment.data()};
  auto block_start = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  auto block_of_slot = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  std::int32_t blocks32 = 0;
  if (slots > 0) {
    build::mark_block_starts_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
        slot_keys, slots, block_start.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    inclusive_sum(scratch, block_start.data(), block_of_slot.data(), slots, "segments");
    if (!one_column_block) counts.add(block_of_slot.data() + (slots - 1), &blocks32);
  }
  //    The layout's per-slot arrays and its partial sums' numbers, sized by step 1's counts.
  d.output_hash = arrays.allocate<std::int32_t>(slots);
  d.slot_last_round = arrays.allocate<std::uint16_t>(slots);
  d.combine_partials = arrays.allocate<std::int32_t>(d.partials);
  if (one_column_block)
    blocks32 = static_cast<std::int32_t>(shift_counts[build::kOneBlockCountsBlocks]);
  else
    counts.wait();
  histogram = {};
  d.blocks = blocks32;
  {
    std::array<std::int64_t, kLargestAggregationShift + 1> histogram_counts{};
    for (std::size_t k = 0; k < histogram_counts.size(); ++k)
      histogram_counts[k] = static_cast<std::int64_t>(shift_counts[k]);
    d.hash = hash_from_shift_histogram(d.block_rows, histogram_counts);
  }
  auto block_slot_begin = DeviceBuffer<std::int32_t>::on_stream(
      static_cast<std::size_t>(d.blocks + 1), stream);
  d.block_col = arrays.allocate<std::int32_t>(d.blocks);
  d.block_row = arrays.allocate<std::int32_t>(d.blocks);
  if (slots > 0) {
    build::scatter_blocks_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
        slot_keys, block_start.data(), block_of_slot.data(), slots, block_slot_begin.data(),
        d.block_col.data(), d.block_row.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  } else {  // (else scatter_blocks_kernel writes block_slot_begin[blocks] = slots)
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(block_slot_begin.data(), 0, sizeof(std::int32_t), stream));
  }
  sorted_column_block = {};
  seg_row_block = {};
  block_start = {};
  //    5, begun: tasks start at every blocks_per_task-th block of a run of one column block
  //    (their count is downloaded with step 3's). With one column block the blocks are one run
  //    from block 0: step 5 writes the tasks from that alone.
  const std::int32_t per_task = p.resolved_blocks_per_task(d.blocks);
  DeviceBuffer<std::int32_t> task_index;
  if (!one_column_block) {
    task_index = DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(d.blocks + 1),
                                                       stream);
    auto column_run_start = DeviceBuffer<std::int32_t>::on_stream(
        static_cast<std::size_t>(d.blocks), stream);
    if (d.blocks > 0) {
      auto column_anchor = DeviceBuffer<std::int32_t>::on_stream(
          static_cast<std::size_t>(d.blocks), stream);
      build::mark_column_runs_kernel<<<grid_for(d.blocks), kBuildThreads, 0, stream>>>(
          d.block_col.data(), d.blocks, column_anchor.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
      detail::inclusive_scan(scratch, column_anchor.data(), column_run_start.data(),
                             build::MaxOf{}, d.blocks, "blocks");
    }
    auto task_start = DeviceBuffer<std::int32_t>::on_stream(
        static_cast<std::size_t>(d.blocks + 1), stream);
    build::mark_tasks_kernel<<<grid_for(d.blocks + 1), kBuildThreads, 0, stream>>>(
        column_run_start.data(), d.blocks, per_task, task_start.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    exclusive_sum(scratch, task_start.data(), task_index.data(), d.blocks + 1, "blocks");
  }
  phases.lap("blocks");

  // 3. The reorder inside each block (hash: a warp a block; sort: a stable radix sort by
  //    (block, length); none: row order), then the groups and their sizes by scans, output_hash
  //    and slot_last_round gathered in the new order.
  auto ordered = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  if (slots > 0) {
    if (p.reorder == Reorder::hash) {
      hash_order(block_slot_begin, d.blocks, slot_segment, seg_length, d.hash, slots, ordered,
                 scratch);
    } else if (p.reorder == Reorder::sort) {
      auto length_key = DeviceBuffer<unsigned long long>::on_stream(slot_entries, stream);
      auto sorted_length_key = DeviceBuffer<unsigned long long>::on_stream(slot_entries, stream);
      build::length_keys_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
          block_of_slot.data(), slot_segment.data(), seg_length.data(), slots, length_key.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
      stable_sort_pairs(scratch, length_key.data(), sorted_length_key.data(),
                        slot_segment.data(), ordered.data(), slots,
                        32 + key_bits(static_cast<unsigned long long>(d.blocks - 1)), "segments");
    } else {
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(ordered.data(), slot_segment.data(),
                                          slot_segment.bytes(), cudaMemcpyDeviceToDevice, stream));
    }
  }
  slot_segment = {};
  phases.lap("reorder");

  // (a slot's nonzeros and their scan fit 32 bits: the CSR holds fewer than 2^31)
  auto slot_nnz = DeviceBuffer<std::int32_t>::on_stream(slot_entries + 1, stream);
  auto run_anchor = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  build::mark_runs_kernel<<<grid_for(slots + 1), kBuildThreads, 0, stream>>>(
      ordered.data(), seg_length.data(), block_of_slot.data(), block_slot_begin.data(), slots,
      p.warp_row_length, slot_nnz.data(), run_anchor.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  auto run_start = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
  detail::inclusive_scan(scratch, run_anchor.data(), run_start.data(), build::MaxOf{}, slots,
                         "segments");
  run_anchor = {};
  auto group_start = DeviceBuffer<std::int32_t>::on_stream(slot_entries + 1, stream);
  build::mark_groups_kernel<<<grid_for(slots + 1), kBuildThreads, 0, stream>>>(
      ordered.data(), seg_length.data(), run_start.data(), slots, p.warp_row_length,
      group_start.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  run_start = {};
  detail::exclusive_sums(scratch, group_start.data(), slot_nnz.data(), group_start.data(),
                         slot_nnz.data(), slots + 1, "segments");  // in place
  auto group_index = std::move(group_start);
  auto slot_nnz_begin = std::move(slot_nnz);
  std::int32_t groups32 = 0, laid_out = 0, tasks32 = 0;
  counts.add(group_index.data() + slots, &groups32);
  counts.add(slot_nnz_begin.data() + slots, &laid_out);
  if (one_column_block)
    tasks32 = static_cast<std::int32_t>((d.blocks + per_task - 1) / per_task);  // starts_task
  else
    counts.add(task_index.data() + d.blocks, &tasks32);
  counts.wait();
  if (laid_out != d.nnz)
    throw Error("hbp device build: " + std::to_string(laid_out) + " nonzeros laid out of " +
                std::to_string(d.nnz));
  d.groups = groups32;
  d.tasks = tasks32;
  d.group_slot_begin = arrays.allocate<std::int32_t>(d.groups + 1);
  d.begin_nnz = arrays.allocate<std::int64_t>(d.groups + 1);
  d.group_col = arrays.allocate<std::int32_t>(d.groups);
  d.block_group_begin = arrays.allocate<std::int32_t>(d.blocks + 1);
  const build::GroupArrays group_arrays{d.output_hash.data(),      d.slot_last_round.data(),
                                        d.group_slot_begin.data(), d.begin_nnz.data(),
                                        d.group_col.data(),        d.block_group_begin.data()};
  build::scatter_groups_kernel<<<grid_for(slots + 1), kBuildThreads, 0, stream>>>(
      ordered.data(), seg_destination.data(), seg_length.data(), group_index.data(),
      slot_nnz_begin.data(), block_of_slot.data(), block_slot_begin.data(), d.block_col.data(),
      slots, d.blocks, group_arrays);
  TCSPARSE_CUDA_CHECK_LAUNCH();
  seg_destination = {};
  slot_nnz_begin = {};
  block_slot_begin = {};
  group_index = {};
  //    The partial sums numbered in slot order: a scan of the slots that have one, then each
  //    such slot's row-major destination maps to its number (combine_partials).
  if (slots > 0 && d.partials > 0) {
    auto has_partial = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
    build::mark_partial_slots_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
        d.output_hash.data(), slots, has_partial.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    auto partial_number = DeviceBuffer<std::int32_t>::on_stream(slot_entries, stream);
    exclusive_sum(scratch, has_partial.data(), partial_number.data(), slots, "segments");
    has_partial = {};
    build::number_partials_kernel<<<grid_for(slots), kBuildThreads, 0, stream>>>(
        partial_number.data(), slots, d.output_hash.data(), d.combine_partials.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  phases.lap("groups");

  // 4. A warp a group: the nonzeros in rounds, with add_sign.
  if (d.groups > 0) {
    const std::int64_t warps_per_block = kLayOutThreads / arch::kWarpSize;
    const auto grid = static_cast<unsigned>(
        std::min((d.groups + warps_per_block - 1) / warps_per_block, kLayOutMaxBlocks));
    build::lay_out_groups_kernel<V><<<grid, kLayOutThreads, 0, stream>>>(
        col_idx, reinterpret_cast<const V*>(csr.values), d.group_slot_begin.data(),
        d.begin_nnz.data(), d.groups, ordered.data(), seg_first.data(), seg_length.data(),
        block_of_slot.data(), d.block_col.data(), block_cols, d.col_add_sign.data(),
        reinterpret_cast<V*>(d.data.data()), d.value_source.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  phases.lap("lay_out");

  // 5. Tasks (started in step 2): their arrays, and each task's x sharing.
  d.task_block_begin = arrays.allocate<std::int32_t>(d.tasks + 1);
  d.task_col = arrays.allocate<std::int32_t>(d.tasks);
  d.task_shared_x = arrays.allocate<std::int32_t>(d.tasks);
  if (one_column_block) {
    build::one_column_run_tasks_kernel<<<grid_for(d.tasks + 1), kBuildThreads, 0, stream>>>(
        d.blocks, per_task, d.tasks, d.block_col.data(), d.block_group_begin.data(),
        d.begin_nnz.data(), d.cols, block_cols, static_cast<std::int64_t>(sizeof(Value)),
        d.task_block_begin.data(), d.task_col.data(), d.task_shared_x.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  } else {
    build::scatter_tasks_kernel<<<grid_for(d.blocks + 1), kBuildThreads, 0, stream>>>(
        task_index.data(), d.block_col.data(), d.blocks, d.task_block_begin.data(),
        d.task_col.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
    if (d.tasks > 0) {
      build::task_shared_x_kernel<<<grid_for(d.tasks), kBuildThreads, 0, stream>>>(
          d.task_block_begin.data(), d.task_col.data(), d.block_group_begin.data(),
          d.begin_nnz.data(), d.tasks, d.cols, block_cols,
          static_cast<std::int64_t>(sizeof(Value)), d.task_shared_x.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
    }
  }
  phases.lap("tasks");
  return phases.laps();  // waits for the last step
}

}  // namespace

template <typename Value>
DeviceLayout<Value> build_layout_on_device(const DeviceCsrView<Value>& csr,
                                           const HbpParameters& p, std::int32_t block_cols,
                                           cudaStream_t stream) {
  if (block_cols < 1 || block_cols > kLargestBlockCols)
    throw ParameterError("method 'hbp': block_cols=" + std::to_string(block_cols) +
                         " is not accepted: expected 1.." + std::to_string(kLargestBlockCols));
  if (p.max_slot_length < 1 || p.max_slot_length > kLongestSlot)
    throw ParameterError("method 'hbp': max_slot_length=" + std::to_string(p.max_slot_length) +
                         " is not accepted: expected 1.." + std::to_string(kLongestSlot));
  DeviceLayout<Value> d;
  std::chrono::steady_clock::time_point release_begin;
  {
    // waits for the temporaries' frees and gives the pool's unused memory back at its end
    detail::TemporaryMemoryScope temporaries(stream);
    d.build_phases_ms = build_steps(csr, p, block_cols, stream, d);
    release_begin = std::chrono::steady_clock::now();
  }
  // the pages the temporaries' peak mapped, given back (host time: no GPU work is left)
  d.build_phases_ms.emplace_back(
      "release", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                           release_begin)
                     .count());
  return d;
}

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                        \
  template DeviceLayout<Value> upload_layout(const HbpLayout<Value>&);                         \
  template HbpLayout<Value> download_layout(const DeviceLayout<Value>&);                       \
  template DeviceLayout<Value> build_layout_on_device(const DeviceCsrView<Value>&,             \
                                                      const HbpParameters&, std::int32_t,     \
                                                      cudaStream_t);
TCSPARSE_FOR_EACH_VALUE(TCSPARSE_HBP_INSTANTIATE)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
