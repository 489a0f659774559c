// DASP's index arrays built on the GPU (dasp_device_build.hpp says the steps). Every decision goes
// through dasp_layout_decisions.hpp, as in the host plan; the kernels are dasp_build_kernels.cuh.
// Plan time only: temporaries live in this file's functions, counts are downloaded where the
// host decides, and the stream is synchronised before returning.
#include "dasp/dasp_device_build.hpp"

#include <algorithm>
#include <climits>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "dasp/dasp_build_kernels.cuh"
#include "dasp/dasp_layout_decisions.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/host_upload.hpp"
#include "runtime/permute.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::dasp {

using namespace internal;
using detail::DeviceBuffer;
using detail::DeviceScratch;
using detail::download_one;

namespace {

/// Thread blocks of a grid-stride build kernel over `items`: enough to fill any current GPU.
unsigned grid_for(std::int64_t items) {
  constexpr std::int64_t kMaxBlocks = 1 << 16;
  return static_cast<unsigned>(std::clamp<std::int64_t>(
      (items + build::kBuildThreads - 1) / build::kBuildThreads, 1, kMaxBlocks));
}

/// An array the layout keeps, from the pool (DeviceBuffer::from_pool), not cudaMalloc: the build
/// runs beside the CSR's upload, and a cudaMalloc or cudaFree on the build's thread halved the
/// upload's bandwidth there (H200, run 209: 43 -> 21 GB/s; stream-ordered allocations 38-42).
template <typename T>
DeviceBuffer<T> device_array(std::int64_t count, cudaStream_t stream) {
  return DeviceBuffer<T>::from_pool(static_cast<std::size_t>(count), stream);
}

/// A temporary of the build, in stream order on `stream` (it may come and go while the CSR's
/// columns and values are still being copied on another stream).
template <typename T>
DeviceBuffer<T> temporary(std::int64_t count, cudaStream_t stream) {
  return DeviceBuffer<T>::on_stream(static_cast<std::size_t>(count), stream);
}

/// A struct of totals (build::LengthSummary, ...) on `stream`: its leading `minima` 64-bit fields
/// set to all ones, the rest to 0, before a kernel folds into it.
template <typename Totals>
DeviceBuffer<Totals> reset_totals(int minima, cudaStream_t stream) {
  DeviceBuffer<Totals> totals = temporary<Totals>(1, stream);
  const std::size_t ones = static_cast<std::size_t>(minima) * sizeof(unsigned long long);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(totals.data(), 0xFF, ones, stream));
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(reinterpret_cast<unsigned char*>(totals.data()) + ones, 0,
                                      sizeof(Totals) - ones, stream));
  return totals;
}

#define TCSPARSE_BUILD_LAUNCH(kernel, items, stream, ...)                                          \
  do {                                                                                             \
    kernel<<<grid_for(items), build::kBuildThreads, 0, stream>>>(__VA_ARGS__);                     \
    TCSPARSE_CUDA_CHECK_LAUNCH();                                                                  \
  } while (false)

/// Step 1: the summary of the row lengths (RowLengthSummary).
RowLengthSummary summarize_on_device(const std::int32_t* row_ptr, std::int64_t rows,
                                     std::int64_t cols, std::int64_t nnz, DaspBlockShape shape,
                                     cudaStream_t stream) {
  RowLengthSummary s;
  s.rows = rows;
  s.cols = cols;
  s.nnz = nnz;
  if (rows == 0) return s;
  auto summary = reset_totals<build::LengthSummary>(1, stream);
  build::MaxLenCandidates candidates{};
  std::copy(std::begin(kDaspSmallMatrixMaxMediumRowLengths),
            std::end(kDaspSmallMatrixMaxMediumRowLengths), candidates.length);
  TCSPARSE_BUILD_LAUNCH(build::summarize_lengths_kernel, rows, stream, row_ptr, rows,
                        long_row_group_values(shape), candidates, summary.data());
  const build::LengthSummary found = download_one(summary.data(), stream);
  s.shortest = static_cast<std::int64_t>(found.shortest);
  s.longest = static_cast<std::int64_t>(found.longest);
  for (int k = 0; k < kDaspSmallMatrixMaxLenCandidates; ++k)
    s.candidate_padding[static_cast<std::size_t>(k)] =
        static_cast<std::int64_t>(found.candidate_padding[k]);
  s.rows_above_paper_max = static_cast<std::int64_t>(found.rows_above_paper_max);
  s.rows_medium_at_paper_max = static_cast<std::int64_t>(found.rows_medium_at_paper_max);
  return s;
}

