// DASP layout statistics as JSON objects: a layout's counts (PlanStats::details) and the host
// count of a matrix's fp64 layout (the registry's layout_statistics, `tcsparse info`).
#include "dasp/dasp_format.hpp"

namespace tcsparse::dasp {

Json layout_statistics(const DaspCounts& c, DaspBlockShape shape,
                       const DaspParameters& parameters) {
  const bool medium_split = c.split.medium_blocks_per_warp < DaspWorkSplit{}.medium_blocks_per_warp;
  return Json{
      {"block_shape", {shape.rows, shape.width}},
      {"rows", {{"long", c.rows_long}, {"medium", c.rows_medium}, {"short", c.rows_short},
                {"empty", c.rows_empty}}},
      {"nnz", {{"long", c.nnz_long}, {"medium_regular", c.nnz_medium_regular},
               {"medium_irregular", c.nnz_medium_irregular}, {"short", c.nnz_short}}},
      {"stored_values", c.stored_values()},
      {"padding_ratio", c.padding_ratio()},
      {"padding", {{"long", c.stored_long - c.nnz_long},
                   {"medium_regular", c.stored_medium_regular - c.nnz_medium_regular},
                   {"short", c.stored_short - c.nnz_short}}},
      {"long_groups", c.long_groups},
      {"long_warp_tasks", c.long_tasks},
      {"row_blocks", c.row_blocks},
      {"regular_blocks", c.regular_blocks},
      {"medium_units", c.medium_units},
      {"loop_num", c.medium_rows_per_warp / 8},
      {"medium_rows_per_warp", c.medium_rows_per_warp},
      {"medium_row_window", c.medium_row_window},  // 0: sorted over the whole matrix
      {"medium_row_order", c.medium_rows_by_width ? "width" : "length"},
      {"medium_min_row_length", c.medium_min_row_length},
      {"long_groups_per_warp", c.split.long_groups_per_warp},
      {"medium_blocks_per_warp",
       medium_split ? Json(c.split.medium_blocks_per_warp) : Json(nullptr)},  // null: never split
      {"short_pieces", {{"pairs_1_3", c.pairs_1_3}, {"rows_4", c.rows_4},
                        {"padded_3", c.padded_3}, {"padded_2", c.padded_2},
                        {"pairs_2_2", c.pairs_2_2}, {"single_1", c.single_1}}},
      {"short_pair_window", c.short_pair_window},  // 0: paired over the whole matrix
      {"max_medium_row_length", c.max_medium_row_length},
      {"short_tiles_by_row", c.short_tiles_by_row},
      {"padded_tail_blocks", c.padded_tail_blocks},
      {"column_major_blocks", c.column_major_blocks},
      {"warps", c.warps()},
      {"parameters", parameters.to_string()}};
}

Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix,
                            const DaspParameters& parameters) {
  const DaspBlockShape shape = default_block_shape<double>();
  return layout_statistics(count_dasp_layout(matrix, parameters, shape), shape, parameters);
}

}  // namespace tcsparse::dasp
