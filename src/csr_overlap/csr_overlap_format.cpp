// CSR-Partial-Overlap: host model of the batch table and of the kernels' walk over it.
#include "csr_overlap/csr_overlap_format.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>

#include "tcsparse/error.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::csr_overlap {
namespace {

/// The warp-shuffle tree of the kernels (__shfl_down_sync with width `width`): lane 0's result.
double tree_reduce(std::vector<double>& lanes, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2)
    for (int lane = 0; lane < offset; ++lane)
      lanes[static_cast<std::size_t>(lane)] += lanes[static_cast<std::size_t>(lane + offset)];
  return lanes[0];
}

double combine(double alpha, double sum, double beta, double old_y) {
  return beta == 0.0 ? alpha * sum : alpha * sum + beta * old_y;
}

}  // namespace

BatchTable build_batch_table(std::span<const std::int32_t> row_ptr, PartitionRule rule,
                             std::int32_t long_row_piece) {
  if (row_ptr.empty()) throw Error("csr_overlap: row_ptr must hold rows + 1 offsets");
  if (rule.max_batch_size < 2 || rule.max_batch_rows < 1 || long_row_piece < 1)
    throw Error("csr_overlap: invalid partition settings");
  const std::int64_t rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const std::int32_t* rp = row_ptr.data();
  // the GPU's passes, position by position: counts, exclusive scan, scatter
  std::vector<RowKind> kinds(static_cast<std::size_t>(rows) + 1);
  std::vector<TableCounts> scanned(static_cast<std::size_t>(rows) + 1);
  TableCounts running;
  for (std::int64_t r = 0; r <= rows; ++r) {
    const RowOffsets offsets = row_offsets(rp, r, rows);
    const RowKind kind = row_kind(r, rows, offsets, rule);
    kinds[static_cast<std::size_t>(r)] = kind;
    scanned[static_cast<std::size_t>(r)] = running;
    running = running + row_counts(kind, offsets.end - offsets.start, long_row_piece);
  }
  const TableCounts totals = scanned[static_cast<std::size_t>(rows)];
  BatchTable table;
  table.batches.assign(static_cast<std::size_t>(totals.batches), BatchRange{-1, -1});
  table.long_rows.assign(static_cast<std::size_t>(totals.long_rows), -1);
  table.long_task_ptr.assign(static_cast<std::size_t>(totals.long_rows) + 1, -1);
  table.long_task_ptr.back() = static_cast<std::int32_t>(totals.long_tasks);
  for (std::int64_t p = 0; p <= rows; ++p) {
    const auto at = static_cast<std::size_t>(p);
    const RowKind previous = p > 0 ? kinds[at - 1] : RowKind::inside_batch;
    const ScatterWrites w = scatter_writes(p, rows, kinds[at], previous, scanned[at]);
    const auto row = static_cast<std::int32_t>(p);
    auto check = [&](std::int64_t index, std::size_t size) {
      if (index >= static_cast<std::int64_t>(size))
        throw Error("csr_overlap: table index out of range at row " + std::to_string(p));
      return static_cast<std::size_t>(index);
    };
    if (w.long_index >= 0) {
      table.long_rows[check(w.long_index, table.long_rows.size())] = row;
      table.long_task_ptr[static_cast<std::size_t>(w.long_index)] =
          static_cast<std::int32_t>(w.long_first_task);
    }
    if (w.begin_index >= 0)
      table.batches[check(w.begin_index, table.batches.size())].begin_row = row;
    if (w.end_index >= 0) table.batches[check(w.end_index, table.batches.size())].end_row = row;
  }
  for (const BatchRange& batch : table.batches)
    if (batch.begin_row < 0 || batch.end_row <= batch.begin_row)
      throw Error("csr_overlap: a batch without rows (" + std::to_string(batch.begin_row) + ", " +
                  std::to_string(batch.end_row) + ")");
  for (std::size_t j = 0; j < table.long_rows.size(); ++j) {
    const std::int32_t row = table.long_rows[j];
    const std::int32_t pieces = long_row_pieces(row_length(rp, row), long_row_piece);
    if (table.long_task_ptr[j + 1] - table.long_task_ptr[j] != pieces)
      throw Error("csr_overlap: long row " + std::to_string(row) + " numbered " +
                  std::to_string(table.long_task_ptr[j + 1] - table.long_task_ptr[j]) +
                  " pieces, expected " + std::to_string(pieces));
    for (std::int32_t index = 0; index < pieces; ++index)
      table.long_row_tasks.push_back(
          long_row_task(row, rp[row], rp[row + 1], index, pieces, long_row_piece));
  }
  return table;
}

