// The built-in benchmark suites: named lists of generator specs (bench/suites.cpp lists them).
//
//   "default"  matrices of 10-30 million nonzeros of every kind the papers stress, sized to fill
//              the GPU, plus a few small ones (0.1-1 M nonzeros)
//   "small"    quick ones (each < 200 k nonzeros), for tests and smoke runs
//   "large"    random columns with x in or beyond the L2, 10-270 M nonzeros (R-MAT 22-24,
//              uniform 4-12 a row at 4 M and 16 M rows, power law at 16 M, 4 M short rows,
//              cage11 x 35): where DASP lost (issue 8); needs a GPU of 80 GB for rmat_24 fp64
//   "hbp"      the HBP paper's classes (circuit-like, kron_g500-like R-MAT 18-21, mip1-like) at
//              its sizes and scaled up, and x beyond the L2 (R-MAT 23-24, power law and uniform
//              at 16 M columns, a 24 M-row road-like band), rajat01 as is and x 50 (issue 10)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tcsparse::bench {

/// One matrix of a suite: a short name and the generator spec that makes it, written as the
/// CLI accepts it ("gen:kind:key=value,...").
struct SuiteEntry {
  std::string name;
  std::string spec;
};

/// The names suite() knows.
std::vector<std::string> suite_names();

/// The entries of a built-in suite. The real matrix replicated block-diagonally is taken from
/// `matrix_dir` (see default_matrix_dir) and left out when none is found there.
/// Throws tcsparse::Error naming the known suites for an unknown name.
std::vector<SuiteEntry> suite(const std::string& name, const std::filesystem::path& matrix_dir);

/// The real-matrix directory: env TCSPARSE_MATRIX_DIR, else the shared matrix directory next to
/// the source tree, else the source tree's .matrices/; nullopt when none exists.
std::optional<std::filesystem::path> default_matrix_dir();

/// The largest SuiteSparse matrix under `matrix_dir` whose nonzero count (both triangles, per
/// MANIFEST.tsv) is at most `max_nnz`; without a MANIFEST.tsv, the largest .mtx/.mtx.gz file by
/// size (max_nnz then unchecked). nullopt when there is none.
std::optional<std::filesystem::path> largest_real_matrix(const std::filesystem::path& matrix_dir,
                                                         std::int64_t max_nnz);

}  // namespace tcsparse::bench
