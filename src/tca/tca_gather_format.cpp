// The layout of tca kernel=gather: shape rules, builder, host model (tca_gather_format.hpp).
#include "tca/tca_gather_format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <string>

#include "common/parallel.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t round_up(std::int64_t a, std::int64_t b) { return ceil_div(a, b) * b; }

/// The bank groups of a staged row's unit 0 (gather_bank_group).
constexpr int kBankGroups = 8;
constexpr int kOctetSlots = 8;

/// Where a tile's rows and columns start.
struct TileCut {
  std::int64_t first_row = 0, row_count = 0;  ///< rows of the matrix in the range
  std::int32_t first_column = 0, end_column = 0;
};

TileCut tile_cut(const GatherShape& s, std::int64_t range, std::int64_t chunk) {
  TileCut cut;
  cut.first_row = range * s.range_rows;
  cut.row_count = std::clamp<std::int64_t>(s.rows - cut.first_row, 0, s.range_rows);
  cut.first_column = static_cast<std::int32_t>(chunk * s.chunk_columns);
  cut.end_column = static_cast<std::int32_t>(std::min(s.cols, (chunk + 1) * s.chunk_columns));
  return cut;
}

/// A tile's rows: each local row's nonzeros inside the chunk ([begin, end) into the CSR) and the
/// rows by length (longest first, ties by row; -1 past the matrix), kGatherWindowRows a window.
struct TileRows {
  TileCut cut;
  std::vector<std::int64_t> begin, end;
  std::vector<std::int32_t> by_length;  ///< windows_per_tile x kGatherWindowRows entries
  std::int64_t length(std::int32_t local) const {
    return local < 0 ? 0 : end[local] - begin[local];
  }
  /// Groups of window j: its first (longest) row's nonzeros, two a group, in whole quads.
  std::int64_t window_groups(std::int64_t j) const {
    return round_up(ceil_div(length(by_length[j * kGatherWindowRows]), kGatherRowNonzerosPerGroup),
                    kGatherQuadGroups);
  }
};

TileRows tile_rows(const GatherShape& s, std::int64_t range, std::int64_t chunk,
                   const std::int32_t* row_ptr, const std::int32_t* col_idx) {
  TileRows t;
  t.cut = tile_cut(s, range, chunk);
  const TileCut& cut = t.cut;
  t.begin.resize(static_cast<std::size_t>(cut.row_count));
  t.end.resize(static_cast<std::size_t>(cut.row_count));
  for (std::int64_t i = 0; i < cut.row_count; ++i) {
    const std::int32_t* first = col_idx + row_ptr[cut.first_row + i];
    const std::int32_t* last = col_idx + row_ptr[cut.first_row + i + 1];
    t.begin[i] = std::lower_bound(first, last, cut.first_column) - col_idx;
    t.end[i] = std::lower_bound(first, last, cut.end_column) - col_idx;
  }
  t.by_length.assign(static_cast<std::size_t>(s.windows_per_tile() * kGatherWindowRows), -1);
  for (std::int64_t i = 0; i < cut.row_count; ++i) t.by_length[i] = static_cast<std::int32_t>(i);
  std::stable_sort(t.by_length.begin(), t.by_length.begin() + cut.row_count,
                   [&](std::int32_t a, std::int32_t b) { return t.length(a) > t.length(b); });
  return t;
}

/// A block's tile and its windows (those with nonzeros: the tile's first `windows`, longest
/// first), and where each of its warps' even shares of the groups starts.
struct BlockWindows {
  TileRows tile;
  std::int64_t windows = 0, groups = 0;
  /// Warp w's groups: [warp_begin[w], warp_begin[w + 1]), relative to the block's first (an
  /// even share of its quads).
  std::array<std::int64_t, kGatherWarpsPerBlock + 1> warp_begin{};
};

BlockWindows block_windows(const GatherShape& s, std::int64_t block, const std::int32_t* row_ptr,
                           const std::int32_t* col_idx) {
  BlockWindows b;
  b.tile = tile_rows(s, block / s.range_blocks(), block % s.range_blocks(), row_ptr, col_idx);
  for (std::int64_t j = 0; j < s.windows_per_tile() && b.tile.window_groups(j) > 0; ++j) {
    ++b.windows;
    b.groups += b.tile.window_groups(j);
  }
  const std::int64_t quads = b.groups / kGatherQuadGroups;
  for (int w = 0; w <= kGatherWarpsPerBlock; ++w)
    b.warp_begin[w] = quads * w / kGatherWarpsPerBlock * kGatherQuadGroups;
  return b;
}

