// Parsing of the DASP "key=value" parameters (PlanOptions::parameters).
#include "dasp/dasp_parameters.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::dasp {
namespace {

/// Largest max_medium_row_length accepted: the row sort keeps one counter per length.
constexpr int kLargestMaxMediumRowLength = 1 << 16;
constexpr int kLargestLongGroupsPerWarp = 1 << 16;
constexpr int kLargestMediumBlocksPerWarp = 1 << 16;

std::string known_keys() {
  std::string list;
  for (auto key : parameter_keys()) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list;
}

[[noreturn]] void bad_value(std::string_view key, std::string_view value, std::string_view expected) {
  throw UnsupportedError("DASP parameter " + std::string(key) + "=" + std::string(value) +
                         ": expected " + std::string(expected));
}

int parse_int(std::string_view key, std::string_view value, int lowest, int highest) {
  int result = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (error != std::errc{} || end != value.data() + value.size() || result < lowest ||
      result > highest)
    bad_value(key, value,
              "an integer in [" + std::to_string(lowest) + ", " + std::to_string(highest) + "]");
  return result;
}

double parse_fraction(std::string_view key, std::string_view value) {
  const std::string text(value);
  std::size_t used = 0;
  double result = -1.0;
  try {
    result = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !(result >= 0.0 && result <= 1.0))
    bad_value(key, value, "a number in [0, 1]");
  return result;
}

}  // namespace

const std::vector<std::string_view>& parameter_keys() {
  static const std::vector<std::string_view> keys = {
      "max_medium_row_length", "regular_block_min_fill", "medium_rows_per_warp",
      "long_groups_per_warp", "medium_blocks_per_warp", "blocks_in_flight", "pipelined_loads",
      "short_tile_order", "fill", "fp64_block_order"};
  return keys;
}

std::string DaspParameters::to_string() const {
  std::ostringstream out;
  out << "max_medium_row_length="
      << (max_medium_row_length ? std::to_string(max_medium_row_length) : std::string("auto"))
      << ",regular_block_min_fill=" << regular_block_min_fill << ",medium_rows_per_warp="
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
      << (fp64_block_order == 1 ? "row" : fp64_block_order == 2 ? "column" : "auto");
  return out.str();
}

DaspParameters parse_parameters(const std::vector<std::string>& key_values) {
  DaspParameters p;
  for (const std::string& item : key_values) {
    const auto equals = item.find('=');
    if (equals == std::string::npos)
      throw UnsupportedError("DASP parameter '" + item + "' is not key=value; known keys: " +
                             known_keys());
    const std::string_view key = std::string_view(item).substr(0, equals);
    const std::string_view value = std::string_view(item).substr(equals + 1);
    if (key == "max_medium_row_length") {
      p.max_medium_row_length =
          value == "auto" ? 0
                          : parse_int(key, value, kDaspMaxShortRowLength, kLargestMaxMediumRowLength);
    } else if (key == "regular_block_min_fill") {
      p.regular_block_min_fill = parse_fraction(key, value);
    } else if (key == "medium_rows_per_warp") {
      if (value == "auto") {
        p.medium_rows_per_warp = 0;
      } else {
        p.medium_rows_per_warp = parse_int(key, value, 8, 32);
        if (p.medium_rows_per_warp != 8 && p.medium_rows_per_warp != 16 &&
            p.medium_rows_per_warp != 32)
          bad_value(key, value, "auto, 8, 16 or 32");
      }
    } else if (key == "long_groups_per_warp") {
      p.long_groups_per_warp =
          value == "auto" ? 0 : parse_int(key, value, 1, kLargestLongGroupsPerWarp);
    } else if (key == "medium_blocks_per_warp") {
      p.medium_blocks_per_warp =
          value == "auto" ? 0 : parse_int(key, value, 1, kLargestMediumBlocksPerWarp);
    } else if (key == "short_tile_order") {
      if (value != "auto" && value != "kind" && value != "row")
        bad_value(key, value, "auto, kind or row");
      p.short_tile_order = value == "kind" ? 1 : value == "row" ? 2 : 0;
    } else if (key == "fp64_block_order") {
      if (value != "auto" && value != "row" && value != "column")
        bad_value(key, value, "auto, row or column");
      p.fp64_block_order = value == "row" ? 1 : value == "column" ? 2 : 0;
    } else if (key == "fill") {
      if (value != "device" && value != "host") bad_value(key, value, "device or host");
      p.fill_on_device = value == "device";
    } else if (key == "pipelined_loads") {
      p.pipelined_loads = value == "auto" ? -1 : parse_int(key, value, 0, 1);
    } else if (key == "blocks_in_flight") {
      p.blocks_in_flight = value == "auto" ? 0 : parse_int(key, value, 1, 4);
      if (p.blocks_in_flight == 3) bad_value(key, value, "auto, 1, 2 or 4");
    } else {
      throw UnsupportedError("unknown DASP parameter '" + std::string(key) +
                             "'; known keys: " + known_keys());
    }
  }
  return p;
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

DaspWorkSplit resolve_work_split(const DaspParameters& parameters) {
  DaspWorkSplit split;
  if (parameters.long_groups_per_warp) split.long_groups_per_warp = parameters.long_groups_per_warp;
  if (parameters.medium_blocks_per_warp)
    split.medium_blocks_per_warp = parameters.medium_blocks_per_warp;
  return split;
}

DaspLoopShape resolve_loop_shape(const DaspParameters& parameters, std::int64_t nnz,
                                 std::int64_t x_bytes, bool fp64, bool dense_long_rows) {
  const bool small = nnz < kDaspSmallMatrixNnz;
  DaspLoopShape shape;
  shape.blocks_in_flight =
      parameters.blocks_in_flight ? parameters.blocks_in_flight
      : dense_long_rows                              ? kDaspDenseRowsBlocksInFlight
      : (small || x_bytes <= kDaspL1ResidentXBytes) ? kDaspBlocksInFlightSmall
                                                     : kDaspBlocksInFlightLarge;
  shape.pipelined_loads =
      parameters.pipelined_loads >= 0 ? parameters.pipelined_loads != 0 : (!fp64 && !small);
  return shape;
}

}  // namespace tcsparse::dasp
