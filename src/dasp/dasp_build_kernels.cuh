// The kernels of DASP's device build (dasp_device_build.cu): the host plan's loops
// (dasp_classify.cpp) and index fills (dasp_fill_host.cpp), one thread per row, row-block, long
// row, short pair or tile. They write exactly what the host loops write; the orchestration, the
// sorts and scans (CUB) and the decisions between them are in dasp_device_build.cu.
//
// The arrays they read:
//   row_ptr        the CSR's row offsets (rows + 1)
//   order          every row, sorted by category key descending (long, medium by length, short
//                  4..1, empty), stable: the host's RowOrder::rows
//   medium         order + medium_begin: the medium rows, possibly regrouped by windows
//   chunks         per medium row-block: its regular blocks (the host's regular_chunks)
#pragma once

#include <cuda_runtime.h>

#include <climits>

#include "arch/warp.cuh"
#include "dasp/dasp_layout_decisions.hpp"

namespace tcsparse::dasp::build {

/// Threads of every build kernel's thread block.
inline constexpr int kBuildThreads = 256;
/// Distinct category keys counted in shared memory (more: global atomics, for the dense-long-rows
/// layouts whose MAX_LEN is their longest row).
inline constexpr int kSharedHistogramKeys = 1024;

__device__ __forceinline__ long long thread_index() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long grid_threads() {
  return static_cast<long long>(gridDim.x) * blockDim.x;
}
__device__ __forceinline__ long long row_length(const int* row_ptr, long long row) {
  return static_cast<long long>(row_ptr[row + 1]) - row_ptr[row];
}

/// Adds a warp's sum of `v` to *total (one atomic a warp). Every lane of the warp must call it.
__device__ __forceinline__ void add_warp_sum(unsigned long long* total, long long v) {
  const long long sum = arch::warp_sum(v);
  if (arch::lane_id() == 0 && sum != 0)
    atomicAdd(total, static_cast<unsigned long long>(sum));
}

// ---- the plan: lengths, keys, counts --------------------------------------------------------

// The totals below are reset by reset_totals (dasp_device_build.cu): their leading fields, the
// minima, to all ones, the rest to 0.

/// internal::RowLengthSummary on the device (one minimum).
struct LengthSummary {
  unsigned long long shortest;
  unsigned long long longest;
  unsigned long long candidate_padding[kDaspSmallMatrixMaxLenCandidates];
  unsigned long long rows_above_paper_max;      // longer than kDaspMaxMediumRowLength
  unsigned long long rows_medium_at_paper_max;  // kDaspMaxShortRowLength + 1 .. MAX_LEN 256
};

/// kDaspSmallMatrixMaxMediumRowLengths, passed by value to the kernel.
struct MaxLenCandidates {
  int length[kDaspSmallMatrixMaxLenCandidates];
};

/// Grid-stride over the rows: the shortest and longest row, the long-row padding of each
/// small-matrix MAX_LEN candidate, and the rows above and in the medium range of the paper's
/// MAX_LEN (summarize_row_lengths).
__global__ void summarize_lengths_kernel(const int* row_ptr, long long rows, long long group_values,
                                         MaxLenCandidates candidates, LengthSummary* out) {
  unsigned long long shortest = ULLONG_MAX, longest = 0;
  long long padding[kDaspSmallMatrixMaxLenCandidates] = {};
  long long above = 0, medium = 0;
  // every lane runs the same number of iterations, so that the warp reductions see all lanes
  const long long stride = grid_threads();
  const long long first = thread_index() - arch::lane_id();
  for (long long base = first; base < rows; base += stride) {
    const long long r = base + arch::lane_id();
    if (r < rows) {
      const long long len = row_length(row_ptr, r);
      shortest = min(shortest, static_cast<unsigned long long>(len));
      longest = max(longest, static_cast<unsigned long long>(len));
      const long long pad = (len + group_values - 1) / group_values * group_values - len;
#pragma unroll
      for (int k = 0; k < kDaspSmallMatrixMaxLenCandidates; ++k)
        if (len > candidates.length[k]) padding[k] += pad;
      above += len > kDaspMaxMediumRowLength;
      medium += len > kDaspMaxShortRowLength && len <= kDaspMaxMediumRowLength;
    }
  }
  shortest = arch::warp_min(shortest);
  longest = arch::warp_max(longest);
#pragma unroll
  for (int k = 0; k < kDaspSmallMatrixMaxLenCandidates; ++k)
    add_warp_sum(&out->candidate_padding[k], padding[k]);
  add_warp_sum(&out->rows_above_paper_max, above);
  add_warp_sum(&out->rows_medium_at_paper_max, medium);
  if (arch::lane_id() == 0) {
    atomicMin(&out->shortest, shortest);
    atomicMax(&out->longest, longest);
  }
}

/// One thread a row: its category key (its length, or max_medium + 1 for a long row) counted in
/// `histogram` (key_count = max_medium + 2 entries, zeroed first), the ascending sort key
/// long_key - key (so that CUB's stable ascending radix sort orders the rows by key descending,
/// as sort_rows_by_length does), and row_ids[r] = r (the values the sort permutes).
__global__ void category_keys_kernel(const int* row_ptr, long long rows, int max_medium,
                                     unsigned* sort_keys, int* row_ids,
                                     unsigned long long* histogram) {
  __shared__ unsigned counts[kSharedHistogramKeys];
  const int long_key = max_medium + 1;
  const int key_count = max_medium + 2;
  const bool shared = key_count <= kSharedHistogramKeys;
  if (shared)
    for (int k = threadIdx.x; k < key_count; k += blockDim.x) counts[k] = 0;
  __syncthreads();
  for (long long r = thread_index(); r < rows; r += grid_threads()) {
    const long long len = row_length(row_ptr, r);
    const int key = len > max_medium ? long_key : static_cast<int>(len);
    sort_keys[r] = static_cast<unsigned>(long_key - key);
    row_ids[r] = static_cast<int>(r);
    if (shared) atomicAdd(&counts[key], 1u);
    else atomicAdd(&histogram[key], 1ull);
  }
  __syncthreads();
  if (shared)
    for (int k = threadIdx.x; k < key_count; k += blockDim.x)
      if (counts[k]) atomicAdd(&histogram[k], static_cast<unsigned long long>(counts[k]));
}

/// Sort keys of the medium rows regrouped by windows: the window of each caller row.
__global__ void window_keys_kernel(const int* medium, long long count, long long window,
                                   unsigned* keys) {
  for (long long m = thread_index(); m < count; m += grid_threads())
    keys[m] = static_cast<unsigned>(medium[m] / window);
}

/// Sort keys of windowed medium rows ordered by block width (order_windows_by_width):
/// window_width_key of each.
__global__ void window_width_keys_kernel(const int* row_ptr, const int* medium, long long count,
                                         long long window, int block_width, int max_medium,
                                         unsigned long long* keys) {
  for (long long m = thread_index(); m < count; m += grid_threads())
    keys[m] = internal::window_width_key(medium[m], row_length(row_ptr, medium[m]), window,
                                         block_width, max_medium);
}

/// One thread a row-block of `block_rows` medium rows: sorted by length descending again (an
/// insertion sort, stable as the host's std::stable_sort; sort_row_blocks_by_length), which
/// changes only row-blocks that straddle two windows or, ordered by width, mix lengths.
__global__ void resort_row_blocks_kernel(const int* row_ptr, int* medium, long long count,
                                         int block_rows) {
  const long long row_blocks = (count + block_rows - 1) / block_rows;
  for (long long rb = thread_index(); rb < row_blocks; rb += grid_threads()) {
    int* rows = medium + rb * block_rows;
    const int n =
        static_cast<int>(min(static_cast<long long>(block_rows), count - rb * block_rows));
    for (int i = 1; i < n; ++i) {
      const int row = rows[i];
      const long long len = row_length(row_ptr, row);
      int j = i;
      for (; j > 0 && row_length(row_ptr, rows[j - 1]) < len; --j) rows[j] = rows[j - 1];
      rows[j] = row;
    }
  }
}

/// RegularBlockCounts on the device, with the first medium row that has irregular values
/// (medium_plain_units; one minimum).
struct RegularTotals {
  unsigned long long first_irregular_row;
  unsigned long long regular_blocks, regular_nnz, medium_nnz, padded_tail_blocks;
  unsigned long long largest_row_block;
  unsigned long long covering_blocks;
};

/// One thread a medium row-block (count_regular_blocks): its regular blocks, the leading chunks of
/// `width` columns that hold at least min_fill values, into chunks[rb]; and the totals.
__global__ void count_regular_blocks_kernel(const int* row_ptr, const int* medium,
                                            long long rows_medium, int block_rows, int width,
                                            int min_fill, int* chunks, RegularTotals* totals) {
  const long long row_blocks = (rows_medium + block_rows - 1) / block_rows;
  const long long stride = grid_threads();
  const long long first = thread_index() - arch::lane_id();
  long long regular_blocks = 0, regular_nnz = 0, medium_nnz = 0, padded_tails = 0;
  long long covering_blocks = 0;
  unsigned long long largest = 0, first_irregular = ULLONG_MAX;
  for (long long base = first; base < row_blocks; base += stride) {
    const long long rb = base + arch::lane_id();
    if (rb >= row_blocks) continue;
    const long long begin = rb * block_rows;
    const int rows_here =
        static_cast<int>(min(static_cast<long long>(block_rows), rows_medium - begin));
    long long lengths[16];
    for (int s = 0; s < rows_here; ++s) {
      lengths[s] = row_length(row_ptr, medium[begin + s]);
      medium_nnz += lengths[s];
    }
    long long blocks = 0;
    for (;; ++blocks) {
      long long fill = 0;
      for (int s = 0; s < rows_here; ++s)
        fill += min(max(lengths[s] - blocks * width, 0ll), static_cast<long long>(width));
      if (fill < min_fill) break;
    }
    chunks[rb] = static_cast<int>(blocks);
    regular_blocks += blocks;
    covering_blocks += (lengths[0] + width - 1) / width;  // the row-block's longest row
    largest = max(largest, static_cast<unsigned long long>(blocks));
    if (blocks > 0 && internal::tail_width(lengths[0], blocks, width) < width) ++padded_tails;
    for (int s = 0; s < rows_here; ++s) {
      regular_nnz += min(lengths[s], blocks * width);
      if (lengths[s] > blocks * width)
        first_irregular = min(first_irregular, static_cast<unsigned long long>(begin + s));
    }
  }
  add_warp_sum(&totals->regular_blocks, regular_blocks);
  add_warp_sum(&totals->regular_nnz, regular_nnz);
  add_warp_sum(&totals->medium_nnz, medium_nnz);
  add_warp_sum(&totals->padded_tail_blocks, padded_tails);
  add_warp_sum(&totals->covering_blocks, covering_blocks);
  largest = arch::warp_max(largest);
  first_irregular = arch::warp_min(first_irregular);
  if (arch::lane_id() == 0) {
    atomicMax(&totals->largest_row_block, largest);
    atomicMin(&totals->first_irregular_row, first_irregular);
  }
}

/// Totals of the long rows.
struct LongTotals {
  unsigned long long nnz, groups, tasks;
};

/// One thread a long row l (and l == long_rows, which writes the scans' closing 0): its groups of
/// group_values values and its warp tasks of per_task groups, and the totals.
__global__ void long_row_counts_kernel(const int* row_ptr, const int* order, long long long_rows,
                                       long long group_values, int per_task, int* groups_of_row,
                                       int* tasks_of_row, LongTotals* totals) {
  const long long stride = grid_threads();
  const long long first = thread_index() - arch::lane_id();
  long long nnz = 0, groups = 0, tasks = 0;
  for (long long base = first; base <= long_rows; base += stride) {
    const long long l = base + arch::lane_id();
    if (l > long_rows) continue;
    if (l == long_rows) {
      groups_of_row[l] = 0;
      tasks_of_row[l] = 0;
      continue;
    }
    const long long len = row_length(row_ptr, order[l]);
    const long long row_groups = (len + group_values - 1) / group_values;
    const long long row_tasks = (row_groups + per_task - 1) / per_task;
    groups_of_row[l] = static_cast<int>(row_groups);
    tasks_of_row[l] = static_cast<int>(row_tasks);
    nnz += len;
    groups += row_groups;
    tasks += row_tasks;
  }
  add_warp_sum(&totals->nnz, nnz);
  add_warp_sum(&totals->groups, groups);
  add_warp_sum(&totals->tasks, tasks);
}

/// One row-block a warp: the warps (pieces of per_piece blocks) of each row-block, their sum and
/// the first row-block of one piece (split row-blocks are a prefix; one minimum).
struct PieceTotals {
  unsigned long long first_single;
  unsigned long long pieces;
};

__global__ void count_pieces_kernel(const int* chunks, long long row_blocks, long long per_piece,
                                    int* pieces, PieceTotals* totals) {
  const long long stride = grid_threads();
  const long long first = thread_index() - arch::lane_id();
  long long sum = 0;
  unsigned long long first_single = ULLONG_MAX;
  for (long long base = first; base < row_blocks; base += stride) {
    const long long rb = base + arch::lane_id();
    if (rb >= row_blocks) continue;
    const long long p = max(1ll, (chunks[rb] + per_piece - 1) / per_piece);
    pieces[rb] = static_cast<int>(p);
    sum += p;
    if (p == 1) first_single = min(first_single, static_cast<unsigned long long>(rb));
  }
  add_warp_sum(&totals->pieces, sum);
  first_single = arch::warp_min(first_single);
  if (arch::lane_id() == 0) atomicMin(&totals->first_single, first_single);
}

// ---- the fill: index arrays -------------------------------------------------------------------

/// out[i] = ids[i] for i < count, -1 up to `padded` (medium and empty row ids).
__global__ void padded_ids_kernel(const int* ids, long long count, long long padded, int* out) {
  for (long long i = thread_index(); i < padded; i += grid_threads())
    out[i] = i < count ? ids[i] : -1;
}

/// One thread a long row: its warp tasks {row, block_begin, block_end, long_row} (fill_long).
__global__ void long_tasks_kernel(const int* row_ptr, const int* long_rows_in_order,
                                  long long long_rows, const int* group_ptr, const int* task_ptr,
                                  long long group_values, int per_task, int4* tasks) {
  for (long long l = thread_index(); l < long_rows; l += grid_threads()) {
    const int row = long_rows_in_order[l];
    const long long row_groups = (row_length(row_ptr, row) + group_values - 1) / group_values;
    const long long groups = group_ptr[l];
    long long task = task_ptr[l];
    for (long long g = 0; g < row_groups; g += per_task)
      tasks[task++] = make_int4(row, static_cast<int>((groups + g) * kDaspBlocksPerLongGroup),
                                static_cast<int>((groups + min(g + per_task, row_groups)) *
                                                 kDaspBlocksPerLongGroup),
                                static_cast<int>(l));
  }
}

/// One thread a padded medium row-block: its regular values (blocks x block values) and the
/// width of its last block, and the irregular values of each of its rows (fill_medium); the
/// entries past the last row-block and row are 0, the scans' closing entries included.
__global__ void medium_sizes_kernel(const int* row_ptr, const int* medium, const int* chunks,
                                    long long rows_medium, long long row_blocks,
                                    long long padded_row_blocks, int block_rows, int width,
                                    int* regular_values_of_block, unsigned char* tail_widths,
                                    int* irregular_of_row) {
  const int block_values = block_rows * width;
  for (long long rb = thread_index(); rb <= padded_row_blocks; rb += grid_threads()) {
    const long long blocks = rb < row_blocks ? chunks[rb] : 0;
    regular_values_of_block[rb] = static_cast<int>(blocks * block_values);
    if (rb == padded_row_blocks) {
      irregular_of_row[rb * block_rows] = 0;
      continue;
    }
    const long long begin = rb * block_rows;
    long long first_length = 0;
    for (int s = 0; s < block_rows; ++s) {
      const long long m = begin + s;
      const long long len = m < rows_medium ? row_length(row_ptr, medium[m]) : 0;
      if (s == 0) first_length = len;
      irregular_of_row[m] = static_cast<int>(max(0ll, len - blocks * width));
    }
    tail_widths[rb] = static_cast<unsigned char>(
        blocks > 0 ? internal::tail_width(first_length, blocks, width) : width);
  }
}

/// The further pieces of the split row-blocks [0, split): extra[rb] = pieces[rb] - 1, the scan's
/// closing 0 at extra[split], and the most pieces of one row-block (zeroed first).
__global__ void extra_piece_counts_kernel(const int* pieces, long long split, int* extra,
                                          int* max_pieces) {
  for (long long rb = thread_index(); rb <= split; rb += grid_threads()) {
    if (rb == split) {
      extra[rb] = 0;
      continue;
    }
    extra[rb] = pieces[rb] - 1;
    atomicMax(max_pieces, pieces[rb]);
  }
}

/// One thread a split row-block: its pieces 1 .. pieces - 1 as {row_block, piece}.
__global__ void write_extra_pieces_kernel(const int* pieces, const int* extra_begin,
                                          long long split, int2* out) {
  for (long long rb = thread_index(); rb < split; rb += grid_threads())
    for (int k = 1; k < pieces[rb]; ++k)
      out[extra_begin[rb] + k - 1] = make_int2(static_cast<int>(rb), k);
}

/// 1+3 pairs within windows (pair_short_rows_in_windows), one thread a window w in [0, windows]:
/// the window's first row in the 1-rows and in the 3-rows (each in caller order), and its pairs
/// min(n1, n3) into pairs[w] (0 at w = windows, for the exclusive scan that follows).
__global__ void short_pair_windows_kernel(const int* ones, long long n1, const int* threes,
                                          long long n3, long long rows, long long window,
                                          long long windows, long long* first1, long long* first3,
                                          long long* pairs) {
  auto lower_bound = [](const int* list, long long n, long long row) {
    long long lo = 0, hi = n;
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (list[mid] < row) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (long long w = thread_index(); w <= windows; w += grid_threads()) {
    const long long start = min(w * window, rows), end = min((w + 1) * window, rows);
    const long long begin1 = lower_bound(ones, n1, start), begin3 = lower_bound(threes, n3, start);
    first1[w] = begin1;
    first3[w] = begin3;
    pairs[w] = w == windows ? 0
                            : min(lower_bound(ones, n1, end) - begin1,
                                  lower_bound(threes, n3, end) - begin3);
  }
}

/// One thread a row of a list of 1-rows or 3-rows (caller order): the row to its place in `out`
/// (internal::windowed_pair_position), from the window starts `first` of that list and the
/// exclusive scan of the pairs (pairs_before[windows] = every pair).
__global__ void short_pair_positions_kernel(const int* list, long long n, long long window,
                                            long long windows, const long long* first,
                                            const long long* pairs_before, int* out) {
  const long long pairs = pairs_before[windows];
  for (long long i = thread_index(); i < n; i += grid_threads()) {
    const long long w = list[i] / window;
    out[internal::windowed_pair_position(i - first[w], first[w], pairs_before[w],
                                         pairs_before[w + 1] - pairs_before[w], pairs)] = list[i];
  }
}

/// The nonzeros whose column c is a long row (row c longer than max_medium values) into *total:
/// row_order=auto's measure of hub columns (internal_row_order_pays). Square matrices only.
__global__ void long_column_nonzeros_kernel(const int* row_ptr, const int* col_idx,
                                            long long nnz, int max_medium,
                                            unsigned long long* total) {
  long long found = 0;
  for (long long k = thread_index(); k < nnz; k += grid_threads())
    found += row_length(row_ptr, col_idx[k]) > max_medium;
  add_warp_sum(total, found);
}

/// One thread a short pair (fill_short: 1+3 or 2+2): the pair's rows into their outputs of the
/// tile (internal::pair_output).
__global__ void short_pairs_kernel(const int* first, long long first_stride, const int* second,
                                   long long second_stride, long long pairs, int block_rows,
                                   int* ids) {
  constexpr int kPairsPerTile = internal::kShortPairsPerTile;
  for (long long pair = thread_index(); pair < pairs; pair += grid_threads()) {
    const long long tile_ids = pair / kPairsPerTile * arch::kWarpSize;
    const int k = static_cast<int>(pair % kPairsPerTile);
    ids[tile_ids + internal::pair_output(k, 0, block_rows)] = first[pair * first_stride];
    ids[tile_ids + internal::pair_output(k, 1, block_rows)] = second[pair * second_stride];
  }
}

/// One thread a row of 4 values: the 4s, then the 3s left over from 1+3, then an odd 2.
__global__ void short_rows_4_kernel(const int* fours, long long n4, const int* threes_left,
                                    long long padded_3, const int* odd_two, long long rows_4,
                                    int* ids) {
  for (long long i = thread_index(); i < rows_4; i += grid_threads())
    ids[i] = i < n4 ? fours[i] : i < n4 + padded_3 ? threes_left[i - n4] : odd_two[0];
}

/// Where the short kinds' tiles start in short_row_ids (DaspShortPart::row_offset / 32).
struct ShortTileStarts {
  long long tile[kDaspShortKinds];
};

/// One thread a short tile (short_tile_order): the smallest row it writes, as the sort key, and
/// its code kind | tile_in_kind << 2.
__global__ void short_tile_keys_kernel(const int* short_row_ids, long long tiles,
                                       ShortTileStarts starts, unsigned* first_rows, int* codes) {
  for (long long t = thread_index(); t < tiles; t += grid_threads()) {
    int kind = kDaspShortKinds - 1;
    while (starts.tile[kind] > t) --kind;
    int first = INT_MAX;
    for (int lane = 0; lane < arch::kWarpSize; ++lane) {
      const int id = short_row_ids[t * arch::kWarpSize + lane];
      if (id >= 0) first = min(first, id);
    }
    first_rows[t] = static_cast<unsigned>(first);
    codes[t] = kind | static_cast<int>((t - starts.tile[kind]) << 2);
  }
}

// ---- the plan's row order -----------------------------------------------------------------------

/// The row ids in the order the kernel's warps write them (dasp_plan_row_order): long rows,
/// medium rows, the short tiles in run order, empty rows; -1 where no row is.
struct WarpOrderIds {
  const int* long_row_ids;
  long long long_rows;
  const int* medium_row_ids;
  long long medium_ids;
  const int* short_row_ids;
  long long short_ids;
  const int* short_tile_order;  // null: tiles kind by kind, as stored
  ShortTileStarts short_starts;
  const int* empty_row_ids;
  long long empty_ids;
};

__global__ void warp_order_ids_kernel(WarpOrderIds in, int* out) {
  const long long total = in.long_rows + in.medium_ids + in.short_ids + in.empty_ids;
  for (long long i = thread_index(); i < total; i += grid_threads()) {
    long long k = i;
    int id;
    if (k < in.long_rows) {
      id = in.long_row_ids[k];
    } else if ((k -= in.long_rows) < in.medium_ids) {
      id = in.medium_row_ids[k];
    } else if ((k -= in.medium_ids) < in.short_ids) {
      if (in.short_tile_order) {
        const int code = in.short_tile_order[k / arch::kWarpSize];
        const long long tile = in.short_starts.tile[code & 3] + (code >> 2);
        id = in.short_row_ids[tile * arch::kWarpSize + k % arch::kWarpSize];
      } else {
        id = in.short_row_ids[k];
      }
    } else {
      id = in.empty_row_ids[k - in.short_ids];
    }
    out[i] = id;
  }
}

/// select_if's predicate: a row id, not padding.
struct IsRow {
  __device__ __forceinline__ bool operator()(int id) const { return id >= 0; }
};

}  // namespace tcsparse::dasp::build
