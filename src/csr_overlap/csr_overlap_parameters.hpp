// CSR-Partial-Overlap (Electronics 2023) parameters: the constants the paper fixes, each named for
// what it means with the section that set it, and the "key=value" parameters that override them
// (for experiments with `tcsparse bench --variant`).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "csr_overlap/csr_overlap_rules.hpp"
#include "plan/parameters.hpp"

namespace tcsparse::csr_overlap {

/// max_batch_size (§4.1.1, §4.1.2): nonzeros a batch holds at most; longer rows are extra-long
/// rows (§4.3). The paper states no value, only that batches are even "when max_batch_size is
/// larger than 1024" and that a stage holds max_batch_size x (sizeof value + 4) bytes (48 KB of
/// shared memory on its A40). 1024 with a block a batch (kDefaultBatchesPerBlock): one fp64
/// stage is 1056 x 12 B = 12.4 KiB, so shared memory would let 18 blocks of 128 threads share a
/// Hopper SM; registers allow eight (twelve with register_bound). Measured on an H100 against
/// 512 / 2048 and the paper's one wave of pipelined blocks (README).
inline constexpr std::int32_t kDefaultMaxBatchSize = 1024;

/// Switch points of the vector size (Table 2, §5.2, measured on an A40 in fp32 with random
/// matrices): a batch whose mean row length is in [0, 17) takes vector size 1, [17, 34) 2,
/// [34, 64) 4, [64, 122) 8, [122, 216) 16, [216, inf) 32. SWITCH_POINT_1 .. SWITCH_POINT_16 of
/// Alg. 6. To be re-measured on an H200 (`tcsparse bench --variant vs4:vector_size=4 ...`).
inline constexpr std::array<std::int32_t, kSwitchPoints> kPaperSwitchPoints = {17, 34, 64, 122,
                                                                                216};

/// Threads per block. The paper (§4.1.2) sets T to the CUDA cores of one SM (128 on its A40 and
/// on Hopper): 128, measured on an H100 against 64 and 256 with a block a batch (README).
inline constexpr int kDefaultThreadsPerBlock = 128;

/// Threads of a long-row block for 16-bit values (long_row_threads=auto; fp32 and fp64 take
/// threads_per_block). Measured on an H200 (README "Long-row blocks", run 175, against blocks
/// of 128 on nine matrices whose rows are all long: pruned_16k, 20 k rows of 1000 and seven
/// pruned LLM weights of 4096-14336 rows): blocks of 64 ran 1.026x (fp16) and 1.034x (bf16) as
/// fast in geometric mean (0.96-1.08x), pruned_16k 1.006x -> 1.038x cuSPARSE in fp16 and 1.002x
/// -> 1.069x in bf16 (run 176: 1.004x -> 1.051x, 1.006x -> 1.045x); 256 and 512 lost (0.90x,
/// 0.68x); fp32 even (0.998x) and fp64 slower (0.981x) with 64.
inline constexpr int kSixteenBitLongRowThreads = 64;

/// Nonzeros of a long row one block takes (a "piece"; a row of fewer than twice as many stays
/// whole, long_row_pieces); longer rows are spread over several blocks whose partial sums a
/// second kernel adds in order (deterministic). The paper (Alg. 9) gives a whole row to one
/// block. long_row_piece=auto takes kLargeMatrixLongRowPiece for a matrix of
/// kLargeMatrixLongRowPieceMinNonzeros or more whose mean row length is at most max_batch_size,
/// and this otherwise (csr_full_overlap this always): a small matrix's few long rows fill no wave
/// either way, a matrix of mostly long rows has pieces enough for many waves, and whole rows
/// spare both the combine kernel's launch.
inline constexpr std::int32_t kDefaultLongRowPiece = 8192;

/// long_row_piece=auto for a matrix of kLargeMatrixLongRowPieceMinNonzeros or more with mostly
/// short rows (H200, README "Long rows in pieces"): R-MAT scale 20 fp64 0.74-0.79x -> 0.83x
/// cuSPARSE and power-law rows at 2 M 0.79x -> 0.86x against 8192, whose few pieces left most of
/// the long-row kernel's wave idle (a block of 128 threads walking 64 nonzeros a thread, 4 at a
/// time). Elsewhere pieces of 1024 lost: below 2^20 nonzeros (rmat_15 fp16 0.79-0.82x -> 0.72x)
/// and on pruned_16k, whose 16 k rows (mean 1636) are all long (2-3 %: 2585 rows of 2048 or more
/// split in two, and the combine kernel launched for them).
inline constexpr std::int32_t kLargeMatrixLongRowPiece = 1024;
inline constexpr std::int64_t kLargeMatrixLongRowPieceMinNonzeros = std::int64_t{1} << 20;

/// Pipeline stages of the batch kernel (shared-memory buffers; the copies of stages - 1 batches
/// are in flight while one is computed). The paper (§4.1.2) has two, with one wave of resident
/// blocks each walking a chunk of batches. Measured on an H100 (README): a block a batch with one
/// stage is faster, the copy of one block's batch overlapping the other resident blocks' work
/// (eight an SM) instead of its own next batch. 2..4 remain for batches_per_block > 1.
inline constexpr int kDefaultPipelineStages = 1;

/// Batches a block takes in order (0: one wave of resident blocks share them, the paper's
/// §4.1.2). 1: a block a batch, see kDefaultPipelineStages.
inline constexpr std::int32_t kDefaultBatchesPerBlock = 1;
inline constexpr int kLargestPipelineStages = 4;

/// row_threads_max (deviation 1, not in the paper): a batch of few long-ish rows (the one-row
/// batches of rows between M / 2 and M, power-law rows next to long rows) would leave most of the
/// block idle with one vector a row; its rows get up to this many threads each instead (a group
/// of warps a row above 32, warp sums added in order through shared memory). 0: off. Default
/// the whole block (stored as 1 << 30, clamped to threads_per_block). Not measured yet.
inline constexpr std::int32_t kRowThreadsBlock = 1 << 30;

/// warp_row_factor K (deviation 2, not in the paper): in a batch of vector size vs < 32 a row of
/// more than K * vs nonzeros (more than K loop trips of its vector, several times the batch's
/// mean) is left by its vector and taken by a whole warp after the vector pass, so one power-law
/// row no longer serialises a batch of short rows. 32: a batch of M = 2048 has ~4-8 products a
/// thread, so such a row would take 4x that or more. 0: off. Not measured yet.
inline constexpr std::int32_t kDefaultWarpRowFactor = 32;

/// Largest max_batch_size accepted by the schema (a plan also checks the device's shared memory).
inline constexpr std::int32_t kLargestMaxBatchSize = 1 << 16;

/// register_bound (not in the paper): blocks of at most kRegisterBoundThreads threads run the
/// batch kernel built for kRegisterBoundBlocks resident blocks an SM: 12 x 128 threads = 1536 of
/// Hopper's 2048, at most 40 registers a thread, against 64 (half the SM's threads) for the build
/// that takes any block size. The profile that asked for it (H100, fp64, 3D 27-point stencil,
/// blocks of 128): 63 registers, 50 % occupancy, ~20 cycles between a warp's instructions.
/// Off by default until measured (the measured defaults ran the 64-register build).
inline constexpr int kRegisterBoundThreads = 128;
inline constexpr int kRegisterBoundBlocks = 12;

/// How the batch kernel copies a batch's values and column indices from global into shared
/// memory (paper §4.1.2 double-buffers with cp.async; issue 9 asks for the sm_90 bulk copy too):
///  - cp_async: every thread of the block copies 16-byte pieces (cp.async.cg), committed as one
///    group a batch and waited for with cp.async.wait_group;
///  - bulk: one thread starts two bulk copies (the TMA unit, one-dimensional: values, columns)
///    that complete on the stage's mbarrier, on which every thread waits. sm_90 and later only.
///  - direct (batch_unit=warp, one stage; not in the paper): no copy of values and columns; the
///    warp reads them from global memory straight into the products it computes (coalesced,
///    kDirectProductsInFlight a lane in flight) and keeps only the products and the batch's row
///    offsets in shared memory (fp64: 4.8 KiB a warp against a cp_async stage's 7.4 KiB).
enum class CopyMechanism { cp_async, bulk, direct };

/// copy=auto. cp_async until the two are measured against each other on an H100 / H200
/// (README: `tcsparse bench ... --variant bulk:copy=bulk`).
inline constexpr CopyMechanism kDefaultCopy = CopyMechanism::cp_async;

/// Who takes a batch (batch_unit=...):
///  - block: a thread block (the paper, §4.1.2): the block copies the batch into its stage, one
///    __syncthreads, the block computes it (a warp-pass list and row groups of several warps);
///  - warp: a warp, with its own pipeline_stages stages (values, columns and the batch's row
///    offsets, all copied with cp.async): the copies of its next batches run while it computes
///    the current one, synchronised by __syncwarp only; one wave of blocks, warp g of the grid
///    taking batches g, g + warps, ... Not in the paper.
enum class BatchUnit { block, warp };

/// The unit a plan takes without a matrix to look at (and csr_full_overlap's batch kernel).
inline constexpr BatchUnit kDefaultBatchUnit = BatchUnit::block;

/// batch_unit=auto on a matrix: warps where its mean row length is at least
/// kWarpUnitMinMeanRowLength and it has at least kWarpUnitMinNonzeros nonzeros, else blocks.
/// Measured (README, "A warp a batch"): on the default suite's matrices of 12-27 M nonzeros
/// (H100) warps gain on every class of mean 5 and more (2D / 3D stencils, banded, uniform rows,
/// long rows: fp64 0.93 -> 1.11x, 0.65 -> 0.83x, 0.80 -> 1.06x cuSPARSE) and lose on rows of 1-4
/// nonzeros (fp64 0.92 -> 0.62x), whose warp batches hold few nonzeros for their per-batch work;
/// on the 490 real matrices of under 1 M nonzeros (H200) they lose 2-18 % (fewer batches than
/// a wave of warps: each warp's serial per-batch work is the time).
inline constexpr double kWarpUnitMinMeanRowLength = 4.0;
inline constexpr std::int64_t kWarpUnitMinNonzeros = std::int64_t{1} << 20;

/// batch_unit=auto with copy=auto (and one pipeline stage) on a matrix of at least
/// kWarpUnitMinNonzeros nonzeros, whatever its mean row length: warps with copy=direct. Measured
/// (H200, README "Direct reads"): on the default suite's nine matrices of 12-27 M nonzeros
/// fp64 0.86x -> 0.97x cuSPARSE (geomean), fp32 0.86x -> 0.89x, fp16 / bf16 0.86x -> 0.92x,
/// and rows of 1-4 nonzeros no longer lose with warps (short_rows_5m fp32 0.80x -> 0.99x).
inline constexpr std::int64_t kDirectWarpMinNonzeros = kWarpUnitMinNonzeros;

/// max_batch_size and max_batch_rows of a warp batch (auto): 512 nonzeros, 16 a lane, and 256
/// rows. One stage of fp64 is then 544 x 12 + 264 x 4 bytes = 7.4 KiB, so seven blocks of four
/// warps fit an SM's 228 KiB; measured against M = 1024, R = 64 / 128 and two stages (README).
inline constexpr std::int32_t kWarpDefaultMaxBatchSize = 512;
inline constexpr std::int32_t kWarpDefaultMaxBatchRows = 256;
/// max_batch_rows of a direct warp batch (copy=direct, auto): 128. Measured against 256 on the
/// default suite's nine matrices of 12-27 M nonzeros (H200, README "Direct reads"): fp64 0.956x
/// -> 0.981x cuSPARSE (short_rows_5m 0.83x -> 0.99x, banded_2m 0.99x -> 1.08x), fp32 0.908x ->
/// 0.906x.
inline constexpr std::int32_t kDirectDefaultMaxBatchRows = 128;

/// max_batch_size and max_batch_rows of a direct warp batch (auto) whose products take at most
/// kDirectWideMaxProductBytes (fp32, and fp16 / bf16 with fp32 products) on a matrix whose rows
/// hold kDirectWideMinMeanRowLength to kDirectWideMaxMeanRowLength nonzeros on average: 1024 and
/// 256, twice the batch of 512 / 128, in as many registers and shared memory that still lets the
/// registers bound the SM (4.3 KiB a warp). Measured on an H200 (README "Direct reads", run 148,
/// default suite, two rounds, over cuSPARSE): fp32 stencil3d_100 0.83x -> 0.92x, banded_2m
/// 0.90x -> 1.01x, replica_cage11 0.86x -> 0.93x, stencil2d_2000 0.93x -> 1.04x; fp16 0.82x ->
/// 0.94x, 0.92x -> 1.09x, 0.86x -> 1.01x, 0.98x -> 1.18x; random_uniform_1m lost 3-4 % (fp32
/// 0.93x -> 0.89x). Rows of 2.5 (short_rows_5m: 0.99x -> 0.92x with 256 rows a batch) and of
/// 1000 or more (long_rows_20k 0.96x -> 0.90x, pruned_16k 1.05x -> 0.90x) keep 512 / 128. fp64's
/// 8-byte products fall off an occupancy cliff at 1024 (0.72x geomean, run 101 too).
inline constexpr std::int32_t kDirectWideMaxBatchSize = 1024;
inline constexpr std::int32_t kDirectWideMaxBatchRows = 256;
inline constexpr std::size_t kDirectWideMaxProductBytes = 4;
inline constexpr double kDirectWideMinMeanRowLength = 4.0;
inline constexpr double kDirectWideMaxMeanRowLength = 64.0;

/// batch_unit=auto takes warps only where a block's warp stages of fp64 fit this much shared
/// memory (the defaults need 30 KiB): parameters chosen for the block unit (a large
/// max_batch_size, deep pipelines, big blocks) would need several times a block's stage per warp.
inline constexpr std::size_t kWarpUnitMaxBlockSharedBytes = 96 * 1024;

/// How the matrix is cut into the kernels' work (partition=...):
///  - rows: the paper's dynamic batches of whole rows (§4.1.1), rows longer than a batch to the
///    long-row kernel (§4.3);
///  - merge_path: tiles of kMergeTileThreads x merge_items items of the merge path of row ends
///    and nonzeros (csr_overlap_rules.hpp, csr_overlap_merge_kernels.cuh), rows cut at any
///    nonzero and their pieces added by a second kernel. Not in the paper.
///  - row_vectors: no table at all: a warp's consecutive rows to its vectors of row_vector_size
///    lanes, each vector reading several rows' nonzeros straight from global memory at once
///    (csr_overlap_row_vector_kernels.cuh). For matrices whose rows are of even length. Not in
///    the paper (its vector sizes, Alg. 6, without its batches).
enum class Partition { rows, merge_path, row_vectors };

/// partition=auto takes merge_path for a matrix with long rows (more than max_batch_size
/// nonzeros), at most one in kMergePathRowsPerLongRow of its rows, when no parameter of the rows
/// partition is given; else rows. Measured on an H200 (README "Merge-path tiles"): such rows
/// leave the rows partition's long-row kernel a few pieces for a whole wave and cost it a second
/// and third launch, while merge tiles balance them with the rest (R-MAT scale 20 fp64 0.83x ->
/// 0.92x cuSPARSE, power-law rows 0.86x -> 0.94x); where every row is long, or none, the rows
/// partition is faster (stencils fp64 0.99x / 1.23x against 0.87x / 1.03x with merge tiles).
inline constexpr std::int64_t kMergePathRowsPerLongRow = 16;

/// Whether partition=auto takes merge_path for a matrix of `rows` rows, `long_rows` of them long.
constexpr bool merge_path_suits(std::int64_t rows, std::int64_t long_rows) {
  return long_rows > 0 && long_rows * kMergePathRowsPerLongRow <= rows;
}

/// partition=auto takes row_vectors (after merge_path_suits said no) for a matrix of at least
/// kRowVectorsMinNonzeros nonzeros whose longest row holds at most
/// kRowVectorsMaxLongestOverMean times its mean row length, and whose mean is at most
/// kRowVectorsMaxMeanRowLength: a warp's time is its longest row, so even rows keep its lanes
/// busy. Measured on an H200 (README "Row vectors", runs 161-165, the default suite's matrices
/// of 12-27 M nonzeros): 3D / 2D stencils, banded, uniform rows of 1-39, rows of 1-4, the cage11
/// replica and rows of 1000 gain over the batch kernels (fp64 stencil3d_100 0.99x -> 1.20x
/// cuSPARSE, fp32 0.92x -> 1.19x); R-MAT and power-law rows (longest / mean in the thousands)
/// run 3-6x slower as row vectors; pruned_16k's rows of 1640 (x of 16 K columns, in L1) run
/// faster on the long-row kernel (fp64 1.21x against 1.15x). Below 2^20 nonzeros not measured
/// yet: the batch kernels stay.
inline constexpr std::int64_t kRowVectorsMinNonzeros = std::int64_t{1} << 20;
inline constexpr std::int64_t kRowVectorsMaxLongestOverMean = 4;
inline constexpr std::int64_t kRowVectorsMaxMeanRowLength = 1024;

/// Whether partition=auto takes row_vectors for a matrix of `rows` rows, `nnz` nonzeros and a
/// longest row of `longest_row` (integer comparisons: longest / mean = longest * rows / nnz).
constexpr bool row_vectors_suit(std::int64_t rows, std::int64_t nnz, std::int64_t longest_row) {
  return rows > 0 && nnz >= kRowVectorsMinNonzeros &&
         nnz <= kRowVectorsMaxMeanRowLength * rows &&
         longest_row * rows <= kRowVectorsMaxLongestOverMean * nnz;
}

/// Column-locality samples of a matrix (csr_overlap_rules.hpp is_locality_sample; the GPU's
/// table totals or column_locality on the host). samples < 0: not known (an explicit
/// partition=row_vectors builds no table).
struct ColumnLocality {
  std::int64_t samples = 0;
  std::int64_t near = 0;
  /// Fewer than half the samples near: x is read at random (random columns, R-MAT, ...).
  constexpr bool scattered() const { return samples > 0 && 2 * near < samples; }
};

/// partition=auto takes merge tiles instead of row vectors (row_vectors_suit) where the columns
/// are scattered (ColumnLocality::scattered) and rows hold kScatteredMinMeanRowLength to
/// kScatteredMaxMeanRowLength nonzeros on average: x is then read at random, the L2's request
/// rate bounds both, and the tiles' aligned loads and rows written from shared memory take fewer
/// requests than vectors that each load and write their own rows. Measured on an H200 (README
/// "Fewer L2 requests", runs 168-169): random_uniform_1m (rows of 1-39) fp64 0.976x -> 1.000x
/// cuSPARSE, fp32 0.962x -> 1.002x, fp16 1.015x -> 1.039x, bf16 1.008x -> 1.040x; uniform random
/// rows of 4-12 at 4 M / 16 M rows fp64 0.84x / 0.88x as row vectors, 1.04x / 1.01x as merge
/// tiles. Before the tiles' aligned loads, row vectors of a row at a time in 4 steps were taken
/// there. Scattered rows of 1-4 (short_rows_5m) and of 1000 (long_rows_20k) keep row vectors.
inline constexpr double kScatteredMinMeanRowLength = 4;
inline constexpr double kScatteredMaxMeanRowLength = 64;

/// Whether partition=auto takes merge tiles for even rows (row_vectors_suit) of scattered
/// columns (see above).
constexpr bool scattered_rows_suit_merge_tiles(std::int64_t rows, std::int64_t nnz,
                                               ColumnLocality locality) {
  return locality.scattered() &&
         static_cast<double>(nnz) >= kScatteredMinMeanRowLength * static_cast<double>(rows) &&
         static_cast<double>(nnz) < kScatteredMaxMeanRowLength * static_cast<double>(rows);
}

/// A row-vector launch (partition=row_vectors): vectors of `vector_size` lanes (1..32), each
/// taking `rows` rows at a time and, per loop trip, `steps` of each row's nonzeros a lane, so a
/// lane has rows x steps products in flight (at most kRowVectorMaxProductsInFlight).
struct RowVectorShape {
  std::int32_t vector_size = 0;
  std::int32_t rows = 0;
  std::int32_t steps = 0;
  friend bool operator==(const RowVectorShape&, const RowVectorShape&) = default;
};
inline constexpr std::int32_t kRowVectorMaxProductsInFlight = 8;

/// row_vector_size / _rows / _steps = auto: the shape for a matrix whose mean row length is
/// below `below_mean` (the first such entry of the value size's table). Measured on an H200
/// (README "Row vectors": run 162, 6 vector sizes x 6 row / step pairs on ten matrices of the
/// default suite in fp64, fp32 and fp16 against cuSPARSE in the same process; runs 163-164, the
/// library's kernel with each vector size and row / step pair as a variant): 8-byte values take
/// wider vectors and one step (fp64 stencil3d_100 1.21x cuSPARSE with 2 rows and 1 step, 1.15x
/// with 4 and 2); 2-byte rows of a few nonzeros are fastest a row a lane (stencil2d_2000 fp16
/// 1.57x cuSPARSE against 1.46x with vectors of 2).
struct RowVectorChoice {
  double below_mean;
  RowVectorShape shape;
};
inline constexpr double kAnyMean = 1e300;
inline constexpr std::array<RowVectorChoice, 4> kRowVectorShapes8Byte = {
    {{8, {4, 2, 1}}, {18, {8, 2, 1}}, {64, {16, 2, 1}}, {kAnyMean, {32, 4, 1}}}};
inline constexpr std::array<RowVectorChoice, 4> kRowVectorShapes4Byte = {
    {{4, {2, 2, 2}}, {18, {4, 2, 2}}, {64, {16, 2, 2}}, {kAnyMean, {32, 4, 1}}}};
inline constexpr std::array<RowVectorChoice, 4> kRowVectorShapes2Byte = {
    {{8, {1, 1, 1}}, {18, {4, 2, 2}}, {64, {16, 2, 2}}, {kAnyMean, {32, 4, 1}}}};

/// A lane of a row vector adds its share of a row in order; with fp32 sums (fp32, fp16 and bf16
/// values) it adds every kRowVectorFoldTrips loop trips' sum into a second one (a two-level
/// sum), so that the rounding error grows with trips / 64 + 64 products instead of the row's
/// length / vector size: one row of 100 000 nonzeros at vector size 2 (the catalogue's
/// one_row_of_100000_among_short) missed the fp32 error bound (1.05e-5 > 1e-5) without it.
/// fp64 sums stay within their bound without it (the same test, 1e-12, passes).
inline constexpr std::uint32_t kRowVectorFoldTrips = 64;

/// Threads of a row-vector block (8 warps; the kernel keeps no shared memory).
inline constexpr int kRowVectorThreads = 256;

/// Threads of a merge-path tile's block (against 128 and 512 on an H200, README "Merge-path
/// tiles").
inline constexpr int kMergeTileThreads = 256;

/// merge_items: items of the merge path (nonzeros and row ends) a thread takes, 5 or 7. Measured
/// on an H200 (README): 5 is faster in fp64 (R-MAT scale 20 0.91x cuSPARSE against 0.85x), the
/// two alike in the other precisions.
inline constexpr std::int32_t kDefaultMergeItems = 5;

/// merge_blocks_per_sm=auto: tile blocks an SM holds, the tile kernel's shared-memory carveout
/// set for them so that the rest of the SM's 256 KB of unified L1 / shared memory is L1, which the
/// x gathers hit. Measured on an H200 (README "Fewer L2 requests", runs 166-167, R-MAT scale 20
/// and power-law rows at 2 M, against as many blocks as fit, 8): 5 blocks gain in every precision
/// (with the aligned loads, R-MAT fp64 0.925x -> 0.987x cuSPARSE, fp32 0.983x -> 1.004x,
/// power-law rows fp64 0.931x -> 0.970x); 3 gain as much in fp32 / fp16 but lose 15-20 % in
/// fp64 (36 % of the SM's warps active, latency-bound), 7 lie between.
inline constexpr std::int32_t kDefaultMergeBlocksPerSm = 5;

/// What a plan built from a DeviceCsrView does with the caller's arrays (device_csr=...):
///  - borrow: reads them at every apply, as cuSPARSE's descriptors do: no copy and no allocation
///    for the matrix, so the plan builds in a few SpMV-times; the arrays must outlive the plan,
///    and new values are written into them in place (update_values is refused);
///  - copy: keeps its own copy (padded to kCopyAlignElements), independent of the caller's;
///  - automatic: borrow where the batch copies allow it (copy=direct, or copy=cp_async with
///    col_idx and values 16-byte aligned, as cudaMalloc and the Python libraries' allocators
///    give), else copy.
enum class DeviceCsrUse { automatic, borrow, copy };

struct CsrOverlapParameters {
  std::int32_t max_batch_size = kDefaultMaxBatchSize;
  /// 0: auto (= max_batch_size).
  std::int32_t max_batch_rows = 0;
  std::array<std::int32_t, kSwitchPoints> switch_points = kPaperSwitchPoints;
  /// 0: by the mean row length of each batch; else 1, 2, 4, 8, 16 or 32 for every batch.
  std::int32_t vector_size = 0;
  int threads_per_block = kDefaultThreadsPerBlock;
  /// Threads of a long-row block; 0: auto (long_row_threads_for).
  int long_row_threads = 0;
  /// 0: as many as fit one SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  int blocks_per_sm = 0;
  std::int32_t long_row_piece = kDefaultLongRowPiece;
  int pipeline_stages = kDefaultPipelineStages;
  /// 0: one wave of resident blocks share the batches (paper §4.1.2); else each block takes this
  /// many (1: a block a batch, and the blocks an SM holds overlap one another's copies).
  std::int32_t batches_per_block = kDefaultBatchesPerBlock;
  /// The register-bounded build for blocks of at most kRegisterBoundThreads threads.
  bool register_bound = false;
  /// 0: off; else the most threads a row of a few-row batch takes (clamped to the block).
  std::int32_t row_threads_max = kRowThreadsBlock;
  /// 0: off.
  std::int32_t warp_row_factor = kDefaultWarpRowFactor;
  /// Global-to-shared copies of the batch kernel (bulk: sm_90 and later).
  CopyMechanism copy = kDefaultCopy;
  /// Plans from a DeviceCsrView only (a plan from host CSR always owns its upload).
  DeviceCsrUse device_csr = DeviceCsrUse::automatic;
  BatchUnit batch_unit = kDefaultBatchUnit;
  /// batch_unit=auto, copy=auto and max_batch_size=auto: for_matrix() chooses them.
  bool batch_unit_automatic = false;
  bool copy_automatic = false;
  bool max_batch_size_automatic = false;
  /// long_row_piece=auto: for_matrix() chooses it (kDefaultLongRowPiece until then).
  bool long_row_piece_automatic = false;
  Partition partition = Partition::rows;
  /// partition=auto: the plan chooses after its batch table (merge_path_suits,
  /// row_vectors_suit).
  bool partition_automatic = false;
  std::int32_t merge_items = kDefaultMergeItems;
  /// 0: auto (kDefaultMergeBlocksPerSm); else 3, 5, 7 or 8 (merge_items=5 only).
  std::int32_t merge_blocks_per_sm = 0;
  /// partition=row_vectors; 0: auto (row_vector_shape).
  std::int32_t row_vector_size = 0;
  std::int32_t row_vector_rows = 0;
  std::int32_t row_vector_steps = 0;

