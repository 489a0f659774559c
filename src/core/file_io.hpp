// Reading text through a fixed buffer (gzip detected by its magic bytes and inflated with zlib)
// and writing text formatted and compressed in parallel (gzip when the name ends in .gz),
// private to src/core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/uninitialized_vector.hpp"

namespace tcsparse::detail {

/// A byte buffer that is not zero-filled on allocation (multi-GB files are read into it).
class ByteBuffer {
 public:
  ByteBuffer() = default;
  explicit ByteBuffer(std::size_t capacity);

  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  std::string_view view() const { return {data_.get(), size_}; }

  /// Grows the capacity to at least `capacity`, keeping the first size() bytes (only those:
  /// set the size before growing a buffer that was written through data()).
  void reserve(std::size_t capacity);
  void resize(std::size_t size);  ///< size <= capacity(); new bytes are not initialised
  void release() { *this = ByteBuffer(); }

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// The two bytes every gzip member starts with (RFC 1952, section 2.3.1).
inline bool has_gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

/// Reads a file's text through one fixed buffer, in pieces of whole lines: the peak memory is
/// the buffer whatever the file's size. A file that starts with the gzip magic is inflated
/// (any number of concatenated members, as `cat a.gz b.gz` or bgzip write) through two such
/// buffers: next() starts inflating the following piece on another thread before it returns. Regular files are
/// read by several threads at once (pread of disjoint blocks); pipes and devices sequentially.
/// Every failure is a ParseError naming the file.
class TextReader {
 public:
  /// Default buffer: large enough that a parallel parse of one piece keeps 16+ cores busy,
  /// small next to the matrix it describes.
  static constexpr std::size_t kDefaultBufferBytes = std::size_t{128} << 20;

  TextReader(const std::filesystem::path& path, std::size_t buffer_bytes = kDefaultBufferBytes,
             int threads = 0);
  /// Bytes already in memory (plain or gzip), named `name` in messages.
  TextReader(std::string_view bytes, std::string name,
             std::size_t buffer_bytes = kDefaultBufferBytes);
  ~TextReader();
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  /// Up to `bytes` bytes of text from the current position on, without consuming them (fewer
  /// only at the end of the text). For checking a banner before reading megabytes.
  std::string_view peek(std::size_t bytes);

  /// The next piece of text: whole lines, the last of which lacks its '\n' only at the end of
  /// the text; empty at the end. Valid until the next call. `first_line` (the 1-based number of
  /// the piece's first line) names the line in the ParseError for a line longer than the buffer.
  std::string_view next(std::int64_t first_line);

  /// The rest of the text in one buffer. `limit_for_prefix` is called once with the first bytes
  /// (up to the buffer size) and returns the most bytes the whole text may have; it may throw.
  /// A longer text is a ParseError naming the limit.
  ByteBuffer read_rest(const std::function<std::size_t(std::string_view)>& limit_for_prefix);

  const std::string& name() const;
  bool compressed() const;
  /// Size of the file on disk (or of the bytes given), when known before reading; 0 otherwise.
  std::uint64_t source_size() const;
  std::uint64_t source_bytes_read() const;  ///< file bytes consumed so far
  std::uint64_t text_bytes() const;         ///< text bytes handed out so far
  double read_seconds() const;  ///< time spent reading and inflating, or waiting for the inflater

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// One complete gzip member (RFC 1952) holding `text`, compressed at zlib's fastest level, in
/// `member` (replaced). Members compress independently, so threads compress pieces of one file
/// at once; concatenated, they read as one text (gzip(1), zlib, Python's gzip, this library).
void compress_gzip_member(std::string_view text, UninitializedVector<char>& member);

/// Writes a file in pieces; gzip-compressed when the path ends in ".gz", each write() then one
/// gzip member. Throws Error naming the path when a write fails. close() reports errors that a
/// destructor would have to swallow.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  bool compressed() const;
  void write(std::string_view text);
  /// Bytes already in the file's encoding: for a compressed file, gzip members (as
  /// compress_gzip_member makes); text otherwise.
  void write_encoded(std::string_view bytes);
  void close();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Fills `text` (resized as needed; its old bytes are of no use) with the piece numbered `piece`.
using FormatPiece = std::function<void(std::int64_t piece, UninitializedVector<char>& text)>;

/// Writes pieces 0 .. pieces-1 of a text to `file`, in order. `threads` threads (as
/// resolve_threads) format the pieces, and compress them for a compressed file, each into its
/// own buffers; a piece is written as soon as those before it are, while the other threads go
/// on with the next ones. The output does not depend on the number of threads; its memory is a
/// few buffers of a piece per thread.
void write_pieces_in_order(OutputFile& file, std::int64_t pieces, int threads,
                           const FormatPiece& format_piece);

/// Lower-case copy of the path's file name, for extension checks.
std::string lowercase_file_name(const std::filesystem::path& path);
bool ends_with(std::string_view text, std::string_view suffix);

/// The HostMemoryError for a std::bad_alloc while reading `name`: names the file and the memory
/// available now.
[[noreturn]] void throw_out_of_memory_reading(const std::string& name);

}  // namespace tcsparse::detail
