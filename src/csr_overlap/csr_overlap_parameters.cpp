// Parsing of the CSR-Partial-Overlap "key=value" parameters (PlanOptions::parameters).
#include "csr_overlap/csr_overlap_parameters.hpp"

#include <algorithm>
#include <string>

#include "csr_overlap/csr_overlap_format.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::csr_overlap {
namespace {

using Type = ParameterSpec::Type;

constexpr const char* kSwitchPointNames[kSwitchPoints] = {
    "switch_point_1", "switch_point_2", "switch_point_4", "switch_point_8", "switch_point_16"};

std::vector<ParameterSpec> build_parameter_specs() {
  return {
      {"max_batch_size", Type::integer, "auto", 32, kLargestMaxBatchSize, {"auto"},
       "nonzeros of a batch at most, a multiple of 32; longer rows are long rows (paper: > 1024; "
       "auto: 1024 a block, 512 a warp)"},
      {"max_batch_rows", Type::integer, "auto", 1, 1 << 30, {"auto"},
       "rows of a batch at most (auto: max_batch_size a block, at most 256 a warp; not in the "
       "paper)"},
      {"switch_point_1", Type::integer, "17", 0, 1 << 30, {},
       "mean row length below which a batch takes vector size 1 (paper Table 2, A40: 17)"},
      {"switch_point_2", Type::integer, "34", 0, 1 << 30, {},
       "mean row length below which a batch takes vector size 2 (paper Table 2, A40: 34)"},
      {"switch_point_4", Type::integer, "64", 0, 1 << 30, {},
       "mean row length below which a batch takes vector size 4 (paper Table 2, A40: 64)"},
      {"switch_point_8", Type::integer, "122", 0, 1 << 30, {},
       "mean row length below which a batch takes vector size 8 (paper Table 2, A40: 122)"},
      {"switch_point_16", Type::integer, "216", 0, 1 << 30, {},
       "mean row length below which a batch takes vector size 16, else 32 (paper Table 2, A40: 216)"},
      {"vector_size", Type::choice, "auto", 0, 0, {"auto", "1", "2", "4", "8", "16", "32"},
       "threads per row in every batch (auto: by the batch's mean row length, paper Alg. 6)"},
      {"threads_per_block", Type::choice, "128", 0, 0, {"32", "64", "128", "256", "512", "1024"},
       "threads of a block (paper: the CUDA cores of an SM, 128)"},
      {"long_row_threads", Type::choice, "auto", 0, 0,
       {"auto", "32", "64", "128", "256", "512", "1024"},
       "threads of a long-row block, which takes one piece at a time (the paper: the batch "
       "kernel's block); auto: 64 for fp16 / bf16 values, else threads_per_block"},
      {"blocks_per_sm", Type::integer, "auto", 1, 64, {"auto"},
       "resident blocks an SM of the batch kernel (auto: as many as fit)"},
      {"long_row_piece", Type::integer, "auto", 256, 1 << 30, {"auto"},
       "nonzeros of a long row one block takes; a row of fewer than twice as many stays whole "
       "(paper: the whole row; auto: 1024 for a matrix of 2^20 nonzeros or more whose rows "
       "average at most max_batch_size, else 8192)"},
      {"pipeline_stages", Type::integer, "1", 1, kLargestPipelineStages, {},
       "shared-memory stages of the batch kernel, batches copied ahead = stages - 1 (paper: 2; "
       "1: none, the overlap is left to the other resident blocks)"},
      {"batches_per_block", Type::integer, "1", 1, 1 << 30, {"auto"},
       "batches a block takes in order (auto: one wave of resident blocks share them, paper "
       "4.1.2; 1: a block a batch)"},
      {"register_bound", Type::choice, "off", 0, 0, {"off", "on"},
       "on: blocks of at most 128 threads run the kernel built for 12 resident blocks an SM (at "
       "most 40 registers a thread; off: the 64-register build for any block; to be measured)"},
      {"row_threads_max", Type::choice, "block", 0, 0,
       {"off", "32", "64", "128", "256", "512", "1024", "block"},
       "most threads a row of a batch of few rows takes, above its vector size (block: the whole "
       "block; off: the paper's vector size; not in the paper)"},
      {"warp_row_factor", Type::integer, "32", 1, 1 << 20, {"off"},
       "a row longer than this times its batch's vector size (< 32) is taken by a whole warp "
       "(off: by its vector, as the paper; not in the paper)"},
      copy_parameter_spec(),
      {"batch_unit", Type::choice, "auto", 0, 0, {"auto", "block", "warp"},
       "who takes a batch: a thread block (the paper) or a warp with its own pipeline_stages "
       "stages, synchronised by __syncwarp only (copy=cp_async; not in the paper); auto: warps "
       "for matrices of 2^20 nonzeros or more whose mean row length is 4 or more, else blocks"},
      {"partition", Type::choice, "auto", 0, 0, {"auto", "rows", "merge_path", "row_vectors"},
       "rows: the paper's batches of whole rows and a long-row kernel; merge_path: tiles of "
       "256 x merge_items items of the merge path of row ends and nonzeros, rows cut anywhere; "
       "row_vectors: no table, vectors of row_vector_size lanes reading several rows at once "
       "(neither in the paper); auto, when no parameter of the rows partition is given: "
       "merge_path for a matrix with long rows, at most one in 16, else row_vectors for a matrix "
       "of 2^20 nonzeros or more whose longest row is at most 4 times the mean (at most 1024), "
       "else rows"},
      {"merge_items", Type::choice, "5", 0, 0, {"5", "7"},
       "partition=merge_path: items of the merge path (nonzeros and row ends) a thread takes"},
      {"merge_blocks_per_sm", Type::choice, "auto", 0, 0, {"auto", "3", "5", "7", "8"},
       "partition=merge_path: tile blocks an SM holds; fewer leave more of the SM's unified "
       "L1 / shared memory to L1, which the x gathers hit (the kernel's shared-memory carveout); "
       "auto: 5"},
      {"row_vector_size", Type::choice, "auto", 0, 0, {"auto", "1", "2", "4", "8", "16", "32"},
       "partition=row_vectors: lanes a row (auto: by the mean row length and the value size)"},
      {"row_vector_rows", Type::choice, "auto", 0, 0, {"auto", "1", "2", "4"},
       "partition=row_vectors: rows a vector takes at a time (auto: as row_vector_size)"},
      {"row_vector_steps", Type::choice, "auto", 0, 0, {"auto", "1", "2", "4"},
       "partition=row_vectors: nonzeros of each row a lane loads a loop trip; rows x steps at "
       "most 8 (auto: as row_vector_size)"},
      {"device_csr", Type::choice, "auto", 0, 0, {"auto", "borrow", "copy"},
       "a plan from a DeviceCsrView: borrow reads the caller's arrays at every apply (no copy; "
       "they must outlive the plan; update_values refused), copy keeps its own; auto: borrow "
       "where the batch copies allow it (copy=cp_async, 16-byte aligned arrays)"},
  };
}

/// Whether any parameter of the rows partition (every one but partition, the merge_* and
/// row_vector_* ones, device_csr and long_row_threads, which applies wherever the long-row kernel
/// runs) was given: partition=auto then keeps the rows partition.
bool rows_partition_given(const detail::ParameterValues& values) {
  for (const ParameterSpec& spec : parameter_specs()) {
    const std::string_view name = spec.name;
    if (name != "partition" && !name.starts_with("merge_") && !name.starts_with("row_vector_") &&
        name != "device_csr" && name != "long_row_threads" && values.given(name))
      return true;
  }
  return false;
}

/// An integer parameter's value: 0 for auto.
std::int32_t auto_or_integer(const detail::ParameterValues& values, const char* name) {
  return values.is_auto(name) ? 0 : static_cast<std::int32_t>(values.integer(name));
}

}  // namespace

