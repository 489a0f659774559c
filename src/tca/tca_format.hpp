// TCA-SpMM work decomposition (host side): which thread block computes which rows and columns.
//
// Paper: Y. Han, I. Kim, J. Kim, G. E. Moon, "Tensor Core-Adapted Sparse Matrix Multiplication for
// Accelerating Sparse Deep Neural Networks", Electronics 13 (2024) 3981,
// doi:10.3390/electronics13203981 (Section 4.2, Algorithms 2-4, Equation 2).
//
// The CSR stays as it is (no reordering of rows or values). Rows are put into row classes by
// their nonzero count, and each class gets the number of warps the paper gives it (4.2.2):
//
//   class        nonzeros      warps per row   segments s   outputs per MMA   blocks per row
//   short_1      0 .. 8         1               1            16                (8 rows / block)
//   short_2      9 .. 16        2               2             8                (4 rows / block)
//   short_4     17 .. 32        4               4             4                (2 rows / block)
//   short_8     33 .. 64        8               8             2                (1 row / block)
//   long          > 64          8 per block     8             2                ceil(nnz / 64), each
//                                                                               a slice of columns
//
// A block has kWarpsPerBlock = 8 warps; its rows are a "row group" of W = warps-per-row warps
// each. Blocks hold rows of one class only, so every warp of a block runs the same loops (the
// kernel's __syncthreads are uniform); the last block of a class may have idle slots (row -1).
//
//   rows_of_slot: [ class short_1 rows, padded to 8 | short_2 rows, padded to 4 | ... | long ]
//   block b:      slots [first_slot, first_slot + 8 / W), its rows, columns [col_begin, col_end)
#pragma once

#include <cstdint>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::tca {

/// Warps per thread block (Section 4.2: "each CUDA thread block contains eight warps").
inline constexpr int kWarpsPerBlock = 8;
/// Nonzeros of one mma.m16n8k8 right operand: the 8x8 (k8 x n8) sparse-row fragment (4.2).
inline constexpr int kNonzerosPerMma = 64;
/// Nonzeros of one segment: one column of the 8x8 sparse fragment (the k dimension).
inline constexpr int kNonzerosPerSegment = 8;
/// Rows of the m16n8k8 left operand: 16 compressed columns of B, in groups of s segments.
inline constexpr int kMmaRows = 16;
/// Output columns a block stages at once (the paper's tilewidth, Algorithm 2): the compressed
/// RHS buffer holds tile x (8 * W) values per row group. A multiple of 16, so that each of a
/// row's W warps does tile / 16 MMAs per tile in every class.
inline constexpr int kTileWidth = 64;
/// Columns of a long row's block slice are a multiple of this (aligned stores, whole MMAs).
inline constexpr int kLongSliceAlignment = 16;

/// Row classes (Section 4.2.2 and Equation 2).
enum class RowClass : std::int8_t { short_1, short_2, short_4, short_8, long_row };
inline constexpr int kRowClasses = 5;

/// The class of a row with `nonzeros` entries.
RowClass row_class(std::int64_t nonzeros);
/// Warps per row for a short class; 8 (per block) for long rows.
int warps_per_row(RowClass row_class);

/// One thread block's work.
struct TcaBlock {
  std::int32_t first_slot = 0;   ///< into rows_of_slot; kWarpsPerBlock / warps_per_row slots
  std::int32_t warps_per_row = 1;  ///< W: 1, 2, 4 or 8 (also the segments per MMA, s)
  std::int32_t col_begin = 0;    ///< output columns [col_begin, col_end)
  std::int32_t col_end = 0;
};
static_assert(sizeof(TcaBlock) == 16);

struct TcaLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0, n = 0;
  std::vector<std::int32_t> rows_of_slot;  ///< row index, or -1 for an idle slot
  std::vector<TcaBlock> blocks;
  std::int64_t rows_in_class[kRowClasses] = {};
  std::int64_t blocks_in_class[kRowClasses] = {};
  std::int64_t idle_slots = 0;
  /// MMAs the kernel issues in total (padding included), and the useful share 2*nnz*n /
  /// (mma_count * 2*16*8*8): what the row classes waste on padded fragments.
  std::int64_t mma_count = 0;
};

/// The decomposition of `row_ptr` (rows + 1 offsets of a valid CSR) for n output columns.
/// Throws IndexOverflowError when the block or slot count exceeds 32 bits.
TcaLayout build_tca_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                           std::int64_t n);

template <typename Value>
TcaLayout build_tca_layout(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t n) {
  return build_tca_layout(matrix.rows, matrix.cols, matrix.row_ptr.data(), n);
}

/// {"rows_short_1": .., "blocks_long": .., "idle_slots": .., "mma_count": .., "blocks": ..}
Json layout_details(const TcaLayout& layout);

/// The host model of the kernel: C = alpha * A * B + beta * C walking `layout` exactly as the
/// kernel does (blocks, row groups, tiles, 64-nonzero chunks, the m16n8k8 operands built from the
/// compressed RHS buffer and the sparse fragment, the trace of the s x s diagonal blocks, fp32
/// accumulation). B: cols x n, C: rows x n in `dense` layout. beta == 0 does not read C.
/// Values are read as double and rounded to Value's precision where the kernel holds them
/// (inputs as given; products accumulated in float).
template <typename Value>
void host_apply(const TcaLayout& layout, const CsrMatrix<Value, std::int32_t>& matrix,
                const std::vector<Value>& B, std::vector<Value>& C, DenseLayout dense,
                float alpha, float beta);

}  // namespace tcsparse::tca
