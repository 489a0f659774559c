// Parsing of the DASP "key=value" parameters (PlanOptions::parameters).
#include "dasp/dasp_parameters.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

/// Largest max_medium_row_length accepted: the row sort keeps one counter per length.
constexpr int kLargestMaxMediumRowLength = 1 << 16;
constexpr int kLargestLongGroupsPerWarp = 1 << 16;
constexpr int kLargestMediumBlocksPerWarp = 1 << 16;

using Type = ParameterSpec::Type;

std::vector<ParameterSpec> build_parameter_specs() {
  return {
      {"max_medium_row_length", Type::integer, "auto", kDaspMaxShortRowLength,
       kLargestMaxMediumRowLength, {"auto"},
       "MAX_LEN: longer rows are long rows (auto: 256, or 16/32/64 for small matrices, 64 for "
       "fp64 matrices of 1-4 M nonzeros whose long rows pad little)"},
      {"regular_block_min_fill", Type::number, "auto", 0.0, 1.0, {"auto"},
       "least filled share of an 8x4 block kept in the regular part (paper: 0.75; auto: 0.75, "
       "or 0 for fp64 matrices of >= 1 M nonzeros where that stores <= 40 % more values)"},
      {"medium_rows_per_warp", Type::choice, "auto", 0, 0, {"auto", "8", "16", "32"},
       "medium rows one warp computes (LOOP_NUM x 8; auto: by the medium row count)"},
      {"long_groups_per_warp", Type::integer, "auto", 1, kLargestLongGroupsPerWarp, {"auto"},
       "long-row groups (64 fp64 values) one warp takes (auto: 32, 4 where a small matrix's "
       "longest row is > 64x the mean, or > 16x and > 1024 values)"},
      {"medium_blocks_per_warp", Type::integer, "auto", 1, kLargestMediumBlocksPerWarp, {"auto"},
       "blocks of one medium row-block a warp takes before the row-block is split (auto: never)"},
      {"blocks_in_flight", Type::choice, "auto", 0, 0, {"auto", "1", "2", "4"},
       "blocks whose loads a warp issues before the first use (auto: by matrix and x size, 4 where "
       "long rows set the time)"},
      {"pipelined_loads", Type::choice, "auto", 0, 0, {"auto", "0", "1"},
       "load the next batch of blocks while gathering x (auto: large fp16/bf16 matrices)"},
      {"short_tile_order", Type::choice, "auto", 0, 0, {"auto", "kind", "row"},
       "order of the short-row tiles among warps (auto: by row from 4096 tiles)"},
      {"short_y", Type::choice, "auto", 0, 0, {"auto", "direct", "staged"},
       "in layouts of short rows only with tiles by row: y of the short tiles stored by each "
       "lane, or staged in shared memory a thread block at a time and stored in row order "
       "(auto: staged in fp64 from 1 M rows)"},
      {"kernel_parts", Type::choice, "auto", 0, 0, {"auto", "all"},
       "the kernel with code only for the parts the layout has (auto: short rows only, or fp64 "
       "medium rows without irregular values), or the one with every part (all)"},
      {"fill", Type::choice, "device", 0, 0, {"device", "host"},
       "where the value and column arrays are filled from the CSR (host: with build=host)"},
      {"fp64_block_order", Type::choice, "auto", 0, 0, {"auto", "row", "column"},
       "storage order of fp64 8x4 blocks (auto: column-major when row-blocks end in padding)"},
      {"row_order", Type::choice, "auto", 0, 0, {"auto", "caller", "plan", "internal", "internal_y"},
       "order of y (and, square matrices, of x): the caller's, the plan's (SpmvPlan::permute), or "
       "the caller's outside and the plan's inside (internal: each apply permutes x in and y out; "
       "internal_y: y only, x as given; auto: internal for large graphs with hubs, else caller)"},
      {"medium_row_window", Type::integer, "auto", 8, std::int64_t{1} << 31, {"auto", "off"},
       "medium rows sorted by length within windows of this many rows (auto: 4096 from 1 M "
       "rows; off: over the whole matrix, the paper's)"},
      {"short_pair_window", Type::integer, "auto", 8, std::int64_t{1} << 31, {"auto", "off"},
       "rows of 1 and of 3 values paired within windows of this many rows (auto: 1024 from 1 M "
       "rows; off: over the whole matrix, the paper's)"},
      {"medium_row_order", Type::choice, "auto", 0, 0, {"auto", "length", "width"},
       "within a window, medium rows by length (the paper's sort) or, where every medium value "
       "is in a regular block, by block width and then caller row (auto: width)"},
      {"medium_min_row_length", Type::choice, "auto", 0, 0, {"auto", "4", "5"},
       "shortest medium row (auto: 4 where windows apply and medium rows dominate; paper: 5)"},
      {"build", Type::choice, "device", 0, 0, {"device", "host"},
       "where the layout's index arrays are built: on the GPU from the uploaded CSR (checked "
       "there too), or on the host (then uploaded)"},
      {"upload", Type::choice, "after", 0, 0, {"after", "overlapped"},
       "build=host: the CSR's upload beside the host index build (overlapped, on a worker "
       "thread) or after it"},
  };
}

