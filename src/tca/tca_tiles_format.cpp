// The tiles layout of tca kernel=tiles: shape rules, builder, host model (tca_tiles_format.hpp).
#include "tca/tca_tiles_format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "common/parallel.hpp"
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

std::int64_t tiles_stage_bytes(int slice_columns, DenseLayout dense) {
  if (dense == DenseLayout::row_major)
    return kTilesSegmentColumns * tiles_stage_stride(slice_columns) * 2;
  return slice_columns * tiles_stage_stride(kTilesSegmentColumns) * 2;
}

namespace {

/// How well `blocks` fill their last wave on `multiprocessors` SMs of kTilesBlocksPerSm blocks:
/// waves over whole waves (1: the last wave full).
double last_wave_fill(std::int64_t blocks, int multiprocessors) {
  const double slots = static_cast<double>(std::max(1, multiprocessors) * kTilesBlocksPerSm);
  const double waves = static_cast<double>(blocks) / slots;
  return waves / std::ceil(waves);
}

/// Decode widths (one slice): the narrowest chunk of kTilesDecodeChunkSegments ..
/// kTilesMaxDecodeChunkSegments segments whose blocks all run at once (one wave of
/// kTilesBlocksPerSm blocks an SM); where no such chunk exists, kTilesDecodeChunkSegments doubled
/// while the blocks fill their last wave within kTilesWaveFillTolerance of that.
std::int64_t decode_chunk_segments(std::int64_t row_blocks, std::int64_t segments,
                                   int multiprocessors) {
  const std::int64_t block_rows = ceil_div(row_blocks, kTilesWarpsPerBlock);
  const std::int64_t blocks_at_once =
      std::int64_t{std::max(1, multiprocessors)} * kTilesBlocksPerSm;
  for (std::int64_t chunk_segments = kTilesDecodeChunkSegments;
       chunk_segments <= kTilesMaxDecodeChunkSegments; ++chunk_segments)
    if (block_rows * ceil_div(segments, chunk_segments) <= blocks_at_once) return chunk_segments;
  auto fill = [&](std::int64_t chunk_segments) {
    return last_wave_fill(block_rows * ceil_div(segments, chunk_segments), multiprocessors);
  };
  const double base = fill(kTilesDecodeChunkSegments);
  std::int64_t chosen = kTilesDecodeChunkSegments;
  for (std::int64_t wider = 2 * kTilesDecodeChunkSegments;
       wider <= kTilesMaxDecodeChunkSegments && wider < segments; wider *= 2)
    if (fill(wider) >= base * (1.0 - kTilesWaveFillTolerance)) chosen = wider;
  return chosen;
}

/// The shape in slices of `slice_columns`.
TilesShape shape_in_slices(std::int64_t rows, std::int64_t cols, std::int64_t n, DenseLayout dense,
                           int multiprocessors, std::int64_t chunk_columns, int slice_columns) {
  TilesShape shape;
  shape.row_blocks = ceil_div(rows, kTileRows);
  shape.segments = ceil_div(cols, kTilesSegmentColumns);
  shape.slice_columns = slice_columns;
  shape.slices = ceil_div(n, shape.slice_columns);
  const std::int64_t segments = std::max<std::int64_t>(1, shape.segments);
  if (chunk_columns > 0) {
    shape.chunk_segments = ceil_div(chunk_columns, kTilesSegmentColumns);
  } else {
    std::int64_t chunks =
        ceil_div(segments, decode_chunk_segments(shape.row_blocks, segments, multiprocessors));
    if (shape.slices > 1) {
      const std::int64_t units = std::max<std::int64_t>(1, shape.row_blocks * shape.slices);
      chunks = ceil_div(std::int64_t{multiprocessors} * kTilesTargetWarpsPerSm, units);
    }
    chunks = std::clamp<std::int64_t>(chunks, 1, segments);
    const std::int64_t partial_per_chunk =
        shape.row_blocks * kTileRows * shape.slices * shape.slice_columns * 4;
    if (chunks > 1 && partial_per_chunk > 0)
      chunks =
          std::min(chunks, std::max<std::int64_t>(1, kTilesMaxPartialBytes / partial_per_chunk));
    shape.chunk_segments = ceil_div(segments, chunks);
  }
  shape.chunks = std::max<std::int64_t>(1, ceil_div(shape.segments, shape.chunk_segments));
  shape.stage_bytes = tiles_stage_bytes(shape.slice_columns, dense);
  shape.partial_bytes = shape.chunks > 1 ? shape.chunks * shape.row_blocks * kTileRows *
                                               shape.slices * shape.slice_columns * 4
                                         : 0;
  return shape;
}

}  // namespace

