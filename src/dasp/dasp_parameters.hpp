// DASP (SC'23) parameters: the constants the paper fixes, each named for what it means with the
// section that set it, and the PlanOptions::parameters ("key=value") that override them for
// experiments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "plan/parameters.hpp"

namespace tcsparse::dasp {

/// MAX_LEN (§3.2): rows with more nonzeros are "long rows"; 256 is "just right for the workload of
/// a thread block" (§3.3.1: 4 warps x 2 blocks x 8x4 = 256).
inline constexpr int kDaspMaxMediumRowLength = 256;

/// Below this many nonzeros a matrix is "small": its time is the latency of one launch and of
/// its longest warp rather than bandwidth (about 1 M: 32 k fp64 blocks, 16 per warp of a full
/// H100 / H200 wave).
inline constexpr std::int64_t kDaspSmallMatrixNnz = 1 << 20;

/// MAX_LEN for small matrices (not the paper's 256): the first of these whose padded layout
/// fits kDaspLatencyBoundLayoutBytes, else 256. Rows longer than it become long rows, which one
/// warp takes whole with all their blocks in flight, instead of one warp taking 8 rows of up to
/// 64 blocks each in sequence. Measured on an H200 over 299 real matrices (up to 850 k
/// nonzeros), geometric-mean speedup over cuSPARSE: fp64 1.17x (256) / 1.29x (32) / 1.33x (16),
/// fp16 1.37x / 1.50x / 1.54x. 64 was added after R-MAT graphs of 0.6-1 M nonzeros, whose tails
/// pad too much at 16 and 32 in fp16 / bf16, had fallen back to 256 (H200, run 418, 14 matrices
/// of 0.4-1 M nonzeros, every candidate as a variant, the rule's choice read from them): R-MAT
/// scale 16 fp16 0.84x cuSPARSE at 256, 1.34x at 64; R-MAT 14 with 48 edges a vertex 0.66x /
/// 1.26x; geomean of the 14 in fp16 1.364x -> 1.538x, bf16 1.363x -> 1.538x, fp64 1.379x ->
/// 1.383x (min 0.66x -> 1.22x); on 15 others (run 419) fp16 1.352x -> 1.398x, fp64 unchanged.
inline constexpr int kDaspSmallMatrixMaxMediumRowLengths[] = {16, 32, 64};
inline constexpr int kDaspSmallMatrixMaxLenCandidates =
    static_cast<int>(std::size(kDaspSmallMatrixMaxMediumRowLengths));

/// fp64 (8x4 blocks) matrices of kDaspSmallMatrixNnz up to this many nonzeros, not dense long
/// rows, take MAX_LEN kDaspMidMatrixMaxMediumRowLength where it pads their long rows by at most
/// kDaspSmallMatrixMaxLongRowPadding, else 256. Measured on an H200 (fp64; runs 419-420 MAX_LEN
/// as a variant, run 424 this rule's binary against the one before it): on 14 matrices of
/// 1.4-3.1 M nonzeros (power-law rows, R-MAT scale 16-19, pruned weights, circuit-like 680 k,
/// the rajat01 and cage11 replicas, uniform rows) 1.075x in geometric mean, 0.93-1.59x (power-law
/// 150 k rows 0.92x -> 0.99x cuSPARSE, R-MAT 16 with 24 edges a vertex 0.93x -> 1.06x; power-law
/// rows with exponent 1.6 0.93x, R-MAT 19 with 6 edges 0.95x as fast); from 8.6 M nonzeros up it
/// lost (R-MAT-like 18 with 48 edges 0.95x of 256, mip1-like 0.91x, R-MAT 20 0.78x): the bound
/// lies between, untested. fp16 / bf16 ran as fast at 64 as at 256 on the same matrices (0.99x).
inline constexpr std::int64_t kDaspMidMatrixNnz = std::int64_t{1} << 22;
inline constexpr int kDaspMidMatrixMaxMediumRowLength = 64;

/// fp16 / bf16 (16x4 blocks) matrices of kDaspSmallMatrixNnz up to kDaspMidMatrixNnz nonzeros
/// whose rows hold at most this many values on average take kDaspMidMatrixMaxMediumRowLength too,
/// where it pads their long rows little (as fp64 above): in sparse graphs the rows of 65-256
/// values are few and make the medium row-blocks one warp walks longest. Measured on an H200
/// (run 427, MAX_LEN 64 against 256, fp16): mean 2.6-6.3 (power-law rows, R-MAT scale 19 / 20
/// with 3-4 edges a vertex, the rajat01 replica at 2.2 M) 1.09-1.17x faster, R-MAT 19 with 6
/// edges 1.00x; mean 7.7-58 (R-MAT with 8-24 edges, power-law rows of mean 9-58) 0.90-1.02x.
/// Run 434, with 8 held-out graphs: 1.067x (fp16) / 1.068x (bf16) where it fires.
inline constexpr double kDaspMidMatrixSparseRowsMaxMean = 6.5;

/// fp64 matrices of kDaspSmallMatrixNnz up to kDaspMidMatrixNnz nonzeros whose longest row is
/// longer than kDaspLongGroupsPerWarp long-row groups (more than one warp's task already) take
/// long-row tasks of this many groups. There one wave of warps holds the whole product, and the
/// warp walking a long row's 32 groups (64 blocks, 2048 values) is the last to finish. Measured
/// on an H200 (run 427, `long_groups_per_warp=16` against auto, 20 matrices of 1.4-5.8 M
/// nonzeros): R-MAT scale 16-20 (hub rows of 8-12 k values) 1.02-1.29x faster (scale 19 with 6
/// edges a vertex 0.86x -> 1.11x cuSPARSE), power-law rows of 1.4-2.9 M nonzeros 1.0-1.17x;
/// where no row spans more than 32 groups it lost 2-15 % (a row split over two warps pays the
/// partial sums' fence and ticket on the critical path: pruned 4096^2 at 90 %, whose one row of
/// 1026 values then takes two warps, 7.6 -> 8.9 us), and so did matrices above kDaspMidMatrixNnz
/// (power-law rows of 5.8 M nonzeros 0.94x -> 0.85x; R-MAT 20 and 22, mip1-like 0.80-0.98x).
/// fp16 / bf16 gained on R-MAT (1.08-1.14x) and lost on power-law rows (0.92-0.98x): not applied.
inline constexpr int kDaspMidMatrixLongGroupsPerWarp = 16;

/// Matrices of kDaspSmallMatrixNnz nonzeros or more, every precision, whose rows longer than
/// kDaspMaxMediumRowLength are at least as many as their medium rows (5..256 values; pruned
/// weights at 85-90 % sparsity) take MAX_LEN kDaspFewMediumRowsMaxMediumRowLength: at 256 their
/// few medium rows are the longest of the medium range, and a row-block of them is one warp's
/// walk of up to 64 blocks one after another, which outlasts every long-row task (a row of 400
/// values is 4 groups). Measured on an H200 (run 427, MAX_LEN 64 against 256, fp16): pruned
/// 4096^2 at 85 % (one medium row of 4096) 1.04x -> 1.71x cuSPARSE, at 90 % 0.94x -> 1.64x, the
/// LLM-like skewed 4096^2 at 90 % 0.93x -> 1.70x, 4096 x 11008 at 95 % 1.03x -> 1.63x; bf16 the
/// same. Where medium rows are the many (R-MAT, power-law rows, pruned at 95 %), 64 ran 0.90-1.0x
/// as fast as 256 on 8 of 29 matrices and is not taken.
inline constexpr int kDaspFewMediumRowsMaxMediumRowLength = 64;

/// A small matrix whose layout with a short MAX_LEN would take more than this many bytes
/// (values and column indices, long-row padding included) keeps the paper's 256 unless its
/// long-row padding is small (kDaspSmallMatrixMaxLongRowPadding): about 1 us of
/// HBM traffic, beyond which the padding of rows just over MAX_LEN to whole long-row groups
/// costs more than the latency it saves (measured: power-law rows, 800 k nonzeros, fp16 0.72x
/// of cuSPARSE with MAX_LEN 32 against 1.26x with 256).
inline constexpr std::int64_t kDaspLatencyBoundLayoutBytes = std::int64_t{4} << 20;

/// A small matrix whose short-MAX_LEN layout exceeds kDaspLatencyBoundLayoutBytes still takes
/// the first of kDaspSmallMatrixMaxMediumRowLengths that pads its long rows by at most this
/// fraction of its nonzeros. Measured on an H200 (fp64, rows interleaved with the plain run):
/// pruned 2048^2 at density 0.1 (rows of ~200, padding 0.16 with MAX_LEN 16) 1.94x faster
/// than with 256; R-MAT scale 15 (padding 0.19 with 32) 1.04x; a 27-point stencil (rows of 27:
/// padding 1.4 with 16, none with 32) kept off 16, which ran it 2.6x slower.
/// The fraction is for 8x4 blocks (fp64: long-row groups of 64 values); 16x4 blocks (fp16 / bf16)
/// pad long rows to groups of 128, about twice as many zeros for the same rows, and allow twice
/// the fraction. Measured on an H100 (fp16, power-law rows, 100 k rows, 800 k nonzeros: padding
/// 0.25 with 32): 0.67x cuSPARSE with the 256 that 0.2 left it, 1.38x with 32.
inline constexpr double kDaspSmallMatrixMaxLongRowPadding = 0.2;

/// Dense long rows (pruned weight matrices), fp64 (8x4 blocks) only: a large matrix all of whose
/// rows are longer than kDaspMaxMediumRowLength and that fills at least kDaspDenseRowsMinDensity
/// of its columns takes MAX_LEN = its longest row: every row is a medium row, one row-block a
/// warp in pieces of kDaspDenseRowsBlocksPerPiece blocks, kDaspDenseRowsBlocksInFlight blocks in
/// flight. The 8 rows of a block, of nearly equal length after the sort, read x at nearby
/// columns (value k of a row of length L lies near column k * cols / L). Not in the paper.
/// Measured on an H200 (dasp-tune, pruned 16384^2 at density 0.1, 26.8 M nonzeros, 50-run
/// medians): long-row path 111.2 us fp64 (load hints - L1 no-allocate for the matrix, L1
/// evict-last for x, maximum L1 carveout - all within 0.1 %; 4 blocks in flight 112.1 us);
/// medium path in pieces of 64 blocks: 121.4 us with 2 blocks in flight, 106.5 us with 4 (4 %
/// faster than the long-row path); pieces of 32: 141.9 us, 128: 119.9 us, unsplit: 252 us.
/// fp16 (16x4 blocks) ran 4 % slower on the medium path (53.9 against 51.7 us): not applied.
inline constexpr double kDaspDenseRowsMinDensity = 1.0 / 32;
/// ... whose rows hold at least kDaspDenseRowsMinMeanLength values on average and which has at
/// least kDaspDenseRowsMinNnz nonzeros. Other pruned weights lost on the medium path (H200, runs
/// 427-429, fp64, against MAX_LEN 64, where their rows are long rows): shorter rows, pruned
/// 4096^2 at 80 % (rows of 819, 3.3 M nonzeros) 0.80x cuSPARSE against 1.87x, 8192^2 at 90 %
/// (819, 6.7 M) 0.86x against 1.18x; fewer nonzeros, 1024 x 4096 at 70 % (1212, 1.2 M) 0.35x
/// against 0.93x, 2048 x 8192 at 85 % (1224, 2.5 M) 0.57x against 1.07x, LLM-like 4096 x 11008 /
/// 4096 x 14336 at 90 % (1101 / 1434, 4.5 / 5.9 M) 1.06x / 1.23x against 1.42x / 1.47x (the
/// skewed 4096 x 14336, 1.20x against 1.07x, was the one gain below the bound). From it on the
/// medium path tied or gained: 12288^2 at 90 % (15 M) 1.10x against 1.09x, 16384^2 (26.8 M)
/// 1.03x against 0.99x.
inline constexpr double kDaspDenseRowsMinMeanLength = 1024.0;
inline constexpr std::int64_t kDaspDenseRowsMinNnz = std::int64_t{1} << 23;
inline constexpr int kDaspDenseRowsBlocksInFlight = 4;

/// A row-block of dense long rows is split among warps in pieces of this many blocks (8x4:
/// 2048 fp64 values, the work of one warp of kDaspLongGroupsPerWarp long-row groups), so that
/// a 16 k-row matrix still has about 14 k warps.
inline constexpr int kDaspDenseRowsBlocksPerPiece = 64;

/// fp64 blocks are stored column-major (DaspBlockShape::column_major) when at least this share
/// of the regular medium blocks are row-block tails with padding in every row (rows of 4k + 3:
/// 27-point stencils, 11-wide bands), whose padded values the kernel then does not load; else
/// row-major, where a half-warp reads one line. Measured on an H200, fp64, column-major against
/// row-major: 27-point stencil 100^3 (15 % tail blocks) 89.5 -> 88.0-88.8 us (89.8-90.1 % of
/// the copy bandwidth), band of 11 (33 %) 98.8 -> 94.1-95.9 us; where it is not chosen:
/// 5-point stencil 2000^2 (no tails) 109.6 -> 114.4 us, pruned 16384^2 (0.02 %) 105.4 ->
/// 108.2 us (bench/results/2026-11-21-1623-h200-fp64-block-order-experiment).
inline constexpr double kDaspColumnMajorMinTailBlockShare = 1.0 / 16;

/// Rows of at most this many nonzeros are "short rows", pieced 1+3, 2+2, 4 and 1 (§3.2). Fixed:
/// the piecing is defined for a block row of exactly 4 values.
inline constexpr int kDaspMaxShortRowLength = 4;

/// The block width: MMA_K of mma.m8n8k4 (§3.2). Every block row holds 4 values of one row.
inline constexpr int kDaspBlockWidth = 4;

/// A medium-row block is kept in the regular (padded) part when at least this fraction of it is
/// filled (§3.2 "threshold ... set to 0.75"); the rest of the row-block's values go to the
/// irregular CSR part.
inline constexpr double kDaspRegularBlockMinFill = 0.75;

/// regular_block_min_fill=auto: fp64 layouts of at least kDaspAllRegularMinNnz nonzeros (not
/// of dense long rows) put every medium value in a regular block (fill 0) where that stores at
/// most kDaspAllRegularMaxGrowth x nnz more values than the paper's fill. Without irregular
/// values the fp64 kernel holds no registers for them (40 -> 32 with 2 row-blocks a warp and 2
/// blocks in flight), 64 warps an SM instead of 48. Not in the paper. Measured (H200, run 265,
/// `bench/results/2026-11-30-0010-h200-dasp-no-irregular`, fill 0 against 0.75, fp64): cage11
/// x 35 87.0 -> 73.1 us (10 % more values stored), replica_cage11 1.18x, banded 2 M 1.18x,
/// stencil3d_100 1.06x, uniform 4-12 at 4 M 1.03x (14 % more), 0.99-1.01x on the rest of the
/// default suite of >= 1 M nonzeros but the 2D stencil (60 % more values: 0.88x) and pruned 16 k
/// (dense long rows: 0.93x); below 1 M nonzeros 0.95-1.0x (R-MAT 15, power law 100 k). In fp16 /
/// bf16 fill 0 lost (cage11 x 35 0.83x, banded 0.91x), so they keep the paper's fill. The bound
/// was 0.15 until run 437 (H200, fill 0 against 0.75 on replicas of real matrices of 4-20 M
/// nonzeros, fp64) measured the growths between: 16 % (the nh2010 / de2010 / vt2010 replicas)
/// 1.06-1.15x faster, 19 % (the rajat01 replicas) 1.09-1.33x, 25 % (delaunay_n16) 1.16x, 38 %
/// (cti) 1.06x; 60 % (the 2D stencil) 0.88x.
inline constexpr std::int64_t kDaspAllRegularMinNnz = 1000000;
inline constexpr double kDaspAllRegularMaxGrowth = 0.4;

/// A long-row group is 2 blocks (§3.2: 2 x MMA_M x MMA_K = 64 values in fp64); rows are padded
/// with zeros to whole groups.
inline constexpr int kDaspBlocksPerLongGroup = 2;

/// LOOP_NUM, the row-blocks of 8 rows one warp computes (§3.3.2): 1 below 59990 medium rows,
/// 2 below 400000, 4 from there. Expressed here as medium rows per warp (8 * LOOP_NUM) so that it
/// also means something for the 16-row blocks of fp16.
inline constexpr std::int64_t kDaspLoopNum2MinMediumRows = 59990;
inline constexpr std::int64_t kDaspLoopNum4MinMediumRows = 400000;

/// Long-row groups one warp takes, at most. Not in the paper (it gives each warp one group and
/// reduces in a second pass, §3.3.1). Measured on an H200 (fp64, 20-27 M nonzeros): the cross-
/// warp reduction (partial sum, fence, ticket) is costly, and rows of 1000-1600 values ran
/// 1.1-1.45x faster taken whole by one warp (32 groups = 2048 fp64 values) than in tasks of 8
/// groups; a row longer than that is still spread over several warps.
inline constexpr int kDaspLongGroupsPerWarp = 32;

/// Long-row groups one warp takes in a small matrix (< kDaspSmallMatrixNnz) whose longest row
/// has more than kDaspVeryLongRowRatio times the mean row length: there the few longest rows
/// are the kernel's critical path (one warp walking up to 64 blocks in sequence), and spreading
/// them over more warps beats the cost of the cross-warp reduction. Measured on an H200 (each
/// case interleaved with the plain run): the 7 such matrices of the default suite and
/// ../shared/matrices (R-MAT scale 15, power-law rows, case9, rajat01, rajat19, adder_dcop_05,
/// hangGlider_2) ran 1.24x (fp64) and 1.68x (fp16) faster in geometric mean (R-MAT fp16 2.8x,
/// case9 2.0x / 3.8x); matrices whose rows are all long (DLMC weights) do not qualify and are
/// not split.
inline constexpr int kDaspSmallMatrixLongGroupsPerWarp = 4;
inline constexpr double kDaspVeryLongRowRatio = 64.0;

/// A small matrix whose longest row is more than kDaspSkewedRowRatio times the mean and longer
/// than kDaspSplitRowMinLength values is split the same way. Measured on an H200
/// (long_groups_per_warp=4 against 32): R-MAT graphs of 0.1-0.5 M nonzeros whose longest rows
/// (1219-3672 values) are 17-59 times the mean ran 1.15-2.20x faster in fp16 / bf16 (runs 420,
/// 423: R-MAT scale 12 with 64 edges a vertex 0.95x -> 1.49x cuSPARSE, scale 13 with 96 0.66x ->
/// 1.43x) and 1.25-1.74x in fp64 (power-law rows with a longest row of 1797: 0.94x); the real
/// matrices of ratio 8-64, whose longest rows are 632 values or shorter, ran 0.80-1.0x as fast
/// split (tumorAntiAngiogenesis, hangGlider_1, ca-CondMat: one warp a row is cheaper than the
/// cross-warp reduction there), and so did pruned weights (ratio 2-3, 0.59-0.89x).
inline constexpr double kDaspSkewedRowRatio = 16.0;
inline constexpr std::int64_t kDaspSplitRowMinLength = 1024;

/// Blocks whose loads one warp issues before their first use (software unrolling of the block
/// loops; not in the paper). Measured on an H200: 2 for large matrices (fewer registers, more
/// resident warps: stencils and banded 5-15 % faster than with 4); 4 for small ones, whose
/// time is the latency of their longest warp, and for any matrix whose x stays in L1
/// (kDaspL1ResidentXBytes; fp16 pruned weights with 16 k columns ran 25 % faster with 4).
inline constexpr int kDaspBlocksInFlightLarge = 2;
inline constexpr int kDaspBlocksInFlightSmall = 4;
inline constexpr std::int64_t kDaspL1ResidentXBytes = 64 * 1024;

/// Blocks in flight where the long rows set the kernel's time: a layout with long rows (most
/// with one medium row-block a warp: heavy-tailed rows, circuit, power-law, R-MAT) whose stored
/// values and columns take at most kDaspLongRowsCriticalMaxBytes. There a warp walking a
/// long-row task (up to 64 blocks) is the last to finish, and more loads in flight shorten it
/// more than the registers they take (fp64 40 -> 64) cost. Measured on an H100, each against 2
/// in the same run (bench/results/2026-11-26-1200-h100-dasp-long-rows-in-flight/): circuit-like
/// 682 k rows (2.7 M nonzeros, 32 MB) fp64 43.6 -> 34.4 us, fp16 37.4 -> 29.6; power law 200 k
/// rows (1.9 M, 22 MB) fp64 29.0 -> 24.2, fp16 28.3 -> 21.7; mip1-like (8.6 M) fp16 (52 MB)
/// 42.2 -> 29.0, but fp64 (104 MB) 57.6 -> 59.2; circuit-like 4 M rows (16 M, 97-194 MB) 3-4 %
/// slower; R-MAT 20 and 22 within 3 %. Also where a warp takes several medium row-blocks (H200,
/// bench/results/2026-12-02-1730-h200-dasp-graph-blocks-in-flight/, run 452, 4 against 2 on
/// such layouts of at most 64 MiB): case9 replicated 20 times fp64 1.52x faster, 60 times fp16
/// 1.57x, R-MAT 20 with 3 edges fp64 1.03x, rmat_19_sparse fp64 0.98x; above the bound case9
/// x60 fp64 (107 MiB) 1.14x but x120 (214 MiB) 0.79x / 0.88x. Run 453 (4 held out): case9 x10
/// / x20 / x30 fp64 1.10x / 1.03x / 0.71x -> 1.39x / 1.54x / 1.22x cuSPARSE, x60 fp16 0.92x ->
/// 1.46x.
inline constexpr int kDaspLongRowsCriticalBlocksInFlight = 4;
inline constexpr std::int64_t kDaspLongRowsCriticalMaxBytes = std::int64_t{64} << 20;

/// Graphs (R-MAT, Kronecker: hubs, and most vertices without out-edges) with one medium
/// row-block a warp keep their long rows critical up to kDaspGraphLongRowsCriticalMaxBytes in
/// fp64 when at least kDaspGraphMinEmptyRowShare of their rows are empty and y is written in
/// the caller's order.
/// Measured on an H200 (bench/results/2026-12-02-1730-h200-dasp-graph-blocks-in-flight/, run
/// 444, fp64, blocks_in_flight=4 against the 2 the size bound gave, two passes): R-MAT 20 with
/// 6 edges a vertex (75 MiB, 61 % rows empty) 1.18x faster, R-MAT 21 with 3 / 4 / 5 edges (75 /
/// 101 / 126 MiB, 65-71 % empty) 1.16x / 1.06x / 1.02x, R-MAT 20 with 8 (99 MiB) 1.02x,
/// Kronecker-like 18 with 48 edges (134 MiB, 28 % empty) 1.08x; but the heavy tails without
/// empty rows lost: rajat01 replicated 150 / 200 times (93 / 124 MiB) 0.80x / 0.77x, power-law
/// rows of 1.5-2 M rows (95-127 MiB) 0.94-0.99x, mip1-like 0.99x; and the graphs whose y is in
/// the plan's order inside the apply (row_order internal / internal_y) 0.97-1.00x. In fp16 the
/// same graphs above 64 MiB ran 0.89-1.11x (run 436), so the rule is fp64's. The bound: with it
/// at 160 MiB (run 445, held-out graphs) R-MAT 21 with 6 edges (150 MiB) ran 0.985x as fast as
/// with 2 blocks, R-MAT 21 with 5 (126 MiB) 1.02x, Kronecker-like 18 (134 MiB) 1.07x; at 144
/// MiB (run 448) the seven matrices of that run that the rule changes 1.002x -> 1.072x cuSPARSE
/// (geomean; min 1.015x, a power-law matrix with half its rows empty, 1.022x with 2 blocks).
inline constexpr double kDaspGraphMinEmptyRowShare = 0.25;
inline constexpr std::int64_t kDaspGraphLongRowsCriticalMaxBytes = std::int64_t{144} << 20;

/// A medium row-block distribution is heavy-tailed when its largest row-block has more than
/// this many times the average regular blocks (power-law and R-MAT rows): then one row-block a
/// warp balances best (measured: R-MAT 1.15x, power-law rows 1.09x faster than 2 a warp).
inline constexpr double kDaspHeavyTailRatio = 4.0;

/// Row-blocks of at most this many regular blocks on average count as one-block row-blocks
/// (5-point stencils), which run best with the paper's 4 row-blocks a warp; others with at most
/// 2 (27-point stencil, banded, cage11: 10-15 % faster than with 4).
inline constexpr double kDaspOneBlockRowBlocks = 1.5;

/// At least this many short-row tiles: tiles are ordered by row rather than by piecing kind, so
/// that the warps running at one time write nearby rows of y (whole 32-byte sectors).
inline constexpr std::int64_t kDaspShortTilesByRowMin = 4096;

/// short_y staged: a thread block of short tiles ordered by row stages the y of its rows in
/// [first row, first row + this) in shared memory (StagedShortY in dasp_kernels.cuh) and stores
/// them in order. 8 tiles of 32 rows of 1-4 values span about 400 rows; 1024 slots (8 KiB fp64,
/// 4 KiB fp16 / bf16 sums) held 88 % of the rows of 4 M rows of 1-4 values when the 1+3 pairs
/// were formed over the whole matrix (the rest: those tiles' far halves; now paired within
/// windows, kDaspShortPairWindow). Not in the paper.
inline constexpr int kDaspStagedShortRows = 1024;

/// short_y=auto stages y (kDaspStagedShortRows) in fp64 layouts of short rows only, tiles by
/// row, of at least this many rows. Measured (H200, run 274, against short_y=direct): fp64 4 M
/// rows of 1-4 values 113.8 -> 111.3 us (1.022x; L2 write operations 4.1 M -> 2.8 M),
/// short_rows_5m 1.011x, 2 M rows of 0-4 1.009x; but short_rows_200k 0.94x (fp64) / 0.87x
/// (fp16), and fp16 0.97-0.985x on the large ones.
inline constexpr std::int64_t kDaspStagedShortMinRows = std::int64_t{1} << 20;

/// Rows of 1 value are paired with rows of 3 (one 1+3 tile slot, §3.2) inside windows of this
/// many consecutive caller rows (DaspParameters::short_pair_window) once the matrix has at least
/// kDaspWindowedMinRows rows; the paper pairs the k-th 1-row with the k-th 3-row of the whole
/// matrix. Where 1s and 3s are mixed at random, those drift apart as a random walk: at 4 M rows
/// of 1-4 values, 54 % of the staged thread blocks (kDaspStagedShortRows) spanned more than 1024
/// rows, and their far halves were stored outside the staged window. Inside a window the k-th
/// 1 and 3 lie a few dozen rows apart; each window's unpaired rows (3.5 % of the 1s and 3s
/// there) go to the rows of 4 (3s, one padding value each) and the single values (1s).
/// Measured (H200, run 279, fp64 against short_pair_window=off): 4 M rows of 1-4 values 111.5 ->
/// 109.0 us (with windows of 4096, L2 write requests 1.03 M -> 0.76 M), 4 M rows of 1-3 1.024x,
/// 2 M rows of 0-4
/// 1.035x; fp16 1.009-1.016x. Windows of 256, 4096 and 16384 rows: within 2 % of 1024.
/// Not in the paper.
inline constexpr std::int64_t kDaspShortPairWindow = 1024;

/// Medium rows are sorted by length inside windows of this many consecutive caller rows
/// (DaspParameters::medium_row_window) once the matrix has at least kDaspWindowedMinRows rows;
/// the paper sorts them over the whole matrix. A row-block of 8 globally sorted rows writes 8
/// values of y to 8 scattered 32-byte sectors: the L2 merges the partial sectors only if their
/// other rows are written before they are evicted, and a partial sector evicted costs a read of
/// the sector and a write. Within a window, the warps that run at one time (about 8 k on an
/// H100) hold every medium row of their windows, so y is written in whole sectors. Measured on
/// an H100 (ncu, fp64, 4 M x 4 M, rows of 4-12 random columns): globally sorted 544 us, 1.21 GB
/// read and 108 MB written; y in the sorted order (row_order=plan) 416 us, 0.94 GB and 33 MB;
/// cuSPARSE 404 us.
/// Only where a warp takes several row-blocks: one row-block a warp (heavy-tailed lengths, dense
/// long rows) may split row-blocks over warps, and the split ones must lead the sorted order; and
/// there windows measured slower (H100 fp64: R-MAT 20 1.13x -> 0.99x cuSPARSE, power-law rows
/// 2 M 0.95x -> 0.86x: row-blocks of a window mix lengths a heavy tail spreads apart).
inline constexpr std::int64_t kDaspMediumRowWindow = 4096;
inline constexpr std::int64_t kDaspWindowedMinRows = std::int64_t{1} << 20;

/// Rows of exactly kDaspMaxShortRowLength values join the medium rows (as row-blocks of full 4-wide
/// blocks: no padding) when the windowed sort applies (kDaspWindowedMinRows rows, windows not off)
/// and the medium rows outnumber the rows of 1-3 values by this factor: then every row of a
/// window is written by the warps of the medium part at one time, and no sector of y is shared
/// with the short part, which runs later (rows of 4-12 values: a ninth of the rows have 4).
/// Matrices of mostly short rows keep them in the short tiles, which are ordered by row.
inline constexpr double kDaspFourValueRowsMediumRatio = 4.0;

/// The CSR (columns, values, row offsets) is uploaded beside the host index build from this size
/// on (below it a worker thread costs more than it hides).
inline constexpr std::size_t kDaspOverlappedUploadMinBytes = std::size_t{4} << 20;
/// Of the host's OpenMP threads, this share copies into the staging ring while the rest build
/// the index arrays (at least one each). Chosen with tcsparse_upload_probe (src/dasp/README.md).
inline constexpr double kDaspOverlappedUploadCopyShare = 0.5;

/// Settings of one DASP layout and its kernels. Defaults are the paper's.
struct DaspParameters {
  /// 0 = by size: below kDaspSmallMatrixNnz nonzeros one of kDaspSmallMatrixMaxMediumRowLengths,
  /// kDaspFewMediumRowsMaxMediumRowLength where long rows outnumber medium ones, below
  /// kDaspMidMatrixNnz kDaspMidMatrixMaxMediumRowLength where it pads little (fp64; fp16 / bf16
  /// with rows of at most kDaspMidMatrixSparseRowsMaxMean values on average)
  /// (resolve_max_medium_row_length), else the paper's kDaspMaxMediumRowLength.
  int max_medium_row_length = 0;
  /// < 0 = auto: kDaspRegularBlockMinFill, or 0 where kDaspAllRegularMaxGrowth allows (fp64).
  double regular_block_min_fill = -1.0;
  /// 0 = chosen from the medium row count as §3.3.2 says; else 8, 16 or 32.
  int medium_rows_per_warp = 0;
  /// 0 = kDaspLongGroupsPerWarp, or kDaspSmallMatrixLongGroupsPerWarp for a small matrix with a
  /// few very long rows, or kDaspMidMatrixLongGroupsPerWarp for an fp64 mid-size matrix with a row
  /// longer than one task; else 1.. groups.
  int long_groups_per_warp = 0;
  /// Blocks of one medium row-block a warp takes when a warp takes one row-block: a longer
  /// row-block is split over several warps (pieces with a ticket reduction). 0 = never split
  /// (measured: splitting did not pay on average, the fence and ticket cost more than the
  /// parallelism gained).
  int medium_blocks_per_warp = 0;
  /// 1, 2 or 4; 0 = by the size of the matrix and of x (kDaspBlocksInFlightLarge / Small).
  int blocks_in_flight = 0;
  /// 1: the next batch of blocks is loaded while the current one's x is gathered; 0: not;
  /// -1 = auto (measured: only large fp16 / bf16 matrices gain from it).
  int pipelined_loads = -1;
  /// Order of the short-row tiles among the warps: 0 = auto (by row from
  /// kDaspShortTilesByRowMin tiles), 1 = by piecing kind (the paper's), 2 = by row.
  int short_tile_order = 0;
  /// How the short tiles' y is stored in layouts of short rows only whose tiles are ordered by
  /// row: 0 = auto (staged from kDaspStagedShortMinRows rows in fp64), 1 = "direct" (one row a
  /// lane as the tile computes it; every other layout), 2 = "staged" (a thread block at a time,
  /// kDaspStagedShortRows).
  int short_y = 0;
  /// Where the value and column arrays are filled: on the GPU from the uploaded CSR (the host
  /// builds only the index arrays), or on the host ("fill=host", then uploaded).
  bool fill_on_device = true;
  /// fp64 block storage: 0 = auto (kDaspColumnMajorMinTailBlockShare), 1 = row-major,
  /// 2 = column-major.
  int fp64_block_order = 0;
  /// y (and, for a square matrix, x) in the plan's row order (dasp_plan_row_order): the rows in
  /// the order the kernel's warps write them, so y is written in whole sectors and never
  /// scattered back to the caller's order; SpmvPlan::permute / unpermute convert vectors.
  /// false: the caller's order ("row_order=caller"), or "internal" below.
  bool plan_row_order = false;
  /// "row_order=auto" (the default): "caller", or "internal" where internal_row_order_pays.
  bool row_order_auto = true;
  /// "row_order=internal": the layout in the plan's row order as above, the vectors in the
  /// caller's: each apply gathers x into the plan's order (square matrices), runs the kernel on
  /// the plan's own copies of x and y, and gathers y back (plus a gather of y in when beta != 0).
  /// For graphs whose rows and columns share their hubs, where the renumbered columns gather x
  /// from a few hot sectors (kDaspInternalOrderMinLongColumnShare). Not in the paper.
  bool internal_row_order = false;
  /// "row_order=internal_y": only y in the plan's row order inside the apply. The layout's row
  /// ids are the plan's (its columns stay the caller's, so x is read as given); the kernel
  /// writes alpha * A x of the rows with values, in the plan's order, into the plan's own
  /// vector (whole sectors, no warps for empty rows), and one pass moves it to the caller's
  /// order (internal_y_pass_kernel: y[c] = its row's value + beta * y[c], beta * y[c] for empty
  /// rows), reading y and writing it in whole sectors. For large matrices whose caller-order y
  /// the length sort scatters (kDaspInternalYMinRows). In fp16 / bf16 with beta != 0, y's rows
  /// with values are gathered into the plan's vector first and the kernel adds beta * y (a
  /// 16-bit plan's y would otherwise round alpha * A x before that sum). In every precision y
  /// is the caller order's bit for bit. Not in the paper.
  bool internal_y_row_order = false;
  /// Medium rows sorted by length inside windows of this many caller rows: 0 = auto
  /// (kDaspMediumRowWindow from kDaspWindowedMinRows rows, else the whole matrix), -1 = the whole
  /// matrix (the paper's), else the window.
  std::int64_t medium_row_window = 0;
  /// Rows of 1 and of 3 values paired inside windows of this many caller rows: 0 = auto
  /// (kDaspShortPairWindow from kDaspWindowedMinRows rows, else the whole matrix), -1 = the whole
  /// matrix (the paper's: the k-th 1 with the k-th 3), else the window.
  std::int64_t short_pair_window = 0;
  /// The order of the medium rows inside a window where every medium value is in a regular
  /// block (regular_block_min_fill 0): 0 = auto, 1 = by length (the paper's sort), 2 = by block
  /// width (length rounded up to the block's columns), descending, then by caller row
  /// (order_windows_by_width).
  int medium_row_order = 0;
  /// The shortest medium row: 0 = auto (4 by kDaspFourValueRowsMediumRatio, else 5), 4 or 5
  /// (the paper's: rows of 4 are short rows).
  int medium_min_row_length = 0;
  /// With the device fill, the CSR is uploaded after the host builds the index arrays
  /// ("upload=after", the default: measured faster on 4 of 10 large matrices by 10-20 ms and
  /// slower on 6 by 2-5 ms, src/dasp/README.md), or on a worker thread while they are built
  /// ("upload=overlapped", from kDaspOverlappedUploadMinBytes of CSR). The same layout either way.
  bool overlapped_upload = false;
  /// Where the index arrays are built: on the GPU from the uploaded CSR, which is checked there
  /// ("build=device", the default: dasp_device_build.hpp), or on the host ("build=host", the
  /// model the device build reproduces; fill and upload choose how its values reach the GPU).
  bool build_on_device = true;
  /// "kernel_parts=all": the kernel with code for every part of a layout (as before run 265)
  /// whatever the layout has; "auto" (false): kernel_parts (dasp_kernel_table.cuh) picks the one
  /// with code only for the parts the layout has, where that measured faster.
  bool kernel_parts_all = false;

