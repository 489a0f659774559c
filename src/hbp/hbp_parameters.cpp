// Parsing of the HBP "key=value" parameters (PlanOptions::parameters).
#include "hbp/hbp_parameters.hpp"

#include <algorithm>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::hbp {
namespace {

using Type = ParameterSpec::Type;

std::vector<ParameterSpec> build_parameter_specs() {
  return {
      {"block_rows", Type::integer, "auto", 1, 1 << 20, {"auto"},
       "rows of a matrix block, the scope of the reordering (auto: 4096 halved down to 32 while "
       "the matrix has fewer than 16384 blocks; paper: 512; to be measured)"},
      {"block_cols", Type::integer, "auto", 8, kLargestBlockCols, {"auto"},
       "columns of a matrix block, a multiple of 8: its x segment sits in shared memory (auto: a "
       "64 KiB segment, 8192 fp64 columns; paper: 4096 for 48 KB)"},
      {"reorder", Type::choice, "hash", 0, 0, {"hash", "sort", "none"},
       "row order inside a block: the nonlinear hash of the row lengths (paper III.B), a stable "
       "sort by length, or the matrix order"},
      {"build", Type::choice, "device", 0, 0, {"host", "device"},
       "where the layout is built: on the GPU from the uploaded CSR (paper Algorithm 2), or on "
       "the host and uploaded (the model); both give the same arrays"},
      {"warp_row_length", Type::integer, "64", 2, 1 << 30, {"off"},
       "a row with at least this many nonzeros in a block is taken by a whole warp (off: by one "
       "lane, as the paper)"},
      {"warps_per_block", Type::choice, "16", 0, 0, {"1", "2", "4", "8", "16", "32"},
       "warps of a thread block; they share one x segment"},
      {"blocks_per_task", Type::integer, "auto", 1, 1 << 20, {"auto"},
       "matrix blocks (of one column block) a task holds (auto: blocks / 1024, 1 to 4 a warp)"},
      {"fixed_share", Type::number, "0.5", 0.0, 1.0, {},
       "share of the tasks handed out in the fixed part; the rest is taken by ticket (paper "
       "III.C; not stated there)"},
      {"walk_unroll", Type::choice, "4", 0, 0, {"1", "2", "4", "8"},
       "rounds of a lane group a lane loads at once (independent loads in flight; y does not "
       "depend on it)"},
      {"blocks_per_sm", Type::integer, "auto", 1, 64, {"auto"},
       "resident thread blocks an SM (auto: as many as fit)"},
  };
}

}  // namespace

std::string_view to_string(Reorder reorder) {
  switch (reorder) {
    case Reorder::hash: return "hash";
    case Reorder::sort: return "sort";
    case Reorder::none: return "none";
  }
  return "hash";
}

std::string_view to_string(Build build) {
  return build == Build::host ? "host" : "device";
}

std::int32_t HbpParameters::resolved_block_cols(std::size_t value_bytes) const {
  if (block_cols > 0) return block_cols;
  return static_cast<std::int32_t>(std::min<std::size_t>(
      kLargestBlockCols, static_cast<std::size_t>(kAutoSegmentBytes) / value_bytes));
}

std::int32_t HbpParameters::resolved_block_rows(std::int64_t rows,
                                                std::int64_t column_blocks) const {
  if (block_rows > 0) return block_rows;
  std::int32_t resolved = kAutoLargestBlockRows;
  auto blocks = [&](std::int32_t r) { return (rows + r - 1) / r * std::max<std::int64_t>(1, column_blocks); };
  while (resolved > kAutoSmallestBlockRows && blocks(resolved) < kAutoTargetBlocks) resolved /= 2;
  return resolved;
}

std::int32_t HbpParameters::resolved_blocks_per_task(std::int64_t blocks) const {
  if (blocks_per_task > 0) return blocks_per_task;
  return static_cast<std::int32_t>(
      std::clamp<std::int64_t>(blocks / kAutoTargetTasks, 1, 4 * warps_per_block));
}

std::span<const ParameterSpec> parameter_specs() {
  static const std::vector<ParameterSpec> specs = build_parameter_specs();
  return specs;
}

HbpParameters hbp_parameters(const detail::ParameterValues& values) {
  HbpParameters p;
  p.block_rows =
      values.is_auto("block_rows") ? 0 : static_cast<std::int32_t>(values.integer("block_rows"));
  p.block_cols =
      values.is_auto("block_cols") ? 0 : static_cast<std::int32_t>(values.integer("block_cols"));
  if (p.block_cols % 8 != 0)
    throw ParameterError("method 'hbp': parameter block_cols=" + values.text("block_cols") +
                         " is not accepted: expected a multiple of 8 (16-byte x segments)");
  p.reorder = values.is("reorder", "sort")   ? Reorder::sort
              : values.is("reorder", "none") ? Reorder::none
                                             : Reorder::hash;
  p.build = values.is("build", "device") ? Build::device : Build::host;
  p.warp_row_length = values.is("warp_row_length", "off")
                          ? 0
                          : static_cast<std::int32_t>(values.integer("warp_row_length"));
  p.warps_per_block = static_cast<int>(values.integer("warps_per_block"));
  p.blocks_per_task = values.is_auto("blocks_per_task")
                          ? 0
                          : static_cast<std::int32_t>(values.integer("blocks_per_task"));
  p.fixed_share = values.number("fixed_share");
  p.walk_unroll = static_cast<int>(values.integer("walk_unroll"));
  p.blocks_per_sm =
      values.is_auto("blocks_per_sm") ? 0 : static_cast<int>(values.integer("blocks_per_sm"));
  return p;
}

HbpParameters parse_parameters(const std::vector<std::string>& key_values) {
  return hbp_parameters(detail::check_parameter_values("hbp", parameter_specs(), key_values));
}

}  // namespace tcsparse::hbp
