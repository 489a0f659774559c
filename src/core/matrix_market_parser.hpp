// The Matrix Market parser behind read_matrix_market, on text already in memory (private to
// src/core; the fuzz target and the tests call it directly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tcsparse/csr.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::detail {

/// Knobs that only tests and the fuzzer change.
struct MatrixMarketTuning {
  /// The entry text is split into chunks of at least this many bytes (at line boundaries),
  /// at most 4 per thread. Tests set it to a few bytes to exercise the chunk seams on tiny files.
  std::size_t min_chunk_bytes = std::size_t{1} << 20;
  /// Refuse (with Error) declared row or column counts above this; negative: no limit. The
  /// fuzzer sets it so that a 30-byte file cannot ask for a multi-GB row_ptr.
  std::int64_t max_dimension = -1;
};

/// Parses a whole Matrix Market file held in `text`; `name` is used in the messages. Fills
/// text_bytes, entries_in_file, parse_seconds, assemble_seconds, field and symmetry of `report`.
template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_matrix_market_text(std::string_view text, const std::string& name,
                                                 const ReadOptions& options,
                                                 ReadReport* report = nullptr,
                                                 const MatrixMarketTuning& tuning = {});

}  // namespace tcsparse::detail