/// An "auto | integer" parameter: 0 for auto, else its value.
int integer_or_zero(const detail::ParameterValues& values, std::string_view name) {
  return values.is_auto(name) ? 0 : static_cast<int>(values.integer(name));
}

/// A window of caller rows ("auto | off | rows"): 0 for auto, -1 for off, else the rows.
std::int64_t window_of(const detail::ParameterValues& values, std::string_view name) {
  return values.is_auto(name) ? 0 : values.is(name, "off") ? -1 : values.integer(name);
}

/// The text of a window (window_of's inverse).
std::string window_text(std::int64_t window) {
  return window > 0 ? std::to_string(window) : window < 0 ? std::string("off") : "auto";
}

}  // namespace

std::span<const ParameterSpec> parameter_specs() {
  static const std::vector<ParameterSpec> specs = build_parameter_specs();
  return specs;
}

std::string DaspParameters::to_string() const {
  std::ostringstream out;
  out << "max_medium_row_length="
      << (max_medium_row_length ? std::to_string(max_medium_row_length) : std::string("auto"))
      << ",regular_block_min_fill=";
  if (regular_block_min_fill >= 0.0) out << regular_block_min_fill;
  else out << "auto";
  out << ",medium_rows_per_warp="
      << (medium_rows_per_warp ? std::to_string(medium_rows_per_warp) : std::string("auto"))
      << ",long_groups_per_warp="
      << (long_groups_per_warp ? std::to_string(long_groups_per_warp) : std::string("auto"))
      << ",medium_blocks_per_warp="
      << (medium_blocks_per_warp ? std::to_string(medium_blocks_per_warp) : std::string("auto"))
      << ",blocks_in_flight="
      << (blocks_in_flight ? std::to_string(blocks_in_flight) : std::string("auto"))
      << ",pipelined_loads="
      << (pipelined_loads >= 0 ? std::to_string(pipelined_loads) : std::string("auto"))
      << ",short_tile_order="
      << (short_tile_order == 1 ? "kind" : short_tile_order == 2 ? "row" : "auto")
      << ",fill=" << (fill_on_device ? "device" : "host") << ",fp64_block_order="
      << (fp64_block_order == 1 ? "row" : fp64_block_order == 2 ? "column" : "auto")
      << ",row_order="
      << (internal_row_order     ? "internal"
          : internal_y_row_order ? "internal_y"
          : plan_row_order       ? "plan"
          : row_order_auto       ? "auto"
                                 : "caller")
      << ",medium_row_window=" << window_text(medium_row_window)
      << ",short_pair_window=" << window_text(short_pair_window)
      << ",medium_row_order="
      << (medium_row_order == 1 ? "length" : medium_row_order == 2 ? "width" : "auto")
      << ",medium_min_row_length="
      << (medium_min_row_length ? std::to_string(medium_min_row_length) : std::string("auto"))
      << ",build=" << (build_on_device ? "device" : "host")
      << ",upload=" << (overlapped_upload ? "overlapped" : "after")
      << ",kernel_parts=" << (kernel_parts_all ? "all" : "auto")
      << ",short_y=" << (short_y == 1 ? "direct" : short_y == 2 ? "staged" : "auto");
  return out.str();
}

