// Parsing and resolution of the tca parameters (tca_parameters.hpp).
#include "tca/tca_parameters.hpp"

#include <string>
#include <vector>

#include "tca/tca_gather_format.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::tca {

std::span<const ParameterSpec> parameter_specs() {
  using Type = ParameterSpec::Type;
  static const std::vector<ParameterSpec> specs = {
      {"kernel", Type::choice, "auto", 0, 0, {"auto", "paper", "rows", "tiles", "gather"},
       "paper: m16n8k8 on matricised rows (the paper); rows: a warp a row, 16 columns of C at a "
       "time; tiles: 16x16 tiles stored as m16n8k16 fragment register pairs, dense m16n8k16; "
       "gather: B's chunk (up to 128 KiB) in shared memory, one wave of blocks whose warps split "
       "their groups evenly, 8-row windows two nonzeros a row an m16n8k16 in the "
       "transposed product, B's rows gathered by ldmatrix; auto: gather up to 32 columns of "
       "row-major B on weights of <= 11 % density with >= 2^20 nonzeros (>= 2^19 at <= 6 %) "
       "whose ranges take at most 6 blocks (sm_90), else "
       "tiles above 16 columns of B or when the non-empty tiles hold >= 40 (row-major B) / 8 "
       "(column-major) nonzeros on average, else rows; rows also below one nonzero in 4096 "
       "weights"},
      {"column_index_bits", Type::choice, "auto", 0, 0, {"auto", "16", "32"},
       "width of the column indices the rows kernel streams (16: cols <= 65536 only); auto: 32 "
       "(16 measured no faster)"},
      {"build", Type::choice, "auto", 0, 0, {"auto", "device", "host"},
       "tiles: where the tile layout is built: device (from the uploaded CSR, which is then "
       "freed) or host (then uploaded), the same layout either way; auto: device from 16384 "
       "nonzeros"},
      {"chunk_columns", Type::integer, "auto", 16, 1 << 30, {"auto"},
       "tiles, gather: columns of A (and rows of B) one thread block multiplies, the split-K unit "
       "(tiles: rounded up to a segment of 256; gather: to 8); auto: tiles at n <= 64 the "
       "narrowest of 512 .. 2048 whose blocks all run at once, wider n split-K until the GPU has "
       "12 warps an SM; gather: the fewest chunks whose rows of B fit 128 KiB, a power of two up "
       "to 4 (all of B's rows at 16 columns and 4096 columns of A)"},
      {"slice_columns", Type::choice, "auto", 0, 0, {"auto", "8", "16", "32", "64"},
       "tiles, gather: columns of B and C one thread block computes (n runs as slices of this "
       "width); auto: the narrowest that holds n; above 64 columns 64 (tiles: narrowed to 32 or 16 "
       "while the kernel would have fewer blocks than the GPU has SMs)"},
      {"split_k", Type::choice, "auto", 0, 0, {"auto", "global", "cluster"},
       "tiles: how the chunks' partial sums are added (in chunk order either way): global "
       "(partials in global memory, the last warp of a row block sums them after a fence and an "
       "atomic ticket) or cluster (the chunks of a row group are one thread-block cluster and sum "
       "through distributed shared memory; sm_90, 2-8 chunks, else global); auto: cluster for 2 "
       "chunks where the clusters keep as many blocks running at once as single blocks, else "
       "global; gather: cluster for 2-8 chunks where clusters run. With kernel=auto it applies "
       "where auto takes tiles"},
      {"stage_b", Type::choice, "auto", 0, 0, {"auto", "copies", "tensor"},
       "gather: how a block stages its rows of B in shared memory: tensor (one thread's TMA "
       "copies of up to 256 lines of 128 bytes, sm_90, row-major B at a 16-byte aligned address "
       "whose slices fill whole lines: n = 8, 16 or 32 where cols x n x 2 is a multiple of 128, "
       "or n > 32 a multiple of 8; elsewhere, and for a B not so aligned at that apply, copies) "
       "or copies (cp.async by every thread); auto: tensor"},
      {"dependent_launch", Type::choice, "auto", 0, 0, {"auto", "on", "off"},
       "tiles, gather: on: a programmatic dependent launch (sm_90; elsewhere off): the blocks copy "
       "their first runs of A before the kernel ahead on the stream has finished, and touch B and C "
       "only after it; auto: on. With kernel=auto it applies where auto takes tiles"},
  };
  return specs;
}

