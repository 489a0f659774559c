// Where the CLI's matrices come from: a file (.mtx, .mtx.gz, .smtx, .smtx.gz), a generator
// spec "gen:KIND:key=value,..." or an LLM weight name "llm:<rows>x<cols>:s<sparsity>:<uniform|skewed>"
// (accepted wherever a FILE is).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "harness.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::cli {

inline constexpr std::string_view kGeneratorPrefix = "gen:";

bool is_generator_spec(const std::string& source);

/// A matrix to be loaded later: its display name and its source (path or spec).
struct MatrixSourceRef {
  std::string name;
  std::string source;
  bool is_smtx = false;  ///< a DLMC weight matrix (.smtx / .smtx.gz)
  /// `tcsparse bench`: the SpMM widths a suite gives the matrix (empty: the run's), and whether
  /// it runs SpMV too.
  std::vector<std::int64_t> spmm_n = {};
  bool spmv = true;
};

/// Loads a file or generates a spec, as fp64. `report` is filled for files only.
/// Throws ParseError, Error, ... with the reason.
bench::MatrixInput load_matrix(const MatrixSourceRef& ref, ReadReport* report = nullptr);
/// The same for a command-line argument (its name: the file's stem, or the spec).
bench::MatrixInput load_matrix(const std::string& file_or_spec, ReadReport* report = nullptr);

/// Expands the command-line arguments: a spec or a file stands for itself, a directory for every
/// matrix file below it (recursively, sorted; named by the path relative to it, without the
/// extension). Throws Error naming an argument that is neither.
std::vector<MatrixSourceRef> expand_matrix_arguments(const std::vector<std::string>& arguments);

/// True for .mtx, .mtx.gz, .smtx, .smtx.gz.
bool is_matrix_file(const std::filesystem::path& path);

}  // namespace tcsparse::cli