BatchLaunch batch_launch(std::int64_t batches, std::int64_t max_blocks,
                         std::int64_t batches_per_block) {
  if (batches <= 0) return {};
  const std::int64_t blocks = std::min(batches, std::max<std::int64_t>(max_blocks, 1));
  BatchLaunch launch;
  launch.batches_per_block =
      batches_per_block > 0 ? batches_per_block : (batches + blocks - 1) / blocks;
  launch.blocks = (batches + launch.batches_per_block - 1) / launch.batches_per_block;
  return launch;
}

BatchLaunch warp_batch_launch(std::int64_t batches, std::int64_t max_blocks,
                              std::int64_t warps_per_block) {
  if (batches <= 0) return {};
  BatchLaunch launch;
  launch.warps_per_block = std::max<std::int64_t>(warps_per_block, 1);
  launch.blocks = std::min((batches + launch.warps_per_block - 1) / launch.warps_per_block,
                           std::max<std::int64_t>(max_blocks, 1));
  return launch;
}

std::size_t batch_shared_bytes(const CsrOverlapParameters& parameters, std::size_t value_bytes) {
  const auto capacity = static_cast<std::size_t>(stage_capacity(parameters.max_batch_size));
  if (parameters.batch_unit == BatchUnit::warp) {
    const auto offsets =
        static_cast<std::size_t>(warp_stage_offsets(parameters.partition_rule().max_batch_rows));
    const auto warps = static_cast<std::size_t>(parameters.threads_per_block / 32);
    // copy=direct: only the products (in the accumulator type: fp32 for 16-bit values)
    const std::size_t element_bytes =
        parameters.copy == CopyMechanism::direct ? std::max<std::size_t>(value_bytes, 4)
                                                 : value_bytes + sizeof(std::int32_t);
    return warps * static_cast<std::size_t>(parameters.pipeline_stages) *
           (capacity * element_bytes + offsets * sizeof(std::int32_t));
  }
  const auto list = static_cast<std::size_t>(
      warp_row_capacity(parameters.max_batch_size, parameters.warp_row_factor));
  return static_cast<std::size_t>(parameters.pipeline_stages) * capacity *
             (value_bytes + sizeof(std::int32_t)) +
         list * sizeof(std::int32_t);
}

std::int64_t long_row_blocks(std::int64_t tasks, std::int64_t resident_blocks) {
  return std::min<std::int64_t>(tasks, std::max<std::int64_t>(resident_blocks, 1));
}