/// Each staged row's gather_row_offset, for the rows of a chunk (every chunk's are the same),
/// looked up rather than computed: its divisions by the row's bytes, 3 times a nonzero, were a
/// fifth of a layout's build. With the branch-free choice of bank groups in fill_window, the
/// builds of 4096 x 4096 at 70 / 90 / 95 % (n = 8-32, two host cores) took 55-63 / 22-31 / 8-10
/// ms instead of 91-99 / 32-38 / 16-20, the layouts bit for bit the same.
class StageRowOffsets {
 public:
  explicit StageRowOffsets(const GatherShape& s)
      : offsets_(static_cast<std::size_t>(s.chunk_columns)) {
    for (std::int64_t r = 0; r < s.chunk_columns; ++r)
      offsets_[static_cast<std::size_t>(r)] = gather_row_offset(r, s.row_bytes());
  }
  std::uint32_t offset(std::int64_t row) const { return offsets_[static_cast<std::size_t>(row)]; }
  int bank_group(std::int64_t row) const {  // gather_bank_group
    return static_cast<int>(offset(row) / 16 % kBankGroups);
  }

 private:
  std::vector<std::uint32_t> offsets_;
};

/// Writes window j of tile t at `out` (t.window_groups(j) groups, from a quad's start) and
/// returns the octets where two slots share a bank group.
std::int64_t fill_window(const TileRows& t, std::int64_t j, const StageRowOffsets& stage,
                         const std::int32_t* col_idx, const std::uint16_t* values,
                         std::uint16_t* out) {
  const std::int64_t groups = t.window_groups(j);
  const TileCut& cut = t.cut;
  const std::int32_t valid_columns = cut.end_column - cut.first_column;
  // each row's nonzeros by bank group: order[row] holds CSR indices, bucket r at
  // [bucket[row][r], bucket[row][r + 1]), taken from cursor[row][r] on
  std::array<std::vector<std::int64_t>, kGatherWindowRows> order;
  std::array<std::array<std::int64_t, kBankGroups + 1>, kGatherWindowRows> bucket{};
  std::array<std::array<std::int64_t, kBankGroups>, kGatherWindowRows> cursor{};
  for (int row = 0; row < kGatherWindowRows; ++row) {
    const std::int32_t local = t.by_length[j * kGatherWindowRows + row];
    if (local < 0) continue;
    std::array<std::int64_t, kBankGroups> count{};
    for (std::int64_t nz = t.begin[local]; nz < t.end[local]; ++nz)
      ++count[stage.bank_group(col_idx[nz] - cut.first_column)];
    for (int r = 0; r < kBankGroups; ++r) bucket[row][r + 1] = bucket[row][r] + count[r];
    order[row].resize(static_cast<std::size_t>(bucket[row][kBankGroups]));
    for (int r = 0; r < kBankGroups; ++r) cursor[row][r] = bucket[row][r];
    for (std::int64_t nz = t.begin[local]; nz < t.end[local]; ++nz)
      order[row][cursor[row][stage.bank_group(col_idx[nz] - cut.first_column)]++] = nz;
    for (int r = 0; r < kBankGroups; ++r) cursor[row][r] = bucket[row][r];
  }
  const auto remaining = [&](int row, int r) { return bucket[row][r + 1] - cursor[row][r]; };
  std::array<std::int64_t, kBankGroups> row_of_bank_group{};  // among the stage's rows 0-7
  for (std::int64_t r = 0; r < kBankGroups; ++r)
    row_of_bank_group[stage.bank_group(r)] = r;
  std::int64_t conflicts = 0;
  for (std::int64_t g = 0; g < groups; ++g) {
    for (int octet = 0; octet < kGatherGroupNonzeros / kOctetSlots; ++octet) {
      unsigned used = 0;
      bool conflict = false;
      for (int slot = octet * kOctetSlots; slot < (octet + 1) * kOctetSlots; ++slot) {
        const int row = gather_slot_row(slot);
        // the bank group with the most nonzeros left among those unused in this octet (the
        // first of equals); else among all. Without branches on the counts (up to 16 a slot,
        // data-dependent: often mispredicted).
        std::int64_t best_unused = -1, best_any = -1;  // key: remaining x 8 + (7 - r), or -1
        for (int r = 0; r < kBankGroups; ++r) {
          const std::int64_t left = remaining(row, r);
          const std::int64_t key = left > 0 ? left * kBankGroups + (kBankGroups - 1 - r) : -1;
          best_any = std::max(best_any, key);
          best_unused = std::max(best_unused, (used & (1u << r)) == 0 ? key : -1);
        }
        const std::int64_t best_key = best_unused >= 0 ? best_unused : best_any;
        int best = best_key >= 0 ? kBankGroups - 1 - static_cast<int>(best_key % kBankGroups) : -1;
        std::int64_t column = 0;  // of the chunk
        std::uint16_t value = 0;
        if (best >= 0) {
          const std::int64_t nz = order[row][cursor[row][best]++];
          column = col_idx[nz] - cut.first_column;
          value = values[nz];
        } else {  // past the row's end: a zero times a row of B (0-7) whose bank group is free
          const int free = used == 0xffu ? 0 : std::countr_one(used);
          column = row_of_bank_group[free] < valid_columns ? row_of_bank_group[free] : 0;
          best = stage.bank_group(column);
        }
        conflict = conflict || (used & (1u << best)) != 0;
        used |= 1u << best;
        out[gather_offset_at(g, slot)] =
            static_cast<std::uint16_t>(stage.offset(column) / kGatherOffsetUnit);
        out[gather_value_at(g, slot)] = value;
      }
      conflicts += conflict ? 1 : 0;
    }
  }
  return conflicts;
}

}  // namespace

