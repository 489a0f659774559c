// TCA-SpMM work decomposition and its host model (tca_format.hpp).
#include "tca/tca_format.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

constexpr std::array<const char*, kRowClasses> kClassNames = {"short_1", "short_2", "short_4",
                                                               "short_8", "long"};

std::int32_t checked_32(std::int64_t value, const char* what) {
  if (value > std::numeric_limits<std::int32_t>::max())
    throw IndexOverflowError(std::string("tca: ") + what + " (" + std::to_string(value) +
                             ") exceeds 32 bits");
  return static_cast<std::int32_t>(value);
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

RowClass row_class(std::int64_t nonzeros) {
  if (nonzeros <= 8) return RowClass::short_1;
  if (nonzeros <= 16) return RowClass::short_2;
  if (nonzeros <= 32) return RowClass::short_4;
  if (nonzeros <= kNonzerosPerMma) return RowClass::short_8;
  return RowClass::long_row;
}

int warps_per_row(RowClass row_class) {
  switch (row_class) {
    case RowClass::short_1: return 1;
    case RowClass::short_2: return 2;
    case RowClass::short_4: return 4;
    default: return kWarpsPerBlock;
  }
}

TcaLayout build_tca_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                           std::int64_t n) {
  TcaLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.nnz = rows > 0 ? row_ptr[rows] : 0;
  layout.n = n;
  checked_32(n, "n");
  if (rows == 0 || n == 0) return layout;

  std::array<std::vector<std::int32_t>, kRowClasses> rows_by_class;
  for (std::int64_t r = 0; r < rows; ++r) {
    const int c = static_cast<int>(row_class(row_ptr[r + 1] - row_ptr[r]));
    rows_by_class[c].push_back(static_cast<std::int32_t>(r));
    ++layout.rows_in_class[c];
  }

  const std::int64_t mmas_per_warp_per_tile = kTileWidth / kMmaRows;
  const auto tiles = [](std::int64_t begin, std::int64_t end) {
    return ceil_div(end - begin, kTileWidth);
  };

  // Short classes: 8 / W rows a block, each row over all n columns, one chunk.
  for (int c = 0; c < kRowClasses - 1; ++c) {
    const int warps = warps_per_row(static_cast<RowClass>(c));
    const int rows_per_block = kWarpsPerBlock / warps;
    const std::vector<std::int32_t>& list = rows_by_class[c];
    for (std::size_t first = 0; first < list.size(); first += rows_per_block) {
      TcaBlock block;
      block.first_slot = checked_32(static_cast<std::int64_t>(layout.rows_of_slot.size()),
                                    "the slot count");
      block.warps_per_row = warps;
      block.col_begin = 0;
      block.col_end = static_cast<std::int32_t>(n);
      for (int i = 0; i < rows_per_block; ++i) {
        const std::size_t k = first + static_cast<std::size_t>(i);
        if (k < list.size()) {
          layout.rows_of_slot.push_back(list[k]);
          layout.mma_count += warps * mmas_per_warp_per_tile * tiles(0, n);
        } else {
          layout.rows_of_slot.push_back(-1);
          ++layout.idle_slots;
        }
      }
      layout.blocks.push_back(block);
      ++layout.blocks_in_class[c];
    }
  }

  // Long rows: ceil(nnz / 64) blocks (4.2.2), at most one per 16 columns, each a column slice
  // (a multiple of 16 columns; Algorithm 2 lines 10-14), all its 64-nonzero chunks in turn.
  const int long_class = static_cast<int>(RowClass::long_row);
  for (const std::int32_t r : rows_by_class[long_class]) {
    const std::int64_t nonzeros = row_ptr[r + 1] - row_ptr[r];
    const std::int64_t chunks = ceil_div(nonzeros, kNonzerosPerMma);
    const std::int64_t wanted = std::min(chunks, ceil_div(n, kLongSliceAlignment));
    const std::int64_t slice =
        ceil_div(ceil_div(n, wanted), kLongSliceAlignment) * kLongSliceAlignment;
    const std::int32_t slot =
        checked_32(static_cast<std::int64_t>(layout.rows_of_slot.size()), "the slot count");
    layout.rows_of_slot.push_back(r);
    for (std::int64_t begin = 0; begin < n; begin += slice) {
      TcaBlock block;
      block.first_slot = slot;
      block.warps_per_row = kWarpsPerBlock;
      block.col_begin = static_cast<std::int32_t>(begin);
      block.col_end = static_cast<std::int32_t>(std::min(n, begin + slice));
      layout.blocks.push_back(block);
      ++layout.blocks_in_class[long_class];
      layout.mma_count += kWarpsPerBlock * mmas_per_warp_per_tile * chunks *
                          tiles(block.col_begin, block.col_end);
    }
  }
  checked_32(static_cast<std::int64_t>(layout.blocks.size()), "the block count");
  return layout;
}

