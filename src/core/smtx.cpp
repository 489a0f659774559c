// DLMC .smtx reader and writer (CSR topology only; values come from a seed).
//
//   line 1   rows, cols, nnz
//   line 2   rows + 1 row offsets (0, ..., nnz), non-decreasing
//   line 3   nnz column indices, 0-based, row after row
//
// Numbers are separated by blanks and/or commas.
#include <algorithm>
#include <charconv>
#include <limits>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "core/csr_assembly.hpp"
#include "core/file_io.hpp"
#include "common/parallel.hpp"
#include "common/stopwatch.hpp"
#include "core/pattern_values.hpp"
#include "core/smtx_parser.hpp"
#include "core/text_parsing.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"
#include "tcsparse/memory.hpp"

namespace tcsparse {

namespace {

std::string str(std::int64_t value) { return std::to_string(value); }

constexpr bool is_separator(char c) { return c == ',' || detail::is_blank(c); }

/// The numbers of one line, parsed one at a time.
class NumberLine {
 public:
  NumberLine(std::string_view line, const std::string& name, std::int64_t number)
      : p_(line.data()), end_(line.data() + line.size()), name_(name), number_(number) {}

  /// The next number, or false at the end of the line. `what` names it in messages.
  bool next(std::int64_t& value, const std::string& what) {
    while (p_ < end_ && is_separator(*p_)) ++p_;
    if (p_ == end_) return false;
    const auto [after, status] = std::from_chars(p_, end_, value);
    if (status != std::errc{} || (after < end_ && !is_separator(*after))) {
      const char* token_end = p_;
      while (token_end < end_ && !is_separator(*token_end)) ++token_end;
      throw ParseError(name_, number_,
                       "malformed " + what + " '" +
                           detail::line_preview(std::string_view(p_, static_cast<std::size_t>(token_end - p_)), 40) +
                           "'" +
                           (status == std::errc::result_out_of_range ? " (too large)"
                                                                     : ": expected an integer"));
    }
    p_ = after;
    return true;
  }

  std::size_t remaining_bytes() const { return static_cast<std::size_t>(end_ - p_); }

 private:
  const char* p_;
  const char* end_;
  const std::string& name_;
  std::int64_t number_;
};

/// Splits text into lines (without '\n').
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) {
      lines.push_back(text.substr(start));
      break;
    }
    lines.push_back(text.substr(start, newline - start));
    start = newline + 1;
  }
  return lines;
}

bool is_blank_line(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return detail::is_blank(c); });
}

/// Reads the numbers of a line into `out` (at most `expected` + 1 of them, to report a surplus).
/// Numbers must be non-negative and fit Index.
template <typename Index>
std::int64_t read_numbers(NumberLine& line, std::int64_t expected, const std::string& what,
                          std::vector<Index>& out, const std::string& name, std::int64_t number) {
  // Each number takes at least two bytes (digit and separator), bounding the allocation by the
  // line's length whatever the header claims.
  out.reserve(static_cast<std::size_t>(
      std::min<std::int64_t>(expected, static_cast<std::int64_t>(line.remaining_bytes() / 2 + 1))));
  std::int64_t value = 0;
  std::int64_t count = 0;
  while (line.next(value, what)) {
    ++count;
    if (count > expected) break;
    if (value < 0)
      throw ParseError(name, number, "negative " + what + " " + str(value) + " (number " +
                                         str(count) + " on the line)");
    if (value > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
      throw ParseError(name, number, what + " " + str(value) + " (number " + str(count) +
                                         " on the line) does not fit " +
                                         detail::index_width_name<Index>() + " indices");
    out.push_back(static_cast<Index>(value));
  }
  return count;
}

}  // namespace