GatherShape choose_gather_shape(std::int64_t rows, std::int64_t cols, std::int64_t n,
                                std::int64_t chunk_columns, int slice_columns) {
  GatherShape s;
  s.rows = rows;
  s.cols = cols;
  s.n = n;
  s.slice_columns = slice_columns > 0 ? slice_columns : tiles_slice_columns(n);
  s.slices = std::max<std::int64_t>(1, ceil_div(n, s.slice_columns));
  const std::int64_t columns = round_up(std::max<std::int64_t>(cols, 1), 8);
  if (chunk_columns > 0) {
    s.chunk_columns = std::min(columns, round_up(chunk_columns, 8));
  } else {  // the fewest blocks whose stages fit, a power of two up to 4
    auto blocks = static_cast<std::uint64_t>(
        ceil_div(columns * s.row_bytes(), kGatherAutoStageBytes));
    if (blocks <= static_cast<std::uint64_t>(kGatherAutoPowerOfTwoBlocks))
      blocks = std::bit_ceil(blocks);
    s.chunk_columns = round_up(ceil_div(columns, static_cast<std::int64_t>(blocks)), 8);
  }
  if (s.stage_bytes() > kGatherMaxStageBytes)
    throw ParameterError("method 'tca': kernel=gather stages " + std::to_string(s.chunk_columns) +
                         " rows of B x " + std::to_string(s.slice_columns) + " columns (" +
                         std::to_string(s.stage_bytes()) + " bytes), more than the " +
                         std::to_string(kGatherMaxStageBytes) +
                         " a block's shared memory holds beside its rings: give a smaller "
                         "chunk_columns or slice_columns");
  s.chunks = std::max<std::int64_t>(1, ceil_div(cols, s.chunk_columns));
  return gather_with_ranges(s, 1);
}

GatherShape gather_with_ranges(GatherShape s, std::int64_t wanted_ranges) {
  const std::int64_t widest = kGatherMaxOutputBytes / (std::int64_t{s.slice_columns} * 4);
  const std::int64_t rows = std::max<std::int64_t>(s.rows, 1);
  s.range_rows = std::min(widest, ceil_div(rows, std::max<std::int64_t>(wanted_ranges, 1)));
  s.ranges = ceil_div(rows, s.range_rows);
  return s;
}

std::int64_t GatherLayout::bytes() const {
  return static_cast<std::int64_t>(warp_group_begin.size() * sizeof(std::uint32_t) +
                                   warp_first_window.size() * sizeof(std::uint32_t) +
                                   window_group_begin.size() * sizeof(std::uint32_t) +
                                   window_rows.size() * sizeof(std::uint16_t) +
                                   groups.size() * sizeof(std::uint16_t));
}

