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
//   "spmm"     SpMM only, fp16 by default (issue 11): every DLMC .smtx of the matrix directory
//              at N = 256 and 2048, and generated pruned LLM weights
//              llm:<rows>x<cols>:s<sparsity>:<uniform|skewed> (4096x4096, 11008x4096,
//              4096x11008, 14336x4096 at sparsity 0.5-0.95) at N = 8 ... 4096
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tcsparse::bench {

/// One matrix of a suite: a short name and the generator spec that makes it, written as the
/// CLI accepts it ("gen:kind:key=value,..."), or a matrix file. The matrix is read or generated
/// once and runs SpMV (unless `spmv` is false) and SpMM at each width of `spmm_n`.
struct SuiteEntry {
  std::string name;
  std::string spec;
  std::vector<std::int64_t> spmm_n = {};  ///< SpMM widths; empty: the run's (--spmm-n) only
  bool spmv = true;                       ///< false: SpMM only
};

/// The names suite() knows.
std::vector<std::string> suite_names();

/// The precisions a suite runs when the user names none (--precisions); empty: every precision.
std::vector<std::string> suite_default_precisions(const std::string& name);

/// The SpMM widths of the "spmm" suite: the DLMC matrices' (TCA-SpMM's N = 256 and a prompt's
/// 2048) and the LLM weights' (decode 8-64, prefill and training 128-4096).
const std::vector<std::int64_t>& spmm_suite_dlmc_widths();
const std::vector<std::int64_t>& spmm_suite_llm_widths();

/// "llm:" starts the names of generated LLM weights, llm:<rows>x<cols>:s<sparsity>:<uniform|skewed>
/// (include/tcsparse/generate.hpp: parse_llm_weights_name).
inline constexpr std::string_view kLlmWeightsPrefix = "llm:";
bool is_llm_weights_name(std::string_view text);
/// The generator spec ("gen:llm:...,seed=...") of such a name; the seed is the same for every
/// name, so a name always stands for the same matrix. An Error for a malformed name.
std::string llm_weights_spec(const std::string& name);

/// The DLMC weight matrices (.smtx, .smtx.gz) under `matrix_dir`, in MANIFEST.tsv's order (kind
/// "dlmc", named by its name column) or, without a manifest, every .smtx file below the directory
/// sorted by path and named "dlmc:" + its relative path without the extension.
std::vector<SuiteEntry> dlmc_matrices(const std::filesystem::path& matrix_dir);

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