TilesShape choose_tiles_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                              DenseLayout dense, int multiprocessors, std::int64_t chunk_columns,
                              int slice_columns) {
  const auto in_slices = [&](int columns) {
    return shape_in_slices(rows, cols, n, dense, multiprocessors, chunk_columns, columns);
  };
  if (slice_columns > 0) return in_slices(slice_columns);
  if (n <= kTilesMaxSliceColumns) return in_slices(tiles_slice_columns(n));
  for (int columns = kTilesMaxSliceColumns; columns > kTilesNarrowestWideSliceColumns;
       columns /= 2)
    if (TilesShape shape = in_slices(columns); shape.blocks() >= multiprocessors) return shape;
  return in_slices(kTilesNarrowestWideSliceColumns);
}

std::int64_t tiles_segment_slots(std::int64_t rows, std::int64_t cols) {
  return ceil_div(rows, kTileRows) * ceil_div(cols, kTilesSegmentColumns);
}

std::int64_t TileLayout::bytes() const {
  return static_cast<std::int64_t>(segment_word_begin.size() * sizeof(std::int32_t) +
                                   words.size() * sizeof(std::uint32_t));
}

std::int64_t tiles_longest_run_words(const TileLayout& layout) {
  std::int64_t longest = 0;
  for (std::size_t i = 1; i < layout.segment_word_begin.size(); ++i)
    longest = std::max<std::int64_t>(
        longest, layout.segment_word_begin[i] - layout.segment_word_begin[i - 1]);
  return longest;
}

int tiles_run_stage_words(std::int64_t longest_run_words, std::int64_t budget_bytes) {
  constexpr std::int64_t kRunStages = std::int64_t{2} * kTilesWarpsPerBlock;
  const std::int64_t fitting = budget_bytes / (kRunStages * 4) / 4 * 4;
  return static_cast<int>(std::max<std::int64_t>(
      kSegmentMaskWords, std::min(ceil_div(longest_run_words, 4) * 4 + 4, fitting)));
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
  const std::int64_t row_blocks = ceil_div(rows, kTileRows);
  const auto column_tiles = static_cast<std::size_t>(ceil_div(cols, kTileColumns));
  // Row blocks in parallel, each thread with its own table (one thread where the tables would
  // outweigh the work: more column tiles than kItemsPerThread nonzeros a thread).
  const std::int64_t nnz = rows > 0 ? row_ptr[rows] : 0;
  const int threads = static_cast<std::int64_t>(column_tiles) > detail::kItemsPerThread
                          ? 1
                          : detail::threads_for(nnz, 0);
  std::int64_t stored = 0;
#pragma omp parallel num_threads(threads) reduction(+ : stored) if (threads > 1)
  {
    // seen_in[tile]: the last row block counted with a nonzero in that column tile (no lists, no
    // sort: the auto rule needs the number only)
    std::vector<std::int64_t> seen_in(column_tiles, -1);
#pragma omp for schedule(static)
    for (std::int64_t rb = 0; rb < row_blocks; ++rb) {
      const std::int64_t end_row = std::min(rows, (rb + 1) * kTileRows);
      for (std::int64_t k = row_ptr[rb * kTileRows]; k < row_ptr[end_row]; ++k) {
        std::int64_t& seen = seen_in[static_cast<std::size_t>(col_idx[k] / kTileColumns)];
        if (seen != rb) {
          seen = rb;
          ++stored;
        }
      }
    }
  }
  return stored;
}