DaspParameters dasp_parameters(const detail::ParameterValues& values) {
  DaspParameters p;
  p.max_medium_row_length = integer_or_zero(values, "max_medium_row_length");
  p.regular_block_min_fill =
      values.is_auto("regular_block_min_fill") ? -1.0 : values.number("regular_block_min_fill");
  p.medium_rows_per_warp = integer_or_zero(values, "medium_rows_per_warp");
  p.long_groups_per_warp = integer_or_zero(values, "long_groups_per_warp");
  p.medium_blocks_per_warp = integer_or_zero(values, "medium_blocks_per_warp");
  p.blocks_in_flight = integer_or_zero(values, "blocks_in_flight");
  p.pipelined_loads = values.is_auto("pipelined_loads")
                          ? -1
                          : static_cast<int>(values.integer("pipelined_loads"));
  p.short_tile_order = values.is("short_tile_order", "kind")  ? 1
                       : values.is("short_tile_order", "row") ? 2
                                                              : 0;
  p.fill_on_device = values.is("fill", "device");
  p.fp64_block_order = values.is("fp64_block_order", "row")      ? 1
                       : values.is("fp64_block_order", "column") ? 2
                                                                 : 0;
  p.plan_row_order = values.is("row_order", "plan");
  p.internal_row_order = values.is("row_order", "internal");
  p.internal_y_row_order = values.is("row_order", "internal_y");
  p.row_order_auto = values.is_auto("row_order");
  p.overlapped_upload = values.is("upload", "overlapped");
  p.medium_row_window = window_of(values, "medium_row_window");
  p.short_pair_window = window_of(values, "short_pair_window");
  p.medium_min_row_length = integer_or_zero(values, "medium_min_row_length");
  p.medium_row_order = values.is("medium_row_order", "length")  ? 1
                       : values.is("medium_row_order", "width") ? 2
                                                                : 0;
  p.build_on_device = values.is("build", "device");
  p.kernel_parts_all = values.is("kernel_parts", "all");
  p.short_y = values.is("short_y", "direct") ? 1 : values.is("short_y", "staged") ? 2 : 0;
  if (p.build_on_device && (!p.fill_on_device || p.overlapped_upload))
    throw ParameterError(std::string("method 'dasp': ") +
                         (p.fill_on_device ? "upload=overlapped" : "fill=host") +
                         " needs build=host (the device build uploads the CSR first and fills "
                         "the values on the GPU)");
  return p;
}

DaspParameters parse_parameters(const std::vector<std::string>& key_values) {
  return dasp_parameters(detail::check_parameter_values("dasp", parameter_specs(), key_values));
}

int resolve_medium_rows_per_warp(const DaspParameters& parameters, std::int64_t medium_rows,
                                 int block_rows, std::int64_t row_blocks,
                                 std::int64_t regular_blocks, std::int64_t largest_row_block) {
  if (parameters.medium_rows_per_warp) return std::max(parameters.medium_rows_per_warp, block_rows);
  // §3.3.2: LOOP_NUM 1, 2, 4 row-blocks of 8 rows
  const int paper_rows = medium_rows < kDaspLoopNum2MinMediumRows   ? 8
                         : medium_rows < kDaspLoopNum4MinMediumRows ? 16
                                                                    : 32;
  const double average =
      row_blocks > 0 ? static_cast<double>(regular_blocks) / static_cast<double>(row_blocks) : 0;
  int row_blocks_a_warp = 2;
  if (static_cast<double>(largest_row_block) > kDaspHeavyTailRatio * average)
    row_blocks_a_warp = 1;
  else if (average <= kDaspOneBlockRowBlocks)
    row_blocks_a_warp = 4;
  return std::max(block_rows, std::min(paper_rows, row_blocks_a_warp * block_rows));
}