namespace detail {

std::size_t smtx_text_limit(std::string_view prefix, const std::string& name) {
  const std::size_t newline = prefix.find('\n');
  if (newline == std::string_view::npos) {
    if (prefix.size() < kSmtxPrefixBytes) return prefix.size();  // all of it: the parser says why
    throw ParseError(name, 1,
                     "line 1 '" + line_preview(prefix.substr(0, 40)) + "' does not end within " +
                         std::to_string(prefix.size()) +
                         " bytes: expected 'rows, columns, nonzeros'");
  }
  // Line 1 checked as parse_smtx_text checks it (same messages).
  parse_smtx_text<double, std::int64_t>(prefix.substr(0, newline), name, ReadOptions{}, nullptr,
                                        /*header_only=*/true);
  NumberLine header(prefix.substr(0, newline), name, 1);
  std::int64_t sizes[3] = {};
  for (std::int64_t& size : sizes) header.next(size, "size");
  // Every number of lines 2 and 3 with its separators in at most this many bytes; blank lines
  // and a little slack on top.
  constexpr std::uint64_t kMaxNumberBytes = 32;
  const auto numbers = static_cast<std::uint64_t>(sizes[0]) + 1 + static_cast<std::uint64_t>(sizes[2]);
  const std::uint64_t limit = newline + 4096 + numbers * kMaxNumberBytes;
  return static_cast<std::size_t>(std::min<std::uint64_t>(limit, std::numeric_limits<std::size_t>::max() / 2));
}

template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_smtx_text(std::string_view text, const std::string& name,
                                        const ReadOptions& options, ReadReport* report,
                                        bool header_only) {
  const Stopwatch stopwatch;
  if (text.empty()) throw ParseError(name, 0, "empty file: expected 'rows, columns, nonzeros'");
  const std::vector<std::string_view> lines = split_lines(text);

  // Line 1: rows, cols, nnz.
  NumberLine header(lines[0], name, 1);
  std::int64_t sizes[3] = {};
  static constexpr const char* kSizeNames[] = {"rows", "columns", "nonzeros"};
  for (int i = 0; i < 3; ++i) {
    if (!header.next(sizes[i], std::string("number of ") + kSizeNames[i]))
      throw ParseError(name, 1,
                       "malformed header '" + line_preview(lines[0]) +
                           "': expected 'rows, columns, nonzeros'");
    if (sizes[i] < 0)
      throw ParseError(name, 1, std::string("negative number of ") + kSizeNames[i] + ": " +
                                    str(sizes[i]));
    if (sizes[i] > static_cast<std::int64_t>(std::numeric_limits<Index>::max()))
      throw IndexOverflowError(name + ":1: " + str(sizes[i]) + " " + kSizeNames[i] +
                               " do not fit " + index_width_name<Index>() +
                               " indices; read it with 64-bit indices");
  }
  {
    std::int64_t extra = 0;
    if (header.next(extra, "number"))
      throw ParseError(name, 1,
                       "malformed header '" + line_preview(lines[0]) +
                           "': expected exactly 'rows, columns, nonzeros'");
  }
  const std::int64_t rows = sizes[0], cols = sizes[1], nnz = sizes[2];
  if (header_only) return {};

  // Line 2: row offsets.
  if (lines.size() < 2)
    throw ParseError(name, 1, "missing line 2: expected " + str(rows + 1) + " row offsets");
  CsrMatrix<Value, Index> matrix;
  matrix.rows = static_cast<Index>(rows);
  matrix.cols = static_cast<Index>(cols);
  matrix.row_ptr.clear();
  {
    NumberLine offsets(lines[1], name, 2);
    const std::int64_t found = read_numbers(offsets, rows + 1, "row offset", matrix.row_ptr, name, 2);
    if (found != rows + 1)
      throw ParseError(name, 2,
                       "expected rows + 1 = " + str(rows + 1) + " row offsets, found " +
                           (found > rows + 1 ? "more" : str(found)));
  }
  if (matrix.row_ptr[0] != 0)
    throw ParseError(name, 2, "the first row offset is " + str(matrix.row_ptr[0]) + ", expected 0");
  for (std::int64_t row = 0; row < rows; ++row) {
    const auto current = matrix.row_ptr[static_cast<std::size_t>(row)];
    const auto next = matrix.row_ptr[static_cast<std::size_t>(row) + 1];
    if (next < current)
      throw ParseError(name, 2,
                       "row offset " + str(row + 1) + " is " + str(next) + ", less than the previous offset " + str(current) +
                           " (offsets must not decrease)");
  }
  if (matrix.row_ptr.back() != nnz)
    throw ParseError(name, 2,
                     "the last row offset is " + str(matrix.row_ptr.back()) +
                         ", expected the number of nonzeros " + str(nnz));

  // Line 3: column indices (absent or blank when nnz is 0).
  if (nnz > 0 && lines.size() < 3)
    throw ParseError(name, 2, "missing line 3: expected " + str(nnz) + " column indices");
  if (lines.size() >= 3) {
    NumberLine columns(lines[2], name, 3);
    const std::int64_t found = read_numbers(columns, nnz, "column index", matrix.col_idx, name, 3);
    if (found != nnz)
      throw ParseError(name, 3,
                       "expected " + str(nnz) + " column indices, found " +
                           (found > nnz ? "more" : str(found)));
  }
  for (std::size_t line = 3; line < lines.size(); ++line)
    if (!is_blank_line(lines[line]))
      throw ParseError(name, static_cast<std::int64_t>(line) + 1,
                       "unexpected text after the column indices: '" +
                           line_preview(lines[line], 40) + "'");

  // Columns in range; rows sorted (entry numbers travel with their columns, so values do too);
  // duplicates refused.
  const int threads = options.threads;
  const std::int64_t out_of_range = first_failing(nnz, threads, [&](std::int64_t k) {
    const auto column = matrix.col_idx[static_cast<std::size_t>(k)];
    return column < 0 || column >= cols;
  });
  if (out_of_range >= 0) {
    const auto row = std::upper_bound(matrix.row_ptr.begin(), matrix.row_ptr.end(),
                                      static_cast<Index>(out_of_range)) -
                     matrix.row_ptr.begin() - 1;
    throw ParseError(name, 3,
                     "column index " + str(matrix.col_idx[static_cast<std::size_t>(out_of_range)]) +
                         " (entry " + str(out_of_range) + ", row " + str(row) +
                         ") is out of range [0, " + str(cols) + ")");
  }
  matrix.values.resize(static_cast<std::size_t>(nnz));
  std::int64_t first_duplicate_row = std::numeric_limits<std::int64_t>::max();
  const int team = threads_for(nnz + rows, threads);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    std::vector<std::pair<Index, std::int64_t>> row_entries;  // (column, entry number)
#pragma omp for schedule(dynamic, 256) reduction(min : first_duplicate_row)
    for (std::int64_t row = 0; row < rows; ++row) {
      const auto begin = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)]);
      const auto end = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row) + 1]);
      const auto first = matrix.col_idx.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = matrix.col_idx.begin() + static_cast<std::ptrdiff_t>(end);
      if (std::adjacent_find(first, last, [](Index a, Index b) { return a >= b; }) == last) {
        for (std::size_t k = begin; k < end; ++k)
          matrix.values[k] = from_double<Value>(pattern_value(options.pattern_seed, k));
        continue;
      }
      row_entries.clear();
      for (std::size_t k = begin; k < end; ++k)
        row_entries.emplace_back(matrix.col_idx[k], static_cast<std::int64_t>(k));
      std::sort(row_entries.begin(), row_entries.end());
      for (std::size_t k = begin; k < end; ++k) {
        const auto& [column, entry] = row_entries[k - begin];
        if (k > begin && column == row_entries[k - begin - 1].first)
          first_duplicate_row = std::min(first_duplicate_row, row);
        matrix.col_idx[k] = column;
        matrix.values[k] = from_double<Value>(
            pattern_value(options.pattern_seed, static_cast<std::uint64_t>(entry)));
      }
    }
  }
  if (first_duplicate_row != std::numeric_limits<std::int64_t>::max()) {
    const auto row = static_cast<std::size_t>(first_duplicate_row);
    std::int64_t column = -1;
    for (auto k = matrix.row_ptr[row] + 1; k < matrix.row_ptr[row + 1]; ++k)
      if (matrix.col_idx[static_cast<std::size_t>(k)] == matrix.col_idx[static_cast<std::size_t>(k) - 1]) {
        column = matrix.col_idx[static_cast<std::size_t>(k)];
        break;
      }
    throw ParseError(name, 3,
                     "row " + str(first_duplicate_row) + " has column " + str(column) +
                         " twice (duplicate entries are not allowed in .smtx files)");
  }
  if (report != nullptr) {
    report->text_bytes = text.size();
    report->entries_in_file = nnz;
    report->parse_seconds = stopwatch.elapsed_seconds();
    report->assemble_seconds = 0.0;
    report->field = "pattern";
    report->symmetry = "general";
  }
  return matrix;
}

}  // namespace detail