namespace {

using SegmentMasks = std::array<std::uint32_t, kSegmentMaskWords>;

/// A row block's 16 rows walked segment by segment: each row's cursor moves over its sorted
/// columns below the segment's end, setting the mask bits (and, kWithPairs, filling the pair
/// halves, indexed word * 32 + lane) of its nonzeros. Returns whether the segment has any.
template <bool kWithPairs>
bool gather_segment(const std::int32_t* col_idx, const std::uint16_t* values, int block_rows,
                    std::array<std::int64_t, kTileRows>& cursor,
                    const std::array<std::int64_t, kTileRows>& row_end, std::int64_t segment_end,
                    SegmentMasks& masks, std::uint32_t* pairs) {
  static_assert(kTilesSegmentColumns == 256 && kTileColumns == 16, "the shifts below");
  bool any = false;
  for (int r = 0; r < block_rows; ++r) {
    std::int64_t k = cursor[r];
    for (; k < row_end[r] && col_idx[k] < segment_end; ++k) {
      const int column = col_idx[k] & 255, c = column & 15;  // in the segment, in the tile
      const int word = kFragmentRegisters * (column >> 4) + fragment_register(r, c);
      const int lane = fragment_lane(r, c);
      masks[word] |= 1u << lane;
      if constexpr (kWithPairs)
        pairs[word * 32 + lane] |= std::uint32_t{values[k]} << (16 * fragment_half(c));
    }
    any = any || k != cursor[r];
    cursor[r] = k;
  }
  return any;
}

}  // namespace

TileLayout build_tile_layout(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr,
                             const std::int32_t* col_idx, const std::uint16_t* values,
                             const TilesShape& shape) {
  TileLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.nnz = rows > 0 ? row_ptr[rows] : 0;
  layout.shape = shape;
  const std::int64_t row_blocks = shape.row_blocks, segments = shape.segments;
  require_32_bit(row_blocks * segments + 1, "(row block, segment) slots");
  const int threads = detail::threads_for(layout.nnz, 0);
  // Visits each segment of row block rb that has nonzeros, visit(segment, masks), its 16 rows'
  // cursors walking their sorted columns; `halves` (when given) gets the segment's pair halves.
  const auto for_each_run = [&](std::int64_t rb, std::uint32_t* halves, auto&& visit) {
    std::array<std::int64_t, kTileRows> cursor{}, row_end{};
    const std::int64_t first_row = rb * kTileRows;
    const int block_rows = static_cast<int>(std::min<std::int64_t>(kTileRows, rows - first_row));
    for (int r = 0; r < block_rows; ++r) {
      cursor[r] = row_ptr[first_row + r];
      row_end[r] = row_ptr[first_row + r + 1];
    }
    for (std::int64_t segment = 0; segment < segments; ++segment) {
      SegmentMasks masks{};
      const std::int64_t end = (segment + 1) * kTilesSegmentColumns;
      const bool any =
          halves != nullptr
              ? gather_segment<true>(col_idx, values, block_rows, cursor, row_end, end, masks,
                                     halves)
              : gather_segment<false>(col_idx, values, block_rows, cursor, row_end, end, masks,
                                      nullptr);
      if (any) visit(segment, masks);
    }
  };

  // 1. Each run's words, from the masks alone (row blocks in parallel); then where runs begin.
  std::vector<std::int64_t> run_begin(static_cast<std::size_t>(row_blocks * segments + 1), 0);
  std::int64_t stored_tiles = 0, pairs = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) \
    reduction(+ : stored_tiles, pairs) if (threads > 1)
  for (std::int64_t rb = 0; rb < row_blocks; ++rb)
    for_each_run(rb, nullptr, [&](std::int64_t segment, const SegmentMasks& masks) {
      std::int64_t run_pairs = 0;
      for (int tile = 0; tile < kTilesSegmentTiles; ++tile) {
        std::uint32_t any_register = 0;
        for (int p = 0; p < kFragmentRegisters; ++p) {
          any_register |= masks[kFragmentRegisters * tile + p];
          run_pairs += std::popcount(masks[kFragmentRegisters * tile + p]);
        }
        if (any_register != 0) ++stored_tiles;
      }
      pairs += run_pairs;
      // the masks, a word a non-empty pair, padded to 16 bytes
      run_begin[static_cast<std::size_t>(rb * segments + segment + 1)] =
          (kSegmentMaskWords + run_pairs + 3) / 4 * 4;
    });
  for (std::size_t i = 1; i < run_begin.size(); ++i) run_begin[i] += run_begin[i - 1];
  require_32_bit(run_begin.back(), "tile words");
  layout.stored_tiles = stored_tiles;
  layout.pairs = pairs;
  layout.segment_word_begin.resize(run_begin.size());
  std::transform(run_begin.begin(), run_begin.end(), layout.segment_word_begin.begin(),
                 [](std::int64_t w) { return static_cast<std::int32_t>(w); });

  // 2. The runs (row blocks in parallel, each at its place): masks, then the pairs by (tile,
  //    register) and lane, then the zero padding the assignment left.
  layout.words.assign(static_cast<std::size_t>(run_begin.back()), 0u);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    std::vector<std::uint32_t> lane_pairs(kSegmentMaskWords * 32, 0u);
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t rb = 0; rb < row_blocks; ++rb)
      for_each_run(rb, lane_pairs.data(), [&](std::int64_t segment, const SegmentMasks& masks) {
        std::uint32_t* out =
            layout.words.data() + run_begin[static_cast<std::size_t>(rb * segments + segment)];
        out = std::copy(masks.begin(), masks.end(), out);
        for (int word = 0; word < kSegmentMaskWords; ++word)
          for (std::uint32_t bits = masks[word]; bits != 0; bits &= bits - 1) {
            std::uint32_t& pair =
                lane_pairs[static_cast<std::size_t>(word * 32 + std::countr_zero(bits))];
            *out++ = pair;
            pair = 0u;
          }
      });
  }
  return layout;
}