/// Step 3: the regular blocks of the medium row-blocks of `medium` into `chunks`, and their totals.
build::RegularTotals count_regular_blocks_on_device(const std::int32_t* row_ptr,
                                                    const std::int32_t* medium,
                                                    std::int64_t rows_medium, DaspBlockShape shape,
                                                    int min_fill, std::int32_t* chunks,
                                                    cudaStream_t stream) {
  if (rows_medium == 0) return build::RegularTotals{ULLONG_MAX, 0, 0, 0, 0, 0, 0};
  auto totals = reset_totals<build::RegularTotals>(1, stream);
  TCSPARSE_BUILD_LAUNCH(build::count_regular_blocks_kernel, ceil_div(rows_medium, shape.rows),
                        stream, row_ptr, medium, rows_medium, shape.rows, shape.width, min_fill,
                        chunks, totals.data());
  return download_one(totals.data(), stream);
}

RegularBlockCounts regular_block_counts(const build::RegularTotals& t) {
  RegularBlockCounts c;
  c.regular_blocks = static_cast<std::int64_t>(t.regular_blocks);
  c.regular_nnz = static_cast<std::int64_t>(t.regular_nnz);
  c.medium_nnz = static_cast<std::int64_t>(t.medium_nnz);
  c.padded_tail_blocks = static_cast<std::int64_t>(t.padded_tail_blocks);
  c.largest_row_block = static_cast<std::int64_t>(t.largest_row_block);
  c.covering_blocks = static_cast<std::int64_t>(t.covering_blocks);
  return c;
}

}  // namespace

std::size_t DaspDeviceIndex::bytes() const {
  return long_row_ids.bytes() + long_group_ptr.bytes() + long_task_ptr.bytes() +
         long_tasks.bytes() + medium_row_ids.bytes() + rowblock_ptr.bytes() +
         irregular_ptr.bytes() + medium_tail_widths.bytes() + medium_extra_pieces.bytes() +
         short_row_ids.bytes() + short_tile_order.bytes() + empty_row_ids.bytes();
}