template <typename Value>
void host_apply(const CsrMatrix<Value, std::int32_t>& matrix, const BatchTable& table,
                PartitionRule rule, const KernelShape& shape, std::span<const Value> x,
                std::span<double> y, double alpha, double beta) {
  const std::int32_t* rp = matrix.row_ptr.data();
  const auto rows = static_cast<std::size_t>(matrix.rows);
  if (y.size() != rows || x.size() != static_cast<std::size_t>(matrix.cols))
    throw Error("csr_overlap host_apply: x or y has the wrong size");
  std::vector<char> written(rows, 0);
  auto write = [&](std::int64_t row, double sum) {
    auto& w = written[static_cast<std::size_t>(row)];
    if (w) throw Error("csr_overlap host_apply: row " + std::to_string(row) + " written twice");
    w = 1;
    y[static_cast<std::size_t>(row)] = combine(alpha, sum, beta, y[static_cast<std::size_t>(row)]);
  };
  auto product = [&](std::int64_t i) {
    const auto k = static_cast<std::size_t>(i);
    return to_double(matrix.values[k]) * to_double(x[static_cast<std::size_t>(matrix.col_idx[k])]);
  };
  const int threads = shape.threads_per_block;
  // threads that share a batch: the block, or a warp
  const int batch_threads = shape.batch_unit == BatchUnit::warp ? 32 : threads;
  const std::int64_t batches = static_cast<std::int64_t>(table.batches.size());

  // the batch kernel, one batch: the block's or the warp's walk
  std::vector<double> lanes(32);
  auto compute_batch = [&](std::int64_t b) {
    const BatchRange batch = table.batches[static_cast<std::size_t>(b)];
    const std::int64_t begin_nnz = rp[batch.begin_row], end_nnz = rp[batch.end_row];
    if (copy_end(end_nnz) - copy_begin(begin_nnz) > stage_capacity(rule.max_batch_size))
      throw Error("csr_overlap host_apply: batch " + std::to_string(b) +
                  " does not fit a shared-memory stage");
    if (shape.batch_unit == BatchUnit::warp &&
        batch.end_row - batch.begin_row > rule.max_batch_rows)
      throw Error("csr_overlap host_apply: batch " + std::to_string(b) +
                  " has more rows than a warp's stage holds offsets for");
    const BatchMode mode = batch_mode(end_nnz - begin_nnz, batch.end_row - batch.begin_row,
                                      shape.vector_sizes, batch_threads);
    const int vs = mode.width;
    if (vs > 32) {
      // group mode: one group of vs threads a row (at most threads / vs rows); warp w of the
      // group, lane l: nonzeros w * 32 + l, + vs, ...; warp trees; the warp sums in order
      if ((batch.end_row - batch.begin_row) * static_cast<std::int64_t>(vs) > threads)
        throw Error("csr_overlap host_apply: batch " + std::to_string(b) +
                    " has more rows than groups");
      for (std::int64_t row = batch.begin_row; row < batch.end_row; ++row) {
        double total = 0.0;
        for (int w = 0; w < vs / 32; ++w) {
          std::fill(lanes.begin(), lanes.end(), 0.0);
          for (int lane = 0; lane < 32; ++lane)
            for (std::int64_t i = rp[row] + w * 32 + lane; i < rp[row + 1]; i += vs)
              lanes[static_cast<std::size_t>(lane)] += product(i);
          total += tree_reduce(lanes, 32);
        }
        write(row, total);
      }
      return;
    }
    // vector v takes rows begin + v, begin + v + vectors, ... ; lane l of a vector takes the
    // row's nonzeros l, l + vs, ...; then the shuffle tree of width vs. A row longer than
    // warp_row_length (> 0) is taken by the warp pass instead: lanes l, l + 32, ...; tree of 32
    std::int64_t warp_rows = 0;
    for (std::int64_t row = batch.begin_row; row < batch.end_row; ++row) {
      const bool to_warp = mode.warp_row_length > 0 && row_length(rp, row) > mode.warp_row_length;
      const int width = to_warp ? 32 : vs;
      warp_rows += to_warp ? 1 : 0;
      std::fill(lanes.begin(), lanes.end(), 0.0);
      for (int lane = 0; lane < width; ++lane)
        for (std::int64_t i = rp[row] + lane; i < rp[row + 1]; i += width)
          lanes[static_cast<std::size_t>(lane)] += product(i);
      write(row, tree_reduce(lanes, width));
    }
    // the block's shared-memory list (a warp takes its rows in turn, with no list)
    if (shape.batch_unit == BatchUnit::block &&
        warp_rows > warp_row_capacity(rule.max_batch_size, shape.vector_sizes.warp_row_factor))
      throw Error("csr_overlap host_apply: batch " + std::to_string(b) +
                  " overflows the warp-pass list");
  };
  if (shape.batch_unit == BatchUnit::warp) {
    // warp g of the grid takes batches g, g + warps, ...
    const std::int64_t warps = shape.launch.warps();
    for (std::int64_t g = 0; g < warps; ++g)
      for (std::int64_t b = g; b < batches; b += warps) compute_batch(b);
  } else {
    // block k takes its contiguous chunk of batches through the stages
    for (std::int64_t block = 0; block < shape.launch.blocks; ++block) {
      const std::int64_t first = block * shape.launch.batches_per_block;
      const std::int64_t count = std::min(shape.launch.batches_per_block, batches - first);
      for (std::int64_t b = first; b < first + count; ++b) compute_batch(b);
    }
  }
  if (!shape.launch.covers(batches))
    throw Error("csr_overlap host_apply: the grid leaves batches out");

  // the long-row kernel: block-stride over the pieces (their descriptors); each piece: thread t
  // takes nonzeros t, t + threads, ...; warp trees; warp 0's tree over the warp sums
  const std::int64_t tasks = table.long_tasks();
  if (static_cast<std::int64_t>(table.long_row_tasks.size()) != tasks)
    throw Error("csr_overlap host_apply: the long-row task list does not match long_task_ptr");
  std::vector<double> partials(static_cast<std::size_t>(tasks), 0.0);
  const int long_row_threads = shape.long_row_threads;
  const int warps = long_row_threads / 32;
  if (shape.long_row_chunk < 1)
    throw Error("csr_overlap host_apply: long_row_chunk " + std::to_string(shape.long_row_chunk) +
                " (expected 1 or more)");
  for (std::int64_t block = 0; block < shape.long_row_blocks; ++block)
    for (std::int64_t t = block; t < tasks; t += shape.long_row_blocks) {
      const LongRowTask& task = table.long_row_tasks[static_cast<std::size_t>(t)];
      const std::int64_t row = task.row, start = task.begin, end = task.end;
      // a thread's nonzeros: with chunks (device::dot_from_global_in_chunks) its head nonzero,
      // its chunks t, t + threads, ... and its tail nonzero; else t, t + threads, ...
      const std::int64_t chunk = shape.long_row_chunk;
      const std::int64_t first_chunk = (start + chunk - 1) / chunk;
      const std::int64_t end_chunk = std::max(end / chunk, first_chunk);
      const std::int64_t head_end = std::min(first_chunk * chunk, end);
      const std::int64_t tail_begin = std::max(end_chunk * chunk, head_end);
      const auto thread_sum = [&](std::int64_t thread) {
        double sum = 0.0;
        if (chunk == 1) {
          for (std::int64_t i = start + thread; i < end; i += long_row_threads)
            sum += product(i);
          return sum;
        }
        if (start + thread < head_end) sum += product(start + thread);
        for (std::int64_t c = first_chunk + thread; c < end_chunk; c += long_row_threads)
          for (std::int64_t i = c * chunk; i < (c + 1) * chunk; ++i) sum += product(i);
        if (tail_begin + thread < end) sum += product(tail_begin + thread);
        return sum;
      };
      std::vector<double> warp_sums(32, 0.0);
      for (int w = 0; w < warps; ++w) {
        for (int lane = 0; lane < 32; ++lane)
          lanes[static_cast<std::size_t>(lane)] = thread_sum(w * 32 + lane);
        warp_sums[static_cast<std::size_t>(w)] = tree_reduce(lanes, 32);
      }
      const double sum = tree_reduce(warp_sums, 32);
      if (task.pieces == 1)
        write(row, sum);
      else
        partials[static_cast<std::size_t>(t)] = sum;
    }
  if (tasks > 0 && shape.long_row_blocks <= 0)
    throw Error("csr_overlap host_apply: no blocks for the long rows");
  // the combine kernel: one thread a long row of several pieces, pieces in order
  for (std::size_t j = 0; j < table.long_rows.size(); ++j) {
    const std::int64_t begin = table.long_task_ptr[j], end = table.long_task_ptr[j + 1];
    if (end - begin < 2) continue;
    double sum = 0.0;
    for (std::int64_t t = begin; t < end; ++t) sum += partials[static_cast<std::size_t>(t)];
    write(table.long_rows[j], sum);
  }
  for (std::size_t r = 0; r < rows; ++r)
    if (!written[r]) throw Error("csr_overlap host_apply: row " + std::to_string(r) + " not written");
}

