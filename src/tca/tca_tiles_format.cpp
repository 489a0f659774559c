// The tiles layout of tca kernel=tiles: shape rules, builder, host model (tca_tiles_format.hpp).
#include "tca/tca_tiles_format.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

void require_32_bit(std::int64_t value, const char* what) {
  if (value > std::numeric_limits<std::int32_t>::max())
    throw IndexOverflowError(std::string("tca kernel=tiles: ") + what + " (" +
                             std::to_string(value) + ") exceed 32-bit offsets");
}

}  // namespace

int tiles_slice_columns(std::int64_t n) {
  for (const int columns : {8, 16, 32})
    if (n <= columns) return columns;
  return kTilesMaxSliceColumns;
}

std::int64_t tiles_stage_stride(std::int64_t row_elements) {
  std::int64_t units = ceil_div(row_elements, 8);  // 16-byte units of 8 elements
  if (units % 2 == 0) ++units;
  return units * 8;
}

std::int64_t tiles_stage_bytes(std::int64_t stage_columns, int slice_columns, DenseLayout dense) {
  if (dense == DenseLayout::row_major) return stage_columns * tiles_stage_stride(slice_columns) * 2;
  return slice_columns * tiles_stage_stride(stage_columns) * 2;
}

TilesShape choose_tiles_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                              DenseLayout dense, int multiprocessors, std::int64_t chunk_columns) {
  TilesShape shape;
  shape.row_blocks = ceil_div(rows, kTileRows);
  shape.slice_columns = tiles_slice_columns(n);
  shape.slices = ceil_div(n, shape.slice_columns);
  const std::int64_t column_tiles = std::max<std::int64_t>(1, ceil_div(cols, kTileColumns));
  if (chunk_columns > 0) {
    shape.chunk_columns = ceil_div(chunk_columns, kTileColumns) * kTileColumns;
  } else {
    const std::int64_t units = std::max<std::int64_t>(1, shape.row_blocks * shape.slices);
    const std::int64_t target = std::int64_t{multiprocessors} * kTilesTargetWarpsPerSm;
    std::int64_t chunks = ceil_div(target, units);
    if (shape.slices <= 1)  // decode widths, where the cap was measured
      chunks = std::max(chunks, ceil_div(column_tiles, kTilesMaxChunkTiles));
    chunks = std::clamp<std::int64_t>(chunks, 1, column_tiles);
    const std::int64_t partial_per_chunk =
        shape.row_blocks * kTileRows * shape.slices * shape.slice_columns * 4;
    if (chunks > 1 && partial_per_chunk > 0)
      chunks =
          std::min(chunks, std::max<std::int64_t>(1, kTilesMaxPartialBytes / partial_per_chunk));
    shape.chunk_columns = ceil_div(column_tiles, chunks) * kTileColumns;
  }
  shape.chunks = std::max<std::int64_t>(1, ceil_div(cols, shape.chunk_columns));
  // the widest window (a multiple of 16, at most the chunk) whose stage fits
  shape.stage_columns = kTileColumns;
  while (shape.stage_columns < std::min(shape.chunk_columns, column_tiles * kTileColumns) &&
         tiles_stage_bytes(shape.stage_columns + kTileColumns, shape.slice_columns, dense) <=
             kTilesMaxStageBytes)
    shape.stage_columns += kTileColumns;
  shape.stage_bytes = tiles_stage_bytes(shape.stage_columns, shape.slice_columns, dense);
  shape.shared_bytes = shape.stage_bytes + kTilesDenseBytes;
  shape.partial_bytes = shape.chunks > 1 ? shape.chunks * shape.row_blocks * kTileRows *
                                               shape.slices * shape.slice_columns * 4
                                         : 0;
  return shape;
}

std::int64_t TileLayout::bytes() const {
  return static_cast<std::int64_t>(chunk_tile_begin.size() * sizeof(std::int32_t) +
                                   tiles.size() * sizeof(TileInfo) +
                                   entries.size() * sizeof(std::uint32_t));
}