DaspDeviceIndex build_index_on_device(const std::int32_t* row_ptr, std::int64_t rows,
                                      std::int64_t cols, std::int64_t nnz,
                                      const DaspParameters& parameters, DaspBlockShape shape,
                                      int value_bytes, detail::PhaseTimes* phases,
                                      cudaStream_t stream) {
  // first: destroyed after every temporary below, it waits for their frees and releases them
  detail::TemporaryMemoryScope temporaries(stream);
  if (shape.width != kDaspBlockWidth || (shape.rows != 8 && shape.rows != 16))
    throw UnsupportedError("DASP layout: block shape " + std::to_string(shape.rows) + "x" +
                           std::to_string(shape.width) + " is not 8x4 or 16x4");
  DeviceScratch scratch(stream);
  DaspDeviceIndex index;
  DaspLayoutInfo& info = index.info;
  info.rows = static_cast<std::int32_t>(rows);
  info.cols = static_cast<std::int32_t>(cols);
  info.nnz = nnz;
  info.shape = shape;
  info.parameters = parameters;
  DaspCounts& c = info.counts;
  const int block_rows = shape.rows;

  // 1. MAX_LEN
  const RowLengthSummary summary = summarize_on_device(row_ptr, rows, cols, nnz, shape, stream);
  const int max_medium = choose_max_medium_row_length(summary, parameters, shape, value_bytes);
  lap(phases, "max_len");

  // 2. Every row's category key counted, the rows sorted by it (descending, stable).
  const int key_count = max_medium + 2;
  std::vector<std::int64_t> rows_of_key(static_cast<std::size_t>(key_count), 0);
  DeviceBuffer<std::int32_t> order = temporary<std::int32_t>(rows, stream);
  DeviceBuffer<std::int32_t> row_ids;  // the sort's input, then the 1+3 pairing's scratch
  if (rows > 0) {
    auto histogram = temporary<unsigned long long>(key_count, stream);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(histogram.data(), 0, histogram.bytes(), stream));
    auto keys = temporary<unsigned>(rows, stream), sorted_keys = temporary<unsigned>(rows, stream);
    row_ids = temporary<std::int32_t>(rows, stream);
    TCSPARSE_BUILD_LAUNCH(build::category_keys_kernel, rows, stream, row_ptr, rows, max_medium,
                          keys.data(), row_ids.data(), histogram.data());
    detail::stable_sort_pairs(scratch, keys.data(), sorted_keys.data(), row_ids.data(),
                              order.data(), rows, detail::key_bits(max_medium + 1), "rows");
    std::vector<unsigned long long> counted(rows_of_key.size());
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(counted.data(), histogram.data(), histogram.bytes(),
                                        cudaMemcpyDeviceToHost, stream));
    scratch.synchronize();  // the histogram is read here
    std::copy(counted.begin(), counted.end(), rows_of_key.begin());
  }
  std::int64_t rows_1_to_3 = 0, rows_5_up = 0;
  for (int k = 1; k < key_count - 1; ++k) {
    if (k < kDaspMaxShortRowLength) rows_1_to_3 += rows_of_key[sz(k)];
    if (k > kDaspMaxShortRowLength) rows_5_up += rows_of_key[sz(k)];
  }
  const int shortest_medium =
      resolve_medium_min_row_length(parameters, rows, rows_1_to_3, rows_5_up);
  const CategoryBounds bounds =
      category_bounds(descending_bucket_starts(rows_of_key), max_medium, shortest_medium);
  c.medium_min_row_length = shortest_medium;
  // 1+3 pairs within windows where they apply (pair_short_rows_in_windows): the 1-rows and
  // 3-rows rearranged in place; the number of pairs is downloaded with the long-row totals
  const std::int64_t pair_window = resolve_short_pair_window(parameters, rows);
  const std::int64_t pair_windows = pair_window > 0 ? ceil_div(rows, pair_window) : 0;
  // per window: where it starts among the 1-rows, among the 3-rows, and the pairs before it
  DeviceBuffer<long long> pair_windows_at;
  if (pair_window > 0) {
    const std::int64_t n1 = bounds.short_count_of[1], n3 = bounds.short_count_of[3];
    std::int32_t* const ones = order.data() + bounds.short_begin_of[1];
    std::int32_t* const threes = order.data() + bounds.short_begin_of[3];
    pair_windows_at = temporary<long long>(3 * (pair_windows + 1), stream);
    long long* const first1 = pair_windows_at.data();
    long long* const first3 = first1 + pair_windows + 1;
    long long* const pairs_before = first3 + pair_windows + 1;
    TCSPARSE_BUILD_LAUNCH(build::short_pair_windows_kernel, pair_windows + 1, stream, ones, n1,
                          threes, n3, rows, pair_window, pair_windows, first1, first3,
                          pairs_before);
    detail::exclusive_sum(scratch, pairs_before, pairs_before, pair_windows + 1,
                          "short pair windows");
    if (n1 + n3 > 0) {
      std::int32_t* const rearranged = row_ids.data();  // rows >= n1 + n3 entries
      if (n1 > 0)
        TCSPARSE_BUILD_LAUNCH(build::short_pair_positions_kernel, n1, stream, ones, n1,
                              pair_window, pair_windows, first1, pairs_before, rearranged);
      if (n3 > 0)
        TCSPARSE_BUILD_LAUNCH(build::short_pair_positions_kernel, n3, stream, threes, n3,
                              pair_window, pair_windows, first3, pairs_before, rearranged + n1);
      // each list back to its place in the order
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(ones, rearranged,
                                          static_cast<std::size_t>(n1) * sizeof(std::int32_t),
                                          cudaMemcpyDeviceToDevice, stream));
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(threes, rearranged + n1,
                                          static_cast<std::size_t>(n3) * sizeof(std::int32_t),
                                          cudaMemcpyDeviceToDevice, stream));
    }
    c.short_pair_window = pair_window;
  }
  row_ids = DeviceBuffer<std::int32_t>();
  lap(phases, "row_sort");

  // 3. Medium row-blocks: their regular blocks; windows of caller rows where they apply.
  c.rows_long = bounds.medium_begin;
  c.rows_medium = bounds.short_begin - bounds.medium_begin;
  c.row_blocks = ceil_div(c.rows_medium, block_rows);
  std::int32_t* medium = order.data() + bounds.medium_begin;
  const int min_fill = min_regular_fill(parameters, shape);
  DeviceBuffer<std::int32_t> chunks = temporary<std::int32_t>(c.row_blocks, stream);
  build::RegularTotals totals = count_regular_blocks_on_device(
      row_ptr, medium, c.rows_medium, shape, min_fill, chunks.data(), stream);
  RegularBlockCounts blocks = regular_block_counts(totals);
  lap(phases, "regular_blocks");
  int medium_rows_per_warp =
      resolve_medium_rows_per_warp(parameters, c.rows_medium, block_rows, c.row_blocks,
                                   blocks.regular_blocks, blocks.largest_row_block);
  const std::int64_t window = resolve_medium_row_window(parameters, rows);
  if (windows_apply(window, rows, medium_rows_per_warp, block_rows, parameters, max_medium,
                    c.rows_medium)) {
    auto keys = temporary<unsigned>(c.rows_medium, stream),
         sorted_keys = temporary<unsigned>(c.rows_medium, stream);
    auto windowed = temporary<std::int32_t>(c.rows_medium, stream);
    TCSPARSE_BUILD_LAUNCH(build::window_keys_kernel, c.rows_medium, stream, medium, c.rows_medium,
                          window, keys.data());
    const auto last_window = static_cast<unsigned long long>((rows - 1) / window);
    detail::stable_sort_pairs(scratch, keys.data(), sorted_keys.data(), medium, windowed.data(),
                              c.rows_medium, detail::key_bits(last_window), "medium rows");
    TCSPARSE_BUILD_LAUNCH(build::resort_row_blocks_kernel, c.row_blocks, stream, row_ptr,
                          windowed.data(), c.rows_medium, block_rows);
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(medium, windowed.data(), windowed.bytes(),
                                        cudaMemcpyDeviceToDevice, stream));
    totals = count_regular_blocks_on_device(row_ptr, medium, c.rows_medium, shape, min_fill,
                                            chunks.data(), stream);  // synchronises
    blocks = regular_block_counts(totals);
    c.medium_row_window = window;
  }
  lap(phases, "windows");
  // as the host build: every medium value regular, the windows ordered by width where they are
  const bool by_rule = all_medium_values_regular(parameters, shape, nnz, max_medium, blocks);
  if ((by_rule || min_fill == 1) && c.medium_row_window > 0 && medium_rows_by_width(parameters)) {
    // as order_windows_by_width: one sort by window_width_key, row-blocks by length again
    auto keys = temporary<unsigned long long>(c.rows_medium, stream),
         sorted_keys = temporary<unsigned long long>(c.rows_medium, stream);
    auto reordered = temporary<std::int32_t>(c.rows_medium, stream);
    TCSPARSE_BUILD_LAUNCH(build::window_width_keys_kernel, c.rows_medium, stream, row_ptr,
                          medium, c.rows_medium, c.medium_row_window, shape.width, max_medium,
                          keys.data());
    const std::uint64_t largest_key = window_width_key(
        static_cast<std::int32_t>(rows - 1), 0, c.medium_row_window, shape.width, max_medium);
    detail::stable_sort_pairs(scratch, keys.data(), sorted_keys.data(), medium,
                              reordered.data(), c.rows_medium, detail::key_bits(largest_key),
                              "medium rows");
    TCSPARSE_BUILD_LAUNCH(build::resort_row_blocks_kernel, c.row_blocks, stream, row_ptr,
                          reordered.data(), c.rows_medium, block_rows);
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(medium, reordered.data(), reordered.bytes(),
                                        cudaMemcpyDeviceToDevice, stream));
    c.medium_rows_by_width = true;
  }
  if (by_rule || c.medium_rows_by_width) {
    totals = count_regular_blocks_on_device(row_ptr, medium, c.rows_medium, shape, 1,
                                            chunks.data(), stream);  // synchronises
    blocks = regular_block_counts(totals);
  }
  if (by_rule)  // as the host build: row-blocks a warp from the blocks that cover them
    medium_rows_per_warp =
        resolve_medium_rows_per_warp(parameters, c.rows_medium, block_rows, c.row_blocks,
                                     blocks.regular_blocks, blocks.largest_row_block);
  set_medium_counts(c, info.shape, parameters, blocks);

  // 4. The warps' work and every count.
  const std::int64_t longest_long_row = c.rows_long > 0 ? summary.longest : 0;
  info.split = resolve_layout_work(parameters, nnz, rows, longest_long_row, max_medium, block_rows,
                                   medium_rows_per_warp);
  info.medium_rows_per_warp = medium_rows_per_warp;
  c.split = info.split;
  c.max_medium_row_length = max_medium;
  c.medium_rows_per_warp = medium_rows_per_warp;
  const std::int64_t group_values = long_row_group_values(shape);
  const int per_task = info.split.long_groups_per_warp;
  long long windowed_pairs = 0;
  DeviceBuffer<std::int32_t> groups_of_row = device_array<std::int32_t>(c.rows_long + 1, stream),
                             tasks_of_row = device_array<std::int32_t>(c.rows_long + 1, stream);
  {
    auto long_totals = reset_totals<build::LongTotals>(0, stream);
    TCSPARSE_BUILD_LAUNCH(build::long_row_counts_kernel, c.rows_long + 1, stream, row_ptr,
                          order.data(), c.rows_long, group_values, per_task, groups_of_row.data(),
                          tasks_of_row.data(), long_totals.data());
    build::LongTotals found{};
    detail::SmallDownloads downloads(stream);  // one wait for both
    downloads.add(long_totals.data(), &found);
    if (pair_window > 0)  // the exclusive scan's last entry: every pair
      downloads.add(pair_windows_at.data() + 3 * (pair_windows + 1) - 1, &windowed_pairs);
    downloads.wait();
    set_long_counts(c, static_cast<std::int64_t>(found.nnz),
                    static_cast<std::int64_t>(found.groups), group_values);
    c.long_tasks = static_cast<std::int64_t>(found.tasks);
  }
  const std::int64_t rowblocks_per_unit = medium_rows_per_warp / block_rows;
  DeviceBuffer<std::int32_t> pieces;
  std::int64_t first_single = c.row_blocks;  // row-blocks of several pieces: a prefix
  if (rowblocks_per_unit == 1) {
    pieces = temporary<std::int32_t>(c.row_blocks, stream);
    auto piece_totals = reset_totals<build::PieceTotals>(1, stream);
    if (c.row_blocks > 0)
      TCSPARSE_BUILD_LAUNCH(build::count_pieces_kernel, c.row_blocks, stream, chunks.data(),
                            c.row_blocks, info.split.medium_blocks_per_warp, pieces.data(),
                            piece_totals.data());
    const build::PieceTotals found = download_one(piece_totals.data(), stream);
    c.medium_units = static_cast<std::int64_t>(found.pieces);
    first_single = static_cast<std::int64_t>(std::min<unsigned long long>(
        found.first_single, static_cast<unsigned long long>(c.row_blocks)));
  } else {
    c.medium_units = ceil_div(c.row_blocks, rowblocks_per_unit);
  }
  piece_short_and_empty_rows(c, bounds, rows, parameters,
                             pair_window > 0 ? windowed_pairs : pairs_over_whole_matrix(bounds));
  info.short_parts = short_parts_of(c);
  lap(phases, "work_split");

  // 5. The arrays. Long rows: ids, group and task offsets (scans), tasks.
  index.long_row_ids = device_array<std::int32_t>(c.rows_long, stream);
  if (c.rows_long > 0)
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(index.long_row_ids.data(), order.data(),
                                        index.long_row_ids.bytes(), cudaMemcpyDeviceToDevice,
                                        stream));
  detail::exclusive_sum(scratch, groups_of_row.data(), groups_of_row.data(), c.rows_long + 1,
                        "long rows");
  detail::exclusive_sum(scratch, tasks_of_row.data(), tasks_of_row.data(), c.rows_long + 1,
                        "long rows");
  index.long_group_ptr = std::move(groups_of_row);
  index.long_task_ptr = std::move(tasks_of_row);
  index.long_tasks = device_array<DaspLongTask>(c.long_tasks, stream);
  if (c.rows_long > 0)
    TCSPARSE_BUILD_LAUNCH(build::long_tasks_kernel, c.rows_long, stream, row_ptr, order.data(),
                          c.rows_long, index.long_group_ptr.data(), index.long_task_ptr.data(),
                          group_values, per_task,
                          reinterpret_cast<int4*>(index.long_tasks.data()));
  lap(phases, "fill_long");

  // Medium rows: ids padded to whole units, regular and irregular offsets (scans), tail widths,
  // plain units, the further pieces of split row-blocks.
  const std::int64_t padded_row_blocks = info.padded_row_blocks();
  const std::int64_t padded_rows = padded_row_blocks * block_rows;
  index.medium_row_ids = device_array<std::int32_t>(padded_rows, stream);
  index.rowblock_ptr = device_array<std::int32_t>(padded_row_blocks + 1, stream);
  index.irregular_ptr = device_array<std::int32_t>(padded_rows + 1, stream);
  index.medium_tail_widths = device_array<std::uint8_t>(padded_row_blocks, stream);
  TCSPARSE_BUILD_LAUNCH(build::padded_ids_kernel, padded_rows, stream, medium, c.rows_medium,
                        padded_rows, index.medium_row_ids.data());
  TCSPARSE_BUILD_LAUNCH(build::medium_sizes_kernel, padded_row_blocks + 1, stream, row_ptr, medium,
                        chunks.data(), c.rows_medium, c.row_blocks, padded_row_blocks, block_rows,
                        shape.width, index.rowblock_ptr.data(), index.medium_tail_widths.data(),
                        index.irregular_ptr.data());
  // the totals fit 32 bits: set_medium_counts checked the regular values, and the irregular
  // values are at most nnz
  detail::exclusive_sum(scratch, index.rowblock_ptr.data(), index.rowblock_ptr.data(),
                        padded_row_blocks + 1, "medium row-blocks");
  detail::exclusive_sum(scratch, index.irregular_ptr.data(), index.irregular_ptr.data(),
                        padded_rows + 1, "medium rows");
  {
    const std::int64_t unit_rows = rowblocks_per_unit * block_rows;
    const auto first_irregular = static_cast<std::int64_t>(std::min<unsigned long long>(
        totals.first_irregular_row, static_cast<unsigned long long>(padded_rows)));
    info.medium_plain_units = std::min(padded_rows / unit_rows, first_irregular / unit_rows);
  }
  if (rowblocks_per_unit == 1) {
    info.medium_blocks_per_piece = info.split.medium_blocks_per_warp;
    const std::int64_t split = first_single;
    if (split > 0) {
      auto extra_begin = temporary<std::int32_t>(split + 1, stream);
      auto max_pieces = temporary<std::int32_t>(1, stream);
      TCSPARSE_CUDA_CHECK(cudaMemsetAsync(max_pieces.data(), 0, sizeof(std::int32_t), stream));
      TCSPARSE_BUILD_LAUNCH(build::extra_piece_counts_kernel, split + 1, stream, pieces.data(),
                            split, extra_begin.data(), max_pieces.data());
      detail::exclusive_sum(scratch, extra_begin.data(), extra_begin.data(), split + 1,
                            "medium row-blocks");
      std::int32_t extra = 0, most_pieces = 0;
      detail::SmallDownloads counts(stream);  // one wait for both
      counts.add(extra_begin.data() + split, &extra);
      counts.add(max_pieces.data(), &most_pieces);
      counts.wait();
      info.medium_max_pieces = std::max(1, most_pieces);
      info.medium_split_row_blocks = split;
      index.medium_extra_pieces = device_array<DaspMediumPiece>(extra, stream);
      TCSPARSE_BUILD_LAUNCH(build::write_extra_pieces_kernel, split, stream, pieces.data(),
                            extra_begin.data(), split,
                            reinterpret_cast<int2*>(index.medium_extra_pieces.data()));
    }
  }
  lap(phases, "fill_medium");

  // Short rows: every kind's row ids (-1 where a tile is not full), the tiles' run order.
  const auto& parts = info.short_parts;
  std::int64_t short_tiles = 0;
  for (const DaspShortPart& part : parts) short_tiles += part.tiles;
  index.short_row_ids = device_array<std::int32_t>(short_tiles * kWarpSize, stream);
  if (short_tiles > 0) {
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(index.short_row_ids.data(), 0xFF,
                                        index.short_row_ids.bytes(), stream));
    auto rows_of = [&](int length) { return order.data() + bounds.short_begin_of[sz(length)]; };
    auto ids_of = [&](DaspShortKind kind) {
      return index.short_row_ids.data() + parts[sz(static_cast<int>(kind))].row_offset;
    };
    const std::int32_t* ones = rows_of(1);
    const std::int32_t* twos = rows_of(2);
    const std::int32_t* threes = rows_of(3);
    if (c.pairs_1_3 > 0)
      TCSPARSE_BUILD_LAUNCH(build::short_pairs_kernel, c.pairs_1_3, stream, ones, 1, threes, 1,
                            c.pairs_1_3, block_rows, ids_of(DaspShortKind::pairs_1_3));
    if (c.pairs_2_2 > 0)
      TCSPARSE_BUILD_LAUNCH(build::short_pairs_kernel, c.pairs_2_2, stream, twos, 2, twos + 1, 2,
                            c.pairs_2_2, block_rows, ids_of(DaspShortKind::pairs_2_2));
    if (c.rows_4 > 0)
      TCSPARSE_BUILD_LAUNCH(build::short_rows_4_kernel, c.rows_4, stream, rows_of(4),
                            c.short_rows_of_length[4], threes + c.pairs_1_3, c.padded_3,
                            twos + 2 * c.pairs_2_2, c.rows_4, ids_of(DaspShortKind::rows_4));
    if (c.single_1 > 0)
      TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(
          ids_of(DaspShortKind::single_1), ones + c.pairs_1_3,
          static_cast<std::size_t>(c.single_1) * sizeof(std::int32_t), cudaMemcpyDeviceToDevice,
          stream));
    if (c.short_tiles_by_row) {
      build::ShortTileStarts starts{};
      for (int kind = 0; kind < kDaspShortKinds; ++kind)
        starts.tile[kind] = parts[sz(kind)].row_offset / kWarpSize;
      auto first_rows = temporary<unsigned>(short_tiles, stream),
           sorted_first_rows = temporary<unsigned>(short_tiles, stream);
      auto codes = temporary<std::int32_t>(short_tiles, stream);
      index.short_tile_order = device_array<std::int32_t>(short_tiles, stream);
      TCSPARSE_BUILD_LAUNCH(build::short_tile_keys_kernel, short_tiles, stream,
                            index.short_row_ids.data(), short_tiles, starts, first_rows.data(),
                            codes.data());
      detail::stable_sort_pairs(scratch, first_rows.data(), sorted_first_rows.data(), codes.data(),
                                index.short_tile_order.data(), short_tiles,
                                detail::key_bits(static_cast<unsigned long long>(rows)),
                                "short tiles");
    }
  }
  lap(phases, "fill_short");

  // Empty rows, padded with -1 to whole tiles.
  const std::int64_t empty_ids = c.empty_tiles * kWarpSize;
  index.empty_row_ids = device_array<std::int32_t>(empty_ids, stream);
  if (empty_ids > 0)
    TCSPARSE_BUILD_LAUNCH(build::padded_ids_kernel, empty_ids, stream,
                          order.data() + bounds.empty_begin, c.rows_empty, empty_ids,
                          index.empty_row_ids.data());
  scratch.synchronize();  // every temporary dies on return
  lap(phases, "empty_rows");
  return index;
}

