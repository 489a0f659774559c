// CSR validation, COO -> CSR assembly, canonicalisation and conversions.
#include "tcsparse/csr.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/csr_assembly.hpp"
#include "core/csr_validation.hpp"
#include "core/csr_validation_messages.hpp"
#include "common/parallel.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {

namespace detail {

template <typename Value, typename Index>
void validate_csr_shape(const CsrMatrix<Value, Index>& m) {
  const auto str = [](std::int64_t v) { return std::to_string(v); };
  if (m.rows < 0) throw ValidationError(csr_message::negative_rows(m.rows));
  if (m.cols < 0) throw ValidationError(csr_message::negative_cols(m.cols));
  if (m.row_ptr.size() != static_cast<std::size_t>(m.rows) + 1)
    throw ValidationError("row_ptr has " + str(static_cast<std::int64_t>(m.row_ptr.size())) +
                          " entries, expected rows + 1 = " + str(std::int64_t{m.rows} + 1));
  if (m.values.size() != m.col_idx.size())
    throw ValidationError("values has " + str(static_cast<std::int64_t>(m.values.size())) +
                          " entries but col_idx has " +
                          str(static_cast<std::int64_t>(m.col_idx.size())) +
                          " (one value per column index)");
  if (m.row_ptr[0] != 0) throw ValidationError(csr_message::first_row_offset(m.row_ptr[0]));
}

}  // namespace detail

namespace {

using detail::first_failing;
using detail::threads_for;

template <typename T>
std::size_t to_size(T value) {
  return static_cast<std::size_t>(value);
}

std::string str(std::int64_t value) { return std::to_string(value); }

// ---- sort keys ------------------------------------------------------------------------------
// Every entry of a row is sorted by (column, source), where `source` identifies the stored entry
// it came from (its position, times two plus one for a mirrored copy). Sources are unique, so the
// order is total and does not depend on the order in which threads scattered the entries.

template <typename Index>
struct SortKeys;

/// 32-bit indices: column in the high half, source in the low half of one 64-bit integer.
/// Sources stay below 2^32 because nnz <= INT32_MAX (mirrored: 2 * nnz + 1 < 2^32).
template <>
struct SortKeys<std::int32_t> {
  using Key = std::uint64_t;
  static Key make(std::int32_t column, std::uint64_t source) {
    return (std::uint64_t{static_cast<std::uint32_t>(column)} << 32) | source;
  }
  static std::int32_t column(Key key) { return static_cast<std::int32_t>(key >> 32); }
  static std::uint64_t source(Key key) { return key & 0xffffffffu; }
};

template <>
struct SortKeys<std::int64_t> {
  struct Key {
    std::int64_t column;
    std::uint64_t source;
    bool operator<(const Key& other) const {
      return column < other.column || (column == other.column && source < other.source);
    }
  };
  static Key make(std::int64_t column, std::uint64_t source) { return Key{column, source}; }
  static std::int64_t column(const Key& key) { return key.column; }
  static std::uint64_t source(const Key& key) { return key.source; }
};

/// The column of the first duplicate in keys[begin, end) (sorted), or -1.
template <typename Index, typename Key>
std::int64_t first_duplicate_column(const detail::UninitializedVector<Key>& keys, std::int64_t begin,
                                    std::int64_t end) {
  using K = SortKeys<Index>;
  for (std::int64_t k = begin + 1; k < end; ++k)
    if (K::column(keys[to_size(k)]) == K::column(keys[to_size(k - 1)]))
      return K::column(keys[to_size(k)]);
  return -1;
}

/// Rows already grouped (row_ptr consistent, keys[row_ptr[r]..row_ptr[r+1]) the entries of row
/// r): sorts each row, gathers the values through value_of(source), sums duplicates in double
/// (or throws under DuplicatePolicy::error) and compacts.
template <typename Value, typename Index, typename ValueOf>
CsrMatrix<Value, Index> finish_rows(Index rows, Index cols, std::vector<Index> row_ptr,
                                    detail::UninitializedVector<typename SortKeys<Index>::Key> keys,
                                    ValueOf value_of, DuplicatePolicy duplicates, int threads) {
  using K = SortKeys<Index>;
  const auto total = static_cast<std::int64_t>(keys.size());
  std::vector<Index> col_idx(to_size(total));
  std::vector<Value> values(to_size(total));
  std::vector<Index> unique_counts(to_size(rows) + 1, 0);
  std::int64_t first_row_with_duplicate = std::numeric_limits<std::int64_t>::max();

  const int team = threads_for(total + rows, threads);
#pragma omp parallel for num_threads(team) schedule(dynamic, 512) if (team > 1) \
    reduction(min : first_row_with_duplicate)
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto begin = static_cast<std::int64_t>(row_ptr[to_size(row)]);
    const auto end = static_cast<std::int64_t>(row_ptr[to_size(row) + 1]);
    const auto first = keys.begin() + begin;
    const auto last = keys.begin() + end;
    if (!std::is_sorted(first, last)) std::sort(first, last);
    std::int64_t out = begin;
    for (std::int64_t k = begin; k < end;) {
      const Index column = K::column(keys[to_size(k)]);
      std::int64_t run_end = k + 1;
      while (run_end < end && K::column(keys[to_size(run_end)]) == column) ++run_end;
      if (run_end == k + 1) {
        values[to_size(out)] = value_of(K::source(keys[to_size(k)]));
      } else {
        double sum = 0.0;
        for (std::int64_t d = k; d < run_end; ++d)
          sum += to_double(value_of(K::source(keys[to_size(d)])));
        values[to_size(out)] = from_double<Value>(sum);
        first_row_with_duplicate = std::min(first_row_with_duplicate, row);
      }
      col_idx[to_size(out)] = column;
      ++out;
      k = run_end;
    }
    unique_counts[to_size(row)] = static_cast<Index>(out - begin);
  }

