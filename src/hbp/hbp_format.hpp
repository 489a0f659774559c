// HBP ("A Nonlinear Hash-based Optimization Method for SpMV on GPUs", Yan, Diao, Liu, An, Xu;
// paper III.A-C): the host format and the host model of the kernels.
//
// The matrix is cut into matrix blocks of block_rows x block_cols (2D partition, paper III.A).
// Only non-empty blocks are kept, ordered by column block, then row block, so that the blocks of
// one task read one x segment. Inside a block, the rows that have nonzeros there ("slots"; a row
// with more than max_slot_length nonzeros in the block gets several slots, its nonzeros cut in
// column order into pieces of max_slot_length, the last one shorter) are put in the order of the reordering (the nonlinear hash of their lengths, paper III.B; or a
// sort; or none), then cut into warp groups of at most 32 slots; a slot of at least
// warp_row_length nonzeros gets a group of its own, taken by the whole warp.
//
//   blocks        block b: column block block_col[b], groups [block_group_begin[b],
//                 block_group_begin[b + 1])
//   groups        group g: slots [group_slot_begin[g], group_slot_begin[g + 1]) (1..32),
//                 nonzeros [begin_nnz[g], begin_nnz[g + 1])  (paper: begin_nnz / begin_ptr)
//   nonzeros      in rounds, column-major over the group: round t holds the t-th nonzero of
//                 every slot longer than t, in slot order; lane l starts at begin_nnz[g] + l;
//                 col_add_sign[e] = column in the block (low kColumnBits = 25 bits) |
//                 (add_sign + 1) << 25 (add_sign: the distance to the slot's next nonzero, 1..32,
//                 or -1 after its last one); the nonzeros of a slot are in column order. data[e]
//                 is the value.
//   slot_last_round  slot s: its length - 1 (uint16: a slot is at most max_slot_length <= 65536
//                 nonzeros of one row in one block; a longer run is cut into several slots). What the
//                 kernel walks by (walk_rounds): alive(t) = the group's slots with
//                 slot_last_round >= t, lane l's position in round t = begin_nnz[g] + offset(t) +
//                 (alive slots below l), offset(t + 1) = offset(t) + |alive(t)|; no position
//                 depends on a loaded word, so a lane's loads are independent. add_sign gives the
//                 same positions (the host test HbpRoundWalk checks it); the kernel does not read it.
//   output_hash   slot s: where its sum goes (paper: the row before the hash). >= 0: index into
//                 the partial sums (rows with several slots), numbered in slot order, so that
//                 the 32 lanes of a group write one coalesced run; < 0: the row ~output_hash[s]
//                 has no other slot, and the SpMV kernel writes y itself.
//   combine       combine_rows[k]: a row with 0 or >= 2 slots; its partial sums are
//                 partials[combine_partials[i]] for i in [combine_begin[k], combine_begin[k + 1])
//                 in column-block order, added in that order: no atomics, y bitwise the same on
//                 every apply. (Partials numbered row by row instead, as first built, took the
//                 SpMV kernel's writes to a different sector each: on x striped over the L2, a
//                 stripe's tasks wrote one 8-byte partial into each 32-byte sector, which the
//                 next stripe's tasks found evicted: a read-modify-write of DRAM a slot.)
//   slot_output=partial (give_every_slot_a_partial, after the build): no output_hash, slot s writes
//                 partial s; the combine takes every row (no combine_rows, combine_begin over
//                 rows + 1), combine_partials naming each row's slots in column-block order.
//   tasks         task t: blocks [task_block_begin[t], task_block_begin[t + 1]), all of column
//                 block task_col[t] (at most blocks_per_task blocks); task_shared_x[t]: whether
//                 it loads the x segment into shared memory (enough nonzeros to pay for it).
//
// The paper's zero_row (rows of a warp group with no nonzeros) is not needed: empty rows of a
// block get no slot. Its add_sign and col share one 32-bit word, so a nonzero costs what it
// costs in CSR.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "hbp/hbp_parameters.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"

#if defined(__CUDACC__)
#define TCSPARSE_HBP_HD __host__ __device__
#else
#define TCSPARSE_HBP_HD
#endif