Json table_statistics(std::span<const std::int32_t> row_ptr, const BatchTable& table,
                      const CsrOverlapParameters& parameters) {
  const PartitionRule rule = parameters.partition_rule();
  const VectorSizeRule sizes = parameters.vector_size_rule();
  std::array<std::int64_t, kVectorSizes> batches_of{}, rows_of{}, nnz_of{};
  std::int64_t batch_nnz = 0, batch_rows = 0, max_nnz = 0, max_rows = 0, single_row = 0;
  std::int64_t group_batches = 0, group_rows = 0, warp_rows = 0, warp_nnz = 0;
  for (const BatchRange& batch : table.batches) {
    const std::int64_t rows = batch.end_row - batch.begin_row;
    const std::int64_t nnz = row_ptr[static_cast<std::size_t>(batch.end_row)] -
                             row_ptr[static_cast<std::size_t>(batch.begin_row)];
    const BatchMode mode = batch_mode(nnz, rows, sizes, parameters.batch_threads());
    if (mode.width > 32) {
      group_batches += 1;
      group_rows += rows;
    } else if (mode.warp_row_length > 0) {
      for (std::int64_t r = batch.begin_row; r < batch.end_row; ++r)
        if (row_length(row_ptr.data(), r) > mode.warp_row_length) {
          warp_rows += 1;
          warp_nnz += row_length(row_ptr.data(), r);
        }
    }
    int k = 0;
    for (int vs = vector_size_for(nnz, rows, sizes); vs > 1; vs /= 2) ++k;
    batches_of[static_cast<std::size_t>(k)] += 1;
    rows_of[static_cast<std::size_t>(k)] += rows;
    nnz_of[static_cast<std::size_t>(k)] += nnz;
    batch_nnz += nnz;
    batch_rows += rows;
    max_nnz = std::max(max_nnz, nnz);
    max_rows = std::max(max_rows, rows);
    single_row += rows == 1 ? 1 : 0;
  }
  std::int64_t long_nnz = 0;
  for (const std::int32_t row : table.long_rows)
    long_nnz += row_ptr[static_cast<std::size_t>(row) + 1] - row_ptr[static_cast<std::size_t>(row)];
  Json by_size = Json::object();
  for (int k = 0; k < kVectorSizes; ++k) {
    const auto i = static_cast<std::size_t>(k);
    by_size[std::to_string(1 << k)] = {
        {"batches", batches_of[i]}, {"rows", rows_of[i]}, {"nnz", nnz_of[i]}};
  }
  const auto count = static_cast<std::int64_t>(table.batches.size());
  Json switch_points = Json::array();
  for (const std::int32_t point : parameters.switch_points) switch_points.push_back(point);
  return {
      {"partition", "rows"},
      {"max_batch_size", rule.max_batch_size},
      {"max_batch_rows", rule.max_batch_rows},
      {"batches", count},
      {"batch_rows", batch_rows},
      {"batch_nnz", batch_nnz},
      {"batch_nnz_mean", count ? static_cast<double>(batch_nnz) / static_cast<double>(count) : 0.0},
      {"batch_nnz_max", max_nnz},
      {"batch_rows_max", max_rows},
      {"single_row_batches", single_row},
      {"group_batches", group_batches},
      {"group_rows", group_rows},
      {"warp_pass_rows", warp_rows},
      {"warp_pass_nnz", warp_nnz},
      {"pipeline_stages", parameters.pipeline_stages},
      {"batches_per_block", parameters.batches_per_block > 0 ? Json(parameters.batches_per_block)
                                                             : Json("auto")},
      {"row_threads_max", parameters.row_threads_max >= kRowThreadsBlock
                              ? Json("block")
                              : Json(parameters.row_threads_max)},
      {"warp_row_factor", parameters.warp_row_factor},
      {"batch_unit", parameters.batch_unit == BatchUnit::warp ? "warp" : "block"},
      {"copy", copy_mechanism_name(parameters.copy)},
      {"long_rows", static_cast<std::int64_t>(table.long_rows.size())},
      {"long_row_nnz", long_nnz},
      {"long_row_piece", parameters.long_row_piece},
      {"long_row_tasks", table.long_tasks()},
      {"vector_size", parameters.vector_size ? Json(parameters.vector_size) : Json("auto")},
      {"switch_points", switch_points},
      {"by_vector_size", by_size},
  };
}