std::int64_t count_long_column_nonzeros(const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                        std::int64_t nnz, int max_medium, cudaStream_t stream) {
  if (nnz == 0) return 0;
  detail::TemporaryMemoryScope temporaries(stream);  // first: outlives the temporary
  auto total = temporary<unsigned long long>(1, stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, total.bytes(), stream));
  TCSPARSE_BUILD_LAUNCH(build::long_column_nonzeros_kernel, nnz, stream, row_ptr, col_idx, nnz,
                        max_medium, total.data());
  return static_cast<std::int64_t>(download_one(total.data(), stream));
}

template <typename Value>
DaspDeviceIndex upload_index(const DaspLayout<Value>& layout) {
  DaspDeviceIndex index;
  index.info = layout;  // the scalars
  detail::HostUploader uploader(detail::current_host_upload());
  auto upload = [&](auto& device, const auto& host) {
    using T = std::remove_cv_t<std::remove_reference_t<decltype(*host.data())>>;
    device = DeviceBuffer<T>(host.size());
    if (!host.empty()) uploader.copy(device.data(), host.data(), host.size() * sizeof(T));
  };
  upload(index.long_row_ids, layout.long_row_ids);
  upload(index.long_group_ptr, layout.long_group_ptr);
  upload(index.long_task_ptr, layout.long_task_ptr);
  upload(index.long_tasks, layout.long_tasks);
  upload(index.medium_row_ids, layout.medium_row_ids);
  upload(index.rowblock_ptr, layout.rowblock_ptr);
  upload(index.irregular_ptr, layout.irregular_ptr);
  upload(index.medium_tail_widths, layout.medium_tail_widths);
  upload(index.medium_extra_pieces, layout.medium_extra_pieces);
  upload(index.short_row_ids, layout.short_row_ids);
  upload(index.short_tile_order, layout.short_tile_order);
  upload(index.empty_row_ids, layout.empty_row_ids);
  uploader.finish();
  return index;
}