ParameterSpec copy_parameter_spec() {
  return {"copy", Type::choice, "auto", 0, 0, {"auto", "cp_async", "bulk", "direct"},
          "global-to-shared copies of the batch kernel: cp_async (16-byte pieces, every thread), "
          "bulk (sm_90: one thread, TMA 1D bulk copies on an mbarrier) or direct (warp unit, "
          "one stage: values and columns read straight into the products, not copied; not in "
          "the paper); auto: direct where batch_unit=auto takes warps for a matrix of 2^20 "
          "nonzeros or more, else cp_async"};
}

CopyMechanism copy_mechanism(const detail::ParameterValues& values) {
  if (values.is("copy", "bulk")) return CopyMechanism::bulk;
  if (values.is("copy", "cp_async")) return CopyMechanism::cp_async;
  if (values.is("copy", "direct")) return CopyMechanism::direct;
  return kDefaultCopy;
}

const char* copy_mechanism_name(CopyMechanism copy) {
  switch (copy) {
    case CopyMechanism::bulk: return "bulk";
    case CopyMechanism::direct: return "direct";
    case CopyMechanism::cp_async: break;
  }
  return "cp_async";
}

std::span<const ParameterSpec> parameter_specs() {
  static const std::vector<ParameterSpec> specs = build_parameter_specs();
  return specs;
}

