// CSR-Partial-Overlap (Electronics 2023, §4.1, §4.3): the host model of what the GPU builds and
// runs. The method keeps the caller's CSR as it is; its only layout is a batch table:
//
//   batches[b] = {begin_row, end_row}   runs of consecutive non-long rows (csr_overlap_rules.hpp:
//                                       at most max_batch_size nonzeros and max_batch_rows rows)
//   long_rows[j]                        rows of more than max_batch_size nonzeros, ascending
//   long_task_ptr[j] .. [j+1]           the pieces (blocks) of long row j, long_row_piece
//                                       nonzeros each
//   long_row_tasks[t]                   piece t itself: row, nonzeros, piece count
//
// build_batch_table builds on the host exactly the table that the GPU builds (csr_overlap.cu), and
// host_apply walks it exactly as the kernels do (same blocks or warps and their batches, vector
// size, row order, lane partition and reduction order), accumulating in double. With
// partition=merge_path the layout is the merge-path tile starts instead (merge_tile_starts, the
// GPU's; merge_host_apply walks them); with partition=row_vectors there is none, only a launch
// shape (row_vector_host_apply walks the rows as its vectors do).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "csr_overlap/csr_overlap_parameters.hpp"
#include "csr_overlap/csr_overlap_rules.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"

namespace tcsparse::csr_overlap {

/// One batch: rows [begin_row, end_row). Laid out as the device's int2.
struct BatchRange {
  std::int32_t begin_row = 0;
  std::int32_t end_row = 0;
  friend bool operator==(const BatchRange&, const BatchRange&) = default;
};

struct BatchTable {
  std::vector<BatchRange> batches;
  std::vector<std::int32_t> long_rows;
  std::vector<std::int32_t> long_task_ptr;  ///< long_rows.size() + 1 entries, from 0
  std::vector<LongRowTask> long_row_tasks;   ///< long_task_ptr.back() entries

  std::int64_t long_tasks() const { return long_task_ptr.empty() ? 0 : long_task_ptr.back(); }
  friend bool operator==(const BatchTable&, const BatchTable&) = default;
};

/// The batch table of a CSR with these row offsets (rows + 1 entries), as the GPU builds it.
BatchTable build_batch_table(std::span<const std::int32_t> row_ptr, PartitionRule rule,
                             std::int32_t long_row_piece);

/// How the batch kernel's grid takes the batches. batch_unit=block: block k takes batches
/// [k * batches_per_block, min((k + 1) * batches_per_block, batches)) (paper §4.1.2,
/// block_batch_num contiguous batches a block). batch_unit=warp (warps_per_block > 0): warp
/// g = k * warps_per_block + w of the grid takes batches g, g + warps(), g + 2 warps(), ...
struct BatchLaunch {
  std::int64_t blocks = 0;
  std::int64_t batches_per_block = 0;  ///< block unit
  std::int64_t warps_per_block = 0;    ///< warp unit; 0 for the block unit