GatherLayout build_gather_layout(std::int64_t rows, std::int64_t cols,
                                 const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                 const std::uint16_t* values, const GatherShape& shape) {
  GatherLayout layout;
  layout.rows = rows;
  layout.cols = cols;
  layout.nnz = rows > 0 ? row_ptr[rows] : 0;
  layout.shape = shape;
  const std::int64_t blocks = shape.layout_blocks();
  const int threads = detail::threads_for(layout.nnz, 0);

  // 1. Each block's windows and groups; where each block's begin.
  std::vector<std::int64_t> block_windows_begin(static_cast<std::size_t>(blocks) + 1, 0);
  std::vector<std::int64_t> block_groups_begin(static_cast<std::size_t>(blocks) + 1, 0);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
  for (std::int64_t block = 0; block < blocks; ++block) {
    const BlockWindows b = block_windows(shape, block, row_ptr, col_idx);
    block_windows_begin[block + 1] = b.windows;
    block_groups_begin[block + 1] = b.groups;
  }
  for (std::int64_t block = 0; block < blocks; ++block) {
    block_windows_begin[block + 1] += block_windows_begin[block];
    block_groups_begin[block + 1] += block_groups_begin[block];
  }
  const std::int64_t total_windows = block_windows_begin[blocks];
  const std::int64_t total_groups = block_groups_begin[blocks];
  if (total_groups + kGatherStageGroups > std::numeric_limits<std::uint32_t>::max() ||
      total_windows > std::numeric_limits<std::uint32_t>::max())
    throw IndexOverflowError("tca kernel=gather: " + std::to_string(total_groups) +
                             " groups exceed 32-bit offsets");

  // 2. The windows and their groups, block by block; each warp's share and its first window.
  layout.warp_group_begin.resize(static_cast<std::size_t>(blocks * kGatherWarpsPerBlock + 1));
  layout.warp_first_window.resize(static_cast<std::size_t>(blocks * kGatherWarpsPerBlock));
  layout.window_group_begin.resize(static_cast<std::size_t>(total_windows + 1));
  layout.window_rows.resize(static_cast<std::size_t>(total_windows * kGatherWindowRows));
  // every window writes all of its groups (fill_window) in the parallel loop below, which also
  // touches their pages first; only the stage of zeros past the last group is written here
  layout.groups.resize(
      static_cast<std::size_t>((total_groups + kGatherStageGroups) * kGatherGroupHalfwords));
  std::fill(layout.groups.begin() + total_groups * kGatherGroupHalfwords, layout.groups.end(),
            std::uint16_t{0});
  const StageRowOffsets stage(shape);
  std::int64_t conflicts = 0;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : conflicts) \
    if (threads > 1)
  for (std::int64_t block = 0; block < blocks; ++block) {
    const BlockWindows b = block_windows(shape, block, row_ptr, col_idx);
    const TileRows& t = b.tile;
    std::int64_t group = block_groups_begin[block];
    int warp = 0;  // the next warp whose first window is to be found
    for (std::int64_t j = 0; j < b.windows; ++j) {
      const std::int64_t index = block_windows_begin[block] + j;
      const std::int64_t groups = t.window_groups(j);
      layout.window_group_begin[index] = static_cast<std::uint32_t>(group);
      for (int row = 0; row < kGatherWindowRows; ++row) {
        const std::int32_t local = t.by_length[j * kGatherWindowRows + row];
        layout.window_rows[index * kGatherWindowRows + row] =
            local < 0 ? kGatherNoRow : static_cast<std::uint16_t>(local);
      }
      conflicts += fill_window(t, j, stage, col_idx, values,
                               layout.groups.data() + group * kGatherGroupHalfwords);
      const std::int64_t window_end = group - block_groups_begin[block] + groups;
      for (; warp < kGatherWarpsPerBlock && b.warp_begin[warp] < window_end; ++warp)
        layout.warp_first_window[block * kGatherWarpsPerBlock + warp] =
            static_cast<std::uint32_t>(index);
      group += groups;
    }
    for (; warp < kGatherWarpsPerBlock; ++warp)  // warps without groups: past the block's windows
      layout.warp_first_window[block * kGatherWarpsPerBlock + warp] =
          static_cast<std::uint32_t>(block_windows_begin[block + 1]);
    for (int w = 0; w < kGatherWarpsPerBlock; ++w)
      layout.warp_group_begin[block * kGatherWarpsPerBlock + w] =
          static_cast<std::uint32_t>(block_groups_begin[block] + b.warp_begin[w]);
  }
  layout.warp_group_begin[blocks * kGatherWarpsPerBlock] = static_cast<std::uint32_t>(total_groups);
  layout.window_group_begin[total_windows] = static_cast<std::uint32_t>(total_groups);
  layout.octet_conflicts = conflicts;
  return layout;
}