TileCensus census_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                        const std::int32_t* col_idx) {
  TileCensus census;
  const std::int64_t row_blocks = ceil_div(rows, kTileRows);
  census.row_block_begin.reserve(static_cast<std::size_t>(row_blocks + 1));
  census.row_block_begin.push_back(0);
  // slot_of[tile]: where the current row block counts that column tile, -1 where it has none
  std::vector<std::int32_t> slot_of(static_cast<std::size_t>(ceil_div(cols, kTileColumns)), -1);
  std::vector<std::int32_t> found, counts;  // the row block's tiles in order of discovery
  for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
    found.clear();
    counts.clear();
    const std::int64_t end_row = std::min(rows, (rb + 1) * kTileRows);
    for (std::int64_t k = row_ptr[rb * kTileRows]; k < row_ptr[end_row]; ++k) {
      const std::int32_t tile = col_idx[k] / kTileColumns;
      std::int32_t& slot = slot_of[static_cast<std::size_t>(tile)];
      if (slot < 0) {
        slot = static_cast<std::int32_t>(found.size());
        found.push_back(tile);
        counts.push_back(0);
      }
      ++counts[static_cast<std::size_t>(slot)];
    }
    const std::size_t first = census.column_tiles.size();
    census.column_tiles.insert(census.column_tiles.end(), found.begin(), found.end());
    std::sort(census.column_tiles.begin() + static_cast<std::ptrdiff_t>(first),
              census.column_tiles.end());
    for (std::size_t t = first; t < census.column_tiles.size(); ++t) {
      std::int32_t& slot = slot_of[static_cast<std::size_t>(census.column_tiles[t])];
      census.nonzeros.push_back(counts[static_cast<std::size_t>(slot)]);
      slot = -1;
    }
    census.row_block_begin.push_back(static_cast<std::int64_t>(census.column_tiles.size()));
  }
  return census;
}

std::int64_t count_stored_tiles(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                                const std::int32_t* col_idx) {
  return census_tiles(rows, cols, row_ptr, col_idx).stored_tiles();
}

TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape) {
  return build_tile_layout(rows, cols, row_ptr, col_idx, values, shape,
                           census_tiles(rows, cols, row_ptr, col_idx));
}

TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape, const TileCensus& census) {
  TileLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.nnz = rows > 0 ? row_ptr[rows] : 0;
  layout.shape = shape;
  require_32_bit(layout.nnz, "nonzeros");
  const std::int64_t row_blocks = shape.row_blocks, chunks = shape.chunks;
  const std::int64_t tiles_per_chunk = shape.chunk_columns / kTileColumns;
  const std::int64_t tile_count = census.stored_tiles();
  require_32_bit(tile_count, "stored tiles");

  // The tiles of every (row block, chunk): a row block's tiles are by column, so each chunk's
  // are a run of them; then each tile's column and first entry (a row block's entries start
  // where its CSR does).
  std::vector<std::int64_t> counts(static_cast<std::size_t>(row_blocks * chunks + 1), 0);
  layout.tiles.resize(static_cast<std::size_t>(tile_count + 1));
  for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
    std::int64_t entry = row_ptr[rb * kTileRows];
    for (std::int64_t t = census.row_block_begin[rb]; t < census.row_block_begin[rb + 1]; ++t) {
      const std::int32_t tile = census.column_tiles[static_cast<std::size_t>(t)];
      ++counts[static_cast<std::size_t>(rb * chunks + tile / tiles_per_chunk + 1)];
      layout.tiles[static_cast<std::size_t>(t)] = {static_cast<std::int32_t>(entry),
                                                   tile * kTileColumns};
      entry += census.nonzeros[static_cast<std::size_t>(t)];
    }
  }
  layout.tiles.back() = {static_cast<std::int32_t>(layout.nnz), 0};
  for (std::size_t i = 1; i < counts.size(); ++i) counts[i] += counts[i - 1];
  layout.chunk_tile_begin.resize(counts.size());
  std::transform(counts.begin(), counts.end(), layout.chunk_tile_begin.begin(),
                 [](std::int64_t c) { return static_cast<std::int32_t>(c); });

  // Each row block's entries, tile by tile (row order inside a tile: the kernel does not depend
  // on it), in one pass over its nonzeros.
  layout.entries.resize(static_cast<std::size_t>(layout.nnz));
  std::vector<std::int32_t> cursor_of(static_cast<std::size_t>(ceil_div(cols, kTileColumns)));
  for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
    for (std::int64_t t = census.row_block_begin[rb]; t < census.row_block_begin[rb + 1]; ++t)
      cursor_of[static_cast<std::size_t>(census.column_tiles[static_cast<std::size_t>(t)])] =
          layout.tiles[static_cast<std::size_t>(t)].entry_begin;
    const std::int64_t first_row = rb * kTileRows, end_row = std::min(rows, first_row + kTileRows);
    for (std::int64_t row = first_row; row < end_row; ++row)
      for (std::int64_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k) {
        const std::int32_t column = col_idx[k];
        layout.entries[static_cast<std::size_t>(cursor_of[column / kTileColumns]++)] = tile_entry(
            values[k], tile_slot(static_cast<int>(row - first_row), column % kTileColumns));
      }
  }
  return layout;
}