  /// The row-vector launch for a matrix of mean row length nnz / rows and values of
  /// `value_bytes`: the given parameters, the others from the value size's table
  /// (kRowVectorShapes8Byte, ...); the automatic one of rows / steps lowered where the pair
  /// would exceed kRowVectorMaxProductsInFlight.
  RowVectorShape row_vector_shape(std::int64_t rows, std::int64_t nnz,
                                  std::size_t value_bytes) const;

  /// These parameters for a matrix of `rows` rows and `nnz` nonzeros: batch_unit=auto resolved
  /// (with copy=auto, direct warps from kDirectWarpMinNonzeros on; else warps from
  /// kWarpUnitMinMeanRowLength and kWarpUnitMinNonzeros on, within kWarpUnitMaxBlockSharedBytes;
  /// blocks for copy=bulk), with the warp unit's max_batch_size when that was auto too (direct
  /// warps: kDirectWideMaxBatchSize where the products and the mean row length allow), and
  /// long_row_piece=auto resolved (kLargeMatrixLongRowPiece from
  /// kLargeMatrixLongRowPieceMinNonzeros on where the mean row length is at most
  /// max_batch_size).
  /// `product_bytes`: the accumulator type's size of the plan's precision (8 for fp64, 4
  /// otherwise; layout statistics are fp64's), which direct warps' batch size depends on
  /// (kDirectWideMaxBatchSize).
  CsrOverlapParameters for_matrix(std::int64_t rows, std::int64_t nnz,
                                  std::size_t product_bytes = sizeof(double)) const;

