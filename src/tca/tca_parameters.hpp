// The tca parameters (PlanOptions::parameters, "key=value"): which kernel, and the width of the
// column indices it streams.
#pragma once

#include <cstdint>
#include <span>

#include "plan/parameters.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse::tca {

/// kernel=...:
///  - paper: the paper's design (tca.cu): each row's dot products matricised into m16n8k8, 1/2/4/8
///    warps a row by its length, the compressed right-hand side staged in shared memory;
///  - rows: a warp a row, its lanes over the row's nonzeros, B gathered through the read-only
///    cache, 16 columns of C at a time in fp32 registers (tca_rows_kernel.cuh; not in the paper).
///    It streams the matrix once per 16 columns of B.
///  - tiles: the 16 x 16 tiles stored as the m16n8k16 A fragments' non-empty register pairs by
///    segments of 16 tiles, loaded by each lane straight into its registers and multiplied by
///    m16n8k16 with B staged in shared memory (tca_tiles_format.hpp; not in the paper).
///  - gather: B's chunk staged whole in shared memory, the nonzeros of 8-row windows two a row
///    an m16n8k16 in the transposed product (B's rows, gathered by ldmatrix, the A operand; the
///    values a diagonal of pairs) (tca_gather_format.hpp; not in the paper).
enum class TcaKernel { paper, rows, tiles, gather };

/// kernel=auto: tiles above 16 columns of B (the rows kernel streams the matrix once per 16
/// columns: on the DLMC matrices at 90-98 % sparsity tiles ran 2.5-5x faster at n = 256 and
/// 12-30x at n = 2048, H200); at up to 16 columns, tiles when the stored 16 x 16 tiles hold at
/// least this many nonzeros on average, else rows. The rows kernel reads a row of row-major B in
/// 16-byte pieces but gathers column-major B element by element, hence separate thresholds; with
/// row-major B the tiles kernel's cost depends on its slice (8 or 16 columns), hence two. Measured
/// on the 8 LLM weights at 90 % sparsity (26 nonzeros a tile) and 95 % (13) with row-major B
/// (H200, runs staged in shared memory, run 133, src/tca/README.md), rows' time over tiles': at
/// n = 8 0.78-1.01 at 90 %, 0.59-0.86 at 95 % (tiles faster from 80 %, 51 a tile); at n = 16
/// 1.04-1.18 at 90 %, 0.66-0.85 at 95 %. Column-major B (H100, the first tiles kernel) 0.13-0.24
/// at 70 %, 0.35-0.62 at 90 %, 0.55-1.07 at 95 %. The paper kernel stays a variant (rows ran
/// 29-90x faster at n = 8-64, src/tca/README.md).
inline constexpr double kTilesMinNonzerosPerTileRowMajorUpTo8Columns = 40.0;
inline constexpr double kTilesMinNonzerosPerTileRowMajor = 20.0;
inline constexpr double kTilesMinNonzerosPerTile = 8.0;

/// column_index_bits=16 stores 16-bit column indices, which needs every column to fit: cols <=
/// 65536 (issue 11: 1.2 instead of 1.8 bytes a weight at 70 % sparsity); rows kernel only (the
/// paper kernel reads the CSR's 32-bit indices). auto = 32: measured on an H100 the 16-bit
/// indices were no faster (n = 8: 5-45 % slower at 70 % sparsity; n = 16: within +-10 %), the
/// kernel being bound by its B gathers rather than by the matrix stream.
inline constexpr std::int64_t kMaxColumnsOf16BitIndices = std::int64_t{1} << 16;
inline constexpr int kDefaultColumnIndexBits = 32;

/// build=auto builds the tiles layout on the GPU from this many nonzeros, on the host below: the
/// GPU build's fixed cost (the CSR's upload and free, its kernels' launches and two waits, about
/// 0.2 ms) loses below it. Measured (H200, run 193, DLMC rn50 and transformer at 90 % and LLM
/// weights, n = 256 and 2048, `bench/results/2026-11-29-0530-h200-tca-device-build/`), host build
/// time over device build time, median by nonzeros: 0.42 at 2^11, 0.69 at 2^12, 0.83 at 2^13, 1.22
/// at 2^14, 1.75 at 2^15, 2.75 at 2^17, 3-6 at 2^22-2^24.
inline constexpr std::int64_t kTilesDeviceBuildMinNonzeros = std::int64_t{1} << 14;

