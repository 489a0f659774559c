// HBP ("A Nonlinear Hash-based Optimization Method for SpMV on GPUs", Yan, Diao, Liu, An, Xu)
// parameters: the constants the paper fixes or that this library chose, each named for what it
// means with the section that set it, and the "key=value" parameters that override them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "plan/parameters.hpp"

namespace tcsparse::hbp {

/// Threads of a warp: the rows of one warp group (paper III.A: a warp per matrix block, each
/// thread one row of a group of 32).
inline constexpr int kGroupRows = 32;

/// Bits of the column inside a block in a nonzero's 32-bit word; the other 7 hold add_sign + 1
/// (add_sign is -1 or 1..32: the distance to a slot's next nonzero in the next round is at most
/// the 32 slots of a round), so a nonzero costs 4 bytes of index, as in CSR.
inline constexpr int kColumnBits = 25;

/// Columns of a matrix block at most (the column inside a block takes kColumnBits bits). Wide
/// blocks are for x beyond shared memory: their x is read through the L2 (kAutoStripeL2Share).
inline constexpr std::int32_t kLargestBlockCols = std::int32_t{1} << kColumnBits;

/// The largest x segment a thread block stages in shared memory (bytes). A wider block's x is
/// read from global memory (through L1 and L2): 128 KiB holds 16384 fp64 columns and leaves room
/// on an A100 (164 KB) as on Hopper (228 KB).
inline constexpr std::int64_t kLargestSharedSegmentBytes = 128 * 1024;

/// Whether a block's x segment (block_cols values of value_bytes) fits kLargestSharedSegmentBytes:
/// the one test behind task_shared_x, fixed_share and kernel auto and the launch's shared memory
/// (constexpr: host and device).
constexpr bool segment_fits_shared_memory(std::int32_t block_cols, std::size_t value_bytes) {
  return static_cast<std::int64_t>(block_cols) * static_cast<std::int64_t>(value_bytes) <=
         kLargestSharedSegmentBytes;
}

/// block_cols=auto cuts the columns into stripes whose x takes at most this share of the L2, so
/// that the stripe's x stays in the L2 while the blocks of that column block stream by (their
/// tasks are taken in column-block order): one column block (no partial sums) when x fits.
/// Measured with tcsparse_stripe_probe (a plain CSR kernel a stripe) on an H200 (60 MB L2),
/// uniform 4-12 nonzeros a row at 16 M x 16 M, fp64: stripes of 64 / 43 / 32 / 21 / 16 / 8 MB ran
/// 0.94x / 1.18x / 1.46x / 1.61x / 1.54x / 1.02x cuSPARSE; HBP itself with stripes of 8 / 18 / 34
/// MB 1.28x / 1.39x / 1.25x (bench/results/2026-11-26-1830-h200-hbp-stripes).
inline constexpr double kAutoStripeL2Share = 1.0 / 3.0;

/// block_cols=auto's share where x is read hubs first (column_order) and its values take 8 bytes:
/// a stripe of a fifth of the L2. Measured (H200, fp64, runs 335-337,
/// bench/results/2026-11-30-1520-h200-hbp-stripes-hubs-first), against the third: R-MAT 23 (x of
/// 67 MB) in 6 / 7 / 8 / 10 / 12 stripes 1.090x / 1.076x / 1.096x / 1.080x / 1.014x as fast as in
/// 4 (a fifth: 6), R-MAT 24 (134 MB) in 10 / 12 / 14 / 16 / 20 1.047x / 1.038x / 1.025x / 0.947x /
/// 0.900x as in 7 (a fifth: 11), kron_like_21 (17 MB) 1.050x in 2 stripes against one block
/// (presumably a narrower stripe's cold columns, read once or twice each, stay in the L2 while the
/// matrix streams past them). Not in fp16, where the partial sums cost more against the matrix's
/// bytes: R-MAT 23 in 6 stripes 0.894x as fast as in one block, R-MAT 24 in 10 0.889x as in 2.
/// Rows of random columns (no hubs) keep the third: power-law and uniform rows at 16 M in 6-12
/// stripes 0.92-1.00x as fast as in 7.
inline constexpr double kAutoHubsFirstStripeL2Share = 1.0 / 5.0;
/// The smallest value for kAutoHubsFirstStripeL2Share (fp64; fp32 not measured, so it keeps the
/// third with fp16 and bf16).
inline constexpr std::size_t kHubsFirstStripeMinValueBytes = 8;

/// The L2 the host model assumes where no GPU is asked (info --json without a GPU, host
/// tests): an H100's 50 MiB.
inline constexpr std::int64_t kHostModelL2Bytes = 50ll << 20;

/// A row's nonzeros inside one block are cut into slots of at most this many (max_slot_length):
/// a slot is walked by one lane or, when long, by one warp, so a hub row of an R-MAT graph
/// (10^5 nonzeros in one wide column block) would hold one warp for the whole kernel; cut, its
/// pieces are warp groups of their own that any warp takes, each with its partial sum. Not in the
/// paper (its blocks were at most 4096 columns wide). Must stay <= 65536 (slot_last_round is
/// 16-bit). Measured (H200, fp64, `hbp` suite, kernel=groups): 4096 -> 1024 took the geomean
/// from 0.65x to 0.77x cuSPARSE (circuit-like 0.32x -> 0.46x, mip1-like 0.55x -> 0.68x, R-MAT-like
/// 18-21 0.55-0.69x -> 0.72-0.85x): a warp walks a 4096-nonzero piece in 64 dependent steps
/// while the other warps run out of work (bench/results/2026-11-26-1830-h200-hbp-stripes).
inline constexpr std::int32_t kDefaultMaxSlotLength = 1024;

/// block_rows=auto: rows of a matrix block (paper III.A: 512, to bound the scope of the
/// reordering). Tasks are made of blocks, so the grid has tasks for every thread block only when
/// there are many blocks (an H100 holds 132 SMs x 3 thread blocks): auto starts at
/// kAutoLargestBlockRows (so that a huge sparse matrix does not fall into millions of blocks of a
/// few nonzeros) and halves the rows while the partition has fewer than kAutoTargetBlocks blocks,
/// down to kAutoSmallestBlockRows, one warp group. Measured (H100, README): with a floor of 256,
/// a 16 k x 16 k pruned matrix (26.8 M nonzeros) had 128 blocks for 132 SMs and ran 30x slower
/// than cuSPARSE.
inline constexpr std::int32_t kAutoLargestBlockRows = 4096;
inline constexpr std::int32_t kAutoSmallestBlockRows = kGroupRows;
inline constexpr std::int64_t kAutoTargetBlocks = 16384;

/// Buckets of the aggregation (paper III.B: lengths aggregated "within the range of 0 to 8",
/// larger ones treated as 8).
inline constexpr int kHashBuckets = 9;

/// Share of the sampled row lengths that the aggregation must map below the last bucket when it
/// chooses its shift a (paper III.B: "a small number of rows that exceed 8" are allowed).
inline constexpr double kAggregationQuantile = 0.9;

/// (block, row) segments sampled to choose a (paper III.B: "sampled during program execution").
inline constexpr std::int64_t kHashSampleSize = 4096;

/// A row segment of at least this many nonzeros in a block gets a warp group of its own, which
/// the whole warp takes (lanes stride over it, then a warp sum). Not in the paper, whose thread
/// walks a long row alone. 64: two products a lane at least. To be measured.
inline constexpr std::int32_t kDefaultWarpRowLength = 64;

/// blocks_per_task=auto: tasks to aim at, so that every thread block of the grid (an H100 holds
/// 132 SMs x 3 of them) gets a few and the tickets can even out the rest; a task holds 1 to
/// 4 x warps_per_block blocks. To be measured.
inline constexpr std::int64_t kAutoTargetTasks = 1024;

/// Bytes a scattered x read costs at worst (one 32-byte sector a nonzero). A task loads its x
/// segment into shared memory (block_cols values, coalesced) only when its nonzeros would cost
/// at least as much read one by one: nnz x kSectorBytes >= segment bytes (or when the thread block
/// holds that segment already). Otherwise its warps read x from global memory directly: a task of
/// R-MAT 24 (2048 column blocks) holds a few hundred nonzeros, and loading 64 KiB for them would
/// move more x than matrix. Not in the paper. To be measured.
inline constexpr std::int64_t kSectorBytes = 32;

/// combine_warp_partials' default: a combine row whose list holds more partial sums than this is
/// added by the whole warp (lane l every 32nd from the l-th, then the butterfly sum) instead of by
/// the row's own thread, which loads them one after another: a few rows of hundreds of partial
/// sums (circuit-like rows cut into slots of max_slot_length) held the combine for their whole
/// length. The rows of one warp that take it take the warp in turn.
inline constexpr std::int32_t kDefaultCombineWarpPartials = 64;

/// combine_warp_rows' default: a combine of at most this many rows gives each row a warp of its
/// own (combine_by_warps_kernel) instead of a thread (combine_kernel). A circuit-like matrix's
/// combine is a few rows (its long rows cut into slots: 82 rows and 395 partial sums on
/// circuit-like 680 k), which one thread block of the thread-a-row kernel took in 8.8 us (Nsight
/// Compute, H200, run 400). 8192 warps are one wave of 132 SMs x 64 warps. To be measured.
inline constexpr std::int32_t kDefaultCombineWarpRows = 8192;

/// Warps of a thread block; they share one x segment and take the warp groups of one task.
/// Measured (H100, fp64, 8 matrices of the hbp suite, README): 4 / 8 / 16 warps gave 0.21x /
/// 0.30x / 0.35x cuSPARSE: a lane's loads wait on each other, so more resident warps help (three
/// thread blocks of a 64 KiB segment fit an SM: 48 warps).
inline constexpr int kDefaultWarpsPerBlock = 16;

/// Rounds of a lane group that a lane loads at once (the kernel's walk, hbp_kernels.cuh): the
/// positions of U rounds come from the slot lengths and ballots alone, so a lane has U loads of
/// (column word, value) in flight before its U gathers from x, where the add_sign walk had one
/// (each position came from the word just loaded: a group of slots of length L cost L dependent
/// memory latencies). The result does not depend on U (each lane adds its products in round
/// order). 4: a guess (8-byte values: 48 bytes of loads a lane in flight, registers stay low);
/// walk_unroll=1/2/4/8 to be measured (README).
inline constexpr int kDefaultWalkUnroll = 4;

/// Share of the tasks given out in the fixed part (paper III.C: each warp an equal number of
/// blocks of the same column; the rest is taken by ticket). Not stated in the paper; to be
/// measured. fixed_share=auto gives this share when the x segments sit in shared memory, and 0
/// when they do not (block_cols above kLargestSharedSegmentBytes): a thread block's fixed tasks
/// are contiguous, so a fixed part would spread the grid over every stripe at once, where
/// tickets taken in order keep the grid on one stripe of x at a time.
inline constexpr double kDefaultFixedShare = 0.5;

/// Who takes the work (kernel=): `tasks`, the paper's (III.C): thread blocks take tasks (blocks of
/// one column block), a fixed part then tickets, its warps share the task's x segment in shared
/// memory; `groups`: warps take runs of consecutive warp groups by a global ticket and read x
/// through the L2 (no shared memory, no barrier). auto: groups when no x segment fits shared
/// memory (block_cols above kLargestSharedSegmentBytes), else tasks.
enum class Kernel { automatic, tasks, groups };
std::string_view to_string(Kernel kernel);

/// kernel=groups: tickets a warp takes on average (runs of ceil(groups / (warps x this)) groups,
/// 1 to kLargestGroupsPerTicket), so that the last tickets even out the warps' loads. Measured
/// (H200, fp64, max_slot_length 4096): runs of 8 against the 32 that 8 tickets a warp gave on the
/// 16 M-row matrices: uniform 4-12 1.29x -> 1.39x, power law 1.20x -> 1.45x cuSPARSE; runs of 1
/// (a global atomic a group) 0.87x / 1.17x.
inline constexpr std::int64_t kTicketsPerWarp = 8;
inline constexpr std::int64_t kLargestGroupsPerTicket = 8;
/// The most groups a ticket may hand out (groups_per_ticket): a warp loads a run's bounds with one
/// load a lane, the run's groups and the end of its last.
inline constexpr std::int32_t kMostGroupsPerTicket = 31;
static_assert(kLargestGroupsPerTicket <= kMostGroupsPerTicket);

enum class Reorder { hash, sort, none };
std::string_view to_string(Reorder reorder);

/// Where the plan builds its layout: on the GPU from the uploaded CSR (hbp_device_build.cuh, paper
/// Algorithm 2: a thread a row), or on the host (build_layout, the model) and then uploaded. Both
/// give the same arrays, bit for bit.
enum class Build { device, host };
std::string_view to_string(Build build);

/// Where the GPU build takes the layout's arrays (layout_memory=): `pool`, tcsparse's
/// stream-ordered pool (DeviceBuffer::from_pool), in order on the build's stream, or `allocate`,
/// one cudaMalloc each. A cudaMalloc waits for the GPU before it maps new pages, so the build's
/// 16 arrays were 16 stalls of its stream; the pool's allocations do not wait, and reuse the pages
/// of the temporaries freed before them. But an array that outlives the build, placed among freed
/// temporaries, keeps the pool from giving their pages back while the plan lives (after a 4 M-row
/// build 152 MiB stayed mapped, bench/results/2026-11-29-1900-h200-hbp-hash-chains). auto: pool
/// when the build is small: its temporaries (estimated_build_temporary_bytes) within
/// detail::kSmallBuildTemporaryBytes, which with the layout fit what the pool keeps between builds
/// anyway; else allocate.
enum class LayoutMemory { automatic, pool, allocate };
std::string_view to_string(LayoutMemory memory);

/// Temporary bytes of the GPU build at its peak, at most about (README, GPU build): 36 a slot
/// plus 20 a row, the peak of the build that the small-build rule was measured with (runs
/// 262-263); since the scans in place and the 32-bit sort keys (runs 393-397) it is 32 a slot and
/// 8 a row, and the estimate is kept so that the rule still chooses as measured. Slots are at
/// most a segment a row and column block plus the cuts of max_slot_length, and at most the
/// nonzeros.
inline constexpr std::int64_t kBuildTemporaryBytesPerSlot = 36;
inline constexpr std::int64_t kBuildTemporaryBytesPerRow = 20;
std::int64_t estimated_build_temporary_bytes(std::int64_t rows, std::int64_t nnz,
                                             std::int64_t column_blocks,
                                             std::int32_t max_slot_length);

/// The order x is read in (column_order=, hbp_column_order.hpp; not in the paper): `caller`, the
/// caller's columns; `hubs_first`, inside each column block the columns renumbered by their
/// nonzero count, most first, with x gathered into that order by each apply (one more launch);
/// auto: hubs_first for a matrix of at least kHubsFirstMinNonzeros nonzeros whose column counts'
/// concentration (column_count_concentration, estimated at plan time from a sample of the
/// nonzeros: estimated_column_count_concentration) is at least kHubsFirstMinConcentration.
enum class ColumnOrder { automatic, caller, hubs_first };
std::string_view to_string(ColumnOrder order);

/// column_order=auto's two thresholds. Measured (H200, fp64 / fp16, hubs_first over caller, runs
/// 288-289, bench/results/2026-11-30-0430-h200-hbp-hubs-first): R-MAT graphs of 11-263 M
/// nonzeros, concentration 39-244: 1.08-1.27x / 1.11-1.38x; R-MAT graphs of 0.25-1.9 M nonzeros,
/// concentration 29-62: 0.87-0.96x / 0.97-1.02x (x is small, the gather a fixed cost); the circuit
/// matrix rajat01 and its replica (20; 43 k and 2.2 M nonzeros) 0.81-0.85x; every matrix whose
/// columns are drawn at random or banded (1.0-1.4) 0.78-0.99x, except pruned_16k fp64 (1.015x).
/// Matrices below kHubsFirstMinNonzeros are not measured at all (no count, no wait in the build).
inline constexpr double kHubsFirstMinConcentration = 30.0;
inline constexpr std::int64_t kHubsFirstMinNonzeros = std::int64_t{1} << 22;

/// hub_min_count=auto: the columns that column_order=hubs_first moves to the front of their block
/// hold at least this many times the mean count (nnz / cols) of nonzeros, and at least 1. The
/// others keep the caller's order, so that the apply's gather of x reads them in a sweep.
/// Measured (H200, run 290, hubs_first over caller, geomean of 7 R-MAT graphs of mean count 15-45,
/// fp64 / fp16): hub_min_count 1 (every column by count) 1.111x / 1.241x, 16 1.121x / 1.245x, 64
/// 1.126x / 1.243x, 256 1.119x / 1.236x, 1024 1.083x / 1.152x; the same order as 1 once more in
/// that run 1.129x / 1.249x, so 1-256 lie within the noise. Uniform rows at 16 M, where no column
/// is a hub: 0.895x with every column sorted, 0.955x with 16 or more (the gather alone, now
/// almost a copy). 2 x mean: 31 for the R-MAT graphs of 16 edges a vertex, 85-90 for 48.
inline constexpr double kAutoHubMinCountOverMean = 2.0;

/// Where a slot's sum goes (slot_output=; hbp_slot_partials.hpp; not in the paper): `hash`, the
/// paper's output_hash (a partial sum, or y itself for a row's only slot); `partial`, every slot
/// to its own partial sum (no output_hash read; the combine writes every row); auto: partial where
/// x is cut into stripes (at least two column blocks) and at most
/// kAutoSlotPartialMaxSingleSlotShare of the slots are a row's only one.
enum class SlotOutput { automatic, hash, partial };
std::string_view to_string(SlotOutput output);

/// slot_output=auto's bound on the share of slots that are their row's only one (each costs a
/// partial sum written and read that `hash` does not). Measured (H200, run 382, partial over hash,
/// share in brackets): fp64 power law 16 M 1.100x (0.23), uniform 4-12 16 M 1.053x (0.00), R-MAT
/// 23 / 24 1.077x / 1.081x (0.10 / 0.07), R-MAT 21 x 48 1.029x (0.16); fp16 R-MAT 24 1.046x
/// (0.24), uniform 1.046x (0.01), power law 1.002x (0.44); the 24 M-row band 0.71x / 0.75x (1.00).
/// Under the rule (run 386): fp32 1.049-1.084x on the four matrices it takes (shares 0.00-0.30),
/// bf16 1.036x / 1.045x on uniform rows and R-MAT 24 (fp16's).
inline constexpr double kAutoSlotPartialMaxSingleSlotShare = 1.0 / 3.0;

struct HbpParameters {
  /// 0: auto (resolved_block_rows).
  std::int32_t block_rows = 0;
  /// 0: auto (resolved_block_cols: L2 stripes). The paper's blocks (4096 fp64 columns, its x
  /// segment in a 48 KB shared memory) are block_cols=4096.
  std::int32_t block_cols = 0;
  Reorder reorder = Reorder::hash;
  /// device: on an H100 it built the default suite's layouts in 1.3-18 ms where the host
  /// took 0.21-4.1 s (bench/results/2026-11-24-2230-h100-after-fixes, 2026-11-24-2205-...).
  Build build = Build::device;
  /// 0: off (every row in its 32-row group walked by its own lane, as the paper).
  std::int32_t warp_row_length = kDefaultWarpRowLength;
  int warps_per_block = kDefaultWarpsPerBlock;
  /// 0: auto (resolved_blocks_per_task).
  std::int32_t blocks_per_task = 0;
  /// < 0: auto (resolved_fixed_share).
  double fixed_share = -1.0;
  /// The longest slot (kDefaultMaxSlotLength): a row's nonzeros in a block are cut into slots of
  /// at most this many.
  std::int32_t max_slot_length = kDefaultMaxSlotLength;
  /// Rounds a lane loads at once in a lane group (kDefaultWalkUnroll): 1, 2, 4 or 8, each a
  /// kernel instantiation.
  int walk_unroll = kDefaultWalkUnroll;
  /// Combine rows of more partial sums than this are added by the whole warp; 0: off (each by
  /// its own thread).
  std::int32_t combine_warp_partials = kDefaultCombineWarpPartials;
  /// A combine of at most this many rows gives each row a warp; 0: off.
  std::int32_t combine_warp_rows = kDefaultCombineWarpRows;
  /// 0: auto (as many as fit the SMs).
  int blocks_per_sm = 0;
  Kernel kernel = Kernel::automatic;
  /// kernel=groups: consecutive warp groups a ticket hands out; 0: auto (kTicketsPerWarp).
  std::int32_t groups_per_ticket = 0;
  /// kernel=groups: the share of the warp groups whose tickets are handed out, not drawn (whole
  /// rounds of one a warp, at most this share), before the counter's; 0: every ticket drawn.
  /// Not in the paper (its fixed part is of tasks).
  double fixed_group_share = 0.0;
  LayoutMemory layout_memory = LayoutMemory::automatic;
  ColumnOrder column_order = ColumnOrder::automatic;
  /// The fewest nonzeros of a hub column (ColumnOrder); 0: auto (resolved_hub_min_count).
  std::int64_t hub_min_count = 0;
  SlotOutput slot_output = SlotOutput::automatic;
  /// update_values=on: the layout keeps each stored value's index in the CSR (value_source, 4
  /// bytes a nonzero on the device), so that update_values gathers new values into the layout's
  /// order in one kernel; off: update_values is refused (the layout holds the values in its own
  /// order).
  bool update_values = false;