  /// Takes `unit`, with its own max_batch_size where that is auto (1024 a block, 512 a warp).
  void take_unit(BatchUnit unit) {
    batch_unit = unit;
    if (max_batch_size_automatic)
      max_batch_size = unit == BatchUnit::warp ? kWarpDefaultMaxBatchSize : kDefaultMaxBatchSize;
  }

  /// Threads of a long-row block for values of `value_bytes`: the parameter, or auto:
  /// kSixteenBitLongRowThreads for 16-bit values, else threads_per_block.
  int long_row_threads_for(std::size_t value_bytes) const {
    if (long_row_threads > 0) return long_row_threads;
    return value_bytes == 2 ? kSixteenBitLongRowThreads : threads_per_block;
  }

  /// Threads that share one batch: a block, or a warp (batch_unit=warp).
  int batch_threads() const {
    return batch_unit == BatchUnit::warp ? 32 : threads_per_block;
  }

  PartitionRule partition_rule() const {
    const std::int32_t warp_rows =
        copy == CopyMechanism::direct ? kDirectDefaultMaxBatchRows : kWarpDefaultMaxBatchRows;
    const std::int32_t automatic_rows =
        batch_unit == BatchUnit::warp ? std::min(warp_rows, max_batch_size) : max_batch_size;
    return {max_batch_size, max_batch_rows > 0 ? max_batch_rows : automatic_rows};
  }
  VectorSizeRule vector_size_rule() const {
    VectorSizeRule rule;
    for (int k = 0; k < kSwitchPoints; ++k) rule.switch_points[k] = switch_points[k];
    rule.fixed = vector_size;
    rule.spread_max = row_threads_max < batch_threads() ? row_threads_max : batch_threads();
    rule.warp_row_factor = warp_row_factor;
    return rule;
  }
};

/// The parameter schema (the registry's MethodDescriptor::parameters), in a fixed order.
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values (detail::check_parameter_values against parameter_specs()).
/// Throws ParameterError for what the schema cannot say: max_batch_size not a multiple of 32,
/// switch points that decrease.
CsrOverlapParameters csr_overlap_parameters(const detail::ParameterValues& values);

/// The "copy" parameter's value: "auto" (kDefaultCopy), "cp_async", "bulk" or "direct".
CopyMechanism copy_mechanism(const detail::ParameterValues& values);

/// "cp_async", "bulk" or "direct".
const char* copy_mechanism_name(CopyMechanism copy);

/// The spec of the "copy" parameter (csr_overlap's and csr_full_overlap's schemas).
ParameterSpec copy_parameter_spec();

/// Checks "key=value" strings against parameter_specs() and returns the parameters.
CsrOverlapParameters parse_parameters(const std::vector<std::string>& key_values);

}  // namespace tcsparse::csr_overlap