CsrOverlapParameters csr_overlap_parameters(const detail::ParameterValues& values) {
  CsrOverlapParameters p;
  p.max_batch_size_automatic = values.is_auto("max_batch_size");
  p.max_batch_size = p.max_batch_size_automatic
                         ? kDefaultMaxBatchSize
                         : static_cast<std::int32_t>(values.integer("max_batch_size"));
  if (p.max_batch_size % 32 != 0)
    throw ParameterError("method 'csr_overlap': parameter max_batch_size=" +
                         std::to_string(p.max_batch_size) + " is not accepted: expected a multiple of 32");
  p.max_batch_rows = auto_or_integer(values, "max_batch_rows");
  for (int k = 0; k < kSwitchPoints; ++k) {
    p.switch_points[static_cast<std::size_t>(k)] =
        static_cast<std::int32_t>(values.integer(kSwitchPointNames[k]));
    if (k > 0 && p.switch_points[static_cast<std::size_t>(k)] <
                     p.switch_points[static_cast<std::size_t>(k - 1)])
      throw ParameterError(std::string("method 'csr_overlap': parameter ") + kSwitchPointNames[k] +
                           "=" + values.text(kSwitchPointNames[k]) +
                           " is not accepted: expected at least " + kSwitchPointNames[k - 1] + "=" +
                           values.text(kSwitchPointNames[k - 1]));
  }
  p.vector_size = auto_or_integer(values, "vector_size");
  p.threads_per_block = static_cast<int>(values.integer("threads_per_block"));
  p.long_row_threads = auto_or_integer(values, "long_row_threads");
  p.blocks_per_sm = auto_or_integer(values, "blocks_per_sm");
  p.long_row_piece_automatic = values.is_auto("long_row_piece");
  p.long_row_piece = p.long_row_piece_automatic
                         ? kDefaultLongRowPiece
                         : static_cast<std::int32_t>(values.integer("long_row_piece"));
  p.pipeline_stages = static_cast<int>(values.integer("pipeline_stages"));
  p.batches_per_block = auto_or_integer(values, "batches_per_block");
  p.register_bound = values.is("register_bound", "on");
  if (values.is("row_threads_max", "off"))
    p.row_threads_max = 0;
  else if (values.is("row_threads_max", "block"))
    p.row_threads_max = kRowThreadsBlock;
  else
    p.row_threads_max = static_cast<std::int32_t>(values.integer("row_threads_max"));
  p.warp_row_factor = values.is("warp_row_factor", "off")
                          ? 0
                          : static_cast<std::int32_t>(values.integer("warp_row_factor"));
  p.copy = copy_mechanism(values);
  p.copy_automatic = values.is_auto("copy");
  if (values.is("batch_unit", "warp"))
    p.take_unit(BatchUnit::warp);
  else if (values.is("batch_unit", "block"))
    p.take_unit(BatchUnit::block);
  else  // auto: for_matrix() decides; without a matrix, blocks
    p.batch_unit_automatic = true;
  if (p.batch_unit == BatchUnit::warp && p.copy == CopyMechanism::bulk)
    throw ParameterError("method 'csr_overlap': parameter copy=bulk is not accepted with "
                         "batch_unit=warp: a warp's stages are copied with cp_async (use "
                         "batch_unit=block for the bulk copy)");
  if (p.copy == CopyMechanism::direct) {
    if (p.batch_unit_automatic) {  // only warps read their batches directly
      p.batch_unit_automatic = false;
      p.take_unit(BatchUnit::warp);
    }
    if (p.batch_unit == BatchUnit::block)
      throw ParameterError("method 'csr_overlap': parameter copy=direct is not accepted with "
                           "batch_unit=block: only a warp reads its batch straight from global "
                           "memory (use batch_unit=warp or auto)");
    if (p.pipeline_stages != 1)
      throw ParameterError("method 'csr_overlap': parameter pipeline_stages=" +
                           std::to_string(p.pipeline_stages) +
                           " is not accepted with copy=direct: a warp reads its batch when it "
                           "computes it, so there is one stage (expected pipeline_stages=1)");
  }
  p.partition = values.is("partition", "merge_path")    ? Partition::merge_path
                : values.is("partition", "row_vectors") ? Partition::row_vectors
                                                        : Partition::rows;
  p.partition_automatic = values.is_auto("partition") && !rows_partition_given(values);
  p.merge_items = static_cast<std::int32_t>(values.integer("merge_items"));
  p.merge_blocks_per_sm = auto_or_integer(values, "merge_blocks_per_sm");
  if (p.merge_blocks_per_sm != 0 && p.merge_items != kDefaultMergeItems)
    throw ParameterError("method 'csr_overlap': parameter merge_blocks_per_sm=" +
                         std::to_string(p.merge_blocks_per_sm) + " is not accepted with "
                         "merge_items=" + std::to_string(p.merge_items) +
                         " (expected merge_items=" + std::to_string(kDefaultMergeItems) + ")");
  p.row_vector_size = auto_or_integer(values, "row_vector_size");
  p.row_vector_rows = auto_or_integer(values, "row_vector_rows");
  p.row_vector_steps = auto_or_integer(values, "row_vector_steps");
  if (p.row_vector_rows * p.row_vector_steps > kRowVectorMaxProductsInFlight)
    throw ParameterError("method 'csr_overlap': parameters row_vector_rows=" +
                         std::to_string(p.row_vector_rows) + " and row_vector_steps=" +
                         std::to_string(p.row_vector_steps) +
                         " are not accepted together: expected rows x steps at most " +
                         std::to_string(kRowVectorMaxProductsInFlight) +
                         " (products a lane has in flight)");
  p.device_csr = values.is("device_csr", "borrow") ? DeviceCsrUse::borrow
                 : values.is("device_csr", "copy") ? DeviceCsrUse::copy
                                                   : DeviceCsrUse::automatic;
  return p;
}

