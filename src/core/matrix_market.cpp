// Matrix Market coordinate reader (parallel) and writer (parallel).
//
// Reading: the text arrives through TextReader's fixed buffer in pieces of whole lines; the
// banner and the size line are parsed serially; the COO arrays get room for the declared count
// (capped by what a plain file's size can hold) before the first piece, and grow as pieces
// arrive only for gzip text. Each piece is split into chunks at line boundaries; a first
// parallel pass counts the newlines of every chunk (so each chunk knows the 1-based number of
// its first line and where its entries go), a second pass parses the chunks with
// std::from_chars into the COO arrays. The COO entries are then assembled into CSR by a
// parallel counting sort (core/csr_assembly.hpp), mirroring the stored triangle of symmetric
// files.
//
// Writing: pieces of whole rows formatted (and for .gz compressed) in parallel and written in
// order (write_pieces_in_order in core/file_io).
#include <locale.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/csr_assembly.hpp"
#include "core/file_io.hpp"
#include "core/matrix_market_parser.hpp"
#include "common/parallel.hpp"
#include "common/stopwatch.hpp"
#include "core/pattern_values.hpp"
#include "core/text_parsing.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"
#include "tcsparse/memory.hpp"

namespace tcsparse {

namespace {

using detail::is_blank;
using detail::skip_blanks;
using detail::token_preview;

constexpr std::string_view kBannerForm =
    "%%MatrixMarket matrix coordinate <real|integer|pattern> "
    "<general|symmetric|skew-symmetric|hermitian>";
/// Chunks per thread: a few, so that dynamic scheduling evens out uneven chunks.
constexpr std::int64_t kChunksPerThread = 4;

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric, hermitian };

std::string field_name(Field field) {
  switch (field) {
    case Field::real: return "real";
    case Field::integer: return "integer";
    case Field::pattern: return "pattern";
  }
  return "?";
}

std::string symmetry_name(Symmetry symmetry) {
  switch (symmetry) {
    case Symmetry::general: return "general";
    case Symmetry::symmetric: return "symmetric";
    case Symmetry::skew_symmetric: return "skew-symmetric";
    case Symmetry::hermitian: return "hermitian";
  }
  return "?";
}

std::string str(std::int64_t value) { return std::to_string(value); }

std::vector<std::string_view> split_blanks(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_blank(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::string quoted(std::string_view token) {
  return "'" + detail::line_preview(token, 40) + "'";
}

// ---- header -----------------------------------------------------------------------------------

struct Header {
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::int64_t rows = 0, cols = 0, entries = 0;
  std::int64_t size_line = 0;           ///< 1-based line of "rows cols entries"
  std::int64_t entries_first_line = 0;  ///< its 1-based number
};

/// Reads lines one by one with their 1-based numbers (for the header).
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool done() const { return offset_ >= text_.size(); }
  /// The next line without its '\n'.
  std::string_view next() {
    const std::size_t newline = text_.find('\n', offset_);
    const std::size_t stop = newline == std::string_view::npos ? text_.size() : newline;
    const std::string_view line = text_.substr(offset_, stop - offset_);
    offset_ = newline == std::string_view::npos ? text_.size() : newline + 1;
    ++number_;
    return line;
  }
  std::int64_t number() const { return number_; }
  std::size_t offset() const { return offset_; }

 private:
  std::string_view text_;
  std::size_t offset_ = 0;
  std::int64_t number_ = 0;
};

bool is_comment_or_blank(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t\r\v\f");
  return first == std::string_view::npos || line[first] == '%';
}

/// Checks the banner (line 1) and sets the field and symmetry.
void parse_banner(std::string_view banner, const std::string& name, Header& header) {
  const auto tokens = split_blanks(banner);
  if (tokens.empty() || detail::lowercase(tokens[0]) != "%%matrixmarket")
    throw ParseError(name, 1,
                     "expected the banner '" + std::string(kBannerForm) + "', found " +
                         quoted(banner));
  if (tokens.size() < 5)
    throw ParseError(name, 1,
                     "incomplete banner " + quoted(banner) + ": expected '" +
                         std::string(kBannerForm) + "'");
  const std::string object = detail::lowercase(tokens[1]);
  const std::string format = detail::lowercase(tokens[2]);
  const std::string field = detail::lowercase(tokens[3]);
  const std::string symmetry = detail::lowercase(tokens[4]);
  if (object != "matrix")
    throw ParseError(name, 1, "unsupported object " + quoted(tokens[1]) + ": only 'matrix'");
  if (format == "array")
    throw ParseError(name, 1,
                     "array (dense) format is not supported: only 'coordinate' (sparse) files");
  if (format != "coordinate")
    throw ParseError(name, 1, "unknown format " + quoted(tokens[2]) + ": expected 'coordinate'");

  if (field == "real" || field == "double") header.field = Field::real;
  else if (field == "integer") header.field = Field::integer;
  else if (field == "pattern") header.field = Field::pattern;
  else if (field == "complex")
    throw ParseError(name, 1,
                     "complex values are not supported (field 'complex'): only real, integer "
                     "or pattern files");
  else
    throw ParseError(name, 1,
                     "unknown field " + quoted(tokens[3]) +
                         ": expected real, integer or pattern");

  if (symmetry == "general") header.symmetry = Symmetry::general;
  else if (symmetry == "symmetric") header.symmetry = Symmetry::symmetric;
  else if (symmetry == "skew-symmetric") header.symmetry = Symmetry::skew_symmetric;
  else if (symmetry == "hermitian") header.symmetry = Symmetry::hermitian;  // real: symmetric
  else
    throw ParseError(name, 1,
                     "unknown symmetry " + quoted(tokens[4]) +
                         ": expected general, symmetric, skew-symmetric or hermitian");
  if (tokens.size() > 5)
    throw ParseError(name, 1, "unexpected " + quoted(tokens[5]) + " after the symmetry in the banner");

}

/// Parses the size line "rows columns entries" (line `number`).
template <typename Index>
void parse_size_line(std::string_view size_line, std::int64_t number, const std::string& name,
                     const detail::MatrixMarketTuning& tuning, Header& header) {
  header.size_line = number;
  const auto size_tokens = split_blanks(size_line);
  if (size_tokens.size() != 3)
    throw ParseError(name, header.size_line,
                     "malformed size line " + quoted(size_line) +
                         ": expected three integers 'rows columns entries'");
  static constexpr const char* kSizeNames[] = {"rows", "columns", "entries"};
  std::int64_t sizes[3] = {};
  for (int i = 0; i < 3; ++i) {
    const std::string_view token = size_tokens[static_cast<std::size_t>(i)];
    bool overflow = false;
    const char* end = token.data() + token.size();
    if (detail::parse_integer_token(token.data(), end, sizes[i], overflow) == nullptr)
      throw ParseError(name, header.size_line,
                       std::string("malformed size line: the number of ") + kSizeNames[i] + " " +
                           quoted(token) + (overflow ? " is too large" : " is not an integer"));
    if (sizes[i] < 0)
      throw ParseError(name, header.size_line,
                       std::string("negative number of ") + kSizeNames[i] + ": " + str(sizes[i]));
  }
  header.rows = sizes[0];
  header.cols = sizes[1];
  header.entries = sizes[2];
  constexpr auto kIndexMax = static_cast<std::int64_t>(std::numeric_limits<Index>::max());
  for (int i = 0; i < 3; ++i)
    if (sizes[i] > kIndexMax)
      throw IndexOverflowError(name + ":" + str(header.size_line) + ": " + str(sizes[i]) + " " +
                               kSizeNames[i] + " do not fit " +
                               detail::index_width_name<Index>() + " indices (at most " +
                               str(kIndexMax) + "); read it with 64-bit indices");
  if (tuning.max_dimension >= 0 &&
      (header.rows > tuning.max_dimension || header.cols > tuning.max_dimension))
    throw Error(name + ":" + str(header.size_line) + ": " + str(header.rows) + " x " +
                str(header.cols) + " exceeds the configured limit of " + str(tuning.max_dimension));
  if (header.symmetry != Symmetry::general && header.rows != header.cols)
    throw ParseError(name, header.size_line,
                     "a " + symmetry_name(header.symmetry) + " matrix must be square, but the "
                     "size line declares " + str(header.rows) + " x " + str(header.cols));
  header.entries_first_line = header.size_line + 1;
}

// ---- entries ----------------------------------------------------------------------------------

struct Chunk {
  const char* begin = nullptr;
  const char* end = nullptr;
  std::int64_t newlines = 0;       ///< '\n' in [begin, end)
  std::int64_t first_line = 0;     ///< 1-based number of the line at begin
  std::int64_t slot = 0;           ///< where its entries go in the COO arrays
  std::int64_t capacity = 0;       ///< how many entries it may hold
  std::int64_t entries = 0;        ///< how many it holds after parsing
  std::int64_t error_line = -1;    ///< first error, if any
  std::string error;
};

/// A line holds an entry when its first non-blank character is neither '%' nor the end.
inline bool holds_entry(const char* p, const char* end) {
  p = skip_blanks(p, end);
  return p < end && *p != '\n' && *p != '%';
}

std::int64_t count_newlines(const char* begin, const char* end) {
  std::int64_t count = 0;
  for (const char* p = begin; p < end; ++p) count += *p == '\n' ? 1 : 0;  // vectorised
  return count;
}

std::int64_t count_entry_lines(const char* p, const char* end) {
  std::int64_t count = 0;
  while (p < end) {
    count += holds_entry(p, end) ? 1 : 0;
    p = detail::next_line(p, end);
  }
  return count;
}

struct EntryRules {
  std::int64_t rows = 0, cols = 0;
  Field field = Field::real;
  bool skew = false;
};

/// strtod in the "C" locale whatever the process locale (for the rare out-of-range values).
double strtod_c_locale(const std::string& token) {
  struct CLocale {
    locale_t handle = newlocale(LC_ALL_MASK, "C", locale_t{});
    ~CLocale() {
      if (handle != locale_t{}) freelocale(handle);
    }
  };
  static const CLocale c_locale;
  if (c_locale.handle == locale_t{}) return std::strtod(token.c_str(), nullptr);
  return strtod_l(token.c_str(), nullptr, c_locale.handle);
}

template <typename Value>
const char* parse_value(const char* p, const char* end, Field field, Value& value,
                        std::string& error) {
  // from_chars takes no '+'; Matrix Market writers sometimes print one.
  const char* start = p;
  if (*p == '+' && p + 1 < end && p[1] != '-' && p[1] != '+') ++p;
  if (field == Field::integer) {
    std::int64_t integer = 0;
    bool overflow = false;
    const char* next = detail::parse_integer_token(p, end, integer, overflow);
    if (next == nullptr) {
      error = overflow ? "integer value '" + token_preview(start, end) + "' is out of range"
                       : "expected an integer value, found '" + token_preview(start, end) + "'";
      return nullptr;
    }
    value = from_double<Value>(static_cast<double>(integer));
    return next;
  }
  using Parsed = std::conditional_t<std::is_same_v<Value, float>, float, double>;
  Parsed parsed{};
  const auto [next, status] = std::from_chars(p, end, parsed);
  if (status == std::errc::result_out_of_range && detail::at_token_end(next, end)) {
    // Overflow or underflow: strtod tells which (it returns +-HUGE_VAL on overflow and the
    // nearest subnormal or zero on underflow).
    const double wide = strtod_c_locale(std::string(p, next));
    if (std::isinf(wide)) {
      error = "value '" + token_preview(start, end) + "' is out of the range of double";
      return nullptr;
    }
    value = from_double<Value>(wide);
    return next;
  }
  if (status != std::errc{} || !detail::at_token_end(next, end)) {
    error = "malformed value '" + token_preview(start, end) + "'";
    return nullptr;
  }
  if constexpr (std::is_same_v<Value, float>) value = parsed;
  else value = from_double<Value>(parsed);
  return next;
}

const char* parse_index(const char* p, const char* end, const char* what, std::int64_t limit,
                        std::int64_t& index, std::string& error) {
  bool overflow = false;
  const char* next = detail::parse_integer_token(p, end, index, overflow);
  if (next == nullptr) {
    error = std::string(overflow ? "too large " : "expected an integer ") + what +
            " index, found '" + token_preview(p, end) + "'";
    return nullptr;
  }
  if (index < 1 || index > limit) {
    error = std::string(what) + " index " + str(index) + " is out of range [1, " + str(limit) +
            "] (indices are 1-based)";
    return nullptr;
  }
  return next;
}

/// Parses the entry lines of one chunk into the COO arrays from chunk.slot on. Stops at the
/// first error, which it records in the chunk (no exception crosses the OpenMP region).
template <typename Value, typename Index>
void parse_chunk(Chunk& chunk, const EntryRules& rules, Index* row_out, Index* col_out,
                 Value* value_out) {
  const char* p = chunk.begin;
  const char* const end = chunk.end;
  std::int64_t line = chunk.first_line;
  std::int64_t count = 0;
  std::string error;
  const auto fail = [&](std::string message) {
    chunk.error_line = line;
    chunk.error = std::move(message);
    chunk.entries = count;
  };
  const bool has_value = rules.field != Field::pattern;
  while (p < end) {
    p = skip_blanks(p, end);
    if (p == end) break;
    if (*p == '\n') {  // blank line
      ++p;
      ++line;
      continue;
    }
    if (*p == '%') {  // comment
      p = detail::next_line(p, end);
      ++line;
      continue;
    }
    if (count == chunk.capacity) return fail("internal error: more entries than counted");

    std::int64_t row = 0, column = 0;
    p = parse_index(p, end, "row", rules.rows, row, error);
    if (p == nullptr) return fail(std::move(error));
    p = skip_blanks(p, end);
    if (p == end || *p == '\n')
      return fail(has_value ? "missing column index and value: expected 'row column value'"
                            : "missing column index: expected 'row column'");
    p = parse_index(p, end, "column", rules.cols, column, error);
    if (p == nullptr) return fail(std::move(error));
    if (rules.skew && row == column)
      return fail("entry on the diagonal (row " + str(row) + ", column " + str(column) +
                  ") in a skew-symmetric file: its diagonal is zero and is not stored");

    const auto slot = static_cast<std::size_t>(chunk.slot + count);
    if (has_value) {
      p = skip_blanks(p, end);
      if (p == end || *p == '\n')
        return fail("missing value: a " + field_name(rules.field) +
                    " file needs 'row column value'");
      p = parse_value(p, end, rules.field, value_out[slot], error);
      if (p == nullptr) return fail(std::move(error));
    }
    p = skip_blanks(p, end);
    if (p < end && *p != '\n')
      return fail("unexpected text '" + token_preview(p, end) + "' after the " +
                  (has_value ? std::string("value") : "column index (a pattern file has no values)"));
    row_out[slot] = static_cast<Index>(row - 1);
    col_out[slot] = static_cast<Index>(column - 1);
    ++count;
    if (p < end) {
      ++p;  // past '\n'
      ++line;
    }
  }
  chunk.entries = count;
}

/// Splits [begin, end) into about `count` chunks that start at line starts.
std::vector<Chunk> split_into_chunks(const char* begin, const char* end, std::int64_t count) {
  std::vector<Chunk> chunks;
  const auto size = static_cast<std::int64_t>(end - begin);
  const char* start = begin;
  for (std::int64_t k = 1; k <= count && start < end; ++k) {
    const char* stop = end;
    if (k < count) {
      stop = begin + size * k / count;
      if (stop <= start) continue;
      if (stop[-1] != '\n') stop = detail::next_line(stop, end);
    }
    Chunk chunk;
    chunk.begin = start;
    chunk.end = stop;
    chunks.push_back(std::move(chunk));
    start = stop;
  }
  return chunks;
}

/// Stored entries as read, before assembly.
template <typename Value, typename Index>
struct ParsedEntries {
  Header header;
  detail::UninitializedVector<Index> row_idx, col_idx;
  detail::UninitializedVector<Value> values;
};

/// Bytes of text an entry line needs at least: "1 1\n" (pattern) or "1 1 1\n".
std::int64_t min_entry_text_bytes(Field field) { return field == Field::pattern ? 4 : 6; }

/// Deflate cannot compress better than about 1032:1 (RFC 1951: a 258-byte match costs at least
/// 2 bits): a bound on the text a gzip file of known size can hold.
constexpr std::uint64_t kMaxDeflateRatio = 1032;

/// Shape and entry counts whose arrays exceed this are announced (ReadOptions::on_notice) before
/// they are allocated.
constexpr std::uint64_t kNoticeBytes = std::uint64_t{1} << 30;

/// Gives `array` room for `capacity` elements, keeping its elements: a new allocation and a
/// parallel copy (std::vector's own growth copies, and faults in the new pages, on one core).
template <typename T>
void grow_keeping(detail::UninitializedVector<T>& array, std::int64_t capacity, int threads) {
  if (static_cast<std::int64_t>(array.capacity()) >= capacity) return;
  detail::UninitializedVector<T> grown;
  grown.reserve(static_cast<std::size_t>(capacity));
  grown.resize(array.size());
  const auto count = static_cast<std::int64_t>(array.size());
  const int team = detail::threads_for(count, threads);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (std::int64_t i = 0; i < count; ++i)
    grown[static_cast<std::size_t>(i)] = array[static_cast<std::size_t>(i)];
  array.swap(grown);
}

/// Parses the entry text piece by piece into growing COO arrays. Each piece is split into
/// chunks at line boundaries; a first parallel pass counts the newlines of every chunk (its
/// first line number and an upper bound on its entries), a second parses the chunks.
template <typename Value, typename Index>
class EntryParser {
 public:
  EntryParser(ParsedEntries<Value, Index>& parsed, const std::string& name,
              const ReadOptions& options, const detail::MatrixMarketTuning& tuning)
      : parsed_(parsed),
        name_(name),
        tuning_(tuning),
        threads_(detail::resolve_threads(options.threads)),
        rules_{parsed.header.rows, parsed.header.cols, parsed.header.field,
               parsed.header.symmetry == Symmetry::skew_symmetric},
        last_line_(parsed.header.size_line) {}

  /// Parses the entry lines of [begin, end), whose first line is `first_line`; returns the
  /// number of the line after it. `source_fraction_read`: the part of the file read so far
  /// (this piece included), 0 when unknown; it projects the total when the arrays must grow.
  std::int64_t add(const char* begin, const char* end, std::int64_t first_line,
                   double source_fraction_read) {
    if (begin == end) return first_line;
    const Header& header = parsed_.header;
    const auto region = static_cast<std::int64_t>(end - begin);
    const auto min_chunk = static_cast<std::int64_t>(std::max<std::size_t>(tuning_.min_chunk_bytes, 1));
    const std::int64_t chunk_count = std::clamp<std::int64_t>(region / min_chunk, 1,
                                                              threads_ * kChunksPerThread);
    std::vector<Chunk> chunks = split_into_chunks(begin, end, chunk_count);
    const auto chunk_total = static_cast<std::int64_t>(chunks.size());
    const int team = chunk_total > 1 ? threads_ : 1;

#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (team > 1)
    for (std::int64_t c = 0; c < chunk_total; ++c) {
      Chunk& chunk = chunks[static_cast<std::size_t>(c)];
      chunk.newlines = count_newlines(chunk.begin, chunk.end);
      chunk.capacity = chunk.newlines + (chunk.end[-1] != '\n' ? 1 : 0);
    }
    std::int64_t lines = 0;
    for (Chunk& chunk : chunks) {
      chunk.first_line = first_line + lines;
      lines += chunk.newlines;
    }
    last_line_ = first_line + lines - (end[-1] == '\n' ? 1 : 0);

    const std::int64_t remaining = header.entries - found_;
    std::int64_t capacity = 0;
    for (const Chunk& chunk : chunks) capacity += chunk.capacity;
    if (capacity > remaining) {
      // More lines than entries still expected: comments, blank lines, or too many entries.
      // Count the entry lines exactly, so that storage never exceeds the declared count.
#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (team > 1)
      for (std::int64_t c = 0; c < chunk_total; ++c) {
        Chunk& chunk = chunks[static_cast<std::size_t>(c)];
        chunk.capacity = count_entry_lines(chunk.begin, chunk.end);
      }
      capacity = 0;
      for (const Chunk& chunk : chunks) {
        if (capacity + chunk.capacity > remaining) {
          // The first surplus entry is in this chunk: find its line.
          std::int64_t line = chunk.first_line;
          std::int64_t seen = found_ + capacity;
          for (const char* p = chunk.begin; p < chunk.end; p = detail::next_line(p, chunk.end)) {
            if (holds_entry(p, chunk.end) && ++seen > header.entries) break;
            ++line;
          }
          throw ParseError(name_, line,
                           "more entries than the " + str(header.entries) +
                               " declared on the size line (line " + str(header.size_line) + ")");
        }
        capacity += chunk.capacity;
      }
    }
    {
      std::int64_t slot = found_;
      for (Chunk& chunk : chunks) {
        chunk.slot = slot;
        slot += chunk.capacity;
      }
    }
    make_room(found_ + capacity, source_fraction_read);
    parsed_.row_idx.resize(static_cast<std::size_t>(found_ + capacity));
    parsed_.col_idx.resize(static_cast<std::size_t>(found_ + capacity));
    parsed_.values.resize(static_cast<std::size_t>(found_ + capacity));

#pragma omp parallel for num_threads(team) schedule(dynamic, 1) if (team > 1)
    for (std::int64_t c = 0; c < chunk_total; ++c)
      parse_chunk<Value, Index>(chunks[static_cast<std::size_t>(c)], rules_, parsed_.row_idx.data(),
                                parsed_.col_idx.data(), parsed_.values.data());

    const Chunk* first_error = nullptr;
    for (const Chunk& chunk : chunks)
      if (chunk.error_line >= 0 &&
          (first_error == nullptr || chunk.error_line < first_error->error_line))
        first_error = &chunk;
    if (first_error != nullptr) throw ParseError(name_, first_error->error_line, first_error->error);

    // Close the gaps that comment and blank lines left (chunks in order, so moves go left).
    for (const Chunk& chunk : chunks) {
      if (chunk.slot != found_) {
        const auto from = static_cast<std::ptrdiff_t>(chunk.slot);
        const auto count = static_cast<std::ptrdiff_t>(chunk.entries);
        const auto to = static_cast<std::ptrdiff_t>(found_);
        std::copy(parsed_.row_idx.begin() + from, parsed_.row_idx.begin() + from + count,
                  parsed_.row_idx.begin() + to);
        std::copy(parsed_.col_idx.begin() + from, parsed_.col_idx.begin() + from + count,
                  parsed_.col_idx.begin() + to);
        std::copy(parsed_.values.begin() + from, parsed_.values.begin() + from + count,
                  parsed_.values.begin() + to);
      }
      found_ += chunk.entries;
    }
    parsed_.row_idx.resize(static_cast<std::size_t>(found_));
    parsed_.col_idx.resize(static_cast<std::size_t>(found_));
    parsed_.values.resize(static_cast<std::size_t>(found_));
    return first_line + lines;
  }

  /// Makes room for `entries` entries in all, keeping those stored (copied in parallel when the
  /// arrays move). The room is address space: pages are touched as entries are stored.
  void reserve(std::int64_t entries) {
    const auto have = static_cast<std::int64_t>(parsed_.row_idx.capacity());
    if (entries <= have) return;
    const auto bytes = static_cast<std::uint64_t>(entries - have) *
                       (2 * sizeof(Index) + sizeof(Value));
    require_host_memory(bytes, name_ + ": storing " + str(entries) + " entries");
    grow_keeping(parsed_.row_idx, entries, threads_);
    grow_keeping(parsed_.col_idx, entries, threads_);
    grow_keeping(parsed_.values, entries, threads_);
  }

  std::int64_t found() const { return found_; }
  /// The number of the last line seen (the size line when no entry text followed it).
  std::int64_t last_line() const { return last_line_; }

 private:
  /// Grows the COO arrays to hold `needed` entries. A file whose size bounds its text had its
  /// arrays reserved up front (reserve()), so this runs only for gzip input and odd files: to
  /// the total projected from the part of the file read so far, at least doubling, never beyond
  /// the declared count; the entries stored so far are copied in parallel.
  void make_room(std::int64_t needed, double source_fraction_read) {
    const auto have = static_cast<std::int64_t>(parsed_.row_idx.capacity());
    if (needed <= have) return;
    const std::int64_t declared = parsed_.header.entries;
    std::int64_t target = std::max(needed, std::min(declared, 2 * have));
    if (source_fraction_read > 0)
      target = std::max(target, std::min(declared, static_cast<std::int64_t>(
                                                       1.1 * static_cast<double>(needed) /
                                                       std::min(source_fraction_read, 1.0)) +
                                                       1024));
    reserve(target);
  }

  ParsedEntries<Value, Index>& parsed_;
  const std::string& name_;
  const detail::MatrixMarketTuning& tuning_;
  int threads_;
  EntryRules rules_;
  std::int64_t found_ = 0;
  std::int64_t last_line_ = 0;
};

/// The declared entry count, but no more than a text of the file's size can hold (a bound only
/// when the size is known).
std::uint64_t entries_the_text_can_hold(const Header& header, const detail::TextReader& reader) {
  auto entries = static_cast<std::uint64_t>(header.entries);
  if (reader.source_size() > 0) {
    const std::uint64_t text_bound =
        reader.compressed() ? reader.source_size() * kMaxDeflateRatio : reader.source_size();
    entries = std::min(entries, text_bound / static_cast<std::uint64_t>(min_entry_text_bytes(header.field)));
  }
  return entries;
}

/// Before anything is allocated: refuses a declared shape whose arrays cannot fit in the
/// memory available, and announces one that needs more than kNoticeBytes.
template <typename Value, typename Index>
void check_declared_size(const Header& header, const detail::TextReader& reader,
                         const ReadOptions& options, const detail::MatrixMarketTuning& tuning) {
  const std::uint64_t entries = entries_the_text_can_hold(header, reader);
  const std::uint64_t stored = (header.symmetry == Symmetry::general ? 1 : 2) * entries;
  constexpr std::uint64_t kKeyBytes = 16;  // assembly sort key per stored entry
  const std::uint64_t shape_bytes = 2 * (static_cast<std::uint64_t>(header.rows) + 1) * sizeof(Index);
  const std::uint64_t entry_bytes = entries * (2 * sizeof(Index) + sizeof(Value)) +
                                    stored * (kKeyBytes + sizeof(Index) + sizeof(Value));
  const std::string what = reader.name() + ":" + str(header.size_line) + ": the declared " +
                           str(header.rows) + " x " + str(header.cols) + " matrix with " +
                           str(header.entries) + " entries";
  require_host_memory(shape_bytes + entry_bytes, what);
  const std::uint64_t notice_bytes = tuning.notice_bytes > 0 ? tuning.notice_bytes : kNoticeBytes;
  if (options.on_notice && shape_bytes + entry_bytes >= notice_bytes)
    options.on_notice(what + " needs about " + format_bytes(shape_bytes + entry_bytes) +
                      " of host memory (row offsets " + format_bytes(shape_bytes) + ", entries " +
                      format_bytes(entry_bytes) + "); " + format_bytes(available_host_memory()) +
                      " available");
}

/// Header lines, piece by piece: the line reader of the current piece and the lines before it.
struct HeaderCursor {
  detail::TextReader& reader;
  std::string_view piece;
  LineReader lines{std::string_view{}};
  std::int64_t lines_before = 0;  ///< lines in the pieces before `piece`

  /// The next line and its 1-based number; false at the end of the text.
  bool next(std::string_view& line, std::int64_t& number) {
    while (lines.done()) {
      lines_before += lines.number();
      piece = reader.next(lines_before + 1);
      if (piece.empty()) return false;
      lines = LineReader(piece);
    }
    line = lines.next();
    number = lines_before + lines.number();
    return true;
  }
};

template <typename Value, typename Index>
ParsedEntries<Value, Index> parse_entries(detail::TextReader& reader, const ReadOptions& options,
                                          const detail::MatrixMarketTuning& tuning) {
  const std::string& name = reader.name();
  ParsedEntries<Value, Index> parsed;
  Header& header = parsed.header;

  // The banner from the first bytes: a binary or huge one-line file is refused at once.
  constexpr std::size_t kBannerPeekBytes = 4096;
  const std::string_view head = reader.peek(kBannerPeekBytes);
  if (head.empty())
    throw ParseError(name, 0, "empty file: expected the banner '" + std::string(kBannerForm) + "'");
  parse_banner(head.substr(0, std::min(head.find('\n'), head.size())), name, header);

  HeaderCursor cursor{reader, {}};
  std::string_view line;
  std::int64_t number = 0;
  cursor.next(line, number);  // the banner, checked above
  for (;;) {
    if (!cursor.next(line, number))
      throw ParseError(name, number,
                       "missing size line 'rows columns entries': the file ends after the header");
    if (!is_comment_or_blank(line)) break;
  }
  parse_size_line<Index>(line, number, name, tuning, header);
  check_declared_size<Value, Index>(header, reader, options, tuning);

  EntryParser<Value, Index> entries(parsed, name, options, tuning);
  // Plain text of known size: room for every entry it can hold, at once (as the reader that
  // held the whole text did), so that the arrays never move. Gzip: grown as pieces arrive.
  if (reader.source_size() > 0 && !reader.compressed())
    entries.reserve(static_cast<std::int64_t>(entries_the_text_can_hold(header, reader)));
  const auto fraction_read = [&] {
    if (reader.source_size() == 0) return 0.0;
    return static_cast<double>(reader.source_bytes_read()) /
           static_cast<double>(reader.source_size());
  };
  const std::size_t rest = cursor.lines.offset();
  std::int64_t next_line =
      entries.add(cursor.piece.data() + rest, cursor.piece.data() + cursor.piece.size(),
                  header.entries_first_line, fraction_read());
  for (;;) {
    const std::string_view piece = reader.next(next_line);
    if (piece.empty()) break;
    next_line = entries.add(piece.data(), piece.data() + piece.size(), next_line, fraction_read());
  }
  const std::int64_t found = entries.found();
  if (found < header.entries)
    throw ParseError(name, entries.last_line(),
                     "expected " + str(header.entries) + " entries (size line, line " +
                         str(header.size_line) + "), found " + str(found) +
                         (found == 0 ? "" : " (file truncated?)"));

  if (header.field == Field::pattern) {
    const int value_team = detail::threads_for(found, options.threads);
#pragma omp parallel for num_threads(value_team) schedule(static) if (value_team > 1)
    for (std::int64_t e = 0; e < found; ++e)
      parsed.values[static_cast<std::size_t>(e)] = from_double<Value>(
          detail::pattern_value(options.pattern_seed, static_cast<std::uint64_t>(e)));
  }
  return parsed;
}

/// The 1-based lines of the entries numbered `ordinals` (0-based, in file order, ascending),
/// found by reading the text again: only for messages.
std::vector<std::int64_t> entry_lines(detail::TextReader& reader, std::int64_t size_line,
                                      const std::vector<std::int64_t>& ordinals) {
  std::vector<std::int64_t> lines;
  std::int64_t line = 0, ordinal = -1;
  for (;;) {
    const std::string_view piece = reader.next(line + 1);
    if (piece.empty()) break;
    const char* const end = piece.data() + piece.size();
    for (const char* p = piece.data(); p < end; p = detail::next_line(p, end)) {
      ++line;
      if (line <= size_line || !holds_entry(p, end)) continue;
      ++ordinal;
      while (lines.size() < ordinals.size() && ordinals[lines.size()] == ordinal) lines.push_back(line);
      if (lines.size() == ordinals.size()) return lines;
    }
  }
  lines.resize(ordinals.size(), 0);
  return lines;
}

/// A symmetric, skew-symmetric or hermitian file stores one triangle: an entry stored together
/// with its mirror would be counted twice (summed) by the expansion, so it is refused, naming
/// both lines. Entries above the diagonal alone are read as their mirror below it, and
/// announced through ReadOptions::on_notice.
template <typename Value, typename Index>
void check_mirrored_entries(const ParsedEntries<Value, Index>& parsed,
                            const detail::ReopenText& reopen, const ReadOptions& options,
                            const std::string& name) {
  const Header& header = parsed.header;
  if (header.symmetry == Symmetry::general) return;
  const auto count = static_cast<std::int64_t>(parsed.row_idx.size());
  const int team = detail::threads_for(count, options.threads);
  std::int64_t upper = 0, lower = 0;
#pragma omp parallel for num_threads(team) schedule(static) reduction(+ : upper, lower) if (team > 1)
  for (std::int64_t k = 0; k < count; ++k) {
    const auto row = parsed.row_idx[static_cast<std::size_t>(k)];
    const auto column = parsed.col_idx[static_cast<std::size_t>(k)];
    upper += row < column ? 1 : 0;
    lower += row > column ? 1 : 0;
  }
  if (upper == 0) return;
  const auto position = [&](std::int64_t k) {
    return "(" + str(static_cast<std::int64_t>(parsed.row_idx[static_cast<std::size_t>(k)]) + 1) +
           ", " + str(static_cast<std::int64_t>(parsed.col_idx[static_cast<std::size_t>(k)]) + 1) +
           ")";
  };
  if (lower > 0) {
    // Upper entries by their mirrored position, then every lower entry looked up among them.
    using Key = std::pair<std::pair<Index, Index>, std::int64_t>;
    std::vector<Key> mirrors;
    mirrors.reserve(static_cast<std::size_t>(upper));
    for (std::int64_t k = 0; k < count; ++k) {
      const auto row = parsed.row_idx[static_cast<std::size_t>(k)];
      const auto column = parsed.col_idx[static_cast<std::size_t>(k)];
      if (row < column) mirrors.push_back({{column, row}, k});
    }
    detail::sort_in_parallel(mirrors.begin(), mirrors.end(), options.threads);
    const auto mirror_of = [&](std::int64_t k) {
      const std::pair<Index, Index> at{parsed.row_idx[static_cast<std::size_t>(k)],
                                       parsed.col_idx[static_cast<std::size_t>(k)]};
      return std::lower_bound(mirrors.begin(), mirrors.end(), Key{at, -1});
    };
    const std::int64_t both = detail::first_failing(count, options.threads, [&](std::int64_t k) {
      if (parsed.row_idx[static_cast<std::size_t>(k)] <= parsed.col_idx[static_cast<std::size_t>(k)])
        return false;
      const auto found = mirror_of(k);
      return found != mirrors.end() && found->first.first == parsed.row_idx[static_cast<std::size_t>(k)] &&
             found->first.second == parsed.col_idx[static_cast<std::size_t>(k)];
    });
    if (both >= 0) {
      const std::int64_t other = mirror_of(both)->second;
      std::vector<std::int64_t> ordinals{std::min(both, other), std::max(both, other)};
      auto again = reopen();
      const auto lines = entry_lines(*again, header.size_line, ordinals);
      const bool lower_first = both < other;
      const std::int64_t lower_line = lower_first ? lines[0] : lines[1];
      const std::int64_t upper_line = lower_first ? lines[1] : lines[0];
      throw ParseError(name, std::max(lines[0], lines[1]),
                       "entry " + position(both) + " on line " + str(lower_line) +
                           " and its mirror " + position(other) + " on line " + str(upper_line) +
                           " are both stored, but a " + symmetry_name(header.symmetry) +
                           " file stores one triangle (the mirror is implied and would be "
                           "counted twice); remove one of them, or declare the file 'general'");
    }
  }
  if (options.on_notice) {
    const std::int64_t first = detail::first_failing(count, options.threads, [&](std::int64_t k) {
      return parsed.row_idx[static_cast<std::size_t>(k)] < parsed.col_idx[static_cast<std::size_t>(k)];
    });
    auto again = reopen();
    const auto lines = entry_lines(*again, header.size_line, {first});
    options.on_notice(name + ":" + str(lines[0]) + ": " + str(upper) + " of the " + str(count) +
                      " entries of this " + symmetry_name(header.symmetry) +
                      " file lie above the diagonal, first " + position(first) +
                      "; the Matrix Market format stores the lower triangle: each is read as "
                      "its mirror below the diagonal");
  }
}

template <typename Value, typename Index>
CsrMatrix<Value, Index> assemble_entries(ParsedEntries<Value, Index>& parsed,
                                         const std::string& name, const ReadOptions& options) {
  detail::AssemblyOptions assembly;
  assembly.threads = options.threads;
  assembly.duplicates = DuplicatePolicy::sum;
  switch (parsed.header.symmetry) {
    case Symmetry::general: assembly.mirror = detail::Mirror::none; break;
    case Symmetry::symmetric:
    case Symmetry::hermitian: assembly.mirror = detail::Mirror::symmetric; break;
    case Symmetry::skew_symmetric: assembly.mirror = detail::Mirror::skew_symmetric; break;
  }
  try {
    return detail::assemble_csr<Value, Index>(
        static_cast<Index>(parsed.header.rows), static_cast<Index>(parsed.header.cols),
        parsed.row_idx, parsed.col_idx, parsed.values, assembly, [&parsed] {
          parsed.row_idx = {};
          parsed.col_idx = {};
        });
  } catch (const IndexOverflowError& overflow) {
    throw IndexOverflowError(name + ": " + overflow.what() + "; read it with 64-bit indices");
  }
}

void fill_report(ReadReport* report, const Header& header, std::size_t text_bytes,
                 std::int64_t entries) {
  if (report == nullptr) return;
  report->text_bytes = text_bytes;
  report->entries_in_file = entries;
  report->field = field_name(header.field);
  report->symmetry = symmetry_name(header.symmetry);
}

// ---- writer -----------------------------------------------------------------------------------

/// Entries per formatting block of the writer (a few MB of text each).
constexpr std::int64_t kWriteBlockEntries = 1 << 17;
/// Longest entry line: two 19-digit indices, a value of at most 24 characters, 3 separators.
constexpr std::size_t kMaxEntryLine = 19 + 1 + 19 + 1 + 32 + 1;

template <typename Value>
char* format_value(char* out, char* limit, Value value) {
  // double and float: the shortest text that reads back to the same value. half and bfloat16
  // through their exact double, which the reader (parsing double, then rounding) gets back.
  if constexpr (std::is_same_v<Value, float>) return std::to_chars(out, limit, value).ptr;
  else return std::to_chars(out, limit, to_double(value)).ptr;
}

}  // namespace

namespace detail {

template <typename Value, typename Index>
CsrMatrix<Value, Index> read_matrix_market_from(TextReader& reader, const ReopenText& reopen,
                                                const ReadOptions& options, ReadReport* report,
                                                const MatrixMarketTuning& tuning) {
  const std::string name = reader.name();
  try {
    Stopwatch stopwatch;
    auto parsed = parse_entries<Value, Index>(reader, options, tuning);
    check_mirrored_entries(parsed, reopen, options, name);
    // Reading and inflating happened inside the parse loop: count them apart. The check of a
    // symmetric file's triangles counts as parsing.
    const double parse_seconds = stopwatch.elapsed_seconds() - reader.read_seconds();
    const auto entries = static_cast<std::int64_t>(parsed.row_idx.size());
    stopwatch.restart();
    auto matrix = assemble_entries(parsed, name, options);
    if (report != nullptr) {
      report->file_bytes = reader.source_bytes_read();
      report->read_seconds = reader.read_seconds();
      report->parse_seconds = parse_seconds;
      report->assemble_seconds = stopwatch.elapsed_seconds();
      fill_report(report, parsed.header, reader.text_bytes(), entries);
    }
    return matrix;
  } catch (const std::bad_alloc&) {
    throw_out_of_memory_reading(name);
  }
}

template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_matrix_market_text(std::string_view text, const std::string& name,
                                                 const ReadOptions& options, ReadReport* report,
                                                 const MatrixMarketTuning& tuning) {
  TextReader reader(text, name, tuning.read_buffer_bytes);
  return read_matrix_market_from<Value, Index>(reader, [text, name, &tuning] {
    return std::make_unique<TextReader>(text, name, tuning.read_buffer_bytes);
  }, options, report, tuning);
}

}  // namespace detail

template <typename Value, typename Index>
CsrMatrix<Value, Index> read_matrix_market(const std::filesystem::path& path,
                                           const ReadOptions& options, ReadReport* report) {
  detail::TextReader reader(path, detail::TextReader::kDefaultBufferBytes, options.threads);
  return detail::read_matrix_market_from<Value, Index>(
      reader,
      [path, &options] {
        return std::make_unique<detail::TextReader>(path, detail::TextReader::kDefaultBufferBytes,
                                                    options.threads);
      },
      options, report, {});
}

template <typename Value, typename Index>
void write_matrix_market(const std::filesystem::path& path,
                         const CsrMatrix<Value, Index>& matrix) {
  matrix.validate();
  detail::OutputFile file(path);
  const std::string header = "%%MatrixMarket matrix coordinate real general\n" +
                             str(matrix.rows) + " " + str(matrix.cols) + " " +
                             str(matrix.nnz()) + "\n";
  file.write(header);

  // Pieces of whole rows of about kWriteBlockEntries entries (piece p: the rows whose entries
  // start in [p, p + 1) x kWriteBlockEntries), formatted in parallel and written in order.
  const std::int64_t nnz = matrix.nnz();
  const std::int64_t pieces = std::max<std::int64_t>(1, (nnz + kWriteBlockEntries - 1) / kWriteBlockEntries);
  const auto first_row_at = [&](std::int64_t piece) -> std::int64_t {
    if (piece >= pieces) return matrix.rows;
    const Index entry = static_cast<Index>(piece * kWriteBlockEntries);
    return static_cast<std::int64_t>(
        std::lower_bound(matrix.row_ptr.begin(), matrix.row_ptr.end() - 1, entry) -
        matrix.row_ptr.begin());
  };
  detail::write_pieces_in_order(file, pieces, 0, [&](std::int64_t piece, auto& text) {
    const std::int64_t first_row = piece == 0 ? 0 : first_row_at(piece);
    const std::int64_t last_row = first_row_at(piece + 1);
    const auto first_entry = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(first_row)]);
    const auto last_entry = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(last_row)]);
    text.resize((last_entry - first_entry) * kMaxEntryLine);
    char* out = text.data();
    char* const limit = text.data() + text.size();
    for (std::int64_t row = first_row; row < last_row; ++row) {
      for (auto k = static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row)]);
           k < static_cast<std::size_t>(matrix.row_ptr[static_cast<std::size_t>(row) + 1]); ++k) {
        out = std::to_chars(out, limit, row + 1).ptr;
        *out++ = ' ';
        out = std::to_chars(out, limit, static_cast<std::int64_t>(matrix.col_idx[k]) + 1).ptr;
        *out++ = ' ';
        out = format_value(out, limit, matrix.values[k]);
        *out++ = '\n';
      }
    }
    text.resize(static_cast<std::size_t>(out - text.data()));
  });
  file.close();
}

#define TCSPARSE_INSTANTIATE_MATRIX_MARKET(Value, Index)                                        \
  template CsrMatrix<Value, Index> read_matrix_market<Value, Index>(                            \
      const std::filesystem::path&, const ReadOptions&, ReadReport*);                           \
  template void write_matrix_market(const std::filesystem::path&, const CsrMatrix<Value, Index>&); \
  template CsrMatrix<Value, Index> detail::parse_matrix_market_text<Value, Index>(              \
      std::string_view, const std::string&, const ReadOptions&, ReadReport*,                    \
      const detail::MatrixMarketTuning&);

TCSPARSE_INSTANTIATE_MATRIX_MARKET(double, std::int32_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(double, std::int64_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(float, std::int32_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(float, std::int64_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(half, std::int32_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(half, std::int64_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(bfloat16, std::int32_t)
TCSPARSE_INSTANTIATE_MATRIX_MARKET(bfloat16, std::int64_t)

}  // namespace tcsparse