Json layout_details(const TcaLayout& layout) {
  Json details = Json::object();
  for (int c = 0; c < kRowClasses; ++c) {
    details[std::string("rows_") + kClassNames[c]] = layout.rows_in_class[c];
    details[std::string("blocks_") + kClassNames[c]] = layout.blocks_in_class[c];
  }
  details["blocks"] = layout.blocks.size();
  details["idle_slots"] = layout.idle_slots;
  details["mma_count"] = layout.mma_count;
  details["tile_width"] = kTileWidth;
  details["warps_per_block"] = kWarpsPerBlock;
  // Useful multiply-adds over the issued ones (16 * 8 * 8 each).
  details["mma_useful_share"] =
      layout.mma_count > 0 ? static_cast<double>(layout.nnz) * static_cast<double>(layout.n) /
                                 (static_cast<double>(layout.mma_count) * 16.0 * 8.0 * 8.0)
                           : 0.0;
  return details;
}

template <typename Value>
void host_apply(const TcaLayout& layout, const CsrMatrix<Value, std::int32_t>& matrix,
                const std::vector<Value>& B, std::vector<Value>& C, DenseLayout dense,
                float alpha, float beta) {
  const std::int64_t rows = layout.rows, cols = layout.cols, n = layout.n;
  if (matrix.rows != rows || matrix.cols != cols)
    throw ValidationError("tca::host_apply: the layout was built for another matrix");
  const bool row_major = dense == DenseLayout::row_major;
  const auto b_at = [&](std::int64_t k, std::int64_t j) -> float {
    return static_cast<float>(B[static_cast<std::size_t>(row_major ? k * n + j : j * cols + k)]);
  };
  const auto c_index = [&](std::int64_t i, std::int64_t j) {
    return static_cast<std::size_t>(row_major ? i * n + j : j * rows + i);
  };

  // The block's shared memory, as the kernel lays it out (row group g at g * its share).
  std::vector<float> rhs_buffer(static_cast<std::size_t>(kTileWidth) * kNonzerosPerMma);
  std::vector<float> sparse_values(kNonzerosPerMma);
  std::vector<float> output_buffer(static_cast<std::size_t>(kWarpsPerBlock) * kTileWidth);
  // Accumulators: [warp of block][MMA of the warp in the tile][16 x 8].
  constexpr int kMmasPerWarp = kTileWidth / kMmaRows;
  std::vector<float> accumulators(static_cast<std::size_t>(kWarpsPerBlock) * kMmasPerWarp * 128);

  for (const TcaBlock& block : layout.blocks) {
    const int W = block.warps_per_row, s = W, G = kMmaRows / s;
    const int groups = kWarpsPerBlock / W;
    const int chunk_width = kNonzerosPerSegment * W;  // nonzeros a row group stages at once
    // One row per block for W = 8 (long or short_8); short rows have one chunk.
    const std::int32_t first_row = layout.rows_of_slot[block.first_slot];
    const std::int64_t chunks =
        W == kWarpsPerBlock && first_row >= 0
            ? std::max<std::int64_t>(1, (matrix.row_ptr[first_row + 1] -
                                         matrix.row_ptr[first_row] + chunk_width - 1) /
                                            chunk_width)
            : 1;
    for (std::int64_t tile = block.col_begin; tile < block.col_end; tile += kTileWidth) {
      std::fill(accumulators.begin(), accumulators.end(), 0.0f);
      for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
        // Stage: sparse values (zero past the row) and the compressed RHS buffer
        // rhs[g][c][k] = B[col_idx[k]][tile + c] (zero past the row or past col_end).
        for (int g = 0; g < groups; ++g) {
          const std::int32_t row = layout.rows_of_slot[block.first_slot + g];
          for (int k = 0; k < chunk_width; ++k) {
            const std::int64_t begin = row >= 0 ? matrix.row_ptr[row] : 0;
            const std::int64_t end = row >= 0 ? matrix.row_ptr[row + 1] : 0;
            const std::int64_t nz = begin + chunk * chunk_width + k;
            const bool present = nz < end;
            sparse_values[g * chunk_width + k] =
                present ? static_cast<float>(matrix.values[nz]) : 0.0f;
            for (int c = 0; c < kTileWidth; ++c) {
              const bool in_range = present && tile + c < block.col_end;
              rhs_buffer[static_cast<std::size_t>(g) * kTileWidth * chunk_width +
                         static_cast<std::size_t>(c) * chunk_width + k] =
                  in_range ? b_at(matrix.col_idx[nz], tile + c) : 0.0f;
            }
          }
        }
        // MMAs: warp w of group g does MMA q = w + i * W of the tile, columns c0 = q * G.
        for (int g = 0; g < groups; ++g) {
          for (int w = 0; w < W; ++w) {
            const int warp = g * W + w;
            for (int i = 0; i < kMmasPerWarp; ++i) {
              const int c0 = (w + i * W) * G;
              float* acc = &accumulators[(static_cast<std::size_t>(warp) * kMmasPerWarp + i) * 128];
              for (int m = 0; m < kMmaRows; ++m)
                for (int nn = 0; nn < 8; ++nn)
                  for (int k = 0; k < 8; ++k) {
                    const float a =
                        rhs_buffer[static_cast<std::size_t>(g) * kTileWidth * chunk_width +
                                   static_cast<std::size_t>(c0 + m / s) * chunk_width +
                                   (m % s) * kNonzerosPerSegment + k];
                    const float b =
                        nn < s ? sparse_values[g * chunk_width + nn * kNonzerosPerSegment + k]
                               : 0.0f;
                    acc[m * 8 + nn] += a * b;
                  }
            }
          }
        }
      }
      // Trace of each s x s diagonal block: output column c0 + j = sum_i acc[j*s + i][i].
      for (int g = 0; g < groups; ++g)
        for (int w = 0; w < W; ++w)
          for (int i = 0; i < kMmasPerWarp; ++i) {
            const int c0 = (w + i * W) * G;
            const float* acc =
                &accumulators[(static_cast<std::size_t>(g * W + w) * kMmasPerWarp + i) * 128];
            for (int j = 0; j < G; ++j) {
              float sum = 0.0f;
              for (int d = 0; d < s; ++d) sum += acc[(j * s + d) * 8 + d];
              output_buffer[static_cast<std::size_t>(g) * kTileWidth + c0 + j] = sum;
            }
          }
      // Flush: C = alpha * out + beta * C for the group's row, columns inside the block's slice.
      for (int g = 0; g < groups; ++g) {
        const std::int32_t row = layout.rows_of_slot[block.first_slot + g];
        if (row < 0) continue;
        for (int c = 0; c < kTileWidth && tile + c < block.col_end; ++c) {
          Value& out = C[c_index(row, tile + c)];
          const float product = alpha * output_buffer[static_cast<std::size_t>(g) * kTileWidth + c];
          out = Value(beta == 0.0f ? product : product + beta * static_cast<float>(out));
        }
      }
    }
  }
}

template void host_apply<half>(const TcaLayout&, const CsrMatrix<half, std::int32_t>&,
                               const std::vector<half>&, std::vector<half>&, DenseLayout, float,
                               float);
template void host_apply<bfloat16>(const TcaLayout&, const CsrMatrix<bfloat16, std::int32_t>&,
                                   const std::vector<bfloat16>&, std::vector<bfloat16>&,
                                   DenseLayout, float, float);
template void host_apply<float>(const TcaLayout&, const CsrMatrix<float, std::int32_t>&,
                                const std::vector<float>&, std::vector<float>&, DenseLayout,
                                float, float);

}  // namespace tcsparse::tca