namespace {

/// for_matrix's batch_unit=auto (and the copy and max_batch_size that go with it).
CsrOverlapParameters with_unit_for_matrix(const CsrOverlapParameters& given, std::int64_t rows,
                                          std::int64_t nnz, std::size_t product_bytes) {
  CsrOverlapParameters p = given;
  if (!p.batch_unit_automatic) return p;
  p.batch_unit_automatic = false;
  const bool long_enough =
      rows > 0 && static_cast<double>(nnz) >= kWarpUnitMinMeanRowLength * static_cast<double>(rows);
  CsrOverlapParameters warps = p;
  warps.take_unit(BatchUnit::warp);
  if (p.copy_automatic && p.pipeline_stages == 1 && nnz >= kDirectWarpMinNonzeros) {
    CsrOverlapParameters direct = warps;
    direct.copy = CopyMechanism::direct;
    const double mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
    if (p.max_batch_size_automatic && p.max_batch_rows == 0 &&
        product_bytes <= kDirectWideMaxProductBytes && mean >= kDirectWideMinMeanRowLength &&
        mean <= kDirectWideMaxMeanRowLength) {
      direct.max_batch_size = kDirectWideMaxBatchSize;
      direct.max_batch_rows = kDirectWideMaxBatchRows;
    }
    if (batch_shared_bytes(direct, sizeof(double)) <= kWarpUnitMaxBlockSharedBytes) return direct;
  }
  if (!long_enough || nnz < kWarpUnitMinNonzeros || p.copy != CopyMechanism::cp_async) return p;
  return batch_shared_bytes(warps, sizeof(double)) <= kWarpUnitMaxBlockSharedBytes ? warps : p;
}

}  // namespace

CsrOverlapParameters CsrOverlapParameters::for_matrix(std::int64_t rows, std::int64_t nnz,
                                                      std::size_t product_bytes) const {
  CsrOverlapParameters p = with_unit_for_matrix(*this, rows, nnz, product_bytes);
  if (p.long_row_piece_automatic) {
    p.long_row_piece_automatic = false;
    const bool mostly_short_rows =
        static_cast<double>(nnz) <= static_cast<double>(rows) * p.max_batch_size;
    if (nnz >= kLargeMatrixLongRowPieceMinNonzeros && mostly_short_rows)
      p.long_row_piece = kLargeMatrixLongRowPiece;
  }
  return p;
}

RowVectorShape CsrOverlapParameters::row_vector_shape(std::int64_t rows, std::int64_t nnz,
                                                      std::size_t value_bytes) const {
  const auto& table = value_bytes >= 8   ? kRowVectorShapes8Byte
                      : value_bytes >= 4 ? kRowVectorShapes4Byte
                                         : kRowVectorShapes2Byte;
  const double mean = rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows) : 0.0;
  const auto* choice = std::find_if(table.begin(), table.end(), [&](const RowVectorChoice& c) {
    return mean < c.below_mean;
  });
  RowVectorShape shape = choice == table.end() ? table.back().shape : choice->shape;
  if (row_vector_size > 0) shape.vector_size = row_vector_size;
  if (row_vector_rows > 0) shape.rows = row_vector_rows;
  if (row_vector_steps > 0) shape.steps = row_vector_steps;
  while (shape.rows * shape.steps > kRowVectorMaxProductsInFlight)  // only an automatic one
    (row_vector_rows > 0 ? shape.steps : shape.rows) /= 2;
  return shape;
}

CsrOverlapParameters parse_parameters(const std::vector<std::string>& key_values) {
  return csr_overlap_parameters(
      detail::check_parameter_values("csr_overlap", parameter_specs(), key_values));
}

}  // namespace tcsparse::csr_overlap