  CsrMatrix<Value, Index> result;
  result.rows = rows;
  result.cols = cols;
  if (first_row_with_duplicate == std::numeric_limits<std::int64_t>::max()) {
    result.row_ptr = std::move(row_ptr);
    result.col_idx = std::move(col_idx);
    result.values = std::move(values);
    return result;
  }
  if (duplicates == DuplicatePolicy::error) {
    const auto row = first_row_with_duplicate;
    const std::int64_t column = first_duplicate_column<Index>(
        keys, static_cast<std::int64_t>(row_ptr[to_size(row)]),
        static_cast<std::int64_t>(row_ptr[to_size(row) + 1]));
    throw ValidationError("duplicate entry at row " + str(row) + ", column " + str(column) +
                          " (0-based): DuplicatePolicy::error refuses duplicates");
  }
  keys = {};
  // Compact: the unique entries of row r sit at the start of its old range.
  const Index unique_total = detail::exclusive_scan_in_place(unique_counts, threads);
  result.row_ptr = std::move(unique_counts);
  result.col_idx.resize(to_size(unique_total));
  result.values.resize(to_size(unique_total));
#pragma omp parallel for num_threads(team) schedule(dynamic, 512) if (team > 1)
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto from = to_size(row_ptr[to_size(row)]);
    const auto to = to_size(result.row_ptr[to_size(row)]);
    const auto length = to_size(result.row_ptr[to_size(row) + 1]) - to;
    std::copy_n(col_idx.begin() + static_cast<std::ptrdiff_t>(from), length,
                result.col_idx.begin() + static_cast<std::ptrdiff_t>(to));
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(from), length,
                result.values.begin() + static_cast<std::ptrdiff_t>(to));
  }
  return result;
}

template <typename Value>
Value negated(Value value) {
  return from_double<Value>(-to_double(value));  // exact for every value type
}

/// Checks the row_ptr invariants (everything validate() checks but the columns).
template <typename Value, typename Index>
void validate_structure(const CsrMatrix<Value, Index>& m, int threads) {
  detail::validate_csr_shape(m);
  const std::int64_t decreasing_row = first_failing(m.rows, threads, [&](std::int64_t row) {
    return m.row_ptr[to_size(row) + 1] < m.row_ptr[to_size(row)];
  });
  if (decreasing_row >= 0)
    throw ValidationError(detail::csr_message::decreasing_row_offsets(
        decreasing_row, m.row_ptr[to_size(decreasing_row)],
        m.row_ptr[to_size(decreasing_row) + 1]));
  const auto nnz = static_cast<std::int64_t>(m.col_idx.size());
  if (static_cast<std::int64_t>(m.row_ptr.back()) != nnz)
    throw ValidationError(detail::csr_message::last_row_offset(m.row_ptr.back(), nnz));
}