Json gather_details(const GatherLayout& layout) {
  const GatherShape& s = layout.shape;
  const std::int64_t stored = layout.group_count() * kGatherGroupNonzeros;
  Json details;
  details["chunks"] = s.chunks;
  details["chunk_columns"] = s.chunk_columns;
  details["range_blocks"] = s.range_blocks();
  details["ranges"] = s.ranges;
  details["range_rows"] = s.range_rows;
  details["slices"] = s.slices;
  details["slice_columns"] = s.slice_columns;
  details["stage_bytes"] = s.stage_bytes();
  details["windows"] = layout.windows();
  details["groups"] = layout.group_count();
  details["padding_ratio"] =
      stored > 0 ? static_cast<double>(stored - layout.nnz) / static_cast<double>(stored) : 0.0;
  details["octet_conflicts"] = layout.octet_conflicts;
  details["gather_bytes"] = layout.bytes();
  return details;
}

template <typename Value>
void gather_host_apply(const GatherLayout& layout, const std::vector<Value>& B,
                       std::vector<Value>& C, std::int64_t n, DenseLayout dense, float alpha,
                       float beta) {
  const bool row_major = dense == DenseLayout::row_major;
  const GatherShape& s = layout.shape;
  const auto b_at = [&](std::int64_t k, std::int64_t c) {
    return static_cast<float>(row_major ? B[k * n + c] : B[c * layout.cols + k]);
  };
  std::vector<std::vector<float>> block_sums(static_cast<std::size_t>(s.range_blocks()));
  for (std::int64_t range = 0; range < s.ranges; ++range) {
    for (std::int64_t kb = 0; kb < s.range_blocks(); ++kb) {
      std::vector<float>& sum = block_sums[kb];
      sum.assign(static_cast<std::size_t>(s.range_rows * n), 0.0f);
      const std::int64_t block = range * s.range_blocks() + kb;
      const std::int64_t first_column = kb * s.chunk_columns;
      for (int warp = 0; warp < kGatherWarpsPerBlock; ++warp) {
        const std::int64_t bw = block * kGatherWarpsPerBlock + warp;
        std::uint32_t window = layout.warp_first_window[bw];
        for (std::uint32_t group = layout.warp_group_begin[bw];
             group < layout.warp_group_begin[bw + 1]; ++group) {
          while (group >= layout.window_group_begin[window + 1]) ++window;
          for (int slot = 0; slot < kGatherGroupNonzeros; ++slot) {
            const std::uint16_t out =
                layout.window_rows[window * kGatherWindowRows + gather_slot_row(slot)];
            if (out == kGatherNoRow) continue;  // (a zero past the range's rows)
            Value a;
            a.bits = layout.groups[gather_value_at(group, slot)];
            const std::int64_t k =
                first_column +
                gather_stage_row(
                    std::int64_t{layout.groups[gather_offset_at(group, slot)]} * kGatherOffsetUnit,
                    s.row_bytes());
            for (std::int64_t c = 0; c < n; ++c)
              sum[out * n + c] += static_cast<float>(a) * b_at(k, c);
          }
        }
      }
    }
    for (std::int64_t local = 0; local < s.range_rows; ++local) {
      const std::int64_t row = range * s.range_rows + local;
      if (row >= layout.rows) break;
      for (std::int64_t c = 0; c < n; ++c) {
        float total = 0.0f;  // the range's blocks in order
        for (std::int64_t kb = 0; kb < s.range_blocks(); ++kb) total += block_sums[kb][local * n + c];
        Value& out = row_major ? C[row * n + c] : C[c * layout.rows + row];
        float result = alpha * total;
        if (beta != 0.0f) result += beta * static_cast<float>(out);
        out = Value(result);
      }
    }
  }
}

template void gather_host_apply<half>(const GatherLayout&, const std::vector<half>&,
                                      std::vector<half>&, std::int64_t, DenseLayout, float, float);
template void gather_host_apply<bfloat16>(const GatherLayout&, const std::vector<bfloat16>&,
                                          std::vector<bfloat16>&, std::int64_t, DenseLayout,
                                          float, float);

}  // namespace tcsparse::tca