struct TcaParameters {
  TcaKernel kernel = TcaKernel::rows;
  bool kernel_is_auto = true;  ///< resolved by resolve_auto_kernel once the tiles are counted
  int column_index_bits = 32;  ///< 16 or 32 (rows kernel); 32 for paper
  std::int64_t chunk_columns = 0;  ///< tiles, gather: columns of A a block's chunk spans; 0 = auto
  int slice_columns = 0;  ///< tiles, gather: columns of B and C a block computes (8 .. 64); 0 = auto
  /// tiles: where the layout is built; auto: on the GPU from kTilesDeviceBuildMinNonzeros on.
  enum class Build { automatic, device, host } tiles_build = Build::automatic;
  bool builds_tiles_on_device(std::int64_t nnz) const {
    return tiles_build == Build::device ||
           (tiles_build == Build::automatic && nnz >= kTilesDeviceBuildMinNonzeros);
  }
  /// tiles: how the split-K chunks are summed (tca_tiles_kernel.cuh, step 4); auto: in clusters
  /// for 2 chunks where they keep the GPU as full as single blocks (kTilesAutoClusterChunks
  /// below), else global. gather: auto and cluster sum 2-8 chunks in clusters (sm_90).
  enum class SplitK { automatic, global, cluster } split_k = SplitK::automatic;
  /// tiles and gather: launched as a programmatic dependent launch (sm_90; tca_tiles_kernel.cuh), so that
  /// its blocks copy their first runs while the kernel ahead on the stream finishes; auto: on
  /// where the GPU has it.
  bool dependent_launch = true;
  /// gather: how a block stages B's rows: by tensor copies of whole 128-byte lines (the TMA;
  /// sm_90, row-major B whose slices fill whole lines, at a 16-byte aligned address; elsewhere by
  /// cp.async) or by every thread's cp.async; auto: tensor.
  enum class StageB { automatic, copies, tensor } stage_b = StageB::automatic;
};

/// kernel=auto's choice for a matrix of `nnz` nonzeros in `stored_tiles` non-empty 16 x 16 tiles
/// and `segment_slots` (row block, 256-column segment) pairs (tiles_segment_slots), multiplied by
/// n columns of B in layout `dense`. rows wherever the tiles layout would hold more segment slots
/// than nonzeros (fewer than one weight in 4096 nonzero: the tiles kernel would stage B for
/// segments that are nearly all empty).
TcaKernel resolve_auto_kernel(std::int64_t nnz, std::int64_t stored_tiles,
                              std::int64_t segment_slots, std::int64_t n, DenseLayout dense);
