// CSR-Full-Overlap (Electronics 2023, §4.2): parameters, the big-batch partition and its slot
// layout, and a host model of the streamed apply (csr_full_overlap_format.hpp).
#include "csr_overlap/csr_full_overlap_format.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap {
namespace {

using Type = ParameterSpec::Type;

constexpr const char* kMethodName = "csr_full_overlap";

std::vector<ParameterSpec> build_specs() {
  // The batch kernel's own parameters are csr_overlap's defaults (not repeated here), but for
  // its copy mechanism.
  return {
      {"host_memory", Type::choice, "copy", 0, 0, {"copy", "register"},
       "copy: the plan copies the CSR into pinned memory it owns; register: cudaHostRegister of "
       "the caller's arrays, which must outlive the plan"},
      {"device_memory_limit", Type::integer, "auto", 1024, 1e15, {"auto"},
       "bytes of the device staging ring, all slots (auto: what the big batches need, at most "
       "half the free GPU memory)"},
      {"copy_order", Type::choice, "in_order", 0, 0, {"in_order", "per_stream"},
       "in_order: each big batch's copy starts when the previous one has landed (one copy on "
       "the link at a time); per_stream: each stream copies on its own (paper Alg. 8)"},
      {"last_big_batch", Type::choice, "auto", 0, 0, {"auto", "small", "equal"},
       "small: the last big batch 1/16 of the others, so that little computation follows the "
       "transfer; equal: as the others (paper); auto: small from 32 MiB of matrix"},
      {"stream_format", Type::choice, "auto", 0, 0, {"auto", "csr", "compact"},
       "csr: stream the CSR arrays as they are; compact: row lengths and column offsets in 8 / "
       "16 bits where a big batch allows, expanded on the GPU (host_memory=copy); auto: compact "
       "with host_memory=copy and an automatic device_memory_limit"},
      {"streams", Type::integer, "2", 1, kLargestStreams, {},
       "streams and staging slots (paper Alg. 8: 2)"},
      {"big_batches", Type::integer, "2", 1, 1 << 20, {},
       "big batches the matrix is cut into, more where a slot cannot hold one (paper: 2, "
       "N_nz / 2 each)"},
      copy_parameter_spec(),  // the batch kernel's copies, as csr_overlap's
  };
}

}  // namespace

std::span<const ParameterSpec> full_overlap_parameter_specs() {
  static const std::vector<ParameterSpec> specs = build_specs();
  return specs;
}

FullOverlapParameters full_overlap_parameters(const detail::ParameterValues& values) {
  FullOverlapParameters p;
  p.host_memory =
      values.is("host_memory", "register") ? HostMemoryMode::register_arrays : HostMemoryMode::copy;
  p.device_memory_limit =
      values.is_auto("device_memory_limit") ? 0 : values.integer("device_memory_limit");
  p.copy_order =
      values.is("copy_order", "per_stream") ? CopyOrder::per_stream : CopyOrder::in_order;
  p.last_big_batch = values.is("last_big_batch", "small")   ? LastBigBatch::small
                     : values.is("last_big_batch", "equal") ? LastBigBatch::equal
                                                            : LastBigBatch::automatic;
  p.stream_format = values.is("stream_format", "csr")       ? StreamFormat::csr
                    : values.is("stream_format", "compact") ? StreamFormat::compact
                                                            : StreamFormat::automatic;
  p.streams = static_cast<int>(values.integer("streams"));
  p.big_batches = static_cast<int>(values.integer("big_batches"));
  p.batch.copy = copy_mechanism(values);
  if (p.batch.copy == CopyMechanism::direct)
    throw ParameterError(std::string("method '") + kMethodName +
                         "': parameter copy=direct is not accepted: its batch kernel runs a "
                         "block a batch, and only csr_overlap's warp unit reads a batch "
                         "directly (expected cp_async or bulk)");
  return p;
}

StreamFormat resolved_stream_format(const FullOverlapParameters& p) {
  const bool copied = p.host_memory == HostMemoryMode::copy;
  switch (p.stream_format) {
    case StreamFormat::csr: return StreamFormat::csr;
    case StreamFormat::compact:
      if (!copied)
        throw ParameterError(std::string("method '") + kMethodName +
                             "': stream_format=compact needs host_memory=copy (the plan writes "
                             "the compact image; register mode streams the caller's arrays)");
      return StreamFormat::compact;
    default:
      return copied && p.device_memory_limit <= 0 ? StreamFormat::compact : StreamFormat::csr;
  }
}