void plan_row_order_on_device(const DaspDeviceIndex& index, std::int32_t* plan_to_caller,
                              std::int32_t* caller_to_plan, cudaStream_t stream) {
  const DaspLayoutInfo& info = index.info;
  build::WarpOrderIds in{};
  in.long_row_ids = index.long_row_ids.data();
  in.long_rows = static_cast<long long>(index.long_row_ids.size());
  in.medium_row_ids = index.medium_row_ids.data();
  in.medium_ids = static_cast<long long>(index.medium_row_ids.size());
  in.short_row_ids = index.short_row_ids.data();
  in.short_ids = static_cast<long long>(index.short_row_ids.size());
  in.short_tile_order = index.short_tile_order.empty() ? nullptr : index.short_tile_order.data();
  for (int kind = 0; kind < kDaspShortKinds; ++kind)
    in.short_starts.tile[kind] = info.short_parts[sz(kind)].row_offset / kWarpSize;
  in.empty_row_ids = index.empty_row_ids.data();
  in.empty_ids = static_cast<long long>(index.empty_row_ids.size());
  const std::int64_t total = in.long_rows + in.medium_ids + in.short_ids + in.empty_ids;
  if (total == 0) return;
  detail::TemporaryMemoryScope temporaries(stream);  // first: outlives the temporaries
  DeviceScratch scratch(stream);
  auto ids = temporary<std::int32_t>(total, stream);
  TCSPARSE_BUILD_LAUNCH(build::warp_order_ids_kernel, total, stream, in, ids.data());
  const std::int64_t listed =
      detail::select_if(scratch, ids.data(), plan_to_caller, total, build::IsRow{}, "row ids");
  if (listed != info.rows)
    throw Error("DASP plan row order: " + std::to_string(listed) + " rows listed for " +
                std::to_string(info.rows) + " (a layout bug)");
  detail::invert_order_async(plan_to_caller, listed, caller_to_plan, stream);
  scratch.synchronize();
}