/// kernel=auto takes gather (before counting tiles) for products of at most this many columns
/// of B on weights of at most kGatherAutoMaxDensity nonzero and at least
/// kGatherAutoMinNonzeros nonzeros (kGatherAutoSparseMinNonzeros at most
/// kGatherAutoSparseMaxDensity nonzero) whose ranges take at most kGatherAutoMaxRangeBlocks
/// blocks, on sm_90 (where a range's blocks sum in clusters). Measured (H200, run 323,
/// bench/results/2026-11-30-1200-h200-tca-gather-resident, the 24 LLM weights of issue 11,
/// speedup over dense cuBLAS, gather against tiles): at 90 % and 95 % gather 1.5-3.5x against
/// 1.4-1.8x at n = 8, 1.2-2.8x against 1.2-1.4x at n = 16, at n = 32 0.84-1.66x against 0.76-0.91x
/// where a range takes one or two blocks (4096 columns), 0.64-0.91x against 0.93-0.94x where it
/// took 8 (4096 x 11008); at 70 % 0.7-0.9x of tiles. With 6 blocks there (chunk_columns=auto
/// since runs 329-330, bench/results/2026-11-30-1330-h200-tca-gather-tensor-copies): 1.08x / 1.60x
/// dense at 90 / 95 % against tiles' 0.98x / 1.00x (5 blocks not measured; 7 and 8 stay on tiles).
/// Column-major B (activations X^T of a framework's Y = X W^T) also needs
/// kGatherAutoColumnMajorMinNonzeros nonzeros, or at most kGatherAutoSparseMaxDensity nonzero,
/// and B staged by tensor copies of B^T (gather_transposed_copies_fit): H200, run 350
/// (bench/results/2026-11-30-1730-h200-tca-gather-column-major), speedup over dense cuBLAS,
/// gather against tiles: 11008 x 4096, 14336 x 4096 and 4096 x 11008 at 90 / 95 % 1.72-2.79x
/// against 1.52-1.81x at n = 8, 1.50-2.38x against 1.26-1.48x at n = 16, at n = 32 0.94-1.36x
/// against 0.89-0.93x where the copies fit (4096 x 11008 there: chunks of 1840 rows, 0.66-0.82x
/// against 0.99-1.01x); 4096 x 4096 at 90 % (1.7 M nonzeros) 0.88-0.96x against 1.06-1.07x at
/// n = 16 and 0.96-1.05x against 1.25x at n = 8. With a chunk's copies in one (run 354,
/// bench/results/2026-11-30-1830-h200-tca-column-groups): 4096 x 4096 at 95 % (0.84 M, 5 %)
/// 1.42x / 1.25x / 0.88x against 1.32x / 1.13x / 0.82x at n = 8 / 16 / 32, at 90 % still
/// 1.14-1.25x / 0.99-1.09x / 0.72-0.75x against 1.27x / 1.08-1.11x / 0.82-0.84x.
inline constexpr std::int64_t kGatherAutoMaxColumns = 32;
inline constexpr std::int64_t kGatherAutoColumnMajorMinNonzeros = std::int64_t{1} << 21;
inline constexpr std::int64_t kGatherAutoMinNonzeros = std::int64_t{1} << 20;
inline constexpr std::int64_t kGatherAutoSparseMinNonzeros = std::int64_t{1} << 19;
inline constexpr std::int64_t kGatherAutoMaxRangeBlocks = 6;
/// (11 %: the generated 90 %-sparse weights hold 10.00-10.01 % nonzeros, so that run 309's
/// auto, at 10 %, took rows on the uniform ones.)
inline constexpr double kGatherAutoMaxDensity = 0.11;
inline constexpr double kGatherAutoSparseMaxDensity = 0.06;

/// Whether kernel=auto takes gather for a rows x cols weight of nnz nonzeros at width n (see
/// kGatherAutoMaxColumns); `clusters`: the GPU has thread-block clusters (sm_90).
bool auto_takes_gather(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::int64_t n,
                       DenseLayout dense, bool clusters);

/// split_k=cluster sums the chunks of a row group in one thread-block cluster (sm_90), which holds
/// at most arch::kMaxPortableClusterBlocks blocks: from 2 to this many chunks.
inline constexpr std::int64_t kTilesMaxClusterChunks = 8;
/// split_k=auto takes clusters for this many chunks only, and only where they keep as many blocks
/// running at once as single blocks do. Measured (H200, split_k=global over split_k=cluster, same
/// run; bench/results/2026-11-29-0930-h200-tca-decode-profile, runs 216 and 219): 2 chunks
/// 1.00-1.06x (geomean 1.003 on 92 DLMC matrices at n = 256, 1.050 on 93 at n = 2048, 1.024 on
/// 14336 x 4096 and 11008 x 4096 at n = 256, 1.01-1.03 on 14336 x 4096 at n = 16-64); 3 chunks
/// 0.98-0.99, 4 0.81-0.95, 5 0.92-0.97, 8 0.65-0.98. The cluster waits for its slowest block
/// twice, and on the H200 8-block clusters run only 240 of 264 blocks at once.
inline constexpr std::int64_t kTilesAutoClusterChunks = 2;

/// Columns of B up to which the rows kernel's single pass over the matrix can compete.
inline constexpr std::int64_t kRowsKernelMaxColumns = 16;

/// The schema (the registry's MethodDescriptor::parameters).
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values for a plan of `cols` columns and width `n`: auto resolved;
/// ParameterError for column_index_bits=16 with more than 65536 columns or with kernel=paper,
/// for chunk_columns without kernel=tiles, and for build, split_k, dependent_launch or
/// slice_columns with kernel=paper or rows.
TcaParameters tca_parameters(const detail::ParameterValues& values, std::int64_t cols,
                             std::int64_t n);

const char* kernel_name(TcaKernel kernel);

}  // namespace tcsparse::tca
