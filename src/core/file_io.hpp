// Whole-file reading (gzip detected by its magic bytes and inflated with zlib) and buffered
// writing (gzip when the name ends in .gz), private to src/core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

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

  /// Grows the capacity to at least `capacity`, keeping the contents.
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

/// Inflates one or more concatenated gzip members. Throws ParseError(name, 0, ...) for corrupt
/// or truncated data.
ByteBuffer gunzip(std::string_view compressed, const std::string& name);

/// The file's bytes as stored, read by `threads` threads when large (0: all). Throws
/// ParseError(path, 0, ...) when it cannot be read.
ByteBuffer read_file_bytes(const std::filesystem::path& path, int threads = 0);

/// A file read for parsing: its text (inflated when the file starts with the gzip magic).
struct FileText {
  ByteBuffer text;
  std::uint64_t file_bytes = 0;  ///< bytes on disk
  double read_seconds = 0.0;     ///< reading and inflating
};
FileText read_text_file(const std::filesystem::path& path, int threads = 0);

/// Writes a file in pieces; gzip-compressed when the path ends in ".gz". Throws Error naming the
/// path when a write fails. close() reports errors that a destructor would have to swallow.
class OutputFile {
 public:
  explicit OutputFile(const std::filesystem::path& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view bytes);
  void close();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Lower-case copy of the path's file name, for extension checks.
std::string lowercase_file_name(const std::filesystem::path& path);
bool ends_with(std::string_view text, std::string_view suffix);

}  // namespace tcsparse::detail