std::vector<MergeCoordinate> merge_tile_starts(std::span<const std::int32_t> row_ptr,
                                               std::int64_t tile_items) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const std::int64_t nnz = row_ptr.back();
  const std::int64_t tiles = merge_tiles(rows, nnz, tile_items);
  std::vector<MergeCoordinate> starts(static_cast<std::size_t>(tiles) + 1);
  for (std::int64_t t = 0; t <= tiles; ++t)
    starts[static_cast<std::size_t>(t)] =
        merge_tile_start(row_ptr.data(), rows, nnz, tile_items, t);
  return starts;
}

template <typename Value>
void merge_host_apply(const CsrMatrix<Value, std::int32_t>& matrix,
                      std::span<const MergeCoordinate> tile_starts, std::int64_t tile_items,
                      std::span<const Value> x, std::span<double> y, double alpha, double beta) {
  std::vector<char> written(static_cast<std::size_t>(matrix.rows), 0);
  const auto fail = [](const std::string& what) {
    throw Error("csr_overlap: merge-path tiles: " + what);
  };
  MergeCoordinate at{};  // where the walk is
  double sum = 0.0;      // of row at.row, carried across tile boundaries
  for (std::size_t t = 0; t + 1 < tile_starts.size(); ++t) {
    const MergeCoordinate start = tile_starts[t], end = tile_starts[t + 1];
    if (start != at)
      fail("tile " + std::to_string(t) + " starts at (" + std::to_string(start.row) + ", " +
           std::to_string(start.nonzero) + "), not where the walk is (" + std::to_string(at.row) +
           ", " + std::to_string(at.nonzero) + ")");
    if ((end.row - start.row) + (end.nonzero - start.nonzero) > tile_items)
      fail("tile " + std::to_string(t) + " holds more than " + std::to_string(tile_items) +
           " items");
    while (at.row < end.row || at.nonzero < end.nonzero) {
      const bool in_row = at.row < matrix.rows &&
                          at.nonzero < matrix.row_ptr[static_cast<std::size_t>(at.row) + 1];
      if (in_row) {  // the next item is a nonzero
        if (at.nonzero >= end.nonzero)
          fail("tile " + std::to_string(t) + " ends inside a row it ends");
        const auto j = static_cast<std::size_t>(at.nonzero++);
        sum += to_double(matrix.values[j]) *
               to_double(x[static_cast<std::size_t>(matrix.col_idx[j])]);
      } else {  // the next item is the end of row at.row
        if (at.row >= end.row) fail("tile " + std::to_string(t) + " ends more rows than it holds");
        const auto row = static_cast<std::size_t>(at.row++);
        if (written[row]++) fail("row " + std::to_string(row) + " written twice");
        y[row] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[row];
        sum = 0.0;
      }
    }
  }
  if (at.row != matrix.rows || at.nonzero != matrix.nnz())
    fail("the tiles end at (" + std::to_string(at.row) + ", " + std::to_string(at.nonzero) +
         "), not at (rows, nnz)");
}

