#include "suites.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"

namespace tcsparse::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// The suites. Spec syntax: "gen:KIND:key=value,..." (include/tcsparse/generate.hpp lists the
// kinds and their parameters). Nonzero counts in the comments are approximate.
// ---------------------------------------------------------------------------------------------

/// Large matrices, 10-30 M nonzeros each: big enough that x, y and the matrix stream from HBM
/// (far past the 50-60 MB L2 of an H100/H200) and the GPU is full.
const std::vector<SuiteEntry> kDefaultLarge = {
    {"stencil2d_2000", "gen:stencil2d:nx=2000,ny=2000,seed=1"},      // 4 M rows x 5     = 20 M
    {"stencil3d_100", "gen:stencil3d:nx=100,ny=100,nz=100,seed=2"},  // 1 M rows x 27    = 26 M
    {"rmat_20", "gen:rmat:scale=20,edge_factor=16,seed=3"},          // 1 M rows, power law 16 M
    {"random_uniform_1m",                                            // 1 M rows x 1..39 = 20 M
     "gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4"},
    {"random_powerlaw_2m",                                           // 2 M rows, mean ~ 8: 16 M
     "gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5"},
    {"banded_2m", "gen:banded:n=2000000,bandwidth=5,seed=6"},        // 2 M rows x 11    = 22 M
    {"short_rows_5m", "gen:short:rows=5000000,cols=5000000,seed=7"}, // 5 M rows x 1..4  = 12 M
    {"long_rows_20k",                                                // 20 k rows x 1000 = 20 M
     "gen:long:rows=20000,cols=1000000,length=1000,seed=8"},
    {"pruned_16k", "gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9"},  // 27 M
};
/// The real matrix replicated block-diagonally to this many nonzeros (default suite).
constexpr std::int64_t kDefaultReplicaNnz = 20'000'000;

/// Mid-size matrices of the default suite, 1-5 M nonzeros: one wave of warps holds the whole
/// product, so its longest warp sets the time (issue 8: pruned weights whose few medium rows made
/// one warp walk 64 blocks, R-MAT hubs walked 2048 values a warp).
const std::vector<SuiteEntry> kDefaultMid = {
    {"pruned_4k", "gen:pruned:rows=4096,cols=4096,sparsity=0.9,seed=53"},   // 4 k rows x 410 = 1.7 M
    {"llm_4096x11008",                                                       // 4 k rows x 1100 = 4.5 M
     "gen:llm:rows=4096,cols=11008,sparsity=0.9,profile=uniform,seed=96"},
    {"rmat_19_sparse", "gen:rmat:scale=19,edge_factor=6,seed=54"},          // 512 k rows    = 3.1 M
};

/// Small matrices of the default suite, 0.1-1 M nonzeros: launch overhead and L2 residency.
const std::vector<SuiteEntry> kDefaultSmall = {
    {"stencil2d_400", "gen:stencil2d:nx=400,ny=400,seed=11"},        // 160 k rows x 5   = 800 k
    {"stencil3d_30", "gen:stencil3d:nx=30,ny=30,nz=30,seed=12"},     // 27 k rows x 27   = 700 k
    {"rmat_15", "gen:rmat:scale=15,edge_factor=16,seed=13"},         // 32 k rows        = 500 k
    {"random_powerlaw_100k",                                         // 100 k rows       = 600 k
     "gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14"},
    {"short_rows_200k", "gen:short:rows=200000,cols=200000,seed=15"},  // 200 k x 1..4  = 500 k
    {"pruned_2k", "gen:pruned:rows=2048,cols=2048,sparsity=0.9,seed=16"},  // 420 k
    {"rmat_13_dense", "gen:rmat:scale=13,edge_factor=96,seed=9"},    // 8 k rows         = 510 k
    // (its longest rows, 3.7 k values at 59x the mean, set its time: issue 8)
};

