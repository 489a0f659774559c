// Synthetic matrices of the kinds the papers stress, deterministic from a seed.
//
// Every generator returns a valid CsrMatrix<double> with values drawn from the seed (never all
// zeros or all ones; generate_poisson_3d alone has the fixed values of the discrete Laplacian) and
// throws IndexOverflowError, before allocating, if the requested shape or
// nonzero count does not fit 32-bit indices.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tcsparse/csr.hpp"

namespace tcsparse {

using GeneratedMatrix = CsrMatrix<double, std::int32_t>;

/// 2D Poisson 5-point stencil on an nx x ny grid: nx*ny rows, up to 5 entries per row.
GeneratedMatrix generate_stencil_2d_5pt(std::int64_t nx, std::int64_t ny, std::uint64_t seed);

/// 3D 27-point stencil on an nx x ny x nz grid: up to 27 entries per row.
GeneratedMatrix generate_stencil_3d_27pt(std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                         std::uint64_t seed);

/// The 3D Poisson matrix: the 7-point finite-difference Laplacian on an nx x ny x nz grid with
/// Dirichlet boundaries, 6 on the diagonal and -1 for each of the up to 6 neighbours, row
/// (x, y, z) = x + nx*(y + ny*z). Symmetric positive definite (irreducibly diagonally dominant),
/// the classic conjugate-gradient test matrix; no seed, the values are fixed.
GeneratedMatrix generate_poisson_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz);

/// R-MAT power-law graph with 2^scale vertices and about edge_factor * 2^scale edges,
/// Graph500 parameters a=0.57, b=0.19, c=0.19, d=0.05. Duplicate edges are merged.
GeneratedMatrix generate_rmat(int scale, int edge_factor, std::uint64_t seed);

/// Row-length distributions for generate_random_rows.
enum class RowLengthDistribution {
  uniform,    ///< lengths uniform in [min_length, max_length]
  normal,     ///< mean (min+max)/2, sd (max-min)/6, clamped
  power_law,  ///< P(len) ~ len^-exponent on [min_length, max_length]
};

/// rows x cols with row lengths drawn from `distribution`, columns uniform without repetition.
GeneratedMatrix generate_random_rows(std::int64_t rows, std::int64_t cols,
                                     RowLengthDistribution distribution, std::int64_t min_length,
                                     std::int64_t max_length, std::uint64_t seed,
                                     double power_law_exponent = 2.0);

/// n x n with entries on the diagonals |i - j| <= half_bandwidth (full band).
GeneratedMatrix generate_banded(std::int64_t n, std::int64_t half_bandwidth, std::uint64_t seed);

/// rows x cols whose rows each hold 1..4 entries (uniform), the short-row case.
GeneratedMatrix generate_short_rows(std::int64_t rows, std::int64_t cols, std::uint64_t seed);

/// rows x cols whose rows hold `row_length` entries each (long, dense-ish rows).
GeneratedMatrix generate_long_rows(std::int64_t rows, std::int64_t cols, std::int64_t row_length,
                                   std::uint64_t seed);

/// A DLMC-like pruned weight matrix: rows x cols, each entry kept with probability
/// 1 - sparsity, with per-row variation as magnitude pruning gives.
GeneratedMatrix generate_pruned_weights(std::int64_t rows, std::int64_t cols, double sparsity,
                                        std::uint64_t seed);

/// Row profiles of generated LLM weights.
enum class LlmRowProfile {
  uniform,  ///< every row keeps round((1 - sparsity) * cols) entries (per-row pruning)
  skewed,   ///< row densities (1 - sparsity) * f, f uniform in [0.4, 1.6]: lengths vary ~4x
};

/// A pruned LLM weight matrix (rows x cols, unstructured sparsity): row lengths by `profile`,
/// columns uniform without repetition, built in parallel. Sparsity in [0, 1].
GeneratedMatrix generate_llm_weights(std::int64_t rows, std::int64_t cols, double sparsity,
                                     LlmRowProfile profile, std::uint64_t seed);

/// The benchmark name of LLM weights, "llm:<rows>x<cols>:s<sparsity>:<uniform|skewed>"
/// (e.g. "llm:4096x4096:s0.70:uniform").
struct LlmWeightsName {
  std::int64_t rows = 0, cols = 0;
  double sparsity = 0.0;
  LlmRowProfile profile = LlmRowProfile::uniform;
};
/// Parses such a name; anything else is an Error naming the expected form.
LlmWeightsName parse_llm_weights_name(const std::string& name);
/// The name of `weights` in that form, sparsity with two decimals.
std::string llm_weights_name(const LlmWeightsName& weights);

/// `block` repeated on the diagonal until the result has at least target_nnz nonzeros: keeps the
/// real matrix's row-length distribution at any size. Values are redrawn from the seed.
GeneratedMatrix generate_block_diagonal_replica(const GeneratedMatrix& block,
                                                std::int64_t target_nnz, std::uint64_t seed);

/// A generator chosen by name with string parameters, for the CLI and the benchmark suites.
/// Kinds and parameters (defaults in brackets):
///   stencil2d   nx ny                       seed
///   stencil3d   nx ny nz                    seed
///   poisson3d   nx ny[nx] nz[nx]                  (fixed values: no seed)
///   rmat        scale edge_factor[16]       seed
///   random      rows cols dist[uniform|normal|power_law] min max exponent[2] seed
///   banded      n bandwidth                 seed
///   short       rows cols                   seed
///   long        rows cols length            seed
///   pruned      rows cols sparsity          seed
///   llm         rows cols sparsity profile[uniform|skewed] seed
///   replicate   file target_nnz|copies      seed   (exactly one of the two)
/// Throws Error naming an unknown kind, a missing or unknown parameter, or a bad value.
struct GeneratorSpec {
  std::string kind;
  std::map<std::string, std::string> parameters;
};

GeneratedMatrix generate(const GeneratorSpec& spec);

/// Parses "kind:key=value,key=value", e.g. "stencil3d:nx=200,ny=200,nz=200,seed=1".
GeneratorSpec parse_generator_spec(const std::string& text);

/// The kinds generate() knows, with one line of help each.
std::vector<std::pair<std::string, std::string>> generator_kinds();

}  // namespace tcsparse