  std::int64_t warps() const { return blocks * warps_per_block; }
  /// Whether every one of `batches` batches has a block or a warp.
  bool covers(std::int64_t batches) const {
    return warps_per_block > 0 ? batches <= 0 || warps() > 0
                               : blocks * batches_per_block >= batches;
  }
};
/// The grid for `batches` batches: with batches_per_block == 0, at most `max_blocks` (> 0)
/// resident blocks share them (one wave); else every block takes `batches_per_block` (the last
/// fewer). No block without a batch.
BatchLaunch batch_launch(std::int64_t batches, std::int64_t max_blocks,
                         std::int64_t batches_per_block = 0);

/// The grid of batch_unit=warp: blocks of `warps_per_block` warps, a warp a batch while there are
/// fewer batches than `max_blocks` (> 0) blocks' warps, else one wave of `max_blocks` blocks whose
/// warps stride over the batches. No block without a batch.
BatchLaunch warp_batch_launch(std::int64_t batches, std::int64_t max_blocks,
                              std::int64_t warps_per_block);

/// Dynamic shared memory of the batch kernel: pipeline_stages stages of values and columns
/// (stage_capacity(max_batch_size) elements each) and the warp-pass row list; with
/// batch_unit=warp, that many stages for every warp of the block, each with the batch's row
/// offsets (warp_stage_offsets) and no list.
std::size_t batch_shared_bytes(const CsrOverlapParameters& parameters, std::size_t value_bytes);

/// Blocks of the long-row kernel for `tasks` pieces when the GPU holds `resident_blocks` of them
/// at once: one wave at most, a block a piece below it (grid-stride above it).
std::int64_t long_row_blocks(std::int64_t tasks, std::int64_t resident_blocks);

/// What the kernels are given besides the table.
struct KernelShape {
  int threads_per_block = kDefaultThreadsPerBlock;
  /// Threads of a long-row block (CsrOverlapParameters::long_row_threads_for).
  int long_row_threads = kDefaultThreadsPerBlock;
  BatchUnit batch_unit = kDefaultBatchUnit;
  VectorSizeRule vector_sizes;
  std::int32_t long_row_piece = kDefaultLongRowPiece;
  BatchLaunch launch;
  std::int64_t long_row_blocks = 0;
  /// Nonzeros a long-row thread reads at a time (device::kLongRowChunk: 4 for fp32, 8 for
  /// 16-bit values) where the arrays start at 16-byte boundaries; 1: one at a time (and fp64).
  std::int32_t long_row_chunk = 1;
};

/// y = alpha * A * x + beta * y by walking the table exactly as the kernels do, accumulating in
/// double. beta == 0 ignores y's contents. Throws Error if a row would be written twice or not at
/// all, or a batch exceeds the shared-memory stage (a partition bug).
template <typename Value>
void host_apply(const CsrMatrix<Value, std::int32_t>& matrix, const BatchTable& table,
                PartitionRule rule, const KernelShape& shape, std::span<const Value> x,
                std::span<double> y, double alpha, double beta);

/// partition=merge_path: where each tile of tile_items items starts on the merge path
/// (csr_overlap_rules.hpp), then the end {rows, nnz}: the starts the GPU computes.
std::vector<MergeCoordinate> merge_tile_starts(std::span<const std::int32_t> row_ptr,
                                               std::int64_t tile_items);

/// y = alpha * A * x + beta * y by walking the merge-path tiles as the kernels do: each tile's
/// items in order (a nonzero adds its product, a row end completes the row), the sum of a row that
/// a tile boundary cuts carried into the next tile, accumulating in double. beta == 0 ignores y's
/// contents. Throws Error if a tile does not start where the previous one ended or holds more
/// than tile_items items, or a row would be written twice or not at all.
template <typename Value>
void merge_host_apply(const CsrMatrix<Value, std::int32_t>& matrix,
                      std::span<const MergeCoordinate> tile_starts, std::int64_t tile_items,
                      std::span<const Value> x, std::span<double> y, double alpha, double beta);

/// Statistics of a merge-path plan (PlanStats::details, layout_statistics): the tiles, the items
/// a thread, and with partition=auto the long rows and the column-locality samples that chose
/// it (long_rows >= 0, locality.samples >= 0).
Json merge_path_statistics(std::int64_t rows, std::int64_t nnz,
                           const CsrOverlapParameters& parameters, std::int64_t long_rows,
                           ColumnLocality locality = {-1, 0});

/// The longest row of a CSR with these row offsets (0 for none): what partition=auto asks
/// (row_vectors_suit), as the GPU's table build finds it (TableCounts::longest_row).
std::int64_t longest_row(std::span<const std::int32_t> row_ptr);

/// y = alpha * A * x + beta * y as the row-vector kernel computes it, accumulating in double:
/// lane l of a row's vector adds the row's products l, l + vector_size, ... in this order (for
/// every value type but fp64 folding its sum into a second one after every kRowVectorFoldTrips
/// loop trips of vector_size x steps products), then the lanes' sums are added by the butterfly
/// of arch::group_sum (lanes l and l ^ h, h = vector_size / 2, ..., 1). beta == 0 ignores y's
/// contents.
template <typename Value>
void row_vector_host_apply(const CsrMatrix<Value, std::int32_t>& matrix, RowVectorShape shape,
                           std::span<const Value> x, std::span<double> y, double alpha,
                           double beta);

/// The column-locality samples of a CSR (csr_overlap_rules.hpp is_locality_sample), as the
/// GPU's table build counts them (TableCounts::locality_samples, near_samples).
ColumnLocality column_locality(std::span<const std::int32_t> row_ptr,
                               std::span<const std::int32_t> col_idx);

/// Statistics of a row-vector plan (PlanStats::details, layout_statistics): the shape, the
/// blocks, the mean row length, and with partition=auto the longest row and the column-locality
/// samples that chose it (longest_row >= 0, locality.samples >= 0).
Json row_vector_statistics(std::int64_t rows, std::int64_t nnz, RowVectorShape shape,
                           std::int64_t longest_row, ColumnLocality locality = {-1, 0});

/// Statistics of a batch table (PlanStats::details, layout_statistics, `tcsparse info`):
/// "partition": "rows", batches, rows and nonzeros per vector size, long rows and their pieces,
/// the partition settings.
Json table_statistics(std::span<const std::int32_t> row_ptr, const BatchTable& table,
                      const CsrOverlapParameters& parameters);

/// The statistics of the plan `matrix` would get (no GPU): table_statistics of its host-built
/// table, or merge_path_statistics / row_vector_statistics where the partition is or chooses
/// merge_path / row_vectors (the shape of fp64 values).
Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                            const CsrOverlapParameters& parameters);

}  // namespace tcsparse::csr_overlap