/// The first row with a column out of [0, cols), or -1.
template <typename Value, typename Index>
std::int64_t first_row_with_column_out_of_range(const CsrMatrix<Value, Index>& m, int threads) {
  return first_failing(
      m.rows, threads,
      [&](std::int64_t row) {
        for (auto k = m.row_ptr[to_size(row)]; k < m.row_ptr[to_size(row) + 1]; ++k)
          if (m.col_idx[to_size(k)] < 0 || m.col_idx[to_size(k)] >= m.cols) return true;
        return false;
      },
      m.rows + static_cast<std::int64_t>(m.col_idx.size()));
}

template <typename Value, typename Index>
[[noreturn]] void throw_column_out_of_range(const CsrMatrix<Value, Index>& m, std::int64_t row) {
  for (auto k = m.row_ptr[to_size(row)]; k < m.row_ptr[to_size(row) + 1]; ++k) {
    const Index column = m.col_idx[to_size(k)];
    if (column < 0 || column >= m.cols)
      throw ValidationError(detail::csr_message::column_out_of_range(row, column, m.cols));
  }
  throw ValidationError("row " + str(row) + ": column out of range");  // not reached
}

}  // namespace

// ---- CsrMatrix::validate -----------------------------------------------------------------------

template <typename Value, typename Index>
void CsrMatrix<Value, Index>::validate() const {
  const int threads = 0;
  validate_structure(*this, threads);
  // the team follows the nonzeros: a matrix of few long rows (20 k rows x 1000) is checked by
  // every thread, not by one (its team was sized by rows; 20 M nonzeros now take 7 ms on the
  // 16-core H100 host, bench/results/2026-11-25-0318-h100-plan-build)
  const std::int64_t bad_row = first_failing(
      rows, threads,
      [&](std::int64_t row) {
        const auto begin = to_size(row_ptr[to_size(row)]);
        const auto end = to_size(row_ptr[to_size(row) + 1]);
        if (begin == end) return false;
        // a valid row ascends strictly within [0, cols): every step up, the first column >= 0
        // and the last < cols. The steps are checked without a branch a nonzero, so that the
        // loop vectorises (a DLMC layer of 26 k nonzeros: 3x faster than a test a nonzero).
        const Index* columns = col_idx.data() + begin;
        bool steps_down = false;
        for (std::size_t i = 1; i < end - begin; ++i) steps_down |= columns[i] <= columns[i - 1];
        return steps_down || columns[0] < 0 || columns[end - begin - 1] >= cols;
      },
      static_cast<std::int64_t>(rows) + static_cast<std::int64_t>(col_idx.size()));
  if (bad_row < 0) return;
  const auto begin = row_ptr[to_size(bad_row)];
  const auto end = row_ptr[to_size(bad_row) + 1];
  for (auto k = begin; k < end; ++k) {
    const Index column = col_idx[to_size(k)];
    if (column < 0 || column >= cols) throw_column_out_of_range(*this, bad_row);
    if (k == begin) continue;
    const Index previous = col_idx[to_size(k) - 1];
    if (column == previous)
      throw ValidationError(detail::csr_message::duplicate_column(bad_row, column));
    if (column < previous)
      throw ValidationError(detail::csr_message::unsorted_column(bad_row, column, previous));
  }
}

// ---- assembly ---------------------------------------------------------------------------------