Json tiles_details(const TilesShape& s, std::int64_t nnz, std::int64_t stored_tiles,
                   std::int64_t pairs, std::int64_t tile_bytes) {
  return Json{{"tiles", stored_tiles},
              {"nonzeros_per_tile",
               stored_tiles > 0 ? static_cast<double>(nnz) / static_cast<double>(stored_tiles)
                                : 0.0},
              {"pairs", pairs},
              {"segments", s.segments},
              {"chunks", s.chunks},
              {"chunk_columns", s.chunk_columns()},
              {"slice_columns", s.slice_columns},
              {"slices", s.slices},
              {"stage_bytes", s.stage_bytes},
              {"partial_bytes", s.partial_bytes},
              {"tile_bytes", tile_bytes}};
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
      const std::int64_t first = chunk * s.chunk_segments;
      const std::int64_t end = std::min(s.segments, first + s.chunk_segments);
      for (std::int64_t segment = first; segment < end; ++segment) {
        const std::int64_t slot = rb * s.segments + segment;
        if (layout.segment_word_begin[slot] == layout.segment_word_begin[slot + 1]) continue;
        const std::uint32_t* run = layout.words.data() + layout.segment_word_begin[slot];
        std::int64_t next_pair = kSegmentMaskWords;
        for (int word = 0; word < kSegmentMaskWords; ++word) {
          const int tile = word / kFragmentRegisters, reg = word % kFragmentRegisters;
          for (std::uint32_t bits = run[word]; bits != 0; bits &= bits - 1) {
            const int lane = std::countr_zero(bits);
            const std::uint32_t pair = run[next_pair++];
            for (int half = 0; half < 2; ++half) {
              Value a;
              a.bits = static_cast<std::uint16_t>(pair >> (16 * half));
              const std::int64_t k = segment * kTilesSegmentColumns + tile * kTileColumns +
                                     fragment_column(lane, reg, half);
              const int r = fragment_row(lane, reg);
              if (k >= layout.cols) continue;  // (a zero half past the last column)
              for (std::int64_t j = 0; j < n; ++j)
                chunk_sum[r * n + j] += static_cast<float>(a) * b_at(k, j);
            }
          }
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