TcaParameters tca_parameters(const detail::ParameterValues& values, std::int64_t cols,
                             std::int64_t /*n*/) {
  TcaParameters p;
  p.kernel_is_auto = values.is_auto("kernel");
  if (values.is("kernel", "paper")) p.kernel = TcaKernel::paper;
  else if (values.is("kernel", "tiles")) p.kernel = TcaKernel::tiles;
  else if (values.is("kernel", "gather")) p.kernel = TcaKernel::gather;
  else p.kernel = TcaKernel::rows;  // rows, or auto until resolved
  if (!values.is_auto("chunk_columns")) {
    if (p.kernel != TcaKernel::tiles && p.kernel != TcaKernel::gather)
      throw ParameterError("method 'tca': parameter chunk_columns is not accepted without "
                           "kernel=tiles or kernel=gather (only they stage chunks of B)");
    p.chunk_columns = values.integer("chunk_columns");
  }
  // A tiles (and, but for build, gather) parameter given with another kernel; with kernel=auto
  // it applies where auto takes tiles.
  const auto given_for_tiles = [&](const char* name, const char* why) {
    if (values.is_auto(name)) return false;
    const bool gather_takes_it = p.kernel == TcaKernel::gather && std::string(name) != "build";
    if (!p.kernel_is_auto && p.kernel != TcaKernel::tiles && !gather_takes_it)
      throw ParameterError(std::string("method 'tca': parameter ") + name +
                           " is not accepted with kernel=" + kernel_name(p.kernel) + " (" + why +
                           ")");
    return true;
  };
  if (given_for_tiles("build", "only the tiles kernel builds a layout"))
    p.tiles_build = values.is("build", "device") ? TcaParameters::Build::device
                                                 : TcaParameters::Build::host;
  if (given_for_tiles("split_k", "only the tiles and gather kernels split K into chunks"))
    p.split_k = values.is("split_k", "cluster") ? TcaParameters::SplitK::cluster
                                                : TcaParameters::SplitK::global;
  if (given_for_tiles("dependent_launch", "only the tiles and gather kernels are launched so"))
    p.dependent_launch = values.is("dependent_launch", "on");
  if (given_for_tiles("slice_columns", "only the tiles and gather kernels compute C in slices"))
    p.slice_columns = std::stoi(values.text("slice_columns"));
  if (!values.is_auto("stage_b")) {  // gather's own: with kernel=auto, where auto takes gather
    if (!p.kernel_is_auto && p.kernel != TcaKernel::gather)
      throw ParameterError(std::string("method 'tca': parameter stage_b is not accepted with "
                                       "kernel=") +
                           kernel_name(p.kernel) + " (only the gather kernel stages B's rows whole)");
    p.stage_b = values.is("stage_b", "tensor") ? TcaParameters::StageB::tensor
                                               : TcaParameters::StageB::copies;
  }

  const bool fits_16_bits = cols <= kMaxColumnsOf16BitIndices;
  if (values.is("column_index_bits", "16")) {
    if (!fits_16_bits)
      throw ParameterError("method 'tca': parameter column_index_bits=16 is not accepted: the "
                           "matrix has " + std::to_string(cols) +
                           " columns, 16-bit indices hold at most 65536");
    if (p.kernel != TcaKernel::rows)
      throw ParameterError(std::string("method 'tca': parameter column_index_bits=16 is not "
                                       "accepted with kernel=") + kernel_name(p.kernel) +
                           " (only the rows kernel streams column indices)");
    p.kernel_is_auto = false;  // 16-bit indices are the rows kernel's
    p.column_index_bits = 16;
  } else if (values.is("column_index_bits", "32")) {
    p.column_index_bits = 32;
  } else {
    p.column_index_bits = p.kernel == TcaKernel::rows ? kDefaultColumnIndexBits : 32;
  }
  return p;
}

TcaKernel resolve_auto_kernel(std::int64_t nnz, std::int64_t stored_tiles,
                              std::int64_t segment_slots, std::int64_t n, DenseLayout dense) {
  if (stored_tiles == 0) return TcaKernel::rows;  // nothing to multiply: the cheaper plan
  if (segment_slots > nnz) return TcaKernel::rows;
  if (n > kRowsKernelMaxColumns) return TcaKernel::tiles;
  const double threshold = dense == DenseLayout::column_major ? kTilesMinNonzerosPerTile
                           : n <= 8 ? kTilesMinNonzerosPerTileRowMajorUpTo8Columns
                                    : kTilesMinNonzerosPerTileRowMajor;
  return static_cast<double>(nnz) >= threshold * static_cast<double>(stored_tiles)
             ? TcaKernel::tiles
             : TcaKernel::rows;
}

bool auto_takes_gather(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::int64_t n,
                       DenseLayout dense, bool clusters) {
  const double weights = static_cast<double>(rows) * static_cast<double>(cols);
  const auto nonzeros = static_cast<double>(nnz);
  const bool sparse = nonzeros <= kGatherAutoSparseMaxDensity * weights;
  const bool enough =
      nnz >= kGatherAutoMinNonzeros || (nnz >= kGatherAutoSparseMinNonzeros && sparse);
  if (!clusters || n < 1 || n > kGatherAutoMaxColumns || !enough ||
      nonzeros > kGatherAutoMaxDensity * weights)
    return false;
  const GatherShape shape = choose_gather_shape(rows, cols, n);
  if (dense == DenseLayout::column_major &&
      ((nnz < kGatherAutoColumnMajorMinNonzeros && !sparse) ||
       !gather_transposed_copies_fit(shape)))
    return false;
  return shape.range_blocks() <= kGatherAutoMaxRangeBlocks;
}

const char* kernel_name(TcaKernel kernel) {
  switch (kernel) {
    case TcaKernel::paper: return "paper";
    case TcaKernel::rows: return "rows";
    case TcaKernel::tiles: return "tiles";
    case TcaKernel::gather: return "gather";
  }
  return "?";
}

}  // namespace tcsparse::tca
