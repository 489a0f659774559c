// The Matrix Market parser behind read_matrix_market, on text already in memory (private to
// src/core; the fuzz target and the tests call it directly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/file_io.hpp"
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
  /// Size of the buffer the text is read through (whole lines at a time); tests and the fuzzer
  /// make it small to exercise the seams between pieces.
  std::size_t read_buffer_bytes = TextReader::kDefaultBufferBytes;
  /// Declared sizes needing at least this many bytes are announced through
  /// ReadOptions::on_notice before anything is allocated; 0: the default (1 GiB).
  std::uint64_t notice_bytes = 0;
};

/// Opens the same text again from its start (to find the lines of entries named in a message).
using ReopenText = std::function<std::unique_ptr<TextReader>()>;

/// Parses the Matrix Market text `reader` gives, then assembles it (the body of
/// read_matrix_market).
template <typename Value, typename Index>
CsrMatrix<Value, Index> read_matrix_market_from(TextReader& reader, const ReopenText& reopen,
                                                const ReadOptions& options, ReadReport* report,
                                                const MatrixMarketTuning& tuning);

/// Parses a whole Matrix Market file held in `text`; `name` is used in the messages. Fills
/// text_bytes, entries_in_file, parse_seconds, assemble_seconds, field and symmetry of `report`.
template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_matrix_market_text(std::string_view text, const std::string& name,
                                                 const ReadOptions& options,
                                                 ReadReport* report = nullptr,
                                                 const MatrixMarketTuning& tuning = {});

}  // namespace tcsparse::detail