namespace tcsparse::hbp {

/// The largest aggregation shift a (the hash's a stays below 2^31 >> a = 1 << 1).
inline constexpr int kLargestAggregationShift = 30;

/// The aggregation shift a length asks for: the smallest a <= kLargestAggregationShift with
/// (length >> a) below the last bucket (kHashBuckets - 1). Monotone in length, so the shift of the
/// sampled quantile is the quantile of the sampled shifts: a histogram of shifts
/// (hash_from_shift_histogram) decides a exactly as make_hash's sorted sample.
TCSPARSE_HBP_HD inline int aggregation_shift(std::int64_t length) {
  int a = 0;
  while (a < kLargestAggregationShift && (length >> a) >= kHashBuckets - 1) ++a;
  return a;
}

/// Rows between two sampled rows of make_hash's sample (rows 0, step, 2 step, ...):
/// max(1, rows / kHashSampleSize).
inline std::int64_t hash_sample_step(std::int64_t rows) {
  return rows / kHashSampleSize > 1 ? rows / kHashSampleSize : 1;
}

/// The GPU build's rules for the groups and tasks, decided per slot / per block from scans (the
/// host builder decides them in one sequential pass; the host test HbpDeviceBuildRules checks that
/// both agree):
///   a run of short slots starts at the block's first slot and right after a long slot
///   (>= warp_row_length, when on); a slot starts a group when it is long or when it is a
///   multiple of kGroupRows slots into its run (run_start: the latest run start at or before it).
TCSPARSE_HBP_HD inline bool is_long_slot(std::int64_t length, std::int32_t warp_row_length) {
  return warp_row_length > 0 && length >= warp_row_length;
}
TCSPARSE_HBP_HD inline bool starts_run(bool block_first, bool is_long, bool previous_is_long) {
  return block_first || is_long || previous_is_long;
}
TCSPARSE_HBP_HD inline bool starts_group(std::int64_t slot, std::int64_t run_start, bool is_long) {
  return is_long || (slot - run_start) % kGroupRows == 0;
}
///   a block starts a task when it is a multiple of blocks_per_task blocks into its run of one
///   column block (column_run_start: the first block of that column block).
TCSPARSE_HBP_HD inline bool starts_task(std::int64_t block, std::int64_t column_run_start,
                                        std::int32_t blocks_per_task) {
  return (block - column_run_start) % blocks_per_task == 0;
}

/// Whether a task of `task_nnz` nonzeros stages its x segment (`width` values of `value_bytes`,
/// of a column block `block_cols` wide) in shared memory: only when every segment of the layout
/// fits kLargestSharedSegmentBytes and the task's nonzeros would cost as much read one by one
/// (nnz x kSectorBytes >= segment bytes). Host and device (both builders decide it).
TCSPARSE_HBP_HD inline bool task_shares_x(std::int64_t task_nnz, std::int64_t width,
                                          std::int32_t block_cols, std::size_t value_bytes) {
  return segment_fits_shared_memory(block_cols, value_bytes) &&
         task_nnz * kSectorBytes >= width * static_cast<std::int64_t>(value_bytes);
}

/// The nonlinear hash of paper III.B for one block of `table_size` rows:
///   aggregation     bucket = min(length >> a, 8)
///   dispersion      base   = bucket * b,                b = table_size / 9 (fixed by block_rows)
///   linear mapping  offset = ((length - (bucket << a)) * c) mod d,   d = b,  c = max(1, d >> a)
///   position        (base + offset) mod table_size
/// Collisions are chained: a position holds every row hashed to it, in row order, and the block's
/// rows are read out of the table in position order (slot_order).
/// a is sampled from the matrix (the smallest shift that puts kAggregationQuantile of the
/// sampled lengths below the last bucket), c follows from a; b and d from the block rows.
struct NonlinearHash {
  int a = 0;
  std::int32_t b = 1, c = 1, d = 1;
  std::int32_t table_size = 1;

