// DASP layout statistics as JSON: stats_json (a plan's counts) and format_stats_json (dasp.hpp).
#include <sstream>
#include <string>

#include "dasp/dasp.hpp"
#include "dasp/dasp_format.hpp"

namespace tcsparse::dasp {

namespace {

std::string json_number(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

}  // namespace

std::string stats_json(const DaspCounts& c, DaspBlockShape shape,
                       const DaspParameters& parameters) {
  const int medium_rows_per_warp = c.medium_rows_per_warp;
  std::ostringstream o;
  o << "{\"block_shape\": [" << shape.rows << ", " << shape.width << "]"
    << ", \"rows\": {\"long\": " << c.rows_long << ", \"medium\": " << c.rows_medium
    << ", \"short\": " << c.rows_short << ", \"empty\": " << c.rows_empty << "}"
    << ", \"nnz\": {\"long\": " << c.nnz_long << ", \"medium_regular\": " << c.nnz_medium_regular
    << ", \"medium_irregular\": " << c.nnz_medium_irregular << ", \"short\": " << c.nnz_short
    << "}"
    << ", \"stored_values\": " << c.stored_values()
    << ", \"padding_ratio\": " << json_number(c.padding_ratio())
    << ", \"padding\": {\"long\": " << c.stored_long - c.nnz_long
    << ", \"medium_regular\": " << c.stored_medium_regular - c.nnz_medium_regular
    << ", \"short\": " << c.stored_short - c.nnz_short << "}"
    << ", \"long_groups\": " << c.long_groups << ", \"long_warp_tasks\": " << c.long_tasks
    << ", \"row_blocks\": " << c.row_blocks << ", \"regular_blocks\": " << c.regular_blocks
    << ", \"medium_units\": " << c.medium_units
    << ", \"loop_num\": " << medium_rows_per_warp / 8
    << ", \"medium_rows_per_warp\": " << medium_rows_per_warp
    << ", \"long_groups_per_warp\": " << c.split.long_groups_per_warp
    << ", \"medium_blocks_per_warp\": "
    << (c.split.medium_blocks_per_warp >= DaspWorkSplit{}.medium_blocks_per_warp
            ? std::string("null")  // never split
            : std::to_string(c.split.medium_blocks_per_warp))
    << ", \"short_pieces\": {\"pairs_1_3\": " << c.pairs_1_3 << ", \"rows_4\": " << c.rows_4
    << ", \"padded_3\": " << c.padded_3 << ", \"padded_2\": " << c.padded_2
    << ", \"pairs_2_2\": " << c.pairs_2_2 << ", \"single_1\": " << c.single_1 << "}"
    << ", \"max_medium_row_length\": " << c.max_medium_row_length
    << ", \"short_tiles_by_row\": " << (c.short_tiles_by_row ? "true" : "false")
    << ", \"padded_tail_blocks\": " << c.padded_tail_blocks
    << ", \"column_major_blocks\": " << (c.column_major_blocks ? "true" : "false")
    << ", \"warps\": " << c.warps() << ", \"parameters\": \"" << parameters.to_string() << "\"}";
  return o.str();
}

std::string format_stats_json(const CsrMatrix<double, std::int32_t>& matrix) {
  const DaspParameters parameters;
  const DaspBlockShape shape = default_block_shape<double>();
  const DaspCounts counts = count_dasp_layout(matrix, parameters, shape);
  return stats_json(counts, shape, parameters);
}

}  // namespace tcsparse::dasp