template <typename Value>
DaspLayout<Value> download_index(const DaspDeviceIndex& index) {
  DaspLayout<Value> layout;
  static_cast<DaspLayoutInfo&>(layout) = index.info;
  layout.long_row_ids = index.long_row_ids.download();
  layout.long_group_ptr = index.long_group_ptr.download();
  layout.long_task_ptr = index.long_task_ptr.download();
  layout.long_tasks = index.long_tasks.download();
  layout.medium_row_ids = index.medium_row_ids.download();
  layout.rowblock_ptr = index.rowblock_ptr.download();
  layout.irregular_ptr = index.irregular_ptr.download();
  layout.medium_tail_widths = index.medium_tail_widths.download();
  layout.medium_extra_pieces = index.medium_extra_pieces.download();
  layout.short_row_ids = index.short_row_ids.download();
  layout.short_tile_order = index.short_tile_order.download();
  layout.empty_row_ids = index.empty_row_ids.download();
  return layout;
}

#define TCSPARSE_DASP_DEVICE_INSTANTIATE(Value)                                                    \
  template DaspDeviceIndex upload_index(const DaspLayout<Value>&);                                 \
  template DaspLayout<Value> download_index(const DaspDeviceIndex&);
TCSPARSE_DASP_DEVICE_INSTANTIATE(double)
TCSPARSE_DASP_DEVICE_INSTANTIATE(half)
TCSPARSE_DASP_DEVICE_INSTANTIATE(bfloat16)
#undef TCSPARSE_DASP_DEVICE_INSTANTIATE
#undef TCSPARSE_BUILD_LAUNCH

}  // namespace tcsparse::dasp