  /// block_cols for `cols` columns of values of `value_bytes` bytes on a GPU of `l2_bytes` of
  /// L2, x read in the hubs-first order or not: auto cuts x into the fewest stripes of at most
  /// kAutoStripeL2Share of the L2 (kAutoHubsFirstStripeL2Share hubs first, 8-byte values), equal
  /// widths rounded up to 8 (one column block when x fits; at most kLargestBlockCols).
  std::int32_t resolved_block_cols(std::size_t value_bytes, std::int64_t cols,
                                   std::int64_t l2_bytes, bool hubs_first = false) const;
  /// Whether a combine of `combine_rows` rows gives each row a warp (combine_warp_rows).
  bool combines_by_warps(std::int64_t combine_rows) const {
    return combine_warp_rows > 0 && combine_rows <= combine_warp_rows;
  }
  /// fixed_share for blocks of `block_cols` columns of `value_bytes` bytes (kDefaultFixedShare).
  double resolved_fixed_share(std::int32_t block_cols, std::size_t value_bytes) const;
  /// kernel for blocks of `block_cols` columns of `value_bytes` bytes (Kernel).
  Kernel resolved_kernel(std::int32_t block_cols, std::size_t value_bytes) const;
  /// block_rows for a matrix of `rows` rows and `column_blocks` column blocks (the partition's
  /// blocks, empty ones included, are counted for the auto rule).
  std::int32_t resolved_block_rows(std::int64_t rows, std::int64_t column_blocks) const;
  /// Whether the GPU build takes the layout's arrays from the pool (LayoutMemory) for a build of
  /// about `temporary_bytes` temporaries at its peak, where builds of at most
  /// `small_build_bytes` are small (detail::kSmallBuildTemporaryBytes).
  bool layout_from_pool(std::int64_t temporary_bytes, std::int64_t small_build_bytes) const;
  /// Whether a plan of a matrix of `nnz` nonzeros counts its columns (ColumnOrder): hubs_first
  /// asked for, or auto from kHubsFirstMinNonzeros; never without nonzeros.
  bool counts_columns(std::int64_t nnz) const;
  /// Whether the plan reads x in the hubs-first order (ColumnOrder), for a matrix whose columns
  /// it counts (counts_columns) and whose counts have `concentration` (auto: the estimate,
  /// estimated_column_count_concentration).
  bool hubs_first(double concentration) const;
  /// hub_min_count for a matrix of `nnz` nonzeros and `cols` columns (kAutoHubMinCountOverMean).
  std::int64_t resolved_hub_min_count(std::int64_t nnz, std::int64_t cols) const;
  /// Whether every slot writes its own partial sum (SlotOutput) in a layout of `column_blocks`
  /// column blocks and `slots` slots, `partials` of which write a partial sum with output_hash.
  bool partial_per_slot(std::int64_t column_blocks, std::int64_t slots,
                        std::int64_t partials) const;
  /// blocks_per_task for a layout of `blocks` blocks: auto gives about kAutoTargetTasks tasks,
  /// 1 to 4 blocks a warp.
  std::int32_t resolved_blocks_per_task(std::int64_t blocks) const;
};

/// The parameter schema (the registry's MethodDescriptor::parameters), in a fixed order.
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values. Throws ParameterError for what the schema cannot say
/// (block_cols not a multiple of 8).
HbpParameters hbp_parameters(const detail::ParameterValues& values);

/// Checks "key=value" strings against parameter_specs() and returns the parameters.
HbpParameters parse_parameters(const std::vector<std::string>& key_values);

}  // namespace tcsparse::hbp