  /// "key=value,key=value" with every key, for reports.
  std::string to_string() const;
};

/// How the work of a layout is divided among warps.
struct DaspWorkSplit {
  int long_groups_per_warp = kDaspLongGroupsPerWarp;
  int medium_blocks_per_warp = 1 << 30;  ///< "never split"
  friend bool operator==(const DaspWorkSplit&, const DaspWorkSplit&) = default;
};

/// The split: explicit parameters, else kDaspLongGroupsPerWarp and no medium pieces.
DaspWorkSplit resolve_work_split(const DaspParameters& parameters);

/// The kernel's loop shape for a matrix of `nnz` nonzeros whose x takes `x_bytes`;
/// `dense_long_rows`: the layout took the dense-long-rows rule (kDaspDenseRowsBlocksInFlight);
/// `long_rows_critical`: its long rows set the kernel's time (long_rows_are_critical,
/// kDaspLongRowsCriticalBlocksInFlight).
struct DaspLoopShape {
  int blocks_in_flight = kDaspBlocksInFlightLarge;
  bool pipelined_loads = false;
};
DaspLoopShape resolve_loop_shape(const DaspParameters& parameters, std::int64_t nnz,
                                 std::int64_t x_bytes, bool fp64, bool dense_long_rows = false,
                                 bool long_rows_critical = false);

/// DASP's parameter schema (the registry's MethodDescriptor::parameters), in a fixed order.
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values (detail::check_parameter_values against parameter_specs()).
DaspParameters dasp_parameters(const detail::ParameterValues& values);

/// Checks "key=value" strings against parameter_specs() and returns the parameters. An unknown
/// key, a missing '=' or a value out of range throws ParameterError naming it.
DaspParameters parse_parameters(const std::vector<std::string>& key_values);

/// The medium rows one warp computes, or the explicit setting; a multiple of `block_rows`, at
/// most 32. At most the paper's 8 * LOOP_NUM for `medium_rows` medium rows (§3.3.2); of
/// `row_blocks` row-blocks holding `regular_blocks` regular blocks, the largest
/// `largest_row_block` of them: one row-block a warp when heavy-tailed (kDaspHeavyTailRatio),
/// up to 4 for one-block row-blocks (kDaspOneBlockRowBlocks), else up to 2.
/// The shortest medium row (DaspParameters::medium_min_row_length) of a matrix of `rows` rows,
/// `rows_1_to_3` of them with 1-3 values and `rows_5_up` with 5..MAX_LEN.
int resolve_medium_min_row_length(const DaspParameters& parameters, std::int64_t rows,
                                  std::int64_t rows_1_to_3, std::int64_t rows_5_up);

/// The window of medium rows (DaspParameters::medium_row_window) for a matrix of `rows` rows;
/// 0 means the whole matrix.
std::int64_t resolve_medium_row_window(const DaspParameters& parameters, std::int64_t rows);

/// row_order=auto takes "internal" (the plan's row order inside each apply, x and y gathered in
/// and out) for square matrices built on the GPU of at least kDaspInternalOrderMinRows rows and
/// kDaspInternalOrderMinNnzPerRow nonzeros a row on average, where at least
/// kDaspInternalOrderMinLongColumnShare of the nonzeros lie in the columns of long rows (column c
/// where row c has more than MAX_LEN values): the hubs of R-MAT / Kronecker graphs, whose rows
/// and columns the plan's order puts first, so that x is gathered from a few hot sectors. Shares
/// measured (generated, MAX_LEN 256): R-MAT 20 / 22 (16 edges a vertex) 0.44 / 0.55, R-MAT 20
/// with 48 edges 0.63; power-law rows with random columns 0.001-0.004; uniform rows, stencils,
/// short rows 0. Measured (H200, run 282, fp64 / fp16, internal over caller order): R-MAT 22
/// 1.12x / 1.32x, 23 1.25x / 1.24x, 24 1.41x / 1.13x, R-MAT 20 with 48 edges 1.14x / 1.55x, 21
/// 1.06x / 1.39x, R-MAT 20 with 16 1.03x; where the share is low it loses: uniform rows
/// 0.88-0.97x, power-law rows 1.00x, circuit-like 0.83-0.91x, short rows, stencils and cage11
/// 0.5-0.8x (the gathers of x and y cost more than they save). Smaller graphs (run 285): R-MAT
/// 19 (2^19 rows) 1.05x / 1.36x, with 48 edges 1.10x / 1.57x; R-MAT 18 0.97x / 0.99x (48 edges
/// 1.01x / 1.23x), R-MAT 16-17 0.63-0.77x: hence from 2^19 rows. Not in the paper.
inline constexpr double kDaspInternalOrderMinLongColumnShare = 0.25;
inline constexpr double kDaspInternalOrderMinNnzPerRow = 8.0;
inline constexpr std::int64_t kDaspInternalOrderMinRows = std::int64_t{1} << 19;

/// Whether row_order=auto measures the share of nonzeros in long rows' columns (a kernel over
/// the nonzeros at plan time): square matrices of the size kDaspInternalOrderMinLongColumnShare
/// asks for.
bool internal_row_order_considered(const DaspParameters& parameters, std::int64_t rows,
                                   std::int64_t cols, std::int64_t nnz);
/// Whether the plan takes row_order=internal: asked for, or (auto) considered and the share of
/// nonzeros in long rows' columns at least kDaspInternalOrderMinLongColumnShare.
bool internal_row_order_pays(const DaspParameters& parameters, std::int64_t rows,
                             std::int64_t cols, std::int64_t nnz, double long_column_share);

/// row_order=auto takes "internal_y" (only y in the plan's order inside each apply, moved to the
/// caller's order by one pass; internal, where it pays, comes first) for fp64 matrices of at
/// least kDaspInternalYMinRows rows whose medium rows are sorted by length over the whole matrix
/// a row-block a warp (heavy-tailed rows: no windows of medium rows), where the caller-order
/// stores of y land one sector a row all over y. Measured (H200, run 442, fp64, internal_y over
/// caller order, the same layout): R-MAT 22 / 23 / 24 with 2 edges a vertex 1.20x / 1.30x /
/// 1.32x (0.85x / 0.81x / 0.81x cuSPARSE -> 1.02x / 1.05x / 1.07x; 77-79 % of the rows empty,
/// which get no warps), R-MAT 22 with 4 1.17x, power-law rows on 3-16 M rows 1.02-1.05x, 3 M x
/// 2 M power-law rows with 57 % empty 1.04x, the rajat01 replica x463 1.02x; smaller matrices of
/// that kind lose the pass and its launch (2 M rows 0.94-0.97x, R-MAT 20 0.87-0.97x), and so do
/// layouts whose y is already stored in runs (medium rows in windows: uniform rows and stencils
/// 0.80-0.94x; short rows with staged y 0.78-0.82x). In fp16 / bf16 it pays only on R-MAT graphs
/// of 2 edges a vertex (1.01-1.12x) and power-law rows on 16 M rows (1.03x; on 3-4 M rows
/// 0.90-0.98x, R-MAT 22 with 4 0.94x): not taken there. Run 443 (auto, held-out matrices too):
/// R-MAT 23 with 3 edges 0.82x -> 1.02x cuSPARSE, power-law rows on 6 M rows 0.95x -> 0.98x, on
/// 2.6 M rows 0.948x -> 0.941x. Not in the paper.
inline constexpr std::int64_t kDaspInternalYMinRows = 2'500'000;

/// Whether the plan takes row_order=internal_y: asked for, or (auto) an fp64 matrix
/// (`value_bytes` 8) of at least kDaspInternalYMinRows rows with medium rows sorted over the
/// whole matrix (`medium_row_window` 0) one row-block a warp (`rowblocks_per_unit` 1).
bool internal_y_row_order_pays(const DaspParameters& parameters, int value_bytes,
                               std::int64_t rows, std::int64_t medium_rows,
                               std::int64_t medium_row_window, std::int64_t rowblocks_per_unit);

/// The window of the 1+3 pairs (DaspParameters::short_pair_window) for a matrix of `rows` rows;
/// 0 means the whole matrix.
std::int64_t resolve_short_pair_window(const DaspParameters& parameters, std::int64_t rows);

int resolve_medium_rows_per_warp(const DaspParameters& parameters, std::int64_t medium_rows,
                                 int block_rows, std::int64_t row_blocks = 0,
                                 std::int64_t regular_blocks = 0,
                                 std::int64_t largest_row_block = 0);

}  // namespace tcsparse::dasp
