// Parsing of the HBP "key=value" parameters (PlanOptions::parameters).
#include "hbp/hbp_parameters.hpp"

#include <algorithm>
#include <cmath>
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
       "columns of a matrix block, a multiple of 8: an x segment of at most 128 KiB sits in "
       "shared memory, a wider one is read through the L2 (auto: the fewest stripes of x of at "
       "most a third of the L2, one block when x fits; paper: 4096 for 48 KB)"},
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
      {"fixed_share", Type::number, "auto", 0.0, 1.0, {"auto"},
       "share of the tasks handed out in the fixed part; the rest is taken by ticket (paper "
       "III.C; not stated there; auto: 0.5 with x segments in shared memory, else 0)"},
      {"max_slot_length", Type::integer, "1024", 1, 65536, {},
       "a row's nonzeros in one block are cut into slots of at most this many (long ones are "
       "taken by a whole warp each)"},
      {"walk_unroll", Type::choice, "4", 0, 0, {"1", "2", "4", "8"},
       "rounds of a lane group a lane loads at once (independent loads in flight; y does not "
       "depend on it)"},
      {"combine_warp_partials", Type::integer, "64", 1, 1 << 30, {"off"},
       "a row of more partial sums than this is combined by a whole warp, lane strides then a "
       "butterfly sum (off: every row by its own thread, in order)"},
      {"combine_warp_rows", Type::integer, "8192", 1, 1 << 30, {"off"},
       "a combine of at most this many rows gives every row a warp of its own (off: a thread a "
       "row, combine_warp_partials above)"},
      {"blocks_per_sm", Type::integer, "auto", 1, 64, {"auto"},
       "resident thread blocks an SM (auto: as many as fit)"},
      {"kernel", Type::choice, "auto", 0, 0, {"auto", "tasks", "groups"},
       "who takes the work: thread blocks take tasks sharing an x segment in shared memory "
       "(tasks, the paper's), or warps take runs of warp groups by ticket reading x through the "
       "L2 (groups); auto: groups when no x segment fits shared memory"},
      {"groups_per_ticket", Type::integer, "auto", 1, kMostGroupsPerTicket, {"auto"},
       "kernel=groups: consecutive warp groups a ticket hands a warp (auto: about 8 tickets a "
       "warp, at most 8 groups)"},
      {"fixed_group_share", Type::number, "0", 0.0, 1.0, {},
       "kernel=groups: the share of the warp groups whose tickets are handed out at launch (whole "
       "rounds, warp w of W ticket r*W+w) before the counter's (0: every ticket drawn)"},
      {"layout_memory", Type::choice, "auto", 0, 0, {"auto", "pool", "allocate"},
       "where the GPU build takes the layout's arrays: tcsparse's stream-ordered pool (no wait "
       "for the GPU, pages of freed temporaries reused) or one cudaMalloc each; auto: the pool "
       "when the build's temporaries take at most 32 MiB (a small build: with its layout it "
       "fits the 64 MiB the pool keeps between builds)"},
      {"column_order", Type::choice, "auto", 0, 0, {"auto", "caller", "hubs_first"},
       "the order x is read in: the caller's columns, or inside each column block the columns "
       "with most nonzeros first (x gathered into that order by each apply); auto: hubs_first "
       "from 2^22 nonzeros where few columns hold many of them"},
      {"hub_min_count", Type::integer, "auto", 1, std::int64_t{1} << 31, {"auto"},
       "column_order=hubs_first: the fewest nonzeros of a column moved to the front of its block "
       "(the others keep their order, so the gather of x sweeps them)"},
      {"slot_output", Type::choice, "auto", 0, 0, {"auto", "hash", "partial"},
       "where a slot's sum goes: the paper's output_hash (a partial sum, or y for a row's only "
       "slot), or every slot to its own partial sum, the combine writing every row (no "
       "output_hash read); auto: partial where x is cut into stripes and at most a third of the "
       "slots are their row's only one"},
      {"update_values", Type::choice, "off", 0, 0, {"off", "on"},
       "on: the plan keeps each stored value's index in the CSR (4 bytes a nonzero more on the "
       "device), so that update_values takes new values of the same pattern in one gather; off: "
       "update_values is refused (build a new plan)"},
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

std::string_view to_string(Kernel kernel) {
  switch (kernel) {
    case Kernel::tasks: return "tasks";
    case Kernel::groups: return "groups";
    case Kernel::automatic: return "auto";
  }
  return "auto";
}

std::string_view to_string(Build build) {
  return build == Build::host ? "host" : "device";
}

std::string_view to_string(LayoutMemory memory) {
  switch (memory) {
    case LayoutMemory::pool: return "pool";
    case LayoutMemory::allocate: return "allocate";
    case LayoutMemory::automatic: return "auto";
  }
  return "auto";
}

std::string_view to_string(ColumnOrder order) {
  switch (order) {
    case ColumnOrder::caller: return "caller";
    case ColumnOrder::hubs_first: return "hubs_first";
    case ColumnOrder::automatic: return "auto";
  }
  return "auto";
}

std::string_view to_string(SlotOutput output) {
  switch (output) {
    case SlotOutput::hash: return "hash";
    case SlotOutput::partial: return "partial";
    case SlotOutput::automatic: return "auto";
  }
  return "auto";
}

bool HbpParameters::partial_per_slot(std::int64_t column_blocks, std::int64_t slots,
                                     std::int64_t partials) const {
  if (slot_output != SlotOutput::automatic) return slot_output == SlotOutput::partial;
  const auto single_slots = static_cast<double>(slots - partials);
  return column_blocks >= 2 &&
         single_slots <= kAutoSlotPartialMaxSingleSlotShare * static_cast<double>(slots);
}