namespace {

/// The column-locality samples into a plan's statistics (where known: samples >= 0).
void add_locality(Json& statistics, ColumnLocality locality) {
  if (locality.samples < 0) return;
  statistics["locality_samples"] = locality.samples;
  statistics["near_samples"] = locality.near;
  statistics["scattered_columns"] = locality.scattered();
}

}  // namespace

Json merge_path_statistics(std::int64_t rows, std::int64_t nnz,
                           const CsrOverlapParameters& parameters, std::int64_t long_rows,
                           ColumnLocality locality) {
  const std::int64_t tile_items = std::int64_t{kMergeTileThreads} * parameters.merge_items;
  Json statistics = {{"partition", "merge_path"},
                     {"merge_tiles", merge_tiles(rows, nnz, tile_items)},
                     {"merge_items", parameters.merge_items},
                     {"threads_per_block", kMergeTileThreads}};
  if (long_rows >= 0) statistics["long_rows"] = long_rows;
  add_locality(statistics, locality);
  return statistics;
}

std::int64_t longest_row(std::span<const std::int32_t> row_ptr) {
  std::int64_t longest = 0;
  for (std::size_t r = 1; r < row_ptr.size(); ++r)
    longest = std::max<std::int64_t>(longest, row_ptr[r] - row_ptr[r - 1]);
  return longest;
}