namespace detail {

template <typename Value, typename Index>
CsrMatrix<Value, Index> assemble_csr(Index rows, Index cols, std::span<const Index> row_idx,
                                     std::span<const Index> col_idx,
                                     std::span<const Value> values,
                                     const AssemblyOptions& options,
                                     const std::function<void()>& release_indices) {
  using K = SortKeys<Index>;
  const auto stored = static_cast<std::int64_t>(row_idx.size());
  const bool mirrored = options.mirror != Mirror::none;
  const int team = threads_for(stored, options.threads);

  std::int64_t off_diagonal = 0;
  if (mirrored) {
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1) \
    reduction(+ : off_diagonal)
    for (std::int64_t e = 0; e < stored; ++e)
      off_diagonal += row_idx[to_size(e)] != col_idx[to_size(e)] ? 1 : 0;
  }
  const std::int64_t total = stored + off_diagonal;
  if (total > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
    throw IndexOverflowError(str(total) + " nonzeros" +
                             (mirrored ? std::string(" (after symmetric expansion)") : "") +
                             " do not fit " + index_width_name<Index>() + " indices");

  // Count per row (row_ptr[r] = entries of row r), then the exclusive prefix sum: row starts.
  std::vector<Index> row_ptr(to_size(rows) + 1, 0);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::int64_t e = 0; e < stored; ++e) {
    const Index row = row_idx[to_size(e)];
    const Index column = col_idx[to_size(e)];
#pragma omp atomic update
    ++row_ptr[to_size(row)];
    if (mirrored && row != column) {
#pragma omp atomic update
      ++row_ptr[to_size(column)];
    }
  }
  detail::exclusive_scan_in_place(row_ptr, options.threads);

  // Scatter: each entry takes the next free slot of its row (in any order; sorted later).
  detail::UninitializedVector<typename K::Key> keys(to_size(total));
  {
    std::vector<Index> cursor(row_ptr.begin(), row_ptr.end() - 1);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (std::int64_t e = 0; e < stored; ++e) {
      const Index row = row_idx[to_size(e)];
      const Index column = col_idx[to_size(e)];
      const auto source = static_cast<std::uint64_t>(e);
      Index slot;
#pragma omp atomic capture
      slot = cursor[to_size(row)]++;
      keys[to_size(slot)] = K::make(column, mirrored ? 2 * source : source);
      if (mirrored && row != column) {
#pragma omp atomic capture
        slot = cursor[to_size(column)]++;
        keys[to_size(slot)] = K::make(row, 2 * source + 1);
      }
    }
  }
  if (release_indices) release_indices();

  const bool skew = options.mirror == Mirror::skew_symmetric;
  auto value_of = [&](std::uint64_t source) -> Value {
    if (!mirrored) return values[to_size(source)];
    const Value value = values[to_size(source >> 1)];
    return (skew && (source & 1u)) ? negated(value) : value;
  };
  return finish_rows<Value, Index>(rows, cols, std::move(row_ptr), std::move(keys), value_of,
                                   options.duplicates, options.threads);
}

}  // namespace detail

template <typename Value, typename Index>
CsrMatrix<Value, Index> csr_from_coo(const CooMatrix<Value, Index>& coo,
                                     DuplicatePolicy duplicates) {
  if (coo.rows < 0) throw ValidationError("negative number of rows: " + str(coo.rows));
  if (coo.cols < 0) throw ValidationError("negative number of columns: " + str(coo.cols));
  if (coo.col_idx.size() != coo.row_idx.size() || coo.values.size() != coo.row_idx.size())
    throw ValidationError("COO arrays differ in length: row_idx " +
                          str(static_cast<std::int64_t>(coo.row_idx.size())) + ", col_idx " +
                          str(static_cast<std::int64_t>(coo.col_idx.size())) + ", values " +
                          str(static_cast<std::int64_t>(coo.values.size())));
  const auto entries = static_cast<std::int64_t>(coo.size());
  const std::int64_t bad = first_failing(entries, 0, [&](std::int64_t e) {
    const Index row = coo.row_idx[to_size(e)];
    const Index column = coo.col_idx[to_size(e)];
    return row < 0 || row >= coo.rows || column < 0 || column >= coo.cols;
  });
  if (bad >= 0)
    throw ValidationError("entry " + str(bad) + " (row " + str(coo.row_idx[to_size(bad)]) +
                          ", column " + str(coo.col_idx[to_size(bad)]) +
                          ") is out of range for a " + str(coo.rows) + " x " + str(coo.cols) +
                          " matrix (indices are 0-based)");
  detail::AssemblyOptions options;
  options.duplicates = duplicates;
  return detail::assemble_csr<Value, Index>(coo.rows, coo.cols, coo.row_idx, coo.col_idx,
                                            coo.values, options);
}