/// The "small" suite: every kind once, each under 200 k nonzeros, generated in milliseconds.
const std::vector<SuiteEntry> kSmall = {
    {"stencil2d_150", "gen:stencil2d:nx=150,ny=150,seed=21"},        // 22 k rows x 5   = 112 k
    {"stencil3d_15", "gen:stencil3d:nx=15,ny=15,nz=15,seed=22"},     // 3.4 k rows x 27 =  80 k
    {"rmat_12", "gen:rmat:scale=12,edge_factor=16,seed=23"},         // 4 k rows        =  60 k
    {"random_uniform_5k",                                            // 5 k rows x 1..39 = 100 k
     "gen:random:rows=5000,cols=5000,dist=uniform,min=1,max=39,seed=24"},
    {"random_powerlaw_20k",                                          // 20 k rows       ~ 120 k
     "gen:random:rows=20000,cols=20000,dist=power_law,min=1,max=2000,exponent=2,seed=25"},
    {"banded_20k", "gen:banded:n=20000,bandwidth=3,seed=26"},        // 20 k rows x 7   = 140 k
    {"short_rows_50k", "gen:short:rows=50000,cols=50000,seed=27"},   // 50 k x 1..4     = 125 k
    {"long_rows_100", "gen:long:rows=100,cols=10000,length=1000,seed=28"},  // 100 k
    {"pruned_512", "gen:pruned:rows=512,cols=1024,sparsity=0.8,seed=29"},   // 105 k
};
/// The replica of the small suite: a real matrix of at most kSmallReplicaSourceNnz nonzeros
/// repeated to at least kSmallReplicaNnz (so at most twice that, below 200 k).
constexpr std::int64_t kSmallReplicaNnz = 60'000;
constexpr std::int64_t kSmallReplicaSourceNnz = 60'000;

constexpr std::uint64_t kReplicaSeed = 10;

/// The "large" suite: random columns with x in or far beyond the L2 (50-60 MB), where DASP lost
/// to cuSPARSE or to the authors' code (issue 8), 10-270 M nonzeros each. R-MAT with the
/// Graph500 parameters (a=0.57, b=c=0.19) and 16 edges a vertex before duplicates are merged.
const std::vector<SuiteEntry> kLarge = {
    {"uniform_4_12_4m",                                               // 4 M rows x 4..12 = 32 M
     "gen:random:rows=4000000,cols=4000000,dist=uniform,min=4,max=12,seed=41"},
    {"uniform_4_12_16m",                                              // 16 M x 4..12   = 128 M
     "gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42"},
    {"rmat_22", "gen:rmat:scale=22,edge_factor=16,seed=43"},          // 4 M rows        ~ 60 M
    {"rmat_23", "gen:rmat:scale=23,edge_factor=16,seed=44"},          // 8 M rows        ~ 120 M
    {"rmat_24", "gen:rmat:scale=24,edge_factor=16,seed=45"},          // 16 M rows       ~ 250 M
    {"powerlaw_16m",                                                  // 16 M rows, mean ~ 10
     "gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46"},
    {"short_rows_4m", "gen:short:rows=4000000,cols=4000000,seed=47"},  // 4 M rows x 1..4 = 10 M
};
/// The real matrix of the "large" suite replicated block-diagonally: cage11 x 35 (1.37 M rows,
/// 19.6 M nonzeros), where DASP ran at 0.83x the authors' code.
constexpr std::string_view kLargeReplicaMatrix = "cage11";
constexpr std::int64_t kLargeReplicaCopies = 35;

/// The "hbp" suite (issue 10): the matrix classes of the HBP paper (Table I) at its sizes and
/// scaled up, where CSR kernels are held by scattered x reads, uneven rows and x beyond the L2.
///   circuit-like  (ASIC_*, rajat*, ohne2, nxp1): power-law rows up to a few 100 k nonzeros,
///                 columns scattered, 2-4 nonzeros a row on average
///   kron_g500-logn18..21: R-MAT a=0.57, b=c=0.19 (Graph500), 2^18..2^21 vertices, 48 edges a
///                 vertex before duplicates merge (kron_g500 holds ~80 a vertex symmetrised)
///   mip1-like     66 k x 66 k, ~150 nonzeros a row with power-law spread, some dense rows
///   huge-vector   >= 8 M columns: R-MAT 23 and 24, power law with 16 M columns, uniform
///                 4-12 with 16 M columns, a road-network-like band of 24 M rows
/// plus rajat01, the circuit matrix of ../shared/matrices, as it is and replicated 50 times.
const std::vector<SuiteEntry> kHbp = {
    {"circuit_like_680k",                                             // ASIC_680k-like ~ 2.7 M
     "gen:random:rows=682000,cols=682000,dist=power_law,min=1,max=300000,exponent=2.3,seed=61"},
    {"circuit_like_4m",                                               // scaled up      ~ 16 M
     "gen:random:rows=4000000,cols=4000000,dist=power_law,min=1,max=1000000,exponent=2.3,seed=62"},
    {"kron_like_18", "gen:rmat:scale=18,edge_factor=48,seed=63"},     // 262 k rows     ~ 11 M
    {"kron_like_19", "gen:rmat:scale=19,edge_factor=48,seed=64"},     // 524 k rows     ~ 23 M
    {"kron_like_20", "gen:rmat:scale=20,edge_factor=48,seed=65"},     // 1 M rows       ~ 47 M
    {"kron_like_21", "gen:rmat:scale=21,edge_factor=48,seed=66"},     // 2 M rows       ~ 97 M
    {"mip1_like",                                                     // 66 k rows      ~ 8.6 M
     "gen:random:rows=66000,cols=66000,dist=power_law,min=4,max=66000,exponent=1.75,seed=67"},
    {"rmat_23", "gen:rmat:scale=23,edge_factor=16,seed=44"},          // 8 M rows       ~ 120 M
    {"rmat_24", "gen:rmat:scale=24,edge_factor=16,seed=45"},          // 16 M rows      ~ 250 M
    {"powerlaw_16m",                                                  // 16 M rows, mean ~ 10
     "gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46"},
    {"uniform_4_12_16m",                                              // 16 M x 4..12   = 128 M
     "gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42"},
    {"road_like_24m", "gen:banded:n=24000000,bandwidth=1,seed=68"},   // 24 M rows x 3  = 72 M
};
/// The circuit matrix of the hbp suite and its replica count.
constexpr std::string_view kHbpRealMatrix = "rajat01";
constexpr std::int64_t kHbpReplicaCopies = 50;