BigBatch slot_layout(std::int64_t begin_row, std::int64_t end_row, std::int64_t begin_nnz,
                     std::int64_t end_nnz, std::size_t value_bytes) {
  BigBatch batch{begin_row, end_row, begin_nnz, end_nnz};
  const std::size_t padded = padded_elements(end_nnz - begin_nnz);
  batch.row_ptr_offset = 0;
  batch.col_offset =
      align_up(static_cast<std::size_t>(end_row - begin_row + 1) * sizeof(std::int32_t),
               kSlotAlignBytes);
  batch.value_offset = align_up(batch.col_offset + padded * sizeof(std::int32_t), kSlotAlignBytes);
  batch.bytes = align_up(batch.value_offset + padded * value_bytes, kSlotAlignBytes);
  return batch;
}

namespace {

/// Greedy cut: each big batch takes rows while its slot image stays within `target` bytes (at
/// least one row); a row alone above `capacity` is an error.
void cut(std::span<const std::int32_t> row_ptr, std::int64_t begin, std::int64_t rows,
         std::size_t value_bytes, std::size_t target, std::size_t capacity,
         const FullOverlapParameters& p, std::vector<BigBatch>& batches) {
  while (begin < rows) {
    const std::int64_t first_nnz = row_ptr[static_cast<std::size_t>(begin)];
    auto layout_to = [&](std::int64_t end) {
      return slot_layout(begin, end, first_nnz, row_ptr[static_cast<std::size_t>(end)], value_bytes);
    };
    BigBatch batch = layout_to(begin + 1);
    if (batch.bytes > capacity)
      throw ParameterError(
          std::string("method '") + kMethodName + "': row " + std::to_string(begin) + " holds " +
          std::to_string(batch.nnz()) + " nonzeros, " + std::to_string(batch.bytes) +
          " bytes in a staging slot, more than a slot of " + std::to_string(capacity) +
          " bytes (device_memory_limit=" + std::to_string(p.device_memory_limit) + " over " +
          std::to_string(p.streams) + " streams): raise device_memory_limit to at least " +
          std::to_string(batch.bytes * static_cast<std::size_t>(p.streams)));
    // The slot image grows with the end row: the last end within target (at least one row).
    std::int64_t low = begin + 1, high = rows;
    while (low < high) {
      const std::int64_t middle = low + (high - low + 1) / 2;
      if (layout_to(middle).bytes <= target) low = middle; else high = middle - 1;
    }
    batches.push_back(layout_to(low));
    begin = low;
  }
}

/// The first row of a small last big batch: the last row r whose rows [r, rows) take at least
/// `bytes` of slot image (0 when the whole matrix takes less).
std::int64_t small_last_batch_begin(std::span<const std::int32_t> row_ptr,
                                    std::size_t value_bytes, std::size_t bytes) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const auto tail_bytes = [&](std::int64_t begin) {
    return slot_layout(begin, rows, row_ptr[static_cast<std::size_t>(begin)], row_ptr.back(),
                       value_bytes).bytes;
  };
  std::int64_t low = 0, high = rows;  // tail_bytes(low) >= bytes, if any row's does
  if (rows == 0 || tail_bytes(0) < bytes) return 0;
  while (low < high) {
    const std::int64_t middle = low + (high - low + 1) / 2;
    if (tail_bytes(middle) >= bytes) low = middle; else high = middle - 1;
  }
  return low;
}

/// Rows cut into big batches of about `target` bytes, the last one small where the parameters
/// say (and there are at least two big batches and two streams to overlap them).
std::vector<BigBatch> cut_all(std::span<const std::int32_t> row_ptr, std::size_t value_bytes,
                              std::size_t whole, std::size_t target, std::size_t capacity,
                              const FullOverlapParameters& p) {
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const bool small_last =
      p.streams > 1 && whole > target &&
      (p.last_big_batch == LastBigBatch::small ||
       (p.last_big_batch == LastBigBatch::automatic && whole >= kSmallLastBigBatchMinBytes));
  const std::int64_t last_begin =
      small_last ? small_last_batch_begin(row_ptr, value_bytes, target / kLastBigBatchShareDivisor)
                 : 0;
  std::vector<BigBatch> batches;
  cut(row_ptr, 0, last_begin > 0 ? last_begin : rows, value_bytes, target, capacity, p, batches);
  if (last_begin > 0) cut(row_ptr, last_begin, rows, value_bytes, target, capacity, p, batches);
  return batches;
}