template <typename Value, typename Index>
CsrMatrix<Value, Index> read_smtx(const std::filesystem::path& path, const ReadOptions& options,
                                  ReadReport* report) {
  const std::string name = path.string();
  try {
    // A small buffer for the first bytes: line 1 bounds the text, so that a huge or endless
    // input (a device, a gzip bomb) is refused after a few kilobytes.
        detail::TextReader reader(path, detail::kSmtxPrefixBytes, options.threads);
    const detail::Stopwatch stopwatch;
    const detail::ByteBuffer text = reader.read_rest(
        [&](std::string_view prefix) { return detail::smtx_text_limit(prefix, name); });
    const double read_seconds = stopwatch.elapsed_seconds();
    auto matrix = detail::parse_smtx_text<Value, Index>(text.view(), name, options, report);
    if (report != nullptr) {
      report->file_bytes = reader.source_bytes_read();
      report->read_seconds = read_seconds;
    }
    return matrix;
  } catch (const std::bad_alloc&) {
    detail::throw_out_of_memory_reading(name);
  }
}

namespace detail {

template <typename Value, typename Index>
void write_smtx(const std::filesystem::path& path, const CsrMatrix<Value, Index>& matrix) {
  matrix.validate();
  OutputFile file(path);
  file.write(str(matrix.rows) + ", " + str(matrix.cols) + ", " + str(matrix.nnz()) + "\n");
  // Line 2 (the row offsets) then line 3 (the column indices), in pieces of kWriteBlockNumbers
  // numbers formatted in parallel and written in order.
  constexpr std::int64_t kWriteBlockNumbers = std::int64_t{1} << 19;
  constexpr std::size_t kMaxNumberText = 20 + 1;  // a 64-bit integer and its separator
  const auto offsets = static_cast<std::int64_t>(matrix.row_ptr.size());
  const auto columns = static_cast<std::int64_t>(matrix.col_idx.size());
  const auto pieces_for = [&](std::int64_t numbers) {
    return std::max<std::int64_t>(1, (numbers + kWriteBlockNumbers - 1) / kWriteBlockNumbers);
  };
  const std::int64_t offset_pieces = pieces_for(offsets);
  write_pieces_in_order(
      file, offset_pieces + pieces_for(columns), 0,
      [&](std::int64_t piece, UninitializedVector<char>& text) {
        const bool offset_line = piece < offset_pieces;
        const std::vector<Index>& numbers = offset_line ? matrix.row_ptr : matrix.col_idx;
        const std::int64_t block = offset_line ? piece : piece - offset_pieces;
        const auto count = static_cast<std::int64_t>(numbers.size());
        const std::int64_t first = block * kWriteBlockNumbers;
        const std::int64_t last = std::min(count, first + kWriteBlockNumbers);
        text.resize(static_cast<std::size_t>(std::max<std::int64_t>(last - first, 0)) * kMaxNumberText + 1);
        char* out = text.data();
        char* const limit = text.data() + text.size();
        for (std::int64_t i = first; i < last; ++i) {
          if (i > 0) *out++ = ' ';
          out = std::to_chars(out, limit, numbers[static_cast<std::size_t>(i)]).ptr;
        }
        if (last == count) *out++ = '\n';  // the line's last piece
        text.resize(static_cast<std::size_t>(out - text.data()));
      });
  file.close();
}

}  // namespace detail

#define TCSPARSE_INSTANTIATE_SMTX(Value, Index)                                                  \
  template CsrMatrix<Value, Index> read_smtx<Value, Index>(const std::filesystem::path&,         \
                                                           const ReadOptions&, ReadReport*);     \
  template CsrMatrix<Value, Index> detail::parse_smtx_text<Value, Index>(                        \
      std::string_view, const std::string&, const ReadOptions&, ReadReport*, bool);              \
  template void detail::write_smtx(const std::filesystem::path&, const CsrMatrix<Value, Index>&);

TCSPARSE_INSTANTIATE_SMTX(double, std::int32_t)
TCSPARSE_INSTANTIATE_SMTX(double, std::int64_t)
TCSPARSE_INSTANTIATE_SMTX(float, std::int32_t)
TCSPARSE_INSTANTIATE_SMTX(float, std::int64_t)
TCSPARSE_INSTANTIATE_SMTX(half, std::int32_t)
TCSPARSE_INSTANTIATE_SMTX(half, std::int64_t)
TCSPARSE_INSTANTIATE_SMTX(bfloat16, std::int32_t)
TCSPARSE_INSTANTIATE_SMTX(bfloat16, std::int64_t)

}  // namespace tcsparse
