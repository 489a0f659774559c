// Reading and writing matrices: Matrix Market (.mtx, .mtx.gz) and DLMC (.smtx, .smtx.gz).
//
// Every reader returns a valid CsrMatrix (see csr.hpp) or throws ParseError naming the file, the
// 1-based line and what was expected there. Duplicate entries are summed (the Matrix Market
// convention); symmetric, skew-symmetric and hermitian files are expanded to both triangles.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "tcsparse/csr.hpp"

namespace tcsparse {

struct ReadOptions {
  /// Pattern files (and .smtx, which carry no values) get values drawn uniformly from
  /// [-1, -0.1] U [0.1, 1] (never zero), a pure function of this seed and the entry's position
  /// in the file: the same file and seed give the same matrix whatever the thread count; the
  /// mirrored copy of a symmetric entry gets the same value (negated if skew-symmetric).
  std::uint64_t pattern_seed = 42;
  /// Parser threads; 0 means all cores (OpenMP).
  int threads = 0;
  /// Called with a message (no trailing newline) for what a caller may want to show: a
  /// declared size that needs more than 1 GiB, announced before it is allocated; entries of a
  /// symmetric file stored above the diagonal. The CLI prints them on stderr.
  std::function<void(const std::string&)> on_notice;
};

/// What a read measured: for `tcsparse convert` and the parse-speed benchmark.
struct ReadReport {
  std::uint64_t file_bytes = 0;       ///< bytes on disk
  std::uint64_t text_bytes = 0;       ///< bytes of text parsed (after decompression)
  std::int64_t entries_in_file = 0;   ///< entries as stored (one triangle for symmetric files)
  double read_seconds = 0.0;          ///< reading and decompressing
  double parse_seconds = 0.0;         ///< parsing text into COO
  double assemble_seconds = 0.0;      ///< COO -> CSR (sort, sum duplicates, expand symmetry)
  std::string field;                  ///< "real", "integer" or "pattern"
  std::string symmetry;               ///< "general", "symmetric", "skew-symmetric", "hermitian"
  double parse_mb_per_second() const {
    return parse_seconds > 0 ? static_cast<double>(text_bytes) / 1e6 / parse_seconds : 0.0;
  }
};

/// Reads a Matrix Market coordinate file (real, integer or pattern; any symmetry except complex
/// fields). `.gz` files are decompressed with zlib. Array (dense) and complex files are refused
/// with a ParseError that says so.
///
/// gzip is recognised by its magic bytes, whatever the name. Comments and blank lines may appear
/// anywhere after the banner; CRLF line endings and any blanks are accepted. Symmetric and
/// (real) hermitian files are mirrored, the diagonal kept once; skew-symmetric files are mirrored
/// negated, and an entry on their diagonal is an error. A declared size that does not fit Index
/// throws IndexOverflowError ("FILE:LINE: ...") before anything is allocated. Values are parsed
/// as double (float for Value = float) and rounded to Value.
template <typename Value, typename Index = std::int32_t>
CsrMatrix<Value, Index> read_matrix_market(const std::filesystem::path& path,
                                           const ReadOptions& options = {},
                                           ReadReport* report = nullptr);

/// Writes a general real coordinate Matrix Market file (gzip-compressed when the name ends in
/// .gz), values with enough digits to read back exactly.
template <typename Value, typename Index>
void write_matrix_market(const std::filesystem::path& path,
                         const CsrMatrix<Value, Index>& matrix);

/// Reads a DLMC .smtx file: "rows, cols, nnz", then the row offsets, then the column indices.
/// The file holds no values: they are generated from options.pattern_seed.
///
/// Line 1 holds rows, cols and nnz; line 2 the rows + 1 row offsets (starting at 0,
/// non-decreasing, ending at nnz); line 3 the nnz 0-based column indices, each in [0, cols).
/// Numbers are separated by blanks and/or commas; a .gz file is inflated. Columns that are not
/// sorted within a row are sorted (each keeps its generated value); a column that appears twice
/// in a row is a ParseError (line 3), as is any other broken rule (with its line).
template <typename Value, typename Index = std::int32_t>
CsrMatrix<Value, Index> read_smtx(const std::filesystem::path& path,
                                  const ReadOptions& options = {},
                                  ReadReport* report = nullptr);

/// Reads any supported file, choosing the reader by extension (.mtx, .mtx.gz, .smtx, .smtx.gz).
template <typename Value, typename Index = std::int32_t>
CsrMatrix<Value, Index> read_matrix(const std::filesystem::path& path,
                                    const ReadOptions& options = {},
                                    ReadReport* report = nullptr);

/// Writes by extension: .mtx / .mtx.gz (Matrix Market) or .smtx (topology only).
template <typename Value, typename Index>
void write_matrix(const std::filesystem::path& path, const CsrMatrix<Value, Index>& matrix);

}  // namespace tcsparse