Json tiles_details(const TileLayout& layout) {
  const TilesShape& s = layout.shape;
  return Json{{"tiles", layout.tile_count()},
              {"nonzeros_per_tile",
               layout.tile_count() > 0
                   ? static_cast<double>(layout.nnz) / static_cast<double>(layout.tile_count())
                   : 0.0},
              {"chunks", s.chunks},
              {"chunk_columns", s.chunk_columns},
              {"stage_columns", s.stage_columns},
              {"slice_columns", s.slice_columns},
              {"slices", s.slices},
              {"stage_bytes", s.stage_bytes},
              {"partial_bytes", s.partial_bytes},
              {"tile_bytes", layout.bytes()}};
}

template <typename Value>
void tiles_host_apply(const TileLayout& layout, const std::vector<Value>& B, std::vector<Value>& C,
                      std::int64_t n, DenseLayout dense, float alpha, float beta) {
  const bool row_major = dense == DenseLayout::row_major;
  const auto b_at = [&](std::int64_t k, std::int64_t j) {
    return static_cast<float>(row_major ? B[k * n + j] : B[j * layout.cols + k]);
  };
  const TilesShape& s = layout.shape;
  std::vector<float> chunk_sum(static_cast<std::size_t>(kTileRows * n));
  std::vector<float> total(static_cast<std::size_t>(kTileRows * n));
  for (std::int64_t rb = 0; rb < s.row_blocks; ++rb) {
    std::fill(total.begin(), total.end(), 0.0f);
    for (std::int64_t chunk = 0; chunk < s.chunks; ++chunk) {
      std::fill(chunk_sum.begin(), chunk_sum.end(), 0.0f);
      for (std::int64_t t = layout.chunk_tile_begin[rb * s.chunks + chunk];
           t < layout.chunk_tile_begin[rb * s.chunks + chunk + 1]; ++t) {
        const std::int64_t end = layout.tiles[t + 1].entry_begin;
        for (std::int64_t e = layout.tiles[t].entry_begin; e < end; ++e) {
          Value a;
          a.bits = static_cast<std::uint16_t>(layout.entries[e] & 0xffffu);
          const int slot = static_cast<int>(layout.entries[e] >> 16);
          const std::int64_t k = layout.tiles[t].column + slot_column(slot);
          for (std::int64_t j = 0; j < n; ++j)
            chunk_sum[slot_row(slot) * n + j] += static_cast<float>(a) * b_at(k, j);
        }
      }
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += chunk_sum[i];
    }
    for (int r = 0; r < kTileRows; ++r) {
      const std::int64_t row = rb * kTileRows + r;
      if (row >= layout.rows) break;
      for (std::int64_t j = 0; j < n; ++j) {
        Value& c = row_major ? C[row * n + j] : C[j * layout.rows + row];
        float result = alpha * total[r * n + j];
        if (beta != 0.0f) result += beta * static_cast<float>(c);
        c = Value(result);
      }
    }
  }
}

template void tiles_host_apply<half>(const TileLayout&, const std::vector<half>&,
                                     std::vector<half>&, std::int64_t, DenseLayout, float, float);
template void tiles_host_apply<bfloat16>(const TileLayout&, const std::vector<bfloat16>&,
                                         std::vector<bfloat16>&, std::int64_t, DenseLayout, float,
                                         float);

}  // namespace tcsparse::tca