  /// The position of a row of `length` (> 0) nonzeros, below table_size (host and device: both
  /// builds hash with this function).
  TCSPARSE_HBP_HD std::int32_t home(std::int64_t length) const {
    std::int64_t bucket = length >> a;                                  // aggregation
    if (bucket > kHashBuckets - 1) bucket = kHashBuckets - 1;
    const std::int64_t base = bucket * b;                               // dispersion
    const std::int64_t offset = ((length - (bucket << a)) * c) % d;     // linear mapping
    return static_cast<std::int32_t>((base + offset) % table_size);
  }
};

/// The hash for blocks of `block_rows` rows whose a is sampled from `lengths` (segment lengths,
/// > 0; empty: a = 0).
NonlinearHash make_hash(std::int32_t block_rows, std::span<const std::int32_t> lengths);

/// The hash for blocks of `block_rows` rows from a histogram of the sampled lengths' shifts:
/// `shift_counts[k]` = sampled lengths with aggregation_shift(length) == k (k in
/// 0..kLargestAggregationShift). Gives make_hash(block_rows, lengths) exactly; what the GPU
/// build downloads instead of the sample (kLargestAggregationShift + 1 counters).
NonlinearHash hash_from_shift_histogram(std::int32_t block_rows,
                                        std::span<const std::int64_t> shift_counts);

/// The order of the slots of one block: `lengths[i]` the nonzeros of the i-th non-empty row of
/// the block (in row order); returns the indices i in the reordered order. hash: by position in
/// the hash table, rows of one position (collisions, chained) in row order; sort:
/// stable by length, shortest first (the order the hash approximates); none: row order.
std::vector<std::int32_t> slot_order(Reorder reorder, const NonlinearHash& hash,
                                     std::span<const std::int32_t> lengths);

/// Per-warp-group row-length spread (paper Fig. 6), over the groups of at least two rows that
/// the lanes walk, before reordering (each block's non-empty rows in matrix order, 32 a group)
/// and after (the layout's groups).
struct ReorderStatistics {
  std::int64_t groups_before = 0, groups_after = 0;
  double mean_stddev_before = 0.0, mean_stddev_after = 0.0;
  /// nonzeros / (rows x longest row) summed over the groups: the share of lane steps that do work.
  double lane_efficiency_before = 1.0, lane_efficiency_after = 1.0;
};

template <typename Value>
struct HbpLayout {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int32_t block_rows = 1, block_cols = 8;
  Reorder reorder = Reorder::hash;
  /// 0: off; else a slot of at least this many nonzeros is a group of its own, taken by the
  /// whole warp (is_warp_group).
  std::int32_t warp_row_length = 0;
  NonlinearHash hash;

  std::vector<std::int32_t> block_col;          ///< blocks
  std::vector<std::int32_t> block_row;          ///< blocks (statistics and tests)
  std::vector<std::int32_t> block_group_begin;  ///< blocks + 1
  std::vector<std::int32_t> group_slot_begin;   ///< groups + 1
  /// groups: the column block of each group's block (the group kernel's x origin)
  std::vector<std::int32_t> group_col;
  std::vector<std::int64_t> begin_nnz;          ///< groups + 1
  std::vector<std::uint32_t> col_add_sign;      ///< nnz
  std::vector<Value> data;                      ///< nnz
  /// nnz with HbpParameters::update_values, else empty: the CSR index of each stored value,
  /// data[k] = values[value_source[k]] (update_values gathers new values so)
  std::vector<std::int32_t> value_source;
  /// slots; empty with slot_output=partial (give_every_slot_a_partial): slot s writes partial s
  std::vector<std::int32_t> output_hash;
  /// slots: length - 1 (header comment; the walk of walk_rounds)
  std::vector<std::uint16_t> slot_last_round;
  /// rows with 0 or >= 2 slots; empty with slot_output=partial: every row, combine row k is row k
  std::vector<std::int32_t> combine_rows;
  std::vector<std::int32_t> combine_begin;      ///< combine rows + 1
  /// partials (slot_output=partial: slots): row by row, column-block order
  std::vector<std::int32_t> combine_partials;
  std::vector<std::int32_t> task_block_begin;   ///< tasks + 1
  std::vector<std::int32_t> task_col;           ///< tasks
  /// tasks: 1 when the task reads x through the shared-memory segment (kSectorBytes), 0 when
  /// its warps read x from global memory (unless the segment is there already)
  std::vector<std::int32_t> task_shared_x;
  ReorderStatistics reorder_statistics;