/// The "spmm" suite (issue 11): the workloads of pruned neural-network weights times activations.
/// DLMC (every .smtx of the matrix directory, rn50 and transformer layers, magnitude pruning at
/// 0.5-0.98) at N = 256, the width TCA-SpMM (Electronics 2024, evaluation) uses, and 2048.
const std::vector<std::int64_t> kDlmcSpmmWidths = {256, 2048};
/// Generated LLM weights at the widths that matter to their users: decode (one token per sequence
/// of a batch of 8-64), and prompt reading or training (128-4096 tokens).
const std::vector<std::int64_t> kLlmSpmmWidths = {8, 16, 32, 64, 128, 256, 1024, 2048, 4096};
/// rows x cols of the weights: a 7B model's attention projections (4096 x 4096), its MLP's
/// up/gate (11008 x 4096) and down (4096 x 11008) projections (LLaMA-7B), and the 14336-wide MLP
/// of Mistral-7B / LLaMA-3-8B (14336 x 4096).
struct LlmShape {
  std::int64_t rows, cols;
};
constexpr LlmShape kLlmShapes[] = {{4096, 4096}, {11008, 4096}, {4096, 11008}, {14336, 4096}};
constexpr double kLlmSparsities[] = {0.5, 0.7, 0.8, 0.9, 0.95};
/// The seed of every LLM weight matrix, so that a name ("llm:4096x4096:s0.70:uniform", also
/// accepted on the command line) always stands for the same matrix.
constexpr std::uint64_t kLlmWeightsSeed = 101;
/// The spmm suite runs fp16 unless --precisions says otherwise (bf16 runs the same kernels).
const std::vector<std::string> kSpmmSuitePrecisions = {"fp16"};

/// The LLM weights of the spmm suite: 4 shapes x 5 sparsities x 2 row profiles = 40 matrices.
std::vector<SuiteEntry> llm_weights_entries() {
  std::vector<SuiteEntry> entries;
  for (const LlmShape shape : kLlmShapes)
    for (const double sparsity : kLlmSparsities)
      for (const LlmRowProfile profile : {LlmRowProfile::uniform, LlmRowProfile::skewed}) {
        const std::string name = llm_weights_name({shape.rows, shape.cols, sparsity, profile});
        entries.push_back({name, llm_weights_spec(name), kLlmSpmmWidths, false});
      }
  return entries;
}

// ---------------------------------------------------------------------------------------------

std::string replica_spec(const std::filesystem::path& file, std::int64_t target_nnz) {
  return "gen:replicate:file=" + file.string() + ",target_nnz=" + std::to_string(target_nnz) +
         ",seed=" + std::to_string(kReplicaSeed);
}

std::string matrix_stem(const std::filesystem::path& file) {
  std::string name = file.filename().string();
  for (std::string_view suffix : {".gz", ".mtx", ".smtx"})
    if (name.ends_with(suffix)) name.resize(name.size() - suffix.size());
  return name;
}

/// Appends the replicated real matrix when one is found.
void add_replica(std::vector<SuiteEntry>& entries, const std::filesystem::path& matrix_dir,
                 std::int64_t max_source_nnz, std::int64_t target_nnz) {
  if (matrix_dir.empty()) return;
  if (auto file = largest_real_matrix(matrix_dir, max_source_nnz))
    entries.push_back({"replica_" + matrix_stem(*file), replica_spec(*file, target_nnz)});
}