template <typename Value>
void row_vector_host_apply(const CsrMatrix<Value, std::int32_t>& matrix, RowVectorShape shape,
                           std::span<const Value> x, std::span<double> y, double alpha,
                           double beta) {
  const int vector = shape.vector_size;
  if (vector < 1 || vector > 32 || (vector & (vector - 1)) != 0)
    throw Error("csr_overlap: row vector size " + std::to_string(vector) +
                " is not a power of two in 1..32");
  if (shape.steps < 1) throw Error("csr_overlap: row vector steps must be at least 1");
  // fp32 sums (every value type but fp64) fold every kRowVectorFoldTrips loop trips
  constexpr bool kFold = !std::is_same_v<Value, double>;
  const std::int64_t trip_length = std::int64_t{vector} * shape.steps;  // a lane: steps of them
  std::vector<double> lane_sums(static_cast<std::size_t>(vector));
  for (std::int32_t row = 0; row < matrix.rows; ++row) {
    const std::int32_t begin = matrix.row_ptr[static_cast<std::size_t>(row)];
    const std::int64_t length = matrix.row_ptr[static_cast<std::size_t>(row) + 1] - begin;
    for (int lane = 0; lane < vector; ++lane) {
      double sum = 0.0, folded = 0.0;
      for (std::int64_t trip = 0; trip * trip_length < length; ++trip) {
        const std::int64_t trip_end = std::min(length, (trip + 1) * trip_length);
        for (std::int64_t i = trip * trip_length + lane; i < trip_end; i += vector) {
          const auto k = static_cast<std::size_t>(begin + i);
          sum += to_double(matrix.values[k]) *
                 to_double(x[static_cast<std::size_t>(matrix.col_idx[k])]);
        }
        if (kFold && trip % kRowVectorFoldTrips == kRowVectorFoldTrips - 1) {
          folded += sum;
          sum = 0.0;
        }
      }
      lane_sums[static_cast<std::size_t>(lane)] = kFold ? folded + sum : sum;
    }
    for (int half = vector / 2; half >= 1; half /= 2)  // lane l keeps l + (l ^ half): lane 0's
      for (int lane = 0; lane < half; ++lane)           // sum after every step
        lane_sums[static_cast<std::size_t>(lane)] +=
            lane_sums[static_cast<std::size_t>(lane + half)];
    const auto at = static_cast<std::size_t>(row);
    y[at] = beta == 0.0 ? alpha * lane_sums[0] : alpha * lane_sums[0] + beta * y[at];
  }
}