bool HbpParameters::counts_columns(std::int64_t nnz) const {
  if (nnz <= 0 || column_order == ColumnOrder::caller) return false;
  return column_order == ColumnOrder::hubs_first || nnz >= kHubsFirstMinNonzeros;
}

std::int64_t HbpParameters::resolved_hub_min_count(std::int64_t nnz, std::int64_t cols) const {
  if (hub_min_count > 0) return hub_min_count;
  const double mean =
      static_cast<double>(nnz) / static_cast<double>(std::max<std::int64_t>(cols, 1));
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(std::ceil(kAutoHubMinCountOverMean * mean)));
}

bool HbpParameters::hubs_first(double concentration) const {
  if (column_order != ColumnOrder::automatic) return column_order == ColumnOrder::hubs_first;
  return concentration >= kHubsFirstMinConcentration;
}

std::int64_t estimated_build_temporary_bytes(std::int64_t rows, std::int64_t nnz,
                                             std::int64_t column_blocks,
                                             std::int32_t max_slot_length) {
  const std::int64_t slots = std::min(
      nnz, rows * std::max<std::int64_t>(1, column_blocks) + nnz / std::max(1, max_slot_length));
  return kBuildTemporaryBytesPerSlot * slots + kBuildTemporaryBytesPerRow * rows;
}

bool HbpParameters::layout_from_pool(std::int64_t temporary_bytes,
                                     std::int64_t small_build_bytes) const {
  if (layout_memory != LayoutMemory::automatic) return layout_memory == LayoutMemory::pool;
  return temporary_bytes <= small_build_bytes;
}

std::int32_t HbpParameters::resolved_block_cols(std::size_t value_bytes, std::int64_t cols,
                                                std::int64_t l2_bytes, bool hubs_first) const {
  if (block_cols > 0) return block_cols;
  const double share = hubs_first && value_bytes >= kHubsFirstStripeMinValueBytes
                           ? kAutoHubsFirstStripeL2Share
                           : kAutoStripeL2Share;
  const double stripe_bytes =
      std::max(1.0, share * static_cast<double>(std::max<std::int64_t>(l2_bytes, 1)));
  const double x_bytes = static_cast<double>(std::max<std::int64_t>(cols, 1)) *
                         static_cast<double>(value_bytes);
  const auto stripes = static_cast<std::int64_t>(std::ceil(x_bytes / stripe_bytes));
  const std::int64_t width = (std::max<std::int64_t>(cols, 1) + stripes - 1) / stripes;
  return static_cast<std::int32_t>(std::min<std::int64_t>(kLargestBlockCols, (width + 7) / 8 * 8));
}

double HbpParameters::resolved_fixed_share(std::int32_t resolved_block_cols,
                                           std::size_t value_bytes) const {
  if (fixed_share >= 0.0) return fixed_share;
  return segment_fits_shared_memory(resolved_block_cols, value_bytes) ? kDefaultFixedShare : 0.0;
}

Kernel HbpParameters::resolved_kernel(std::int32_t resolved_block_cols,
                                      std::size_t value_bytes) const {
  if (kernel != Kernel::automatic) return kernel;
  return segment_fits_shared_memory(resolved_block_cols, value_bytes) ? Kernel::tasks
                                                                       : Kernel::groups;
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
  p.fixed_share = values.is_auto("fixed_share") ? -1.0 : values.number("fixed_share");
  p.max_slot_length = static_cast<std::int32_t>(values.integer("max_slot_length"));
  p.walk_unroll = static_cast<int>(values.integer("walk_unroll"));
  p.combine_warp_partials =
      values.is("combine_warp_partials", "off")
          ? 0
          : static_cast<std::int32_t>(values.integer("combine_warp_partials"));
  p.combine_warp_rows = values.is("combine_warp_rows", "off")
                            ? 0
                            : static_cast<std::int32_t>(values.integer("combine_warp_rows"));
  p.blocks_per_sm =
      values.is_auto("blocks_per_sm") ? 0 : static_cast<int>(values.integer("blocks_per_sm"));
  p.groups_per_ticket = values.is_auto("groups_per_ticket")
                            ? 0
                            : static_cast<std::int32_t>(values.integer("groups_per_ticket"));
  p.fixed_group_share = values.number("fixed_group_share");
  p.layout_memory = values.is("layout_memory", "pool")       ? LayoutMemory::pool
                    : values.is("layout_memory", "allocate") ? LayoutMemory::allocate
                                                             : LayoutMemory::automatic;
  p.slot_output = values.is("slot_output", "hash")      ? SlotOutput::hash
                  : values.is("slot_output", "partial") ? SlotOutput::partial
                                                        : SlotOutput::automatic;
  p.column_order = values.is("column_order", "hubs_first") ? ColumnOrder::hubs_first
                   : values.is("column_order", "caller")   ? ColumnOrder::caller
                                                           : ColumnOrder::automatic;
  p.hub_min_count = values.is_auto("hub_min_count") ? 0 : values.integer("hub_min_count");
  p.update_values = values.is("update_values", "on");
  p.kernel = values.is("kernel", "tasks")    ? Kernel::tasks
             : values.is("kernel", "groups") ? Kernel::groups
                                             : Kernel::automatic;
  return p;
}

HbpParameters parse_parameters(const std::vector<std::string>& key_values) {
  return hbp_parameters(detail::check_parameter_values("hbp", parameter_specs(), key_values));
}

}  // namespace tcsparse::hbp