/// The real matrix called `name` (MANIFEST.tsv's name column, or a file `name`.mtx[.gz] anywhere
/// under matrix_dir); nullopt when there is none.
std::optional<std::filesystem::path> real_matrix_named(const std::filesystem::path& matrix_dir,
                                                       std::string_view name);

/// Appends `copies` block-diagonal copies of the real matrix `name` when it is found.
void add_replica_of(std::vector<SuiteEntry>& entries, const std::filesystem::path& matrix_dir,
                    std::string_view name, std::int64_t copies) {
  if (matrix_dir.empty()) return;
  if (auto file = real_matrix_named(matrix_dir, name))
    entries.push_back({"replica_" + std::string(name) + "_x" + std::to_string(copies),
                       "gen:replicate:file=" + file->string() + ",copies=" +
                           std::to_string(copies) + ",seed=" + std::to_string(kReplicaSeed)});
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream stream(line);
  for (std::string field; std::getline(stream, field, '\t');) fields.push_back(field);
  return fields;
}

/// MANIFEST.tsv columns: file name kind rows cols nnz_stored nnz_expanded symmetry ...
std::optional<std::filesystem::path> largest_in_manifest(const std::filesystem::path& matrix_dir,
                                                         std::int64_t max_nnz) {
  std::ifstream manifest(matrix_dir / "MANIFEST.tsv");
  std::optional<std::filesystem::path> best;
  std::int64_t best_nnz = -1;
  std::string line;
  std::getline(manifest, line);  // header
  while (std::getline(manifest, line)) {
    const auto fields = split_tabs(line);
    if (fields.size() < 7 || fields[2] != "suitesparse") continue;
    const std::int64_t nnz = std::strtoll(fields[6].c_str(), nullptr, 10);
    const auto file = matrix_dir / fields[0];
    if (nnz > best_nnz && nnz <= max_nnz && std::filesystem::is_regular_file(file)) {
      best = file;
      best_nnz = nnz;
    }
  }
  return best;
}

bool is_matrix_market_file(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  return name.ends_with(".mtx") || name.ends_with(".mtx.gz");
}

std::optional<std::filesystem::path> largest_by_file_size(const std::filesystem::path& dir) {
  std::optional<std::filesystem::path> best;
  std::uintmax_t best_size = 0;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir, ignored)) {
    if (!entry.is_regular_file() || !is_matrix_market_file(entry.path())) continue;
    if (!best || entry.file_size() > best_size) {
      best = entry.path();
      best_size = entry.file_size();
    }
  }
  return best;
}

std::optional<std::filesystem::path> real_matrix_named(const std::filesystem::path& matrix_dir,
                                                       std::string_view name) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(matrix_dir, ignored)) return std::nullopt;
  std::ifstream manifest(matrix_dir / "MANIFEST.tsv");
  std::string line;
  std::getline(manifest, line);  // header: file name kind ...
  while (std::getline(manifest, line)) {
    const auto fields = split_tabs(line);
    if (fields.size() >= 2 && fields[1] == name &&
        std::filesystem::is_regular_file(matrix_dir / fields[0], ignored))
      return matrix_dir / fields[0];
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(matrix_dir, ignored))
    if (entry.is_regular_file() && is_matrix_market_file(entry.path()) &&
        matrix_stem(entry.path()) == name)
      return entry.path();
  return std::nullopt;
}

bool is_smtx_file(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  return name.ends_with(".smtx") || name.ends_with(".smtx.gz");
}

bool is_directory(const char* path) {
  std::error_code ignored;
  return path && *path && std::filesystem::is_directory(path, ignored);
}

}  // namespace

bool is_llm_weights_name(std::string_view text) { return text.starts_with(kLlmWeightsPrefix); }

std::string llm_weights_spec(const std::string& name) {
  const LlmWeightsName weights = parse_llm_weights_name(name);
  char sparsity[32];
  std::snprintf(sparsity, sizeof sparsity, "%.4g", weights.sparsity);
  return "gen:llm:rows=" + std::to_string(weights.rows) + ",cols=" + std::to_string(weights.cols) +
         ",sparsity=" + sparsity +
         ",profile=" + (weights.profile == LlmRowProfile::skewed ? "skewed" : "uniform") +
         ",seed=" + std::to_string(kLlmWeightsSeed);
}

std::vector<std::string> suite_names() { return {"default", "small", "large", "hbp", "spmm"}; }

std::vector<std::string> suite_default_precisions(const std::string& name) {
  return name == "spmm" ? kSpmmSuitePrecisions : std::vector<std::string>{};
}

