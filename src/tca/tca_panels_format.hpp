// tca kernel=panels: A cut into panels of `panel_rows` rows x `panel_columns` columns, each
// panel's nonzeros packed as (column in the panel, value) words; a thread block stages one
// panel's words and B's panel_columns rows in shared memory and multiplies on CUDA cores in fp32.
// Not in the TCA paper: issue 11's decode widths (n <= 16) at 80-95 % sparsity, where the rows
// kernel's B gathers through L1 (one 16-byte gather a nonzero and 8 columns: each lane of a warp
// in its own cache line) and the tiles kernel's per-segment decode both cost more than the bytes.
// Host side: the layout, its shape rules, a host builder (the specification of the GPU build in
// tca_panels_kernel.cuh) and the host model of the kernel.
//
//             chunk 0 (cols 0..1023)   chunk 1 (1024..2047)   ...
//   rows 0..      [ panel (0, 0) ]      [ panel (0, 1) ]            a panel: panel_rows rows of
//   rows pr..     [ panel (1, 0) ]      [ panel (1, 1) ]            one chunk of columns
//
//   offsets[c * rows + r] (chunks * rows + 1): the first word of row r's nonzeros in chunk c.
//     Chunk-major, so a panel's words are one contiguous range:
//     [offsets[c * rows + first row], offsets[c * rows + first row + panel rows]).
//   words[k] = (column - c * panel_columns) << 16 | the value's 16 bits (fp16 / bf16), the
//     nonzeros of (chunk, row) in the CSR's column order; 4 bytes a nonzero.
//
// The layout does not depend on panel_rows (only the grid does), nor on n.
#pragma once

#include <cstdint>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::tca {

/// Warps of a thread block: they share the block's staged panel, a row of it each in turn.
inline constexpr int kPanelsWarpsPerBlock = 8;
/// Columns of B (and C) one thread block computes: 8 up to 8 columns, else 16 (a lane holds 8
/// fp32 sums of one nonzero's 8 columns; at 16 a lane pair shares a nonzero). Wider n runs as
/// several slices (kernel=panels is meant for decode widths; auto never takes it above 16).
inline constexpr int kPanelsMaxSliceColumns = 16;
/// Columns of a panel (rows of B staged at once) by default, and the bounds: the column within a
/// panel is stored in 16 bits, and a staged B of 16 columns takes panel_columns x 32 bytes.
inline constexpr std::int64_t kPanelsDefaultColumns = 1024;
inline constexpr std::int64_t kPanelsMaxColumns = 4096;
/// Blocks the shape rule aims to fit on a multiprocessor (their shared memory: B's stage, the
/// panel's row offsets and its words), and the blocks it aims the grid at, per multiprocessor.
inline constexpr int kPanelsBlocksPerSm = 3;
inline constexpr int kPanelsTargetBlocksPerSm = 2;
/// Fewer blocks an SM where B's stage would leave less than this for the panel's words.
inline constexpr std::int64_t kPanelsMinWordStageBytes = 16 * 1024;
/// panel_rows the automatic rule picks from (powers of two; a multiple of the warps).
inline constexpr std::int64_t kPanelsMaxRows = 128;
inline constexpr std::int64_t kPanelsMinRows = kPanelsWarpsPerBlock;

/// Chunks of columns: ceil(cols / panel_columns), at least 1.
std::int64_t panel_chunks(std::int64_t cols, std::int64_t panel_columns);
/// Columns of a slice for width n: 8 or 16.
int panels_slice_columns(std::int64_t n);

struct PanelLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int64_t panel_columns = kPanelsDefaultColumns;
  std::int64_t chunks = 1;
  std::vector<std::int32_t> offsets;  ///< chunks * rows + 1
  std::vector<std::uint32_t> words;   ///< nnz
};

/// The layout of a valid CSR (sorted, unique columns); values as 16-bit patterns. Throws
/// IndexOverflowError when chunks * rows + 1 exceeds 32-bit offsets.
PanelLayout build_panel_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                               const std::int32_t* col_idx, const std::uint16_t* values,
                               std::int64_t panel_columns);

template <typename Value>
PanelLayout build_panel_layout(const CsrMatrix<Value, std::int32_t>& matrix,
                               std::int64_t panel_columns) {
  static_assert(sizeof(Value) == 2, "panels hold 16-bit values");
  return build_panel_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(),
                            matrix.col_idx.data(),
                            reinterpret_cast<const std::uint16_t*>(matrix.values.data()),
                            panel_columns);
}

/// panel_rows for a matrix of `nnz` nonzeros over rows x chunks (row, chunk) pieces, `slices`
/// slices of B, a panel stage of `stage_words` words and `multiprocessors` SMs: the largest power
/// of two in [kPanelsMinRows, kPanelsMaxRows] whose average panel (with half again for uneven
/// rows) fits the stage and whose grid still gives kPanelsTargetBlocksPerSm blocks an SM;
/// kPanelsMinRows when none does.
std::int64_t choose_panel_rows(std::int64_t rows, std::int64_t chunks, std::int64_t slices,
                               std::int64_t nnz, std::int64_t stage_words, int multiprocessors);

/// The host model of the kernel: C = alpha A B + beta C, each (row, chunk) summed in fp32 over its
/// words, the chunks added in order. B: cols x n, C: rows x n in `dense` layout; beta == 0 does
/// not read C.
template <typename Value>
void panels_host_apply(const PanelLayout& layout, const std::vector<Value>& B,
                       std::vector<Value>& C, std::int64_t n, DenseLayout dense, float alpha,
                       float beta);

}  // namespace tcsparse::tca