template <typename Value, typename Index>
void canonicalize(CsrMatrix<Value, Index>& matrix) {
  using K = SortKeys<Index>;
  const int threads = 0;
  validate_structure(matrix, threads);
  const std::int64_t out_of_range = first_row_with_column_out_of_range(matrix, threads);
  if (out_of_range >= 0) throw_column_out_of_range(matrix, out_of_range);
  const std::int64_t unsorted = first_failing(matrix.rows, threads, [&](std::int64_t row) {
    for (auto k = matrix.row_ptr[to_size(row)] + 1; k < matrix.row_ptr[to_size(row) + 1]; ++k)
      if (matrix.col_idx[to_size(k)] <= matrix.col_idx[to_size(k) - 1]) return true;
    return false;
  });
  if (unsorted < 0) return;  // already canonical

  const auto nnz = static_cast<std::int64_t>(matrix.col_idx.size());
  detail::UninitializedVector<typename K::Key> keys(to_size(nnz));
  const int team = threads_for(nnz, threads);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::int64_t k = 0; k < nnz; ++k)
    keys[to_size(k)] = K::make(matrix.col_idx[to_size(k)], static_cast<std::uint64_t>(k));
  matrix.col_idx = {};
  const std::vector<Value> old_values = std::move(matrix.values);
  auto value_of = [&](std::uint64_t source) { return old_values[to_size(source)]; };
  matrix = finish_rows<Value, Index>(matrix.rows, matrix.cols, std::move(matrix.row_ptr),
                                     std::move(keys), value_of, DuplicatePolicy::sum, threads);
}

template <typename ToValue, typename Value, typename Index>
CsrMatrix<ToValue, Index> convert_values(const CsrMatrix<Value, Index>& matrix) {
  CsrMatrix<ToValue, Index> result;
  result.rows = matrix.rows;
  result.cols = matrix.cols;
  result.row_ptr = matrix.row_ptr;
  result.col_idx = matrix.col_idx;
  const auto size = static_cast<std::int64_t>(matrix.values.size());
  result.values.resize(to_size(size));
  const int team = threads_for(size, 0);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::int64_t k = 0; k < size; ++k) {
    if constexpr (std::is_same_v<ToValue, Value>)
      result.values[to_size(k)] = matrix.values[to_size(k)];
    else if constexpr (std::is_same_v<ToValue, half> || std::is_same_v<ToValue, bfloat16>)
      // From float directly, so that float -> half rounds once; from double through float.
      result.values[to_size(k)] = ToValue(static_cast<float>(to_double(matrix.values[to_size(k)])));
    else
      result.values[to_size(k)] = static_cast<ToValue>(to_double(matrix.values[to_size(k)]));
  }
  return result;
}

template <typename ToIndex, typename Value, typename Index>
CsrMatrix<Value, ToIndex> convert_indices(const CsrMatrix<Value, Index>& matrix) {
  constexpr auto limit = static_cast<std::int64_t>(std::numeric_limits<ToIndex>::max());
  const auto check = [&](std::int64_t count, const char* what) {
    if (count > limit)
      throw IndexOverflowError(str(count) + " " + what + " do not fit " +
                               detail::index_width_name<ToIndex>() + " indices (at most " +
                               str(limit) + ")");
  };
  check(matrix.rows, "rows");
  check(matrix.cols, "columns");
  check(static_cast<std::int64_t>(matrix.col_idx.size()), "nonzeros");

  CsrMatrix<Value, ToIndex> result;
  result.rows = static_cast<ToIndex>(matrix.rows);
  result.cols = static_cast<ToIndex>(matrix.cols);
  result.row_ptr.resize(matrix.row_ptr.size());
  result.col_idx.resize(matrix.col_idx.size());
  const auto copy = [](const std::vector<Index>& from, std::vector<ToIndex>& to) {
    const auto size = static_cast<std::int64_t>(from.size());
    const int team = threads_for(size, 0);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (std::int64_t k = 0; k < size; ++k) to[to_size(k)] = static_cast<ToIndex>(from[to_size(k)]);
  };
  copy(matrix.row_ptr, result.row_ptr);
  copy(matrix.col_idx, result.col_idx);
  result.values = matrix.values;
  return result;
}