ColumnLocality column_locality(std::span<const std::int32_t> row_ptr,
                               std::span<const std::int32_t> col_idx) {
  ColumnLocality locality;
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  for (std::int64_t r = kLocalitySampleRows; r < rows; r += kLocalitySampleRows) {
    const RowOffsets o = row_offsets(row_ptr.data(), r, rows);
    if (!is_locality_sample(r, rows, o)) continue;
    ++locality.samples;
    if (first_columns_near(col_idx[static_cast<std::size_t>(o.previous_start)],
                           col_idx[static_cast<std::size_t>(o.start)]))
      ++locality.near;
  }
  return locality;
}

Json row_vector_statistics(std::int64_t rows, std::int64_t nnz, RowVectorShape shape,
                           std::int64_t longest_row, ColumnLocality locality) {
  const std::int64_t block_rows =
      std::int64_t{kRowVectorThreads} / shape.vector_size * shape.rows;
  Json statistics = {{"partition", "row_vectors"},
                     {"row_vector_size", shape.vector_size},
                     {"row_vector_rows", shape.rows},
                     {"row_vector_steps", shape.steps},
                     {"threads_per_block", kRowVectorThreads},
                     {"blocks", (rows + block_rows - 1) / block_rows},
                     {"mean_row_length", rows > 0 ? static_cast<double>(nnz) /
                                                        static_cast<double>(rows)
                                                  : 0.0}};
  if (longest_row >= 0) statistics["longest_row"] = longest_row;
  add_locality(statistics, locality);
  return statistics;
}

Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                            const CsrOverlapParameters& parameters) {
  const std::int64_t rows = matrix.rows, nnz = matrix.nnz();
  if (parameters.partition == Partition::merge_path)
    return merge_path_statistics(rows, nnz, parameters, -1);
  if (parameters.partition == Partition::row_vectors)
    return row_vector_statistics(rows, nnz, parameters.row_vector_shape(rows, nnz, sizeof(double)),
                                 -1);
  const BatchTable table =
      build_batch_table(matrix.row_ptr, parameters.partition_rule(), parameters.long_row_piece);
  const auto long_rows = static_cast<std::int64_t>(table.long_rows.size());
  if (parameters.partition_automatic && merge_path_suits(rows, long_rows))
    return merge_path_statistics(rows, nnz, parameters, long_rows);
  const std::int64_t longest = longest_row(matrix.row_ptr);
  if (parameters.partition_automatic && row_vectors_suit(rows, nnz, longest)) {
    const ColumnLocality locality = column_locality(matrix.row_ptr, matrix.col_idx);
    if (scattered_rows_suit_merge_tiles(rows, nnz, locality))
      return merge_path_statistics(rows, nnz, parameters, long_rows, locality);
    return row_vector_statistics(rows, nnz, parameters.row_vector_shape(rows, nnz, sizeof(double)),
                                 longest, locality);
  }
  return table_statistics(matrix.row_ptr, table, parameters);
}

#define TCSPARSE_CSR_OVERLAP_INSTANTIATE(Value)                                                 \
  template void host_apply<Value>(const CsrMatrix<Value, std::int32_t>&, const BatchTable&,     \
                                  PartitionRule, const KernelShape&, std::span<const Value>,    \
                                  std::span<double>, double, double);                            \
  template void merge_host_apply<Value>(const CsrMatrix<Value, std::int32_t>&,                  \
                                        std::span<const MergeCoordinate>, std::int64_t,         \
                                        std::span<const Value>, std::span<double>, double, double); \
  template void row_vector_host_apply<Value>(const CsrMatrix<Value, std::int32_t>&,             \
                                             RowVectorShape, std::span<const Value>,            \
                                             std::span<double>, double, double);
TCSPARSE_CSR_OVERLAP_INSTANTIATE(double)
TCSPARSE_CSR_OVERLAP_INSTANTIATE(float)
TCSPARSE_CSR_OVERLAP_INSTANTIATE(half)
TCSPARSE_CSR_OVERLAP_INSTANTIATE(bfloat16)
#undef TCSPARSE_CSR_OVERLAP_INSTANTIATE

}  // namespace tcsparse::csr_overlap