std::size_t largest_slot(const std::vector<BigBatch>& batches) {
  std::size_t bytes = kSlotAlignBytes;
  for (const BigBatch& b : batches) bytes = std::max(bytes, b.bytes);
  return bytes;
}

}  // namespace

BigBatchPartition partition_big_batches(std::span<const std::int32_t> row_ptr,
                                        std::size_t value_bytes, const FullOverlapParameters& p,
                                        std::size_t free_device_bytes) {
  if (row_ptr.empty()) throw Error("partition_big_batches: no row offsets");
  const auto rows = static_cast<std::int64_t>(row_ptr.size()) - 1;
  const auto streams = static_cast<std::size_t>(std::max(p.streams, 1));
  // The whole matrix's slot image, cut into big_batches shares.
  const std::size_t whole = slot_layout(0, rows, 0, row_ptr.back(), value_bytes).bytes;
  // Each big batch pads its three arrays to kSlotAlignBytes: allow for that, or the cut would
  // leave a small extra big batch.
  const auto shares = static_cast<std::size_t>(std::max(p.big_batches, 1));
  const std::size_t target =
      align_up((whole + shares - 1) / shares + 3 * kSlotAlignBytes, kSlotAlignBytes);

  BigBatchPartition partition;
  if (p.device_memory_limit > 0) {
    const std::size_t capacity =
        static_cast<std::size_t>(p.device_memory_limit) / streams / kSlotAlignBytes * kSlotAlignBytes;
    partition.batches =
        cut_all(row_ptr, value_bytes, whole, std::min(target, capacity), capacity, p);
    partition.device_memory_limit = static_cast<std::size_t>(p.device_memory_limit);
  } else {
    const auto bound = static_cast<std::size_t>(kAutoLimitShareOfFreeMemory *
                                                static_cast<double>(free_device_bytes));
    const std::size_t capacity =
        std::max(kSlotAlignBytes, bound / streams / kSlotAlignBytes * kSlotAlignBytes);
    FullOverlapParameters named = p;  // for the error message: the bound is the limit
    named.device_memory_limit = static_cast<std::int64_t>(
        std::min<std::size_t>(bound, std::numeric_limits<std::int64_t>::max()));
    partition.batches =
        cut_all(row_ptr, value_bytes, whole, std::min(target, capacity), capacity, named);
  }
  partition.slots = static_cast<int>(
      std::min<std::size_t>(streams, std::max<std::size_t>(partition.batches.size(), 1)));
  partition.slot_bytes = largest_slot(partition.batches);
  if (p.device_memory_limit <= 0)
    partition.device_memory_limit = partition.slot_bytes * static_cast<std::size_t>(partition.slots);
  return partition;
}

std::vector<std::int32_t> rebased_row_ptr(std::span<const std::int32_t> row_ptr,
                                          const BigBatch& batch) {
  std::vector<std::int32_t> rebased(static_cast<std::size_t>(batch.rows() + 1));
  const auto base = static_cast<std::int32_t>(batch.begin_nnz);
  for (std::size_t i = 0; i < rebased.size(); ++i)
    rebased[i] = row_ptr[static_cast<std::size_t>(batch.begin_row) + i] - base;
  return rebased;
}

