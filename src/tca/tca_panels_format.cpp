// The panels layout of tca kernel=panels: shape rules, host builder, host model
// (tca_panels_format.hpp).
#include "tca/tca_panels_format.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::tca {

std::int64_t panel_chunks(std::int64_t cols, std::int64_t panel_columns) {
  return std::max<std::int64_t>(1, (cols + panel_columns - 1) / panel_columns);
}

int panels_slice_columns(std::int64_t n) { return n <= 8 ? 8 : kPanelsMaxSliceColumns; }

PanelLayout build_panel_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                               const std::int32_t* col_idx, const std::uint16_t* values,
                               std::int64_t panel_columns) {
  PanelLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.nnz = rows > 0 ? row_ptr[rows] : 0;
  layout.panel_columns = panel_columns;
  layout.chunks = panel_chunks(cols, panel_columns);
  const std::int64_t entries = layout.chunks * rows + 1;
  if (entries > std::numeric_limits<std::int32_t>::max())
    throw IndexOverflowError("tca kernel=panels: " + std::to_string(entries) +
                             " (chunk, row) offsets exceed 32-bit indices");
  // counts, then where each (chunk, row) begins; then each nonzero at its cursor
  std::vector<std::int64_t> begin(static_cast<std::size_t>(entries), 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
      ++begin[static_cast<std::size_t>(col_idx[k] / panel_columns * rows + r + 1)];
  for (std::size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
  layout.offsets.assign(begin.begin(), begin.end());
  layout.words.resize(static_cast<std::size_t>(layout.nnz));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      const std::int64_t chunk = col_idx[k] / panel_columns;
      const auto local = static_cast<std::uint32_t>(col_idx[k] - chunk * panel_columns);
      layout.words[static_cast<std::size_t>(begin[static_cast<std::size_t>(chunk * rows + r)]++)] =
          local << 16 | values[k];
    }
  return layout;
}

std::int64_t choose_panel_rows(std::int64_t rows, std::int64_t chunks, std::int64_t slices,
                               std::int64_t nnz, std::int64_t stage_words, int multiprocessors) {
  const double per_row_chunk =
      rows > 0 ? static_cast<double>(nnz) / static_cast<double>(rows * chunks) : 0.0;
  const std::int64_t target_blocks =
      std::int64_t{kPanelsTargetBlocksPerSm} * std::max(1, multiprocessors);
  for (std::int64_t panel_rows = kPanelsMaxRows; panel_rows > kPanelsMinRows; panel_rows /= 2) {
    const bool fits = 1.5 * per_row_chunk * static_cast<double>(panel_rows) <=
                      static_cast<double>(stage_words);
    const std::int64_t blocks = (rows + panel_rows - 1) / panel_rows * chunks * slices;
    if (fits && blocks >= target_blocks) return panel_rows;
  }
  return kPanelsMinRows;
}

template <typename Value>
void panels_host_apply(const PanelLayout& layout, const std::vector<Value>& B,
                       std::vector<Value>& C, std::int64_t n, DenseLayout dense, float alpha,
                       float beta) {
  const bool row_major = dense == DenseLayout::row_major;
  std::vector<float> chunk_sum(static_cast<std::size_t>(n)), total(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < layout.rows; ++r) {
    std::fill(total.begin(), total.end(), 0.0f);
    for (std::int64_t chunk = 0; chunk < layout.chunks; ++chunk) {
      std::fill(chunk_sum.begin(), chunk_sum.end(), 0.0f);
      const std::size_t at = static_cast<std::size_t>(chunk * layout.rows + r);
      for (std::int64_t w = layout.offsets[at]; w < layout.offsets[at + 1]; ++w) {
        const std::uint32_t word = layout.words[static_cast<std::size_t>(w)];
        Value a;
        a.bits = static_cast<std::uint16_t>(word & 0xffffu);
        const std::int64_t k = chunk * layout.panel_columns + (word >> 16);
        for (std::int64_t j = 0; j < n; ++j)
          chunk_sum[j] += static_cast<float>(a) *
                          static_cast<float>(row_major ? B[k * n + j] : B[j * layout.cols + k]);
      }
      for (std::int64_t j = 0; j < n; ++j) total[j] += chunk_sum[j];
    }
    for (std::int64_t j = 0; j < n; ++j) {
      Value& c = row_major ? C[r * n + j] : C[j * layout.rows + r];
      float result = alpha * total[j];
      if (beta != 0.0f) result += beta * static_cast<float>(c);
      c = Value(result);
    }
  }
}

template void panels_host_apply<half>(const PanelLayout&, const std::vector<half>&,
                                      std::vector<half>&, std::int64_t, DenseLayout, float, float);
template void panels_host_apply<bfloat16>(const PanelLayout&, const std::vector<bfloat16>&,
                                          std::vector<bfloat16>&, std::int64_t, DenseLayout,
                                          float, float);

}  // namespace tcsparse::tca