  std::int64_t blocks() const { return static_cast<std::int64_t>(block_col.size()); }
  std::int64_t groups() const { return static_cast<std::int64_t>(group_slot_begin.size()) - 1; }
  std::int64_t slots() const { return static_cast<std::int64_t>(slot_last_round.size()); }
  std::int64_t tasks() const { return static_cast<std::int64_t>(task_col.size()); }
  std::int64_t partials() const { return combine_begin.empty() ? 0 : combine_begin.back(); }
  /// Rows the combine writes: combine_rows, or every row with slot_output=partial.
  std::int64_t combine_row_count() const {
    return combine_begin.empty() ? 0 : static_cast<std::int64_t>(combine_begin.size()) - 1;
  }
  /// Whether the whole warp takes group g (one slot of at least warp_row_length nonzeros): the
  /// same test as the kernel's, decided by the slot alone, so that y does not depend on the
  /// reordering.
  bool is_warp_group(std::int64_t g) const {
    const auto u = static_cast<std::size_t>(g);
    return warp_row_length > 0 && group_slot_begin[u + 1] - group_slot_begin[u] == 1 &&
           begin_nnz[u + 1] - begin_nnz[u] >= warp_row_length;
  }
};

/// The HBP layout of `matrix` with blocks of block_rows x `block_cols` (already resolved).
/// Throws IndexOverflowError when the slots or nonzeros do not fit 32-bit indices.
template <typename Value>
HbpLayout<Value> build_layout(const CsrMatrix<Value, std::int32_t>& matrix, const HbpParameters& p,
                       std::int32_t block_cols);

/// Slot lengths the layout can hold: slot_last_round is length - 1 in 16 bits (max_slot_length
/// is at most this).
inline constexpr std::int64_t kLongestSlot =
    std::int64_t{std::numeric_limits<std::uint16_t>::max()} + 1;

/// slot_output=partial (hbp_slot_partials.hpp), on the host: the model of the GPU's rewrite, the
/// same arrays. Slot s writes partials[s] (output_hash emptied), and the combine takes every row
/// (combine_rows emptied), combine_begin (rows + 1) over each row's slots in column-block order
/// (combine_partials: slot numbers; a row's only slot there too), so partials() = slots().
template <typename Value>
void give_every_slot_a_partial(HbpLayout<Value>& layout);

/// The slots of a run of `length` nonzeros of one row in one block: pieces of max_slot_length.
/// In 32 bits (a run lies in one row, of fewer than 2^31 nonzeros, and max_slot_length <=
/// kLongestSlot: no wrap), which the GPU divides several times faster than 64.
TCSPARSE_HBP_HD inline std::int64_t slots_of_run(std::int64_t length,
                                                 std::int32_t max_slot_length) {
  const auto run = static_cast<std::uint32_t>(length);
  const auto longest = static_cast<std::uint32_t>(max_slot_length);
  return (run + longest - 1u) / longest;
}

/// The kernel's walk of a lane group (spmv_group, hbp_kernels.cuh), on the host: `last_round[l]`
/// the group's slots' slot_last_round (1..32 of them), `begin` its begin_nnz. Round t = 0, 1, ...
/// while a slot is alive: alive(t) = {l : last_round[l] >= t}, lane l (alive) at
/// begin + offset(t) + popcount(alive(t) & lanes below l), offset(t + 1) = offset(t) +
/// popcount(alive(t)). Calls visit(lane, round, position) round by round, lanes in order: each
/// lane sees its positions in round order (the order it adds its products in). The unrolling of
/// the kernel (walk_unroll) only changes how many rounds' loads are in flight, not the positions.
template <typename Visit>
void walk_rounds(std::span<const std::uint16_t> last_round, std::int64_t begin, Visit&& visit) {
  const auto n = static_cast<std::int32_t>(last_round.size());
  std::int32_t rounds = 0;
  for (const std::uint16_t last : last_round) rounds = std::max<std::int32_t>(rounds, last + 1);
  std::int64_t offset = 0;
  for (std::int32_t t = 0; t < rounds; ++t) {
    std::uint32_t alive = 0;  // the ballot
    for (std::int32_t l = 0; l < n; ++l)
      if (last_round[static_cast<std::size_t>(l)] >= t) alive |= 1u << l;
    for (std::int32_t l = 0; l < n; ++l)
      if ((alive >> l) & 1u)
        visit(l, t, begin + offset + std::popcount(alive & ((1u << l) - 1u)));
    offset += std::popcount(alive);
  }
}

/// A col_add_sign word (the column in the block in the low kColumnBits bits, add_sign + 1 above),
/// its column and its add_sign (host and device: both builders write it, the kernel reads it).
inline constexpr std::uint32_t kColumnMask = (1u << kColumnBits) - 1u;
TCSPARSE_HBP_HD inline std::uint32_t col_add_sign_word(std::uint32_t column, std::int32_t add_sign) {
  return column | (static_cast<std::uint32_t>(add_sign + 1) << kColumnBits);
}
TCSPARSE_HBP_HD inline std::int32_t column_in_block(std::uint32_t word) {
  return static_cast<std::int32_t>(word & kColumnMask);
}
TCSPARSE_HBP_HD inline std::int32_t add_sign(std::uint32_t word) {
  return static_cast<std::int32_t>(word >> kColumnBits) - 1;
}

/// How the kernel's grid takes the tasks (paper III.C): thread block k takes the fixed tasks
/// [k * fixed / grid, (k + 1) * fixed / grid), then tickets: task fixed + ticket while below
/// tasks. fixed = floor(fixed_share * tasks / grid) * grid.
struct Schedule {
  std::int64_t grid = 0;
  std::int64_t fixed_tasks = 0;
  /// kernel=groups: the rounds of tickets handed out, not drawn (fixed_group_share; who takes a
  /// group does not change y, so host_apply does not follow it)
  std::int32_t fixed_rounds = 0;
  /// the combine's: rows of more partial sums than this are added by the whole warp (0: none)
  std::int32_t combine_warp_partials = 0;
  /// the combine's rows are few (combine_warp_rows): each row's list of two or more partial sums
  /// is added by a warp of its own, whatever its length
  bool combine_by_warps = false;
};
Schedule make_schedule(std::int64_t tasks, std::int64_t max_grid, double fixed_share);

/// y = alpha * A * x + beta * y by walking the layout as the kernels do (the grid's fixed tasks,
/// then the tickets in turn; a warp a block; a lane a slot in rounds (walk_rounds), or the whole
/// warp on a warp group with its butterfly sum; then the combine in column-block order, a long
/// list as a warp group), accumulating in double. beta == 0 ignores y. The schedule's grid only
/// changes who takes a block, not the result. Throws Error if a block is taken twice or never, or a row written twice or
/// never (a layout bug).
template <typename Value>
void host_apply(const HbpLayout<Value>& layout, const Schedule& schedule, std::span<const Value> x,
                std::span<double> y, double alpha, double beta);

/// The sizes of a layout, wherever it was built (host arrays or device buffers).
struct LayoutSizes {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::int32_t block_rows = 1, block_cols = 8;
  Reorder reorder = Reorder::hash;
  NonlinearHash hash;
  std::int64_t blocks = 0, groups = 0, slots = 0, tasks = 0, partials = 0, combine_rows = 0;
  std::size_t value_bytes = 8;
  std::size_t device_bytes = 0;
};

/// The statistics every build reports: the partition, the hash, the counts, bytes against CSR.
Json size_statistics(const LayoutSizes& sizes);

/// size_statistics plus the per-warp-group row-length standard deviation (paper Fig. 6 metric) of
/// the layout's groups, the
/// same groups in matrix row order (before reordering), sizes against CSR.
template <typename Value>
Json layout_statistics(const HbpLayout<Value>& layout, std::size_t partial_bytes);

/// Device bytes the layout takes on the GPU with partial sums of `partial_bytes` each.
template <typename Value>
std::size_t device_bytes(const HbpLayout<Value>& layout, std::size_t partial_bytes);

/// layout_statistics of the host layout of `matrix` (fp64; no GPU).
Json host_layout_statistics(const CsrMatrix<double, std::int32_t>& matrix, const HbpParameters& p);

}  // namespace tcsparse::hbp
