// COO -> CSR assembly shared by csr_from_coo and the readers (private to src/core).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "tcsparse/csr.hpp"

namespace tcsparse::detail {

/// How stored entries stand for the matrix: as they are, or one triangle of a symmetric
/// (A = A^T) or skew-symmetric (A = -A^T) matrix whose off-diagonal entries are mirrored.
enum class Mirror { none, symmetric, skew_symmetric };

struct AssemblyOptions {
  Mirror mirror = Mirror::none;
  DuplicatePolicy duplicates = DuplicatePolicy::sum;
  int threads = 0;  ///< 0: all of OpenMP's
};

/// Builds a valid CSR matrix from entries whose indices are already known to be in range:
/// counting sort by row (atomic counts, prefix sum, scatter), then the columns of every row
/// sorted by (column, entry number), so the result — and the order in which duplicates are
/// summed (in double) — does not depend on the number of threads. Mirrored entries take the
/// stored value (negated for skew-symmetric). Throws IndexOverflowError when the expanded
/// number of nonzeros does not fit Index, ValidationError for a duplicate under
/// DuplicatePolicy::error.
///
/// `release_indices` is called as soon as row_idx and col_idx are no longer read, so that a
/// caller that owns them can free them before the output arrays are allocated.
template <typename Value, typename Index>
CsrMatrix<Value, Index> assemble_csr(Index rows, Index cols, std::span<const Index> row_idx,
                                     std::span<const Index> col_idx,
                                     std::span<const Value> values,
                                     const AssemblyOptions& options,
                                     const std::function<void()>& release_indices = {});

/// "32-bit" or "64-bit", for messages.
template <typename Index>
constexpr const char* index_width_name() {
  return sizeof(Index) == 4 ? "32-bit" : "64-bit";
}

}  // namespace tcsparse::detail