const std::vector<std::int64_t>& spmm_suite_dlmc_widths() { return kDlmcSpmmWidths; }
const std::vector<std::int64_t>& spmm_suite_llm_widths() { return kLlmSpmmWidths; }

std::vector<SuiteEntry> dlmc_matrices(const std::filesystem::path& matrix_dir) {
  std::vector<SuiteEntry> entries;
  std::error_code ignored;
  if (matrix_dir.empty() || !std::filesystem::is_directory(matrix_dir, ignored)) return entries;
  if (std::filesystem::is_regular_file(matrix_dir / "MANIFEST.tsv", ignored)) {
    std::ifstream manifest(matrix_dir / "MANIFEST.tsv");
    std::string line;
    std::getline(manifest, line);  // header: file name kind ...
    while (std::getline(manifest, line)) {
      const auto fields = split_tabs(line);
      if (fields.size() >= 3 && fields[2] == "dlmc" && is_smtx_file(matrix_dir / fields[0]) &&
          std::filesystem::is_regular_file(matrix_dir / fields[0], ignored))
        entries.push_back({fields[1], (matrix_dir / fields[0]).string()});
    }
    return entries;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(matrix_dir, ignored))
    if (entry.is_regular_file() && is_smtx_file(entry.path())) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::string relative = std::filesystem::relative(file, matrix_dir).generic_string();
    for (std::string_view suffix : {".gz", ".smtx"})
      if (relative.ends_with(suffix)) relative.resize(relative.size() - suffix.size());
    entries.push_back({"dlmc:" + relative, file.string()});
  }
  return entries;
}

std::vector<SuiteEntry> suite(const std::string& name, const std::filesystem::path& matrix_dir) {
  std::vector<SuiteEntry> entries;
  if (name == "default") {
    entries = kDefaultLarge;
    add_replica(entries, matrix_dir, kDefaultReplicaNnz, kDefaultReplicaNnz);
    entries.insert(entries.end(), kDefaultMid.begin(), kDefaultMid.end());
    entries.insert(entries.end(), kDefaultSmall.begin(), kDefaultSmall.end());
  } else if (name == "small") {
    entries = kSmall;
    add_replica(entries, matrix_dir, kSmallReplicaSourceNnz, kSmallReplicaNnz);
  } else if (name == "large") {
    entries = kLarge;
    add_replica_of(entries, matrix_dir, kLargeReplicaMatrix, kLargeReplicaCopies);
  } else if (name == "hbp") {
    entries = kHbp;
    if (!matrix_dir.empty())
      if (auto file = real_matrix_named(matrix_dir, kHbpRealMatrix))
        entries.push_back({std::string(kHbpRealMatrix), file->string()});
    add_replica_of(entries, matrix_dir, kHbpRealMatrix, kHbpReplicaCopies);
  } else if (name == "spmm") {
    entries = dlmc_matrices(matrix_dir);
    for (SuiteEntry& entry : entries) {
      entry.spmm_n = kDlmcSpmmWidths;
      entry.spmv = false;
    }
    const auto llm = llm_weights_entries();
    entries.insert(entries.end(), llm.begin(), llm.end());
  } else {
    throw Error("unknown suite '" + name + "' (known: default, small, large, hbp, spmm)");
  }
  return entries;
}

std::optional<std::filesystem::path> default_matrix_dir() {
#ifndef TCSPARSE_DEFAULT_MATRIX_DIR
#define TCSPARSE_DEFAULT_MATRIX_DIR ""
#endif
#ifndef TCSPARSE_SOURCE_MATRIX_DIR
#define TCSPARSE_SOURCE_MATRIX_DIR ""
#endif
  const char* const candidates[] = {std::getenv("TCSPARSE_MATRIX_DIR"),
                                    TCSPARSE_DEFAULT_MATRIX_DIR, TCSPARSE_SOURCE_MATRIX_DIR};
  for (const char* candidate : candidates)
    if (is_directory(candidate)) return std::filesystem::path(candidate);
  return std::nullopt;
}

std::optional<std::filesystem::path> largest_real_matrix(const std::filesystem::path& matrix_dir,
                                                         std::int64_t max_nnz) {
  std::error_code ignored;
  if (!std::filesystem::is_directory(matrix_dir, ignored)) return std::nullopt;
  if (std::filesystem::is_regular_file(matrix_dir / "MANIFEST.tsv", ignored))
    return largest_in_manifest(matrix_dir, max_nnz);
  const auto suitesparse = matrix_dir / "suitesparse";
  return largest_by_file_size(std::filesystem::is_directory(suitesparse, ignored) ? suitesparse
                                                                                  : matrix_dir);
}

}  // namespace tcsparse::bench