template <typename Value, typename Index>
RowLengthStats row_length_stats(const CsrMatrix<Value, Index>& matrix) {
  RowLengthStats stats;
  stats.rows = matrix.rows;
  stats.cols = matrix.cols;
  stats.nnz = static_cast<std::int64_t>(matrix.col_idx.size());
  if (matrix.rows <= 0) return stats;

  constexpr int kBuckets = 64;  // bit_width of a 64-bit length is at most 64
  std::int64_t empty = 0;
  std::int64_t min_length = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_length = 0;
  double sum_of_squares = 0.0;
  std::vector<std::int64_t> histogram(kBuckets + 1, 0);
  const int team = threads_for(matrix.rows, 0);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<std::int64_t> local(kBuckets + 1, 0);
#pragma omp for schedule(static) reduction(+ : empty, sum_of_squares) \
    reduction(min : min_length) reduction(max : max_length)
    for (std::int64_t row = 0; row < matrix.rows; ++row) {
      const auto length = static_cast<std::int64_t>(matrix.row_ptr[to_size(row) + 1] -
                                                    matrix.row_ptr[to_size(row)]);
      empty += length == 0 ? 1 : 0;
      min_length = std::min(min_length, length);
      max_length = std::max(max_length, length);
      sum_of_squares += static_cast<double>(length) * static_cast<double>(length);
      ++local[to_size(std::bit_width(static_cast<std::uint64_t>(length)))];
    }
#pragma omp critical
    for (std::size_t b = 0; b < local.size(); ++b) histogram[b] += local[b];
  }
  stats.empty_rows = empty;
  stats.min_length = min_length;
  stats.max_length = max_length;
  const auto rows = static_cast<double>(matrix.rows);
  stats.mean_length = static_cast<double>(stats.nnz) / rows;
  const double variance = sum_of_squares / rows - stats.mean_length * stats.mean_length;
  stats.stddev_length = std::sqrt(std::max(0.0, variance));
  histogram.resize(to_size(std::bit_width(static_cast<std::uint64_t>(max_length))) + 1);
  stats.log2_histogram = std::move(histogram);
  return stats;
}

// ---- explicit instantiations ------------------------------------------------------------------

#define TCSPARSE_INSTANTIATE_CSR(Value, Index)                                                   \
  template struct CsrMatrix<Value, Index>;                                                       \
  template CsrMatrix<Value, Index> csr_from_coo(const CooMatrix<Value, Index>&, DuplicatePolicy); \
  template void canonicalize(CsrMatrix<Value, Index>&);                                          \
  template void detail::validate_csr_shape(const CsrMatrix<Value, Index>&);                      \
  template RowLengthStats row_length_stats(const CsrMatrix<Value, Index>&);                      \
  template CsrMatrix<Value, std::int32_t> convert_indices<std::int32_t>(                         \
      const CsrMatrix<Value, Index>&);                                                           \
  template CsrMatrix<Value, std::int64_t> convert_indices<std::int64_t>(                         \
      const CsrMatrix<Value, Index>&);                                                           \
  template CsrMatrix<double, Index> convert_values<double>(const CsrMatrix<Value, Index>&);      \
  template CsrMatrix<float, Index> convert_values<float>(const CsrMatrix<Value, Index>&);        \
  template CsrMatrix<half, Index> convert_values<half>(const CsrMatrix<Value, Index>&);          \
  template CsrMatrix<bfloat16, Index> convert_values<bfloat16>(const CsrMatrix<Value, Index>&);  \
  template CsrMatrix<Value, Index> detail::assemble_csr(                                         \
      Index, Index, std::span<const Index>, std::span<const Index>, std::span<const Value>,     \
      const detail::AssemblyOptions&, const std::function<void()>&);

#define TCSPARSE_INSTANTIATE_CSR_VALUE(Value)  \
  TCSPARSE_INSTANTIATE_CSR(Value, std::int32_t) \
  TCSPARSE_INSTANTIATE_CSR(Value, std::int64_t)

TCSPARSE_INSTANTIATE_CSR_VALUE(double)
TCSPARSE_INSTANTIATE_CSR_VALUE(float)
TCSPARSE_INSTANTIATE_CSR_VALUE(half)
TCSPARSE_INSTANTIATE_CSR_VALUE(bfloat16)

}  // namespace tcsparse