int resolve_medium_min_row_length(const DaspParameters& parameters, std::int64_t rows,
                                  std::int64_t rows_1_to_3, std::int64_t rows_5_up) {
  if (parameters.medium_min_row_length) return parameters.medium_min_row_length;
  const bool windowed = resolve_medium_row_window(parameters, rows) > 0;
  return windowed && static_cast<double>(rows_5_up) >=
                         kDaspFourValueRowsMediumRatio * static_cast<double>(rows_1_to_3)
             ? kDaspMaxShortRowLength
             : kDaspMaxShortRowLength + 1;
}

namespace {
/// A window of caller rows: `asked` (-1: the whole matrix, 0: auto) or, auto, `automatic` from
/// kDaspWindowedMinRows rows; 0 means the whole matrix.
std::int64_t resolve_window(std::int64_t asked, std::int64_t rows, std::int64_t automatic) {
  if (asked < 0) return 0;
  if (asked > 0) return asked;
  return rows >= kDaspWindowedMinRows ? automatic : 0;
}
}  // namespace

std::int64_t resolve_medium_row_window(const DaspParameters& parameters, std::int64_t rows) {
  return resolve_window(parameters.medium_row_window, rows, kDaspMediumRowWindow);
}

bool internal_row_order_considered(const DaspParameters& parameters, std::int64_t rows,
                                   std::int64_t cols, std::int64_t nnz) {
  return parameters.row_order_auto && rows == cols && rows >= kDaspInternalOrderMinRows &&
         static_cast<double>(nnz) >=
             kDaspInternalOrderMinNnzPerRow * static_cast<double>(rows);
}

bool internal_row_order_pays(const DaspParameters& parameters, std::int64_t rows,
                             std::int64_t cols, std::int64_t nnz, double long_column_share) {
  return parameters.internal_row_order ||
         (internal_row_order_considered(parameters, rows, cols, nnz) &&
          long_column_share >= kDaspInternalOrderMinLongColumnShare);
}

bool internal_y_row_order_pays(const DaspParameters& parameters, int value_bytes,
                               std::int64_t rows, std::int64_t medium_rows,
                               std::int64_t medium_row_window, std::int64_t rowblocks_per_unit) {
  return parameters.internal_y_row_order ||
         (parameters.row_order_auto && value_bytes == 8 && rows >= kDaspInternalYMinRows &&
          medium_rows > 0 && medium_row_window == 0 && rowblocks_per_unit == 1);
}

std::int64_t resolve_short_pair_window(const DaspParameters& parameters, std::int64_t rows) {
  return resolve_window(parameters.short_pair_window, rows, kDaspShortPairWindow);
}

DaspWorkSplit resolve_work_split(const DaspParameters& parameters) {
  DaspWorkSplit split;
  if (parameters.long_groups_per_warp) split.long_groups_per_warp = parameters.long_groups_per_warp;
  if (parameters.medium_blocks_per_warp)
    split.medium_blocks_per_warp = parameters.medium_blocks_per_warp;
  return split;
}

DaspLoopShape resolve_loop_shape(const DaspParameters& parameters, std::int64_t nnz,
                                 std::int64_t x_bytes, bool fp64, bool dense_long_rows,
                                 bool long_rows_critical) {
  const bool small = nnz < kDaspSmallMatrixNnz;
  DaspLoopShape shape;
  shape.blocks_in_flight =
      parameters.blocks_in_flight ? parameters.blocks_in_flight
      : dense_long_rows                              ? kDaspDenseRowsBlocksInFlight
      : (small || x_bytes <= kDaspL1ResidentXBytes) ? kDaspBlocksInFlightSmall
      : long_rows_critical                           ? kDaspLongRowsCriticalBlocksInFlight
                                                     : kDaspBlocksInFlightLarge;
  shape.pipelined_loads =
      parameters.pipelined_loads >= 0 ? parameters.pipelined_loads != 0 : (!fp64 && !small);
  return shape;
}

}  // namespace tcsparse::dasp