template <typename Value>
void full_overlap_host_apply(const CsrMatrix<Value, std::int32_t>& matrix,
                             const BigBatchPartition& partition,
                             const CsrOverlapParameters& batch_parameters,
                             std::span<const Value> x, std::span<double> y, double alpha,
                             double beta) {
  if (y.size() != static_cast<std::size_t>(matrix.rows))
    throw Error("full_overlap_host_apply: y has the wrong size");
  std::int64_t next_row = 0;
  for (const BigBatch& batch : partition.batches) {
    if (batch.begin_row != next_row) throw Error("full_overlap_host_apply: rows not covered");
    next_row = batch.end_row;
    CsrMatrix<Value, std::int32_t> part;
    part.rows = static_cast<decltype(part.rows)>(batch.rows());
    part.cols = matrix.cols;
    part.row_ptr = rebased_row_ptr(matrix.row_ptr, batch);
    const auto first = static_cast<std::ptrdiff_t>(batch.begin_nnz);
    const auto last = static_cast<std::ptrdiff_t>(batch.end_nnz);
    part.col_idx.assign(matrix.col_idx.begin() + first, matrix.col_idx.begin() + last);
    part.values.assign(matrix.values.begin() + first, matrix.values.begin() + last);
    const PartitionRule rule = batch_parameters.partition_rule();
    const BatchTable table =
        build_batch_table(part.row_ptr, rule, batch_parameters.long_row_piece);
    KernelShape shape;
    shape.threads_per_block = batch_parameters.threads_per_block;
    shape.long_row_threads = batch_parameters.long_row_threads_for(sizeof(Value));
    shape.batch_unit = batch_parameters.batch_unit;
    shape.vector_sizes = batch_parameters.vector_size_rule();
    shape.long_row_piece = batch_parameters.long_row_piece;
    // Any grid gives every row the same sum (a row's walk does not depend on its block).
    constexpr std::int64_t kModelBlocks = 512, kModelSms = 132;
    const auto batches = static_cast<std::int64_t>(table.batches.size());
    shape.launch = batch_parameters.batch_unit == BatchUnit::warp
                       ? warp_batch_launch(batches, kModelBlocks,
                                           batch_parameters.threads_per_block / 32)
                       : batch_launch(batches, kModelBlocks);
    shape.long_row_blocks = long_row_blocks(table.long_tasks(), kModelSms * 16);
    host_apply<Value>(part, table, rule, shape, x,
                      y.subspan(static_cast<std::size_t>(batch.begin_row),
                                static_cast<std::size_t>(batch.rows())),
                      alpha, beta);
  }
  if (next_row != matrix.rows) throw Error("full_overlap_host_apply: rows not covered");
}

Json partition_statistics(const BigBatchPartition& partition, const FullOverlapParameters& p) {
  Json stats = Json::object();
  stats["host_memory"] = p.host_memory == HostMemoryMode::copy ? "copy" : "register";
  stats["copy_order"] = p.copy_order == CopyOrder::in_order ? "in_order" : "per_stream";
  stats["last_big_batch"] = p.last_big_batch == LastBigBatch::small   ? "small"
                           : p.last_big_batch == LastBigBatch::equal ? "equal"
                                                                     : "auto";
  stats["stream_format"] = resolved_stream_format(p) == StreamFormat::compact ? "compact" : "csr";
  stats["streams"] = p.streams;
  stats["slots"] = partition.slots;
  stats["big_batches_requested"] = p.big_batches;
  stats["big_batches"] = partition.batches.size();
  stats["slot_bytes"] = partition.slot_bytes;
  stats["device_memory_limit"] = partition.device_memory_limit;
  std::int64_t largest_rows = 0, largest_nnz = 0;
  for (const BigBatch& b : partition.batches) {
    largest_rows = std::max(largest_rows, b.rows());
    largest_nnz = std::max(largest_nnz, b.nnz());
  }
  stats["big_batch_rows_max"] = largest_rows;
  stats["last_big_batch_nnz"] = partition.batches.empty() ? 0 : partition.batches.back().nnz();
  stats["big_batch_nnz_max"] = largest_nnz;
  return stats;
}

#define TCSPARSE_FULL_OVERLAP_INSTANTIATE(Value)                                              \
  template void full_overlap_host_apply<Value>(                                               \
      const CsrMatrix<Value, std::int32_t>&, const BigBatchPartition&,                         \
      const CsrOverlapParameters&, std::span<const Value>, std::span<double>, double, double);
TCSPARSE_FULL_OVERLAP_INSTANTIATE(double)
TCSPARSE_FULL_OVERLAP_INSTANTIATE(float)
TCSPARSE_FULL_OVERLAP_INSTANTIATE(half)
TCSPARSE_FULL_OVERLAP_INSTANTIATE(bfloat16)
#undef TCSPARSE_FULL_OVERLAP_INSTANTIATE

}  // namespace tcsparse::csr_overlap
